"""Gaussian kernels for rows with missing values: the class moments of the observed
entries of a row block (:func:`nbayes.events._gaussian_fit.block_moments`), and the
log-likelihood summed over each row's known features
(:func:`nbayes.events.gaussian.log_likelihood` of a table's gaussian columns); each
the same operations in the same order as its NumPy path (bitwise the same result)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes._kernels import available, jit

#: CPU seconds a step of each kernel saves over its reference path (1,000,000-row
#: calls, one thread; bench/NOTES.md, issue 29), for :func:`available`'s choice.
MOMENTS_SAVING_S, TERMS_SAVING_S = 40e-9, 12e-9

#: What one of the NumPy path's passes over a feature costs beyond its terms, in
#: terms (about 10 us: a few NumPy calls on a column), for :func:`available`.
FEATURE_PASS = 1_000


def _observed_moments_kernel(X, observed, labels, weights, count, reference, offset, m2):
    """See :func:`observed_class_moments`; the outputs start at zero. The reference of
    a class and feature is taken at its first usable entry, in the pass that sums the
    offsets (every earlier entry of it adds 0, as in the NumPy path)."""
    n_rows, n_features = X.shape
    seen = np.zeros(reference.shape, dtype=np.bool_)
    for i in range(n_rows):
        w, c = weights[i], labels[i]
        for j in range(n_features):
            usable = observed[i, j] and w > 0
            if usable and not seen[c, j]:
                seen[c, j] = True
                reference[c, j] = X[i, j]
            count[c, j] += w * (1.0 if observed[i, j] else 0.0)
            offset[c, j] += w * ((X[i, j] - reference[c, j]) if usable else 0.0)
    for c in range(offset.shape[0]):
        for j in range(n_features):
            offset[c, j] = offset[c, j] / count[c, j] if count[c, j] > 0 else 0.0
    for i in range(n_rows):
        w, c = weights[i], labels[i]
        for j in range(n_features):
            usable = observed[i, j] and w > 0
            deviation = ((X[i, j] - reference[c, j]) - offset[c, j]) if usable else 0.0
            m2[c, j] += w * (deviation * deviation)


def observed_class_moments(
    X: NDArray[np.float64],
    observed: NDArray[np.bool_],
    labels: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
) -> tuple[NDArray[np.float64], ...] | None:
    """The passes of :func:`nbayes.events._gaussian_fit.block_moments` for hard labels
    with missing values, row by row with no temporaries: ``(count, reference, offset,
    m2)``, each (n_classes, n_features), for rows X (n_rows, n_features) whose entries
    ``observed`` marks as present (X holds 0 elsewhere), of classes ``labels`` and
    weights ``weights`` (n_rows,).

    ``reference_cj`` is the first value of feature j in a row of class c with positive
    weight where it is observed (0 if none); ``count_cj = sum_i w_i [observed_ij]``,
    ``offset_cj = sum_i w_i s_ij / count_cj`` and ``m2_cj = sum_i w_i (s_ij -
    offset_cj)^2`` with ``s_ij = x_ij - reference_cj`` over the usable entries
    (observed, positive weight) and 0 elsewhere, each sum over every row in order of i:
    the additions of the sparse products ``W.T @ v`` the NumPy path makes, so the same
    rounding. None when the compiled kernels are not available, or not for so few
    values (:func:`available`).
    """
    if not available(X.size, MOMENTS_SAVING_S):
        return None
    shape = (n_classes, X.shape[1])
    count, reference, offset, m2 = (np.zeros(shape) for _ in range(4))
    jit(_observed_moments_kernel)(X, observed, labels, weights, count, reference, offset, m2)
    return count, reference, offset, m2


def _observed_log_likelihood_kernel(X, seen, theta, precision, log_norm, out):
    """See :func:`observed_log_likelihood`."""
    n_rows, n_features = X.shape
    n_classes = theta.shape[0]
    for i in range(n_rows):
        for c in range(n_classes):
            total = 0.0
            for j in range(n_features):
                x = X[i, j]
                if seen[j] and x == x:  # known: seen in training, and not NaN
                    deviation = x - theta[c, j]
                    total += log_norm[c, j] + deviation * deviation * precision[c, j]
            out[i, c] = total * -0.5


def observed_log_likelihood(
    X: NDArray[np.float64],
    seen: NDArray[np.bool_],
    theta: NDArray[np.float64],
    precision: NDArray[np.float64],
    log_norm: NDArray[np.float64],
) -> NDArray[np.float64] | None:
    """``-1/2 sum_j [log_norm_cj + (x_ij - theta_cj)^2 precision_cj]`` over the
    features j of row i that are known (``seen[j]``, and ``x_ij`` not NaN), the terms
    added in order of j: (n_rows, n_classes) for X (n_rows, n_features), ``theta``,
    ``precision = 1 / var`` and ``log_norm = log(2 pi var)`` (n_classes, n_features).
    None when the compiled kernels are not available, or not for so few terms
    (:func:`available`; the NumPy path's pass per feature counts as :data:`FEATURE_PASS`
    terms)."""
    work = (X.shape[0] * theta.shape[0] + FEATURE_PASS) * X.shape[1]
    if not available(work, TERMS_SAVING_S):
        return None
    out = np.empty((X.shape[0], theta.shape[0]))
    jit(_observed_log_likelihood_kernel)(X, seen, theta, precision, log_norm, out)
    return out
