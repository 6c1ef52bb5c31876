"""Where a message's header block ends: at its first empty line or, in mail stored
without one (preprocessed corpora keep a ``Subject:`` line, then the body), where its
leading ``Name: value`` lines end. The reader (:mod:`nbayes.spam.parse`) and the
marker (:mod:`nbayes.spam.mark`) both take it from here, so that the lines one reads
as headers are the lines the other marks, and a body line is never touched.
"""

from __future__ import annotations

import re

from nbayes.core.lazy import LazyPattern

_BLANK_LINE = re.compile(rb"\n\r?\n")

# The feed parser's header lines (as nbayes.spam.parse's _HEADER_BLOCK), on bytes; and the stricter
# "Name: value" line that a header must be when no blank line ends the header block.
_HEADER_BLOCK_BYTES = re.compile(
    rb"(?:(?:From |[\041-\071\073-\176]*:|[\t ])[^\r\n]*(?:\r\n|\r|\n|\Z))*"
)
_FIELD_LINE = LazyPattern(rb"(?!(?:mailto|https?|ftp):)[A-Za-z0-9][A-Za-z0-9_.-]*:(?!//)")
_LINES = LazyPattern(rb"[^\r\n]*(?:\r\n|\r|\n|\Z)")
_OTHER_LINE_BREAK_BYTES = LazyPattern(rb"[\x0b\x0c\x1c\x1d\x1e]")


def header_block_end(raw: bytes) -> int:
    """Where the lines the email package's feed parser takes for headers end in ``raw``
    (its ``headerRE`` line by line: ``Name:``, ``From `` and continuation lines)."""
    return _HEADER_BLOCK_BYTES.match(raw).end()


def with_separator(raw: bytes) -> bytes:
    """``raw`` itself, or, where no blank line ends its header block, ``raw`` with one
    inserted where the headers sensibly end (:func:`missing_separator`)."""
    cut = missing_separator(raw)
    if not cut:
        return raw
    newline = b"\r\n" if raw[cut - 2 : cut] == b"\r\n" else raw[cut - 1 : cut]
    return raw[:cut] + newline + raw[cut:]


def missing_separator(raw: bytes) -> int:
    """Where a blank line belongs in ``raw``, whose header block no blank line ends; 0
    where it has one, or where no place is sensible (see below).

    Preprocessed corpora store mail as a ``Subject:`` line followed at once by the
    body, and a body line may look like a header to the ``email`` package (``note:
    ...``, ``http://...``, or any line starting with a space, a continuation). When the
    header block (the lines the ``email`` package takes for headers) is followed by a
    line that is not blank, the headers are the leading ``Name: value`` lines (a name of
    letters, digits, ``_ . -``, directly followed by the colon, not a URL scheme such as
    ``http:``) with their continuation lines, where a run of continuation lines counts
    only if another header line follows it; the body is the rest (also where every line
    looked like a header to the ``email`` package: a message of headers only). A first
    line that is not such a header leaves ``raw`` as it is (read by the ``email``
    package's rules): 0."""
    end = _HEADER_BLOCK_BYTES.match(raw).end()
    if end == 0 or raw[end : end + 1] in (b"\r", b"\n"):
        return 0  # no headers, or the blank line is there
    if _OTHER_LINE_BREAK_BYTES.search(raw, 0, end):
        return 0  # lines the feed parser splits further: left to it
    cut = 0  # the end of the last header line taken (its continuation lines before it)
    for line in _LINES.finditer(raw, 0, end):
        start = line.start()
        if start == line.end():
            break
        if raw[start] in b" \t":
            if cut == 0:
                return 0  # a first line that is a continuation: left to the email package
            continue  # a continuation line: taken if a header line follows
        if not _FIELD_LINE.match(raw, start):
            break
        cut = line.end()
    if cut == 0 or cut == len(raw):
        return 0  # headers only
    return cut


def split_head(raw: bytes) -> tuple[bytes, bytes]:
    """(header block, the rest): the header block ends after the line before the first
    empty line, the rest starts with that empty line; in mail whose header block no
    empty line ends, where :func:`missing_separator` puts one (the rest is then the
    body). A message starting with an empty line has no header block; one without an
    empty line nor any sensible place for one is all header block."""
    if raw.startswith((b"\n", b"\r\n")):
        return b"", raw
    cut = missing_separator(raw)
    if cut:
        return raw[:cut], raw[cut:]
    end = _BLANK_LINE.search(raw)
    if end is None:
        return raw, b""
    return raw[: end.start() + 1], raw[end.start() + 1 :]
