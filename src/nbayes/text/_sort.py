"""Feature names in code-point order (as Python sorts str), from their UTF-8 bytes.

UTF-8 byte order is code-point order, so names sort by their bytes: by two 8-byte
big-endian prefix keys, then, for the few names sharing a 16-byte prefix, in Python.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def name_order(out: NDArray[np.uint8], offsets: NDArray[np.int64]) -> NDArray[np.intp]:
    """Indices that sort the names ``out[offsets[i]:offsets[i + 1] - 1]`` (each ends in
    a newline), shape (n_names,)."""
    from nbayes.text._engine import _kernels

    starts, ends = offsets[:-1], offsets[1:] - 1
    first, second = _kernels().prefix_keys(out, starts, ends)
    order = by_two_keys(first, second)
    # names that share a 16-byte prefix: sort those runs in Python
    first, second = first[order], second[order]
    same = (first[1:] == first[:-1]) & (second[1:] == second[:-1])
    if same.any():
        data = out.tobytes()
        edges = np.flatnonzero(np.diff(np.concatenate([[0], same.astype(np.int8), [0]])))
        for a, b in zip(edges[::2], edges[1::2], strict=True):
            run = order[a : b + 1]
            order[a : b + 1] = sorted(run, key=lambda f: data[starts[f] : ends[f]])
    return order


def by_two_keys(first: NDArray[np.uint64], second: NDArray[np.uint64]) -> NDArray[np.intp]:
    """Indices that sort by (first, second): ``np.lexsort((second, first))``, but by
    one argsort of ``first`` (several times faster than lexsort: 4 against 22 ms for
    20 Newsgroups' 174k names) and a lexsort of only the runs that share ``first``."""
    order = np.argsort(first)
    keys = first[order]
    tied = np.zeros(len(order), bool)
    shared = keys[1:] == keys[:-1]
    tied[1:] |= shared
    tied[:-1] |= shared
    # tied entries are runs of equal ``first`` in ascending order, so sorting them by
    # (first, second) among themselves puts each back inside its own run
    members = order[tied]
    order[tied] = members[np.lexsort((second[members], first[members]))]
    return order
