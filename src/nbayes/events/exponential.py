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
above (the posterior then splits evenly between such classes). Where
``n_cj + a - 1 <= 0`` and ``S_cj + b = 0`` there is no estimate, and the term is left
out (``lambda = 0``, ``log lambda = 0``).

Missing values: NaN entries of X add nothing to the statistics and leave their term
out of ``log_likelihood`` (see :mod:`nbayes.events.sums`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nbayes.events.sums import SumStats, observed, summarize

__all__ = ["ExponentialParams", "SumStats", "estimate", "log_likelihood", "summarize"]


@dataclass(frozen=True)
class ExponentialParams:
    """``rate`` (lambda) and ``log_rate``, each of shape (n_classes, n_features)."""

    rate: NDArray[np.float64]
    log_rate: NDArray[np.float64]


def estimate(stats: SumStats, alpha: float = 1.0, beta: float = 0.0) -> ExponentialParams:
    """MLE (``alpha=1, beta=0``) or Gamma-MAP rates; see module doc."""
    numerator = np.maximum(stats.count + alpha - 1.0, 0.0)
    denominator = stats.total + beta
    defined = (numerator > 0) | (denominator > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(defined, numerator / denominator, 0.0)
        log_rate = np.where(defined, np.log(rate), 0.0)
    return ExponentialParams(rate, log_rate)


def log_likelihood(params: ExponentialParams, X: NDArray[np.float64]) -> NDArray[np.float64]:
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
    for c in range(rate.shape[0]):
        positive = filled > 0
        with np.errstate(invalid="ignore"):
            term = log_rate[c] - np.where(positive, filled * rate[c], 0.0)
        term[positive & np.isposinf(rate[c])] = -np.inf  # a point mass at 0
        term = np.where(mask, term, 0.0)
        with np.errstate(invalid="ignore"):
            out[:, c] = term.sum(axis=1)
        out[np.isneginf(term).any(axis=1), c] = -np.inf  # impossible beats a point mass
    return out


def sample(
    params: ExponentialParams, class_index: NDArray[np.intp], rng: np.random.Generator
) -> NDArray[np.float64]:
    """Values ``x_j ~ Exponential(rate_cj)`` (an infinite rate gives 0): (n, n_features)."""
    with np.errstate(divide="ignore"):
        scale = 1.0 / params.rate[class_index]
    return rng.exponential(scale)
