"""MkDocs hook: show the Sphinx roles left in docstrings (``:class:`~a.b.C```) as code.

The docstrings are numpydoc, written for reading in the source as well; mkdocstrings
renders their Markdown but not reStructuredText roles. This hook drops the role name
(and a leading ``~``, keeping only the last dotted part, as Sphinx does), so
``:func:`nbayes.io.load``` reads as ``nbayes.io.load``.
"""

from __future__ import annotations

import re

_ROLE = r":(?:class|func|meth|mod|attr|exc|data|obj|ref):"
_RENDERED = re.compile(_ROLE + r"<code>(~?)([^<]+)</code>")
_RAW = re.compile(_ROLE + r"`(~?)([^`]+)`")


def _name(tilde: str, target: str) -> str:
    return target.rsplit(".", 1)[-1] if tilde else target


def on_page_content(html: str, **kwargs) -> str:
    html = _RENDERED.sub(lambda m: f"<code>{_name(m[1], m[2])}</code>", html)
    return _RAW.sub(lambda m: _name(m[1], m[2]), html)
