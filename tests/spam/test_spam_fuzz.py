"""Property and fuzz tests of the boundary the spam filter shows the world: the mail
parser and marker (``parse.py``, ``head.py``, ``mark.py``) and the spamd protocol
(request line, headers, body lengths), in process and against a running server.

Each example runs under a deadline (hypothesis's, per example) and the server under
socket timeouts; every answer must be a clear one (a token set or ``MailParseError``; a
request or ``ProtocolError`` with its status; a status line on the wire), and a message
passed through must come back byte for byte. Inputs that found a failure are kept as
fixtures: ``hostile_mail.py`` (mail) and ``hostile_spamd.py`` (requests)."""

from __future__ import annotations

import contextlib
import io
import re
import socket

import pytest
from hostile_mail import FOUND
from hostile_spamd import HOSTILE_REQUESTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spam_mail import corpus
from spamd_clients import Server, ask, request

from nbayes.spam.head import split_head
from nbayes.spam.mark import mark
from nbayes.spam.parse import MailParseError, check_mime_depth
from nbayes.spam.score import ScoreSettings
from nbayes.spam.spamd import (
    Filter,
    ProtocolError,
    RequestReader,
    read_request,
    status_of,
)
from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import tokenize

FUZZ = settings(max_examples=150, deadline=5000, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------------ mail pieces
_NEWLINES = st.sampled_from([b"\n", b"\r\n", b"\r"])
_HEADER_PIECES = [
    b"From: a@b.example", b"Subject: hi", b"Subject: =?utf-8?q?caf=C3=A9?=",
    b"Subject: =?utf-8?b?Y2Fmw6k=?=", b"Subject: =?x-unknown?q?abc?=", b"To: <c@d.example>",
    b"Content-Type: text/plain; charset=utf-8", b"Content-Type: text/html",
    b'Content-Type: multipart/mixed; boundary="b"', b"Content-Type: multipart/alternative",
    b"Content-Type: message/rfc822", b"Content-Transfer-Encoding: base64",
    b"Content-Transfer-Encoding: quoted-printable", b"MIME-Version: 1.0", b" folded",
    b"\tfolded", b"X-Nbayes-Spam: Spam, score=1.0000", b"X-Spam-Status: Yes", b"From x",
    b"Received: from a by b", b"http://example.com/", b"Content-Type: text/plain; charset=",
]  # fmt: skip
_BODY_PIECES = [
    b"", b"--b", b"--b--", b"hello world", b"viagra cheap", b"<html><a href=x>y</a>",
    b"<!--", b"=3D=20", b"=\n", b"aGVsbG8=", b"\x00", b"\xff\xfe", b"caf\xc3\xa9",
    b"\xe9t\xe9", b"a@b.example", b"From me", b"<script>", b"&amp;&#x41;",
]  # fmt: skip


@st.composite
def mail(draw) -> bytes:
    """Mail-shaped bytes: header lines from the pieces (or random), a separator (or
    not), body lines from the pieces (or random), with one line ending or mixed."""
    newline = draw(_NEWLINES)
    line = st.one_of(st.sampled_from(_HEADER_PIECES), st.binary(max_size=40))
    head = draw(st.lists(line, max_size=8))
    body = draw(
        st.lists(st.one_of(st.sampled_from(_BODY_PIECES), st.binary(max_size=60)), max_size=12)
    )
    separator = draw(st.sampled_from([newline, b"", b"\n", b"\r\n"]))
    ending = draw(st.sampled_from([newline, b""]))
    return newline.join(head) + newline + separator + newline.join(body) + ending


ANY_MAIL = st.one_of(mail(), st.binary(max_size=600))


@FUZZ
@given(ANY_MAIL)
def test_the_parser_answers_with_tokens_or_a_clear_refusal(raw):
    try:
        check_mime_depth(raw, 100)
        tokens = tokenize(raw)
    except MailParseError as error:
        assert str(error)  # says why
        return
    assert isinstance(tokens, set) and all(isinstance(t, str) and t for t in tokens)


def check_marked(raw: bytes, verdict: str, score: float) -> None:
    """The body comes back byte for byte after the added header; the message's own
    header lines (other than the verdict's) keep their order; marking the marked
    message gives what marking the message gives (one verdict header, the last), where
    no line ends in a lone CR (``split_head`` finds no empty line in such mail, so its
    marks go after its last line, and a mark-made empty line may end the head next time).
    """
    marked = mark(raw, verdict, score, spamassassin=10 * score, threshold=9.0)
    head, rest = split_head(raw)
    assert marked.endswith(rest)
    added = marked[: len(marked) - len(rest)]
    assert f"X-Nbayes-Spam: {verdict}, score={score:.4f}".encode() in added
    own = [
        line for line in re.split(rb"\r\n|\r|\n", head)
        if not line.lower().startswith((b"x-nbayes-spam", b"x-spam-"))
    ]  # fmt: skip
    position = 0
    for line in own:
        if line.strip() and not line[:1].isspace():
            found = added.find(line, position)
            assert found >= 0, (line, added)
            position = found + len(line)
    if re.search(rb"\r(?!\n)", raw) is None:  # a lone CR: no empty line ends the head
        again = mark(marked, verdict, score, spamassassin=10 * score, threshold=9.0)
        assert again == marked  # for head.split_head, so the marks go after the last line


@FUZZ
@given(ANY_MAIL, st.sampled_from(["Spam", "Ham", "Unsure"]), st.floats(0, 1))
def test_marking_changes_the_header_block_only(raw, verdict, score):
    check_marked(raw, verdict, score)


@pytest.mark.parametrize("raw", sorted(FOUND))
def test_mail_the_fuzzing_found(raw):
    for verdict in ("Spam", "Ham"):
        check_marked(raw, verdict, 0.5)
    check_mime_depth(raw, 100)
    assert tokenize(raw)


@settings(max_examples=60, deadline=10000, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_MAIL)
def test_classify_passthrough_returns_the_message_or_marks_only_its_head(raw):
    """``classify -p``: exit 3 and the message unchanged, or the message marked (its
    body byte for byte)."""
    from click.testing import CliRunner

    from nbayes.cli import main

    result = CliRunner().invoke(main, ["spam", "classify", "-p", "--db", DB[0]], input=raw)
    assert result.exit_code in (0, 1, 2, 3), result.output
    if result.exit_code == 3:
        assert result.stdout_bytes == raw
    else:
        assert result.stdout_bytes.endswith(split_head(raw)[1])
        assert b"X-Nbayes-Spam: " in result.stdout_bytes


DB: list[str] = []


@pytest.fixture(scope="module", autouse=True)
def trained_db(tmp_path_factory):
    messages, labels = corpus(40, 40)
    path = tmp_path_factory.mktemp("fuzz") / "t.db"
    with TokenStore(path) as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
    DB[:] = [str(path)]
    return path


# -------------------------------------------------------------------- spamd requests
_METHODS = st.sampled_from(
    ["PING", "CHECK", "SYMBOLS", "REPORT", "REPORT_IFSPAM", "PROCESS", "HEADERS", "TELL",
     "SKIP", "HELLO", "check", ""]
)  # fmt: skip
_VERSIONS = st.sampled_from(["SPAMC/1.5", "SPAMC/1.2", "SPAMC/", "HTTP/1.1", "", "SPAMC/1.5 x"])
_LENGTHS = st.one_of(
    st.integers(0, 300).map(str),
    st.sampled_from(["", "-1", "x", "\u00b2", "\u0662", "1 2", "0" * 30 + "7", "9" * 50,
                     " 12", "12 ", "+5", "0x10", "1e3"]),
)  # fmt: skip


@st.composite
def spamd_requests(draw) -> bytes:
    """Request-shaped bytes: a request line, headers (a Content-length from the edge
    cases, true or false), an empty line or not, and a message."""
    newline = draw(st.sampled_from(["\r\n", "\n"]))
    lines = [f"{draw(_METHODS)} {draw(_VERSIONS)}"]
    body = draw(st.one_of(st.sampled_from([b"", SPAM]), st.binary(max_size=200)))
    if draw(st.booleans()):
        length = draw(st.one_of(_LENGTHS, st.just(str(len(body)))))
        lines.append(f"Content-length: {length}")
    for _ in range(draw(st.integers(0, 3))):
        lines.append(draw(st.sampled_from(
            ["User: x", "Compress: zlib", "Message-class: spam", "Set: local", "Remove: local",
             "no colon", ": empty name", "X:" + "y" * draw(st.integers(0, 9000))]
        )))  # fmt: skip
    head = newline.join(lines) + newline + (newline if draw(st.booleans()) else "")
    return head.encode("utf-8") + body


SPAM = corpus(41, 0)[0][-1]
ANY_REQUEST = st.one_of(spamd_requests(), st.binary(max_size=300))


def _outcome(read) -> tuple:
    try:
        got = read()
    except ProtocolError as error:
        return ("error", status_of(error))
    if got is None:
        return (None,)
    return (got.method, got.version, tuple(sorted(got.headers.items())), got.body)


@FUZZ
@given(ANY_REQUEST, st.lists(st.integers(1, 50), max_size=20))
def test_a_request_read_in_any_chunks_is_the_request_read_whole(raw, cuts):
    """The server's reader, fed the bytes cut anywhere, reads what ``read_request``
    reads from a stream (or refuses it with the same status); nothing else is raised."""
    whole = _outcome(lambda: read_request(io.BytesIO(raw), 1000))

    def in_chunks():
        reader = RequestReader(1000)
        position = 0
        for size in [*cuts, len(raw)]:
            chunk = raw[position : position + size]
            position += len(chunk)
            if chunk and (got := reader.feed(chunk)) is not None:
                return got
        return reader.feed(b"")

    def unpacked():
        from nbayes.spam.spamd import unpack_body

        got = in_chunks()
        if got is not None:
            got.body = unpack_body(got, 1000)
        return got

    assert _outcome(unpacked) == whole


@settings(FUZZ, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(raw=ANY_REQUEST)
def test_the_filter_answers_every_request_with_a_status(trained_db, raw):
    with TokenStore(trained_db, readonly=True) as store:

        @contextlib.contextmanager
        def the_store():
            yield store

        answering = Filter(the_store, None, ScoreSettings())
        try:
            parsed = read_request(io.BytesIO(raw), 1000)
            if parsed is None or parsed.method == "SKIP":
                return
            reply = answering.answer(parsed)
        except ProtocolError as error:
            assert status_of(error) in (65, 69, 76) and str(error)
            return
    assert reply.startswith(b"SPAMD/1.5 0 ")
    if parsed.method == "PROCESS":  # the message marked, its body byte for byte
        body = reply.split(b"\r\n\r\n", 1)[1]
        assert body.endswith(split_head(parsed.body)[1])


@pytest.mark.parametrize("name", sorted(HOSTILE_REQUESTS))
def test_hostile_requests_are_refused_with_their_status(name, trained_db):
    raw, code = HOSTILE_REQUESTS[name]
    with TokenStore(trained_db, readonly=True) as store:

        @contextlib.contextmanager
        def the_store():
            yield store

        with pytest.raises(ProtocolError) as info:
            parsed = read_request(io.BytesIO(raw), 1000)
            Filter(the_store, None, ScoreSettings()).answer(parsed)  # not mail: refused
    assert status_of(info.value) == code


@pytest.fixture(scope="module")
def server(trained_db, tmp_path_factory):
    running = Server(trained_db, tmp_path_factory.mktemp("sock") / "s.sock", "--timeout", "0.5",
                     "--max-size", "1000")  # fmt: skip
    yield running
    assert running.stop() == 0, running.log


def test_a_running_server_answers_the_hostile_requests(server):
    for name, (raw, code) in HOSTILE_REQUESTS.items():
        reply = ask(server.port, raw, timeout=20)
        assert reply.startswith(f"SPAMD/1.5 {code} ".encode()), (name, reply)
    assert ask(server.port, request("PING"), timeout=20) == b"SPAMD/1.5 0 PONG\r\n"


@settings(max_examples=40, deadline=20000, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(ANY_REQUEST, st.booleans())
def test_a_running_server_answers_any_bytes_and_keeps_answering(server, raw, close_early):
    """Whatever a client sends, it gets a status line (or, having sent nothing whole
    and gone, nothing) within the server's --timeout, and the next client is served."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
        sock.sendall(raw)
        if close_early:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                chunks.append(chunk)
    reply = b"".join(chunks)
    assert reply == b"" or reply.startswith(b"SPAMD/1.5 "), reply[:80]
    assert ask(server.port, request("PING"), timeout=20) == b"SPAMD/1.5 0 PONG\r\n"
