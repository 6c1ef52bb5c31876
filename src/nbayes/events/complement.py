"""Complement naive Bayes (Rennie, Shih, Teevan & Karger, 2003).

Each class is scored by the multinomial of its *complement* (all other classes),
which is estimated from more data and suffers less from skewed class sizes:

``theta~_cj = (N~_cj + alpha_j) / (N~_c. + sum_j alpha_j)`` with
``N~_cj = sum_{c' != c} N_c'j``, weights ``w_cj = -log theta~_cj`` (or, with
``norm=True``, ``w_cj = log theta~_cj / sum_j log theta~_cj``, Rennie's step 7),
and the score ``sum_j x_j w_cj``; the class with the largest score wins (the
complement that explains x worst). The statistics are the multinomial counts. The
score is not a normalised log-likelihood and leaves the class prior out, as in Rennie
et al. and scikit-learn.

Example
-------
>>> import numpy as np
>>> from nbayes.core.validation import hard_class_weights
>>> model = Complement(alpha=1.0)
>>> X = np.array([[2.0, 0.0], [0.0, 3.0]])
>>> params = model.estimate(model.summarize(X, hard_class_weights(np.array([0, 1]), 2, None)))
>>> params.feature_log_prob.round(3)
array([[1.609, 0.223],
       [0.288, 1.386]])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes.core.validation import ClassWeights
from nbayes.events import _domain
from nbayes.events._contract import EventModel, lidstone_alpha, setting, skip_missing_setting
from nbayes.events.counts import CountStats, LinearScorer, add_into, weighted_terms
from nbayes.events.multinomial import (
    Multinomial,
    document_lengths,
    sample_counts,
    without_missing,
)

__all__ = ["Complement", "ComplementParams", "CountStats"]


@dataclass(frozen=True)
class ComplementParams:
    """``feature_log_prob``: the weights ``w_cj``, shape (n_classes, n_features)."""

    feature_log_prob: NDArray[np.float64]

    @cached_property
    def scorer(self) -> LinearScorer:
        """``X @ feature_log_prob.T``, prepared once for prediction in row blocks."""
        return LinearScorer.of(self.feature_log_prob)


@dataclass(frozen=True)
class Complement(EventModel[CountStats, ComplementParams]):
    """The complement event model (Rennie et al.): multinomial counts, each class scored
    by the weights of its complement; ``norm`` is Rennie's weight normalisation."""

    column_kind: ClassVar[bool] = False
    name: ClassVar[str] = "complement"
    factor_kind: ClassVar[str] = "weight"
    adds_in_place: ClassVar[bool] = True
    uses_prior: ClassVar[bool] = False

    alpha: Any = lidstone_alpha()
    norm: bool = setting(False, "boolean")
    skip_missing: bool = skip_missing_setting()

    def check(self, X):
        return _domain.nonnegative(X, "non-negative counts")

    def zero(self, n_classes: int, n_features: int) -> CountStats:
        return CountStats.zero(n_classes, n_features)

    def add_into(self, stats: CountStats, X, W: ClassWeights) -> CountStats:
        return add_into(stats, without_missing(X) if self.skip_missing else X, W)

    def estimate(self, stats: CountStats) -> ComplementParams:
        """Complement weights from the class-by-feature counts."""
        complement = stats.feature_count.sum(axis=0) + self.alpha - stats.feature_count
        with np.errstate(divide="ignore", invalid="ignore"):
            logged = np.log(complement / complement.sum(axis=1, keepdims=True))
            if self.norm:
                weights = logged / logged.sum(axis=1, keepdims=True)
            else:
                weights = -logged
        return ComplementParams(weights)

    def linear_terms(self, params: ComplementParams) -> tuple[NDArray, NDArray]:
        """``score(x, c) = x @ coef[c] + intercept[c]``."""
        weights = params.feature_log_prob
        return weights, np.zeros(weights.shape[0])

    def log_likelihood(self, params: ComplementParams, X) -> NDArray[np.float64]:
        """The complement score ``sum_j x_j w_cj``, shape (n_samples, n_classes)."""
        return params.scorer(without_missing(X) if self.skip_missing else X)

    def log_likelihood_terms(self, params: ComplementParams, X) -> NDArray[np.float64]:
        """``x_j w_cj`` per feature: shape (n_samples, n_classes, n_features)."""
        return weighted_terms(without_missing(X), params.feature_log_prob)

    def sample(self, params, stats, class_index, rng, length=None) -> NDArray[np.float64]:
        """Counts from each class's own smoothed multinomial (the complement weights are
        not a distribution of the class itself), estimated from the same counts."""
        own = Multinomial(alpha=self.alpha).estimate(stats)
        lengths = document_lengths(stats, class_index, rng, length)
        return sample_counts(own.feature_log_prob, class_index, rng, lengths)

    def value_grid(self, params, stats, j, class_prior) -> list:
        """One occurrence of the feature."""
        return [1]
