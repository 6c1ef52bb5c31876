"""Multinomial event model: a document is a bag of counts x_j drawn from one
multinomial per class.

``P(x | c) ∝ prod_j theta_cj ** x_j`` with the Lidstone estimate
``theta_cj = (N_cj + alpha_j) / (N_c. + sum_j alpha_j)``, where ``N_cj`` is the
weighted count of feature ``j`` in class ``c`` (McCallum & Nigam, 1998; Manning et
al., IIR ch. 13). The multinomial coefficient does not depend on the class and is
left out, as is customary.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from nbayes.events.counts import CountStats, LinearScorer, summarize, weighted_terms

__all__ = [
    "CountStats",
    "MultinomialParams",
    "estimate",
    "log_likelihood",
    "log_likelihood_terms",
    "summarize",
]


@dataclass(frozen=True)
class MultinomialParams:
    """``feature_log_prob``: ``log theta_cj``, shape (n_classes, n_features)."""

    feature_log_prob: NDArray[np.float64]

    @cached_property
    def scorer(self) -> LinearScorer:
        """``X @ feature_log_prob.T``, prepared once for prediction in row blocks."""
        return LinearScorer.of(self.feature_log_prob)


def estimate(stats: CountStats, alpha: float | NDArray) -> MultinomialParams:
    """Lidstone-smoothed ``log theta_cj``; ``alpha`` scalar or shape (n_features,)."""
    smoothed = stats.feature_count + alpha
    with np.errstate(divide="ignore"):
        log_prob = np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True))
    return MultinomialParams(log_prob)


def linear_terms(params: MultinomialParams) -> tuple[NDArray, NDArray]:
    """``log P(x | c) = x @ coef[c] + intercept[c]``."""
    log_prob = params.feature_log_prob
    return log_prob, np.zeros(log_prob.shape[0])


def log_likelihood(params: MultinomialParams, X) -> NDArray[np.float64]:
    """``sum_j x_j log theta_cj`` for X (n_samples, n_features) → (n_samples, n_classes)."""
    return params.scorer(X)


def log_likelihood_terms(params: MultinomialParams, X) -> NDArray[np.float64]:
    """``x_j log theta_cj`` per feature: shape (n_samples, n_classes, n_features).

    Summed over features it is :func:`log_likelihood`.
    """
    return weighted_terms(X, params.feature_log_prob)


def sample(
    params: MultinomialParams,
    class_index: NDArray[np.intp],
    rng: np.random.Generator,
    lengths: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Count rows ``x ~ Multinomial(lengths[i], theta_c)``: (n, n_features)."""
    theta = np.exp(params.feature_log_prob[class_index])
    theta /= theta.sum(axis=1, keepdims=True)  # exact normalisation for the sampler
    return rng.multinomial(lengths, theta).astype(np.float64)
