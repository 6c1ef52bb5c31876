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
estimate, and the rate-dependent part of the term is left out (``lambda = 0``,
``log lambda = 0``: the term is ``-log x_j!``, the same for every class).

Missing values: NaN entries of X add nothing to the statistics and leave their term
out of ``log_likelihood`` (see :mod:`nbayes.events.sums`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import gammaln

from nbayes.events.counts import dot_with_infinities
from nbayes.events.sums import SumStats, observed, summarize

__all__ = ["PoissonParams", "SumStats", "estimate", "log_likelihood", "summarize"]


@dataclass(frozen=True)
class PoissonParams:
    """``rate`` (lambda) and ``log_rate``, each of shape (n_classes, n_features)."""

    rate: NDArray[np.float64]
    log_rate: NDArray[np.float64]


def estimate(stats: SumStats, alpha: float = 2.0, beta: float = 1.0) -> PoissonParams:
    """MAP rates under a Gamma(``alpha``, ``beta``) prior (shape, rate); see module doc."""
    numerator = np.maximum(stats.total + alpha - 1.0, 0.0)
    denominator = stats.count + beta
    defined = denominator > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(defined, numerator / denominator, 0.0)
        log_rate = np.where(defined, np.log(rate), 0.0)
    return PoissonParams(rate, log_rate)


def log_likelihood(params: PoissonParams, X: NDArray[np.float64]) -> NDArray[np.float64]:
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


def sample(
    params: PoissonParams, class_index: NDArray[np.intp], rng: np.random.Generator
) -> NDArray[np.float64]:
    """Counts ``x_j ~ Poisson(rate_cj)`` for each class index: (n, n_features)."""
    return rng.poisson(params.rate[class_index]).astype(np.float64)
