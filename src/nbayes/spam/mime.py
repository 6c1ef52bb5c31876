"""Mail read by the standard library's :mod:`email` package (``compat32``), for any MIME
structure: multipart mail walked, base64, quoted-printable and uuencoded parts decoded,
attachments named. :func:`nbayes.spam.parse.parse_mail` takes this path for every
message its direct reader of single-part mail (:mod:`nbayes.spam.parse`) does not take.

The ``compat32`` policy is used because it never raises on broken mail; what it finds
wrong is kept as ``defects`` (names of :mod:`email.errors` defect classes). Header
values are cut (:func:`nbayes.spam.mailtext.cap_header`) as the feed parser reads them,
and mail declaring more than :data:`MAX_BOUNDARIES` MIME boundaries or holding more
than :data:`MAX_DELIMITER_LINES` lines that start with ``--`` is read flat (see
:func:`read_message`).
"""

from __future__ import annotations

import itertools
import re
from email import message_from_string
from email.errors import (
    FirstHeaderLineIsContinuationDefect,
    InvalidHeaderDefect,
    MessageDefect,
    MisplacedEnvelopeHeaderDefect,
    MissingHeaderBodySeparatorDefect,
)
from email.message import Message
from email.parser import Parser
from email.policy import Compat32

from nbayes.spam.mailtext import (
    FIRST_LINE_IS_CONTINUATION,
    MAX_BOUNDARIES,
    MAX_DELIMITER_LINES,
    MISPLACED_ENVELOPE,
    MISSING_NAME,
    Mail,
    add_text,
    cap_header,
    decode_header_value,
    header_fields,
)


def read_mail(raw: bytes) -> Mail:
    """The :class:`~nbayes.spam.mailtext.Mail` of the message ``raw``, read by the email
    package (:func:`read_message`; flat where its MIME parts nest deeper than the
    boundary count saw and the feed parser recursed too deep)."""
    try:
        return mail_of_message(read_message(raw))
    except RecursionError:  # nesting the boundary count did not see (MAX_BOUNDARIES)
        return mail_of_message(read_message(raw, flat=True))


class TooManyMimeBoundaries(MessageDefect):
    """More MIME boundaries (or ``message/*`` parts) than :data:`MAX_BOUNDARIES`: the
    message was read flat, its body as one text part."""


def mail_of_message(message: Message) -> Mail:
    """The :class:`Mail` of a message the ``email`` package parsed (``compat32``)."""
    mail = Mail()
    for name, value in message.raw_items():
        mail.headers.append((name.lower(), decode_header_value(value)))
    if any(isinstance(defect, TooManyMimeBoundaries) for defect in message.defects):
        mail.defects.add(TooManyMimeBoundaries.__name__)
        mail.parts.append(("text/plain", "", ""))
        add_text(message.get_payload().encode("ascii", "surrogateescape"), "", "", mail)
        return mail
    for part in message.walk():
        mail.defects.update(type(d).__name__ for d in part.defects)
        if part.is_multipart():
            continue
        _read_part(part, mail)
    return mail


# The email package's feed parser reads a message line by line: the header block is the
# lines matching its ``headerRE`` (lines split at \r\n, \r or \n), then one empty line.
_HEADER_BLOCK = re.compile(
    r"(?:((?:From |[\041-\071\073-\176]*:|[\t ])[^\r\n]*(?:\r\n|\r|\n|\Z)))*"
)
_NEWLINE = re.compile(r"\r\n|\r|\n")


class _CappedCompat32(Compat32):
    """``compat32``, with every header value cut by :func:`cap_header` as the feed
    parser reads it, in every part: nothing after that sees a longer value."""

    def header_source_parse(self, sourcelines: list[str]) -> tuple[str, str]:
        name, value = super().header_source_parse(sourcelines)
        return name, cap_header(name, value)


_POLICY = _CappedCompat32()
_HEADER_PARSER = Parser(policy=_POLICY)
# Counted in the lower-cased text of multipart and message/* mail: what nests MIME parts.
_NESTING = (re.compile(r"boundary\s*="), re.compile(r"content-type:\s*message/"))


