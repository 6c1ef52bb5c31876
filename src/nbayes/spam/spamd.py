"""The spamd protocol (SPAMC/1.5), as SpamAssassin's ``spamc`` client speaks it.

A request is a line ``METHOD SPAMC/1.5``, header lines ``Name: value``, an empty line
and the message (``Content-length`` bytes, zlib-compressed where ``Compress: zlib``);
lines end in CRLF. A response is ``SPAMD/1.5 <code> <text>``, headers, an empty line
and a body. The methods and what :class:`Filter` answers:

=============  ===============================================================
PING           ``SPAMD/1.5 0 PONG``
CHECK          the ``Spam`` header only
SYMBOLS        ``Spam``; body: the rule names that fired (``NBAYES_SPAM`` ...)
REPORT         ``Spam``; body: a report (the verdict and the strongest clues)
REPORT_IFSPAM  as REPORT, the body only for spam
PROCESS        ``Spam``; body: the message marked (:func:`nbayes.spam.mark.mark`)
HEADERS        ``Spam``; body: the marked header block (spamc adds the body back)
TELL           learn or forget: ``Message-class: spam|ham`` with ``Set: local``
               or ``Remove: local``; answers ``DidSet``/``DidRemove: local`` where
               the database changed (only with ``allow_tell``; ``remote`` ignored)
SKIP           nothing: the connection is closed
=============  ===============================================================

With ``Marking(classes=True)`` (``serve --classes``) PROCESS and HEADERS also add the
multi-class verdict's header, ``X-Nbayes-Class: CLASS, score=P``
(:data:`~nbayes.spam.deliver.CLASS_HEADER`, as ``classify --classes -p`` writes it: the
most probable of every class the store learnt and its probability; one the message
arrived with is removed); every other reply, and the ``Spam`` header, stay the
two-class ones. A store that learnt nothing yet adds no such header.

``Spam: True ; 9.9 / 9.0`` carries the verdict (``True`` for Spam only, Unsure is
``False``) and the score as *points*: 10 times the filter's score in [0, 1], against 10
times the spam cutoff, so ``spamc -c`` prints ``9.9/9.0`` and exits 1 for spam and 0
otherwise. The ``User`` header (``spamc -u NAME``) is ignored unless the filter is made
``per_user``: then each request reads that user's statistics combined with the shared ones,
and TELL learns into that user's alone (:mod:`nbayes.spam.users`); a user name outside
the allow-list is answered 67 (EX_NOUSER).
A request the server cannot answer gets a status other than 0 (spamc then passes the
message through unchanged): 65 (EX_DATAERR) for input that is not mail, too large, or
nested deeper than the MIME depth limit,
69 (EX_UNAVAILABLE) for TELL where it is not allowed, 75 (EX_TEMPFAIL) for a locked
database or a store server that cannot be reached now (Redis), 70 (EX_SOFTWARE) for
other failures, 76 (EX_PROTOCOL) for a malformed request.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO

from nbayes.spam.database import StoreUnavailableError
from nbayes.spam.deliver import CLASS_HEADER
from nbayes.spam.feedback import tell
from nbayes.spam.mark import POINTS, mark, split_head
from nbayes.spam.parse import (
    MAX_MIME_DEPTH,
    MailParseError,
    MimeTooDeepError,
    check_mime_depth,
)
from nbayes.spam.score import ScoreSettings, score_tokens
from nbayes.spam.single import clues, fisher_score
from nbayes.spam.store import StoreError, TokenStore
from nbayes.spam.store_options import recorded_options, store_options
from nbayes.spam.tokens import TokenOptions, tokenize
from nbayes.spam.users import check_user
from nbayes.spam.verdicts import ClassesRead, ClassVerdict, NothingLearntError, read_classes_of

if TYPE_CHECKING:
    from nbayes.spam.store_protocol import Store

PROTOCOL = "SPAMD/1.5"
EX_OK, EX_DATAERR, EX_UNAVAILABLE, EX_SOFTWARE, EX_TEMPFAIL, EX_PROTOCOL = 0, 65, 69, 70, 75, 76
EX_NOUSER = 67
_STATUS_TEXT = {
    EX_OK: "EX_OK", EX_DATAERR: "EX_DATAERR", EX_UNAVAILABLE: "EX_UNAVAILABLE",
    EX_SOFTWARE: "EX_SOFTWARE", EX_TEMPFAIL: "EX_TEMPFAIL", EX_PROTOCOL: "EX_PROTOCOL",
    EX_NOUSER: "EX_NOUSER",
}  # fmt: skip
METHODS = ("PING", "CHECK", "SYMBOLS", "REPORT", "REPORT_IFSPAM", "PROCESS", "HEADERS", "TELL",
           "SKIP")  # fmt: skip
MAX_LINE = 8192
MAX_HEADERS = 64


class ProtocolError(Exception):
    """A request that is not spamd protocol (answered with ``code`` and closed)."""

    def __init__(self, text: str, code: int = EX_PROTOCOL) -> None:
        super().__init__(text)
        self.code = code


@dataclass
class Request:
    """A parsed request: method, protocol version, headers (lower-case names), message."""

    method: str
    version: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


#: The most bytes a request's head (request line, headers, the empty line) may take.
MAX_HEAD = MAX_LINE * 4
#: The most digits a ``Content-length`` may have (2**64 has 20).
_MAX_LENGTH_DIGITS = 20


def parse_head(head: bytes) -> Request:
    """The request whose head (request line and header lines, each ending in CRLF or LF,
    without the empty line) is ``head``; :class:`ProtocolError` naming what is wrong."""
    line, *lines = head.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # after the last line ending
    method, _, version = line.rstrip(b"\r").decode("latin-1").partition(" ")
    if method not in METHODS or not version.startswith("SPAMC/") or len(line) > MAX_LINE:
        raise ProtocolError(f"bad request line: {line[:80]!r}")
    headers: dict[str, str] = {}
    for line in lines:
        name, colon, value = line.rstrip(b"\r").decode("latin-1").partition(":")
        if not colon or len(headers) >= MAX_HEADERS or len(line) > MAX_LINE:
            raise ProtocolError(f"bad header line: {line[:80]!r}")
        key, value = name.strip().lower(), value.strip()
        if headers.get(key, value) != value:  # which one frames the body? (spamc sends one)
            raise ProtocolError(f"header {name.strip()[:40]!r} given twice, differently")
        headers[key] = value
    return Request(method, version, headers)


def head_end(buffer: bytes | bytearray, start: int = 0) -> tuple[int, int] | tuple[None, int]:
    """Where the head in ``buffer`` ends: ``(end, body_start)`` once it holds the empty
    line (``end``: the head's length with its last line ending), else ``(None, resume)``:
    scan again from ``resume`` once more bytes came. :class:`ProtocolError` once the head
    is over :data:`MAX_HEAD` bytes."""
    position = start
    while (newline := buffer.find(b"\n", position)) >= 0:
        line = buffer[position:newline]
        if position > 0 and line in (b"", b"\r"):  # the empty line ends the head
            return position, newline + 1
        position = newline + 1
    if len(buffer) > MAX_HEAD:
        raise ProtocolError(f"request head over {MAX_HEAD} bytes")
    return None, position


def content_length(request: Request, max_size: int) -> int | None:
    """The body's length from ``Content-length`` (None: none given, so the body runs to
    the end of the input, as protocol 1.2 and older send it; 0 for PING and SKIP);
    :class:`ProtocolError`: not a number (ASCII digits only: ``²`` is a digit to
    Python's ``str.isdigit`` and not to ``int``), or over ``max_size`` (EX_DATAERR)."""
    if request.method in ("PING", "SKIP"):
        return 0
    length = request.headers.get("content-length")
    if length is None:
        return None
    if not (length.isascii() and length.isdigit()):
        raise ProtocolError(f"bad Content-length: {length[:40]!r}")
    length = length.lstrip("0") or "0"
    if len(length) > _MAX_LENGTH_DIGITS or int(length) > max_size:
        raise ProtocolError(
            f"message of {length[:40]} bytes, over the {max_size} allowed (--max-size)",
            EX_DATAERR,
        )
    return int(length)


def unpack_body(request: Request, max_size: int) -> bytes:
    """The message of ``request`` as sent, inflated where ``Compress: zlib`` (at most
    ``max_size`` bytes; beyond, :class:`ProtocolError` EX_DATAERR)."""
    body = request.body
    if request.headers.get("compress", "").lower() == "zlib":
        inflate = zlib.decompressobj()
        try:
            body = inflate.decompress(body, max_size + 1)
        except zlib.error as error:
            raise ProtocolError(f"bad zlib data: {error}", EX_DATAERR) from None
    if len(body) > max_size:
        raise ProtocolError(f"message over {max_size} bytes (--max-size)", EX_DATAERR)
    return body


class RequestReader:
    """A request read from the bytes of a connection as they come, however they are cut
    (the server's, which never waits on one client): :meth:`feed` each chunk, ``b""``
    at the end of the input, until it returns the request. The same request
    :func:`read_request` reads from a blocking stream, and the same errors; a message
    over ``max_size`` is refused as soon as its Content-length is read.

    >>> reader = RequestReader(max_size=100)
    >>> reader.feed(b"PING SPAMC/1.5\\r") is None
    True
    >>> reader.feed(b"\\n\\r\\n").method
    'PING'
    """

    def __init__(self, max_size: int) -> None:
        self.max_size = max_size
        self.buffer = bytearray()
        self.request: Request | None = None  # once its head is read
        self._scanned = 0
        self._body_start = 0
        self._length: int | None = None

    def wanted(self) -> int:
        """How many more bytes the message needs, once the head is read (where it runs
        to the end of the input: as many as would take it over ``max_size``)."""
        received = len(self.buffer) - self._body_start
        if self._length is None:
            return max(1, self.max_size + 1 - received)
        return max(1, self._length - received)

    def feed(self, chunk: bytes) -> Request | None:
        """Take ``chunk`` (``b""``: the client closed its side); the request once whole,
        else None. :class:`ProtocolError` for a malformed or oversized request, also
        one the client cut short; None for a client that closed having sent nothing."""
        ended = not chunk
        self.buffer += chunk
        buffer = self.buffer
        if self.request is None:
            end, self._scanned = head_end(buffer, self._scanned)
            if end is None:
                if ended and buffer:
                    raise ProtocolError(f"request cut short: {bytes(buffer[:80])!r}")
                return None
            request = parse_head(bytes(buffer[:end]))
            self._length = content_length(request, self.max_size)
            self._body_start, self.request = self._scanned, request
        received = len(buffer) - self._body_start
        if self._length is None:  # to the end of the input
            if received > self.max_size:
                raise ProtocolError(f"message over {self.max_size} bytes (--max-size)", EX_DATAERR)
            if not ended:
                return None
        elif received < self._length:
            if ended:
                raise ProtocolError(f"message cut short: {received} of {self._length} bytes")
            return None
        end = None if self._length is None else self._body_start + self._length
        self.request.body = bytes(buffer[self._body_start : end])
        self.buffer = bytearray()  # its bytes are the request's now
        return self.request


def read_request(stream: BinaryIO, max_size: int) -> Request | None:
    """The next request on ``stream`` (a blocking file); None if the client sent nothing.
    :class:`ProtocolError` for a malformed request or a message over ``max_size`` bytes.
    Read by a :class:`RequestReader`, the head a line at a time, then the message."""
    reader = RequestReader(max_size)
    while True:
        chunk = stream.readline(MAX_LINE + 1) if reader.request is None else (
            stream.read(reader.wanted())
        )  # fmt: skip
        request = reader.feed(chunk)
        if request is not None:
            request.body = unpack_body(request, max_size)
            return request
        if not chunk:
            return None


def response(code: int, headers: list[tuple[str, str]] = (), body: bytes | None = None) -> bytes:
    """A response: status line, headers (``Content-length`` added for a body), body."""
    lines = [f"{PROTOCOL} {code} {_STATUS_TEXT.get(code, 'EX_SOFTWARE')}"]
    lines += [f"{name}: {value}" for name, value in headers]
    if body is not None:
        lines.append(f"Content-length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")


@dataclass(frozen=True)
class Marking:
    """How PROCESS and HEADERS mark a message (see :func:`nbayes.spam.mark.mark`); with
    ``classes``, also with the multi-class verdict (:data:`CLASS_HEADER`), so ``header``
    must name another header (ValueError)."""

    header: str = "X-Nbayes-Spam"
    subject_tag: str = ""
    spamassassin_headers: bool = True
    classes: bool = False

    def __post_init__(self) -> None:
        if self.classes and self.header.lower() == CLASS_HEADER.lower():
            raise ValueError(
                f"the verdict header cannot be {CLASS_HEADER}, the multi-class verdict's"
                " own (--classes): name another"
            )


class Filter:
    """Answers spamd requests from a token store (no sockets: see
    :mod:`nbayes.spam.server`). ``reader()`` and ``writer()`` are context managers
    giving a store to read and one to write (TELL, enabled by giving ``writer``); with
    ``per_user``, a request naming a user (``User``) calls them with its name,
    ``reader(user)`` and ``writer(user)``, for that user's store.
    Mail whose MIME parts nest deeper than ``max_mime_depth`` (0: no limit) is answered
    EX_DATAERR, like mail that is not mail: ``spamc`` then passes it on unscanned."""

    def __init__(
        self,
        reader: Callable[[], AbstractContextManager[TokenStore]],
        writer: Callable[[], AbstractContextManager[TokenStore]] | None,
        settings: ScoreSettings,
        marking: Marking = Marking(),
        *,
        max_mime_depth: int = MAX_MIME_DEPTH,
        per_user: bool = False,
    ) -> None:
        self.reader, self.writer = reader, writer
        self.per_user = per_user
        self.settings, self.marking = settings, marking
        self.max_mime_depth = max_mime_depth
        self._options: TokenOptions | None = None  # the store's, once it recorded them

    def token_options(self) -> TokenOptions:
        """The tokenizer options of the store (:func:`~nbayes.spam.store_options.store_options`),
        read once the store has recorded them (a record never changes), else each time."""
        if self._options is not None:
            return self._options
        with self.reader() as store:
            options = store_options(store)
            if recorded_options(store) is not None:
                self._options = options
        return options

    def answer(self, request: Request) -> bytes:
        """The response bytes for ``request`` (errors become status codes)."""
        if request.method == "PING":
            return f"{PROTOCOL} 0 PONG\r\n".encode()
        options = self.token_options()
        try:
            check_mime_depth(request.body, self.max_mime_depth)
            tokens = tokenize(request.body, options)
        except MailParseError as error:
            deep = isinstance(error, MimeTooDeepError)
            text = str(error) if deep else f"not a mail message: {error}"
            raise ProtocolError(text, EX_DATAERR) from None
        if request.method == "TELL":
            return self._tell(request, tokens, options)
        marks = request.method in ("PROCESS", "HEADERS")
        found = None
        with self._store(self.reader, request) as store:
            if marks and self.marking.classes:
                # one read for both verdicts: every class's counts hold ham's and spam's
                read = read_classes_of(store, [tokens])
                found = self._class_verdict(read)
                counts, totals = read.two_class_counts()
            else:
                counts, totals = store.read_counts(tokens, vocabulary=False)
            if self.settings.method == "fisher":
                score = fisher_score(tokens, counts, totals, self.settings)
            else:
                score = float(score_tokens(store, [tokens], self.settings)[0])
        verdict = self.settings.verdict(score)
        spam = [("Spam", self._spam_header(verdict, score))]
        method = request.method
        if method == "CHECK":
            return response(EX_OK, spam, b"")
        if method == "SYMBOLS":
            return response(EX_OK, spam, f"NBAYES_{verdict.upper()}".encode())
        if method in ("REPORT", "REPORT_IFSPAM"):
            if method == "REPORT_IFSPAM" and verdict != "Spam":
                return response(EX_OK, spam, b"")
            strongest = clues(tokens, counts, totals, self.settings)
            return response(EX_OK, spam, self._report(verdict, score, strongest))
        marked = mark(
            request.body, verdict, score, header=self.marking.header,
            subject_tag=self.marking.subject_tag,
            spamassassin=self._points(score) if self.marking.spamassassin_headers else None,
            threshold=self._points(self.settings.spam_cutoff),
        )  # fmt: skip
        if found is not None:
            best = found.probabilities[found.verdict]
            marked = mark(marked, found.verdict, best, header=CLASS_HEADER)
        if method == "HEADERS":  # the header block and the empty line: spamc adds the body
            head, rest = split_head(marked)
            blank = (
                b"\r\n" if rest.startswith(b"\r\n") else b"\n" if rest.startswith(b"\n") else b""
            )
            return response(EX_OK, spam, head + blank)
        return response(EX_OK, spam, marked)

    def _class_verdict(self, read: ClassesRead) -> ClassVerdict | None:
        """The multi-class verdict of the message read (None: nothing learnt)."""
        try:
            [found] = read.verdicts(self.settings.alpha)
        except NothingLearntError:
            return None
        return found

    def _points(self, score: float) -> float:
        return POINTS * score

    def _spam_header(self, verdict: str, score: float) -> str:
        points, threshold = self._points(score), self._points(self.settings.spam_cutoff)
        return f"{verdict == 'Spam'} ; {points:.1f} / {threshold:.1f}"

    def _report(self, verdict: str, score: float, strongest: list[tuple[str, float]]) -> bytes:
        points, threshold = self._points(score), self._points(self.settings.spam_cutoff)
        lines = [
            f"nbayes scored this message {verdict}: {points:.1f} points, {threshold:.1f}"
            " needed for spam.",
            "",
            f"Content analysis details:   ({points:.1f} points, {threshold:.1f} required)",
            "",
            " pts rule name              description",
            "---- ---------------------- --------------------------------------------------",
            f"{points:4.1f} NBAYES_{verdict.upper():<15} Bayesian spam probability {score:.4f}",
            "",
            "Strongest clues (token: its spam probability f(w)):",
            *(f"  {token[:60]}: {f:.4f}" for token, f in strongest),
        ]
        return ("\n".join(lines) + "\n").encode("utf-8", "replace")

    def _tell(self, request: Request, tokens, options: TokenOptions) -> bytes:
        if self.writer is None:
            raise ProtocolError("TELL refused: not enabled (--allow-tell)", EX_UNAVAILABLE)
        label = request.headers.get("message-class", "").lower() or None
        if label not in (None, "spam", "ham"):
            raise ProtocolError(f"TELL refused: bad Message-class: {label[:40]!r}")
        wanted_set = "local" in request.headers.get("set", "").lower()
        wanted_remove = "local" in request.headers.get("remove", "").lower()
        if wanted_set and (wanted_remove or label is None):
            raise ProtocolError("TELL refused: Set needs a Message-class, and not with Remove")
        headers = []
        with self._store(self.writer, request) as store:
            if wanted_set and tell(store, tokens, request.body, label, True, options):
                headers.append(("DidSet", "local"))
            if wanted_remove and tell(store, tokens, request.body, label, learn=False):
                headers.append(("DidRemove", "local"))
        return response(EX_OK, headers, b"")


    def _store(self, opener: Callable, request: Request) -> AbstractContextManager[Store]:
        """``opener()``, or ``opener(user)`` for a request naming a valid user where
        the filter is ``per_user``."""
        user = request.headers.get("user") if self.per_user else None
        if not user:
            return opener()
        try:
            return opener(check_user(user))
        except ValueError as error:
            raise ProtocolError(f"bad User: {error}", EX_NOUSER) from None


def status_of(error: Exception) -> int:
    """The status a failed request is answered with."""
    if isinstance(error, ProtocolError):
        return error.code
    if isinstance(error, StoreUnavailableError) or (
        isinstance(error, StoreError) and "locked" in str(error)
    ):
        return EX_TEMPFAIL
    return EX_SOFTWARE
