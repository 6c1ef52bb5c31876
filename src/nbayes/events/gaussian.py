"""Gaussian event model: each feature is normal within each class.

``log P(x | c) = -1/2 sum_j [log(2 pi var_cj) + (x_j - theta_cj)^2 / var_cj]``.

Statistics are, per class and feature, the weighted count ``N_cj`` of observed
values, mean ``theta_cj`` and sum of squared deviations ``M2_cj`` (merged exactly
with the pairwise formula of Chan, Golub & LeVeque, 1979), plus the same three over
all rows, which set the variance floor. The variance is ``M2_cj / (N_cj - ddof)``:
``ddof=0`` is the maximum-likelihood (biased) estimate, ``ddof=1`` Bessel's
correction. Without missing values ``N_cj = N_c``, the class's weighted row count;
with ``skip_missing`` a NaN adds nothing, and its term (and that of a feature never
observed at all) is left out of the likelihood. A class with rows but no observed
value of feature ``j`` has no evidence about it; its ``theta_cj`` and ``var_cj`` back
off to the feature's pooled (all-class) mean and variance, the estimate of a class
about which nothing more is known (as a categorical class without counts gets
Lidstone's uniform distribution): a density, in the units of x, that other classes'
densities compare with, never a spike from the variance floor alone.

Variance floor: ``epsilon = var_smoothing * max_j Var(x_j)`` is added to every
variance, as in scikit-learn, with ``Var`` the (weighted) variance over all rows
(``floor="largest"``). When every feature is constant that is 0 and would give a zero
variance; then the floor is ``var_smoothing * max_j mean(x_j)^2``. A positive floor is
never below ``tiny``, the smallest normal float (so ``1 / var`` is finite: the floor of
data that are all zero, where ``var_smoothing * tiny`` would be subnormal). With
``floor="per_feature"`` each feature's floor is ``var_smoothing`` times its own
overall variance (the columns of a table have unrelated scales: adult's fnlwgt varies
~1e10, education-num ~7, and a floor set by one column would swamp another).

Extreme magnitudes (values near 1e300 or 1e-300): the statistics are kept scaled by
a power of two per feature (:mod:`nbayes.events.moments`), and so are the parameters:
``theta_cj / 2**p_j`` and ``var_cj / 4**p_j`` with ``p_j`` the statistics' scale, or
larger where the variance floor (set by another feature's variance) would not fit in
float64 at that scale. ``log P(x | c)`` is then computed on ``x / 2**p`` and corrected
by ``-sum_j p_j log 2``, the log of the scale, so it is the log-likelihood of x
itself: the same, up to rounding, as on the data rescaled to ordinary magnitudes. On
ordinary data every ``p_j`` is 0 and nothing of this runs (``exponent`` is None).

Example
-------
>>> import numpy as np
>>> from nbayes.core.validation import hard_class_weights
>>> model = Gaussian(var_smoothing=0.0, ddof=1)
>>> X = np.array([[6.0], [5.92], [5.58], [5.92], [5.0], [5.5], [5.42], [5.75]])
>>> W = hard_class_weights(np.array([0, 0, 0, 0, 1, 1, 1, 1]), 2, None)
>>> params = model.estimate(model.summarize(X, W))
>>> params.theta.round(4), params.var.round(6)
(array([[5.855 ],
       [5.4175]]), array([[0.035033],
       [0.097225]]))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from sklearn.utils._param_validation import Interval, StrOptions

from nbayes._kernels import gaussian as gaussian_kernels
from nbayes._kernels import gaussian_observed
from nbayes.core.namespace import copy_array, errstate, namespace_of, scalar_like
from nbayes.core.validation import ClassWeights
from nbayes.events._contract import EventModel, setting, skip_missing_setting
from nbayes.events._gaussian_fit import add_into
from nbayes.events.moments import GaussianStats, scale_of

__all__ = ["Gaussian", "GaussianParams", "GaussianStats"]

#: The standard normal quantiles of a continuous feature's value grid (the class
#: mixture's mean, plus or minus 1 and 1.645 standard deviations).
GRID_Z = (-1.645, -1.0, 0.0, 1.0, 1.645)


@dataclass(frozen=True)
class GaussianParams:
    """Per-class means ``theta`` and variances ``var`` (n_classes, n_features);
    ``epsilon`` the variance floor already added to ``var`` (a float, or one per
    feature), in the units of x; ``seen`` which features training ever observed
    (n_features,), or None for all; ``exponent`` (n_features,) the powers of two
    ``p_j`` that ``theta`` and ``var`` are scaled by (``theta_cj / 2**p_j``,
    ``var_cj / 4**p_j``: see the module doc), or None where all are 0."""

    theta: NDArray[np.float64]
    var: NDArray[np.float64]
    epsilon: Any
    seen: NDArray[np.bool_] | None = None
    exponent: NDArray[np.int64] | None = None

    def columns(self, keep: NDArray[np.bool_]) -> GaussianParams:
        """The parameters of the features ``keep`` only."""
        epsilon = self.epsilon[keep] if np.ndim(self.epsilon) else self.epsilon
        exponent = None if self.exponent is None else self.exponent[keep]
        return GaussianParams(self.theta[:, keep], self.var[:, keep], epsilon, None, exponent)

    def in_units_of_x(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(theta, var)`` in the units of x (a variance beyond float64 is inf)."""
        if self.exponent is None:
            return self.theta, self.var
        with np.errstate(over="ignore"):
            return np.ldexp(self.theta, self.exponent), np.ldexp(self.var, 2 * self.exponent)


