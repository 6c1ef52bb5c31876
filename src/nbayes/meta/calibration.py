"""Calibration of naive Bayes probabilities, and how to measure it.

Naive Bayes multiplies evidence from features it assumes independent; correlated
features are counted several times over, so ``P(y | x)`` is pushed towards 0 and 1.

Measuring: :func:`reliability_table` and :func:`expected_calibration_error` (the
top-label ECE of Guo, Pleiss, Sun & Weinberger, 2017), defined with the other
evaluation measures in :mod:`nbayes.inspection.calibration` and importable from here.

Fixing: :class:`CalibratedNB` wraps any nbayes estimator.

- ``method="temperature"``: one scalar ``T > 0`` divides the joint log-likelihood,
  ``P_T(y | x) = softmax_y(log P(x, y) / T)``; ``T`` minimises the cross-validated
  log-loss (``T > 1`` softens overconfident probabilities). The class ranking, and
  so ``predict``, is unchanged.
- ``method="isotonic"``: scikit-learn's ``IsotonicRegression`` maps each class's
  cross-validated probability to the observed frequency of that class (one against
  the rest); the calibrated rows are renormalised to sum to 1. Two classes use one
  map, for the second class, as scikit-learn's ``CalibratedClassifierCV``.

Either way the calibration data are out-of-fold predictions of models fitted on the
other folds; the final model is refitted on all the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.isotonic import IsotonicRegression
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from nbayes.core import posterior
from nbayes.core.fitted_attributes import (
    Field,
    FittedAttributes,
    StoresFittedAttributes,
    instance,
    real,
    sequence_of,
    with_methods,
)
from nbayes.core.validation import check_sample_weight, label_index
from nbayes.files.methods import ModelFileMethods
from nbayes.inspection.calibration import (  # noqa: F401 (API: measuring, defined there)
    ReliabilityTable,
    expected_calibration_error,
    reliability_table,
)

# Search interval for log T: T from about 5e-5 to 2e4.
_LOG_T_BOUNDS = (-10.0, 10.0)


# ---------------------------------------------------------------- calibrating
class CalibratedNB(
    ModelFileMethods, StoresFittedAttributes, MetaEstimatorMixin, ClassifierMixin, BaseEstimator
):
    """An nbayes estimator with cross-validated probability calibration.

    Parameters
    ----------
    estimator : nbayes estimator
        Anything with ``fit``, ``predict_proba`` and ``predict_joint_log_proba``
        (every nbayes estimator); cloned, never modified.
    method : {"temperature", "isotonic"}, default="temperature"
        See the module docstring.
    cv : int, cross-validation generator or iterable, default=5
        Folds for the out-of-fold predictions (stratified for an int), as in
        :func:`sklearn.model_selection.check_cv`.

    Attributes
    ----------
    estimator_ : the estimator refitted on all the data.
    temperature_ : float
        ``T`` (``method="temperature"``).
    calibrators_ : list of IsotonicRegression
        One per class, or one for the second class of two (``method="isotonic"``).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    References
    ----------
    C. Guo, G. Pleiss, Y. Sun & K. Q. Weinberger (2017), "On calibration of modern
    neural networks", ICML. B. Zadrozny & C. Elkan (2002), "Transforming classifier
    scores into accurate multiclass probability estimates", KDD.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba", "predict_joint_log_proba"])],
        "method": [StrOptions({"temperature", "isotonic"})],
        "cv": ["cv_object"],
    }

    #: What model files store (``classes_`` and the input's description are the model's).
    _fitted_attributes = FittedAttributes(
        {"estimator_": Field(with_methods("fit", "predict_proba", "predict_joint_log_proba"))},
        {
            "temperature_": Field(real(positive=True)),
            "calibrators_": Field(sequence_of(instance(IsotonicRegression))),
        },
    )

    def __init__(self, estimator, *, method="temperature", cv=5):
        self.estimator = estimator
        self.method = method
        self.cv = cv

    def fit(self, X, y, sample_weight=None):
        """Calibrate on out-of-fold predictions, then refit on all of X (n_samples,
        n_features) and y (n_samples,)."""
        self._validate_params()
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        sample_weight = check_sample_weight(sample_weight, y.shape[0])
        model = clone(self.estimator).fit(X, y, sample_weight=sample_weight)
        # the classes are the model's: a label it does not take as a class (the -1 of
        # unlabelled rows, for SemiSupervisedNB) is no class, and its rows, which the
        # out-of-fold models still learn from, have no truth to be calibrated against
        self.classes_ = model.classes_
        labelled = np.isin(y, self.classes_)
        truth = np.zeros(y.shape[0], dtype=np.intp)
        truth[labelled] = label_index(y[labelled], self.classes_)
        folds = [
            fold.rows_where(labelled[fold.rows])
            for fold in _out_of_fold(self.estimator, X, y, sample_weight, self.cv, self.classes_)
        ]
        weights = np.ones(y.shape[0]) if sample_weight is None else sample_weight
        if self.method == "temperature":
            self.temperature_ = fit_temperature(folds, truth, weights)
        else:
            self.calibrators_ = _fit_isotonic(folds, truth, weights, len(self.classes_))
        self._wrap(model)
        return self

    def _wrap(self, model) -> None:
        """Make the fitted ``model`` this one's, with its input description."""
        self.estimator_ = model
        self.n_features_in_ = model.n_features_in_
        if hasattr(model, "feature_names_in_"):
            self.feature_names_in_ = model.feature_names_in_

    def restore_state(self, state: dict) -> CalibratedNB:
        """Set the fitted state read from a model file (see ``_fitted_attributes``)."""
        super().restore_state(state)
        self._wrap(self.estimator_)
        self.classes_ = self.estimator_.classes_
        return self

    def check_restored(self) -> None:
        """ValueError unless the calibration matches ``method`` (a temperature, or one
        isotonic map per class, one for two classes) and the classes."""
        n_classes = len(self.classes_)
        if self.method == "temperature":
            if not hasattr(self, "temperature_") or hasattr(self, "calibrators_"):
                raise ValueError("a temperature calibration needs temperature_ only.")
        elif hasattr(self, "temperature_") or len(getattr(self, "calibrators_", ())) != (
            1 if n_classes == 2 else n_classes
        ):
            raise ValueError("an isotonic calibration needs one calibrator per class.")

    def predict_log_proba(self, X) -> NDArray[np.float64]:
        """Calibrated ``log P(y | x)``, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        if self.method == "temperature":
            jll = self.estimator_.predict_joint_log_proba(X)
            return _tempered_log_posterior(jll, self.estimator_, self.temperature_)
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict_proba(self, X) -> NDArray[np.float64]:
        """Calibrated ``P(y | x)``, shape (n_samples, n_classes); rows sum to 1."""
        check_is_fitted(self)
        if self.method == "temperature":
            return np.exp(self.predict_log_proba(X))
        return _apply_isotonic(self.calibrators_, self.estimator_.predict_proba(X))

    def predict(self, X) -> NDArray:
        """The class of highest calibrated probability, shape (n_samples,)."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags = self.estimator.__sklearn_tags__().input_tags
        tags.classifier_tags.poor_score = True
        return tags


