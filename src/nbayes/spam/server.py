"""``nbayes spam serve``: the spamd protocol (:mod:`nbayes.spam.spamd`) on TCP and Unix
sockets, so ``spamc`` and every mail setup built for SpamAssassin's spamd use nbayes.

Each connection is one request, answered in a thread of its own; at most
``max_connections`` are answered at once (the others wait in the listen queue), each
socket read and write times out after ``timeout`` seconds, and messages over
``max_size`` bytes are refused. Requests read the database through a pool of read-only
stores, one per request in flight, reused (opening one costs about a millisecond);
TELL writes through one writable store, one request at a time. Since the stores
are SQLite in WAL mode, training elsewhere (``nbayes spam train``) may run while the
server answers, and answers see each committed batch.

SIGTERM and SIGINT stop it: no new connection is taken, requests in flight are
answered, the Unix socket file is removed. SIGHUP closes the pooled stores, so a
database file replaced under the server (a restored backup) is opened afresh.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import socketserver
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from nbayes.files.atomic import naming
from nbayes.spam.spamd import Filter, read_request, response, status_of
from nbayes.spam.store import TokenStore

DEFAULT_PORT = 783  # spamd's


@dataclass(frozen=True)
class Limits:
    """Per-connection limits: requests answered at once, seconds per socket read or
    write, bytes per message."""

    max_connections: int = 16
    timeout: float = 30.0
    max_size: int = 64 * 2**20


class StorePool:
    """Read-only stores for requests in flight, and one writable store for TELL."""

    def __init__(self, path: Path, lock_timeout: float, writable: bool) -> None:
        self.path, self.lock_timeout = path, lock_timeout
        self._idle: list[TokenStore] = []
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._writer = TokenStore(path, timeout=lock_timeout) if writable else None
        if self._writer is None:  # check the database now: a bad path fails at start
            self._idle.append(self._open())

    def _open(self) -> TokenStore:
        return TokenStore(self.path, timeout=self.lock_timeout, readonly=True)

    @contextlib.contextmanager
    def reader(self) -> Iterator[TokenStore]:
        with self._lock:
            store = self._idle.pop() if self._idle else None
        store = store or self._open()
        try:
            yield store
        except BaseException:
            store.close()  # it may be in a bad state: never reused
            raise
        with self._lock:
            self._idle.append(store)

    @contextlib.contextmanager
    def writer(self) -> Iterator[TokenStore]:
        with self._write_lock:
            yield self._writer

    def reset(self) -> None:
        """Close the idle read-only stores (new ones open the file afresh)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for store in idle:
            store.close()

    def close(self) -> None:
        self.reset()
        if self._writer is not None:
            self._writer.close()


