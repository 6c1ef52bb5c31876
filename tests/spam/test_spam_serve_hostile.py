"""``nbayes spam serve`` against hostile clients, on real sockets with the real ``spamc``:
slow senders, idle connections, floods and a crowd of simultaneous requests never stop
it answering a well-behaved client, and SIGTERM stops it within seconds whatever the
clients do. Every wait is bounded (socket and subprocess timeouts)."""

from __future__ import annotations

import threading
import time

from spam_mail import corpus
from spamd_clients import (
    HOSTILE_ADDRESS,
    Server,
    ask,
    closed_by_server,
    connect,
    request,
    spamc_binary,
    trickle,
)

SPAM, HAM = corpus(41, 0)[0][-1], corpus(0, 41)[0][-1]


def well_behaved_answers(server: Server, rounds: int = 3) -> None:
    """PING, CHECK from spamc (TCP and Unix) and CHECK on a raw socket all answered right."""
    for _ in range(rounds):
        assert server.spamc("-K").stdout.startswith(b"SPAMD/1.5 0")
        assert ask(server.port, request("PING"), timeout=20) == b"SPAMD/1.5 0 PONG\r\n"
        assert server.spamc("-c", message=SPAM).returncode == 1
        assert server.spamc("-c", message=HAM, unix=True).returncode == 0
        reply = ask(server.port, request("CHECK", SPAM), timeout=20)
        assert reply.startswith(b"SPAMD/1.5 0 EX_OK\r\nSpam: True ; "), reply


def test_slow_senders_hold_no_service_and_are_cut_at_the_request_deadline(db, tmp_path):
    """16 clients sending a byte a second stopped all service (--timeout was per read):
    now each must send its whole request within --timeout, and meanwhile others are served."""
    spamc_binary()
    server = Server(db, tmp_path / "s.sock", "--timeout", "2", "--workers", "2")
    slow = [connect(server.port, HOSTILE_ADDRESS, timeout=10) for _ in range(24)]
    until = time.monotonic() + 30
    threads = [
        threading.Thread(target=trickle, args=(s, request("CHECK", SPAM), 0.1, until), daemon=True)
        for s in slow
    ]
    try:
        for thread in threads:
            thread.start()
        started = time.monotonic()
        well_behaved_answers(server)
        for sock in slow:  # each closed at its deadline, though it kept sending
            assert closed_by_server(sock, within=max(0.5, started + 8 - time.monotonic()))
    finally:
        for sock in slow:
            sock.close()
        assert server.stop() == 0, server.log


