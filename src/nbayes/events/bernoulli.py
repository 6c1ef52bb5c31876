"""Multivariate Bernoulli event model: each feature is present (1) or absent (0).

``P(x | c) = prod_j p_cj ** x_j (1 - p_cj) ** (1 - x_j)`` with
``p_cj = (N_cj + alpha) / (n_cj + 2 alpha)``, where ``N_cj`` counts the (weighted)
rows of class ``c`` in which feature ``j`` is present and ``n_cj`` those in which it
was observed (``N_c`` less the rows where it is missing) (Manning et al., IIR 13.3).
Unlike the multinomial, absent features count as evidence.

Example
-------
>>> import numpy as np
>>> from nbayes.core.validation import hard_class_weights
>>> model = Bernoulli(alpha=1.0)
>>> X = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
>>> W = hard_class_weights(np.array([0, 0, 1]), 2, None)
>>> np.exp(model.estimate(model.summarize(X, W)).feature_log_prob)
array([[0.75      , 0.5       ],
       [0.33333333, 0.66666667]])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils.extmath import safe_sparse_dot

from nbayes.core.namespace import errstate, namespace_of, scalar_like
from nbayes.core.validation import ClassWeights
from nbayes.events import _domain
from nbayes.events._contract import EventModel, lidstone_alpha, skip_missing_setting
from nbayes.events._stats import CLASS, FEATURE, stat
from nbayes.events.counts import (
    CountStats,
    LinearScorer,
    add_into,
    dense_rows,
    dirichlet_log_density,
    dot_with_infinities,
    product_array,
    summarize_array,
    weighted_terms,
)

__all__ = ["Bernoulli", "BernoulliParams", "BernoulliStats"]


@dataclass(frozen=True)
class BernoulliStats(CountStats):
    """Presence counts ``N_cj`` (``feature_count``), class counts ``N_c``, and
    ``missing_count``: the weighted number of rows of class ``c`` where feature ``j``
    is missing (all zero without missing values), shape (n_classes, n_features)."""

    missing_count: NDArray[np.float64] = stat(CLASS, FEATURE, nonnegative=True)

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> BernoulliStats:
        return cls(
            np.zeros(n_classes),
            np.zeros((n_classes, n_features)),
            np.zeros((n_classes, n_features)),
        )

    def observed_count(self) -> NDArray[np.float64]:
        """``n_cj``: rows of class ``c`` where feature ``j`` was observed."""
        return self.class_count[:, None] - self.missing_count


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


def _missing_mask(X) -> NDArray[np.bool_] | None:
    """Where X is NaN, or None if nowhere (sparse X: NaN among the stored values)."""
    if sp.issparse(X):
        if not np.isnan(X.data).any():
            return None
        return np.isnan(dense_rows(X))
    missing = np.isnan(X)
    return missing if missing.any() else None


@dataclass(frozen=True)
class Bernoulli(EventModel[BernoulliStats, BernoulliParams]):
    """The Bernoulli event model (binary features; absent features count)."""

    name: ClassVar[str] = "bernoulli"
    adds_in_place: ClassVar[bool] = True

    alpha: Any = lidstone_alpha()
    skip_missing: bool = skip_missing_setting()

    def check(self, X):
        return _domain.binary(X, "binary values (0 or 1; BernoulliNB's binarize thresholds others)")

    def zero(self, n_classes: int, n_features: int) -> BernoulliStats:
        return BernoulliStats.zero(n_classes, n_features)

    def add_into(self, stats: BernoulliStats, X, W: ClassWeights) -> BernoulliStats:
        missing = _missing_mask(X) if self.skip_missing else None
        if missing is None:
            return add_into(stats, X, W)
        add_into(stats, np.where(missing, 0.0, dense_rows(X)), W)
        W.add_transpose_dot(missing.astype(np.float64), stats.missing_count)
        return stats

    def summarize_array(self, X, W) -> BernoulliStats:
        class_count, feature_count = summarize_array(X, W)
        return BernoulliStats(class_count, feature_count, namespace_of(X).zeros_like(feature_count))

    def estimate(self, stats: BernoulliStats) -> BernoulliParams:
        """Lidstone-smoothed presence probabilities; ``alpha`` scalar or (n_features,)."""
        xp = namespace_of(stats.feature_count)
        alpha = scalar_like(self.alpha, stats.feature_count)
        present = stats.feature_count + alpha
        if bool(xp.any(stats.missing_count)):
            seen = stats.observed_count()
        else:
            seen = stats.class_count[:, None]
        total = xp.broadcast_to(seen + 2 * alpha, present.shape)
        with errstate(xp, divide="ignore", invalid="ignore"):
            log_prob = xp.log(present) - xp.log(total)
            absent = xp.log1p(-xp.exp(log_prob))
        return BernoulliParams(log_prob, absent)

    def log_parameter_prior(self, params: BernoulliParams) -> float:
        """A Beta(``alpha + 1``, ``alpha + 1``) prior on each ``p_cj``."""
        return dirichlet_log_density(self.alpha, params.feature_log_prob) + dirichlet_log_density(
            self.alpha, params.absent_log_prob
        )

    def linear_terms(self, params: BernoulliParams) -> tuple[NDArray, NDArray]:
        """``log P(x | c) = x @ (log p - log(1-p))[c] + sum_j log(1 - p_cj)``.

        Infinite entries arise only with unsmoothed (``alpha = 0``) estimates.
        """
        with np.errstate(invalid="ignore"):
            coef = params.feature_log_prob - params.absent_log_prob
        return coef, params.absent_log_prob.sum(axis=1)

    def log_likelihood(self, params: BernoulliParams, X) -> NDArray[np.float64]:
        """``log P(x | c)`` for binary X (n_samples, n_features) → (n_samples, n_classes),
        summed over the observed features."""
        missing = _missing_mask(X) if self.skip_missing else None
        if missing is None:
            return _log_likelihood(params, X)
        data = dense_rows(X)  # x_j log p_cj + (1 - x_j) log(1 - p_cj) over the observed j
        present = np.where(missing, 0.0, data)
        absent = np.where(missing, 0.0, 1.0 - data)
        ll = dot_with_infinities(present, params.feature_log_prob)
        ll += dot_with_infinities(absent, params.absent_log_prob)
        return ll

    def onnx_log_likelihood(self, params: BernoulliParams, x: str, graph) -> str:
        """One product ``x @ (log p - log(1-p)).T + sum_j log(1 - p_cj)`` for smoothed
        estimates and no missing value; else ``x @ log p + (1 - x) @ log(1 - p)`` over
        the observed features, ``0 * inf = 0``."""
        finite = np.isfinite(params.feature_log_prob).all() and np.isfinite(
            params.absent_log_prob
        ).all()
        if finite and not self.skip_missing:
            coef, intercept = self.linear_terms(params)
            return graph.dot(x, coef, intercept)
        if self.skip_missing:
            observed, present = graph.observed(x)
        else:
            observed, present = graph.const(1.0), x
        absent = graph.op("Sub", observed, present)
        return graph.op(
            "Add",
            graph.dot(present, params.feature_log_prob),
            graph.dot(absent, params.absent_log_prob),
        )

    def log_likelihood_array(self, params: BernoulliParams, X):
        """:func:`_log_likelihood` in X's namespace: ``X @ log p + (1 - X) @ log(1 - p)``
        with ``-inf`` exactly where an unsmoothed estimate forbids the event."""
        xp = namespace_of(X)
        absent = params.absent_log_prob
        finite_absent = xp.where(xp.isfinite(absent), absent, xp.zeros_like(absent))
        ll = product_array(X, params.feature_log_prob) - product_array(X, finite_absent)
        ll = ll + xp.sum(finite_absent, axis=1)
        impossible_when_absent = xp.astype(absent == -np.inf, X.dtype)
        if bool(xp.any(impossible_when_absent)):
            absent_hits = xp.sum(impossible_when_absent, axis=1) - X @ impossible_when_absent.T
            ll = xp.where(absent_hits > 0, xp.full_like(ll, -np.inf), ll)
        return ll

    def log_likelihood_terms(self, params: BernoulliParams, X) -> NDArray[np.float64]:
        """``x_j log p_cj + (1 - x_j) log(1 - p_cj)`` per feature, with ``0 * inf = 0``
        and 0 where x_j is missing: shape (n_samples, n_classes, n_features)."""
        X = dense_rows(X)
        missing = np.isnan(X)
        X = np.where(missing, 0.0, X)
        terms = weighted_terms(X, params.feature_log_prob) + weighted_terms(
            1.0 - X, params.absent_log_prob
        )
        return np.where(missing[:, None, :], 0.0, terms)

    def sample(self, params, stats, class_index, rng) -> NDArray[np.float64]:
        """Binary rows, feature j present with probability ``p_cj``: (n, n_features)."""
        present = np.exp(params.feature_log_prob[class_index])
        return (rng.random(present.shape) < present).astype(np.float64)

    def value_grid(self, params, stats, j, class_prior) -> list:
        """Present, then absent."""
        return [1, 0]


def _log_likelihood(params: BernoulliParams, X) -> NDArray[np.float64]:
    """``log P(x | c)`` for binary X with no missing value.

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
