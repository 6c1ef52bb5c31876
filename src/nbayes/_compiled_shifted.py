"""The compiled kernel (numba) of the Gaussian one-pass update of running moments,
:func:`nbayes.events._gaussian_fit.shifted_update`: the shifted sums of a row block,
then (for the last block) the new moments from them, checked and written in place.
Used when :func:`nbayes._compiled.available`; bitwise the result of the NumPy path.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes._compiled import _jit, available


def _shifted_update_kernel(
    X, labels, weights, class_count, count, mean, m2, totals, sums, most, commit
):
    """See :func:`shifted_update`."""
    new_weight, s1, s2 = sums
    n_rows, n_features = X.shape
    n_classes = mean.shape[0]
    for i in range(n_rows):  # the pass over the rows: shifted sums
        w = weights[i]
        if w > 0:
            c = labels[i]
            if not class_count[c] > 0:
                return False
            new_weight[c] += w
            for j in range(n_features):
                deviation = X[i, j] - mean[c, j]
                s1[c, j] += w * deviation
                s2[c, j] += w * (deviation * deviation)
    if not commit:
        return True
    for c in range(n_classes):  # the new moments, checked, into s1 (mean) and s2 (M2)
        for j in range(n_features):
            if new_weight[c] > 0:
                shift = s1[c, j] / (count[c, j] + new_weight[c])
                new_m2 = m2[c, j] + (s2[c, j] - s1[c, j] * shift)
                new_mean = mean[c, j] + shift
                if not (
                    count[c, j] > 0
                    and np.isfinite(new_mean)
                    and np.isfinite(new_m2)
                    and s2[c, j] <= most * new_m2
                ):
                    return False
                s1[c, j], s2[c, j] = new_mean, new_m2
            else:
                s1[c, j], s2[c, j] = mean[c, j], m2[c, j]
    total_count, total_mean, total_m2 = totals
    pooled = np.empty((3, n_features))
    for j in range(n_features):  # pooled_totals of the new class moments
        total, first = 0.0, -1
        for c in range(n_classes):
            total += count[c, j] + new_weight[c]
            if first < 0 and count[c, j] + new_weight[c] > 0:
                first = c
        reference = s1[first, j] if first >= 0 else 0.0
        moment = 0.0
        for c in range(n_classes):
            n = count[c, j] + new_weight[c]
            moment += n * (s1[c, j] - reference if n > 0 else 0.0)
        offset = moment / total if first >= 0 else 0.0
        spread, within = 0.0, 0.0
        for c in range(n_classes):
            n = count[c, j] + new_weight[c]
            delta = (s1[c, j] - reference if n > 0 else 0.0) - offset
            spread += n * delta * delta if n > 0 else 0.0
            within += s2[c, j] if n > 0 else 0.0
        pooled[0, j], pooled[1, j], pooled[2, j] = total, reference + offset, within + spread
        if not (np.isfinite(pooled[1, j]) and np.isfinite(pooled[2, j])):
            return False
    for j in range(n_features):  # every check passed: write
        total_count[j], total_mean[j], total_m2[j] = pooled[0, j], pooled[1, j], pooled[2, j]
    for c in range(n_classes):
        class_count[c] += new_weight[c]
        for j in range(n_features):
            count[c, j] += new_weight[c]
            mean[c, j], m2[c, j] = s1[c, j], s2[c, j]
    return True


def shifted_update(
    X: NDArray[np.float64],
    labels: NDArray[np.intp],
    weights: NDArray[np.float64],
    stats,
    sums: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
    most: float,
    commit: bool,
) -> bool | None:
    """The steps of :func:`nbayes.events._gaussian_fit.shifted_update` (which states
    the maths and the checks), the same operations in the same order as its NumPy
    path (bitwise the same result); None when the compiled kernels are not available.

    First the sums ``(n, S1, S2)`` over rows X (n_rows, n_features) of classes
    ``labels`` and weights ``weights`` (n_rows,) are added into ``sums`` (shapes
    (n_classes,) and (n_classes, n_features)), row by row in order of i over the rows
    with ``w_i > 0`` (the sparse products' additions); False at the first such row
    whose class has no running count. Then, if ``commit``, the new moments from
    ``sums``, checked, are written into ``stats`` (a ``GaussianStats``) with the
    overall moments pooled from them (``S1`` and ``S2`` are overwritten); False
    (``stats`` untouched) where a check fails. So one call does a one-block batch;
    a batch of several blocks takes one call per block without ``commit`` and,
    after their sums are added, one with no rows and ``commit``.
    """
    if not available():
        return None
    totals = (stats.total_count, stats.total_mean, stats.total_m2)
    arrays = (stats.class_count, stats.count, stats.mean, stats.m2, totals, sums)
    return bool(_jit(_shifted_update_kernel)(X, labels, weights, *arrays, most, commit))