def read_message(raw: bytes, *, flat: bool = False) -> Message:
    """``email.message_from_bytes(raw)`` (``compat32``), the same message, faster.

    The feed parser joins a single-part body from its lines one by one in Python;
    here it parses the header block only, and a body that is not ``multipart/*`` or
    ``message/*`` becomes the payload in one piece (with the defect the feed parser
    records when the empty line after the headers is missing). Multipart and
    ``message/*`` mail is parsed in full, as before, unless it nests more than
    :data:`MAX_BOUNDARIES` parts (or ``flat``): then its body is the payload in one
    piece, and a :class:`TooManyMimeBoundaries` defect says so. Header values are cut
    by :func:`cap_header`.
    """
    text = raw.decode("ascii", "surrogateescape")
    block = _HEADER_BLOCK.match(text)
    end = block.end()
    if _OTHER_LINE_BREAK.search(text, 0, end):  # lines the feed parser splits further
        message = _HEADER_PARSER.parsestr(text[:end], headersonly=True)
    else:
        message = _header_block(text[:end].splitlines(True))
    if message.get_content_maintype() in ("multipart", "message"):
        flat = flat or text.count("\n--") > MAX_DELIMITER_LINES or _nesting(text) > MAX_BOUNDARIES
        if not flat:
            return message_from_string(text, policy=_POLICY)
        message.defects.append(TooManyMimeBoundaries())
    body = text[end:]
    if separator := _NEWLINE.match(body):
        body = body[separator.end() :]
    elif body:
        message.defects.append(MissingHeaderBodySeparatorDefect())
    last = block.group(1)  # the last header line
    if block.start(1) > 0 and last.startswith("From "):
        body = last + body  # the feed parser takes it for the first line of the body
    message.set_payload(body)
    return message


def _nesting(text: str) -> int:
    """MIME boundary parameters and ``message/*`` content types in ``text`` (counted up to
    :data:`MAX_BOUNDARIES` + 1 of each)."""
    lowered = text.lower()
    return sum(
        sum(1 for _ in itertools.islice(pattern.finditer(lowered), MAX_BOUNDARIES + 1))
        for pattern in _NESTING
    )


# str.splitlines breaks lines (and so does the feed parser) at these too, not only at \r, \n.
_OTHER_LINE_BREAK = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _header_block(lines: list[str]) -> Message:
    """The message the feed parser makes of a header block whose every line matches its
    ``headerRE`` (:func:`~nbayes.spam.mailtext.header_fields`), without its line-by-line
    buffering."""
    block = header_fields(lines)
    message = Message(policy=_POLICY)
    for problem, line in block.problems:
        if problem == MISSING_NAME:
            message.defects.append(InvalidHeaderDefect("Missing header name."))
        else:
            message.defects.append(_DEFECTS[problem](line))
    if block.unixfrom is not None:
        message.set_unixfrom(block.unixfrom)
    for name, value in block.fields:
        message.set_raw(name, value)
    return message


_DEFECTS = {
    FIRST_LINE_IS_CONTINUATION: FirstHeaderLineIsContinuationDefect,
    MISPLACED_ENVELOPE: MisplacedEnvelopeHeaderDefect,
}


def _read_part(part: Message, mail: Mail) -> None:
    # Message.get scans every header, lower-casing its name, at each call: the first
    # value of each name is taken here in one pass. Header values holding raw 8-bit
    # bytes are read through Message.get, whose compat32 policy makes Header objects.
    headers: dict[str, str] = {}
    for name, value in part.raw_items():
        headers.setdefault(name.lower(), value)
    raw_type = _header_text(part, headers, "content-type")
    if raw_type is None:
        content_type = part.get_default_type()
    else:  # as Message.get_content_type
        content_type = raw_type.partition(";")[0].strip().lower()
        if content_type.count("/") != 1:
            content_type = "text/plain"
    # Parsing parameters is slow in the email package: ask for a charset or file name
    # only where the header text can hold one (the same answers, less work).
    params = (raw_type or "").lower()
    charset = (part.get_content_charset() or "") if "charset" in params else ""
    encoding = (_header_text(part, headers, "content-transfer-encoding") or "").strip().lower()
    mail.parts.append((content_type, charset, encoding))
    filename = ""
    if "name" in params or "content-disposition" in headers:
        try:
            filename = part.get_filename() or ""
        except Exception:
            filename = ""
    if filename:
        filename = decode_header_value(filename)
    maintype = content_type.split("/")[0]  # as Message.get_content_maintype
    if filename or maintype not in ("text", "message"):
        mail.attachments.append((filename, content_type))
        if maintype != "text":
            return
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        add_text(payload, charset, content_type, mail)


def _header_text(part: Message, headers: dict[str, str], name: str) -> str | None:
    """``str(part.get(name))``, or None where the header is missing."""
    value = headers.get(name)
    if value is None or (isinstance(value, str) and value.isascii()):
        return value
    return str(part.get(name))
