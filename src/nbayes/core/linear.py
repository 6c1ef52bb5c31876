"""The linear-classifier view (``coef_``, ``intercept_``, ``decision_function``) of
the discrete models, on top of :class:`nbayes.core.base.BaseNB`."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.validation import check_is_fitted


class LinearNBMixin:
    """The linear-classifier view of a discrete naive Bayes model.

    ``log P(x, y=c) = x' @ w_c + b_c`` where ``x'`` is x (or its one-hot encoding)
    and ``b_c`` holds the log prior. Binary problems get one row, the log-odds of
    ``classes_[1]`` over ``classes_[0]``, so ``predict(X) ==
    classes_[(decision_function(X) > 0).astype(int)]``; multiclass problems get one
    row per class, and ``argmax`` reproduces ``predict``.
    """

    def _linear_terms(self):
        """``(weights, intercept)`` as NumPy arrays (from the statistics copied to the
        host where the model was trained on a device)."""
        fitted = self.fitted_parameters
        weights, intercept = self.event.linear_terms(fitted.params)
        return weights, intercept + self.prior_term(fitted.log_prior)

    @property
    def coef_(self) -> NDArray[np.float64]:
        """Shape (1, n_features') for two classes, else (n_classes, n_features')."""
        weights, _ = self._linear_terms()
        if weights.shape[0] == 2:
            with np.errstate(invalid="ignore"):
                return (weights[1] - weights[0])[None, :]
        return weights

    @property
    def intercept_(self) -> NDArray[np.float64]:
        """Shape (1,) for two classes, else (n_classes,)."""
        _, intercept = self._linear_terms()
        if intercept.shape[0] == 2:
            return np.array([intercept[1] - intercept[0]])
        return intercept

    def decision_function(self, X) -> NDArray[np.float64]:
        """Log-odds of ``classes_[1]`` (binary, shape (n_samples,)), or the joint
        log-likelihood (multiclass, shape (n_samples, n_classes))."""
        check_is_fitted(self)
        self._check_namespace(X, "decision_function")
        if len(self.classes_) != 2:
            return self._blockwise(X, lambda jll: jll)

        def log_odds(jll):
            with np.errstate(invalid="ignore"):
                return jll[:, 1] - jll[:, 0]

        return self._blockwise(X, log_odds)
