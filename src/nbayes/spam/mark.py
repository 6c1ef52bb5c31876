"""Marking a message with its verdict, byte for byte everywhere else.

:func:`mark` adds the verdict header (``X-Nbayes-Spam: Spam, score=0.9987`` by
default) as the last header, after removing every header of that name the message
already has (a message filtered twice, or one that arrives with a forged verdict,
carries exactly one), and can put a tag at the front of a spam's ``Subject``
(unless it is there already). The header block is the lines up to the first empty
line, or, in mail without one, the leading ``Name: value`` lines, as the reader takes
them (:func:`nbayes.spam.head.split_head`); the new lines end as the message's own
lines do (CRLF or LF). Nothing else
of the message changes: not the body, not the order or spelling of other headers.
"""

from __future__ import annotations

import re

from nbayes.core.lazy import LazyPattern
from nbayes.spam.head import split_head

DEFAULT_HEADER = "X-Nbayes-Spam"
#: SpamAssassin-style points per unit of the filter's score in [0, 1] (spamd's ``Spam``
#: header, ``X-Spam-Status``): 0 to 10 points, the spam cutoff 0.9 at 9.0.
POINTS = 10.0
_FIELD_NAME = LazyPattern(rb"[!-9;-~]+")  # RFC 5322: printable ASCII but the colon
# A header line ends in LF, CRLF or a lone CR (as the email package reads old Mac mail):
# split on LF alone, a message whose lines end in CR was one line, and a verdict header
# first in it took every other header away with it.
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def check_header_name(name: str) -> str:
    """``name`` if it can name a header field, else ValueError."""
    if not name.isascii() or not _FIELD_NAME.fullmatch(name.encode()):
        raise ValueError(f"not a header field name: {name!r} (printable ASCII, no colon)")
    return name


def check_subject_tag(tag: str) -> str:
    """``tag`` if it can go at the front of a Subject: one line (no CR, LF or NUL), else
    ValueError (a newline in it would add a header field of its own)."""
    if any(c in tag for c in "\r\n\0"):
        raise ValueError(f"a subject tag must be one line (no CR, LF or NUL): {tag!r}")
    return tag


#: The headers SpamAssassin adds, which ``spamassassin=`` adds (and removes first).
SPAMASSASSIN_HEADERS = ("X-Spam-Flag", "X-Spam-Status", "X-Spam-Level")


def mark(
    raw: bytes,
    verdict: str,
    score: float,
    *,
    header: str = DEFAULT_HEADER,
    subject_tag: str = "",
    spamassassin: float | None = None,
    threshold: float = 0.0,
    spam: bool | None = None,
) -> bytes:
    """``raw`` with its ``header`` set to ``"<verdict>, score=<score>"`` (any earlier ones
    removed) and, for ``verdict == "Spam"`` with a ``subject_tag``, the tag at the front
    of its Subject (a Subject made of the tag alone where there is none).

    ``spamassassin``: the score in points (against ``threshold`` points) for the headers
    SpamAssassin writes, which mail rules built for it test: ``X-Spam-Flag: YES`` (spam
    only), ``X-Spam-Status: Yes, score=9.9 required=9.0 tests=NBAYES_SPAM`` and
    ``X-Spam-Level`` (a star per whole point); any the message had are removed.
    ``spam``: whether the message is spam (for the subject tag); None: ``verdict == "Spam"``
    (a multi-class verdict names its class, ``spam`` among others)."""
    check_subject_tag(subject_tag)
    head, rest = split_head(raw)
    newline = b"\r\n" if b"\r\n" in raw[:4096] else b"\n"
    names = [header, *(SPAMASSASSIN_HEADERS if spamassassin is not None else ())]
    lines = _without_fields(_LINE.findall(head), {n.encode("ascii").lower() for n in names})
    if lines and not lines[-1].endswith((b"\n", b"\r")):
        lines[-1] += newline
    is_spam = verdict == "Spam" if spam is None else spam
    if is_spam and subject_tag:
        lines = _tagged(lines, subject_tag.encode(), newline)
    added = [f"{header}: {verdict}, score={score:.4f}"]
    if spamassassin is not None:
        spam = verdict == "Spam"
        added += ["X-Spam-Flag: YES"] if spam else []
        added.append(
            f"X-Spam-Status: {'Yes' if spam else 'No'}, score={spamassassin:.1f}"
            f" required={threshold:.1f} tests=NBAYES_{verdict.upper()}"
        )
        stars = max(int(float(f"{spamassassin:.1f}")), 0)  # whole points, as shown above
        added.append(f"X-Spam-Level: {'*' * stars}")
    lines += [line.encode() + newline for line in added]
    return b"".join(lines) + rest


def _field_name(line: bytes) -> bytes | None:
    """The lower-cased field name a header line starts, None for a continuation line
    (or a line that is no field: the mbox ``From `` line)."""
    if line[:1] in (b" ", b"\t"):
        return None
    name, colon, _ = line.partition(b":")
    return name.rstrip(b" \t").lower() if colon else None


def _without_fields(lines: list[bytes], names: set[bytes]) -> list[bytes]:
    """The header lines without the fields called one of ``names`` (lower case), and
    without their continuation lines."""
    kept, dropping = [], False
    for line in lines:
        field = _field_name(line)
        if field is not None or line[:1] not in (b" ", b"\t"):
            dropping = field in names
        if not dropping:
            kept.append(line)
    return kept


def _tagged(lines: list[bytes], tag: bytes, newline: bytes) -> list[bytes]:
    """The header lines with ``tag`` at the front of the first Subject's value."""
    for i, line in enumerate(lines):
        if _field_name(line) == b"subject":
            name, _, value = line.partition(b":")
            spaces = value[: len(value) - len(value.lstrip(b" \t"))]
            if value.lstrip(b" \t").startswith(tag):
                return lines
            lines[i] = name + b":" + (spaces or b" ") + tag + b" " + value[len(spaces) :]
            return lines
    return [*lines, b"Subject: " + tag + newline]
