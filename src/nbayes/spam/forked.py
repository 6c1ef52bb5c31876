"""Tokenizing windows of messages in forked children that share them with the caller.

A window is a list of messages already in the calling process's memory. ``jobs``
children are forked (``os.fork``) for it: they hold the window as it is, so no
message is shipped to them. The window's chunks (``chunk_size`` messages each,
numbered in input order) are claimed from a *ticket pipe*: the chunk numbers are
written into a pipe before the fork, and the children and the caller each read 4
bytes (one number) to take the lowest chunk no one has taken yet (a pipe read of 4
bytes is atomic, so no chunk is taken twice; an empty pipe means every chunk is
taken). A child appends each chunk's results to its own unlinked spool file (``os.pwrite``:
it never waits for the caller to read, as it would on a pipe once 64 KiB were
unread) and then sends a 24-byte notice (chunk, child, offset, length) down a pipe; once
no chunk is left it exits.

The caller yields the results in input order. While the next chunk's results are
not there it takes a chunk itself (the lowest not yet taken) and tokenizes it; only
when every chunk is taken does it wait for a notice. Once every chunk of a window is
taken, the next window is read and its children forked, so they keep tokenizing
while the caller's consumer works between items (a training batch's store writes,
a scoring batch's look-ups), as a pool's workers would. If a child dies, the chunks
it took and did not deliver are tokenized by the caller. Children ignore Ctrl-C
(the caller ends them) and end with their window, so a killed caller leaves no
process behind for longer than a window takes.

Against :class:`concurrent.futures.ProcessPoolExecutor` (which platforms without
``os.fork`` keep): no thread in the caller (on 605 SpamAssassin messages the caller
spent 253 ms of CPU with the executor, 208 ms here, the work shared alike), no
pickling of messages, and a fork costs the caller ~6 ms against ~20 ms for starting
a pool. What a fork costs besides: while a child lives, the caller's first write to
each page they share is a copy-on-write fault (~5,500 more minor faults, ~30 ms of
system time, for those 605 messages), which is why windows are long.
"""

from __future__ import annotations

import array
import fcntl
import gc
import os
import pickle
import select
import signal
import struct
import tempfile
import termios
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_TICKET = struct.Struct("<I")
_NOTICE = struct.Struct("<iiqq")  # chunk number, child (its spool), offset, length


def tokenize_windows(
    windows: Iterator[tuple[list[T], list[bytes]]],
    jobs: int,
    chunk_size: int,
    tokenize: Callable[[bytes], R],
    pack: Callable[[R], object],
    unpack: Callable[[object], R],
) -> Iterator[tuple[T, R]]:
    """``(item, tokenize(raw))`` for each item of each ``(items, raws)`` window, in order,
    tokenized by ``jobs`` forked children per window and this process (see the module
    docstring). A child sends ``pack(result)`` (picklable, cheaper to pickle than the
    result), turned back here by ``unpack``."""
    engine = _Engine(jobs, chunk_size, tokenize, pack, unpack)
    current = _next_window(windows, engine)
    following: _Window | None = None
    more = current is not None  # whether windows may follow

    def start_following() -> bool:
        nonlocal following, more
        if following is None and more and current.all_taken():
            following = _next_window(windows, engine)
            more = following is not None
            return more
        return False

    try:
        while current is not None:
            for k in range(current.n_chunks):
                while not current.has(k):
                    if current.claim_here() or (following and following.claim_here()):
                        continue
                    if not start_following():
                        current.wait(k)
                start_following()
                yield from current.take(k)
            current.close()
            if following is None and more:
                following = _next_window(windows, engine)
            current, following = following, None
            more = more and current is not None
    finally:
        for window in (current, following):
            if window is not None:
                window.close()


class _Engine(Generic[R]):
    """What every window of one run shares: children per window, chunk size, and the
    tokenize / pack / unpack functions of :func:`tokenize_windows`."""

    def __init__(
        self,
        jobs: int,
        chunk_size: int,
        tokenize: Callable[[bytes], R],
        pack: Callable[[R], object],
        unpack: Callable[[object], R],
    ) -> None:
        self.jobs, self.chunk_size = jobs, chunk_size
        self.tokenize, self.pack, self.unpack = tokenize, pack, unpack


def _next_window(windows: Iterator, engine: _Engine) -> _Window | None:
    window = next(windows, None)
    return None if window is None or not window[0] else _Window(*window, engine)


