"""A parsed message (:class:`Mail`) and what every reader of mail shares: header values
cut to a bounded length and decoded (RFC 2047), header lines read into fields, text
parts decoded from their charset, and HTML parts turned into text.

Two readers fill a :class:`Mail` (:func:`nbayes.spam.parse.parse_mail` picks one):
the email package's (:mod:`nbayes.spam.mime`), for any MIME structure, and a direct one
for the common single-part message (:mod:`nbayes.spam.parse`), which gives the same
:class:`Mail` without importing the email package. Nothing here imports it either
(RFC 2047 words are decoded by :mod:`email.header`, imported where a header holds one).
"""

from __future__ import annotations

from nbayes.core.charsets import NOT_CHARSETS as NOT_CHARSETS
from nbayes.core.charsets import is_charset
from nbayes.core.lazy import LazyPattern

#: Decoded text taken from one MIME part at most (characters); the rest is ignored,
#: so a huge part costs bounded time.
MAX_PART_CHARS = 256 * 1024
#: Characters kept of a header's value (all its lines), before it is decoded or parsed.
MAX_HEADER_CHARS = 16 * 1024
#: The same for the headers whose parameters are parsed (``Content-Type``,
#: ``Content-Disposition``): the ``email`` package takes time quadratic in their length.
MAX_PARAMETER_HEADER_CHARS = 1024
#: Mail declaring more MIME boundaries (and ``message/*`` parts) than this is read flat:
#: its headers, and its body as one text part (:func:`nbayes.spam.mime.read_message`).
MAX_BOUNDARIES = 64
#: The same for mail with more lines starting with ``--`` (the feed parser takes about
#: 8 us per part: 10,000 parts cost it 0.08 s).
MAX_DELIMITER_LINES = 10_000
_SURROGATES = LazyPattern("[\udc80-\udcff]")
#: Header names whose parameters the email package parses (lower case).
_PARAMETER_HEADERS = frozenset({"content-type", "content-disposition"})
_EOL = LazyPattern(r"(\r\n|\r|\n)\Z")


class _Fields:
    """Equality and ``repr`` from ``__slots__``, for the mutable records below (not
    dataclasses: see :mod:`nbayes.spam._records`)."""

    __slots__ = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Mail(_Fields):
    """One parsed message.

    headers : (lower-cased name, decoded value) in order, all parts' top level only.
    texts : decoded text of each ``text/plain`` part, and of each HTML part with tags removed.
    urls : URLs found in HTML attributes (``href``, ``src``, ``action``).
    html_tags : names of the HTML tags used.
    parts : (content type, charset or "", transfer encoding or "") of every leaf part.
    attachments : (file name or "", content type) of every non-text or named part.
    defects : names of the parse defects the ``email`` package recorded.
    """

    __slots__ = ("attachments", "defects", "headers", "html_tags", "parts", "texts", "urls")

    def __init__(
        self,
        headers: list[tuple[str, str]] | None = None,
        texts: list[str] | None = None,
        urls: list[str] | None = None,
        html_tags: set[str] | None = None,
        parts: list[tuple[str, str, str]] | None = None,
        attachments: list[tuple[str, str]] | None = None,
        defects: set[str] | None = None,
    ) -> None:
        self.headers = [] if headers is None else headers
        self.texts = [] if texts is None else texts
        self.urls = [] if urls is None else urls
        self.html_tags = set() if html_tags is None else html_tags
        self.parts = [] if parts is None else parts
        self.attachments = [] if attachments is None else attachments
        self.defects = set() if defects is None else defects


def cap_header(name: str, value: str) -> str:
    """``value`` cut to :data:`MAX_HEADER_CHARS` (:data:`MAX_PARAMETER_HEADER_CHARS` for
    the headers in :data:`_PARAMETER_HEADERS`)."""
    if len(value) <= MAX_PARAMETER_HEADER_CHARS:
        return value
    if name.lower() in _PARAMETER_HEADERS:
        return value[:MAX_PARAMETER_HEADER_CHARS]
    return value[:MAX_HEADER_CHARS]


