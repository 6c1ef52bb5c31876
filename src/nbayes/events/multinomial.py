"""Multinomial event model: a document is a bag of counts x_j drawn from one
multinomial per class.

``P(x | c) ∝ prod_j theta_cj ** x_j`` with the Lidstone estimate
``theta_cj = (N_cj + alpha_j) / (N_c. + sum_j alpha_j)``, where ``N_cj`` is the
weighted count of feature ``j`` in class ``c`` (McCallum & Nigam, 1998; Manning et
al., IIR ch. 13). The multinomial coefficient does not depend on the class and is
left out, as is customary. A missing count adds nothing (it reads as 0, whose term is 0).

Example
-------
>>> import numpy as np
>>> from nbayes.core.validation import hard_class_weights
>>> model = Multinomial(alpha=1.0)
>>> X = np.array([[2.0, 0.0], [0.0, 3.0]])
>>> params = model.estimate(model.summarize(X, hard_class_weights(np.array([0, 1]), 2, None)))
>>> np.exp(params.feature_log_prob)
array([[0.75, 0.25],
       [0.2 , 0.8 ]])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from nbayes.core.namespace import errstate, namespace_of, scalar_like
from nbayes.core.validation import ClassWeights
from nbayes.events import _domain
from nbayes.events._contract import EventModel, lidstone_alpha, skip_missing_setting
from nbayes.events.counts import (
    CountStats,
    LinearScorer,
    add_into,
    dirichlet_log_density,
    product_array,
    summarize_array,
    weighted_terms,
)

__all__ = ["CountStats", "Multinomial", "MultinomialParams"]


@dataclass(frozen=True)
class MultinomialParams:
    """``feature_log_prob``: ``log theta_cj``, shape (n_classes, n_features)."""

    feature_log_prob: NDArray[np.float64]

    @cached_property
    def scorer(self) -> LinearScorer:
        """``X @ feature_log_prob.T``, prepared once for prediction in row blocks."""
        return LinearScorer.of(self.feature_log_prob)


def without_missing(X):
    """X with missing counts (NaN) read as 0."""
    if sp.issparse(X):
        if np.isnan(X.data).any():
            X = X.copy()
            X.data = np.nan_to_num(X.data, nan=0.0)
        return X
    return np.where(np.isnan(X), 0.0, X) if np.isnan(X).any() else X


def mean_lengths(stats: CountStats) -> NDArray[np.float64]:
    """Each class's mean document length ``N_c. / N_c`` (0 for an empty class): (n_classes,)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            stats.class_count > 0, stats.feature_count.sum(axis=1) / stats.class_count, 0.0
        )


def document_lengths(
    stats: CountStats, class_index: NDArray[np.intp], rng: np.random.Generator, length
) -> NDArray[np.int64]:
    """Lengths of generated documents: ``length`` if an int, ``length(rng, n)`` if
    callable, else Poisson with each class's mean training length."""
    if length is None:
        return rng.poisson(mean_lengths(stats)[class_index])
    lengths = length(rng, class_index.shape[0]) if callable(length) else length
    lengths = np.broadcast_to(np.asarray(lengths), class_index.shape)
    if not np.issubdtype(lengths.dtype, np.integer) or np.any(lengths < 0):
        raise ValueError("length must give non-negative integer document lengths.")
    return lengths


@dataclass(frozen=True)
class Multinomial(EventModel[CountStats, MultinomialParams]):
    """The multinomial event model (counts, e.g. word counts)."""

    name: ClassVar[str] = "multinomial"
    adds_in_place: ClassVar[bool] = True

    alpha: Any = lidstone_alpha()
    skip_missing: bool = skip_missing_setting()

    def check(self, X):
        return _domain.nonnegative(X, "non-negative counts")

    def zero(self, n_classes: int, n_features: int) -> CountStats:
        return CountStats.zero(n_classes, n_features)

    def add_into(self, stats: CountStats, X, W: ClassWeights) -> CountStats:
        return add_into(stats, without_missing(X) if self.skip_missing else X, W)

    def summarize_array(self, X, W) -> CountStats:
        return CountStats(*summarize_array(X, W))

    def estimate(self, stats: CountStats) -> MultinomialParams:
        """Lidstone-smoothed ``log theta_cj``; ``alpha`` scalar or shape (n_features,)."""
        xp = namespace_of(stats.feature_count)
        smoothed = stats.feature_count + scalar_like(self.alpha, stats.feature_count)
        # counts summing past float64 give NaN here; the fit refuses them with its own error
        with errstate(xp, divide="ignore", invalid="ignore", over="ignore"):
            log_prob = xp.log(smoothed) - xp.log(xp.sum(smoothed, axis=1, keepdims=True))
        return MultinomialParams(log_prob)

    def log_parameter_prior(self, params: MultinomialParams) -> float:
        """Lidstone's ``alpha`` is the mode of a Dirichlet(``alpha + 1``) prior."""
        return dirichlet_log_density(self.alpha, params.feature_log_prob)

    def linear_terms(self, params: MultinomialParams) -> tuple[NDArray, NDArray]:
        """``log P(x | c) = x @ coef[c] + intercept[c]``."""
        log_prob = params.feature_log_prob
        return log_prob, np.zeros(log_prob.shape[0])

    def log_likelihood(self, params: MultinomialParams, X) -> NDArray[np.float64]:
        """``sum_j x_j log theta_cj`` for X (n_samples, n_features) → (n_samples, n_classes)."""
        return params.scorer(without_missing(X) if self.skip_missing else X)

    def onnx_log_likelihood(self, params: MultinomialParams, x: str, graph) -> str:
        """``x @ log(theta).T`` (missing counts read as 0), ``0 * -inf = 0``."""
        if self.skip_missing:
            x = graph.filled(x)[1]
        return graph.dot(x, params.feature_log_prob)

    def log_likelihood_array(self, params: MultinomialParams, X):
        return product_array(X, params.feature_log_prob)

    def log_likelihood_terms(self, params: MultinomialParams, X) -> NDArray[np.float64]:
        """``x_j log theta_cj`` per feature: shape (n_samples, n_classes, n_features)."""
        return weighted_terms(without_missing(X), params.feature_log_prob)

    def sample(
        self,
        params: MultinomialParams,
        stats: CountStats,
        class_index: NDArray[np.intp],
        rng: np.random.Generator,
        length=None,
    ) -> NDArray[np.float64]:
        """Count rows ``x ~ Multinomial(L_i, theta_c)``; ``L_i`` from ``length`` (an int,
        a callable ``length(rng, n)``, or None: Poisson with the class's mean length)."""
        lengths = document_lengths(stats, class_index, rng, length)
        return sample_counts(params.feature_log_prob, class_index, rng, lengths)

    def value_grid(self, params, stats, j, class_prior) -> list:
        """One occurrence of the feature."""
        return [1]


def sample_counts(
    feature_log_prob: NDArray[np.float64],
    class_index: NDArray[np.intp],
    rng: np.random.Generator,
    lengths: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Count rows ``x ~ Multinomial(lengths[i], theta_c)`` with ``theta_c =
    exp(feature_log_prob[c])``: (n, n_features)."""
    theta = np.exp(feature_log_prob[class_index])
    theta /= theta.sum(axis=1, keepdims=True)  # exact normalisation for the sampler
    return rng.multinomial(lengths, theta).astype(np.float64)
