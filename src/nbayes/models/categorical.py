"""CategoricalNB: the scikit-learn-compatible categorical naive Bayes classifier, a thin
class over :mod:`nbayes.events.categorical` (its validation, its fitted attributes)."""

from __future__ import annotations

from numbers import Real

import numpy as np
from numpy.typing import NDArray
from sklearn.utils._param_validation import Interval, StrOptions

from nbayes.events.categorical import Categorical
from nbayes.models.discrete import _DiscreteNB


class CategoricalNB(_DiscreteNB):
    """Categorical naive Bayes: feature j takes codes ``0 .. K_j - 1``.

    ``P(x_j = t | c) = (N_cjt + alpha) / (N_cj + K_j alpha)``.

    Parameters are those of :class:`MultinomialNB` (``alpha`` a scalar), plus

    min_categories : int or array-like of shape (n_features,), default=None
        Minimum ``K_j`` per feature.
    handle_unknown : {"error", "ignore", "smooth"}, default="error"
        A code never seen in training at predict time: raise
        :class:`~nbayes.errors.UnknownCategoryError` (a ValueError and IndexError, as
        scikit-learn's IndexError), leave that feature out of that row's likelihood,
        or give it the mass of one extra, empty category per feature.

    Attributes
    ----------
    category_count_ : list of n_features arrays of shape (n_classes, K_j)
    feature_log_prob_ : list of n_features arrays of shape (n_classes, K_j)
    n_categories_ : ndarray of shape (n_features,)
        ``K_j``; unlike scikit-learn it covers every batch seen by ``partial_fit``.
    coef_, intercept_ : the linear view on the one-hot encoding of X, whose
        columns are the (feature, category) pairs in order.

    Examples
    --------
    >>> from nbayes import CategoricalNB
    >>> X = [[0, 1], [0, 2], [1, 0], [1, 1]]
    >>> CategoricalNB().fit(X, [0, 0, 1, 1]).predict([[0, 2]])
    array([0])
    """

    _event_type = Categorical
    # scikit-learn's: alpha a scalar, handle_unknown without "smooth"
    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "handle_unknown": [StrOptions({"error", "ignore", "smooth"})],
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
