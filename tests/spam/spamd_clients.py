"""A ``nbayes spam serve`` process, and well-behaved and hostile spamd clients on raw
sockets, for the server's tests and the benchmark (not a test module)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

#: A second loopback address (Linux answers the whole of 127.0.0.0/8): hostile clients
#: connect from it, so that they are another client than the well-behaved ones.
HOSTILE_ADDRESS = "127.0.0.2"


def request(method: str, body: bytes = b"", **headers: str) -> bytes:
    """A spamd request: ``METHOD SPAMC/1.5``, headers, Content-length, the message."""
    lines = [f"{method} SPAMC/1.5"] + [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    if method not in ("PING", "SKIP"):
        lines.append(f"Content-length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def connect(port: int, source: str = "127.0.0.1", timeout: float = 30.0) -> socket.socket:
    """A TCP connection to the server on 127.0.0.1:``port`` from ``source``."""
    where = ("127.0.0.1", port)
    return socket.create_connection(where, timeout=timeout, source_address=(source, 0))


def ask(port: int, raw: bytes, source: str = "127.0.0.1", timeout: float = 30.0) -> bytes:
    """Send ``raw`` and read the whole reply (until the server closes)."""
    with connect(port, source, timeout) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        return read_all(sock)


def read_all(sock: socket.socket) -> bytes:
    """Everything ``sock`` receives until it is closed (a reset ends it too)."""
    chunks = []
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes ``sock`` within ``within`` seconds (it sends nothing)."""
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def trickle(sock: socket.socket, data: bytes, every: float, until: float) -> None:
    """Send ``data`` a byte every ``every`` seconds until it is sent, the server closes
    the connection, or the monotonic clock passes ``until``."""
    for byte in data:
        if time.monotonic() > until:
            return
        try:
            sock.send(bytes([byte]))
        except OSError:
            return
        time.sleep(every)


NBAYES = str(Path(sys.executable).with_name("nbayes"))


def spamc_binary() -> str:
    found = shutil.which("spamc")
    if found is None:
        message = "spamc is not installed (apt-get install spamc)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


class Server:
    """A ``nbayes spam serve`` process; its TCP port and Unix socket once listening.
    ``db`` None: no ``--db`` (``args`` name the store: ``--redis URL``)."""

    def __init__(self, db: Path | None, sock: Path, *args: str) -> None:
        self.db, self.sock = db, sock
        store = [] if db is None else ["--db", str(db)]
        command = [NBAYES, "spam", "serve", *store, "--listen", "127.0.0.1:0"]
        self.process = subprocess.Popen(
            [*command, "--socket", str(sock), *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.log: list[str] = []
        self.reader = threading.Thread(target=self._read_log, daemon=True)
        self.reader.start()
        deadline = time.monotonic() + 60
        while sum("listening on" in line for line in self.log) < 2:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"serve did not start: {self.log}")
            time.sleep(0.02)
        line = next(line for line in self.log if "listening on 127.0.0.1:" in line)
        self.port = int(line.rsplit(":", 1)[1])

    def _read_log(self) -> None:
        for line in self.process.stderr:
            self.log.append(line.rstrip("\n"))

    def spamc(self, *args: str, message: bytes = b"", unix: bool = False):
        where = ["-U", str(self.sock)] if unix else ["-d", "127.0.0.1", "-p", str(self.port)]
        return subprocess.run(
            [spamc_binary(), *where, *args], input=message, capture_output=True, timeout=60,
            check=False,
        )  # fmt: skip

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(60)
        self.reader.join(10)
        return code
