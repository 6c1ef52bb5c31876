"""Optional compiled prediction kernels (numba), used when numba is importable.

``pip install 'nbayes[text]'`` brings numba; without it every caller falls back to
its NumPy/SciPy path, which gives the same numbers (tests check both). The kernels
release the GIL, so :func:`nbayes._parallel.map_blocks` runs them on row blocks in
parallel.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
from numpy.typing import NDArray

#: Set to False to force the NumPy/SciPy paths (tests compare the two).
ENABLED = True

_MAX_ACCUMULATORS = 8  # class totals held in registers at once (one 64-byte table line)


@cache
def _numba():
    try:
        import numba
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    return numba


def _gather_source(width: int) -> str:
    """A gather-sum kernel with ``width`` class totals in named locals.

    Written out per width because a total kept in a local stays in a register; held in
    an array, every addition waits for the previous one's store (3-5x slower).
    """
    totals = [f"t{c}" for c in range(width)]
    return "\n".join(
        [
            "def gather_sum(codes, offsets, n_categories, table, out):",
            "    n_rows, n_features = codes.shape",
            "    n_classes = out.shape[1]",
            "    unknown = 0",
            "    for i in range(n_rows):",
            f"        for c0 in range(0, table.shape[1], {width}):",
            "            " + " = ".join(totals) + " = 0.0",
            "            for j in range(n_features):",
            "                code = codes[i, j]",
            "                if code < 0:",
            "                    continue",
            "                if code >= n_categories[j]:",
            "                    if c0 == 0:",
            "                        unknown += 1",
            "                    continue",
            "                row = offsets[j] + code",
            *[f"                t{c} += table[row, c0 + {c}]" for c in range(width)],
            *[
                f"            if c0 + {c} < n_classes:\n                out[i, c0 + {c}] = t{c}"
                for c in range(width)
            ],
            "    return unknown",
        ]
    )


@cache
def _gather_kernel(width: int) -> Callable:
    namespace: dict = {}
    exec(compile(_gather_source(width), f"<nbayes gather_sum {width}>", "exec"), namespace)
    return _numba().njit(nogil=True)(namespace["gather_sum"])


def _scatter_add_kernel(cells, values, out):
    """See :func:`scatter_add`; returns the position of the first cell out of range of
    ``out`` (nothing added from there on), or -1."""
    size = out.shape[0]
    for i in range(cells.shape[0]):
        cell = cells[i]
        if cell < 0 or cell >= size:
            return i
        out[cell] += values[i]
    return -1


@cache
def _scatter_add_compiled() -> Callable:
    return _numba().njit(nogil=True, cache=True)(_scatter_add_kernel)


def scatter_add(
    cells: NDArray[np.intp], values: NDArray[np.float64], out: NDArray[np.float64]
) -> bool:
    """``out[cells[i]] += values[i]`` for each ``i`` in order, in place (``out`` 1-D,
    C-contiguous float64): what ``np.add.at(out, cells, values)`` does, with the same
    additions in the same order (so bitwise the same), at about half its cost per
    value. False (``out`` untouched) when the compiled kernels are not available.

    Raises IndexError, as ``np.add.at``, for a cell outside ``out`` (the values before
    it have been added).
    """
    if not available():
        return False
    bad = _scatter_add_compiled()(cells, values, out)
    if bad >= 0:
        raise IndexError(
            f"index {int(cells[bad])} is out of bounds for axis 0 with size {out.shape[0]}"
        )
    return True


def available() -> bool:
    """Whether the compiled kernels can be used (numba installed, :data:`ENABLED`)."""
    return ENABLED and _numba() is not None


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
    compiled kernels are not available.
    """
    if not available():
        return None
    out = np.empty((codes.shape[0], n_classes))
    unknown = _gather_kernel(gather_width(n_classes))(codes, offsets, n_categories, table, out)
    return out, int(unknown)