def parse_listen(address: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[IPv6]:PORT``; an empty host or ``*``: every interface) as
    (host, port); ValueError naming the problem."""
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"--listen wants HOST:PORT, got {address!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return ("" if host == "*" else host), int(port)


class _Handler(socketserver.StreamRequestHandler):
    server: _Listener

    def setup(self) -> None:
        self.request.settimeout(self.server.limits.timeout)
        if self.request.family != socket.AF_UNIX:  # one reply, sent at once
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().setup()

    def handle(self) -> None:
        started = time.perf_counter()
        method = "?"
        try:
            with self.server.reading(self.request):
                request = read_request(self.rfile, self.server.limits.max_size)
            if request is None or request.method == "SKIP":
                return
            method = request.method
            reply = self.server.filter.answer(request)
        except (TimeoutError, ConnectionError):
            return  # the client went away or stalled: nothing to answer
        except Exception as error:  # one request fails, never the server
            self.server.log(f"{method}: error: {' '.join(str(error).split())}")
            reply = response(status_of(error))
        try:
            self.wfile.write(reply)
            self.wfile.flush()
        except (TimeoutError, ConnectionError):
            return
        if self.server.verbose:
            status = reply.split(b"\r\n", 1)[0].decode("latin-1", "replace")
            spam = _spam_header(reply)
            elapsed = 1000 * (time.perf_counter() - started)
            self.server.log(f"{method} {status} {spam} {elapsed:.1f} ms")


def _spam_header(reply: bytes) -> str:
    head = reply.split(b"\r\n\r\n", 1)[0]
    for line in head.split(b"\r\n")[1:]:
        if line.startswith(b"Spam: "):
            return line[6:].decode("latin-1")
    return ""


class _Listener(socketserver.ThreadingMixIn, socketserver.BaseServer):
    """What the TCP and Unix servers share: the filter, the limits, at most
    ``max_connections`` handler threads, each joined on close."""

    daemon_threads = False
    block_on_close = True
    filter: Filter
    limits: Limits
    log: Callable[[str], None]
    verbose: bool

    def configure(self, filter_: Filter, limits: Limits, log, verbose: bool) -> None:
        self.filter, self.limits, self.log, self.verbose = filter_, limits, log, verbose
        self.slots = threading.BoundedSemaphore(limits.max_connections)
        self._readers: set[socket.socket] = set()
        self._readers_lock = threading.Lock()
        self._stopping = False

    @contextlib.contextmanager
    def reading(self, connection: socket.socket) -> Iterator[None]:
        """Mark ``connection`` as waiting for its request while inside."""
        with self._readers_lock:
            if self._stopping:  # accepted as the server stopped: nothing is read
                connection.shutdown(socket.SHUT_RD)
            self._readers.add(connection)
        try:
            yield
        finally:
            with self._readers_lock:
                self._readers.discard(connection)

    def stop_reading(self) -> None:
        """End the connections still waiting for their request (a client connected and
        silent would hold the shutdown for its whole timeout): each then reads the end
        of its input and closes. Requests already read are answered."""
        with self._readers_lock:
            self._stopping = True
            for connection in self._readers:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RD)

    def process_request(self, request, client_address) -> None:
        self.slots.acquire()  # at capacity, the next connection waits in the listen queue
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class _TCPListener(_Listener, socketserver.TCPServer):
    allow_reuse_address = True


class _UnixListener(_Listener, socketserver.UnixStreamServer):
    pass


def _tcp(host: str, port: int) -> _TCPListener:
    """A TCP listener on (host, port), IPv4 or IPv6 as the host resolves."""
    family = socket.AF_INET
    if host:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    listener_class = type("_TCPListener", (_TCPListener,), {"address_family": family})
    return listener_class((host, port), _Handler)


def _unix(path: Path, mode: int | None) -> _UnixListener:
    """A Unix socket at ``path``; a stale socket file (nothing listening) is replaced,
    a live one is an error, anything else at the path is never touched."""
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise OSError(f"{path} exists and is not a socket")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
        except ConnectionRefusedError:
            path.unlink()
        else:
            raise OSError(f"{path}: a server is already listening there")
        finally:
            probe.close()
    listener = _UnixListener(str(path), _Handler)
    if mode is not None:
        os.chmod(path, mode)
    return listener


def serve(
    filter_: Filter,
    *,
    listen: list[tuple[str, int]],
    sockets: list[Path],
    socket_mode: int | None = None,
    limits: Limits = Limits(),
    verbose: bool = False,
    log: Callable[[str], None] | None = None,
    on_hangup: Callable[[], None] | None = None,
) -> None:
    """Answer spamd requests on every address until SIGTERM or SIGINT (call from the
    main thread). Once listening, one line per address goes to ``log``:
    ``listening on HOST:PORT`` or ``listening on PATH``."""
    log = log or _stderr
    listeners: list[_Listener] = []
    try:
        for host, port in listen:
            with _naming(f"{host}:{port}"):
                listeners.append(_tcp(host, port))
        for path in sockets:
            with _naming(str(path)):
                listeners.append(_unix(path, socket_mode))
        for listener in listeners:
            listener.configure(filter_, limits, log, verbose)
        stop = threading.Event()
        previous = {
            signum: signal.signal(signum, lambda *_: stop.set())
            for signum in (signal.SIGTERM, signal.SIGINT)
        }
        if on_hangup is not None and hasattr(signal, "SIGHUP"):
            previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, lambda *_: on_hangup())
        threads = [
            threading.Thread(target=listener.serve_forever, kwargs={"poll_interval": 0.2})
            for listener in listeners
        ]
        for thread in threads:
            thread.start()
        for listener in listeners:
            log(f"listening on {_where(listener)}")
        try:
            while not stop.wait(1.0):
                pass
        finally:
            for listener in listeners:
                listener.shutdown()
                listener.stop_reading()
            for thread in threads:
                thread.join()
            for listener in listeners:
                listener.server_close()  # waits for the requests in flight
            for signum, handler in previous.items():  # only now: a second signal meanwhile
                signal.signal(signum, handler)  # sets the stop event again, harmlessly
    finally:
        for listener in listeners:
            try:
                listener.server_close()  # at once if done above
            finally:
                if isinstance(listener, _UnixListener):
                    with contextlib.suppress(OSError):
                        os.unlink(listener.server_address)


@contextlib.contextmanager
def _naming(address: str) -> Iterator[None]:
    """An OSError raised inside comes out naming ``address`` (its ``filename``): a port
    in use, a host that does not resolve, a socket folder that does not exist."""
    try:
        yield
    except OSError as error:
        if error.filename is not None:
            raise
        raise naming(error, address) from error


def _where(listener: _Listener) -> str:
    if isinstance(listener, _UnixListener):
        return str(listener.server_address)
    host, port = listener.server_address[:2]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _stderr(line: str) -> None:
    print(f"nbayes spam serve: {line}", file=sys.stderr, flush=True)
