"""``nbayes spam serve``: the spamd protocol (:mod:`nbayes.spam.spamd`) on TCP and Unix
sockets, so ``spamc`` and every mail setup built for SpamAssassin's spamd use nbayes.

Built so that no client, however slow or hostile, stops it answering the others:

- One thread reads every request and writes every reply without blocking (a
  ``selectors`` loop), so a client sending a byte a second, or reading its reply a byte
  a second, holds no thread. Each request must arrive whole (head and body) within
  ``timeout`` seconds of its connection, and its reply must be taken within ``timeout``
  seconds of being ready; past either deadline the connection is closed.
- Requests read whole wait in a queue for a pool of ``workers`` threads that score
  them; the queue is shared fairly by client (the address of a TCP client, the user
  of a Unix one), by the bytes of mail each has had scored (:class:`_FairQueue`), so
  a client flooding the server delays mostly itself. ``PING`` is
  answered at once, without the queue. A request not taken by a worker within
  ``timeout`` seconds is answered EX_TEMPFAIL (``spamc`` then passes the mail on).
- At most ``max_connections`` connections are open, ``max_per_client`` from one
  client; the listen backlog is ``max_connections``. A connection over either cap
  closes the other side's idlest connection still sending its request (one that has
  sent nothing first, then the oldest); where there is none it is answered EX_TEMPFAIL
  and closed at once.
- Messages over ``max_size`` bytes are answered EX_DATAERR without being read
  (``spamc`` passes them on unchanged, as it does mail over its own ``-s``).

Requests read the database through a pool of read-only stores, one per worker, reused;
TELL writes through one writable store, one request at a time. Since the stores are
SQLite in WAL mode, training elsewhere (``nbayes spam train``) may run while the
server answers, and answers see each committed batch.

SIGTERM and SIGINT stop it within ``STOP_GRACE`` seconds whatever the clients do: no
new connection is taken, connections still sending their request and requests not yet
begun are closed (their ``spamc`` passes the mail on), requests being scored are
answered if they finish in time, the Unix socket files are removed. SIGHUP closes the
pooled stores, so a database file replaced under the server (a restored backup) is
opened afresh.
"""

from __future__ import annotations

import contextlib
import errno
import os
import selectors
import signal
import socket
import stat
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nbayes.core.atomic import naming
from nbayes.spam.limits import DEFAULT_MAX_SIZE
from nbayes.spam.spamd import (
    EX_TEMPFAIL,
    Filter,
    ProtocolError,
    Request,
    RequestReader,
    response,
    status_of,
    unpack_body,
)

if TYPE_CHECKING:
    from nbayes.spam.store_protocol import Store

DEFAULT_PORT = 783  # spamd's
#: Seconds a stopping server gives requests being scored to finish and be sent.
STOP_GRACE = 3.0
_READ_CHUNK = 65536
#: What a request costs in :class:`_FairQueue` over its message's bytes.
_REQUEST_COST = 4096
_BUSY = response(EX_TEMPFAIL)


