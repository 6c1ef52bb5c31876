"""``nbayes spam serve`` with the real ``spamc`` (SpamAssassin's client, Debian package
``spamc``; CI installs it): every method spamc sends, learning, both transports,
concurrent clients, bad clients, a clean stop, and the multi-class header (--classes)."""

from __future__ import annotations

import socket
import subprocess
import threading
import time

import pytest
from conftest import nbayes_spam
from hostile_mail import deep_mime
from spam_mail import corpus, synthetic_mail
from spamd_clients import NBAYES, Server, spamc_binary

from nbayes.spam.mark import mark
from nbayes.spam.score import ScoreSettings
from nbayes.spam.single import score_message
from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import tokenize

SPAM, HAM = corpus(41, 0)[0][-1], corpus(0, 41)[0][-1]


@pytest.fixture
def server(db, tmp_path):
    spamc_binary()
    running = Server(db, tmp_path / "spamd.sock", "--allow-tell")
    yield running
    if running.process.poll() is None:
        assert running.stop() == 0, running.log
        assert not running.sock.exists()


def test_spamc_check_exits_1_for_spam_and_0_for_ham(server):
    for unix in (False, True):
        spam = server.spamc("-c", message=SPAM, unix=unix)
        points, threshold = map(float, spam.stdout.decode().split("/"))
        assert spam.returncode == 1 and points >= threshold == 9.0
        ham = server.spamc("-c", message=HAM, unix=unix)
        assert ham.returncode == 0 and float(ham.stdout.decode().split("/")[0]) < 9.0


def test_spamc_process_headers_symbols_report_and_ping(server):
    with TokenStore(server.db, readonly=True) as store:
        score = score_message(store, tokenize(SPAM), ScoreSettings())
    expected = mark(SPAM, "Spam", score, spamassassin=10 * score, threshold=9.0)
    assert server.spamc(message=SPAM).stdout == expected
    assert server.spamc("--headers", message=SPAM).stdout == expected
    assert server.spamc("-E", message=SPAM).returncode == 1
    assert server.spamc("-E", message=HAM).returncode == 0
    assert server.spamc("-y", message=SPAM).stdout == b"NBAYES_SPAM"
    report = server.spamc("-R", message=SPAM).stdout.decode()
    assert report.startswith(f"{10 * score:.1f}/9.0\n") and "NBAYES_SPAM" in report
    assert server.spamc("-r", message=HAM).stdout == b""  # REPORT_IFSPAM, not spam
    assert server.spamc("-K").stdout.startswith(b"SPAMD/1.5 0")


def test_spamc_learns_moves_and_forgets(server):
    new = b"From: x@y.example\nSubject: zork quux\n\nfrobnicate the zork\n"
    with TokenStore(server.db, readonly=True) as store:
        before = store.totals()

    def learn(kind: str) -> str:
        result = server.spamc("-L", kind, message=new)
        assert result.returncode == 0, result.stderr
        return result.stdout.decode().strip()

    assert learn("spam") == "Message successfully un/learned"
    assert learn("spam") == "Message was already un/learned"
    with TokenStore(server.db, readonly=True) as store:
        assert store.totals().messages == (40, 41) and store.trained_as(new) == (0, 1)
    assert learn("ham") == "Message successfully un/learned"
    with TokenStore(server.db, readonly=True) as store:
        assert store.totals().messages == (41, 40)
    assert learn("forget") == "Message successfully un/learned"
    assert learn("forget") == "Message was already un/learned"
    with TokenStore(server.db, readonly=True) as store:
        assert store.totals() == before


