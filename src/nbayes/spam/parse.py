"""Mail parsing, bytes-tolerant: ``parse_mail(raw)`` turns the bytes of one RFC 822
message into a :class:`~nbayes.spam.mailtext.Mail`: its headers (RFC 2047 encoded words
decoded), the text of every ``text/*`` part (MIME multipart walked, base64 and
quoted-printable decoded, any charset, HTML turned into text with its URLs kept), and
the name and type of every attachment.

Two readers give the same :class:`~nbayes.spam.mailtext.Mail`:

- most mail is one part (``text/plain`` or ``text/html``, with or without a
  ``Content-Type``) in 7bit, 8bit, quoted-printable or base64, under headers in ASCII:
  :func:`read_single_part` reads it directly, without the email package (whose import
  alone was a fifth of ``nbayes spam classify``'s start-up, and whose reading a third of
  the CPU a message costs to train on);
- everything else (multipart and ``message/*`` mail, 8-bit headers, header lines the
  feed parser records a defect for, parameters beyond the plain ``name=value`` ones, a
  file name, uuencoding, base64 that is not clean) is read by the email package
  (``compat32``, :mod:`nbayes.spam.mime`), which never raises on broken mail and keeps
  what it finds wrong as ``defects``.

``parse_mail(raw, direct=False)`` takes the email package for all mail: the two are
compared token for token on every shared mail corpus (``tests/spam/test_spam_direct.py``).

Only input that is not mail at all (empty, or mostly binary bytes) raises
:class:`MailParseError`; truncated MIME, bad base64, unknown charsets and NUL
bytes are decoded as far as they go.

Hostile mail costs time linear in its size: header values are cut to
:data:`MAX_HEADER_CHARS` characters (``Content-Type`` and ``Content-Disposition`` to
:data:`MAX_PARAMETER_HEADER_CHARS`, whose parameters the ``email`` package parses in
time quadratic in their length) before anything reads them, text parts to
:data:`MAX_PART_CHARS`, and mail declaring more than :data:`MAX_BOUNDARIES` MIME
boundaries (nesting that deep makes the feed parser recurse, and costs it time per
line for every level) or holding more than :data:`MAX_DELIMITER_LINES` lines that
start with ``--`` (parts) is read flat: its headers, and its body as one text part,
with the defect ``TooManyMimeBoundaries``. HTML is stripped by scans that never
go back over the text (:mod:`nbayes.spam.markup`).
"""

from __future__ import annotations

import re

from nbayes.core.lazy import LazyPattern
from nbayes.spam.head import header_block_end, split_head, with_separator
from nbayes.spam.mailtext import (
    MAX_BOUNDARIES as MAX_BOUNDARIES,
)
from nbayes.spam.mailtext import (
    MAX_DELIMITER_LINES as MAX_DELIMITER_LINES,
)
from nbayes.spam.mailtext import (
    MAX_HEADER_CHARS as MAX_HEADER_CHARS,
)
from nbayes.spam.mailtext import (
    MAX_PARAMETER_HEADER_CHARS as MAX_PARAMETER_HEADER_CHARS,
)
from nbayes.spam.mailtext import (
    MAX_PART_CHARS as MAX_PART_CHARS,
)
from nbayes.spam.mailtext import (
    Mail,
    add_text,
    decode_header_value,
    header_fields,
)
from nbayes.spam.mailtext import (
    decode_bytes as decode_bytes,
)

#: Default nesting limit of the mail delivery paths (``spam classify``, ``spam serve``):
#: mail whose MIME parts nest deeper is passed on unscanned (:func:`check_mime_depth`).
#: Real mail nests a few levels (a forward of a forward); 100 is Dovecot's limit too.
MAX_MIME_DEPTH = 100
#: A message whose first 4 KiB hold more than this fraction of control bytes is binary.
MAX_CONTROL_FRACTION = 0.10
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13))
_MISSING_SEPARATOR = "MissingHeaderBodySeparatorDefect"


class MailParseError(ValueError):
    """The input is not a mail message (empty, or binary data), or one nbayes will not
    read (:class:`MimeTooDeepError`)."""


class MimeTooDeepError(MailParseError):
    """MIME parts nested deeper than a limit (:func:`check_mime_depth`)."""


def check_is_mail(raw: bytes) -> None:
    """Raise :class:`MailParseError` for empty or binary (non-mail) input."""
    if not raw.strip():
        raise MailParseError("empty message")
    head = raw[:4096]
    controls = len(head) - len(head.translate(None, _CONTROL))
    if controls > MAX_CONTROL_FRACTION * len(head):
        raise MailParseError(
            f"binary data, not a mail message ({controls} control bytes in the first {len(head)})"
        )


