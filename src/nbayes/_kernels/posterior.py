"""The posterior's normalisation in compiled loops: the row max, the exponential (glibc's
vector ``exp``, :mod:`nbayes._kernels.vector_math`) and the row sum, for
:mod:`nbayes.core.posterior`.

Each function takes the NumPy path for arrays too small for the kernels to be worth
loading (:func:`nbayes._kernels.available`). The row max and the row sum are then
bitwise the same; the exponential is NumPy's, within 4 ulp of glibc's vector one
where that is used (the only result a small call may change)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes._kernels import available, jit

#: CPU seconds a step of each kernel saves over its reference path (1,000,000-row
#: calls, one thread; bench/NOTES.md, issue 29), for :func:`available`'s choice.
EXP_SAVING_S, SHIFT_SAVING_S = 4e-9, 4e-9


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
    array of any shape, with glibc's vector ``exp`` (:mod:`nbayes._kernels.vector_math`):
    within 4 ulp of NumPy's, ~4x faster where NumPy's float64 ``exp`` is not
    vectorised. False (``values`` untouched) where that is not available, or not worth
    loading for so few values (:func:`available`)."""
    if not (
        available(values.size, EXP_SAVING_S)
        and values.dtype == np.float64
        and values.flags.c_contiguous
        and values.flags.writeable
    ):
        return False
    from nbayes._kernels import vector_math

    if not vector_math.LANES:
        return False
    jit(vector_math.exp_in_place_kernel)(values.reshape(-1))
    return True


def shift_by_row_max(jll: NDArray[np.float64]) -> NDArray[np.bool_] | None:
    """``jll -= max_c jll[i, c]`` in place for each row ``i`` (n_rows, n_classes) whose
    values are not NaN and whose maximum is finite; those rows are marked True in the
    returned mask (n_rows,), the others are left as they were. None (``jll`` untouched)
    when the compiled kernels are not available, or not for so few entries
    (:func:`available`)."""
    if not available(jll.size, SHIFT_SAVING_S):
        return None
    regular = np.empty(jll.shape[0], dtype=np.bool_)
    jit(_shift_by_row_max_kernel)(jll, regular)
    return regular


def divide_by_row_sum(proba: NDArray[np.float64], regular: NDArray[np.bool_]) -> None:
    """``proba[i] /= sum_c proba[i, c]`` in place for the rows where ``regular``, the
    sum added in order of c. Call only where :func:`shift_by_row_max` did not return
    None."""
    jit(_divide_by_row_sum_kernel)(proba, regular)
