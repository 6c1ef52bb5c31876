"""Parsing and tokenizing mail in worker processes, for the batch commands.

Reading MIME and tokenizing (pure Python, about 0.3-0.6 ms of CPU a SpamAssassin
message) is most of the filter's work, and each message is independent of the
others, so :func:`tokenize_items` shares it with ``jobs`` worker processes while
the calling process keeps everything else: reading the sources, the SQLite store
(one writer, one transaction per batch, as before) and the scoring, which is why
the default is one worker fewer than the CPUs (on 2 CPUs: one worker tokenizing
while the parent writes or scores, the parent tokenizing too when it has nothing
else to do). Results come back in input order, each token set iterating in the
order a serial run's does (see :data:`Result`), so a parallel run trains, scores
and prints exactly what a serial one does, to the last bit.

The first ``2 * chunk_size`` messages are tokenized in the calling process, and
workers are started only if they took at least :data:`POOL_THRESHOLD` seconds of
CPU each (taking a worker's tokens back costs the caller about 0.05 ms a message,
more than tokenizing a short message, an SMS, does) and enough messages follow.

Where ``os.fork`` exists (:data:`os_fork_ok`), the workers are children forked for
each window of messages the caller has read (the first :data:`MAX_PENDING_MESSAGES`,
later ones :data:`LATER_WINDOW_FACTOR` times more, each at most
:data:`MAX_PENDING_BYTES` bytes): they share the window with it, claim its chunks of
``chunk_size`` messages from a pipe, and the caller takes chunks too whenever the
next results are not there (:mod:`nbayes.spam.forked`). Starting them costs a fork
(~6 ms), so :data:`POOL_MIN_AHEAD` messages suffice.

Elsewhere a :class:`concurrent.futures.ProcessPoolExecutor` is started, only where
:data:`EXECUTOR_MIN_AHEAD` messages follow (on 2 CPUs, tokenizing 605 SpamAssassin
messages took 230 ms with a worker against 210 ms without; 2,419 messages 868
against 893 ms: the executor's threads in the caller cost more than they saved).
Messages go to its workers in chunks, with at most :data:`MAX_PENDING_MESSAGES`
messages and :data:`MAX_PENDING_BYTES` bytes in flight (but at least ``2 * jobs``
chunks); while the oldest chunk is unfinished the caller takes the newest chunk no
worker has started (cancelling its Future) and tokenizes it itself. These workers
ignore SIGINT (the parent handles Ctrl-C) and exit when the parent dies, even by
SIGKILL; forked children do too, and end with their window.
"""

from __future__ import annotations

import functools
import gc
import itertools
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from concurrent.futures import Future, ProcessPoolExecutor
from operator import attrgetter
from typing import TypeVar

from nbayes.spam.parse import MailParseError
from nbayes.spam.tokens import DEFAULT_OPTIONS, TokenOptions, tokenize

T = TypeVar("T")
#: What tokenizing one message gives: its token set, or the error that made it unparseable.
#: A worker's token set comes back as the keys of a dict (set-like: ``==``, ``in``, ``&``
#: as a set's), in the order the worker's set iterated, which is the order the same set
#: made in this process iterates: a ``set`` rebuilt from them would iterate in another
#: order, and a message's Fisher sums (floating point) would change in their last bit.
#: (Workers that are not forked, on Windows, hash strings with another seed: there the
#: order, and so the last bit of a score, may differ from a serial run's.)
Result = AbstractSet[str] | MailParseError

CHUNK_SIZE = 16
#: Between an SMS (about 0.01 ms of CPU) and SpamAssassin mail (0.25-0.4 ms, the first
#: messages of a fold 0.24-0.36 ms): was 0.3 ms before the tokenizer got faster.
POOL_THRESHOLD = 1.5e-4
#: Messages that must follow the first ``2 * chunk_size`` for forked workers to start.
POOL_MIN_AHEAD = 64
#: The same for a process pool (platforms without ``os.fork``).
EXECUTOR_MIN_AHEAD = 1024
MAX_PENDING_MESSAGES = 1024
MAX_PENDING_BYTES = 64 * 2**20
#: Forked workers' windows after the first hold this many times more messages: each
#: fork makes the caller's next writes to its memory page faults (copy-on-write),
#: ~30 ms of system time for a SpamAssassin window, so fewer forks on long runs;
#: the first stays short, so the children start after little reading.
LATER_WINDOW_FACTOR = 4
_PARENT_POLL_SECONDS = 0.5
#: Whether workers are forked children sharing the caller's windows (:mod:`.forked`);
#: where ``os.fork`` is missing, a process pool is used.
os_fork_ok = hasattr(os, "fork")


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def resolve_jobs(jobs: int | None) -> int:
    """Worker processes: ``None`` means one fewer than the available CPUs (the calling
    process has work of its own); 0 means none, tokenizing in the calling process."""
    if jobs is None:
        return available_cpus() - 1
    if jobs < 0:
        raise ValueError(f"jobs must be >= 0 (0: tokenize in this process), got {jobs}")
    return jobs