def parse_mail(raw: bytes, *, direct: bool = True) -> Mail:
    """Parse the bytes of one message (see the module docstring); ``direct=False``: by
    the email package alone, whatever the message."""
    check_is_mail(raw)
    if b"\x00" in raw:
        raw = raw.replace(b"\x00", b"")
    if raw.startswith(b"From "):  # an mbox envelope line, not a header
        raw = raw.split(b"\n", 1)[1] if b"\n" in raw else b""
    if raw[:1] in (b"\n", b"\r"):  # no header block: one text/plain part, the rest
        mail = Mail(parts=[("text/plain", "", "")])
        add_text(raw[2:] if raw.startswith(b"\r\n") else raw[1:], "", "text/plain", mail)
        return mail
    separated = with_separator(raw)
    mail = read_single_part(separated) if direct else None
    if mail is None:
        from nbayes.spam.mime import read_mail  # the email package: imported for this mail

        mail = read_mail(separated)
    if separated is not raw:
        mail.defects.add(_MISSING_SEPARATOR)
    return mail


def read_single_part(raw: bytes) -> Mail | None:
    """The :class:`~nbayes.spam.mailtext.Mail` the email package makes of ``raw`` (a
    message whose missing header/body separator :func:`with_separator` put in), read
    directly, where ``raw`` is a single-part message read the simple way; None for any
    other, left to :mod:`nbayes.spam.mime`.

    Read here: a header block in ASCII, each line a ``Name: value`` line or the
    continuation of one (no ``From `` line, no line the feed parser records a defect
    for), whose first ``Content-Type`` (if any) is not ``multipart/*`` nor
    ``message/*`` and holds no file name and only plain parameters
    (:func:`_plain_charset`), with no ``Content-Disposition``; and a body in 7bit,
    8bit, binary, quoted-printable or clean base64 (:func:`_clean_base64`). What the
    email package does with such mail, done here the same way: the headers are the
    block's fields (:func:`~nbayes.spam.mailtext.header_fields`), the type, charset and
    transfer encoding those of the first ``Content-Type`` and
    ``Content-Transfer-Encoding`` (``text/plain`` without one), the body is what
    follows the empty line (the defect ``MissingHeaderBodySeparatorDefect`` where
    there is none), decoded by the transfer encoding exactly as spelt (Python's
    ``Message.get_payload(decode=True)``), and a ``text/*`` body is text
    (:func:`~nbayes.spam.mailtext.add_text`), any other type an attachment.
    """
    end = header_block_end(raw)
    head = raw[:end]
    if not head.isascii() or _OTHER_LINE_BREAK.search(head) or _has_envelope_line(head):
        return None  # 8-bit headers, line breaks the feed parser adds, envelope lines
    block = header_fields(head.decode("ascii").splitlines(True))
    if block.problems:
        return None
    first: dict[str, str] = {}
    for name, value in block.fields:
        first.setdefault(name.lower(), value)
    raw_type = first.get("content-type")
    content_type = "text/plain"
    charset = ""
    if raw_type is not None:  # as Message.get_content_type
        content_type = raw_type.partition(";")[0].strip().lower()
        if content_type.count("/") != 1:
            content_type = "text/plain"
        params = raw_type.lower()
        if "name" in params:
            return None  # a file name: the email package reads it
        if "charset" in params:
            charset = _plain_charset(raw_type)
            if charset is None:
                return None
    maintype = content_type.split("/")[0]
    if maintype in ("multipart", "message") or "content-disposition" in first:
        return None
    transfer = first.get("content-transfer-encoding", "")
    mail = Mail(
        headers=[(name.lower(), decode_header_value(value)) for name, value in block.fields],
        parts=[(content_type, charset, transfer.strip().lower())],
    )
    body = raw[end:]
    if separator := _NEWLINE.match(body):
        body = body[separator.end() :]
    elif body:
        mail.defects.add(_MISSING_SEPARATOR)
    if maintype != "text":
        mail.attachments.append(("", content_type))
        return mail
    transfer = transfer.lower()  # get_payload compares it unstripped
    if transfer == "quoted-printable":
        import binascii

        body = binascii.a2b_qp(body)  # quopri.decodestring
    elif transfer == "base64":
        body = _clean_base64(body)
        if body is None:
            return None
    elif transfer in ("x-uuencode", "uuencode", "uue", "x-uue"):
        return None
    add_text(body, charset, content_type, mail)
    return mail


# The line breaks str.splitlines adds to \r and \n in ASCII (the feed parser splits lines
# there too): header bytes that make the direct reader step aside.
_OTHER_LINE_BREAK = re.compile(rb"[\x0b\x0c\x1c\x1d\x1e]")


def _has_envelope_line(head: bytes) -> bool:
    """Whether a line of ``head`` starts with ``From `` (an envelope line, which the feed
    parser reads its own way)."""
    return head.startswith(b"From ") or b"\nFrom " in head or b"\rFrom " in head


_NEWLINE = re.compile(rb"\r\n|\r|\n")


