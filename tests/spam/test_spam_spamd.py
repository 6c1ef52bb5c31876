"""The spamd protocol, request by request, without sockets (tests/spam/test_spam_serve.py
runs the real spamc against the server)."""

from __future__ import annotations

import contextlib
import io
import zlib

import pytest
from hostile_mail import deep_mime
from spam_mail import corpus

from nbayes.spam.mark import mark
from nbayes.spam.score import ScoreSettings
from nbayes.spam.single import score_message
from nbayes.spam.spamd import (
    EX_DATAERR,
    EX_PROTOCOL,
    EX_UNAVAILABLE,
    Filter,
    Marking,
    ProtocolError,
    read_request,
    status_of,
)
from nbayes.spam.store import StoreError, TokenStore
from nbayes.spam.tokens import tokenize

SPAM, HAM = corpus(41, 0)[0][-1], corpus(0, 41)[0][-1]
NEW = b"From: x@y.example\nSubject: zork quux\n\nfrobnicate the zork\n"


@pytest.fixture
def store(tmp_path):
    messages, labels = corpus(40, 40)
    with TokenStore(tmp_path / "t.db") as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
        yield store


def filter_of(store, tell: bool = True, **marking) -> Filter:
    @contextlib.contextmanager
    def the_store():
        yield store

    return Filter(the_store, the_store if tell else None, ScoreSettings(), Marking(**marking))


def request(method: str, body: bytes = b"", **headers: str) -> bytes:
    lines = [f"{method} SPAMC/1.5"] + [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    if method not in ("PING", "SKIP"):
        lines.append(f"Content-length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def ask(answering: Filter, raw: bytes, max_size: int = 10**6) -> tuple[str, dict, bytes]:
    reply = answering.answer(read_request(io.BytesIO(raw), max_size))
    head, _, body = reply.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    return status, dict(line.split(": ", 1) for line in lines if line), body


def test_check_symbols_and_report(store):
    answering = filter_of(store)
    score = score_message(store, tokenize(SPAM), ScoreSettings())
    status, headers, body = ask(answering, request("CHECK", SPAM))
    assert status == "SPAMD/1.5 0 EX_OK" and body == b""
    assert headers["Spam"] == f"True ; {10 * score:.1f} / 9.0"
    assert ask(answering, request("CHECK", HAM))[1]["Spam"].startswith("False ; 0.")
    assert ask(answering, request("SYMBOLS", SPAM))[2] == b"NBAYES_SPAM"
    assert ask(answering, request("SYMBOLS", HAM))[2] == b"NBAYES_HAM"
    report = ask(answering, request("REPORT", SPAM))[2].decode()
    assert "NBAYES_SPAM" in report and "from:promo@deals.example: 0.99" in report
    assert ask(answering, request("REPORT_IFSPAM", HAM))[2] == b""
    assert ask(answering, request("PING")) == ("SPAMD/1.5 0 PONG", {}, b"")


def test_process_and_headers_mark_the_message(store):
    answering = filter_of(store, subject_tag="[SPAM]")
    score = score_message(store, tokenize(SPAM), ScoreSettings())
    points = 10 * score
    expected = mark(SPAM, "Spam", score, subject_tag="[SPAM]", spamassassin=points, threshold=9.0)
    _, headers, body = ask(answering, request("PROCESS", SPAM))
    assert body == expected and int(headers["Content-length"]) == len(expected)
    assert b"X-Spam-Flag: YES\n" in body and b"Subject: [SPAM] spam 40" in body
    head = ask(answering, request("HEADERS", SPAM))[2]
    assert head == expected.partition(b"\n\n")[0] + b"\n\n"  # spamc appends the body
    plain = filter_of(store, header="X-Filter", spamassassin_headers=False)
    body = ask(plain, request("PROCESS", HAM))[2]
    assert b"X-Spam-" not in body and b"\nX-Filter: Ham, score=0." in body


def test_tell_learns_moves_and_forgets_exactly(store):
    answering = filter_of(store)
    before = store.totals(), dict(zip(*store.all_counts(), strict=True))

    def tell(**headers):
        return ask(answering, request("TELL", NEW, **headers))[1]

    assert tell(Message_class="spam", Set="local") == {"DidSet": "local", "Content-length": "0"}
    assert tell(Message_class="spam", Set="local") == {"Content-length": "0"}  # already
    assert store.trained_as(NEW) == (0, 1)
    assert tell(Message_class="ham", Set="local, remote")["DidSet"] == "local"  # moved
    assert store.trained_as(NEW) == (1, 0) and store.totals().messages == (41, 40)
    assert tell(Remove="local") == {"DidRemove": "local", "Content-length": "0"}
    assert tell(Remove="local") == {"Content-length": "0"}
    after = store.totals(), dict(zip(*store.all_counts(), strict=True))
    assert str(after) == str(before)


def test_tell_needs_allow_tell_and_sane_headers(store):
    with pytest.raises(ProtocolError, match=r"TELL refused: not enabled \(--allow-tell\)") as info:
        ask(filter_of(store, tell=False), request("TELL", NEW, Message_class="spam", Set="local"))
    assert info.value.code == status_of(info.value) == EX_UNAVAILABLE
    for headers in ({"Set": "local"}, {"Message_class": "eggs", "Set": "local"},
                    {"Message_class": "spam", "Set": "local", "Remove": "local"}):  # fmt: skip
        with pytest.raises(ProtocolError, match="TELL refused: ") as info:
            ask(filter_of(store), request("TELL", NEW, **headers))
        assert info.value.code == EX_PROTOCOL


def test_compressed_and_length_less_requests(store):
    answering = filter_of(store)
    packed = zlib.compress(SPAM)
    assert ask(answering, request("CHECK", packed, Compress="zlib"))[1]["Spam"].startswith("True")
    old_client = b"CHECK SPAMC/1.2\r\n\r\n" + HAM  # no Content-length: to the end
    assert ask(answering, old_client)[1]["Spam"].startswith("False")


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"HELLO SPAMC/1.5\r\n\r\n", EX_PROTOCOL),
        (b"CHECK HTTP/1.1\r\n\r\n", EX_PROTOCOL),
        (b"CHECK SPAMC/1.5\r\nno colon\r\n\r\n", EX_PROTOCOL),
        (b"CHECK SPAMC/1.5\r\nContent-length: x\r\n\r\n", EX_PROTOCOL),
        ("CHECK SPAMC/1.5\r\nContent-length: \u00b2\r\n\r\nab".encode("latin-1"), EX_PROTOCOL),
        (b"CHECK SPAMC/1.5\r\nContent-length: \xb2\r\n\r\nab", EX_PROTOCOL),  # the same
        (b"CHECK SPAMC/1.5\r\nContent-length: -1\r\n\r\n", EX_PROTOCOL),
        (b"CHECK SPAMC/1.5\r\nContent-length: " + b"9" * 5000 + b"\r\n\r\n", EX_DATAERR),
        (b"CHECK SPAMC/1.5\r\nContent-length: 3\r\n", EX_PROTOCOL),  # no empty line
        (b"CHECK SPAMC/1.5\r\nX: " + b"y" * 9000 + b"\r\n\r\n", EX_PROTOCOL),
        (b"CHECK SPAMC/1.5\r\nContent-length: 99\r\n\r\nshort", EX_PROTOCOL),
        # two lengths: the request is framed one way by the server, another by a proxy
        (b"CHECK SPAMC/1.5\r\nContent-length: 2\r\nContent-Length: 5\r\n\r\nabcde", EX_PROTOCOL),
        (b"CHECK SPAMC/1.5\r\nContent-length: 2000\r\n\r\n" + b"x" * 2000, EX_DATAERR),
        (b"CHECK SPAMC/1.5\r\nCompress: zlib\r\nContent-length: 3\r\n\r\nabc", EX_DATAERR),
        (request("CHECK", b"\x00\x01\x02" * 100), EX_DATAERR),
        (request("PROCESS", deep_mime(101)), EX_DATAERR),
        (
            request("CHECK", zlib.compress(b"Subject: x\n\n" + b"a" * 5000), Compress="zlib"),
            EX_DATAERR,
        ),
    ],
)
def test_bad_requests_are_answered_with_a_status(store, raw, code):
    with pytest.raises(ProtocolError) as info:
        ask(filter_of(store), raw, max_size=1000)
    assert info.value.code == code == status_of(info.value)


