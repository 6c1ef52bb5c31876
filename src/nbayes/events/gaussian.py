"""Gaussian event model: each feature is normal within each class.

``log P(x | c) = -1/2 sum_j [log(2 pi var_cj) + (x_j - theta_cj)^2 / var_cj]``.

Statistics are, per class, the weighted count ``N_c``, mean ``theta_c`` and sum of
squared deviations ``M2_c`` (merged exactly with the pairwise formula of Chan,
Golub & LeVeque, 1979), plus the same three over all rows, which set the variance
floor. The variance is ``M2_c / (N_c - ddof)``: ``ddof=0`` is the maximum-likelihood
(biased) estimate, ``ddof=1`` Bessel's correction.

Variance floor: ``epsilon = var_smoothing * max_j Var(x_j)`` is added to every
variance, as in scikit-learn, with ``Var`` the (weighted) variance over all rows.
When every feature is constant that is 0 and would give a zero variance; then the
floor is ``var_smoothing * max_j mean(x_j)^2``, and ``var_smoothing * tiny`` (the
smallest normal float) when the data are all zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nbayes._parallel import map_blocks
from nbayes._validate import ClassWeights, row_blocks


def chan_merge(
    count_a: NDArray,
    mean_a: NDArray,
    m2_a: NDArray,
    count_b: NDArray,
    mean_b: NDArray,
    m2_b: NDArray,
) -> tuple[NDArray, NDArray, NDArray]:
    """Pool two (count, mean, M2) summaries; counts broadcast against the means.

    ``mean = mean_a + delta N_b / N`` and
    ``M2 = M2_a + M2_b + delta^2 N_a N_b / N`` with ``delta = mean_b - mean_a``.
    """
    count = np.add(count_a, count_b)
    share_b = np.divide(count_b, count, out=np.zeros(np.shape(count)), where=count > 0)
    delta = mean_b - mean_a
    mean = mean_a + delta * share_b
    m2 = m2_a + m2_b + delta * delta * count_a * share_b
    return count, mean, m2


@dataclass(frozen=True)
class GaussianStats:
    """Additive statistics of the Gaussian model.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
    mean, m2 : ndarray of shape (n_classes, n_features)
        Per-class weighted mean and sum of squared deviations.
    total_count : float
    total_mean, total_m2 : ndarray of shape (n_features,)
        The same over all rows (each weighted by its total class weight).
    """

    class_count: NDArray[np.float64]
    mean: NDArray[np.float64]
    m2: NDArray[np.float64]
    total_count: float
    total_mean: NDArray[np.float64]
    total_m2: NDArray[np.float64]

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> GaussianStats:
        return cls(
            np.zeros(n_classes),
            np.zeros((n_classes, n_features)),
            np.zeros((n_classes, n_features)),
            0.0,
            np.zeros(n_features),
            np.zeros(n_features),
        )

    def __add__(self, other: GaussianStats) -> GaussianStats:
        count, mean, m2 = chan_merge(
            self.class_count[:, None],
            self.mean,
            self.m2,
            other.class_count[:, None],
            other.mean,
            other.m2,
        )
        total, total_mean, total_m2 = chan_merge(
            self.total_count,
            self.total_mean,
            self.total_m2,
            other.total_count,
            other.total_mean,
            other.total_m2,
        )
        return GaussianStats(count.ravel(), mean, m2, float(total), total_mean, total_m2)

    def take_classes(self, index: NDArray[np.intp], n_classes: int) -> GaussianStats:
        """These statistics with class ``c`` moved to ``index[c]`` of ``n_classes``."""
        out = GaussianStats.zero(n_classes, self.mean.shape[1])
        out.class_count[index] = self.class_count
        out.mean[index] = self.mean
        out.m2[index] = self.m2
        return GaussianStats(
            out.class_count,
            out.mean,
            out.m2,
            self.total_count,
            self.total_mean,
            self.total_m2,
        )


def _weighted_moments(weights: NDArray, X: NDArray) -> tuple[float, NDArray, NDArray]:
    """Two-pass weighted (count, mean, M2) of the rows of X, shape (n_features,)."""
    count = float(weights.sum())
    if count <= 0:
        return 0.0, np.zeros(X.shape[1]), np.zeros(X.shape[1])
    mean = (weights @ X) / count
    deviation = X - mean
    return count, mean, weights @ (deviation * deviation)


def summarize(X: NDArray[np.float64], W: ClassWeights) -> GaussianStats:
    """Per-class and overall weighted moments of X (n_samples, n_features).

    Rows are taken in blocks small enough to stay in cache, so X is read from memory
    once. Within a block, two passes (no sum of squares cancels): the block's class
    means ``W_b.T @ X_b / N_b``, then the squared deviations from each row's own class
    mean (hard labels: one product; soft labels: one product per class). Blocks are
    pooled exactly with :func:`chan_merge`. The overall moments (weighting each row by
    its total class weight) follow from the class moments by the same pooling:
    ``N = sum_c N_c``, ``mean = sum_c N_c theta_c / N``,
    ``M2 = sum_c M2_c + N_c (theta_c - mean)^2``.
    """
    n_classes, n_features = W.n_classes, X.shape[1]
    count = np.zeros((n_classes, 1))
    mean = np.zeros((n_classes, n_features))
    m2 = np.zeros((n_classes, n_features))

    def moments(rows: slice) -> tuple[NDArray, NDArray, NDArray]:
        return _block_moments(X[rows], W.dense_block(rows), W.block_labels(rows))

    for block in map_blocks(moments, row_blocks(X.shape[0], n_features)):
        count, mean, m2 = chan_merge(count, mean, m2, *block)
    class_count = count.ravel()
    total_count = float(class_count.sum())
    if total_count > 0:
        total_mean = class_count @ mean / total_count
        spread = mean - total_mean
        total_m2 = m2.sum(axis=0) + class_count @ (spread * spread)
    else:
        total_mean, total_m2 = np.zeros(n_features), np.zeros(n_features)
    return GaussianStats(class_count, mean, m2, total_count, total_mean, total_m2)


def _block_moments(
    X: NDArray, weights: NDArray, labels: NDArray | None
) -> tuple[NDArray, NDArray, NDArray]:
    """Two-pass (count (k, 1), mean (k, d), M2 (k, d)) of one block of rows.

    ``weights`` is the block's dense class-weight matrix (rows, k); ``labels`` the
    class of each row for hard labels, else None.
    """
    count = weights.sum(axis=0)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (weights.T @ X) / count
    mean[count[:, 0] <= 0] = 0.0
    if labels is not None:
        deviation = X - mean[labels]
        np.square(deviation, out=deviation)
        m2 = weights.T @ deviation
    else:
        m2 = np.empty_like(mean)
        for c in range(mean.shape[0]):
            deviation = X - mean[c]
            np.square(deviation, out=deviation)
            m2[c] = weights[:, c] @ deviation
    return count, mean, m2


@dataclass(frozen=True)
class GaussianParams:
    """Per-class means ``theta`` and variances ``var`` (n_classes, n_features);
    ``epsilon`` the variance floor already added to ``var``."""

    theta: NDArray[np.float64]
    var: NDArray[np.float64]
    epsilon: float


def variance_floor(stats: GaussianStats, var_smoothing: float) -> float:
    """``var_smoothing`` times the largest overall feature variance (see module doc)."""
    if stats.total_count <= 0 or stats.total_mean.size == 0:
        return 0.0
    scale = float(np.max(stats.total_m2 / stats.total_count))
    if not scale > 0:
        scale = float(np.max(stats.total_mean**2))
    if not scale > 0:
        scale = np.finfo(np.float64).tiny
    return var_smoothing * scale


def estimate(stats: GaussianStats, var_smoothing: float, ddof: float) -> GaussianParams:
    """``var_cj = M2_cj / (N_c - ddof) + epsilon`` (``M2 / N_c`` where ``N_c <= ddof``)."""
    count = stats.class_count[:, None]
    denominator = np.where(count > ddof, count - ddof, count)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.where(denominator > 0, stats.m2 / denominator, 0.0)
    epsilon = variance_floor(stats, var_smoothing)
    return GaussianParams(stats.mean.copy(), var + epsilon, epsilon)


def log_likelihood(params: GaussianParams, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log P(x | c)`` for X (n_samples, n_features) → (n_samples, n_classes).

    Fast path: the quadratic form expanded into matrix products,
    ``A - 2B + C = sum_j x_j^2/var_cj - 2 x_j theta_cj/var_cj + theta_cj^2/var_cj``
    after shifting x and theta by the mean of the class means. Its rounding error is
    about ``sqrt(d) eps (A + 2|B| + C)``; wherever that exceeds
    ``RELATIVE_TOLERANCE * max(1, A - 2B + C)`` (cancellation: x close to a class
    mean that has a tiny variance), or the products overflow, the entry is
    recomputed directly as ``sum_j (x_j - theta_cj)^2 / var_cj``; so are the
    entries of classes that still compete for the posterior whose absolute error
    could exceed ``ABSOLUTE_TOLERANCE``.

    The (n_samples, n_classes) temporaries are updated in place: callers that want
    cache locality pass X in row blocks (as ``BaseNB`` prediction does).
    """
    theta, var = params.theta, params.var
    with np.errstate(divide="ignore"):
        log_norm = np.log(2.0 * np.pi * var).sum(axis=1)
        precision = 1.0 / var
    shift = theta.mean(axis=0)
    centred = X - shift
    centred_theta = theta - shift
    # rounding(bound) = bound * eps * sqrt(d): compare bounds against scaled tolerances
    unit = np.finfo(np.float64).eps * np.sqrt(max(X.shape[1], 1))
    with np.errstate(over="ignore", invalid="ignore"):
        cross = centred @ (centred_theta * precision).T
        np.square(centred, out=centred)
        quadratic = centred @ precision.T  # A, then A - 2B + C
        del centred
        means = (centred_theta * centred_theta * precision).sum(axis=1)
        bound = np.abs(cross)
        bound *= 2.0
        bound += quadratic
        bound += means  # A + 2|B| + C
        cross *= -2.0
        quadratic += cross
        quadratic += means
        del cross
        scale = np.maximum(quadratic, 1.0)
        scale *= RELATIVE_TOLERANCE / unit
        inexact = ~(bound <= scale)
        del scale
        out = quadratic + log_norm
        out *= -0.5
        suspect = bound > ABSOLUTE_TOLERANCE / unit
        if suspect.any():
            contender = out >= (np.nanmax(out, axis=1, keepdims=True) - POSTERIOR_RANGE)
            inexact |= contender & suspect
    if inexact.any():
        rows, classes = np.nonzero(inexact)
        quadratic[rows, classes] = _quadratic_direct(X, theta, var, rows, classes)
        out[rows, classes] = -0.5 * (log_norm[classes] + quadratic[rows, classes])
    return out


# Accuracy of the fast path (see log_likelihood): every entry to 1e-13 relative, and
# the entries that can matter to the posterior (within POSTERIOR_RANGE nats of the
# row's best class, so a posterior above ~1e-26) to 1e-11 absolute.
RELATIVE_TOLERANCE = 1e-13
ABSOLUTE_TOLERANCE = 1e-11
POSTERIOR_RANGE = 60.0
_PAIRS_PER_CHUNK = 1 << 14


def _quadratic_direct(
    X: NDArray, theta: NDArray, var: NDArray, rows: NDArray, classes: NDArray
) -> NDArray:
    """``sum_j (x_rj - theta_cj)^2 / var_cj`` for each pair (r, c); ``+inf`` on overflow."""
    out = np.empty(rows.shape[0])
    for start in range(0, rows.shape[0], _PAIRS_PER_CHUNK):
        r = rows[start : start + _PAIRS_PER_CHUNK]
        c = classes[start : start + _PAIRS_PER_CHUNK]
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            deviation = X[r] - theta[c]
            terms = (deviation * deviation) / var[c]
            out[start : start + r.shape[0]] = np.nan_to_num(terms.sum(axis=1), nan=np.inf)
    return out