def test_concurrent_clients_all_get_their_answers(server):
    learnt = [
        f"From: n{i}@y.example\nSubject: new {i}\n\nword{i} zork\n".encode() for i in range(8)
    ]
    failures = []

    def client(worker: int) -> None:
        for i in range(8):
            message, want = (SPAM, 1) if (worker + i) % 2 else (HAM, 0)
            result = server.spamc("-c", message=message, unix=bool(i % 3 == 0))
            if result.returncode != want:
                failures.append((worker, i, result))
        result = server.spamc("-L", "spam", message=learnt[worker])
        if b"successfully" not in result.stdout:
            failures.append((worker, "learn", result))

    threads = [threading.Thread(target=client, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    with TokenStore(server.db, readonly=True) as store:
        assert store.totals().messages == (40, 48)


def test_bad_and_idle_clients_never_stop_the_server(db, tmp_path):
    spamc_binary()
    server = Server(db, tmp_path / "s.sock", "--max-connections", "2", "--timeout", "1")
    try:
        assert server.spamc("-c", message=b"\x00\x01\x02" * 500).stdout == b"0/0\n"  # fallback
        assert server.spamc(message=b"\x00\x01\x02" * 500).stdout == b"\x00\x01\x02" * 500
        deep = deep_mime(1000)
        assert server.spamc(message=deep).stdout == deep  # not scanned: passed on
        with socket.create_connection(("127.0.0.1", server.port)) as garbage:
            garbage.sendall(b"GET / HTTP/1.0\r\n\r\n")
            assert garbage.recv(100) == b"SPAMD/1.5 76 EX_PROTOCOL\r\n\r\n"
        idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(2)]
        try:  # both slots taken by clients sending nothing: answered once they time out
            assert server.spamc("-c", message=SPAM).returncode == 1
        finally:
            for connection in idle:
                connection.close()
        assert server.spamc("-c", message=SPAM).returncode == 1
    finally:
        assert server.stop() == 0
    assert any("bad request line" in line for line in server.log)


def test_without_allow_tell_nothing_is_written(db, tmp_path):
    spamc_binary()
    before = db.read_bytes()
    server = Server(db, tmp_path / "s.sock")
    try:
        assert server.spamc("-c", message=SPAM).returncode == 1
        server.spamc("-L", "spam", message=b"Subject: x\n\nnew words\n")  # refused (status 69)
    finally:
        assert server.stop() == 0
    assert db.read_bytes() == before


def test_a_stale_socket_is_replaced_and_other_files_are_left_alone(db, tmp_path):
    spamc_binary()
    stale = tmp_path / "stale.sock"
    leftover = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    leftover.bind(str(stale))  # bound, never listening: what a killed server leaves
    leftover.close()
    server = Server(db, stale)
    try:
        assert server.spamc("-c", message=HAM, unix=True).returncode == 0
    finally:
        assert server.stop() == 0
    (tmp_path / "plain").write_text("not a socket")
    result = subprocess.run(
        [NBAYES, "spam", "serve", "--db", str(db), "--socket", str(tmp_path / "plain")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 1 and "exists and is not a socket" in result.stderr
    assert (tmp_path / "plain").read_text() == "not a socket"


def test_an_address_it_cannot_listen_on_is_named_in_one_line(db, tmp_path):
    """A port in use, a host that does not resolve, a socket folder that does not exist:
    the error says which address, not only why."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        for where, address in (
            (["--listen", f"127.0.0.1:{port}"], f"127.0.0.1:{port}"),
            (["--socket", str(tmp_path / "no-such-folder" / "s")], "no-such-folder/s"),
        ):
            result = subprocess.run(
                [NBAYES, "spam", "serve", "--db", str(db), *where],
                capture_output=True, text=True, timeout=60, check=False,
            )  # fmt: skip
            lines = result.stderr.splitlines()
            assert result.returncode == 1 and len(lines) == 1, result.stderr
            assert "cannot listen" in lines[0] and address in lines[0]
    finally:
        taken.close()


def test_stopping_ends_silent_connections_at_once(db, tmp_path):
    """A client connected and sending nothing held SIGTERM for the whole --timeout (30 s
    by default): it is now told the server is going, and the server exits at once."""
    server = Server(db, tmp_path / "s.sock")
    silent = [socket.create_connection(("127.0.0.1", server.port))]
    unix = socket.socket(socket.AF_UNIX)
    unix.connect(str(server.sock))
    silent.append(unix)
    try:
        time.sleep(0.3)  # both accepted, their handlers waiting for a request line
        started = time.monotonic()
        assert server.stop() == 0, server.log
        assert time.monotonic() - started < 10  # not the 30 s timeout
        assert not server.sock.exists()
        for connection in silent:
            connection.settimeout(10)
            assert connection.recv(100) == b""  # closed, nothing answered
    finally:
        for connection in silent:
            connection.close()


# ---------------------------------------------------------------- serve --classes
def _newsletter(i: int) -> bytes:
    """Ham with words of its own: a third class (as tests/spam/test_spam_classes.py's)."""
    return synthetic_mail("ham", 800 + i).replace(b"meeting", b"unsubscribe weekly digest")


def _classes_db(path):
    """A store of 40 spam, 40 ham and 40 newsletters."""
    messages, labels = corpus(40, 40)
    batch = [(tokenize(raw), raw, label) for raw, label in zip(messages, labels, strict=True)]
    batch += [(tokenize(raw), raw, "newsletter") for raw in map(_newsletter, range(40))]
    with TokenStore(path) as store:
        store.learn(batch)
    return path


def test_spamc_process_and_headers_name_the_class_with_classes(tmp_path):
    """``serve --classes``: PROCESS and HEADERS carry the multi-class verdict's header, as
    ``classify --classes -p`` writes it, after the two-class marking (a forged one
    removed); CHECK, SYMBOLS and REPORT stay two-class; without --classes the same store
    is served exactly as a two-class one."""
    from nbayes.spam.deliver import CLASS_HEADER
    from nbayes.spam.verdicts import classify_classes

    spamc_binary()
    db = _classes_db(tmp_path / "c.db")
    news = b"X-Nbayes-Class: ham, score=1.0000\n" + _newsletter(99)
    expected = {}
    with TokenStore(db, readonly=True) as store:
        for name, raw in (("spam", SPAM), ("news", news), ("ham", HAM)):
            score = score_message(store, tokenize(raw), ScoreSettings())
            verdict = ScoreSettings().verdict(score)
            two = mark(raw, verdict, score, spamassassin=10 * score, threshold=9.0)
            [found] = classify_classes(store, [tokenize(raw)])
            best = found.probabilities[found.verdict]
            expected[name] = (two, mark(two, found.verdict, best, header=CLASS_HEADER), found)
    assert expected["news"][2].verdict == "newsletter" and expected["spam"][2].verdict == "spam"
    marked_by_classify = nbayes_spam("classify", "--db", db, "--classes", "-p", input=news)
    assert f"{CLASS_HEADER}: newsletter, score=".encode() in marked_by_classify.stdout

    server = Server(db, tmp_path / "s.sock", "--classes")
    try:
        for name, raw in (("spam", SPAM), ("news", news), ("ham", HAM)):
            two, with_class, _ = expected[name]
            assert server.spamc(message=raw).stdout == with_class
            assert server.spamc("--headers", message=raw, unix=True).stdout == with_class
            assert with_class.count(CLASS_HEADER.encode()) == 1
        class_line = next(
            line for line in expected["news"][1].split(b"\n") if line.startswith(b"X-Nbayes-C")
        )
        assert class_line in marked_by_classify.stdout.split(b"\n")  # the same header line
        assert server.spamc("-c", message=SPAM).stdout.endswith(b"/9.0\n")
        assert server.spamc("-y", message=SPAM).stdout == b"NBAYES_SPAM"
    finally:
        assert server.stop() == 0
    plain = Server(db, tmp_path / "p.sock")
    try:
        for name, raw in (("spam", SPAM), ("news", news)):
            assert plain.spamc(message=raw).stdout == expected[name][0]
    finally:
        assert plain.stop() == 0


def test_serve_classes_on_an_empty_store_marks_two_class_only(tmp_path):
    spamc_binary()
    server = Server(tmp_path / "new.db", tmp_path / "s.sock", "--classes", "--allow-tell")
    try:
        reply = server.spamc(message=SPAM)
        assert reply.returncode == 0 and b"X-Nbayes-Spam: Unsure" in reply.stdout
        assert b"X-Nbayes-Class" not in reply.stdout
    finally:
        assert server.stop() == 0


def test_serve_classes_refuses_the_class_header_as_the_verdict_header(tmp_path):
    done = nbayes_spam("serve", "--db", tmp_path / "x.db", "--classes", "--header",
                       "x-nbayes-class", "--listen", "127.0.0.1:0")  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.decode().splitlines()[-1] == (
        "Error: --header x-nbayes-class: the verdict header cannot be X-Nbayes-Class, the "
        "multi-class verdict's own (--classes): name another"
    )


def test_serve_classes_per_user_reads_the_users_classes(tmp_path):
    """``serve --classes --per-user``: ``spamc -u alice`` gets the class verdict of
    alice's counts combined with the shared ones (her own phishing class included), as
    ``classify --classes --user alice`` gives it; other users the shared store's."""
    from nbayes.spam.deliver import CLASS_HEADER
    from nbayes.spam.stores import open_store
    from nbayes.spam.users import user_db
    from nbayes.spam.verdicts import classify_classes

    spamc_binary()
    db = _classes_db(tmp_path / "c.db")
    user_db(db, "alice").parent.mkdir()
    phishing = [SPAM.replace(b"casino", b"verify account password bank") + b"%d\n" % i
                for i in range(12)]  # fmt: skip
    with TokenStore(user_db(db, "alice"), create=True) as store:
        store.learn([(tokenize(raw), raw, "phishing") for raw in phishing])
    message = SPAM.replace(b"casino", b"verify account password bank")
    headers = {}
    for user in ("alice", None):
        with open_store(db, user=user, readonly=True) as store:
            [found] = classify_classes(store, [tokenize(message)])
        best = found.probabilities[found.verdict]
        headers[user] = f"{CLASS_HEADER}: {found.verdict}, score={best:.4f}".encode()
    assert headers["alice"].startswith(b"X-Nbayes-Class: phishing,")
    assert b"phishing" not in headers[None]
    server = Server(db, tmp_path / "s.sock", "--classes", "--per-user")
    try:
        for user, args in (("alice", ["-u", "alice"]), (None, ["-u", "bob"]), (None, [])):
            reply = server.spamc(*args, message=message).stdout.split(b"\n")
            assert headers[user] in reply, (user, reply)
    finally:
        assert server.stop() == 0