def test_two_hundred_simultaneous_checks_are_all_answered(db, tmp_path):
    """200 CHECKs at once gave 163 connection resets (a listen backlog of 5)."""
    server = Server(db, tmp_path / "s.sock")
    replies: list[bytes] = []
    gate = threading.Barrier(200, timeout=30)

    def client() -> None:
        gate.wait()
        try:
            replies.append(ask(server.port, request("CHECK", SPAM), timeout=60))
        except OSError as error:
            replies.append(repr(error).encode())

    threads = [threading.Thread(target=client) for _ in range(200)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(90)
    finally:
        assert server.stop() == 0, server.log
    assert len(replies) == 200
    bad = [reply[:60] for reply in replies if not reply.startswith(b"SPAMD/1.5 0 EX_OK\r\n")]
    assert bad == []


def test_idle_connections_are_closed_first_at_the_caps(db, tmp_path):
    """Over --max-per-client the idlest connection of that client is closed for the new
    one; over --max-connections the idlest of all; a well-behaved client is served."""
    spamc_binary()
    server = Server(db, tmp_path / "s.sock", "--max-connections", "12", "--max-per-client", "8")
    idle = [connect(server.port, HOSTILE_ADDRESS, timeout=10) for _ in range(10)]
    try:
        time.sleep(0.5)  # all accepted
        # the two oldest were closed for the 9th and 10th (per-client cap 8)
        assert closed_by_server(idle[0], 5) and closed_by_server(idle[1], 5)
        assert not closed_by_server(idle[-1], 0.3)
        more = [connect(server.port, "127.0.0.1", timeout=10) for _ in range(6)]
        time.sleep(0.5)  # 8 + 6 over the cap of 12: the two oldest idle ones made room
        assert closed_by_server(idle[2], 5) and closed_by_server(idle[3], 5)
        well_behaved_answers(server, rounds=2)
        for sock in more:
            sock.close()
    finally:
        for sock in idle:
            sock.close()
        assert server.stop() == 0, server.log


def test_a_flooding_client_delays_only_itself(db, tmp_path):
    """A client sending CHECKs as fast as it can from many connections: the queue is served
    in turn by client, so the well-behaved one is answered throughout."""
    spamc_binary()
    server = Server(db, tmp_path / "s.sock", "--workers", "2")
    stop = threading.Event()
    flood_replies: list[bytes] = []

    def flood() -> None:
        while not stop.is_set():
            try:
                reply = ask(server.port, request("CHECK", SPAM * 20), HOSTILE_ADDRESS, 20)
            except OSError as error:
                reply = repr(error).encode()
            flood_replies.append(reply[:20])

    threads = [threading.Thread(target=flood, daemon=True) for _ in range(16)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(0.5)
        well_behaved_answers(server)
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
        assert server.stop() == 0, server.log
    assert flood_replies and all(r.startswith(b"SPAMD/1.5 ") for r in flood_replies)


def test_sigterm_stops_within_seconds_whatever_the_clients_do(db, tmp_path):
    """20 slow clients held SIGTERM for 34 s: now connections still sending are closed,
    requests being scored get STOP_GRACE seconds, and the server exits."""
    server = Server(db, tmp_path / "s.sock")
    slow = [connect(server.port, HOSTILE_ADDRESS, timeout=10) for _ in range(20)]
    idle = [connect(server.port, HOSTILE_ADDRESS, timeout=10) for _ in range(20)]
    readers = []
    for sock in slow[:10]:  # a request whose reply is never read
        sock.sendall(request("PROCESS", SPAM * 200))
        readers.append(sock)
    until = time.monotonic() + 60
    threads = [
        threading.Thread(target=trickle, args=(s, request("CHECK", SPAM), 0.5, until), daemon=True)
        for s in slow[10:]
    ]
    try:
        for thread in threads:
            thread.start()
        time.sleep(1)
        started = time.monotonic()
        assert server.stop() == 0, server.log
        assert time.monotonic() - started < 8  # STOP_GRACE (3 s) and the process's exit
        assert not server.sock.exists()
    finally:
        for sock in slow + idle:
            sock.close()


def test_unicode_digits_and_tell_refusals(db, tmp_path):
    """``Content-length: ²`` is a protocol error (it was EX_SOFTWARE), and a refused TELL
    is logged with its reason."""
    spamc_binary()
    server = Server(db, tmp_path / "s.sock")
    try:
        raw = "CHECK SPAMC/1.5\r\nContent-length: \u00b2\r\n\r\nab".encode("utf-8")
        assert ask(server.port, raw, timeout=10).startswith(b"SPAMD/1.5 76 EX_PROTOCOL")
        raw = "CHECK SPAMC/1.5\r\nContent-length: \u0662\r\n\r\nab".encode("utf-8")
        assert ask(server.port, raw, timeout=10).startswith(b"SPAMD/1.5 76 EX_PROTOCOL")
        server.spamc("-L", "spam", message=SPAM)
    finally:
        assert server.stop() == 0
    assert any("bad Content-length" in line for line in server.log), server.log
    assert any("TELL refused: not enabled (--allow-tell)" in line for line in server.log)


def test_a_message_over_max_size_is_refused_unread_and_spamc_passes_it_on(db, tmp_path):
    spamc_binary()
    server = Server(db, tmp_path / "s.sock", "--max-size", "2000")
    big = SPAM + b"x" * 5000 + b"\n"
    try:
        reply = ask(server.port, request("CHECK", big), timeout=10)
        assert reply.startswith(b"SPAMD/1.5 65 EX_DATAERR"), reply
        result = server.spamc("-s", "1000000", message=big)  # spamc sends it: refused
        assert result.stdout == big
        assert server.spamc("-c", message=SPAM).returncode == 1
    finally:
        assert server.stop() == 0