class _Window(Generic[T, R]):
    """One window's children, pipes and spool, and the results gathered so far."""

    def __init__(self, items: list[T], raws: list[bytes], engine: _Engine) -> None:
        self.items, self.raws, self.engine = items, raws, engine
        size = engine.chunk_size
        self.n_chunks = -(-len(items) // size)
        self.ready: dict[int, list] = {}  # chunk number: its results
        self.from_child: set[int] = set()  # those still packed by a child
        self.children: list[int] = []
        self.open = True  # whether a child may still send a notice
        self.spools = [tempfile.TemporaryFile() for _ in range(engine.jobs)]
        self.fds: list[int] = []
        self.tickets, tickets_w = self._pipe()
        self.notices, notices_w = self._pipe()
        self.poller = select.poll()  # not select.select: no limit on descriptor numbers
        self.poller.register(self.notices, select.POLLIN)
        # at most 64 KiB, a pipe's buffer on Linux, so this never waits: 16,384 chunks
        # (the windows of nbayes.spam.parallel hold at most 4,096 messages)
        os.write(tickets_w, b"".join(_TICKET.pack(k) for k in range(self.n_chunks)))
        self._close(tickets_w)
        os.set_blocking(self.tickets, False)
        try:
            for child in range(engine.jobs):
                pid = os.fork()
                if pid == 0:  # the child: never returns
                    _child(self, child, notices_w)
                self.children.append(pid)
        except BaseException:
            self.close()
            raise
        self._close(notices_w)

    def _pipe(self) -> tuple[int, int]:
        r, w = os.pipe()
        self.fds += [r, w]
        return r, w

    def _close(self, fd: int) -> None:
        os.close(fd)
        self.fds.remove(fd)

    def chunk(self, k: int) -> list[bytes]:
        size = self.engine.chunk_size
        return self.raws[k * size : (k + 1) * size]

    def has(self, k: int) -> bool:
        """Whether chunk k's results are here, reading the notices that have come."""
        if k not in self.ready and self.open and self.poller.poll(0):
            self._read_notices()
        return k in self.ready

    def claim_here(self) -> bool:
        """Take the lowest chunk no one has taken and tokenize it here; False if none."""
        k = _claim(self.tickets)
        if k is None:
            return False
        self.ready[k] = [self.engine.tokenize(raw) for raw in self.chunk(k)]
        return True

    def all_taken(self) -> bool:
        """Whether every chunk is taken (the ticket pipe is empty)."""
        unread = array.array("i", [0])
        fcntl.ioctl(self.tickets, termios.FIONREAD, unread)
        return unread[0] == 0

    def wait(self, k: int) -> None:
        """Wait for a child's notice; tokenize chunk k here if every child is gone."""
        if self.open:
            self._read_notices()
        if not self.open and k not in self.ready:  # taken by a child that died
            self.ready[k] = [self.engine.tokenize(raw) for raw in self.chunk(k)]

    def _read_notices(self) -> None:
        data = os.read(self.notices, 64 * _NOTICE.size)  # notices are written whole
        if not data:
            self.open = False
        for k, child, offset, length in _NOTICE.iter_unpack(data):
            self.ready[k] = pickle.loads(os.pread(self.spools[child].fileno(), length, offset))
            self.from_child.add(k)

    def take(self, k: int) -> Iterator[tuple[T, R]]:
        """Chunk k's (item, result) pairs, its results dropped from here."""
        size = self.engine.chunk_size
        items, results = self.items[k * size : (k + 1) * size], self.ready.pop(k)
        if k in self.from_child:
            results = map(self.engine.unpack, results)
        return zip(items, results, strict=True)

    def close(self) -> None:
        """End the children (those still running are killed), close pipes and spool."""
        for pid in self.children:
            try:
                os.kill(pid, signal.SIGKILL)  # a child that has exited is a zombie till here
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
        self.children = []
        for fd in list(self.fds):
            self._close(fd)
        for spool in self.spools:
            spool.close()


def _claim(tickets: int) -> int | None:
    """The lowest chunk number not taken yet, or None if all are taken."""
    try:
        ticket = os.read(tickets, _TICKET.size)
    except BlockingIOError:
        return None
    return _TICKET.unpack(ticket)[0] if ticket else None


def _child(window: _Window, child: int, notices: int) -> None:
    """A forked child's whole life: claim, tokenize, spool, notify; then ``os._exit``
    (no clean-up of the caller's objects, no flushing of its buffers)."""
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        gc.freeze()  # the caller's objects: never walked here, so their pages stay shared
        spool, offset = window.spools[child].fileno(), 0
        engine = window.engine
        while (k := _claim(window.tickets)) is not None:
            results = [engine.pack(engine.tokenize(raw)) for raw in window.chunk(k)]
            payload = pickle.dumps(results, pickle.HIGHEST_PROTOCOL)
            written = 0
            while written < len(payload):
                written += os.pwrite(spool, payload[written:], offset + written)
            os.write(notices, _NOTICE.pack(k, child, offset, len(payload)))
            offset += len(payload)
        status = 0
    finally:
        os._exit(status)
