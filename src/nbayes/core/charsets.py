"""Which codec names may decode untrusted text: character sets only.

Python's codec registry holds more than character sets. Codecs from bytes to bytes
(``base64_codec``, ``zlib_codec``, ``rot13``) are refused by ``bytes.decode`` itself;
but some text codecs are no character set either, and one of them costs time out of
proportion to its input: ``punycode`` decodes in time quadratic in it (a 1 MB mail
body declared ``charset=punycode`` took 67-121 s). :data:`NOT_CHARSETS` names them;
:func:`is_charset` is the check every reader of a codec name from outside (a model
file's ``encoding``, ``--encoding``, a mail's ``charset``) shares. Standard library
only: the one-shot ``nbayes spam classify`` imports this.

>>> is_charset("latin-1"), is_charset("UTF-8"), is_charset("punycode"), is_charset("zlib")
(True, True, False, False)
"""

from __future__ import annotations

import codecs

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    from typing import Any

#: Text codecs Python knows that are not character sets (by ``codecs.lookup(...).name``):
#: ``punycode`` (quadratic time), ``idna`` (raises on most text), the escape codecs
#: (which read backslashes) and ``undefined`` (which refuses everything).
NOT_CHARSETS = frozenset({"punycode", "idna", "unicode-escape", "raw-unicode-escape", "undefined"})


def is_charset(name: Any) -> bool:
    """Whether ``name`` names a character set Python can decode: a text codec (not one
    from bytes to bytes) that is not in :data:`NOT_CHARSETS`."""
    if not isinstance(name, str):
        return False
    try:
        codec = codecs.lookup(name)
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        return False
    return bool(getattr(codec, "_is_text_encoding", True)) and codec.name not in NOT_CHARSETS
