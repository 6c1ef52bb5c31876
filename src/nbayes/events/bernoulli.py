"""Multivariate Bernoulli event model: each feature is present (1) or absent (0).

``P(x | c) = prod_j p_cj ** x_j (1 - p_cj) ** (1 - x_j)`` with
``p_cj = (N_cj + alpha) / (N_c + 2 alpha)``, where ``N_cj`` counts the (weighted)
rows of class ``c`` in which feature ``j`` is present (Manning et al., IIR 13.3).
Unlike the multinomial, absent features count as evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.extmath import safe_sparse_dot

from nbayes.events.counts import (
    CountStats,
    LinearScorer,
    dense_rows,
    dot_with_infinities,
    summarize,
    weighted_terms,
)

__all__ = [
    "BernoulliParams",
    "CountStats",
    "estimate",
    "log_likelihood",
    "log_likelihood_terms",
    "summarize",
]


@dataclass(frozen=True)
class BernoulliParams:
    """``log p_cj`` and ``log (1 - p_cj)``, each of shape (n_classes, n_features)."""

    feature_log_prob: NDArray[np.float64]
    absent_log_prob: NDArray[np.float64]

    @cached_property
    def scorer(self) -> LinearScorer | None:
        """Smoothed (finite) estimates: ``log P(x | c)`` as one linear map,
        ``x @ (log p - log(1-p)).T + sum_j log(1 - p_cj)``, prepared once for
        prediction in row blocks; None when some probability is 0 or 1."""
        absent = self.absent_log_prob
        if not (np.isfinite(absent).all() and np.isfinite(self.feature_log_prob).all()):
            return None
        return LinearScorer.of(self.feature_log_prob - absent, absent.sum(axis=1))


def estimate(
    stats: CountStats, alpha: float | NDArray, observed: NDArray | None = None
) -> BernoulliParams:
    """Lidstone-smoothed presence probabilities; ``alpha`` scalar or (n_features,).

    ``observed`` (n_classes, n_features), if given, replaces ``N_c`` by the weighted
    count of rows of class ``c`` in which feature ``j`` was observed (not missing):
    ``p_cj = (N_cj + alpha) / (observed_cj + 2 alpha)``.
    """
    present = stats.feature_count + alpha
    seen = stats.class_count[:, None] if observed is None else observed
    total = np.broadcast_to(seen + 2 * np.asarray(alpha), present.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_prob = np.log(present) - np.log(total)
        absent = np.log1p(-np.exp(log_prob))
    return BernoulliParams(log_prob, absent)


def linear_terms(params: BernoulliParams) -> tuple[NDArray, NDArray]:
    """``log P(x | c) = x @ (log p - log(1-p))[c] + sum_j log(1 - p_cj)``.

    Infinite entries arise only with unsmoothed (``alpha = 0``) estimates.
    """
    with np.errstate(invalid="ignore"):
        coef = params.feature_log_prob - params.absent_log_prob
    return coef, params.absent_log_prob.sum(axis=1)


def log_likelihood(params: BernoulliParams, X) -> NDArray[np.float64]:
    """``log P(x | c)`` for binary X (n_samples, n_features) → (n_samples, n_classes).

    Computed as ``X @ log p + (1 - X) @ log(1 - p)``, so that an unsmoothed
    ``p = 0`` or ``p = 1`` gives ``-inf`` exactly where the event it forbids occurs
    (never ``0 * inf = nan``).
    """
    if params.scorer is not None:  # smoothed estimates: one product
        return params.scorer(X)
    absent = params.absent_log_prob
    finite_absent = np.where(np.isfinite(absent), absent, 0.0)
    ll = dot_with_infinities(X, params.feature_log_prob)
    ll -= dot_with_infinities(X, finite_absent)
    ll += finite_absent.sum(axis=1)
    impossible_when_absent = np.isneginf(absent)
    if impossible_when_absent.any():
        n_forbidden = impossible_when_absent.sum(axis=1)
        absent_hits = n_forbidden - safe_sparse_dot(X, impossible_when_absent.T.astype(float))
        ll[absent_hits > 0] = -np.inf
    return ll


def log_likelihood_terms(params: BernoulliParams, X) -> NDArray[np.float64]:
    """``x_j log p_cj + (1 - x_j) log(1 - p_cj)`` per feature, with ``0 * inf = 0``:
    shape (n_samples, n_classes, n_features). Summed over features it is
    :func:`log_likelihood`.
    """
    X = dense_rows(X)
    return weighted_terms(X, params.feature_log_prob) + weighted_terms(
        1.0 - X, params.absent_log_prob
    )


def sample(
    params: BernoulliParams, class_index: NDArray[np.intp], rng: np.random.Generator
) -> NDArray[np.float64]:
    """Binary rows, feature j present with probability ``p_cj``: (n, n_features)."""
    present = np.exp(params.feature_log_prob[class_index])
    return (rng.random(present.shape) < present).astype(np.float64)
