"""The categorical gather-sum: the per-class sum of log-probabilities of each row's
category codes, for :func:`nbayes.events.categorical.log_likelihood`."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
from numpy.typing import NDArray

from nbayes._kernels import available, jit, kernel

#: CPU seconds a step of each kernel saves over its reference path (1,000,000-row
#: calls, one thread; bench/NOTES.md, issue 29), for :func:`available`'s choice.
GATHER_SAVING_S, COUNT_SAVING_S = 1e-9, 8e-9

_MAX_ACCUMULATORS = 8  # class totals held in registers at once (one 64-byte table line)


@cache
def _gather_kernel(width: int) -> Callable:
    """The gather-sum kernel with ``width`` (1 to 8) class totals in named locals.

    The totals are locals because a total kept in a local stays in a register; held
    in an array, every addition waits for the previous one's store (3-5x slower).
    ``width`` is a constant of the compiled code (a closure variable), so the
    compiler drops the totals and the tests of ``width`` beyond it; numba caches
    each width's machine code on disk like any kernel's.
    """

    def gather_sum(codes, offsets, n_categories, table, out):
        n_rows, n_features = codes.shape
        n_classes = out.shape[1]
        unknown = 0
        for i in range(n_rows):
            for c0 in range(0, table.shape[1], width):
                t0 = t1 = t2 = t3 = t4 = t5 = t6 = t7 = 0.0
                for j in range(n_features):
                    code = codes[i, j]
                    if code < 0:
                        continue
                    if code >= n_categories[j]:
                        if c0 == 0:
                            unknown += 1
                        continue
                    row = offsets[j] + code
                    t0 += table[row, c0]
                    if width > 1:
                        t1 += table[row, c0 + 1]
                    if width > 2:
                        t2 += table[row, c0 + 2]
                    if width > 3:
                        t3 += table[row, c0 + 3]
                    if width > 4:
                        t4 += table[row, c0 + 4]
                    if width > 5:
                        t5 += table[row, c0 + 5]
                    if width > 6:
                        t6 += table[row, c0 + 6]
                    if width > 7:
                        t7 += table[row, c0 + 7]
                for c, total in enumerate((t0, t1, t2, t3, t4, t5, t6, t7)):
                    if c < width and c0 + c < n_classes:
                        out[i, c0 + c] = total
        return unknown

    return kernel(gather_sum)


def gather_width(n_classes: int) -> int:
    """Class totals per pass of :func:`gather_sum` for ``n_classes`` classes."""
    return max(1, min(n_classes, _MAX_ACCUMULATORS))


def gather_table(log_prob: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log_prob`` (n_classes, n_cells) as the kernel's table: (n_cells, n_padded),
    C-contiguous, classes padded with zeros to a multiple of :func:`gather_width`."""
    n_classes, n_cells = log_prob.shape
    width = gather_width(n_classes)
    table = np.zeros((n_cells, -(-n_classes // width) * width))
    table[:, :n_classes] = log_prob.T
    return table


def gather_sum(
    codes: NDArray[np.integer],
    offsets: NDArray[np.intp],
    n_categories: NDArray[np.intp],
    table: NDArray[np.float64],
    n_classes: int,
) -> tuple[NDArray[np.float64], int] | None:
    """``out[i, c] = sum_j table[offsets_j + codes_ij, c]`` over the codes with
    ``0 <= codes_ij < n_categories_j`` (others skipped; those too large counted), added
    in order of j from 0 (the order of a CSR one-hot product, so the same rounding):
    shape (n_rows, n_classes), and the number of codes ``>= n_categories_j``.

    codes (n_rows, n_features); table from :func:`gather_table`. None when the
    compiled kernels are switched off (:data:`nbayes._kernels.ENABLED`), or not for
    so few terms (:func:`available`).
    """
    if not available(codes.size * n_classes, GATHER_SAVING_S):
        return None
    out = np.empty((codes.shape[0], n_classes))
    unknown = _gather_kernel(gather_width(n_classes))(codes, offsets, n_categories, table, out)
    return out, int(unknown)


def _count_codes_kernel(codes, labels, weights, offsets, n_categories, counts):
    """See :func:`count_codes`; returns the first row with a code out of range (its
    earlier rows added), or -1."""
    n_rows, n_features = codes.shape
    for i in range(n_rows):
        c, w = labels[i], weights[i]
        for j in range(n_features):
            code = codes[i, j]
            if code >= 0:
                if code >= n_categories[j]:
                    return i
                counts[c, offsets[j] + code] += w
    return -1


def count_codes(
    codes: NDArray[np.integer],
    labels: NDArray[np.intp],
    weights: NDArray[np.float64],
    offsets: NDArray[np.intp],
    n_categories: NDArray[np.intp],
    counts: NDArray[np.float64],
) -> bool:
    """``counts[labels_i, offsets_j + codes_ij] += weights_i`` for every non-negative
    code (a negative one is missing), row by row, in place: the categorical counts of
    hard labels in one pass, no temporaries. ``counts`` (n_classes, sum_j K_j),
    C-contiguous; a code ``>= n_categories_j`` is an IndexError. False (``counts``
    untouched) when the compiled kernels are not available, or not for so few codes
    (:func:`available`)."""
    if not available(codes.size, COUNT_SAVING_S):
        return False
    bad = jit(_count_codes_kernel)(codes, labels, weights, offsets, n_categories, counts)
    if bad >= 0:
        raise IndexError(f"row {bad} has a category code beyond n_categories")
    return True
