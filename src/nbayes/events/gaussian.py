"""Gaussian event model: each feature is normal within each class.

``log P(x | c) = -1/2 sum_j [log(2 pi var_cj) + (x_j - theta_cj)^2 / var_cj]``.

Statistics are, per class and feature, the weighted count ``N_cj`` of observed
values, mean ``theta_cj`` and sum of squared deviations ``M2_cj`` (merged exactly
with the pairwise formula of Chan, Golub & LeVeque, 1979), plus the same three over
all rows, which set the variance floor. The variance is ``M2_cj / (N_cj - ddof)``:
``ddof=0`` is the maximum-likelihood (biased) estimate, ``ddof=1`` Bessel's
correction. Without missing values ``N_cj = N_c``, the class's weighted row count;
with an ``observed`` mask (see :func:`summarize`) a missing value adds nothing.

Variance floor: ``epsilon = var_smoothing * max_j Var(x_j)`` is added to every
variance, as in scikit-learn, with ``Var`` the (weighted) variance over all rows.
When every feature is constant that is 0 and would give a zero variance; then the
floor is ``var_smoothing * max_j mean(x_j)^2``, and ``var_smoothing * tiny`` (the
smallest normal float) when the data are all zero.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nbayes._kernels import gaussian as gaussian_kernels
from nbayes.core.parallel import SCRATCH, map_blocks
from nbayes.core.validation import ClassWeights, row_blocks
from nbayes.events._gaussian_fit import block_moments, hard_block_moments, shifted_update

#: Bytes of X per block of ``add_into`` (each read twice, the second time from cache);
#: 4 MiB measured best (bench/NOTES.md): fewer blocks, fewer per-block costs.
FIT_BLOCK_BYTES = 1 << 22


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
    with np.errstate(over="ignore", invalid="ignore"):
        delta = mean_b - mean_a
        mean = mean_a + delta * share_b
        # delta * (delta * N_a N_b / N): exactly 0 when one side is empty, however
        # large delta is, and no intermediate overflow where the result fits.
        m2 = m2_a + m2_b + delta * (delta * (count_a * share_b))
    return count, mean, m2


@dataclass(frozen=True)
class GaussianStats:
    """Additive statistics of the Gaussian model.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
        Weighted row count per class (the class prior's statistic).
    count, mean, m2 : ndarray of shape (n_classes, n_features)
        Per-class weighted count of observed values, mean and sum of squared
        deviations.
    total_count, total_mean, total_m2 : ndarray of shape (n_features,)
        The same over all rows (each weighted by its total class weight).
    """

    class_count: NDArray[np.float64]
    count: NDArray[np.float64]
    mean: NDArray[np.float64]
    m2: NDArray[np.float64]
    total_count: NDArray[np.float64]
    total_mean: NDArray[np.float64]
    total_m2: NDArray[np.float64]

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> GaussianStats:
        return cls(
            np.zeros(n_classes),
            np.zeros((n_classes, n_features)),
            np.zeros((n_classes, n_features)),
            np.zeros((n_classes, n_features)),
            np.zeros(n_features),
            np.zeros(n_features),
            np.zeros(n_features),
        )

    def __add__(self, other: GaussianStats) -> GaussianStats:
        count, mean, m2 = chan_merge(
            self.count,
            self.mean,
            self.m2,
            other.count,
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
        class_count = self.class_count + other.class_count
        merged = GaussianStats(class_count, count, mean, m2, total, total_mean, total_m2)
        merged.check_representable()
        return merged

    def finite_features(self) -> NDArray[np.bool_]:
        """Whether each feature's class and overall means and M2 are all finite,
        shape (n_features,)."""
        finite = np.isfinite(self.mean).all(axis=0) & np.isfinite(self.m2).all(axis=0)
        finite &= np.isfinite(self.total_mean) & np.isfinite(self.total_m2)
        return finite

    def check_representable(self) -> None:
        """Raise ValueError naming the features whose moments overflow float64."""
        finite = self.finite_features()
        if not finite.all():
            raise ValueError(
                f"The variance of feature(s) {np.flatnonzero(~finite).tolist()} cannot be "
                "represented in float64: the values are too far apart (their squared "
                "deviations overflow). Rescale X, e.g. with sklearn.preprocessing.StandardScaler."
            )

    def take_classes(self, index: NDArray[np.intp], n_classes: int) -> GaussianStats:
        """These statistics with class ``c`` moved to ``index[c]`` of ``n_classes``."""
        out = GaussianStats.zero(n_classes, self.mean.shape[1])
        out.class_count[index] = self.class_count
        out.count[index] = self.count
        out.mean[index] = self.mean
        out.m2[index] = self.m2
        return GaussianStats(
            out.class_count,
            out.count,
            out.mean,
            out.m2,
            self.total_count,
            self.total_mean,
            self.total_m2,
        )


def _weighted_moments(
    weights: NDArray, X: NDArray, usable: NDArray[np.bool_] | None = None
) -> tuple[NDArray, NDArray, NDArray]:
    """Weighted (count, mean, M2) of each feature over the usable entries of X, each of
    shape (n_features,); values are shifted by a usable one first (see ``summarize``)."""
    if usable is None:
        usable = (weights > 0)[:, None]
    usable = np.broadcast_to(usable, X.shape)
    count = weights @ usable
    has = usable.any(axis=0)
    reference = np.zeros(X.shape[1])
    reference[has] = X[np.argmax(usable, axis=0)[has], np.flatnonzero(has)]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        shifted = np.where(usable, X - reference, 0.0)
        offset = np.where(count > 0, (weights @ shifted) / count, 0.0)
        deviation = np.where(usable, shifted - offset, 0.0)
        return count, reference + offset, weights @ (deviation * deviation)


def summarize(
    X: NDArray[np.float64],
    W: ClassWeights,
    observed: NDArray[np.bool_] | None = None,
    on_non_finite: Callable[[], None] | None = None,
) -> GaussianStats:
    """Per-class and overall weighted moments of X (n_samples, n_features):
    :func:`add_into` zero statistics."""
    return add_into(GaussianStats.zero(W.n_classes, X.shape[1]), X, W, observed, on_non_finite)


def add_into(
    stats: GaussianStats,
    X: NDArray[np.float64],
    W: ClassWeights,
    observed: NDArray[np.bool_] | None = None,
    on_non_finite: Callable[[], None] | None = None,
) -> GaussianStats:
    """``stats`` pooled with the moments of X (n_samples, n_features) under W, in place
    (the caller must own ``stats``: nobody else may hold its arrays); returns ``stats``.

    The moments of cache-sized row blocks (:func:`summarize_block`, spread over
    threads) are pooled into ``stats`` one by one with :func:`chan_merge`, so X is read
    from memory once, the temporaries stay small and pooling stays exact: a feature
    constant within a class keeps its value as mean and ``M2 = 0`` (every block gives
    that value and ``M2 = 0``; pooling adds ``delta = 0``). Moments that overflow
    float64 raise ValueError (see ``GaussianStats.check_representable``). A later
    batch of hard labels goes in one pass where it can (``shifted_update``).

    ``on_non_finite``, if given, is called before anything is pooled when some block's
    moments are not finite: a NaN or infinity in a counted row of X always makes them
    so, which lets the caller check X's finiteness here, on the moments, instead of in
    a pass of its own (it raises its input error; if it returns, the moments overflow).
    """
    blocks = row_blocks(X.shape[0], X.shape[1], FIT_BLOCK_BYTES)
    hard = W.labels is not None and observed is None
    if hard and shifted_update(stats, X, W.labels, W.values, blocks):
        return stats

    def block_stats(rows: slice) -> GaussianStats:
        if hard:
            labels, weights = W.labels[rows], W.values[rows]
            return GaussianStats(
                *hard_block_moments(X[rows], labels, weights, W.n_classes, SCRATCH)
            )
        part = None if observed is None else observed[rows]
        return summarize_block(X[rows], W.rows(rows), part)

    parts = list(map_blocks(block_stats, blocks))
    if on_non_finite is not None and not all(part.finite_features().all() for part in parts):
        on_non_finite()
    for part in parts:
        _pool_into(stats, part)
    stats.check_representable()
    return stats


def _pool_into(stats: GaussianStats, part: GaussianStats) -> None:
    """``stats`` pooled with ``part`` (Chan et al.), written into ``stats``'s arrays."""
    with np.errstate(over="ignore", invalid="ignore"):
        pooled = chan_merge(stats.count, stats.mean, stats.m2, part.count, part.mean, part.m2)
        for target, value in zip((stats.count, stats.mean, stats.m2), pooled, strict=True):
            target[...] = value
        pooled = chan_merge(
            stats.total_count,
            stats.total_mean,
            stats.total_m2,
            part.total_count,
            part.total_mean,
            part.total_m2,
        )
        for target, value in zip(
            (stats.total_count, stats.total_mean, stats.total_m2), pooled, strict=True
        ):
            target[...] = value
    stats.class_count[...] += part.class_count


def summarize_block(
    X: NDArray[np.float64], W: ClassWeights, observed: NDArray[np.bool_] | None = None
) -> GaussianStats:
    """Per-class and overall weighted moments of X (n_samples, n_features), in one
    block (:func:`nbayes.events._gaussian_fit.block_moments`, which states the maths);
    overflow is not checked here (``add_into`` does)."""
    return GaussianStats(*block_moments(X, W, observed))


@dataclass(frozen=True)
class GaussianParams:
    """Per-class means ``theta`` and variances ``var`` (n_classes, n_features);
    ``epsilon`` the variance floor already added to ``var``."""

    theta: NDArray[np.float64]
    var: NDArray[np.float64]
    epsilon: float


def variance_floor(stats: GaussianStats, var_smoothing: float) -> float:
    """``var_smoothing`` times the largest overall feature variance (see module doc);
    features never observed are left out."""
    seen = stats.total_count > 0
    if not seen.any():
        return 0.0
    with np.errstate(over="ignore"):
        scale = float(np.max(stats.total_m2[seen] / stats.total_count[seen]))
        if not scale > 0:
            scale = float(np.max(stats.total_mean[seen] ** 2))
    if not scale > 0:
        scale = np.finfo(np.float64).tiny
    return var_smoothing * min(scale, np.finfo(np.float64).max)


def estimate(stats: GaussianStats, var_smoothing: float, ddof: float) -> GaussianParams:
    """``var_cj = M2_cj / (N_cj - ddof) + epsilon`` (``M2 / N_cj`` where ``N_cj <= ddof``).

    A class with rows but no observed value of feature ``j`` (possible only with
    missing values) gets that feature's overall mean and variance: the feature then
    carries almost no evidence about it, instead of a zero-variance spike at 0.
    """
    count = stats.count
    denominator = np.where(count > ddof, count - ddof, count)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.where(denominator > 0, stats.m2 / denominator, 0.0)
    theta = stats.mean.copy()
    unobserved = (count <= 0) & (stats.class_count[:, None] > 0)
    if unobserved.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            total_var = np.where(stats.total_count > 0, stats.total_m2 / stats.total_count, 0.0)
        theta = np.where(unobserved, stats.total_mean, theta)
        var = np.where(unobserved, total_var, var)
    epsilon = variance_floor(stats, var_smoothing)
    return GaussianParams(theta, var + epsilon, epsilon)


def log_likelihood(params: GaussianParams, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log P(x | c)`` for X (n_samples, n_features) → (n_samples, n_classes).

    Fast path: the quadratic form expanded into matrix products,
    ``A - 2B + C = sum_j x_j^2/var_cj - 2 x_j theta_cj/var_cj + theta_cj^2/var_cj``
    after shifting x and theta by the midrange of the class means. Its rounding error is
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
    with np.errstate(divide="ignore", over="ignore"):
        log_norm = np.log(2.0 * np.pi * var).sum(axis=1)
        precision = 1.0 / var
    shift = 0.5 * theta.min(axis=0) + 0.5 * theta.max(axis=0)  # midrange: cannot overflow
    centred = X - shift
    centred_theta = theta - shift
    # rounding(bound) = bound * eps * sqrt(d): compare bounds against scaled tolerances
    unit = np.finfo(np.float64).eps * np.sqrt(max(X.shape[1], 1))
    with np.errstate(over="ignore", invalid="ignore"):
        cross = centred @ (centred_theta * precision).T  # B
        np.square(centred, out=centred)
        quadratic = centred @ precision.T  # A
        del centred
        means = (centred_theta * centred_theta * precision).sum(axis=1)  # C
        tolerances = (RELATIVE_TOLERANCE / unit, ABSOLUTE_TOLERANCE / unit, POSTERIOR_RANGE)
        finished = gaussian_kernels.gaussian_terms(cross, quadratic, means, log_norm, *tolerances)
        if finished is None:
            finished = _terms(cross, quadratic, means, log_norm, *tolerances)
        out, inexact = finished
    if inexact.any():
        rows, classes = np.nonzero(inexact)
        direct = _quadratic_direct(X, theta, var, rows, classes)
        out[rows, classes] = -0.5 * (log_norm[classes] + direct)
    return out


def _terms(
    cross: NDArray, quadratic: NDArray, means: NDArray, log_norm: NDArray, *tolerances: float
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """``-1/2 (A - 2B + C + log_norm)`` and the mask of entries to recompute, in NumPy
    passes over the inputs (overwritten); see :func:`nbayes._kernels.gaussian.gaussian_terms`,
    the same in one compiled pass, for the arguments."""
    relative, absolute, window = tolerances
    bound = np.abs(cross)
    bound *= 2.0
    bound += quadratic
    bound += means  # A + 2|B| + C
    cross *= -2.0
    quadratic += cross
    quadratic += means
    scale = np.maximum(quadratic, 1.0)
    scale *= relative
    inexact = ~(bound <= scale)
    del scale
    out = quadratic
    out += log_norm
    out *= -0.5
    suspect = bound > absolute
    if suspect.any():
        contender = out >= (np.fmax.reduce(out, axis=1, keepdims=True) - window)
        inexact |= contender & suspect
    return out, inexact


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
            out[start : start + r.shape[0]] = np.nan_to_num(
                terms.sum(axis=1), nan=np.inf, posinf=np.inf
            )
    return out


def log_likelihood_terms(params: GaussianParams, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log N(x_j; theta_cj, var_cj) = -1/2 [log(2 pi var_cj) + (x_j - theta_cj)^2 / var_cj]``
    per feature, computed directly: shape (n_samples, n_classes, n_features).

    Summed over features it is :func:`log_likelihood` (to its rounding error).
    """
    X = np.asarray(X, dtype=np.float64)[:, None, :]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        deviation = X - params.theta[None, :, :]
        return -0.5 * (np.log(2.0 * np.pi * params.var) + deviation * deviation / params.var)


def sample(
    params: GaussianParams, class_index: NDArray[np.intp], rng: np.random.Generator
) -> NDArray[np.float64]:
    """Rows ``x ~ N(theta_c, diag(var_c))`` for each class index: (n, n_features)."""
    theta, var = params.theta[class_index], params.var[class_index]
    return rng.normal(theta, np.sqrt(var))