def variance_floor(stats: GaussianStats, var_smoothing: float) -> float:
    """``var_smoothing`` times the largest overall feature variance (see module doc);
    features never observed are left out."""
    xp = namespace_of(stats.total_count)
    seen = stats.total_count > 0
    if not bool(xp.any(seen)):
        return 0.0
    with errstate(xp, over="ignore", divide="ignore", invalid="ignore"):
        unseen = xp.full_like(stats.total_m2, -np.inf)
        scale = float(xp.max(xp.where(seen, stats.total_m2 / stats.total_count, unseen)))
        if not scale > 0:
            scale = float(xp.max(xp.where(seen, stats.total_mean**2, unseen)))
    if not scale > 0:
        scale = np.finfo(np.float64).tiny
    floor = var_smoothing * min(scale, np.finfo(np.float64).max)
    # a positive floor is at least the smallest normal float, whose reciprocal (the
    # precision) still fits in float64: a subnormal one would overflow 1 / var
    return max(floor, np.finfo(np.float64).tiny) if var_smoothing > 0 else floor


def _estimate(stats: GaussianStats, epsilon: Any, ddof: float) -> GaussianParams:
    """``var_cj = M2_cj / (N_cj - ddof) + epsilon`` (``M2 / N_cj`` where ``N_cj <= ddof``).

    A class with rows but no observed value of feature ``j`` (possible only with
    missing values) gets that feature's overall mean and variance: the feature then
    carries almost no evidence about it, instead of a zero-variance spike at 0.
    """
    count = stats.count
    xp = namespace_of(count)
    zero = xp.zeros_like(count)
    denominator = xp.where(count > ddof, count - ddof, count)
    with errstate(xp, divide="ignore", invalid="ignore"):
        var = xp.where(denominator > 0, stats.m2 / denominator, zero)
    theta = copy_array(stats.mean)
    unobserved = (count <= 0) & (stats.class_count[:, None] > 0)
    if bool(xp.any(unobserved)):
        with errstate(xp, divide="ignore", invalid="ignore"):
            total_var = xp.where(
                stats.total_count > 0,
                stats.total_m2 / stats.total_count,
                xp.zeros_like(stats.total_m2),
            )
        theta = xp.where(unobserved, stats.total_mean, theta)
        var = xp.where(unobserved, total_var, var)
    return GaussianParams(theta, var + scalar_like(epsilon, var), epsilon)


