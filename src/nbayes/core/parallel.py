"""Row-block parallelism for the dense kernels.

The dense kernels work on cache-sized row blocks (``nbayes.core.validation.row_blocks``).
Their matrix products are small, and a multi-threaded BLAS that wakes its threads
for every small product wastes time, and on a busy machine (more runnable threads
than cores) its spinning threads slow everything down many times over. So the blocks
are spread over a few Python threads (NumPy releases the GIL in its loops and BLAS
calls), each calling a single-threaded BLAS: as many threads as BLAS would have
used, never more than the blocks.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

T = TypeVar("T")
B = TypeVar("B")

_controller = None
_pools: dict[str, ThreadPoolExecutor] = {}
_CPUS = os.cpu_count() or 1  # asked once: the call costs more than a small block


def kept_executor(name: str, workers: int) -> ThreadPoolExecutor:
    """The thread pool ``name``, kept between calls (starting threads costs more than
    a small ``partial_fit`` batch or a short text pass), replaced when the wanted
    size changes."""
    pool = _pools.get(name)
    if pool is None or pool._max_workers != workers:
        if pool is not None:
            pool.shutdown(wait=False)
        pool = _pools[name] = ThreadPoolExecutor(workers, thread_name_prefix=f"nbayes-{name}")
    return pool


def shut_down_executors() -> None:
    """Stop the kept pools' threads, waiting for work in flight (none between calls).

    What the interpreter's shutdown does for them; the command line calls it before
    it leaves without that shutdown (:func:`nbayes.cli.run`)."""
    while _pools:
        _, pool = _pools.popitem()
        pool.shutdown(wait=True)


if hasattr(os, "register_at_fork"):
    # a forked child has none of its parent's threads: a kept pool whose thread is
    # gone would queue work that never runs, so the child starts pools of its own
    os.register_at_fork(after_in_child=_pools.clear)


def _blas():
    """The process's threadpool controller, created once (it scans loaded libraries)."""
    global _controller
    if _controller is None:
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController()
    return _controller


def _blas_libraries() -> list:
    """The loaded BLAS libraries' controllers (their thread counts are read live)."""
    return [lib for lib in _blas().lib_controllers if lib.user_api == "blas"]


def n_workers() -> int:
    """Threads for block loops: the BLAS thread count (at least 1, at most the CPUs)."""
    counts = [lib.num_threads for lib in _blas_libraries()]
    return max(1, min(max(counts, default=1), _CPUS))


@contextmanager
def _single_threaded_blas() -> Iterator[int]:
    """BLAS on one thread meanwhile; yields the thread count it had (the block loops'
    :func:`n_workers`). ``threadpoolctl``'s own ``limit`` does the same at ~50 us a
    call (it re-reads every library's state), a cost a small ``partial_fit`` batch
    would pay every time; this touches only the BLAS libraries not already at 1."""
    changed = [(lib, lib.num_threads) for lib in _blas_libraries()]
    changed = [(lib, threads) for lib, threads in changed if threads != 1]
    for lib, _ in changed:
        lib.set_num_threads(1)
    try:
        yield max(1, min(max((threads for _, threads in changed), default=1), _CPUS))
    finally:
        for lib, threads in changed:
            lib.set_num_threads(threads)


def map_blocks(fn: Callable[[B], T], blocks: Sequence[B]) -> list[T]:
    """``[fn(block) for block in blocks]``, in order, on up to :func:`n_workers`
    threads, with BLAS single-threaded meanwhile. ``fn`` must be thread-safe (write
    only to its own rows).

    The calling thread is one of the workers: it takes blocks from the same queue as
    the pool's threads, so two blocks cost one hand-off, not two and a wait."""
    if len(blocks) <= 1:
        return [fn(block) for block in blocks]
    with _single_threaded_blas() as workers:
        workers = min(workers, len(blocks))
        if workers == 1:
            return [fn(block) for block in blocks]
        results: list = [None] * len(blocks)
        taken = itertools.count()  # next() is atomic: each block is taken once
        failed = threading.Event()  # an error (or Ctrl-C) anywhere: take no more blocks

        def work() -> None:
            try:
                while not failed.is_set() and (i := next(taken)) < len(blocks):
                    results[i] = fn(blocks[i])
            except BaseException:
                failed.set()
                raise

        helpers = [kept_executor("blocks", workers - 1).submit(work) for _ in range(workers - 1)]
        try:
            work()
        finally:  # every block is taken: a helper not started yet is not needed
            started = [helper for helper in helpers if not helper.cancel()]
            errors = [helper.exception() for helper in started]  # waits: BLAS stays at 1
        for error in errors:
            if error is not None:
                raise error
        return results


class Scratch:
    """Work buffers kept per thread and reused by every kernel call.

    A fresh multi-megabyte temporary per block pays its page faults every time (the
    allocator returns big blocks to the system when they are freed), several times
    the arithmetic on it; a kept buffer pays them once per thread. Buffers larger
    than ``keep_bytes`` are not kept (allocated per request). A buffer stays valid
    until the same thread asks for the same slot again.
    """

    def __init__(self, keep_bytes: int) -> None:
        self._local = threading.local()
        self._keep_bytes = keep_bytes

    def get(self, slot: int, shape: tuple[int, ...], dtype=np.float64) -> NDArray:
        """This thread's buffer number ``slot``, as an uninitialised array of ``shape``
        and ``dtype`` (float64 by default)."""
        dtype = np.dtype(dtype)
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > self._keep_bytes:
            return np.empty(shape, dtype)
        buffers = self._local.__dict__.setdefault("buffers", {})
        buffer = buffers.get(slot)
        if buffer is None or buffer.size < nbytes:
            buffer = buffers[slot] = np.empty(nbytes, np.uint8)  # aligned for any dtype
        return buffer[:nbytes].view(dtype).reshape(shape)


# Shared by the dense kernels: at most a few row blocks' worth per thread (the block
# threads and the caller's), 4 MiB each.
SCRATCH = Scratch(keep_bytes=4 << 20)
