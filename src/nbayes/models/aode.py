"""Beyond the naive assumption: AODE and TAN on categorical data, thin classes over the
pairwise event models of :mod:`nbayes.events.pairwise`.

Both are estimated from the same additive pairwise statistics, so ``partial_fit``,
:func:`nbayes.merge` and every other statistics-based path work as for the naive Bayes
models.

References
----------
Webb, Boughton & Wang (2005), "Not so naive Bayes: aggregating one-dependence
estimators", Machine Learning 58.
Friedman, Geiger & Goldszmidt (1997), "Bayesian network classifiers", Machine
Learning 29.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes.core.base import BATCH_SIZE
from nbayes.errors import NotSupportedError
from nbayes.events import pairwise
from nbayes.events.pairwise import OneDependence, TreeAugmented
from nbayes.models.base import EstimatorNB


class _PairwiseNB(EstimatorNB):
    """Shared input handling: any hashable values per column, grown vocabularies."""

    _parameter_constraints: dict = dict(BATCH_SIZE)

    def _validation_options(self):
        return {"dtype": None, "ensure_all_finite": False}

    def onnx_input(self, graph, x: str | None = None) -> list[str]:
        """One string input ``X`` (n, n_features_in_): each value as ``str`` of it
        ("" where missing), read column by column."""
        if x is not None:
            raise NotSupportedError(f"{type(self).__name__} reads values: it cannot follow "
                                    "another step in an exported pipeline.")  # fmt: skip
        x = graph.input("X", "string", (None, int(self.n_features_in_)))
        n = int(self.n_features_in_)
        if n == 1:
            return [x]
        return [graph.op("Slice", x, graph.const([j]), graph.const([j + 1]), graph.const([1]))
                for j in range(n)]  # fmt: skip

    def _log_prior(self, stats):
        return self.event.log_prior(stats)

    @property
    def class_log_prior_(self) -> NDArray[np.float64]:
        return self._fitted.log_prior

    def conditional_mutual_information(self) -> NDArray[np.float64]:
        """``I(X_i; X_j | Y)`` in nats, shape (n_features, n_features)."""
        return pairwise.conditional_mutual_information(self._stats)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        return tags


class AODE(_PairwiseNB):
    """Averaged one-dependence estimators (Webb, Boughton & Wang, 2005).

    ``P(y, x) ∝ sum_{i in P(x)} P(y, x_i) prod_{j != i} P(x_j | y, x_i)`` over the
    super-parents ``P(x)``: the observed attributes whose value occurs at least
    ``min_parent_count`` times in training. With no such attribute it falls back to
    naive Bayes. Missing values (None, NaN) are skipped in training and left out in
    prediction; values never seen in training are left out too.

    Parameters
    ----------
    min_parent_count : float, default=1
        Minimum training count ``F(x_i)`` for ``x_i`` to act as a super-parent
        (Webb et al. use 30).
    alpha : float, default=1.0
        Lidstone pseudocount of every estimate.
    prior_alpha : float, default=0.0
        Pseudocount of the class prior used by the naive Bayes fallback.
    batch_size : int, default=None
        Rows scored at once in prediction; None chooses cache-sized blocks.

    Notes
    -----
    Memory: ``n_classes * V^2`` floats with ``V`` the total number of distinct
    values over all columns (50 columns × 20 values, 3 classes: 24 MB). Prediction
    costs ``O(n_classes * n_features^2)`` per row.

    Examples
    --------
    >>> from nbayes import AODE
    >>> X = [["sunny", "hot"], ["sunny", "mild"], ["rain", "mild"], ["rain", "cool"]]
    >>> AODE().fit(X, ["no", "no", "yes", "yes"]).predict([["rain", "hot"]])
    array(['yes'], dtype='<U3')
    """

    _event_type = OneDependence

    def __init__(
        self,
        min_parent_count=OneDependence.min_parent_count,
        alpha=OneDependence.alpha,
        prior_alpha=OneDependence.prior_alpha,
        batch_size=None,
    ):
        self.min_parent_count = min_parent_count
        self.alpha = alpha
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size

    def sample(self, n_samples, y=None, random_state=None):
        """Draw ``(X, y)``. With ``y`` None, from AODE's joint, a uniform mixture of
        one-dependence models (``min_parent_count`` is not applied): pick the
        super-parent i uniformly, draw ``(y, x_i) ~ P(y, x_i)``, then each other
        ``x_j ~ P(x_j | y, x_i)``. With ``y`` given, the parent is picked with weight
        ``P_i(y) = sum_v P(y, x_i=v)`` instead."""
        if y is not None:
            return super().sample(n_samples, y=y, random_state=random_state)
        self._check_sample_count(n_samples)
        rng = np.random.default_rng(random_state)
        fitted = self._fitted
        X, class_index = fitted.event.sample_joint(fitted.params, self._stats, n_samples, rng)
        return X, self.classes_[class_index]


class TAN(_PairwiseNB):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt, 1997).

    Each feature gets one feature parent besides the class, along the maximum
    spanning tree of the conditional mutual information ``I(X_i; X_j | Y)``
    (rooted at feature 0): ``P(y, x) = P(y, x_r) prod_{j != r} P(x_j | y, x_pa(j))``.
    A missing or unseen parent value falls back to ``P(x_j | y)``.

    Attributes
    ----------
    tree_parent_ : ndarray of shape (n_features,)
        The feature parent of each feature (-1 for the root).
    """

    _event_type = TreeAugmented

    def __init__(
        self, alpha=TreeAugmented.alpha, prior_alpha=TreeAugmented.prior_alpha, batch_size=None
    ):
        self.alpha = alpha
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size

    @property
    def tree_parent_(self) -> NDArray[np.intp]:
        return self._fitted.params.tree_parent.copy()
