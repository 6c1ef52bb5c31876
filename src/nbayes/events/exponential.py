"""Exponential event model: each feature is non-negative, exponential within each
class (waiting times, durations, distances).

``log P(x | c) = sum_j [log lambda_cj - lambda_cj x_j]`` for ``x_j >= 0``.

Estimate: the MLE ``lambda_cj = n_cj / S_cj`` (the UW-Madison slides: set
``d/d lambda [N log lambda - lambda sum x] = 0``), with ``n_cj`` the weighted number
of observed values of feature ``j`` in class ``c`` and ``S_cj`` their weighted sum.
Optionally the MAP under a conjugate Gamma(a, b) prior (shape ``a``, rate ``b``),
whose posterior is Gamma(a + n_cj, b + S_cj), with mode

    ``lambda_cj = max(n_cj + a - 1, 0) / (S_cj + b)``;

``a = 1, b = 0`` (the default) is the MLE; the prior reads as ``a - 1``
pseudo-observations with total ``b``, e.g. ``a = 2, b = typical value``.

Edge cases: with the MLE, ``S_cj = 0`` (only zeros seen) gives ``lambda = inf``, the
limit of a point mass at 0: ``log P(x_j | c) = +inf`` at ``x_j = 0`` and ``-inf``
above (the posterior then splits evenly between such classes). A feature that is such
a point mass in every class (a column of zeros) is a common factor at 0 and counts 0
there; above 0 it is impossible in every class. Where
``n_cj + a - 1 <= 0`` and ``S_cj + b = 0`` there is no estimate, and the term is left
out (``lambda = 0``, ``log lambda = 0``). A class with no observed value of feature
``j`` (every one missing) has no evidence about it; with a prior it has the prior's
mode (as a categorical class without counts has Lidstone's uniform), without one
(``n_cj + a - 1 <= 0``, ``S_cj + b = 0``) it takes the pooled rate,
``max(sum_c n_cj + a - 1, 0) / (sum_c S_cj + b)``, as a gaussian column takes the pooled
mean and variance: a density in the units of x, as the other classes' are.

Missing values: NaN entries of X add nothing to the statistics and leave their term
out of ``log_likelihood`` (see :mod:`nbayes.events.sums`).

Example
-------
>>> import numpy as np
>>> from nbayes.core.validation import hard_class_weights
>>> model = Exponential()
>>> X = np.array([[1.0], [3.0], [10.0], [30.0]])
>>> W = hard_class_weights(np.array([0, 0, 1, 1]), 2, None)
>>> model.estimate(model.summarize(X, W)).rate
array([[0.5 ],
       [0.05]])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes.core.namespace import namespace_of
from nbayes.core.validation import ClassWeights
from nbayes.events import _domain
from nbayes.events._contract import EventModel
from nbayes.events.poisson import gamma_prior
from nbayes.events.sums import (
    GRID_PROBABILITIES,
    SumStats,
    gamma_map_rates,
    mixture_quantiles,
    observed,
    observed_array,
    summarize,
    summarize_array,
)

__all__ = ["Exponential", "ExponentialParams", "SumStats"]


@dataclass(frozen=True)
class ExponentialParams:
    """``rate`` (lambda) and ``log_rate``, each of shape (n_classes, n_features)."""

    rate: NDArray[np.float64]
    log_rate: NDArray[np.float64]


_ALPHA, _BETA = gamma_prior(1.0, 0.0)


@dataclass(frozen=True)
class Exponential(EventModel[SumStats, ExponentialParams]):
    """The exponential event model (non-negative values): MLE rates by default, or
    Gamma(``alpha``, ``beta``)-MAP rates."""

    name: ClassVar[str] = "exponential"
    factor_kind: ClassVar[str] = "density"

    alpha: float = _ALPHA
    beta: float = _BETA

    def check(self, X):
        return _domain.nonnegative(X, "non-negative values")

    def zero(self, n_classes: int, n_features: int) -> SumStats:
        return SumStats.zero(n_classes, n_features)

    def summarize(self, X, W: ClassWeights) -> SumStats:
        return summarize(X, W)

    def summarize_array(self, X, W) -> SumStats:
        return summarize_array(X, W)

    def estimate(self, stats: SumStats) -> ExponentialParams:
        """MLE (``alpha=1, beta=0``) or Gamma-MAP rates; see module doc."""
        # a class with no observed value of a feature and no estimate from the prior
        # backs off to the pooled rate (with a prior it has the prior's mode)
        rate, log_rate = gamma_map_rates(
            stats.count, stats.total, stats.count, self.alpha, self.beta, infinite_rates=True
        )
        return ExponentialParams(rate, log_rate)

    def log_parameter_prior(self, params: ExponentialParams) -> float:
        """``sum (alpha - 1) log lambda - beta lambda`` over finite positive rates."""
        usable = np.isfinite(params.rate) & (params.rate > 0)
        terms = (self.alpha - 1.0) * params.log_rate - self.beta * params.rate
        return float(np.sum(terms[usable]))

    def log_likelihood(self, params: ExponentialParams, X) -> NDArray[np.float64]:
        """``log P(x | c)`` for non-negative X (n_samples, n_features), NaN = missing →
        (n_samples, n_classes).

        Fast path ``observed @ log(lambda).T - X @ lambda.T``; where a rate is infinite
        or zero, the terms are summed one by one with ``lambda x = 0`` at ``x = 0``.
        """
        mask, filled = observed(X)
        rate, log_rate = params.rate, params.log_rate
        if np.all(np.isfinite(log_rate)):
            return mask.astype(np.float64) @ log_rate.T - filled @ rate.T
        out = np.empty((X.shape[0], rate.shape[0]))
        shared = _shared_point_masses(rate)
        for c in range(rate.shape[0]):
            term = _terms_of_class(rate[c], log_rate[c], mask, filled, shared)
            with np.errstate(invalid="ignore"):
                out[:, c] = term.sum(axis=1)
            out[np.isneginf(term).any(axis=1), c] = -np.inf  # impossible beats a point mass
        return out

    def onnx_log_likelihood(self, params: ExponentialParams, x: str, graph) -> str:
        """``observed @ log(lambda).T - x @ lambda.T`` for finite rates; otherwise the
        terms one by one as :func:`_terms_of_class` writes them, an impossible term
        (``-inf``) winning over a point mass (``+inf``)."""
        observed, filled = graph.observed(x)
        rate, log_rate = params.rate, params.log_rate
        if np.all(np.isfinite(log_rate)):
            return graph.op("Sub", graph.matmul(observed, log_rate), graph.matmul(filled, rate))
        shared = _shared_point_masses(rate)
        values = graph.per_class(filled)  # (n, 1, F)
        positive = graph.op("Greater", values, graph.const(0.0))
        finite_rate = np.where(np.isfinite(rate), rate, 0.0)
        term = graph.op("Sub", graph.const(log_rate),
                        graph.op("Mul", values, graph.const(finite_rate)))  # fmt: skip
        impossible = graph.op("And", positive, graph.const(np.isposinf(rate)[None]))
        term = graph.where(impossible, graph.const(-np.inf), term)
        cancels = graph.op("And", graph.op("Not", positive), graph.const(shared[None, None, :]))
        missing = graph.per_class(graph.is_missing(x))
        term = graph.zero_where(graph.op("Or", cancels, missing), term)
        total = graph.sum_terms(term)
        any_impossible = graph.reduce(
            "ReduceMax", graph.op("Cast", graph.op("IsInf", term, detect_positive=0),
                                  to=graph.float_type), axis=2)  # fmt: skip
        return graph.where(graph.op("Greater", any_impossible, graph.const(0.0)),
                           graph.const(-np.inf), total)  # fmt: skip

    def log_likelihood_array(self, params: ExponentialParams, X):
        """:meth:`log_likelihood` in X's namespace: the product form where every rate is
        finite and positive, else class by class as :func:`_terms_of_class` says."""
        xp = namespace_of(X)
        mask, filled = observed_array(X)
        rate, log_rate = params.rate, params.log_rate
        if bool(xp.all(xp.isfinite(log_rate))):
            return mask @ log_rate.T - filled @ rate.T
        shared = xp.all(rate == np.inf, axis=0)
        positive = filled > 0
        zero = xp.zeros_like(filled)
        columns = []
        for c in range(rate.shape[0]):
            term = log_rate[c] - xp.where(positive, filled * rate[c], zero)
            term = xp.where(positive & (rate[c] == np.inf), xp.full_like(term, -np.inf), term)
            term = xp.where(~positive & shared, zero, term)
            term = xp.where(mask > 0, term, zero)
            impossible = xp.any(term == -np.inf, axis=1)
            total = xp.sum(term, axis=1)
            columns.append(xp.where(impossible, xp.full_like(total, -np.inf), total))
        return xp.stack(columns, axis=1)

    def log_likelihood_terms(self, params: ExponentialParams, X) -> NDArray[np.float64]:
        """``log lambda_cj - lambda_cj x_j`` per feature, 0 where missing:
        (n_samples, n_classes, n_features)."""
        mask, filled = observed(X)
        shared = _shared_point_masses(params.rate)
        return np.stack(
            [
                _terms_of_class(params.rate[c], params.log_rate[c], mask, filled, shared)
                for c in range(params.rate.shape[0])
            ],
            axis=1,
        )

    def sample(self, params, stats, class_index, rng) -> NDArray[np.float64]:
        """Values ``x_j ~ Exponential(rate_cj)`` (an infinite rate gives 0): (n, n_features)."""
        with np.errstate(divide="ignore"):
            scale = 1.0 / params.rate[class_index]
        return rng.exponential(scale)

    def describe(self, params, stats, n_features, class_prior) -> list[dict]:
        """Each feature's rate and mean (1 / rate) per class."""
        with np.errstate(divide="ignore"):
            mean = 1.0 / params.rate
        return [
            {"rate": params.rate[:, j].tolist(), "mean": mean[:, j].tolist()}
            for j in range(n_features)
        ]

    def value_grid(self, params, stats, j, class_prior) -> list:
        """Quantiles 5, 25, 50, 75 and 95 % of the class mixture."""
        rates = params.rate[:, j]
        used = (class_prior > 0) & (rates > 0) & np.isfinite(rates)
        if not used.any():
            return [0.0]
        weights, rates = class_prior[used] / class_prior[used].sum(), rates[used]

        def cdf(x):
            return (weights[None, :] * -np.expm1(-np.outer(x, rates))).sum(axis=1)

        high = float(np.max(-np.log(0.01) / rates)) * 10
        return mixture_quantiles(cdf, GRID_PROBABILITIES, 0.0, high).tolist()


def _shared_point_masses(rate: NDArray) -> NDArray[np.bool_]:
    """The features that are a point mass at 0 in every class (only zeros seen, in each
    class: a constant column), shape (n_features,)."""
    return np.all(np.isposinf(rate), axis=0) if rate.shape[0] else np.zeros(0, dtype=bool)


def _terms_of_class(
    rate: NDArray, log_rate: NDArray, mask: NDArray[np.bool_], filled: NDArray,
    shared: NDArray[np.bool_],
) -> NDArray[np.float64]:  # fmt: skip
    """``log lambda_j - lambda_j x_j`` for one class's rates, ``lambda x = 0`` at
    ``x = 0``, a point mass at 0 (infinite rate) impossible above 0, 0 where missing.

    A feature that is a point mass at 0 in every class (``shared``) tells no class from
    another at 0: its infinite factor is common to all and cancels, so it counts 0 (as
    +inf in every class it swamped the prior and every other feature, an even split)."""
    positive = filled > 0
    with np.errstate(invalid="ignore"):
        term = log_rate - np.where(positive, filled * rate, 0.0)
    term[positive & np.isposinf(rate)] = -np.inf
    term[~positive & shared] = 0.0
    return np.where(mask, term, 0.0)
