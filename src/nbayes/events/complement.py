"""Complement naive Bayes (Rennie, Shih, Teevan & Karger, 2003).

Each class is scored by the multinomial of its *complement* (all other classes),
which is estimated from more data and suffers less from skewed class sizes:

``theta~_cj = (N~_cj + alpha_j) / (N~_c. + sum_j alpha_j)`` with
``N~_cj = sum_{c' != c} N_c'j``, weights ``w_cj = -log theta~_cj`` (or, with
``norm=True``, ``w_cj = log theta~_cj / sum_j log theta~_cj``, Rennie's step 7),
and the score ``sum_j x_j w_cj``; the class with the largest score wins (the
complement that explains x worst). The statistics are the multinomial counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from nbayes.events.counts import CountStats, LinearScorer, summarize, weighted_terms

__all__ = [
    "ComplementParams",
    "CountStats",
    "estimate",
    "log_likelihood",
    "log_likelihood_terms",
    "summarize",
]


@dataclass(frozen=True)
class ComplementParams:
    """``feature_log_prob``: the weights ``w_cj``, shape (n_classes, n_features)."""

    feature_log_prob: NDArray[np.float64]

    @cached_property
    def scorer(self) -> LinearScorer:
        """``X @ feature_log_prob.T``, prepared once for prediction in row blocks."""
        return LinearScorer.of(self.feature_log_prob)


def estimate(stats: CountStats, alpha: float | NDArray, norm: bool) -> ComplementParams:
    """Complement weights from the class-by-feature counts."""
    complement = stats.feature_count.sum(axis=0) + alpha - stats.feature_count
    with np.errstate(divide="ignore", invalid="ignore"):
        logged = np.log(complement / complement.sum(axis=1, keepdims=True))
        if norm:
            weights = logged / logged.sum(axis=1, keepdims=True)
        else:
            weights = -logged
    return ComplementParams(weights)


def linear_terms(params: ComplementParams) -> tuple[NDArray, NDArray]:
    """``score(x, c) = x @ coef[c] + intercept[c]``."""
    weights = params.feature_log_prob
    return weights, np.zeros(weights.shape[0])


def log_likelihood(params: ComplementParams, X) -> NDArray[np.float64]:
    """The complement score ``sum_j x_j w_cj``, shape (n_samples, n_classes).

    Not a normalised log-likelihood: it plays that role in the posterior, as in
    Rennie et al. and scikit-learn.
    """
    return params.scorer(X)


def log_likelihood_terms(params: ComplementParams, X) -> NDArray[np.float64]:
    """``x_j w_cj`` per feature: shape (n_samples, n_classes, n_features).

    Summed over features it is :func:`log_likelihood`.
    """
    return weighted_terms(X, params.feature_log_prob)
