"""Load for scenario K (``bench/scenario_spamd.py``): well-behaved and hostile spamd
clients on raw sockets. ``hostile_main`` runs in a process of its own, started by the
scenario, so that the hostile clients take no time of the measuring interpreter; this
module imports nothing of the benchmark, so that process starts light."""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

HOSTILE_ADDRESS = "127.0.0.2"


def spamd_request(method: str, body: bytes = b"") -> bytes:
    """A SPAMC/1.5 request with its Content-length (none for PING)."""
    head = f"{method} SPAMC/1.5\r\n"
    if method != "PING":
        head += f"Content-length: {len(body)}\r\n"
    return (head + "\r\n").encode() + body


def exchange(port: int, raw: bytes, source: str = "127.0.0.1", timeout: float = 60) -> bytes:
    """One request on a fresh connection; the whole reply (b"" if reset)."""
    with socket.create_connection(("127.0.0.1", port), timeout, (source, 0)) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:
            pass
        return b"".join(chunks)


# ------------------------------------------------------------------- the hostile process


def _slow_sender(port: int, message: bytes, stop: threading.Event) -> None:
    raw = spamd_request("CHECK", message)
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), 10, (HOSTILE_ADDRESS, 0)) as s:
                for byte in raw:
                    if stop.wait(0.5):
                        return
                    s.send(bytes([byte]))
        except OSError:
            stop.wait(0.05)


def _idle(port: int, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), 10, (HOSTILE_ADDRESS, 0)) as s:
                s.settimeout(0.5)
                while not stop.is_set():
                    try:
                        if s.recv(1) == b"":
                            break  # closed by the server: connect again
                    except TimeoutError:
                        continue
        except OSError:
            stop.wait(0.05)


def _flood(port: int, message: bytes, stop: threading.Event, counts: list[int]) -> None:
    raw = spamd_request("CHECK", message)
    while not stop.is_set():
        try:
            reply = exchange(port, raw, HOSTILE_ADDRESS, timeout=30)
            counts.append(1 if reply.startswith(b"SPAMD/1.5 0 ") else 0)
        except OSError:
            counts.append(0)


def hostile_main(port: int, slow: int, idle: int, flood: int, message_file: str) -> None:
    """Run the hostile clients until stdin closes; print the flood's answered requests."""
    message = Path(message_file).read_bytes()
    stop = threading.Event()
    counts: list[int] = []
    threads = [threading.Thread(target=_slow_sender, args=(port, message[:2000], stop))
               for _ in range(slow)]  # fmt: skip
    threads += [threading.Thread(target=_idle, args=(port, stop)) for _ in range(idle)]
    threads += [threading.Thread(target=_flood, args=(port, message, stop, counts))
                for _ in range(flood)]  # fmt: skip
    for thread in threads:
        thread.daemon = True
        thread.start()
    print("started", flush=True)
    sys.stdin.read()
    stop.set()
    print(f"{sum(counts)} {len(counts)}", flush=True)