def tokenize_items(
    items: Iterable[T],
    jobs: int | None = 0,
    *,
    raw_of: Callable[[T], bytes] = attrgetter("raw"),
    chunk_size: int = CHUNK_SIZE,
    pool_threshold: float | None = None,
    pool_min_ahead: int | None = None,
    options: TokenOptions = DEFAULT_OPTIONS,
) -> Iterator[tuple[T, Result]]:
    """``(item, token set or MailParseError)`` for each item, in order; see the module
    docstring. Items are :class:`~nbayes.spam.sources.MailItem` or anything ``raw_of``
    takes the message bytes from (it runs in the calling process). ``jobs``: worker
    processes (0: none; ``None``: see :func:`resolve_jobs`); ``pool_threshold``: CPU seconds
    per message below which no pool is started (default :data:`POOL_THRESHOLD`);
    ``pool_min_ahead``: messages that must follow the first ``2 * chunk_size`` for
    workers (default :data:`POOL_MIN_AHEAD`, or :data:`EXECUTOR_MIN_AHEAD` for a pool);
    ``options``: the tokenizer's (:class:`~nbayes.spam.tokens.TokenOptions`)."""
    jobs = resolve_jobs(jobs)
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    threshold = POOL_THRESHOLD if pool_threshold is None else pool_threshold
    if pool_min_ahead is None:
        pool_min_ahead = POOL_MIN_AHEAD if os_fork_ok else EXECUTOR_MIN_AHEAD
    tokenize_one = _tokenizer(options)
    iterator = iter(items)
    head = list(itertools.islice(iterator, 2 * chunk_size)) if jobs > 0 else []
    spent = 0.0  # CPU seconds tokenizing the head, the caller's time between items left out
    for item in head:
        start = time.process_time()
        result = tokenize_one(raw_of(item))
        spent += time.process_time() - start
        yield item, result
    if len(head) == 2 * chunk_size and spent >= threshold * len(head):
        ahead, enough = _look_ahead(iterator, raw_of, pool_min_ahead)
        if enough:
            rest = itertools.chain(ahead, iterator)
            if os_fork_ok:
                yield from _forked(rest, raw_of, jobs, chunk_size, tokenize_one)
            else:
                yield from _pooled(rest, raw_of, jobs, chunk_size, options)
            return
        iterator = iter(ahead)  # all that is left: too little to pay for the workers
    for item in iterator:
        yield item, tokenize_one(raw_of(item))


def _look_ahead(
    items: Iterator[T], raw_of: Callable[[T], bytes], count: int
) -> tuple[list[T], bool]:
    """Up to ``count`` items taken from ``items`` (fewer once they hold
    :data:`MAX_PENDING_BYTES`), and whether that many or that much was there."""
    ahead: list[T] = []
    size = 0
    for item in itertools.islice(items, count):
        ahead.append(item)
        size += len(raw_of(item))
        if size >= MAX_PENDING_BYTES:
            return ahead, True
    return ahead, len(ahead) >= count


def _tokenizer(options: TokenOptions) -> Callable[[bytes], Result]:
    """The function tokenizing one message with ``options`` (or the error): this module's
    :func:`_tokenize_or_error`, as it is when called, for the default options."""
    if options == DEFAULT_OPTIONS:
        return _tokenize_or_error
    return functools.partial(_tokenize_or_error, options=options)


def _tokenize_or_error(raw: bytes, options: TokenOptions = DEFAULT_OPTIONS) -> Result:
    try:
        return tokenize(raw, options)
    except MailParseError as error:
        return error


