"""Gaussian kernels: the class moments of a row block, the one-pass update of running
moments by a later batch (:func:`nbayes.events._gaussian_fit.shifted_update`), and the
log-likelihood terms (:func:`nbayes.events.gaussian.log_likelihood`); each the same
operations in the same order as its NumPy path (bitwise the same result). Rows with
missing values: :mod:`nbayes._kernels.gaussian_observed`."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes._kernels import available, jit

#: CPU seconds a step of each kernel saves over its reference path (1,000,000-row
#: calls, one thread; bench/NOTES.md, issue 29), for :func:`available`'s choice.
MOMENTS_SAVING_S, UPDATE_SAVING_S, TERMS_SAVING_S = 2e-9, 3e-9, 2e-9


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
    kernels are not available, or not for so few values (:func:`available`).
    """
    if not available(X.size, MOMENTS_SAVING_S):
        return None
    shape = (class_count.shape[0], X.shape[1])
    reference, offset, m2 = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    jit(_class_moments_kernel)(X, labels, weights, class_count, reference, offset, m2)
    return reference, offset, m2


#: The magnitudes :func:`shifted_update` keeps unscaled (``events.moments``' ordinary
#: range, less a factor of two for the rounding of the bound on |x|).
ORDINARY_LOW, ORDINARY_HIGH = 2.0**-399, 2.0**399


def _shifted_update_kernel(
    X, labels, weights, class_count, count, mean, m2, totals, sums, track, most, commit
):
    """See :func:`shifted_update`."""
    new_weight, s1, s2, lightest, largest = sums
    low, high = ORDINARY_LOW, ORDINARY_HIGH
    n_rows, n_features = X.shape
    n_classes = mean.shape[0]
    for i in range(n_rows):  # the pass over the rows: shifted sums
        w = weights[i]
        if w > 0:
            c = labels[i]
            if not class_count[c] > 0:
                return False
            new_weight[c] += w
            lightest[0] = min(lightest[0], w)
            for j in range(n_features):
                deviation = X[i, j] - mean[c, j]
                s1[c, j] += w * deviation
                s2[c, j] += w * (deviation * deviation)
            for t in range(track.shape[0]):
                largest[t] = max(largest[t], abs(X[i, track[t]]))
    if not commit:
        return True
    for c in range(n_classes):  # the batch keeps the statistics' scale (unscaled)
        if new_weight[c] > 0:
            for j in range(n_features):
                if not abs(mean[c, j]) + np.sqrt(s2[c, j] / lightest[0]) <= high:
                    return False
    for t in range(track.shape[0]):
        if not (largest[t] == 0 or low <= largest[t] <= high):
            return False
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
    sums: tuple[NDArray[np.float64], ...],
    track: NDArray[np.intp],
    most: float,
    commit: bool,
) -> bool | None:
    """The steps of :func:`nbayes.events._gaussian_fit.shifted_update` (which states
    the maths and the checks), the same operations in the same order as its NumPy
    path (bitwise the same result); None when the compiled kernels are not available.

    First the sums ``(n, S1, S2)`` over rows X (n_rows, n_features) of classes
    ``labels`` and weights ``weights`` (n_rows,) are added into ``sums`` (shapes
    (n_classes,) and (n_classes, n_features)), the smallest ``w_i`` into its fourth
    array (1,), and the largest ``|x|`` of the features ``track`` (an index array)
    into its fifth (len(track),), row by row in order of i over the rows with
    ``w_i > 0`` (the sparse products' additions); False at the first such row whose
    class has no running count. Then, if ``commit``, False unless the batch keeps the
    statistics unscaled: ``|m| + sqrt(S2 / min w)`` (a bound on ``|x|``) at most
    :data:`ORDINARY_HIGH` for every class with rows here, and each tracked largest
    ``|x|`` 0 or ordinary; then the new moments from ``sums``, checked,
    are written into ``stats`` (a ``GaussianStats``) with the overall moments pooled
    from them (``S1`` and ``S2`` are overwritten); False (``stats`` untouched) where
    a check fails. So one call does a one-block batch;
    a batch of several blocks takes one call per block without ``commit`` and,
    after their sums are added, one with no rows and ``commit``. None where
    :func:`available` says no, for the values of X or of the statistics.
    """
    if not available(max(X.size, stats.mean.size), UPDATE_SAVING_S):
        return None
    totals = (stats.total_count, stats.total_mean, stats.total_m2)
    arrays = (stats.class_count, stats.count, stats.mean, stats.m2, totals, sums, track)
    return bool(jit(_shifted_update_kernel)(X, labels, weights, *arrays, most, commit))


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
    kernels are not available, or not for so few entries (:func:`available`)."""
    if not available(cross.size, TERMS_SAVING_S):
        return None
    inexact = np.empty(cross.shape, dtype=np.bool_)
    kernel = jit(_gaussian_terms_kernel)
    kernel(cross, quadratic, means, log_norm, relative, absolute, window, inexact)
    return cross, inexact