def test_mime_depth_limit_is_the_filters(store):
    answering = filter_of(store)
    assert ask(answering, request("CHECK", deep_mime(100)))[1]["Spam"]
    with pytest.raises(ProtocolError, match="nested more than 100 deep"):
        ask(answering, request("CHECK", deep_mime(101)))
    answering.max_mime_depth = 0  # no limit: read flat and scored
    assert ask(answering, request("CHECK", deep_mime(1000)))[1]["Spam"]


def test_database_errors_are_statuses_too(tmp_path):
    assert status_of(StoreError("x.db: the database is locked by another process")) == 75
    assert status_of(StoreError("x.db: the database is corrupt")) == 70
    assert status_of(RuntimeError("anything")) == 70
    assert read_request(io.BytesIO(b""), 10) is None


class _CountingReads:
    """A store whose reads are counted (every other attribute the store's own)."""

    def __init__(self, store) -> None:
        self.store, self.reads = store, []

    def __getattr__(self, name: str):
        attribute = getattr(self.store, name)
        if name.startswith("read_"):
            self.reads.append(name)
        return attribute


@pytest.mark.parametrize("newsletters", [0, 12])
@pytest.mark.parametrize("method", ["PROCESS", "HEADERS"])
def test_classes_read_the_store_once_and_score_as_two_classes(tmp_path, method, newsletters):
    """``Marking(classes=True)`` (``serve --classes``): PROCESS and HEADERS read every
    class's counts once, in one state, for both verdicts (they read the store twice, the
    two-class counts and then every class's); the two-class marking is the one without
    the classes, to the last digit of the score, with and without a third class."""
    messages, labels = corpus(40, 40)
    batch = [(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)]
    letters = [HAM.replace(b"meeting", b"weekly digest %d" % i) for i in range(newsletters)]
    batch += [(tokenize(m), m, "newsletter") for m in letters]
    with TokenStore(tmp_path / "c.db") as store:
        store.learn(batch)
        counting = _CountingReads(store)
        for raw in (SPAM, HAM, NEW, b"Subject: \n\n"):
            counting.reads.clear()
            with_classes = ask(filter_of(counting, classes=True), request(method, raw))
            assert counting.reads == ["read_classes"]
            plain = ask(filter_of(store), request(method, raw))
            assert with_classes[1]["Spam"] == plain[1]["Spam"]  # verdict and points
            lines = with_classes[2].split(b"\n")
            class_line = [line for line in lines if line.startswith(b"X-Nbayes-Class: ")]
            assert len(class_line) == 1
            assert with_classes[2].replace(class_line[0] + b"\n", b"", 1) == plain[2]
