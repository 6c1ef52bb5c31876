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
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes.core.namespace import errstate, namespace_of, scalar_like
from nbayes.events._contract import setting
from nbayes.events.counts import CountStats, LinearScorer
from nbayes.events.multinomial import Multinomial, document_lengths, sample_counts

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
class Complement(Multinomial):
    """The complement event model (Rennie et al.): multinomial counts, each class scored
    by the weights of its complement; ``norm`` is Rennie's weight normalisation. The
    statistics, input check and the linear score are the multinomial model's; the
    estimate and the sampling differ."""

    name: ClassVar[str] = "complement"
    factor_kind: ClassVar[str] = "weight"
    uses_prior: ClassVar[bool] = False
    column_kind: ClassVar[bool] = False

    norm: bool = setting(False, "boolean")

    def estimate(self, stats: CountStats) -> ComplementParams:
        """Complement weights from the class-by-feature counts."""
        counts = stats.feature_count
        xp = namespace_of(counts)
        complement = xp.sum(counts, axis=0) + scalar_like(self.alpha, counts) - counts
        with errstate(xp, divide="ignore", invalid="ignore"):
            logged = xp.log(complement / xp.sum(complement, axis=1, keepdims=True))
            if self.norm:
                weights = logged / xp.sum(logged, axis=1, keepdims=True)
            else:
                weights = -logged
        return ComplementParams(weights)

    def log_parameter_prior(self, params: ComplementParams) -> float:
        """The complement weights are not the mode of a prior (not a generative model)."""
        return 0.0

    def sample(self, params, stats, class_index, rng, length=None) -> NDArray[np.float64]:
        """Counts from each class's own smoothed multinomial (the complement weights are
        not a distribution of the class itself), estimated from the same counts."""
        own = Multinomial(alpha=self.alpha).estimate(stats)
        lengths = document_lengths(stats, class_index, rng, length)
        return sample_counts(own.feature_log_prob, class_index, rng, lengths)