@dataclass(frozen=True)
class Limits:
    """The server's limits (see the module docstring): seconds for a whole request and
    for its reply, bytes a message, scoring threads, connections open at once, and
    from one client."""

    timeout: float = 30.0
    max_size: int = DEFAULT_MAX_SIZE
    workers: int = 8
    max_connections: int = 512
    max_per_client: int = 256

    def __post_init__(self) -> None:
        if not 0 < self.timeout < float("inf"):
            raise ValueError(f"timeout must be a finite number of seconds > 0, got {self.timeout}")
        for name in ("max_size", "workers", "max_connections", "max_per_client"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")


class StorePool:
    """Read-only stores for requests in flight, and one writable store for TELL.

    ``opener(readonly=..., create=..., user=...)`` opens a store
    (:func:`nbayes.spam.stores.open_store` bound to a SQLite path or a Redis URL). The
    shared store's readers are pooled; a user's store (``reader(user)``,
    ``writer(user)``: ``serve --per-user``) is opened for the request and closed after
    it, so thousands of users hold no open files between their mails."""

    def __init__(self, opener: Callable[..., Store], writable: bool) -> None:
        self.opener = opener
        self._idle: list[Store] = []
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._writer = opener(readonly=False, create=True) if writable else None
        if self._writer is None:  # check the database now: a bad path fails at start
            self._idle.append(self._open())

    def _open(self) -> Store:
        return self.opener(readonly=True, create=False)

    @contextlib.contextmanager
    def reader(self, user: str | None = None) -> Iterator[Store]:
        if user is not None:
            with self.opener(readonly=True, create=False, user=user) as store:
                yield store
            return
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
    def writer(self, user: str | None = None) -> Iterator[Store]:
        with self._write_lock:
            if user is None:
                yield self._writer
                return
            with self.opener(readonly=False, create=True, user=user) as store:
                yield store

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
    if not colon or not (port.isascii() and port.isdigit()) or not 0 <= int(port) < 65536:
        raise ValueError(f"--listen wants HOST:PORT, got {address!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return ("" if host == "*" else host), int(port)


# The states of a connection, in order (DRAINING: answered before its request was read
# whole, it reads and drops the rest a moment, so that closing it does not reset the
# connection before the client has read the answer).
READING, QUEUED, WORKING, WRITING, DRAINING = "reading", "queued", "working", "writing", "draining"
#: Seconds a connection answered early may go on sending before it is closed.
_DRAIN_SECONDS = 1.0


@dataclass(eq=False)
class _Connection:
    """One client connection and where its request stands."""

    sock: socket.socket
    client: str  # whom the per-client cap and the queue's turns count by
    opened: float
    deadline: float
    state: str = READING
    watching: int = 0  # the selector events registered for it (0: none)
    heard: bool = False  # whether it has sent anything
    reader: RequestReader = field(default_factory=lambda: RequestReader(DEFAULT_MAX_SIZE))
    request: Request | None = None
    reply: memoryview | None = None
    sent: int = 0
    early: bool = False  # answered before its request was read whole
    method: str = "?"
    started: float = 0.0  # perf_counter at the request's first byte, for the log


class _FairQueue:
    """Requests waiting for a worker, shared fairly by client: by the bytes of mail each
    has had scored (start-time fair queueing), so a client sending large messages
    back to back gets no more of the workers' time than one sending small ones.

    Each client has a virtual clock, the bytes it has had served (plus
    :data:`_REQUEST_COST` a request); the next request is the oldest of the client
    whose clock is least, and a client that was waiting for nothing starts at the
    clock of the last request taken, so that it gains no credit by being idle."""

    def __init__(self) -> None:
        self._by_client: dict[str, deque[_Connection]] = {}
        self._served: dict[str, float] = {}
        self._clock = 0.0
        self._ready = threading.Condition()
        self._closed = False
        self.size = 0

    def put(self, connection: _Connection) -> None:
        with self._ready:
            client = connection.client
            if client not in self._by_client:
                self._served[client] = max(self._served.get(client, 0.0), self._clock)
            self._by_client.setdefault(client, deque()).append(connection)
            self.size += 1
            self._ready.notify()

    def take(self) -> _Connection | None:
        """The next request, or None once closed."""
        with self._ready:
            while not self._by_client and not self._closed:
                self._ready.wait()
            if self._closed:
                return None
            client = min(self._by_client, key=self._served.__getitem__)
            waiting = self._by_client[client]
            connection = waiting.popleft()
            if not waiting:
                del self._by_client[client]
            self._clock = self._served[client]
            self._served[client] += len(connection.request.body) + _REQUEST_COST
            if len(self._served) > 2 * len(self._by_client) + 64:  # forget the idle
                self._served = {
                    c: t for c, t in self._served.items() if c in self._by_client or t > self._clock
                }
            self.size -= 1
            connection.state = WORKING
            return connection

    def remove(self, connection: _Connection) -> bool:
        """Take ``connection`` out if it is still waiting (False: a worker has it)."""
        with self._ready:
            waiting = self._by_client.get(connection.client)
            if waiting is None or connection not in waiting:
                return False
            waiting.remove(connection)
            if not waiting:
                del self._by_client[connection.client]
            self.size -= 1
            return True

    def close(self) -> list[_Connection]:
        """Stop the workers; the requests still waiting."""
        with self._ready:
            self._closed = True
            left = [c for waiting in self._by_client.values() for c in waiting]
            self._by_client.clear()
            self.size = 0
            self._ready.notify_all()
        return left


class _Server:
    """The event loop: listeners, connections, the queue and the workers."""

    def __init__(
        self, filter_: Filter, listeners: list[socket.socket], limits: Limits,
        log: Callable[[str], None], verbose: bool,
    ) -> None:  # fmt: skip
        self.filter, self.limits, self.log, self.verbose = filter_, limits, log, verbose
        self.listeners = listeners
        self.selector = selectors.DefaultSelector()
        self.connections: dict[socket.socket, _Connection] = {}
        self.per_client: dict[str, int] = {}
        self.queue = _FairQueue()
        self.done: deque[tuple[_Connection, bytes]] = deque()  # replies from the workers
        self.wake_reader, self.wake_writer = socket.socketpair()
        self.wake_reader.setblocking(False)
        self.wake_writer.setblocking(False)
        self.stopping = False
        for listener in listeners:
            listener.setblocking(False)
            self.selector.register(listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_reader, selectors.EVENT_READ, "wake")
        self.workers = [
            threading.Thread(target=self._work, name=f"spamd-worker-{i}", daemon=True)
            for i in range(limits.workers)
        ]
        for worker in self.workers:
            worker.start()

    def wake(self) -> None:
        """Interrupt the loop's wait (from a worker or a signal handler)."""
        with contextlib.suppress(OSError):
            self.wake_writer.send(b"\0")

    # -- the loop --------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Serve until ``stop`` is set, then stop within :data:`STOP_GRACE` seconds."""
        grace_end = None
        while True:
            if stop.is_set() and grace_end is None:
                grace_end = time.monotonic() + STOP_GRACE
                self._begin_stop()
            if grace_end is not None and (not self.connections or time.monotonic() >= grace_end):
                break
            timeout = self._next_deadline() - time.monotonic()
            if grace_end is not None:
                timeout = min(timeout, grace_end - time.monotonic())
            for key, events in self.selector.select(max(0.0, min(timeout, 0.5))):
                if key.data == "accept":
                    self._accept(key.fileobj)
                elif key.data == "wake":
                    with contextlib.suppress(OSError):
                        key.fileobj.recv(4096)
                else:
                    connection = key.data
                    if events & selectors.EVENT_READ and connection.state in (READING, DRAINING):
                        self._read(connection)
                    if events & selectors.EVENT_WRITE and connection.state == WRITING:
                        self._write(connection)
            self._take_replies()
            self._expire()
        for connection in list(self.connections.values()):
            self._close(connection)
        self.queue.close()
        self.selector.close()
        self.wake_reader.close()
        self.wake_writer.close()

    def _next_deadline(self) -> float:
        return min((c.deadline for c in self.connections.values()), default=time.monotonic() + 1)

    def _begin_stop(self) -> None:
        self.stopping = True
        for listener in self.listeners:
            self.selector.unregister(listener)
        for connection in self.queue.close():
            self._close(connection)
        for connection in list(self.connections.values()):
            if connection.state == READING:
                self._close(connection)

    def _expire(self) -> None:
        now = time.monotonic()
        for connection in [c for c in self.connections.values() if c.deadline <= now]:
            if connection.state == QUEUED and self.queue.remove(connection):
                self._log_error(connection.method, "no worker free in time: EX_TEMPFAIL")
                self._send(connection, _BUSY)
            elif connection.state != WORKING:  # a worker's request ends as it may
                if self.verbose:
                    self.log(f"{connection.method}: closed: {connection.state} past --timeout")
                self._close(connection)

    # -- connections -----------------------------------------------------------------

    def _accept(self, listener: socket.socket) -> None:
        for _ in range(64):  # a burst at a time, then the others' turn
            try:
                sock, address = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # out of file descriptors: those open are served
                if error.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self._log_error("accept", os.strerror(error.errno))
                    return
                continue  # the client went away before it was taken
            sock.setblocking(False)
            if sock.family != socket.AF_UNIX:  # one reply, sent at once
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            now = time.monotonic()
            connection = _Connection(
                sock, _client(sock, address), now, now + self.limits.timeout,
                reader=RequestReader(self.limits.max_size),
            )  # fmt: skip
            if not self._make_room(connection.client):
                if self.verbose:
                    self.log(f"connection from {connection.client} refused: at the connection cap")
                with contextlib.suppress(OSError):
                    sock.send(_BUSY)
                _hang_up(sock)
                continue
            self.connections[sock] = connection
            self.per_client[connection.client] = self.per_client.get(connection.client, 0) + 1
            self._watch(connection, selectors.EVENT_READ)

    def _make_room(self, client: str) -> bool:
        """Whether one more connection from ``client`` fits the caps, after closing the
        idlest connection still sending its request where one is needed."""
        for over, among in (
            (self.per_client.get(client, 0) >= self.limits.max_per_client, client),
            (len(self.connections) >= self.limits.max_connections, None),
        ):
            if not over:
                continue
            reading = [
                c for c in self.connections.values()
                if c.state == READING and (among is None or c.client == among)
            ]  # fmt: skip
            if not reading:
                return False
            idlest = min(reading, key=lambda c: (c.heard, c.opened))
            if self.verbose:
                self.log(f"connection from {idlest.client} closed for a new one (at the cap)")
            self._close(idlest)
        return True

    def _close(self, connection: _Connection) -> None:
        if self.connections.pop(connection.sock, None) is None:
            return
        if connection.state == QUEUED:
            self.queue.remove(connection)
        self._watch(connection, 0)
        left = self.per_client[connection.client] - 1
        if left:
            self.per_client[connection.client] = left
        else:
            del self.per_client[connection.client]
        _hang_up(connection.sock)

    def _watch(self, connection: _Connection, events: int) -> None:
        """Have the selector report ``events`` of ``connection`` (0: none; a queued
        request is not watched, or a client closing its side would wake the loop
        without end)."""
        if events == connection.watching:
            return
        if not connection.watching:
            self.selector.register(connection.sock, events, connection)
        elif not events:
            self.selector.unregister(connection.sock)
        else:
            self.selector.modify(connection.sock, events, connection)
        connection.watching = events

    # -- reading requests ------------------------------------------------------------

    def _read(self, connection: _Connection) -> None:
        try:
            chunk = connection.sock.recv(_READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(connection)
            return
        if connection.state == DRAINING:
            if not chunk:
                self._close(connection)
            return
        if not connection.heard:
            connection.heard, connection.started = True, time.perf_counter()
        try:
            request = connection.reader.feed(chunk)
            if request is not None:
                connection.method = request.method
        except ProtocolError as error:
            self._log_error(connection.method, str(error))
            self._send(connection, response(status_of(error)), early=True)
            return
        if request is None:
            if not chunk:  # the client closed before sending a whole request
                self._close(connection)
            return
        if request.method == "SKIP":
            self._close(connection)
        elif request.method == "PING":  # answered at once, never queued
            connection.request = request
            self._send(connection, self.filter.answer(request))
        else:
            connection.state, connection.request = QUEUED, request
            connection.deadline = time.monotonic() + self.limits.timeout
            self._watch(connection, 0)
            self.queue.put(connection)

    # -- answering ---------------------------------------------------------------------

    def _work(self) -> None:
        """A worker: score requests from the queue, hand the replies to the loop."""
        while (connection := self.queue.take()) is not None:
            request = connection.request
            try:
                request.body = unpack_body(request, self.limits.max_size)
                reply = self.filter.answer(request)
            except Exception as error:  # one request fails, never the server
                self._log_error(request.method, " ".join(str(error).split()))
                reply = response(status_of(error))
            self.done.append((connection, reply))
            self.wake()

    def _take_replies(self) -> None:
        while self.done:
            connection, reply = self.done.popleft()
            if connection.sock in self.connections:
                self._send(connection, reply)

    def _send(self, connection: _Connection, reply: bytes, early: bool = False) -> None:
        """Send ``reply``; ``early``: before the request was read whole (the rest of it
        is then read and dropped a moment before the close: see DRAINING)."""
        connection.early = early
        connection.state, connection.reply, connection.sent = WRITING, memoryview(reply), 0
        connection.deadline = time.monotonic() + self.limits.timeout
        self._watch(connection, selectors.EVENT_WRITE)
        self._write(connection)

    def _write(self, connection: _Connection) -> None:
        try:
            connection.sent += connection.sock.send(connection.reply[connection.sent :])
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(connection)
            return
        if connection.sent < len(connection.reply):
            return
        if self.verbose and connection.request is not None:
            reply = bytes(connection.reply[:4096])
            status = reply.split(b"\r\n", 1)[0].decode("latin-1", "replace")
            elapsed = 1000 * (time.perf_counter() - connection.started)
            self.log(f"{connection.method} {status} {_spam_header(reply)} {elapsed:.1f} ms")
        if connection.early and not self.stopping:
            with contextlib.suppress(OSError):
                connection.sock.shutdown(socket.SHUT_WR)
            connection.state = DRAINING
            connection.deadline = time.monotonic() + min(_DRAIN_SECONDS, self.limits.timeout)
            self._watch(connection, selectors.EVENT_READ)
            return
        self._close(connection)

    def _log_error(self, method: str, text: str) -> None:
        self.log(f"{method}: error: {text}"[:500])


def _client(sock: socket.socket, address) -> str:
    """Whom a connection counts against: a TCP client's address, a Unix client's user."""
    if sock.family == socket.AF_UNIX:
        if hasattr(socket, "SO_PEERCRED"):
            with contextlib.suppress(OSError):
                credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
                return f"uid {struct.unpack('3i', credentials)[1]}"
        return "unix"
    return str(address[0])


def _hang_up(sock: socket.socket) -> None:
    """Close ``sock`` (our reply, if any, is sent first: SHUT_WR before the close)."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_WR)
    sock.close()


def _spam_header(reply: bytes) -> str:
    head = reply.split(b"\r\n\r\n", 1)[0]
    for line in head.split(b"\r\n")[1:]:
        if line.startswith(b"Spam: "):
            return line[6:].decode("latin-1")
    return ""


def _tcp(host: str, port: int, backlog: int) -> socket.socket:
    """A TCP socket listening on (host, port), IPv4 or IPv6 as the host resolves."""
    family = socket.AF_INET
    if host:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    return socket.create_server((host, port), family=family, backlog=backlog)


def _unix(path: Path, mode: int | None, backlog: int) -> socket.socket:
    """A Unix socket listening at ``path``; a stale socket file (nothing listening) is
    replaced, a live one is an error, anything else at the path is never touched."""
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
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(path))
        if mode is not None:
            os.chmod(path, mode)
        listener.listen(backlog)
    except BaseException:
        listener.close()
        raise
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
    listeners: list[socket.socket] = []
    unix_paths: list[Path] = []
    try:
        for host, port in listen:
            with _naming(f"{host}:{port}"):
                listeners.append(_tcp(host, port, limits.max_connections))
        for path in sockets:
            with _naming(str(path)):
                listeners.append(_unix(path, socket_mode, limits.max_connections))
            unix_paths.append(path)
        server = _Server(filter_, listeners, limits, log, verbose)
        stop = threading.Event()

        def on_stop(*_) -> None:
            stop.set()
            server.wake()

        previous = {
            signum: signal.signal(signum, on_stop) for signum in (signal.SIGTERM, signal.SIGINT)
        }
        if on_hangup is not None and hasattr(signal, "SIGHUP"):
            previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, lambda *_: on_hangup())
        try:
            for listener in listeners:
                log(f"listening on {_where(listener)}")
            server.run(stop)
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
    finally:
        for listener in listeners:
            listener.close()
        for path in unix_paths:
            with contextlib.suppress(OSError):
                os.unlink(path)


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


def _where(listener: socket.socket) -> str:
    if listener.family == socket.AF_UNIX:
        return str(listener.getsockname())
    host, port = listener.getsockname()[:2]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _stderr(line: str) -> None:
    print(f"nbayes spam serve: {line}", file=sys.stderr, flush=True)
