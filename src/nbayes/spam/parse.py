"""Mail parsing with the standard library's :mod:`email` package, bytes-tolerant.

``parse_mail(raw)`` turns the bytes of one RFC 822 message into a :class:`Mail`:
its headers (RFC 2047 encoded words decoded), the text of every ``text/*`` part
(MIME multipart walked, base64 and quoted-printable decoded, any charset, HTML
turned into text with its URLs kept), and the name and type of every attachment.
The ``compat32`` policy is used because it never raises on broken mail; what it
finds wrong is kept as ``defects`` (names of :mod:`email.errors` defect classes).

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

import codecs
import itertools
import re
from dataclasses import dataclass, field
from email import message_from_string
from email.errors import (
    FirstHeaderLineIsContinuationDefect,
    InvalidHeaderDefect,
    MessageDefect,
    MisplacedEnvelopeHeaderDefect,
    MissingHeaderBodySeparatorDefect,
)
from email.header import decode_header
from email.message import Message
from email.parser import Parser
from email.policy import Compat32

from nbayes.spam.head import split_head, with_separator

#: Decoded text taken from one MIME part at most (characters); the rest is ignored,
#: so a huge part costs bounded time.
MAX_PART_CHARS = 256 * 1024
#: Characters kept of a header's value (all its lines), before it is decoded or parsed.
MAX_HEADER_CHARS = 16 * 1024
#: The same for the headers whose parameters are parsed (``Content-Type``,
#: ``Content-Disposition``): the ``email`` package takes time quadratic in their length.
MAX_PARAMETER_HEADER_CHARS = 1024
#: Mail declaring more MIME boundaries (and ``message/*`` parts) than this is read flat
#: (see the module docstring).
MAX_BOUNDARIES = 64
#: The same for mail with more lines starting with ``--`` (the feed parser takes about
#: 8 us per part: 10,000 parts cost it 0.08 s).
MAX_DELIMITER_LINES = 10_000
#: Default nesting limit of the mail delivery paths (``spam classify``, ``spam serve``):
#: mail whose MIME parts nest deeper is passed on unscanned (:func:`check_mime_depth`).
#: Real mail nests a few levels (a forward of a forward); 100 is Dovecot's limit too.
MAX_MIME_DEPTH = 100
#: A message whose first 4 KiB hold more than this fraction of control bytes is binary.
MAX_CONTROL_FRACTION = 0.10
_SURROGATES = re.compile("[\udc80-\udcff]")
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13))


class MailParseError(ValueError):
    """The input is not a mail message (empty, or binary data), or one nbayes will not
    read (:class:`MimeTooDeepError`)."""


class MimeTooDeepError(MailParseError):
    """MIME parts nested deeper than a limit (:func:`check_mime_depth`)."""


@dataclass
class Mail:
    """One parsed message.

    headers : (lower-cased name, decoded value) in order, all parts' top level only.
    texts : decoded text of each ``text/plain`` part, and of each HTML part with tags removed.
    urls : URLs found in HTML attributes (``href``, ``src``, ``action``).
    html_tags : names of the HTML tags used.
    parts : (content type, charset or "", transfer encoding or "") of every leaf part.
    attachments : (file name or "", content type) of every non-text or named part.
    defects : names of the parse defects the ``email`` package recorded.
    """

    headers: list[tuple[str, str]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    html_tags: set[str] = field(default_factory=set)
    parts: list[tuple[str, str, str]] = field(default_factory=list)
    attachments: list[tuple[str, str]] = field(default_factory=list)
    defects: set[str] = field(default_factory=set)


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


def parse_mail(raw: bytes) -> Mail:
    """Parse the bytes of one message (see the module docstring)."""
    check_is_mail(raw)
    if b"\x00" in raw:
        raw = raw.replace(b"\x00", b"")
    if raw.startswith(b"From "):  # an mbox envelope line, not a header
        raw = raw.split(b"\n", 1)[1] if b"\n" in raw else b""
    if raw[:1] in (b"\n", b"\r"):  # no header block: one text/plain part, the rest
        mail = Mail(parts=[("text/plain", "", "")])
        _add_text(raw[2:] if raw.startswith(b"\r\n") else raw[1:], "", "text/plain", mail)
        return mail
    separated = with_separator(raw)
    try:
        mail = mail_of_message(read_message(separated))
    except RecursionError:  # nesting the boundary count did not see (MAX_BOUNDARIES)
        mail = mail_of_message(read_message(separated, flat=True))
    if separated is not raw:
        mail.defects.add(MissingHeaderBodySeparatorDefect.__name__)
    return mail


# What nests MIME parts, line by line: a Content-Type header (with its continuation
# lines), or a line starting with "--" (a boundary delimiter, if one is open).
_MIME_LINE = re.compile(
    rb"^(?:content-type:[ \t]*([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)|--([^\r\n]*))", re.I | re.M
)
_BOUNDARY = re.compile(rb'boundary\s*=\s*(?:"([^"\r\n]*)"|([^\s;"]+))', re.I)


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
        _add_text(message.get_payload().encode("ascii", "surrogateescape"), "", "", mail)
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
#: Header names whose parameters the email package parses (lower case).
_PARAMETER_HEADERS = frozenset({"content-type", "content-disposition"})


def cap_header(name: str, value: str) -> str:
    """``value`` cut to :data:`MAX_HEADER_CHARS` (:data:`MAX_PARAMETER_HEADER_CHARS` for
    the headers in :data:`_PARAMETER_HEADERS`)."""
    if len(value) <= MAX_PARAMETER_HEADER_CHARS:
        return value
    if name.lower() in _PARAMETER_HEADERS:
        return value[:MAX_PARAMETER_HEADER_CHARS]
    return value[:MAX_HEADER_CHARS]


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
_EOL = re.compile(r"(\r\n|\r|\n)\Z")


def _header_block(lines: list[str]) -> Message:
    """The message the feed parser makes of a header block whose every line matches its
    ``headerRE`` (``FeedParser._parse_headers`` with the ``compat32`` policy, whose
    ``header_source_parse`` is inlined), without its line-by-line buffering."""
    message = Message(policy=_POLICY)
    name, value = "", []
    for number, line in enumerate(lines):
        if line[0] in " \t":
            if not name:
                message.defects.append(FirstHeaderLineIsContinuationDefect(line))
            else:
                value.append(line)
            continue
        if name:
            message.set_raw(name, cap_header(name, "".join(value).rstrip("\r\n")))
            name, value = "", []
        if line.startswith("From "):
            if number == 0:
                message.set_unixfrom(_EOL.sub("", line))
            elif number < len(lines) - 1:
                message.defects.append(MisplacedEnvelopeHeaderDefect(line))
            continue  # the last line: the feed parser puts it back, into the body
        colon = line.find(":")
        if colon == 0:
            message.defects.append(InvalidHeaderDefect("Missing header name."))
            continue
        name, value = line[:colon], [line[colon + 1 :].lstrip(" \t")]
    if name:
        message.set_raw(name, cap_header(name, "".join(value).rstrip("\r\n")))
    return message


def decode_header_value(value) -> str:
    """A header value with RFC 2047 encoded words decoded, never raising."""
    if not isinstance(value, str):  # compat32 gives Header objects for 8-bit values
        value = str(value)
    # raw 8-bit header bytes, kept as surrogate escapes
    if not value.isascii() and _SURROGATES.search(value):
        value = decode_bytes(value.encode("ascii", "surrogateescape"), None)
    if "=?" not in value:
        return value
    try:
        pieces = decode_header(value)
    except Exception:  # a malformed encoded word: keep the raw text
        return value
    return "".join(
        decode_bytes(text, charset) if isinstance(text, bytes) else text for text, charset in pieces
    )


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Bytes to text in the declared charset; undeclared or ASCII means UTF-8 if
    valid, else Windows-1252; an unknown charset falls back to UTF-8 with
    replacement characters. Never raises."""
    if charset is None or charset.lower() in ("us-ascii", "ascii", "unknown-8bit"):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data.decode("cp1252", errors="replace")
    try:
        codecs.lookup(charset)
    except LookupError:
        return data.decode("utf-8", errors="replace")
    try:
        return data.decode(charset, errors="replace")
    except Exception:  # codecs such as idna raise on bad input despite errors=
        return data.decode("utf-8", errors="replace")


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
        _add_text(payload, charset, content_type, mail)


def _header_text(part: Message, headers: dict[str, str], name: str) -> str | None:
    """``str(part.get(name))``, or None where the header is missing."""
    value = headers.get(name)
    if value is None or (isinstance(value, str) and value.isascii()):
        return value
    return str(part.get(name))


def _add_text(payload: bytes, charset: str, content_type: str, mail: Mail) -> None:
    """Decode a text part's payload (HTML turned into text) into ``mail``."""
    text = decode_bytes(payload[: 4 * MAX_PART_CHARS], charset or None)[:MAX_PART_CHARS]
    if content_type == "text/html" or (content_type == "text/plain" and _looks_like_html(text)):
        from nbayes.spam.markup import html_to_text  # its patterns compiled for HTML only

        text, urls, tags = html_to_text(text)
        mail.urls.extend(urls)
        mail.html_tags.update(tags)
    mail.texts.append(text)


def _looks_like_html(text: str) -> bool:
    head = text[:2048].lower()
    return "<html" in head or "<body" in head
