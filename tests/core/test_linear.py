"""The linear view of the discrete models: ``coef_``, ``intercept_`` and
``decision_function`` reproduce ``predict``.

``X'`` is what the linear model multiplies: the counts themselves (multinomial,
complement), the binarized features (Bernoulli), or the one-hot encoding of the
category codes in the flat (feature, category) layout (categorical), built here
with scikit-learn's OneHotEncoder. Binary problems have one row, the log-odds of
``classes_[1]``; multiclass problems one row per class.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit
from sklearn.datasets import load_digits
from sklearn.preprocessing import OneHotEncoder

import nbayes

LINEAR = ["MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]


def digits(n_classes: int):
    """Digits 0..n_classes-1: pixel intensities 0..16 (counts and codes alike)."""
    X, y = load_digits(n_class=n_classes, return_X_y=True)
    return X, y


def linear_input(model, X):
    """``X'``: the features the coefficients apply to, shape (n, n_features')."""
    if isinstance(model, nbayes.CategoricalNB):
        categories = [np.arange(k) for k in model.n_categories_]
        return OneHotEncoder(categories=categories).fit_transform(X)
    if isinstance(model, nbayes.BernoulliNB):
        return (X > model.binarize).astype(np.float64)
    return X


def cases():
    for name in LINEAR:
        layouts = ["dense"] if name == "CategoricalNB" else ["dense", "csr"]
        for layout in layouts:
            for n_classes in (2, 5):
                yield pytest.param(name, layout, n_classes, id=f"{name}-{layout}-{n_classes}")


def fitted(name: str, layout: str, n_classes: int):
    X, y = digits(n_classes)
    X = X.astype(np.int64) if name == "CategoricalNB" else X
    params = {"binarize": 4.0} if name == "BernoulliNB" else {}
    if layout == "csr":
        X = sp.csr_matrix(X)
    return getattr(nbayes, name)(**params).fit(X, y), X, y


@pytest.mark.parametrize(("name", "layout", "n_classes"), list(cases()))
def test_linear_view_reproduces_predict(name, layout, n_classes):
    model, X, _ = fitted(name, layout, n_classes)
    X_linear = linear_input(model, X)
    scores = np.asarray(X_linear @ model.coef_.T) + model.intercept_
    decision = model.decision_function(X)
    jll = model.predict_joint_log_proba(X)
    predicted = model.predict(X)
    if n_classes == 2:
        assert model.coef_.shape == (1, X_linear.shape[1])
        assert model.intercept_.shape == (1,)
        assert decision.shape == (X.shape[0],)
        assert_allclose(decision, scores[:, 0], rtol=1e-10, atol=1e-9)
        assert_allclose(decision, jll[:, 1] - jll[:, 0], rtol=1e-10, atol=1e-9)
        assert_array_equal(predicted, model.classes_[(decision > 0).astype(int)])
    else:
        assert model.coef_.shape == (n_classes, X_linear.shape[1])
        assert model.intercept_.shape == (n_classes,)
        assert_allclose(scores, jll, rtol=1e-10, atol=1e-9)
        assert_allclose(decision, jll, rtol=1e-12)
        assert_array_equal(predicted, model.classes_[np.argmax(scores, axis=1)])
    # Both classes must actually be predicted, or the check above proves little.
    assert len(np.unique(predicted)) == n_classes


@pytest.mark.parametrize("name", LINEAR)
def test_decision_function_ranks_like_predict_proba(name):
    """Binary: ``P(classes_[1] | x) = sigmoid(decision_function(x))``, so both rank
    the rows the same way (count data, no negative values)."""
    model, X, _ = fitted(name, "dense", 2)
    decision = model.decision_function(X)
    proba = model.predict_proba(X)[:, 1]
    assert_allclose(proba, expit(decision), rtol=1e-10, atol=1e-300)
    order = np.argsort(decision, kind="stable")
    assert np.all(np.diff(proba[order]) >= 0)


def test_categorical_coefficients_are_the_log_probabilities():
    """Multiclass categorical: ``coef_`` is ``feature_log_prob_`` laid side by side
    and ``intercept_`` the log prior."""
    model, _, _ = fitted("CategoricalNB", "dense", 5)
    assert_array_equal(model.coef_, np.hstack(model.feature_log_prob_))
    assert_array_equal(model.intercept_, model.class_log_prior_)


def test_complement_decision_ignores_the_prior():
    """Rennie et al.: complement NB scores a class by its complement's weights alone."""
    model, X, _ = fitted("ComplementNB", "dense", 5)
    assert_array_equal(model.intercept_, np.zeros(5))
    assert_allclose(model.decision_function(X), X @ model.feature_log_prob_.T, rtol=1e-12)
