"""A real ``redis-server`` for the tests (Debian package ``redis-server``; CI installs
it): started on a free loopback TCP port, no Unix socket, its files in a temporary
folder, killed at teardown (not a test module)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest


def require_redis() -> str:
    """The ``redis-server`` binary and the ``redis`` client: skipped where missing, a
    failure under CI."""
    found = shutil.which("redis-server")
    missing = None
    if found is None:
        missing = "redis-server is not installed (apt-get install redis-server)"
    else:
        try:
            import redis  # noqa: F401
        except ImportError:
            missing = "the redis client is not installed (pip install 'nbayes[redis]')"
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(missing)
        pytest.skip(missing)
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """One ``redis-server`` process; :attr:`url` names database 0 on it."""

    def __init__(self, folder: Path) -> None:
        binary = require_redis()
        folder.mkdir(parents=True, exist_ok=True)
        for _ in range(5):  # another process may take the free port first
            self.port = free_port()
            self.process = subprocess.Popen(
                [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(folder),
                 "--save", "", "--appendonly", "no", "--unixsocket", "",
                 "--protected-mode", "yes", "--logfile", str(folder / "redis.log")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            if self._ready():
                return
            self.stop()
        raise RuntimeError(f"redis-server did not start: {(folder / 'redis.log').read_text()}")

    def _ready(self) -> bool:
        import redis

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                if redis.Redis(port=self.port, socket_timeout=1).ping():
                    return True
            except redis.exceptions.ConnectionError:
                time.sleep(0.02)
        return False

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def client(self, db: int = 0):
        import redis

        return redis.Redis(port=self.port, db=db)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(30)