def _forked(
    items: Iterator[T], raw_of: Callable[[T], bytes], jobs: int, chunk_size: int,
    tokenize_one: Callable[[bytes], Result],
) -> Iterator[tuple[T, Result]]:  # fmt: skip
    """Windows of at most :data:`MAX_PENDING_MESSAGES` messages, the later ones
    :data:`LATER_WINDOW_FACTOR` times that (or about :data:`MAX_PENDING_BYTES` each),
    tokenized by :func:`forked.tokenize_windows`."""

    from nbayes.spam import forked  # POSIX only (fcntl, termios): not imported on Windows

    def windows() -> Iterator[tuple[list[T], list[bytes]]]:
        size_limit = MAX_PENDING_MESSAGES
        while True:
            window, raws, size = [], [], 0
            for item in itertools.islice(items, size_limit):
                window.append(item)
                raws.append(raw_of(item))
                size += len(raws[-1])
                if size >= MAX_PENDING_BYTES:
                    break
            if not window:
                return
            yield window, raws
            size_limit = LATER_WINDOW_FACTOR * MAX_PENDING_MESSAGES

    return forked.tokenize_windows(windows(), jobs, chunk_size, tokenize_one, _pack, _unpack)


def _pack(result: Result) -> str | list[str] | MailParseError:
    """A worker's result as shipped: the tokens joined by NUL (a fourth of the cost of
    pickling the set), or a list of them if a token holds a NUL or there is none, or
    the MailParseError; tokens in the set's order (see :data:`Result`)."""
    if isinstance(result, MailParseError):
        return result
    joined = _SEPARATOR.join(result)
    if result and joined.count(_SEPARATOR) == len(result) - 1:
        return joined
    return list(result)


def _unpack(result: str | list[str] | MailParseError) -> Result:
    """The result :func:`_pack` shipped (see :data:`Result`)."""
    if isinstance(result, MailParseError):
        return result
    return dict.fromkeys(result.split(_SEPARATOR) if isinstance(result, str) else result).keys()


def _pooled(
    items: Iterator[T], raw_of: Callable[[T], bytes], jobs: int, chunk_size: int,
    options: TokenOptions,
) -> Iterator[tuple[T, Result]]:  # fmt: skip
    pool = ProcessPoolExecutor(
        jobs, mp_context=_context(), initializer=_init_worker, initargs=(os.getpid(),)
    )
    # Fork the workers now, with the parent's objects frozen: the workers' garbage
    # collector then never walks them, so their memory pages stay shared instead of
    # being copied on the first collection (the gc.freeze recipe for fork).
    gc.freeze()
    try:
        pool.submit(os.getpid)
    finally:
        gc.unfreeze()
    # Chunks in input order: [items, raws, results], the results a worker's Future or,
    # for a chunk this process tokenized itself while it waited, the results themselves.
    pending: deque[list] = deque()
    in_flight = 0  # bytes of the chunks in pending
    max_chunks = max(2 * jobs, MAX_PENDING_MESSAGES // chunk_size)
    try:
        while True:
            while len(pending) < max_chunks and (
                in_flight <= MAX_PENDING_BYTES or len(pending) < 2 * jobs
            ):
                chunk = list(itertools.islice(items, chunk_size))
                if not chunk:
                    break
                raws = [raw_of(item) for item in chunk]
                pending.append([chunk, raws, pool.submit(_tokenize_raw, raws, options)])
                in_flight += sum(map(len, raws))
            if not pending:
                break
            head = pending[0][2]
            if isinstance(head, Future) and not head.done() and _steal(pending, options):
                continue
            chunk, raws, results = pending.popleft()
            in_flight -= sum(map(len, raws))
            yield from _collect(chunk, results)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _steal(pending: deque[list], options: TokenOptions) -> bool:
    """Tokenize here the last chunk no worker has started (its Future cancelled), so
    this process works instead of waiting; False if every chunk is started or done."""
    for entry in reversed(pending):
        results = entry[2]
        if not isinstance(results, Future):
            continue
        if results.running() or results.done():
            return False  # the chunks before it were handed out earlier still
        if results.cancel():
            entry[2] = [_tokenizer(options)(raw) for raw in entry[1]]
            return True
    return False


def _collect(chunk: list[T], results: Future | list) -> Iterator[tuple[T, Result]]:
    if isinstance(results, Future):
        results = results.result()
    for item, result in zip(chunk, results, strict=True):
        yield item, _unpack(result)


_SEPARATOR = "\0"


def _tokenize_raw(raws: list[bytes], options: TokenOptions) -> list[str | Result]:
    """In a pool's worker: each message's result as :func:`_pack` ships it."""
    tokenize_one = _tokenizer(options)
    return [_pack(tokenize_one(raw)) for raw in raws]


def _context():
    """Fork where available: workers start at once, without importing nbayes again."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _init_worker(parent: int) -> None:
    """Ignore Ctrl-C (the parent shuts the pool down) and exit once the parent is gone:
    a worker blocked on its task queue would otherwise outlive a SIGKILLed parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def exit_with_parent() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=exit_with_parent, daemon=True).start()
