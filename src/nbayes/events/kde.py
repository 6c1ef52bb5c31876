"""Kernel density event model (John & Langley, 1995): each feature's class-conditional
density is a Gaussian kernel density estimate,

``P(x_j | c) = 1 / (n_cj h_cj sqrt(2 pi)) sum_i w_ic exp(-(x_j - x_ij)^2 / (2 h_cj^2))``,

computed in log space with ``logsumexp``, where ``w_ic`` are the class weights of the
training rows (sample weight times label), ``n_cj = sum_i w_ic`` over rows where
feature ``j`` is observed.

Bandwidth, per class and feature, computed at estimate time from the summed moments
(never per batch, so fit == partial_fit == merge):
``h_cj = sigma_cj * n_cj ** (-1/5)`` ("scott") or ``sigma_cj * (3 n_cj / 4) ** (-1/5)``
("silverman"), scipy.stats.gaussian_kde's one-dimensional rules, with ``sigma_cj``
the weighted standard deviation ``sqrt(M2_cj / (n_cj - 1))`` (frequency weights, so
an integer weight equals a repeated row; scipy uses an effective sample size
instead). Where a class has at most one value or a constant feature, ``sigma_cj``
falls back to the feature's standard deviation over all classes; a feature constant
over all rows has no bandwidth: :class:`ConstantColumnError`. A float (or one per
feature) is the bandwidth ``h`` itself.

Exact or binned (the Stats)
---------------------------
- exact: the training rows themselves. Prediction costs ``O(n_test * n_train * d)``
  kernel evaluations and memory grows with the training set.
- binned: the rows replaced by per-class weighted counts and sums on a fixed grid of
  at most ``max_bins`` bins per feature (:mod:`nbayes.events.grid`): one kernel per
  class and occupied bin, at the class's mean value in the bin, weighted by its
  count (each value moves by less than the bin width; a bin holding one value keeps
  it exactly, so isolated points and the tails stay exact). Prediction costs
  ``O(n_test * k * max_bins * d)`` whatever the training size; the statistics add,
  merge and stream exactly, and the grid is the same whatever the order or split of
  the batches.
- ``max_exact`` rows: keep the rows while the statistics hold at most this many (0:
  always binned; None: always exact), then switch to the grid for good. The switch
  depends only on the total number of rows, so it too is order-independent.

Missing values: NaN entries add nothing and leave their term out of the likelihood.
Where ``n_cj = 0`` there is no density and the term is left out too.

Extreme magnitudes: the moments are kept scaled by ``2**s_j`` per feature
(:mod:`nbayes.events.moments`), and the parameters are too: kernel centres, bandwidths
and the points a density is evaluated at are divided by ``2**s_j`` (exact), and the
log-density gains ``-s_j log 2``. So values near 1e300 or 1e-300 get bandwidths (their
variances are beyond float64, not their scaled ones) and the same probabilities, up to
rounding, as the data rescaled to ordinary magnitudes. On ordinary data ``s_j = 0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.special import logsumexp
from sklearn.utils._param_validation import Interval, StrOptions

from nbayes.core.validation import ClassWeights
from nbayes.errors import NotEstimableError, StatisticsError
from nbayes.events import _gaussian_fit, grid, moments
from nbayes.events._contract import EventModel, setting
from nbayes.events._stats import Statistics
from nbayes.events.sums import GRID_PROBABILITIES, mixture_quantiles, observed

if TYPE_CHECKING:
    from scipy.interpolate import CubicSpline

__all__ = ["KDEParams", "KDEStats", "KernelDensity"]

_CELLS_PER_CHUNK = 1 << 20  # bounds the (rows x kernel centres) array in log_likelihood
_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)
_LOG_2 = np.log(2.0)
#: Scaled inputs are clipped to this magnitude (every density is 0 far beyond it).
_SCALED_INPUT_LIMIT = np.ldexp(1.0, 1000)


class ConstantColumnError(NotEstimableError):
    """A feature with one value only: no bandwidth rule applies. ``column`` is its index
    (``message``, if given, says so in the caller's terms)."""

    def __init__(self, column: int, message: str | None = None) -> None:
        super().__init__(
            message
            or f"Feature {column} is constant (or has one sample only): its kernel bandwidth "
            "would be 0. Drop the column, or give a bandwidth as a number.",
            column,
        )


@dataclass(frozen=True)
class KDEStats(Statistics):
    """Moments (for the bandwidth) plus either the rows or their grid histogram.

    Attributes
    ----------
    moments : MomentStats
    values : ndarray (n_rows, n_features) or None
        The training rows (exact mode), NaN = missing.
    weights : sparse CSR (n_rows, n_classes) or None
        Their class weights.
    grid : GridStats or None
        The binned rows (binned mode).
    max_exact : int or None
        Rows kept before switching to the grid (None: never switch).
    max_bins : int
    """

    moments: moments.MomentStats
    values: NDArray[np.float64] | None
    weights: sp.csr_matrix | None
    grid: grid.GridStats | None
    max_exact: int | None
    max_bins: int

    @property
    def class_count(self) -> NDArray[np.float64]:
        return self.moments.class_count

    @classmethod
    def zero(
        cls, n_classes: int, n_features: int, max_exact: int | None = None, max_bins: int = 512
    ) -> KDEStats:
        empty = ClassWeights(np.zeros(0), np.zeros(0, np.intp), n_classes)
        return _from_rows(
            np.zeros((0, n_features)),
            empty,
            moments.MomentStats.zero(n_classes, n_features),
            max_exact,
            max_bins,
        )

    def _as_grid(self) -> grid.GridStats:
        if self.grid is not None:
            return self.grid
        W = ClassWeights(self.weights)
        return grid.summarize(self.values, _dense(W), self.max_bins)

    def __add__(self, other: KDEStats) -> KDEStats:
        total = self.moments + other.moments
        if self.grid is None and other.grid is None:
            rows = self.values.shape[0] + other.values.shape[0]
            if self.max_exact is None or rows <= self.max_exact:
                values = np.vstack([self.values, other.values])
                weights = sp.vstack([self.weights, other.weights], format="csr")
                return KDEStats(total, values, weights, None, self.max_exact, self.max_bins)
        binned = self._as_grid() + other._as_grid()
        return KDEStats(total, None, None, binned, self.max_exact, self.max_bins)

    def _validate_more(self, n_classes: int, n_features: int) -> None:
        self.moments.validate(n_classes, n_features)
        if self.grid is not None:
            self.grid.validate(n_classes, n_features)
            return
        values, weights = self.values, self.weights
        if not isinstance(values, np.ndarray) or values.ndim != 2 or values.dtype.kind != "f":
            raise StatisticsError("KDEStats.values is not a 2-D float array.")
        if values.shape[1] != n_features or np.isinf(values).any():
            raise StatisticsError("KDEStats.values has the wrong width or infinite values.")
        if not sp.issparse(weights) or weights.shape != (values.shape[0], n_classes):
            raise StatisticsError("KDEStats.weights do not match the rows and classes.")
        data = weights.data
        if data.size and not (np.isfinite(data).all() and data.min() >= 0):
            raise StatisticsError("KDEStats.weights hold negative or non-finite weights.")

    def take_classes(self, index: NDArray[np.intp], n_classes: int) -> KDEStats:
        """These statistics with class ``c`` moved to ``index[c]`` of ``n_classes``."""
        total = self.moments.take_classes(index, n_classes)
        if self.grid is not None:
            binned = self.grid.take_classes(index, n_classes)
            return KDEStats(total, None, None, binned, self.max_exact, self.max_bins)
        k = self.weights.shape[1]
        move = sp.csr_matrix((np.ones(k), (np.arange(k), index)), shape=(k, n_classes))
        weights = sp.csr_matrix(self.weights @ move)
        return KDEStats(total, self.values, weights, None, self.max_exact, self.max_bins)


def _dense(W: ClassWeights) -> ClassWeights:
    """W as a soft (dense) weight matrix."""
    matrix = W.matrix.toarray() if sp.issparse(W.matrix) else W.matrix
    return ClassWeights(np.asarray(matrix, dtype=np.float64))


def _from_rows(X, W: ClassWeights, total, max_exact, max_bins) -> KDEStats:
    if max_exact is None or X.shape[0] <= max_exact:
        weights = sp.csr_matrix(W.matrix, dtype=np.float64)
        return KDEStats(total, X, weights, None, max_exact, max_bins)
    return KDEStats(total, None, None, grid.summarize(X, W, max_bins), max_exact, max_bins)


def _moments(X: NDArray[np.float64], W: ClassWeights) -> moments.MomentStats:
    """Weighted moments of X (n_samples, n_features), NaN = missing."""
    mask, filled = observed(X)
    return _gaussian_fit.summarize(filled, W, None if mask.all() else mask)


def _summarize(
    X: NDArray[np.float64], W: ClassWeights, max_exact: int | None, max_bins: int
) -> KDEStats:
    """One batch's statistics: moments, and the rows or their grid (see module doc)."""
    return _from_rows(np.asarray(X, np.float64), W, _moments(X, W), max_exact, max_bins)


@dataclass(frozen=True)
class KDEParams:
    """Kernel centres and bandwidths.

    Attributes
    ----------
    centres : list (n_features) of lists (n_classes) of (points, log_weights)
        The kernel centres of class ``c``, feature ``j`` and their log weights.
    bandwidth : ndarray of shape (n_classes, n_features)
    log_norm : ndarray of shape (n_classes, n_features)
        ``-log(n_cj h_cj sqrt(2 pi))``, in the units of x.
    exponent : int64 ndarray of shape (n_features,)
        Centres and bandwidths of feature ``j`` are in units of ``2**exponent[j]``.
    """

    centres: list[list[tuple[NDArray[np.float64], NDArray[np.float64]]]]
    bandwidth: NDArray[np.float64]
    log_norm: NDArray[np.float64]
    curves: list[list[CubicSpline | None]] | None = None
    exponent: NDArray[np.int64] | None = None

    def in_units(self, x: NDArray[np.float64], j: int) -> NDArray[np.float64]:
        """Values ``x`` of feature ``j`` in the parameters' units (clipped far out)."""
        if self.exponent is None or self.exponent[j] == 0:
            return x
        with np.errstate(over="ignore"):
            scaled = np.ldexp(x, -int(self.exponent[j]))
        return np.clip(scaled, -_SCALED_INPUT_LIMIT, _SCALED_INPUT_LIMIT)

    def in_units_of_x(self, x: NDArray[np.float64], j: int) -> NDArray[np.float64]:
        """Values ``x`` of feature ``j`` in the parameters' units, back in x's."""
        if self.exponent is None or self.exponent[j] == 0:
            return x
        with np.errstate(over="ignore"):
            return np.ldexp(x, int(self.exponent[j]))


def bandwidth(stats: moments.MomentStats, rule: str | float | NDArray) -> NDArray[np.float64]:
    """``h_cj`` of shape (n_classes, n_features) by the rule named, or as given (in
    the units of x), in the statistics' scaled units."""
    shape = stats.count.shape
    if not isinstance(rule, str):
        given = np.broadcast_to(np.asarray(rule, dtype=np.float64), shape)
        with np.errstate(over="ignore", under="ignore"):
            return np.ldexp(given, -moments.scale_of(stats.exponent))
    sigma = np.sqrt(moments.variance(stats))
    overall = np.sqrt(moments.total_variance(stats))
    for j in np.flatnonzero(~(overall > 0)):
        if np.any(stats.count[:, j] > 0):
            raise ConstantColumnError(int(j))
    sigma = np.where(sigma > 0, sigma, overall)
    n = np.maximum(stats.count, 1.0)
    factor = n ** (-0.2) if rule == "scott" else (0.75 * n) ** (-0.2)
    return sigma * factor


def _pool_unobserved(moments_, rule, per_class, h, log_norm, j: int, exponent: int) -> None:
    """A class with no observed value of feature ``j`` has no evidence about it: its
    density backs off to the pooled one, every class's kernels together (bandwidth by
    the rule at the pooled count and spread), as a gaussian column backs off to the
    pooled mean and variance; not a term left out (a factor of 1, which depends on the
    units of x). Updates ``per_class``, ``h`` and ``log_norm`` in place."""
    empty = [c for c, (points, _) in enumerate(per_class) if points.shape[0] == 0]
    total = float(np.sum(moments_.count[:, j]))
    if not empty or not total > 0:
        return
    points = np.concatenate([p for p, _ in per_class])
    log_weights = np.concatenate([w for _, w in per_class])
    if isinstance(rule, str):
        spread = float(np.sqrt(moments.total_variance(moments_))[j])
        width = spread * (total ** (-0.2) if rule == "scott" else (0.75 * total) ** (-0.2))
    else:
        width = None
    for c in empty:
        per_class[c] = (points, log_weights)
        if width is not None:
            h[c, j] = width
        with np.errstate(divide="ignore", invalid="ignore"):
            log_norm[c, j] = -(np.log(total) + np.log(h[c, j]) + _LOG_2 * exponent
                               + _HALF_LOG_2PI)  # fmt: skip


def _estimate(stats: KDEStats, bandwidth_rule: str | float | NDArray) -> KDEParams:
    """Bandwidths (see module doc) and kernel centres: the rows or bin centres."""
    h = bandwidth(stats.moments, bandwidth_rule)
    n_classes, n_features = h.shape
    count = stats.moments.count
    exponent = moments.scale_of(stats.moments.exponent)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_norm = -(np.log(count) + np.log(h) + _LOG_2 * exponent + _HALF_LOG_2PI)
    centres = []
    for j in range(n_features):
        if stats.grid is not None:
            bins = stats.grid.occupied(j)
            weights = stats.grid.counts[:, j, bins]
            with np.errstate(divide="ignore", invalid="ignore"):
                points = stats.grid.sums[:, j, bins] / weights  # class means per bin
        else:
            column = stats.values[:, j]
            keep = ~np.isnan(column)
            weights = stats.weights[keep].T.toarray()
            points = np.broadcast_to(column[keep], weights.shape)
        points = np.ldexp(points, -exponent[j])  # exact: the scaled units
        per_class = []
        for c in range(n_classes):
            positive = weights[c] > 0
            per_class.append((points[c, positive], np.log(weights[c, positive])))
        _pool_unobserved(stats.moments, bandwidth_rule, per_class, h, log_norm, j, exponent[j])
        centres.append(per_class)
    curves = None
    if stats.grid is not None:  # binned: tabulate each density once (see log_likelihood)
        curves = [
            [
                _tabulate(points, log_weights, h[c, j])
                for c, (points, log_weights) in enumerate(per_class)
            ]
            for j, per_class in enumerate(centres)
        ]
    return KDEParams(centres, h, log_norm, curves, exponent)


# Binned densities are tabulated at STEPS_PER_BANDWIDTH points per bandwidth (at most
# MAX_TABLE points) and read back through a cubic spline: the interpolation error of
# log-density is about (1 / STEPS_PER_BANDWIDTH)^4, far below the binning error itself;
# values beyond TABLE_MARGIN bandwidths of the outermost centres are computed exactly.
STEPS_PER_BANDWIDTH = 16
MAX_TABLE = 4096
TABLE_MARGIN = 6.0


def _tabulate(points: NDArray, log_weights: NDArray, h: float) -> CubicSpline | None:
    """A cubic spline of ``log sum_i w_i exp(-(x - p_i)^2 / 2h^2)`` over the centres'
    range plus margins, or None where there is nothing to tabulate."""
    if points.shape[0] == 0 or not np.isfinite(h) or h <= 0:
        return None
    with np.errstate(over="ignore"):  # a range past the largest float: too wide, below
        low, high = points.min() - TABLE_MARGIN * h, points.max() + TABLE_MARGIN * h
        width = high - low
        size = int(np.clip(width / h * STEPS_PER_BANDWIDTH, 16, MAX_TABLE))
    if width / (size - 1) > h / 4:  # too wide a range to tabulate finely
        return None
    grid_x = np.linspace(low, high, size)
    if not np.all(np.diff(grid_x) > 0):  # a bandwidth below the float spacing of x
        return None
    # imported here: scipy.interpolate (with scipy.optimize and scipy.linalg) costs
    # ~0.09 s of every command's start-up, and only kde's tabulated curves use it
    from scipy.interpolate import CubicSpline

    return CubicSpline(grid_x, log_density(grid_x, points, log_weights, h))


def log_density(x: NDArray, points: NDArray, log_weights: NDArray, h: float) -> NDArray:
    """``log sum_i exp(log_w_i - (x - p_i)^2 / (2 h^2))`` for x (n,), chunked: (n,)."""
    out = np.empty(x.shape[0])
    step = max(1, _CELLS_PER_CHUNK // max(points.shape[0], 1))
    for start in range(0, x.shape[0], step):
        with np.errstate(over="ignore"):  # a far outlier: exp(-inf) = 0, as it should
            z = (x[start : start + step, None] - points[None, :]) / h
            out[start : start + step] = logsumexp(log_weights - 0.5 * z * z, axis=1)
    return out


def _log_likelihood_terms(params: KDEParams, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log P(x_j | c)`` for X (n_samples, n_features), 0 where missing:
    (n_samples, n_classes, n_features)."""
    n_classes = params.bandwidth.shape[0]
    out = np.zeros((X.shape[0], n_classes, X.shape[1]))
    for j, per_class in enumerate(params.centres):
        column = X[:, j]
        keep = ~np.isnan(column)
        x = params.in_units(column[keep], j)
        for c in range(n_classes):
            points, log_weights = per_class[c]
            if points.shape[0] == 0:
                continue  # no data for this class and feature: term left out
            curve = params.curves[j][c] if params.curves is not None else None
            if curve is None:
                density = log_density(x, points, log_weights, params.bandwidth[c, j])
            else:
                low, high = curve.x[0], curve.x[-1]
                inside = (x >= low) & (x <= high)
                density = np.empty(x.shape[0])
                density[inside] = curve(x[inside])
                density[~inside] = log_density(
                    x[~inside], points, log_weights, params.bandwidth[c, j]
                )
            out[keep, c, j] = density + params.log_norm[c, j]
    return out


def _onnx_log_density(graph, x: str, points: NDArray, log_weights: NDArray, h: float) -> str:
    """:func:`log_density` of the column ``x`` (n, 1) as ONNX ops: (n, 1)."""
    z = graph.op("Div", graph.op("Sub", x, graph.const(points[None, :])), graph.const(h))
    half = graph.op("Mul", graph.op("Mul", graph.const(0.5), z), z)
    exponents = graph.op("Sub", graph.const(log_weights[None, :]), half)
    return graph.reduce("ReduceLogSumExp", exponents, axis=1, keepdims=True)


def _onnx_spline(graph, x: str, curve, outside: str) -> str:
    """The cubic spline ``curve`` at the column ``x`` (n, 1) where x lies within its
    knots, ``outside`` elsewhere: the piece is found as ``searchsorted`` does (the
    knots at or below x), evaluated in Horner's form as scipy's ``PPoly``."""
    knots = curve.x
    inner = knots[1:-1]
    piece = graph.reduce("ReduceSum", graph.op(
        "Cast", graph.op("GreaterOrEqual", x, graph.const(inner[None, :])),
        to=graph.int64_type), axis=1)  # fmt: skip
    coefficients = np.ascontiguousarray(curve.c.T)  # (pieces, 4), highest power first
    base = graph.op("Gather", graph.const(knots[:-1]), piece, axis=0)
    offset = graph.op("Sub", graph.op("Squeeze", x, graph.const([1])), base)
    rows = graph.op("Gather", graph.const(coefficients), piece, axis=0)  # (n, 4)
    value = None
    for k in range(4):
        c = graph.op("Squeeze", graph.op("Slice", rows, graph.const([k]), graph.const([k + 1]),
                                         graph.const([1])), graph.const([1]))  # fmt: skip
        value = c if value is None else graph.op("Add", graph.op("Mul", value, offset), c)
    value = graph.op("Unsqueeze", value, graph.const([1]))
    inside = graph.op("And", graph.op("GreaterOrEqual", x, graph.const(float(knots[0]))),
                      graph.op("LessOrEqual", x, graph.const(float(knots[-1]))))  # fmt: skip
    return graph.where(inside, value, outside)


def _sample(
    params: KDEParams, class_index: NDArray[np.intp], rng: np.random.Generator
) -> NDArray[np.float64]:
    """Draw from each class's kernel density: pick a kernel centre by its weight, then
    add Gaussian noise of the bandwidth, feature by feature: (n, n_features)."""
    out = np.empty((class_index.shape[0], len(params.centres)))
    for j, per_class in enumerate(params.centres):
        for c, (points, log_weights) in enumerate(per_class):
            rows = np.flatnonzero(class_index == c)
            if rows.size == 0:
                continue
            weights = np.exp(log_weights - log_weights.max())
            chosen = rng.choice(points.shape[0], size=rows.size, p=weights / weights.sum())
            draws = rng.normal(points[chosen], params.bandwidth[c, j])
            out[rows, j] = params.in_units_of_x(draws, j)
    return out


@dataclass(frozen=True)
class KernelDensity(EventModel[KDEStats, KDEParams]):
    """The kernel density event model (John & Langley, 1995), exact or binned."""

    name: ClassVar[str] = "kde"
    factor_kind: ClassVar[str] = "density"

    bandwidth: Any = setting(
        "scott",
        StrOptions({"scott", "silverman"}),
        Interval(Real, 0, None, closed="neither"),
        "array-like",
    )
    algorithm: str = setting("auto", StrOptions({"auto", "exact", "binned"}))
    max_exact_samples: int = setting(10_000, Interval(Integral, 0, None, closed="left"))
    max_bins: int = setting(512, Interval(Integral, 2, None, closed="left"))

    @property
    def max_exact(self) -> int | None:
        """Rows kept exactly before switching to the grid (None: never switch)."""
        return {"exact": None, "binned": 0}.get(self.algorithm, self.max_exact_samples)

    def bandwidth_rule(self, n_features: int) -> str | NDArray[np.float64]:
        """The bandwidth rule, or the bandwidths checked: one number, or one per feature."""
        rule = self.bandwidth
        if isinstance(rule, str):
            return rule
        rule = np.asarray(rule, dtype=np.float64)
        if rule.ndim > 1 or (rule.ndim == 1 and rule.shape[0] != n_features):
            raise ValueError(
                f"bandwidth must be a number or one per feature ({n_features}); "
                f"got shape {rule.shape}."
            )
        if not np.all(rule > 0) or not np.all(np.isfinite(rule)):
            raise ValueError("bandwidth values must be positive and finite.")
        return rule

    def zero(self, n_classes: int, n_features: int) -> KDEStats:
        return KDEStats.zero(n_classes, n_features, self.max_exact, self.max_bins)

    def summarize(self, X, W: ClassWeights) -> KDEStats:
        return _summarize(X, W, self.max_exact, self.max_bins)

    def estimate(self, stats: KDEStats) -> KDEParams:
        """Bandwidths and kernel centres; a feature constant over all rows under a
        bandwidth rule raises :class:`ConstantColumnError`."""
        return _estimate(stats, self.bandwidth_rule(stats.moments.mean.shape[1]))

    def check_bandwidths(self, stats: KDEStats) -> None:
        """Raise :class:`ConstantColumnError` now for a feature no rule can bandwidth."""
        bandwidth(stats.moments, self.bandwidth_rule(stats.moments.mean.shape[1]))

    def log_likelihood(self, params: KDEParams, X) -> NDArray[np.float64]:
        """``sum_j log P(x_j | c)`` over the observed features: (n_samples, n_classes),
        added feature by feature."""
        terms = _log_likelihood_terms(params, np.asarray(X, dtype=np.float64))
        out = np.zeros(terms.shape[:2])
        for j in range(terms.shape[2]):
            out += terms[:, :, j]
        return out

    def log_likelihood_terms(self, params: KDEParams, X) -> NDArray[np.float64]:
        return _log_likelihood_terms(params, np.asarray(X, dtype=np.float64))

    def onnx_log_likelihood(self, params: KDEParams, x: str, graph) -> str:
        """Each feature's and class's ``log sum_i w_i exp(-(x - p_i)^2 / 2h^2)`` over
        its kernel centres (a ReduceLogSumExp), or, for a binned model's tabulated
        density, its cubic spline inside the table (outside, the exact sum), as
        :func:`_log_likelihood_terms` computes them; missing values and classes
        without data left out."""
        n_classes = params.bandwidth.shape[0]
        total = None
        for j, per_class in enumerate(params.centres):
            column = graph.op("Slice", x, graph.const([j]), graph.const([j + 1]),
                              graph.const([1]))  # fmt: skip
            scale = 1.0 if params.exponent is None else float(np.ldexp(1.0, -params.exponent[j]))
            if scale != 1.0:
                column = graph.op("Clip", graph.op("Mul", column, graph.const(scale)),
                                  graph.const(-_SCALED_INPUT_LIMIT),
                                  graph.const(_SCALED_INPUT_LIMIT))  # fmt: skip
            missing = graph.is_missing(column)
            column = graph.zero_where(missing, column)
            terms = []
            for c in range(n_classes):
                points, log_weights = per_class[c]
                if points.shape[0] == 0:
                    terms.append(graph.op("Mul", column, graph.const(0.0)))
                    continue
                curve = params.curves[j][c] if params.curves is not None else None
                density = _onnx_log_density(graph, column, points, log_weights,
                                            params.bandwidth[c, j])  # fmt: skip
                if curve is not None:
                    density = _onnx_spline(graph, column, curve, density)
                terms.append(graph.op("Add", density, graph.const(params.log_norm[c, j])))
            term = graph.zero_where(missing, graph.op("Concat", *terms, axis=1))
            total = term if total is None else graph.op("Add", total, term)
        return total

    def sample(self, params, stats, class_index, rng) -> NDArray[np.float64]:
        return _sample(params, class_index, rng)

    def describe(self, params, stats, n_features, class_prior) -> list[dict]:
        """Each feature's mean, standard deviation and kernel bandwidth per class."""
        sd = np.sqrt(moments.variance(stats.moments, ddof=0))
        return [
            {
                "mean": stats.moments.mean[:, j].tolist(),
                "sd": sd[:, j].tolist(),
                "bandwidth": params.bandwidth[:, j].tolist(),
            }
            for j in range(n_features)
        ]

    def value_grid(self, params, stats, j, class_prior) -> list:
        """Quantiles 5, 25, 50, 75 and 95 % of the class mixture of kernel densities."""
        pieces = [
            (weight, points, log_weights, params.bandwidth[c, j])
            for c, (weight, (points, log_weights)) in enumerate(
                zip(class_prior, params.centres[j], strict=True)
            )
            if weight > 0 and points.shape[0]
        ]
        if not pieces:
            return [0.0]
        from scipy.special import ndtr

        low = min(p.min() - 8 * h for _, p, _, h in pieces)
        high = max(p.max() + 8 * h for _, p, _, h in pieces)
        total = sum(w for w, *_ in pieces)

        def cdf(x):
            out = np.zeros(x.shape[0])
            for weight, points, log_weights, h in pieces:
                share = np.exp(log_weights - logsumexp(log_weights))
                out += weight / total * (ndtr((x[:, None] - points[None, :]) / h) @ share)
            return out

        quantiles = mixture_quantiles(cdf, GRID_PROBABILITIES, low, high)
        return params.in_units_of_x(quantiles, j).tolist()