@dataclass(frozen=True)
class _Fold:
    """One fold's held-out rows and its model's predictions on them, with columns
    aligned to all classes (a class the fold's model never saw gets ``-inf``)."""

    rows: NDArray[np.intp]
    jll: NDArray[np.float64]  # (n_rows, n_classes)
    log_prior: NDArray[np.float64]  # (n_classes,)

    def rows_where(self, keep: NDArray[np.bool_]) -> _Fold:
        """The fold's rows where ``keep`` (one entry per row of the fold)."""
        return _Fold(self.rows[keep], self.jll[keep], self.log_prior)


def _out_of_fold(estimator, X, y, sample_weight, cv, classes):
    splitter = check_cv(cv, y, classifier=True)
    for train, test in splitter.split(X, y):
        model = clone(estimator).fit(
            _safe_indexing(X, train),
            y[train],
            sample_weight=None if sample_weight is None else sample_weight[train],
        )
        columns = np.searchsorted(classes, model.classes_)
        jll = np.full((test.shape[0], classes.shape[0]), -np.inf)
        jll[:, columns] = model.predict_joint_log_proba(_safe_indexing(X, test))
        log_prior = np.full(classes.shape[0], -np.inf)
        log_prior[columns] = _log_prior(model)
        yield _Fold(test, jll, log_prior)