def _plain_charset(raw_type: str) -> str | None:
    """The ``charset`` parameter of the ``Content-Type`` value ``raw_type``, lower-cased,
    as ``Message.get_content_charset`` gives it, where every parameter is plain: no
    backslash, no RFC 2231 ``*``, a quoted value quoted whole (so that splitting at
    ``;`` splits as the email package does), the charset one token or one quoted
    string without ``<>``; None where one is not (the email package reads those).

    >>> _plain_charset('text/plain; format=flowed; charset="UTF-8"')
    'utf-8'
    """
    if "\\" in raw_type or "*" in raw_type:
        return None
    found = None
    for param in raw_type.split(";")[1:]:
        if param.count('"') % 2:
            return None  # a quoted value holding a ";"
        name, equals, value = param.partition("=")
        name, value = name.strip().lower(), value.strip()
        if name != "charset" or found is not None:
            continue
        if not equals:
            return None
        if len(value) > 1 and value[0] == value[-1] == '"':
            value = value[1:-1]
        if not value or any(c in value for c in '"<>'):
            return None
        found = value.lower()
    return found


def _clean_base64(body: bytes) -> bytes | None:
    """The base64 ``body`` decoded as the email package decodes it (its lines joined,
    the missing padding added), where it holds only base64 characters; None where not
    (the email package then tries harder, and records a defect)."""
    import base64
    import binascii

    joined = b"".join(body.splitlines())
    if missing := len(joined) % 4:
        joined += b"==="[: 4 - missing]
    try:
        return base64.b64decode(joined, validate=True)
    except binascii.Error:
        return None


# What nests MIME parts, line by line: a Content-Type header (with its continuation
# lines), or a line starting with "--" (a boundary delimiter, if one is open).
_MIME_LINE = re.compile(
    rb"^(?:content-type:[ \t]*([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)|--([^\r\n]*))", re.I | re.M
)
_BOUNDARY = LazyPattern(rb'boundary\s*=\s*(?:"([^"\r\n]*)"|([^\s;"]+))', re.I)


def mime_depth(raw: bytes, limit: int | None = None) -> int:
    """How deep the MIME parts of ``raw`` nest: 0 for a single-part message, 1 for a
    multipart one whose parts are single, one more for each multipart or ``message/*``
    part inside a part. Counted in one pass over the lines, linear in the size of the
    message: a multipart's ``boundary`` opens a level, its closing delimiter line
    (``--boundary--``) closes it and every level opened inside it, and a delimiter line
    (``--boundary``) closes the levels opened inside it (a ``message/*`` part's level
    ends with its part). The count stops at ``limit + 1`` when ``limit`` is given.

    >>> mime_depth(b"Content-Type: multipart/mixed; boundary=a\\n\\n--a\\n\\nhi\\n--a--\\n")
    1
    """
    head, _ = split_head(raw)
    top = _MIME_LINE.search(head)
    while top is not None and top.group(1) is None:
        top = _MIME_LINE.search(head, top.end())
    if top is None or not re.match(rb"\s*(multipart|message)/", top.group(1), re.I):
        return 0  # the body is one part, whatever lines it holds
    stack: list[bytes | None] = []  # open levels: a boundary, or None for message/*
    open_boundaries: dict[bytes, int] = {}
    deepest = 0
    for line in _MIME_LINE.finditer(raw):
        value, delimiter = line.groups()
        if delimiter is not None:
            name = delimiter.rstrip()
            closing = name not in open_boundaries and name.endswith(b"--")
            if closing:
                name = name[:-2]
            if name not in open_boundaries:
                continue
            while stack[-1] != name:
                _close(stack, open_boundaries)
            if closing:
                _close(stack, open_boundaries)
            continue
        kind = value.lstrip()[:10].lower()
        if kind.startswith(b"multipart/"):
            boundary = _BOUNDARY.search(value)
            if boundary is None:
                continue
            name = boundary.group(1) if boundary.group(1) is not None else boundary.group(2)
            open_boundaries[name] = open_boundaries.get(name, 0) + 1
            stack.append(name)
        elif kind.startswith(b"message/"):
            stack.append(None)
        else:
            continue
        deepest = max(deepest, len(stack))
        if limit is not None and deepest > limit:
            break
    return deepest


def _close(stack: list[bytes | None], open_boundaries: dict[bytes, int]) -> None:
    name = stack.pop()
    if name is not None:
        open_boundaries[name] -= 1
        if not open_boundaries[name]:
            del open_boundaries[name]


def check_mime_depth(raw: bytes, limit: int) -> None:
    """Raise :class:`MimeTooDeepError` if the MIME parts of ``raw`` nest deeper than
    ``limit`` (:func:`mime_depth`); ``limit`` 0 checks nothing.

    What the mail delivery paths do with such mail: pass it on unscanned (exit status 3
    for ``spam classify``, EX_DATAERR for ``spam serve``), as ``spamc`` passes on mail
    over its size limit. Training and batch scoring read it flat instead (its headers,
    and its body as one text part).
    """
    if limit and mime_depth(raw, limit) > limit:
        raise MimeTooDeepError(f"MIME parts nested more than {limit} deep: not scanned")
