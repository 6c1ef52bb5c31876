"""Poisson event model: each feature is a count, Poisson within each class.

``log P(x | c) = sum_j [x_j log lambda_cj - lambda_cj - log x_j!]``.

Estimate: the MAP of ``lambda_cj`` under a conjugate Gamma(a, b) prior (shape ``a``,
rate ``b``). The posterior is Gamma(a + S_cj, b + n_cj), with ``S_cj`` the weighted
sum of the counts and ``n_cj`` their weighted number, and its mode is

    ``lambda_cj = max(S_cj + a - 1, 0) / (n_cj + b)``.

``a = 1, b = 0`` gives the MLE ``S_cj / n_cj``, which is 0 for a feature never seen
in a class (and then any positive count has probability 0). The prior reads as
``b`` pseudo-observations with total count ``a - 1``: the default ``a = 2, b = 1``
adds one observation of count 1, so no rate is ever 0 (the Poisson analogue of
Laplace smoothing). Where ``n_cj + b = 0`` (no data and no prior rate) there is no
estimate: a class with no observed value of feature ``j`` then takes the pooled
rate, ``max(sum_c S_cj + a - 1, 0) / (sum_c n_cj + b)`` (no evidence about the
feature: the population's, as a gaussian column backs off to the pooled mean and
variance); where there is none either (no data at all), the rate-dependent part of
the term is left out (``lambda = 0``, ``log lambda = 0``: the term is ``-log x_j!``,
the same for every class).

Missing values: NaN entries of X add nothing to the statistics and leave their term
out of ``log_likelihood`` (see :mod:`nbayes.events.sums`).

Example
-------
>>> import numpy as np
>>> from nbayes.core.validation import hard_class_weights
>>> model = Poisson()
>>> X = np.array([[0.0], [2.0], [5.0], [7.0]])
>>> W = hard_class_weights(np.array([0, 0, 1, 1]), 2, None)
>>> model.estimate(model.summarize(X, W)).rate
array([[1.        ],
       [4.33333333]])
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy.special import gammaln
from sklearn.utils._param_validation import Interval

from nbayes.core.namespace import namespace_of, space_of, to_space
from nbayes.core.validation import ClassWeights
from nbayes.events import _domain
from nbayes.events._contract import EventModel, setting
from nbayes.events.counts import dot_with_infinities, product_array
from nbayes.events.sums import (
    SumStats,
    gamma_map_rates,
    observed,
    observed_array,
    summarize,
    summarize_array,
)

__all__ = ["Poisson", "PoissonParams", "SumStats"]


@dataclass(frozen=True)
class PoissonParams:
    """``rate`` (lambda) and ``log_rate``, each of shape (n_classes, n_features)."""

    rate: NDArray[np.float64]
    log_rate: NDArray[np.float64]


def gamma_prior(alpha: float, beta: float) -> tuple:
    """The ``alpha`` (shape) and ``beta`` (rate) settings of a Gamma prior on the rates."""
    constraint = Interval(Real, 0, None, closed="left")
    return setting(alpha, constraint), setting(beta, constraint)


_ALPHA, _BETA = gamma_prior(2.0, 1.0)


@dataclass(frozen=True)
class Poisson(EventModel[SumStats, PoissonParams]):
    """The Poisson event model (counts), Gamma(``alpha``, ``beta``)-MAP rates."""

    name: ClassVar[str] = "poisson"

    alpha: float = _ALPHA
    beta: float = _BETA

    def check(self, X):
        requirement = "non-negative integer counts"
        return _domain.integral(_domain.nonnegative(X, requirement), requirement)

    def zero(self, n_classes: int, n_features: int) -> SumStats:
        return SumStats.zero(n_classes, n_features)

    def summarize(self, X, W: ClassWeights) -> SumStats:
        return summarize(X, W)

    def summarize_array(self, X, W) -> SumStats:
        return summarize_array(X, W)

    def estimate(self, stats: SumStats) -> PoissonParams:
        """MAP rates under a Gamma(``alpha``, ``beta``) prior (shape, rate); see module doc."""
        # a class with no observed value of a feature and no prior rate (b = 0) backs
        # off to the pooled rate (with b > 0 it has the prior's, as Lidstone's uniform)
        rate, log_rate = gamma_map_rates(
            stats.total, stats.count, stats.count, self.alpha, self.beta, infinite_rates=False
        )
        return PoissonParams(rate, log_rate)

    def log_parameter_prior(self, params: PoissonParams) -> float:
        """``sum (alpha - 1) log lambda - beta lambda``: the Gamma prior's log density."""
        with np.errstate(invalid="ignore"):
            terms = (self.alpha - 1.0) * params.log_rate - self.beta * params.rate
        return float(np.sum(np.where(params.rate > 0, terms, 0.0)))

    def log_likelihood(self, params: PoissonParams, X) -> NDArray[np.float64]:
        """``log P(x | c)`` for counts X (n_samples, n_features), NaN = missing →
        (n_samples, n_classes).

        Computed as ``X @ log(lambda).T - observed @ lambda.T - sum_j log x_j!``: a zero
        rate gives ``-inf`` exactly where its count is positive, never ``0 * inf``.
        """
        mask, filled = observed(X)
        ll = dot_with_infinities(filled, params.log_rate)
        ll -= mask.astype(np.float64) @ params.rate.T
        ll -= gammaln(filled + 1.0).sum(axis=1, keepdims=True)
        return ll

    def onnx_log_likelihood(self, params: PoissonParams, x: str, graph) -> str:
        """``x @ log(lambda).T - observed @ lambda.T``; ``log x!``, the same in every
        class, is left out (the posterior cancels it)."""
        observed, filled = graph.observed(x)
        return graph.op(
            "Sub", graph.dot(filled, params.log_rate), graph.matmul(observed, params.rate)
        )

    def log_likelihood_array(self, params: PoissonParams, X):
        """:meth:`log_likelihood` in X's namespace, ``log x!`` by :func:`log_factorial`."""
        xp = namespace_of(X)
        mask, filled = observed_array(X)
        ll = product_array(filled, params.log_rate) - mask @ params.rate.T
        return ll - xp.sum(log_factorial(filled), axis=1, keepdims=True)

    def log_likelihood_terms(self, params: PoissonParams, X) -> NDArray[np.float64]:
        """``x_j log lambda_cj - lambda_cj - log x_j!`` per feature, 0 where missing:
        (n_samples, n_classes, n_features)."""
        mask, filled = observed(X)
        x = filled[:, None, :]
        with np.errstate(invalid="ignore"):
            count_term = np.where(x > 0, x * params.log_rate[None], 0.0)
        terms = count_term - params.rate[None] - gammaln(x + 1.0)
        return np.where(mask[:, None, :], terms, 0.0)

    def sample(self, params, stats, class_index, rng) -> NDArray[np.float64]:
        """Counts ``x_j ~ Poisson(rate_cj)`` for each class index: (n, n_features)."""
        return rng.poisson(params.rate[class_index]).astype(np.float64)

    def describe(self, params, stats, n_features, class_prior) -> list[dict]:
        """Each feature's rate (mean count) per class."""
        return [{"rate": params.rate[:, j].tolist()} for j in range(n_features)]

    def value_grid(self, params, stats, j, class_prior) -> list:
        """The counts 0 .. the mixture's 95th percentile (at most 25 of them, evenly
        spaced beyond that)."""
        from scipy.stats import poisson

        rates = params.rate[:, j]
        top = 0
        for rate, weight in zip(rates, class_prior, strict=True):
            if weight > 0:
                top = max(top, int(poisson.ppf(0.95, rate)) if rate > 0 else 0)
        values = np.unique(np.linspace(0, max(top, 1), min(max(top, 1) + 1, 25)).round())
        return [float(v) for v in values]


