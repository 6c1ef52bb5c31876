"""Feature names in code-point order (as Python sorts str), from their UTF-8 bytes.

UTF-8 byte order is code-point order, so names sort by their bytes: by two 8-byte
big-endian prefix keys (see :func:`by_two_keys`), then, for the few names sharing a
16-byte prefix, in Python.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def name_order(
    buf: NDArray[np.uint8], starts: NDArray[np.int64], ends: NDArray[np.int64]
) -> NDArray[np.intp]:
    """Indices that sort the names ``buf[starts[i]:ends[i]]``, shape (n_names,)."""
    from nbayes.text._engine import _kernels

    first, second = _kernels().prefix_keys(buf, starts, ends)
    order = by_two_keys(first, second)
    # names that share a 16-byte prefix: sort those runs in Python
    first, second = first[order], second[order]
    same = (first[1:] == first[:-1]) & (second[1:] == second[:-1])
    if same.any():
        edges = np.flatnonzero(np.diff(np.concatenate([[0], same.astype(np.int8), [0]])))
        for a, b in zip(edges[::2], edges[1::2], strict=True):
            run = order[a : b + 1]
            order[a : b + 1] = sorted(run, key=lambda f: buf[starts[f] : ends[f]].tobytes())
    return order


def by_two_keys(first: NDArray[np.uint64], second: NDArray[np.uint64]) -> NDArray[np.intp]:
    """Indices that sort by (first, second), as ``np.lexsort((second, first))`` up to
    the order among equal pairs.

    One ``np.sort`` (a vectorised sort of plain values, several times faster than an
    argsort: 2 against 10 ms for 20 Newsgroups' 174k names) of ``first``'s high
    bits with the index packed into its low ``b`` bits (``b`` = bits of n - 1), then
    a compiled sort of the runs that share those high bits (``sort_ties``).
    """
    from nbayes.text._engine import _kernels

    n = len(first)
    bits = np.uint64(max(1, (n - 1).bit_length()))
    low = (np.uint64(1) << bits) - np.uint64(1)
    packed = first & ~low
    packed |= np.arange(n, dtype=np.uint64)
    packed.sort()
    order = (packed & low).astype(np.intp)
    _kernels().sort_ties(order, first, second, bits)
    return order