#: What :func:`header_fields` found wrong, as the email package's defect class names.
FIRST_LINE_IS_CONTINUATION = "FirstHeaderLineIsContinuationDefect"
MISPLACED_ENVELOPE = "MisplacedEnvelopeHeaderDefect"
MISSING_NAME = "InvalidHeaderDefect"


class HeaderBlock(_Fields):
    """The header lines of a message read as the email package's feed parser reads them.

    fields : (name, value) in order, each value its lines joined (continuation lines
        whole, line breaks inside kept), the break at its end removed, and cut by
        :func:`cap_header`.
    problems : (defect class name, the line) for each line the feed parser records a
        defect for.
    unixfrom : the ``From `` line that is the first line, without its line break.
    """

    __slots__ = ("fields", "problems", "unixfrom")

    def __init__(
        self,
        fields: list[tuple[str, str]] | None = None,
        problems: list[tuple[str, str]] | None = None,
        unixfrom: str | None = None,
    ) -> None:
        self.fields = [] if fields is None else fields
        self.problems = [] if problems is None else problems
        self.unixfrom = unixfrom


def header_fields(lines: list[str]) -> HeaderBlock:
    """The :class:`HeaderBlock` of a header block's ``lines`` (each with its line break),
    every one of which matches the feed parser's ``headerRE`` (``FeedParser._parse_headers``
    with the ``compat32`` policy, whose ``header_source_parse`` is inlined). A ``From ``
    line that is the last line is left out: the feed parser puts it back, into the body."""
    block = HeaderBlock()
    name, value = "", []
    for number, line in enumerate(lines):
        if line[0] in " \t":
            if not name:
                block.problems.append((FIRST_LINE_IS_CONTINUATION, line))
            else:
                value.append(line)
            continue
        if name:
            block.fields.append((name, cap_header(name, "".join(value).rstrip("\r\n"))))
            name, value = "", []
        if line.startswith("From "):
            if number == 0:
                block.unixfrom = _EOL.sub("", line)
            elif number < len(lines) - 1:
                block.problems.append((MISPLACED_ENVELOPE, line))
            continue  # the last line: the feed parser puts it back, into the body
        colon = line.find(":")
        if colon == 0:
            block.problems.append((MISSING_NAME, line))
            continue
        name, value = line[:colon], [line[colon + 1 :].lstrip(" \t")]
    if name:
        block.fields.append((name, cap_header(name, "".join(value).rstrip("\r\n"))))
    return block


def decode_header_value(value) -> str:
    """A header value with RFC 2047 encoded words decoded, never raising."""
    if not isinstance(value, str):  # compat32 gives Header objects for 8-bit values
        value = str(value)
    # raw 8-bit header bytes, kept as surrogate escapes
    if not value.isascii() and _SURROGATES.search(value):
        value = decode_bytes(value.encode("ascii", "surrogateescape"), None)
    if "=?" not in value:
        return value
    from email.header import decode_header  # here: most headers hold no encoded word

    try:
        pieces = decode_header(value)
    except Exception:  # a malformed encoded word: keep the raw text
        return value
    return "".join(
        decode_bytes(text, charset) if isinstance(text, bytes) else text for text, charset in pieces
    )


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Bytes to text in the declared charset; undeclared or ASCII means UTF-8 if
    valid, else Windows-1252; an unknown charset, or a codec that is not a character
    set (:func:`nbayes.core.charsets.is_charset`), falls back to UTF-8 with
    replacement characters. Never raises, and takes time linear in ``data``.

    >>> decode_bytes(b"caf\\xe9", "latin-1"), decode_bytes(b"a-9", "punycode")
    ('café', 'a-9')
    """
    if charset is None or charset.lower() in ("us-ascii", "ascii", "unknown-8bit"):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data.decode("cp1252", errors="replace")
    if not is_charset(charset):
        return data.decode("utf-8", errors="replace")
    try:
        return data.decode(charset, errors="replace")
    except Exception:  # codecs such as idna raise on bad input despite errors=
        return data.decode("utf-8", errors="replace")


def add_text(payload: bytes, charset: str, content_type: str, mail: Mail) -> None:
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
