"""Semi-supervised naive Bayes by expectation-maximisation (Nigam, McCallum, Thrun &
Mitchell, 2000).

Rows with label ``-1`` are unlabelled (scikit-learn's convention). Starting from the
model fitted on the labelled rows, EM alternates

- **E-step**: the wrapped model's posterior ``P(y | x)`` on the unlabelled rows (the
  responsibilities), computed by :mod:`nbayes.core.posterior` as for ``predict_proba``;
- **M-step**: the statistics of the labelled rows (hard class weights) plus those of
  the unlabelled rows under the soft class weights ``W = lambda * w_i * P(y | x_i)``,
  added through ``BaseNB.learn_weighted``, then the model's own estimate.

So this module holds no modelling maths: it only decides how statistics are summed.

What EM increases
-----------------
With ``lambda`` = ``unlabeled_weight`` and ``w_i`` the sample weights, each iteration
never decreases the penalised observed-data log-likelihood ("EM-lambda")

``L(theta) = sum_{i labelled} w_i log P(x_i, y_i) + lambda sum_{i unlabelled} w_i
log sum_y P(x_i, y) + log p(theta)``,

where ``log P(x, y) = log P(y) + log P(x | y)`` includes the class prior and
``log p(theta)`` is the log density (up to a constant) of the parameter prior whose
mode the model's smoothed estimate is: Lidstone's ``alpha`` is the mode of a
Dirichlet(``alpha + 1``) prior, so ``log p(theta) = sum alpha log theta`` over the
feature probabilities, plus ``prior_alpha * sum_c log P(c)`` for a fitted class
prior (see :func:`log_parameter_prior`). The two parts are recorded separately:
``log_likelihood_`` (the first two sums) and ``log_posterior_`` (``L``). Only
``log_posterior_`` is guaranteed monotone under MAP-EM; the observed-data
log-likelihood alone is monotone only for unsmoothed (maximum-likelihood) estimates.

The prior is the event model's own (``log_parameter_prior`` of the contract), so EM
works on every nbayes estimator. The guarantee needs an M-step that maximises exactly,
which holds for :class:`~nbayes.MultinomialNB`, :class:`~nbayes.BernoulliNB`,
:class:`~nbayes.CategoricalNB`, :class:`~nbayes.PoissonNB` and
:class:`~nbayes.ExponentialNB` (Gamma-MAP rates) and :class:`~nbayes.GaussianNB` with
``ddof=0`` and ``var_smoothing=0``. The Gaussian variance floor, Bessel's correction,
kernel bandwidths and data-chosen cut points are not the mode of any fixed prior, and
:class:`~nbayes.ComplementNB` is not a generative model, so EM around them is a
heuristic that may not be monotone.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, column_or_1d

from nbayes.core import posterior
from nbayes.core.base import BaseNB
from nbayes.core.fitted_attributes import (
    Field,
    FittedAttributes,
    StoresFittedAttributes,
    array,
    boolean,
    integer,
    subclass_of,
)
from nbayes.core.validation import check_sample_weight, label_index, soft_class_weights
from nbayes.files.methods import ModelFileMethods

UNLABELED = -1


class SemiSupervisedNB(
    ModelFileMethods, StoresFittedAttributes, MetaEstimatorMixin, ClassifierMixin, BaseEstimator
):
    """Naive Bayes trained on labelled and unlabelled rows by EM.

    Parameters
    ----------
    estimator : nbayes estimator (a :class:`nbayes.core.base.BaseNB`)
        The model to train; cloned, never modified.
    unlabeled_weight : float, default=1.0
        ``lambda``: the weight of each unlabelled row relative to a labelled one
        (Nigam et al.'s EM-lambda; 1 is plain EM, 0 ignores unlabelled rows).
    max_iter : int, default=100
        Most EM iterations (M-steps on unlabelled rows).
    tol : float, default=1e-4
        Stop when an iteration raises the objective ``L`` (see the module docstring)
        by less than ``tol`` per unit of row weight.

    Attributes
    ----------
    estimator_ : the fitted copy of ``estimator``.
    classes_ : ndarray of shape (n_classes,)
        The labels seen among labelled rows; unlabelled rows cannot add classes.
    n_features_in_ : int
    n_iter_ : int
        EM iterations run (0 when there are no unlabelled rows).
    log_likelihood_ : ndarray of shape (n_iter_ + 1,)
        The observed-data log-likelihood after each iteration (entry 0: the
        supervised start), class prior included, unlabelled rows weighted by
        ``lambda``.
    log_posterior_ : ndarray of shape (n_iter_ + 1,)
        ``log_likelihood_`` plus the log parameter prior: what MAP-EM never decreases.
    converged_ : bool

    References
    ----------
    K. Nigam, A. McCallum, S. Thrun & T. Mitchell (2000), "Text classification from
    labeled and unlabeled documents using EM", Machine Learning 39, 103-134.
    """

    _parameter_constraints: dict = {
        "estimator": [BaseNB],
        "unlabeled_weight": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    #: What model files store (``classes_`` and the input's description are the model's).
    _fitted_attributes = FittedAttributes(
        {
            "estimator_": Field(subclass_of(BaseNB)),
            "n_iter_": Field(integer(0)),
            "log_likelihood_": Field(array("f")),
            "log_posterior_": Field(array("f")),
            "converged_": Field(boolean),
        }
    )

    def __init__(self, estimator, *, unlabeled_weight=1.0, max_iter=100, tol=1e-4):
        self.estimator = estimator
        self.unlabeled_weight = unlabeled_weight
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        """Fit by EM; ``y == -1`` marks unlabelled rows of X (n_samples, n_features).

        ``sample_weight`` (n_samples,) weights labelled and unlabelled rows alike.
        """
        self._validate_params()
        y = _check_semi_supervised_target(y)
        n_samples = y.shape[0]
        sample_weight = check_sample_weight(sample_weight, n_samples)
        weights = np.ones(n_samples) if sample_weight is None else sample_weight
        labelled = np.flatnonzero(_is_labelled(y))
        unlabelled = np.flatnonzero(~_is_labelled(y))
        if labelled.size == 0:
            raise ValueError(f"EM needs at least one labelled row; every label is {UNLABELED}.")
        X_lab, y_lab = _safe_indexing(X, labelled), y[labelled]
        if y_lab.dtype == object:
            y_lab = _common_dtype(y_lab)
        model = clone(self.estimator)
        model.fit(X_lab, y_lab, sample_weight=_take(sample_weight, labelled))
        self._wrap(model)

        problem = _Problem(
            X_lab=X_lab,
            y_index=label_index(y_lab, model.classes_),
            weights_lab=weights[labelled],
            X_unl=_safe_indexing(X, unlabelled),
            weights_unl=self.unlabeled_weight * weights[unlabelled],
        )
        if unlabelled.size:
            X_unl_checked = model.check_X(problem.X_unl)
            # Unlabelled rows enter first with weight 0: the statistics then span their
            # domain (e.g. categories unseen in labelled rows) from the start, so the
            # parameter space is the same at every iteration.
            model.extend_domain(X_unl_checked)
            labelled_stats = model.statistics
        log_likelihood, log_resp = problem.evaluate(model)
        history = [(log_likelihood, log_likelihood + log_parameter_prior(model))]
        self.n_iter_, self.converged_ = 0, True
        if unlabelled.size == 0:
            return self._record(history)
        self.converged_ = False
        total_weight = problem.weights_lab.sum() + problem.weights_unl.sum()
        for _ in range(self.max_iter):
            model.replace_statistics(labelled_stats)  # M-step: labelled statistics ...
            soft = soft_class_weights(problem.weights_unl[:, None] * np.exp(log_resp))
            model.learn_weighted(X_unl_checked, soft)  # ... plus the unlabelled ones
            self.n_iter_ += 1
            log_likelihood, log_resp = problem.evaluate(model)  # E-step
            history.append((log_likelihood, log_likelihood + log_parameter_prior(model)))
            if history[-1][1] - history[-2][1] < self.tol * total_weight:
                self.converged_ = True
                break
        if not self.converged_ and self.max_iter > 0:
            warnings.warn(
                f"EM did not converge in max_iter={self.max_iter} iterations; "
                "raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self._record(history)

    def _wrap(self, model: BaseNB) -> None:
        """Make the fitted ``model`` this one's: its classes and input description."""
        self.estimator_ = model
        self.classes_ = model.classes_
        self.n_features_in_ = model.n_features_in_
        if hasattr(model, "feature_names_in_"):
            self.feature_names_in_ = model.feature_names_in_

    def restore_state(self, state: dict) -> SemiSupervisedNB:
        """Set the fitted state read from a model file (see ``_fitted_attributes``)."""
        super().restore_state(state)
        self._wrap(self.estimator_)
        return self

    def check_restored(self) -> None:
        """ValueError unless the restored model is of the class ``estimator`` names and
        the EM record has one entry per iteration plus the start, none NaN."""
        if type(self.estimator_) is not type(self.estimator):
            raise ValueError(
                f"estimator_ is a {type(self.estimator_).__name__}, but estimator a "
                f"{type(self.estimator).__name__}."
            )
        for name in ("log_likelihood_", "log_posterior_"):
            record = getattr(self, name)
            if record.shape != (self.n_iter_ + 1,) or np.any(np.isnan(record)):
                raise ValueError(f"{name} must hold n_iter_ + 1 numbers.")

    def _record(self, history) -> SemiSupervisedNB:
        self.log_likelihood_ = np.array([h[0] for h in history])
        self.log_posterior_ = np.array([h[1] for h in history])
        return self

    # ------------------------------------------------------------ prediction
    def predict(self, X) -> NDArray:
        """The MAP class of the fitted model, shape (n_samples,)."""
        check_is_fitted(self)
        return self.estimator_.predict(X)

    def predict_proba(self, X) -> NDArray[np.float64]:
        """``P(y | x)``, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)

    def predict_log_proba(self, X) -> NDArray[np.float64]:
        """``log P(y | x)``, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        return self.estimator_.predict_log_proba(X)

    def predict_joint_log_proba(self, X) -> NDArray[np.float64]:
        """``log P(x, y)``, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        return self.estimator_.predict_joint_log_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = self.estimator.__sklearn_tags__()
        tags.input_tags = inner.input_tags
        tags.classifier_tags.poor_score = True
        return tags


class _Problem:
    """The data EM works on and the evaluation of the objective's likelihood part."""

    def __init__(self, X_lab, y_index, weights_lab, X_unl, weights_unl) -> None:
        self.X_lab, self.y_index, self.weights_lab = X_lab, y_index, weights_lab
        self.X_unl, self.weights_unl = X_unl, weights_unl

    def evaluate(self, model: BaseNB) -> tuple[float, NDArray[np.float64]]:
        """The weighted observed-data log-likelihood and the unlabelled rows' log
        responsibilities ``log P(y | x)`` (n_unlabelled, n_classes)."""
        jll_lab = model.predict_joint_log_proba(self.X_lab)
        value = _weighted_sum(self.weights_lab, jll_lab[np.arange(len(self.y_index)), self.y_index])
        if self.weights_unl.size == 0:
            return value, np.empty((0, len(model.classes_)))
        jll_unl = model.predict_joint_log_proba(self.X_unl)
        value += _weighted_sum(self.weights_unl, logsumexp(jll_unl, axis=1))
        return value, posterior.log_posterior(jll_unl, model.fitted_parameters.log_prior)


def _weighted_sum(weights: NDArray, values: NDArray) -> float:
    """``sum_i w_i v_i`` where rows of weight 0 count 0 even if ``v_i = -inf``."""
    used = weights > 0
    return float(np.dot(weights[used], values[used]))


# ---------------------------------------------------------------- parameter priors
def log_parameter_prior(model: BaseNB) -> float:
    """``log p(theta)`` up to a constant, for the prior whose mode is the model's
    smoothed estimate: the feature part (:func:`feature_log_prior`) plus
    ``prior_alpha * sum_c log P(c)`` when the class prior is fitted."""
    log_prior = model.fitted_parameters.log_prior
    fitted_prior = model.fixed_class_prior() is None and getattr(model, "fit_prior", True)
    class_part = 0.0
    if fitted_prior and model.prior_alpha > 0:
        class_part = model.prior_alpha * float(np.sum(log_prior))
    return class_part + feature_log_prior(model)


def feature_log_prior(model: BaseNB) -> float:
    """The log prior density of the feature parameters, up to a constant: the event
    model's own (:meth:`nbayes.events._contract.EventModel.log_parameter_prior`), e.g. a
    Dirichlet(``alpha + 1``) density for Lidstone estimates, 0 for maximum-likelihood
    estimates and for models whose estimate is not the mode of a fixed prior."""
    fitted = model.fitted_parameters
    return fitted.event.log_parameter_prior(fitted.params)


# ---------------------------------------------------------------- targets
def _is_labelled(y: NDArray) -> NDArray[np.bool_]:
    return np.asarray(y != UNLABELED, dtype=bool)


def _check_semi_supervised_target(y) -> NDArray:
    """y as a 1-d array; string dtypes cannot hold the integer -1 marker."""
    y = column_or_1d(y, warn=True)
    if y.dtype.kind in "USV":
        raise ValueError(
            "y has a string dtype, which cannot mark unlabelled rows with -1; use an "
            "object array holding the string labels and -1."
        )
    return y


def _common_dtype(y: NDArray) -> NDArray:
    """Object labels without the -1 marker, as a plain array when they share a type."""
    kinds = {type(label) for label in y}
    return np.asarray(list(y)) if len(kinds) == 1 else y


def _take(sample_weight: NDArray | None, index: NDArray) -> NDArray | None:
    return None if sample_weight is None else sample_weight[index]
