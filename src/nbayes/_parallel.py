"""Row-block parallelism for the dense kernels.

The dense kernels work on cache-sized row blocks (``nbayes._validate.row_blocks``).
Their matrix products are small, and a multi-threaded BLAS that wakes its threads
for every small product wastes time, and on a busy machine (more runnable threads
than cores) its spinning threads slow everything down many times over. So the blocks
are spread over a few Python threads (NumPy releases the GIL in its loops and BLAS
calls), each calling a single-threaded BLAS: as many threads as BLAS would have
used, never more than the blocks.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

T = TypeVar("T")
B = TypeVar("B")

_controller = None
_pool: ThreadPoolExecutor | None = None
_CPUS = os.cpu_count() or 1  # asked once: the call costs more than a small block


def _executor(workers: int) -> ThreadPoolExecutor:
    """A thread pool kept between calls (starting threads costs more than a small
    ``partial_fit`` batch), replaced when the wanted size changes."""
    global _pool
    if _pool is None or _pool._max_workers != workers:
        if _pool is not None:
            _pool.shutdown(wait=False)
        _pool = ThreadPoolExecutor(workers, thread_name_prefix="nbayes")
    return _pool


def _blas():
    """The process's threadpool controller, created once (it scans loaded libraries)."""
    global _controller
    if _controller is None:
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController()
    return _controller


def n_workers() -> int:
    """Threads for block loops: the BLAS thread count (at least 1, at most the CPUs)."""
    counts = [lib.num_threads for lib in _blas().lib_controllers if lib.user_api == "blas"]
    return max(1, min(max(counts, default=1), _CPUS))


def map_blocks(fn: Callable[[B], T], blocks: Sequence[B]) -> list[T]:
    """``[fn(block) for block in blocks]``, in order, on up to :func:`n_workers`
    threads, with BLAS single-threaded meanwhile. ``fn`` must be thread-safe (write
    only to its own rows)."""
    if len(blocks) <= 1:
        return [fn(block) for block in blocks]
    workers = min(n_workers(), len(blocks))
    with _blas().limit(limits=1, user_api="blas"):
        if workers == 1:
            return [fn(block) for block in blocks]
        return list(_executor(workers).map(fn, blocks))


class Scratch:
    """Float64 work buffers kept per thread and reused by every kernel call.

    A fresh multi-megabyte temporary per block pays its page faults every time (the
    allocator returns big blocks to the system when they are freed), several times
    the arithmetic on it; a kept buffer pays them once per thread. Buffers larger
    than ``keep_bytes`` are not kept (allocated per request). A buffer stays valid
    until the same thread asks for the same slot again.
    """

    def __init__(self, keep_bytes: int) -> None:
        self._local = threading.local()
        self._keep_bytes = keep_bytes

    def get(self, slot: int, shape: tuple[int, ...]) -> NDArray[np.float64]:
        """This thread's buffer number ``slot``, as an uninitialised array of ``shape``."""
        size = math.prod(shape)
        if 8 * size > self._keep_bytes:
            return np.empty(shape)
        buffers = self._local.__dict__.setdefault("buffers", {})
        buffer = buffers.get(slot)
        if buffer is None or buffer.size < size:
            buffer = buffers[slot] = np.empty(size)
        return buffer[:size].reshape(shape)


# Shared by the dense kernels: at most a few row blocks' worth per thread (the block
# threads and the caller's), 4 MiB each.
SCRATCH = Scratch(keep_bytes=4 << 20)