#: Counts below this take ``log x!`` from a table; above, Stirling's series (five terms,
#: error below 1e-17 relative there).
_FACTORIAL_TABLE_SIZE = 256
_LOG_FACTORIALS = gammaln(np.arange(_FACTORIAL_TABLE_SIZE) + 1.0)


def log_factorial(x):
    """``log x!`` of non-negative whole numbers x (an array of any array-API namespace,
    which need not have ``lgamma``), in x's namespace: a table below
    :data:`_FACTORIAL_TABLE_SIZE`, Stirling's series
    ``n log n - n + log(2 pi n) / 2 + 1/(12n) - 1/(360n^3) + 1/(1260n^5)`` above.

    >>> import numpy as np
    >>> float(log_factorial(np.array([5.0]))[0]) == float(np.log(120.0))
    True
    """
    xp = namespace_of(x)
    small = x < _FACTORIAL_TABLE_SIZE
    table = to_space(_LOG_FACTORIALS, space_of(x))
    codes = xp.astype(xp.where(small, x, xp.zeros_like(x)), xp.int64)
    looked_up = xp.reshape(xp.take(table, xp.reshape(codes, (-1,))), x.shape)
    n = xp.where(small, xp.ones_like(x), x)
    inverse = 1.0 / n
    inverse_square = inverse * inverse
    series = inverse * (1.0 / 12 - inverse_square * (1.0 / 360 - inverse_square / 1260))
    stirling = n * xp.log(n) - n + 0.5 * xp.log(2 * np.pi * n) + series
    return xp.where(small, looked_up, stirling)
