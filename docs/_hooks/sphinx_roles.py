"""MkDocs hook: the Sphinx roles and dotted names in docstrings become cross-references.

The docstrings are numpydoc, written for reading in the source as well; mkdocstrings
renders their Markdown but not reStructuredText roles. This hook turns a role
(``:func:`nbayes.io.load```, ``:class:`~nbayes.core.base.BaseNB```, a leading ``~``
showing only the last dotted part, as Sphinx does) and a name in backticks that is a
dotted path into nbayes (````nbayes.merge````) into an *optional* cross-reference of
mkdocs-autorefs: a link to the object's entry where the API reference documents it,
plain code where it does not (a private module, a name relative to its class), so
``mkdocs build --strict`` does not fail on names the reference leaves out.
"""

from __future__ import annotations

import re

_ROLE = r":(?:class|func|meth|mod|attr|exc|data|obj|ref):"
_RENDERED = re.compile(_ROLE + r"<code>(~?)([^<]+)</code>")
_RAW = re.compile(_ROLE + r"`(~?)([^`]+)`")
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
#: ``<code>nbayes.a.b</code>`` not already the title of a link.
_DOTTED = re.compile(rf"(<a\b[^>]*>\s*)?<code>(nbayes(?:\.{_IDENTIFIER})+)</code>")


def _autoref(identifier: str, title: str) -> str:
    return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'


def _role(match: re.Match) -> str:
    tilde, target = match[1], match[2].strip()
    title = target.rsplit(".", 1)[-1] if tilde else target
    return _autoref(target, title)


def _dotted(match: re.Match) -> str:
    if match[1]:  # already a link's title
        return match[0]
    return _autoref(match[2], match[2])


def on_page_content(html: str, **kwargs) -> str:
    html = _RENDERED.sub(_role, html)
    html = _RAW.sub(_role, html)
    return _DOTTED.sub(_dotted, html)
