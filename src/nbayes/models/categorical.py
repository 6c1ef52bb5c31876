"""CategoricalNB: the scikit-learn-compatible categorical naive Bayes classifier, thin
glue over :mod:`nbayes.events.categorical` (its validation, its settings, its fitted
attributes)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from numpy.typing import NDArray
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_non_negative

from nbayes.events import categorical
from nbayes.models.discrete import _DiscreteNB


class CategoricalNB(_DiscreteNB):
    """Categorical naive Bayes: feature j takes codes ``0 .. K_j - 1``.

    ``P(x_j = t | c) = (N_cjt + alpha) / (N_cj + K_j alpha)``.

    Parameters are those of :class:`MultinomialNB` (``alpha`` a scalar), plus

    min_categories : int or array-like of shape (n_features,), default=None
        Minimum ``K_j`` per feature.
    handle_unknown : {"error", "ignore"}, default="error"
        A code never seen in training at predict time: raise
        :class:`~nbayes.events.categorical.UnknownCategoryError` (a ValueError and
        IndexError, as scikit-learn's IndexError), or leave that feature out of
        that row's likelihood.

    Attributes
    ----------
    category_count_ : list of n_features arrays of shape (n_classes, K_j)
    feature_log_prob_ : list of n_features arrays of shape (n_classes, K_j)
    n_categories_ : ndarray of shape (n_features,)
        ``K_j``; unlike scikit-learn it covers every batch seen by ``partial_fit``.
    coef_, intercept_ : the linear view on the one-hot encoding of X, whose
        columns are the (feature, category) pairs in order.
    """

    _event = categorical
    _parameter_constraints: dict = {
        **_DiscreteNB._parameter_constraints,
        "alpha": [Interval(Real, 0, None, closed="left")],
        "min_categories": [
            None,
            "array-like",
            Interval(Integral, 1, None, closed="left"),
        ],
        "handle_unknown": [StrOptions({"error", "ignore"})],
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        min_categories=None,
        handle_unknown="error",
        prior_alpha=0.0,
        batch_size=None,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.handle_unknown = handle_unknown
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size

    def _validation_options(self):
        return {"dtype": "int", "accept_sparse": False, "ensure_all_finite": True}

    def _prepare_X(self, X):
        check_non_negative(X, "CategoricalNB (input X)")
        return X

    def _n_categories(self, X) -> NDArray[np.intp]:
        seen = X.max(axis=0) + 1 if X.shape[0] else np.zeros(X.shape[1], np.intp)
        if self.min_categories is None:
            return seen
        minimum = np.array(self.min_categories)
        if not np.issubdtype(minimum.dtype, np.signedinteger):
            raise ValueError(
                f"'min_categories' should have integral type. Got {minimum.dtype} instead."
            )
        n_categories = np.maximum(seen, minimum, dtype=np.int64)
        if n_categories.shape != seen.shape:
            raise ValueError(
                f"'min_categories' should have shape ({X.shape[1]},"
                f") when an array-like is provided. Got {minimum.shape} instead."
            )
        return n_categories

    def _zero_stats(self, n_classes, n_features):
        return categorical.CategoricalStats.zero(n_classes, n_features)

    def _summarize(self, X, W):
        n_categories = np.maximum(self._n_categories(X), self._stats.n_categories)
        return categorical.summarize(X, W, n_categories)

    def _add_into(self, stats, X, W):
        return categorical.add_into(stats, X, W, self._n_categories(X))

    def _estimate(self, stats, alpha):
        return categorical.estimate(stats, alpha)

    def _log_likelihood(self, params, X):
        return categorical.log_likelihood(params, X, self.handle_unknown)

    def _log_likelihood_terms(self, params, X):
        return categorical.log_likelihood_terms(params, X, self.handle_unknown)

    @property
    def category_count_(self) -> list[NDArray[np.float64]]:
        return self._stats.per_feature()

    @property
    def feature_log_prob_(self) -> list[NDArray[np.float64]]:
        return self._fitted.params.per_feature()

    @property
    def n_categories_(self) -> NDArray[np.intp]:
        return self._stats.n_categories.copy()

    @property
    def feature_count_(self):
        raise AttributeError("CategoricalNB has category_count_, not feature_count_.")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.sparse = False
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True
        return tags