#: Scaled inputs are clipped to this magnitude (beyond it every class's density is 0
#: to float64 anyway), so that ``x / 2**p`` of an ordinary x cannot overflow.
_SCALED_INPUT_LIMIT = np.ldexp(1.0, 1000)
_LOG_2 = np.log(2.0)


def _in_units(X: NDArray[np.float64], exponent: NDArray[np.int64]) -> NDArray[np.float64]:
    """``X / 2**exponent`` column by column (exact), clipped to the scaled input limit."""
    with np.errstate(over="ignore"):
        scaled = np.ldexp(X, -exponent)
    return np.clip(scaled, -_SCALED_INPUT_LIMIT, _SCALED_INPUT_LIMIT, out=scaled)


def _log_likelihood(params: GaussianParams, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log P(x | c)`` for X (n_samples, n_features) → (n_samples, n_classes); for
    scaled parameters computed on ``X / 2**p`` and corrected by ``-sum_j p_j log 2``."""
    if params.exponent is None:
        return _log_likelihood_in_units(params, X)
    out = _log_likelihood_in_units(params, _in_units(X, params.exponent))
    out -= _LOG_2 * float(params.exponent.sum())
    return out


def _log_likelihood_in_units(params: GaussianParams, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log P(x | c)`` for X (n_samples, n_features) in the parameters' units →
    (n_samples, n_classes).

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


#: A table's gaussian columns are scored directly (one pass, missing values skipped)
#: up to this many (class, feature) pairs; beyond, the GEMM path is faster (1,000,000
#: rows: 4 features x 3 classes 12 ms against 321 ms unblocked; 20,000 rows, 50 x 10:
#: 11 ms against 15 ms; 64 x 16: 21 against 16; 50 x 50: 50 against 21).
DIRECT_MAX_TERMS = 512


def _observed_log_likelihood(params: GaussianParams, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log P(x | c) = -1/2 sum_j [log(2 pi var_cj) + (x_j - theta_cj)^2 / var_cj]``
    over each row's known features (seen in training, not NaN), (n_samples, n_classes),
    computed directly, the terms added in order of j: one pass over the rows whatever
    their patterns of missing values (compiled), or one NumPy pass per feature over the
    rows that know it (the same operations in the same order)."""
    with np.errstate(divide="ignore", over="ignore"):
        log_norm = np.log(2.0 * np.pi * params.var)
        precision = 1.0 / params.var
    overflowed = np.isposinf(log_norm)
    if overflowed.any():  # 2 pi var beyond float64: its log still is finite
        log_norm[overflowed] = np.log(2.0 * np.pi) + np.log(params.var[overflowed])
    if params.exponent is not None:  # scaled: x_j / 2**p_j, each known term gains -p_j log 2
        X = _in_units(X, params.exponent)
        log_norm = log_norm + 2.0 * _LOG_2 * params.exponent
    seen = np.ones(X.shape[1], dtype=bool) if params.seen is None else params.seen
    compiled = gaussian_observed.observed_log_likelihood(X, seen, params.theta, precision,
                                                         log_norm)  # fmt: skip
    if compiled is not None:
        return compiled
    out = np.zeros((X.shape[0], params.theta.shape[0]))
    with np.errstate(over="ignore", invalid="ignore"):
        for j in np.flatnonzero(seen):
            rows = np.flatnonzero(~np.isnan(X[:, j]))
            deviation = X[rows, j, None] - params.theta[:, j]
            out[rows] += log_norm[:, j] + deviation * deviation * precision[:, j]
    out *= -0.5
    return out


#: The largest ``|theta_cj - midrange_j| / sigma_cj`` for which an exported float64
#: graph takes the matrix-product form (see ``Gaussian.onnx_log_likelihood``).
ONNX_GEMM_SPREAD = 30.0


def _onnx_gemm(model, params, x: str, graph, shift, centred_theta, precision, log_norm) -> str:
    """``-1/2 (x'^2 @ P.T) + x' @ (theta' P).T - 1/2 sum_j (theta'^2 P + log_norm)`` with
    ``x' = x - shift``, ``theta' = theta - shift``, ``P = 1 / var``; a missing value (or
    a feature never seen) is read as ``x' = 0`` and its constant taken back out by one
    more product with the mask of unknowns. An overflow (NaN from inf - inf) reads as
    an impossible value (``-inf``), as the direct computation gives."""
    centred = graph.op("Sub", x, graph.const(shift[None, :]))
    constant = centred_theta * centred_theta * precision + log_norm  # (k, d)
    unknown = None
    if model.skip_missing:
        unknown = graph.is_missing(centred)
        if params.seen is not None and not params.seen.all():
            unknown = graph.op("Or", unknown, graph.const(~params.seen[None, :]))
        centred = graph.zero_where(unknown, centred)
    ll = graph.add_constant(graph.matmul(centred, centred_theta * precision),
                            -0.5 * constant.sum(axis=1)[None, :])  # a Gemm with its constant
    ll = graph.gemm(graph.op("Mul", centred, centred), -0.5 * precision, ll)
    if unknown is not None:
        mask = graph.op("Cast", unknown, to=graph.float_type)
        ll = graph.gemm(mask, 0.5 * constant, ll)
    return graph.where(graph.op("IsNaN", ll), graph.const(-np.inf), ll)


# Floors of the scaled domain: a floor above FLOOR_LIMIT (or below 1 / FLOOR_LIMIT) in
# a feature's own units takes a scale of its own (a tiny one is raised to the smallest
# normal times var_smoothing, as the unscaled floor's last fallback).
FLOOR_LIMIT = np.ldexp(1.0, 900)


def _largest_of(values: NDArray, powers: NDArray, keep: NDArray[np.bool_]) -> tuple[float, int]:
    """The largest ``values[j] * 2**powers[j]`` over ``keep`` with ``values[j] > 0``, as
    ``(values[k], powers[k])``; ``(0.0, 0)`` if there is none."""
    candidates = np.flatnonzero(keep & (values > 0))
    if candidates.size == 0:
        return 0.0, 0
    size = np.log2(values[candidates]) + powers[candidates]
    k = candidates[int(np.argmax(size))]
    return float(values[k]), int(powers[k])


def _scaled_floor(
    stats: GaussianStats, var_smoothing: float, floor: str
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The variance floor of each feature as ``(mantissa, power)`` arrays
    (n_features,): ``var_smoothing`` times the largest (``"largest"``) or the feature's
    own (``"per_feature"``) overall variance, falling back to the squared mean and
    then the smallest normal float, each compared in the units of x."""
    scale = scale_of(stats.exponent)
    seen = stats.total_count > 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        spread = np.where(seen, stats.total_m2 / np.where(seen, stats.total_count, 1.0), 0.0)
        squared_mean = stats.total_mean * stats.total_mean
    n_features = scale.shape[0]
    if floor == "largest":
        value, power = _largest_of(spread, 2 * scale, seen)
        if value == 0:
            value, power = _largest_of(squared_mean, 2 * scale, seen)
        if value == 0:
            value, power = np.finfo(np.float64).tiny, 0
        mantissa = np.full(n_features, var_smoothing * value)
        return mantissa, np.full(n_features, float(power))
    value = np.where(spread > 0, spread, squared_mean)
    power = 2.0 * scale
    none = ~(value > 0)
    value[none], power[none] = np.finfo(np.float64).tiny, 0.0
    return var_smoothing * value, power


def _scaled_estimate(
    stats: GaussianStats, var_smoothing: float, floor: str, ddof: float
) -> GaussianParams:
    """:func:`_estimate` of scaled statistics: the parameters of feature ``j`` at the
    statistics' scale ``s_j``, or where the floor exceeds :data:`FLOOR_LIMIT` there, at
    the scale ``p_j`` that brings the floor near 1 (the moments, far below the floor,
    then scale to about 0)."""
    scale = scale_of(stats.exponent)
    mantissa, power = _scaled_floor(stats, var_smoothing, floor)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        floors = np.ldexp(mantissa, (power - 2 * scale).astype(np.int64))
        exponent = scale.copy()
        high = floors > FLOOR_LIMIT
        if high.any():
            log2_floor = np.log2(mantissa[high]) + power[high]
            exponent[high] = np.ceil(log2_floor / 2).astype(np.int64)
            lower = (power[high] - 2 * exponent[high]).astype(np.int64)
            floors[high] = np.ldexp(mantissa[high], lower)
        if var_smoothing > 0:
            floors = np.maximum(floors, np.finfo(np.float64).tiny)
        unfloored = _estimate(stats, 0.0, ddof)
        shift = scale - exponent
        theta = np.ldexp(unfloored.theta, shift)
        var = np.ldexp(unfloored.var, 2 * shift) + floors
        epsilon = np.ldexp(mantissa, power.astype(np.int64))
    epsilon = float(epsilon[0]) if floor == "largest" and epsilon.size else epsilon
    return GaussianParams(theta, var, epsilon, None, exponent)


def _log_likelihood_terms(params: GaussianParams, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log N(x_j; theta_cj, var_cj) = -1/2 [log(2 pi var_cj) + (x_j - theta_cj)^2 / var_cj]``
    per feature, computed directly: shape (n_samples, n_classes, n_features).

    Summed over features it is :func:`_log_likelihood` (to its rounding error).
    """
    X = np.asarray(X, dtype=np.float64)
    if params.exponent is not None:
        X = _in_units(X, params.exponent)
    X = X[:, None, :]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        deviation = X - params.theta[None, :, :]
        terms = -0.5 * (np.log(2.0 * np.pi * params.var) + deviation * deviation / params.var)
    if params.exponent is not None:
        terms -= _LOG_2 * params.exponent
    return terms


@dataclass(frozen=True)
class Gaussian(EventModel[GaussianStats, GaussianParams]):
    """The Gaussian event model (continuous features, normal within each class)."""

    name: ClassVar[str] = "gaussian"
    factor_kind: ClassVar[str] = "density"
    adds_in_place: ClassVar[bool] = True

    var_smoothing: float = setting(
        1e-9, Interval(Real, 0, None, closed="left"), shared="var_smoothing"
    )
    ddof: float = setting(0.0, Interval(Real, 0, None, closed="left"), shared="ddof")
    floor: str = setting("largest", StrOptions({"largest", "per_feature"}))
    skip_missing: bool = skip_missing_setting()

    def zero(self, n_classes: int, n_features: int) -> GaussianStats:
        return GaussianStats.zero(n_classes, n_features)

    def add_into(
        self,
        stats: GaussianStats,
        X,
        W: ClassWeights,
        on_non_finite: Callable[[], None] | None = None,
    ) -> GaussianStats:
        """``stats`` pooled with the moments of X (see
        :func:`nbayes.events._gaussian_fit.add_into`; ``on_non_finite`` is its check of
        X's finiteness, deferred to the moments)."""
        observed = None
        if self.skip_missing:  # the moments never read X where it is not observed
            observed = ~np.isnan(X)
            if observed.all():
                observed = None
        return add_into(stats, X, W, observed, on_non_finite)

    def summarize_array(self, X, W) -> GaussianStats:
        """The moments of X under W computed on X's device, two passes each (means,
        then squared deviations), as scikit-learn's array-API GaussianNB does: class
        by class, then over all rows. Unscaled (every exponent 0): values near the
        float64 limits overflow there and are refused by the representability check."""
        xp = namespace_of(X)
        n_classes, n_features = W.shape[1], X.shape[1]
        class_count = xp.sum(W, axis=0)
        count = xp.broadcast_to(class_count[:, None], (n_classes, n_features))
        nonempty = xp.where(class_count > 0, class_count, 1.0)
        mean = (W.T @ X) / nonempty[:, None]
        m2 = xp.stack([W[:, c] @ (X - mean[c, :]) ** 2 for c in range(n_classes)])
        row_weight = xp.sum(W, axis=1)
        total_count = xp.sum(class_count)
        total_mean = (row_weight @ X) / xp.where(total_count > 0, total_count, 1.0)
        total_m2 = row_weight @ (X - total_mean) ** 2
        stats = GaussianStats(
            class_count,
            xp.asarray(count, copy=True),
            mean,
            m2,
            xp.asarray(xp.broadcast_to(total_count, (n_features,)), copy=True),
            total_mean,
            total_m2,
            np.zeros(n_features, dtype=np.int64),
        )
        stats.check_representable()
        return stats

    def variance_floor(self, stats: GaussianStats) -> Any:
        """``epsilon``: one floor for all features (``"largest"``) or one per feature."""
        if self.floor == "largest":
            return variance_floor(stats, self.var_smoothing)
        return np.array(
            [
                variance_floor(stats.column(j), self.var_smoothing)
                for j in range(stats.mean.shape[1])
            ]
        )

    def estimate(self, stats: GaussianStats) -> GaussianParams:
        if stats.scaled:
            params = _scaled_estimate(stats, self.var_smoothing, self.floor, self.ddof)
        else:
            params = _estimate(stats, self.variance_floor(stats), self.ddof)
        if self.skip_missing:
            seen = stats.total_count > 0
            return GaussianParams(params.theta, params.var, params.epsilon, seen, params.exponent)
        return params

    def _unknown(self, params: GaussianParams, X) -> NDArray[np.bool_] | None:
        """What the likelihood leaves out: missing values and features never seen."""
        if not self.skip_missing:
            return None
        unknown = np.isnan(X)
        if params.seen is not None and not params.seen.all():
            unknown |= ~params.seen
        return unknown if unknown.any() else None

    def log_likelihood(self, params: GaussianParams, X) -> NDArray[np.float64]:
        """``log P(x | c)`` (n_samples, n_classes). With ``skip_missing`` (a table's
        columns) summed over each row's known features: directly, in one pass, for a
        table's few columns (so rows with missing values cost what complete rows
        cost); for many, by the GEMM path with the gaps filled, then the rows with a
        gap again directly."""
        if not self.skip_missing:
            return _log_likelihood(params, X)
        if params.theta.size <= DIRECT_MAX_TERMS:
            return _observed_log_likelihood(params, X)
        unknown = self._unknown(params, X)
        if unknown is None:
            return _log_likelihood(params, X)
        partial = np.flatnonzero(unknown.any(axis=1))
        if partial.shape[0] < X.shape[0]:
            out = _log_likelihood(params, np.where(unknown, params.theta[0], X))
        else:  # no row has every feature known (e.g. a feature never seen in training)
            out = np.empty((X.shape[0], params.theta.shape[0]))
        out[partial] = _observed_log_likelihood(params, X[partial])
        return out

    def onnx_log_likelihood(self, params: GaussianParams, x: str, graph) -> str:
        """``-1/2 sum_j [log(2 pi var_cj) + (x_j - theta_cj)^2 / var_cj]``, missing
        values and features never seen left out; scaled parameters read ``x / 2**p``
        (see the module doc). In float64, where the class means lie within
        :data:`ONNX_GEMM_SPREAD` standard deviations of their midrange, as the fast
        path of :func:`_log_likelihood_in_units` computes it (two matrix products on x
        shifted by that midrange, whose cancellation error is then below 1e-12 for x in
        the data's range); otherwise directly over (n, n_classes, n_features)."""
        with np.errstate(divide="ignore"):
            log_norm = np.log(2.0 * np.pi * params.var)
            precision = 1.0 / params.var
        if params.exponent is not None:
            scale = np.ldexp(1.0, -params.exponent)[None, :]
            x = graph.op("Clip", graph.op("Mul", x, graph.const(scale)),
                         graph.const(-_SCALED_INPUT_LIMIT), graph.const(_SCALED_INPUT_LIMIT))
            log_norm = log_norm + 2.0 * _LOG_2 * params.exponent
        shift = 0.5 * params.theta.min(axis=0) + 0.5 * params.theta.max(axis=0)
        centred_theta = params.theta - shift
        with np.errstate(invalid="ignore", over="ignore"):
            spread = np.abs(centred_theta) * np.sqrt(precision)
        if graph.dtype == np.float64 and np.all(spread <= ONNX_GEMM_SPREAD):
            return _onnx_gemm(self, params, x, graph, shift, centred_theta, precision, log_norm)
        deviation = graph.op("Sub", graph.per_class(x), graph.const(params.theta))
        squared = graph.op("Mul", graph.op("Mul", deviation, deviation), graph.const(precision))
        terms = graph.op("Mul", graph.op("Add", squared, graph.const(log_norm)),
                         graph.const(-0.5))  # fmt: skip
        if self.skip_missing:
            unknown = graph.per_class(graph.is_missing(x))
            if params.seen is not None and not params.seen.all():
                unknown = graph.op("Or", unknown, graph.const(~params.seen[None, None, :]))
            terms = graph.zero_where(unknown, terms)
        return graph.sum_terms(terms)

    def onnx_column_kind(self, params: GaussianParams, j: int) -> str:
        return "float"

    def log_likelihood_array(self, params: GaussianParams, X):
        """``log P(x | c)`` in X's namespace, class by class as scikit-learn's
        array-API GaussianNB computes it: ``-1/2 sum_j log(2 pi var_cj) + (x_j -
        theta_cj)^2 / var_cj`` (unscaled parameters: see :meth:`summarize_array`)."""
        xp = namespace_of(X)
        theta, var = params.theta, params.var
        log_norm = xp.sum(xp.log((2.0 * np.pi) * var), axis=1)
        columns = [
            -0.5 * (log_norm[c] + xp.sum((X - theta[c, :]) ** 2 / var[c, :], axis=1))
            for c in range(theta.shape[0])
        ]
        return xp.stack(columns, axis=1)

    def log_likelihood_terms(self, params: GaussianParams, X) -> NDArray[np.float64]:
        X = np.asarray(X, dtype=np.float64)
        terms = _log_likelihood_terms(params, X)
        unknown = np.isnan(X)
        if params.seen is not None:
            unknown |= ~params.seen
        return np.where(unknown[:, None, :], 0.0, terms) if unknown.any() else terms

    def sample(self, params, stats, class_index, rng) -> NDArray[np.float64]:
        """Rows ``x ~ N(theta_c, diag(var_c))`` for each class index: (n, n_features)
        (drawn in the parameters' units, then scaled: exact)."""
        theta, var = params.theta[class_index], params.var[class_index]
        draws = rng.normal(theta, np.sqrt(var))
        return draws if params.exponent is None else np.ldexp(draws, params.exponent)

    def describe(self, params, stats, n_features, class_prior) -> list[dict]:
        """Each feature's mean and standard deviation per class (variance smoothed), in
        the units of x (a model of values near the float64 limits keeps them scaled)."""
        theta, sd = params.theta, np.sqrt(params.var)
        if params.exponent is not None:  # sd: sqrt(var * 4**p) = sqrt(var) * 2**p, exactly
            with np.errstate(over="ignore"):
                theta, sd = np.ldexp(theta, params.exponent), np.ldexp(sd, params.exponent)
        return [
            {"mean": theta[:, j].tolist(), "sd": sd[:, j].tolist()}
            for j in range(n_features)
        ]

    def value_grid(self, params, stats, j, class_prior) -> list:
        """The class mixture's mean, plus or minus 1 and 1.645 standard deviations."""
        mean = float(class_prior @ params.theta[:, j])
        second = float(class_prior @ (params.var[:, j] + params.theta[:, j] ** 2))
        sd = np.sqrt(max(second - mean**2, 0.0))
        grid = mean + sd * np.array(GRID_Z)
        if params.exponent is not None:  # back in the units of x, within float64
            with np.errstate(over="ignore"):
                grid = np.ldexp(grid, params.exponent[j])
            grid = np.clip(grid, -np.finfo(np.float64).max, np.finfo(np.float64).max)
        return grid.tolist()
