"""Feature names in code-point order (as Python sorts str), from their UTF-8 bytes.

UTF-8 byte order is code-point order, so names sort by their bytes: by two 8-byte
big-endian prefix keys, then, for the few names sharing a 16-byte prefix, in Python.
Up to :data:`COMPILED_MIN` names the keys are made and sorted by NumPy
(:func:`numpy_order`); more are sorted by the compiled kernels (:func:`by_two_keys`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes.tokens import _kernels

#: From this many names on the compiled prefix-key sort is used. Below it NumPy's
#: ``lexsort`` of the keys (about 0.13 us a name, against 0.02 compiled: 2 ms for
#: 16,000 names) costs less than compiling the sort, which a process's first large
#: vocabulary pays once per machine (0.65 s of a cold first fit, bench/NOTES.md).
COMPILED_MIN = 65_536


def name_order(
    buf: NDArray[np.uint8], starts: NDArray[np.int64], ends: NDArray[np.int64]
) -> NDArray[np.intp]:
    """Indices that sort the names ``buf[starts[i]:ends[i]]``, shape (n_names,)."""
    if len(starts) < COMPILED_MIN:
        return numpy_order(buf, starts, ends)
    first = np.empty(len(starts), np.uint64)
    second = np.empty(len(starts), np.uint64)
    _kernels.prefix_keys(buf, starts, ends, first, second)
    order, ties = by_two_keys(first, second)
    _sort_ties_in_python(order, ties, buf, starts, ends)
    return order


def numpy_order(
    buf: NDArray[np.uint8], starts: NDArray[np.int64], ends: NDArray[np.int64]
) -> NDArray[np.intp]:
    """:func:`name_order` by NumPy alone: the two prefix keys of each name (bytes 0-7
    and 8-15, big-endian, zero-padded past its end) gathered as a (n, 16) byte array,
    ``np.lexsort`` of them, then the names sharing both keys sorted in Python."""
    n = len(starts)
    if n == 0:
        return np.empty(0, np.intp)
    offsets = np.arange(16)
    where = starts[:, None] + offsets
    np.minimum(where, max(len(buf) - 1, 0), out=where)
    window = buf[where] if len(buf) else np.zeros((n, 16), np.uint8)
    window[offsets >= (ends - starts)[:, None]] = 0
    keys = window.view(">u8")  # (n, 2): the two big-endian prefix keys
    order = np.lexsort((keys[:, 1], keys[:, 0]))
    sorted_keys = keys[order]
    same = np.all(sorted_keys[1:] == sorted_keys[:-1], axis=1)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], same.astype(np.int8), [0]])))
    ties = np.stack([edges[::2], edges[1::2] + 1], axis=1)
    _sort_ties_in_python(order, ties, buf, starts, ends)
    return order


def _sort_ties_in_python(order, ties, buf, starts, ends) -> None:
    """Sort in place each run ``order[a:b]`` of names sharing a 16-byte prefix."""
    for a, b in ties:
        run = order[a:b]
        order[a:b] = sorted(run, key=lambda f: buf[starts[f] : ends[f]].tobytes())


def by_two_keys(
    first: NDArray[np.uint64], second: NDArray[np.uint64]
) -> tuple[NDArray[np.intp], NDArray[np.int64]]:
    """Indices that sort by (first, second), as ``np.lexsort((second, first))`` up to
    the order among equal pairs, and the (start, stop) runs of them that hold equal
    pairs, shape (k, 2).

    One ``np.sort`` (a vectorised sort of plain values, several times faster than an
    argsort: 2 against 10 ms for 20 Newsgroups' 174k names) of ``first``'s high
    bits with the index packed into its low ``b`` bits (``b`` = bits of n - 1), then
    a compiled sort of the runs that share those high bits (``sort_ties``).
    """
    n = len(first)
    bits = np.uint64(max(1, (n - 1).bit_length()))
    low = (np.uint64(1) << bits) - np.uint64(1)
    packed = first & ~low
    packed |= np.arange(n, dtype=np.uint64)
    packed.sort()
    order = (packed & low).astype(np.intp)
    scratch = np.empty(n, order.dtype)
    ties = np.empty((n // 2 + 1, 2), np.int64)
    n_ties = _kernels.sort_ties(order, packed, first, second, bits, scratch, ties)
    return order, ties[:n_ties]
