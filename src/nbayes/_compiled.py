"""Optional compiled kernels (numba), used when numba is importable: the categorical
gather-sum; the Gaussian class moments of a row block and log-likelihood terms; the
posterior's row max, exponential and row sum (and, in :mod:`nbayes._compiled_shifted`, the
Gaussian one-pass update of running moments).

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


@cache
def _jit(kernel: Callable) -> Callable:
    """``kernel`` compiled once per process (GIL released, machine code cached on disk)."""
    return _numba().njit(nogil=True, cache=True)(kernel)


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
    bad = _jit(_scatter_add_kernel)(cells, values, out)
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


# ------------------------------------------------ Gaussian block moments
def _class_moments_kernel(X, labels, weights, class_count, reference, offset, m2):
    """See :func:`class_moments`; ``reference``, ``offset``, ``m2`` start at zero."""
    n_rows, n_features = X.shape
    seen = np.zeros(offset.shape[0], dtype=np.bool_)
    for i in range(n_rows - 1, -1, -1):  # the last kept row of each class
        c = labels[i]
        if weights[i] > 0 and not seen[c]:
            seen[c] = True
            for j in range(n_features):
                reference[c, j] = X[i, j]
    for i in range(n_rows):
        w = weights[i]
        if w > 0:
            c = labels[i]
            for j in range(n_features):
                offset[c, j] += w * (X[i, j] - reference[c, j])
    for c in range(offset.shape[0]):
        if class_count[c] > 0:
            for j in range(n_features):
                offset[c, j] /= class_count[c]
    for i in range(n_rows):
        w = weights[i]
        if w > 0:
            c = labels[i]
            for j in range(n_features):
                deviation = (X[i, j] - reference[c, j]) - offset[c, j]
                m2[c, j] += w * (deviation * deviation)


def class_moments(
    X: NDArray[np.float64],
    labels: NDArray[np.intp],
    weights: NDArray[np.float64],
    class_count: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None:
    """The two passes of :func:`nbayes.events._gaussian_fit.hard_block_moments` over
    rows X (n_rows, n_features) of classes ``labels`` and weights ``weights`` (n_rows,),
    with no temporaries: ``(reference, offset, m2)``, each (n_classes, n_features),
    ``n_classes = len(class_count)``, class weight totals ``class_count``.

    ``r_c`` is the last row of class c with positive weight (0 for a class with none);
    ``offset_c = sum_i w_i (x_i - r_c) / N_c`` and
    ``m2_c = sum_i w_i ((x_i - r_c) - offset_c)^2`` over the rows of class c with
    ``w_i > 0``, added row by row in order of i: the additions of the sparse product
    ``S @ v`` the NumPy path makes, so the same rounding. None when the compiled
    kernels are not available.
    """
    if not available():
        return None
    shape = (class_count.shape[0], X.shape[1])
    reference, offset, m2 = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    _jit(_class_moments_kernel)(X, labels, weights, class_count, reference, offset, m2)
    return reference, offset, m2


# ------------------------------------------------ posterior normalisation
def _shift_by_row_max_kernel(jll, regular):
    """See :func:`shift_by_row_max`."""
    n_rows, n_classes = jll.shape
    for i in range(n_rows):
        top = jll[i, 0]
        nan = False
        for c in range(n_classes):
            value = jll[i, c]
            top = max(top, value)
            nan |= value != value
        regular[i] = not nan and np.isfinite(top)
        if regular[i]:
            for c in range(n_classes):
                jll[i, c] -= top


def _divide_by_row_sum_kernel(proba, regular):
    """See :func:`divide_by_row_sum`."""
    n_rows, n_classes = proba.shape
    for i in range(n_rows):
        if regular[i]:
            total = 0.0
            for c in range(n_classes):
                total += proba[i, c]
            for c in range(n_classes):
                proba[i, c] /= total


def exp_in_place(values: NDArray[np.float64]) -> bool:
    """``values[...] = exp(values)`` in place, for a writeable C-contiguous float64
    array of any shape, with glibc's vector ``exp`` (:mod:`nbayes._vector_math`):
    within 4 ulp of NumPy's, ~4x faster where NumPy's float64 ``exp`` is not
    vectorised. False (``values`` untouched) where that is not available."""
    if not (
        available()
        and values.dtype == np.float64
        and values.flags.c_contiguous
        and values.flags.writeable
    ):
        return False
    from nbayes import _vector_math

    if not _vector_math.LANES:
        return False
    _jit(_vector_math.exp_in_place_kernel)(values.reshape(-1))
    return True


def shift_by_row_max(jll: NDArray[np.float64]) -> NDArray[np.bool_] | None:
    """``jll -= max_c jll[i, c]`` in place for each row ``i`` (n_rows, n_classes) whose
    values are not NaN and whose maximum is finite; those rows are marked True in the
    returned mask (n_rows,), the others are left as they were. None (``jll`` untouched)
    when the compiled kernels are not available."""
    if not available():
        return None
    regular = np.empty(jll.shape[0], dtype=np.bool_)
    _jit(_shift_by_row_max_kernel)(jll, regular)
    return regular


def divide_by_row_sum(proba: NDArray[np.float64], regular: NDArray[np.bool_]) -> None:
    """``proba[i] /= sum_c proba[i, c]`` in place for the rows where ``regular``, the
    sum added in order of c. Call only where :func:`shift_by_row_max` did not return
    None."""
    _jit(_divide_by_row_sum_kernel)(proba, regular)


# ------------------------------------------------ Gaussian log-likelihood terms
def _gaussian_terms_kernel(cross, quadratic, means, log_norm, relative, absolute, window, inexact):
    """See :func:`gaussian_terms`. The row maximum is taken only for rows with a suspect
    entry (rare), so the main loop has no reduction but an OR, and vectorises."""
    n_rows, n_classes = cross.shape
    for i in range(n_rows):
        suspects = False
        for c in range(n_classes):
            b, a = cross[i, c], quadratic[i, c]
            bound = (abs(b) * 2.0 + a) + means[c]
            value = (a + b * -2.0) + means[c]
            inexact[i, c] = not bound <= max(value, 1.0) * relative
            cross[i, c] = (value + log_norm[c]) * -0.5
            quadratic[i, c] = bound
            suspects |= bound > absolute
        if suspects:
            top = -np.inf
            for c in range(n_classes):
                if cross[i, c] > top:  # NaN left out, as np.fmax does
                    top = cross[i, c]
            for c in range(n_classes):
                if quadratic[i, c] > absolute and cross[i, c] >= top - window:
                    inexact[i, c] = True


def gaussian_terms(
    cross: NDArray[np.float64],
    quadratic: NDArray[np.float64],
    means: NDArray[np.float64],
    log_norm: NDArray[np.float64],
    relative: float,
    absolute: float,
    window: float,
) -> tuple[NDArray[np.float64], NDArray[np.bool_]] | None:
    """:func:`nbayes.events.gaussian._terms` in one pass over the rows, the same
    operations in the same order (bitwise the same result): from ``B`` (cross) and
    ``A`` (quadratic), (n_rows, n_classes), and ``C`` (means, (n_classes,)), the
    log-likelihood ``-1/2 (A - 2B + C + log_norm)``, written into ``cross``, and the
    mask of entries to recompute directly: bound ``A + 2|B| + C`` above
    ``relative * max(1, A - 2B + C)``, or above ``absolute`` within ``window`` nats
    of the row's best entry. ``quadratic`` is overwritten. None when the compiled
    kernels are not available."""
    if not available():
        return None
    inexact = np.empty(cross.shape, dtype=np.bool_)
    kernel = _jit(_gaussian_terms_kernel)
    kernel(cross, quadratic, means, log_norm, relative, absolute, window, inexact)
    return cross, inexact