def _log_prior(model) -> NDArray[np.float64]:
    """The model's ``log P(y)`` (used for rows impossible under every class)."""
    fitted = getattr(model, "_fitted", None)
    if fitted is not None:
        return fitted.log_prior
    return np.zeros(len(model.classes_))


def _tempered_log_posterior(jll, model, temperature: float) -> NDArray[np.float64]:
    """``log softmax(jll / T)`` through :func:`nbayes.core.posterior.log_posterior`,
    each row shifted by its largest finite term first (softmax is unchanged by a shift):
    ``jll / T`` overflowed for a tiny ``T`` (a denormal from a model file), and every
    class at ``-inf`` gave the uniform posterior, not the limit, the argmax."""
    top = np.max(jll, axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(over="ignore"):  # (jll - top) <= 0: it can only reach -inf
        scaled = (jll - top) / temperature
    return posterior.log_posterior(scaled, _log_prior(model))


def fit_temperature(folds, truth: NDArray[np.intp], weights: NDArray[np.float64]) -> float:
    """``T`` minimising the weighted log-loss ``-sum_i w_i log P_T(y_i | x_i)`` of the
    out-of-fold joint log-likelihoods, searched over ``log T`` (bounded Brent).

    Rows whose true class has ``-inf`` joint log-likelihood (e.g. a class missing
    from their fold's training part) cost ``+inf`` at every ``T`` and are left out.
    """
    parts = []
    for fold in folds:
        rows = fold.rows
        true_jll = fold.jll[np.arange(rows.shape[0]), truth[rows]]
        usable = np.isfinite(true_jll) & (weights[rows] > 0)
        parts.append((fold.jll[usable], fold.log_prior, truth[rows][usable], weights[rows][usable]))

    def loss(log_t: float) -> float:
        total = 0.0
        for jll, log_prior, index, w in parts:
            log_post = posterior.log_posterior(jll / np.exp(log_t), log_prior)
            total -= float(w @ log_post[np.arange(index.shape[0]), index])
        return total

    result = minimize_scalar(loss, bounds=_LOG_T_BOUNDS, method="bounded")
    return float(np.exp(result.x))


def _fit_isotonic(folds, truth, weights, n_classes: int) -> list[IsotonicRegression]:
    rows = np.concatenate([fold.rows for fold in folds])
    proba = np.concatenate(
        [np.exp(posterior.log_posterior(fold.jll, fold.log_prior)) for fold in folds]
    )
    targets = range(1, 2) if n_classes == 2 else range(n_classes)
    return [
        IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(
            proba[:, c], (truth[rows] == c).astype(float), sample_weight=weights[rows]
        )
        for c in targets
    ]


def _apply_isotonic(calibrators, proba: NDArray[np.float64]) -> NDArray[np.float64]:
    if proba.shape[1] == 2:
        positive = calibrators[0].predict(proba[:, 1])
        return np.column_stack([1.0 - positive, positive])
    calibrated = np.column_stack(
        [calibrator.predict(proba[:, c]) for c, calibrator in enumerate(calibrators)]
    )
    totals = calibrated.sum(axis=1, keepdims=True)
    uniform = np.full_like(calibrated, 1.0 / calibrated.shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, calibrated / totals, uniform)
