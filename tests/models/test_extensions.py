"""What nbayes adds to scikit-learn's five models: ``GaussianNB(ddof=1)``,
``prior_alpha``, ``CategoricalNB(handle_unknown="ignore")``, ``nbayes.merge``, lazy
estimation, and per-feature ``alpha`` for BernoulliNB. Expected values are computed
here from the data with numpy or fractions.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.exceptions import NotFittedError

import nbayes

MODELS = ["GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]


def small_counts(seed: int = 0, n: int = 60, d: int = 5, k: int = 3):
    """Integer counts 0..4 (valid for every model) and labels 0..k-1."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 5, (n, d)), rng.integers(0, k, n)


def prior_of(model) -> np.ndarray:
    if isinstance(model, nbayes.GaussianNB):
        return model.class_prior_
    return np.exp(model.class_log_prior_)


# ------------------------------------------------------------- GaussianNB(ddof)


@pytest.mark.parametrize("load", [load_iris, load_wine])
@pytest.mark.parametrize("ddof", [0, 1])
def test_gaussian_ddof_variances_equal_numpy(load, ddof):
    X, y = load(return_X_y=True)
    model = nbayes.GaussianNB(ddof=ddof).fit(X, y)
    for index, label in enumerate(model.classes_):
        rows = X[y == label]
        assert_allclose(model.theta_[index], rows.mean(axis=0), rtol=1e-13)
        assert_allclose(model.var_[index] - model.epsilon_, rows.var(axis=0, ddof=ddof), rtol=1e-10)
    assert_allclose(model.epsilon_, 1e-9 * X.var(axis=0).max(), rtol=1e-12)


# ------------------------------------------------------------- prior_alpha


@pytest.mark.parametrize("model_name", MODELS)
@pytest.mark.parametrize("prior_alpha", [0.0, 0.5, 1.0])
def test_prior_alpha_is_lidstone_on_the_class_counts(model_name, prior_alpha):
    """``P(c) = (N_c + a) / (N + K a)``; class 3 is declared but never seen."""
    X, y = small_counts()
    classes = [0, 1, 2, 3]
    model = getattr(nbayes, model_name)(prior_alpha=prior_alpha)
    model.partial_fit(X, y, classes=classes)
    a = Fraction(prior_alpha)
    expected = [(int(np.sum(y == c)) + a) / (len(y) + len(classes) * a) for c in classes]
    assert_allclose(prior_of(model), [float(p) for p in expected], rtol=1e-14)
    if model_name == "ComplementNB":
        return  # its decision leaves the prior out (Rennie et al.)
    unseen_probability = model.predict_proba(X)[:, 3]
    if prior_alpha == 0:
        assert np.all(unseen_probability == 0)
    elif model_name != "GaussianNB":  # its unseen class (mean 0, variance = floor) underflows
        assert np.all(unseen_probability > 0)  # the unseen class keeps some mass


@pytest.mark.parametrize("model_name", MODELS[1:])
def test_prior_alpha_gives_way_to_a_fixed_prior(model_name):
    X, y = small_counts()
    fixed = getattr(nbayes, model_name)(prior_alpha=1.0, class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    assert_allclose(prior_of(fixed), [0.2, 0.3, 0.5], rtol=1e-15)
    uniform = getattr(nbayes, model_name)(prior_alpha=1.0, fit_prior=False).fit(X, y)
    assert_allclose(prior_of(uniform), [1 / 3] * 3, rtol=1e-15)


# ------------------------------------------------------------- handle_unknown


def test_ignored_unknown_category_equals_a_model_without_that_feature():
    X, y = load_digits(n_class=4, return_X_y=True)
    X = (X // 4).astype(np.int64)  # codes 0..4
    train, test = X[:500], X[500:].copy()
    feature = 20
    n_seen = train[:, feature].max() + 1
    affected = np.arange(0, test.shape[0], 3)
    test[affected, feature] = n_seen + 7  # never seen in training
    ignoring = nbayes.CategoricalNB(handle_unknown="ignore").fit(train, y[:500])
    without = nbayes.CategoricalNB().fit(np.delete(train, feature, axis=1), y[:500])
    strict = nbayes.CategoricalNB().fit(train, y[:500])

    reduced = np.delete(test[affected], feature, axis=1)
    assert_allclose(
        ignoring.predict_joint_log_proba(test[affected]),
        without.predict_joint_log_proba(reduced),
        rtol=1e-12,
    )
    assert_allclose(
        ignoring.predict_proba(test[affected]), without.predict_proba(reduced), rtol=1e-10
    )
    assert_array_equal(ignoring.predict(test[affected]), without.predict(reduced))
    others = np.setdiff1d(np.arange(test.shape[0]), affected)
    assert_array_equal(
        ignoring.predict_joint_log_proba(test[others]),
        strict.predict_joint_log_proba(test[others]),
    )
    with pytest.raises(nbayes.UnknownCategoryError):
        strict.predict(test[affected])


# ------------------------------------------------------------- merge


def statistics(model) -> list[np.ndarray]:
    if isinstance(model, nbayes.GaussianNB):
        return [model.class_count_, model.theta_, model.var_]
    if isinstance(model, nbayes.CategoricalNB):
        return [model.class_count_, *model.category_count_]
    return [model.class_count_, model.feature_count_]


@pytest.mark.parametrize("model_name", MODELS)
def test_merge_with_parts_lacking_classes_equals_fit_on_the_union(model_name):
    X, y = small_counts(seed=1, k=4)
    parts = [np.flatnonzero(np.isin(y, group)) for group in ([0, 1], [1, 2], [3])]
    Model = getattr(nbayes, model_name)
    merged = nbayes.merge(*(Model().fit(X[rows], y[rows]) for rows in parts))
    union = np.concatenate(parts)
    whole = Model().fit(X[union], y[union])
    assert_array_equal(merged.classes_, [0, 1, 2, 3])
    for ours, expected in zip(statistics(merged), statistics(whole), strict=True):
        if model_name == "GaussianNB":
            assert_allclose(ours, expected, rtol=1e-12, atol=1e-12)
        else:
            assert_array_equal(ours, expected)
    assert_allclose(merged.predict_proba(X), whole.predict_proba(X), rtol=1e-10, atol=1e-14)
    assert_array_equal(merged.predict(X), whole.predict(X))


def test_merge_leaves_its_inputs_unchanged():
    X, y = small_counts()
    a = nbayes.MultinomialNB().fit(X[:30], y[:30])
    b = nbayes.MultinomialNB().fit(X[30:], y[30:])
    before = a.feature_count_.copy()
    nbayes.merge(a, b)
    assert_array_equal(a.feature_count_, before)


def test_merge_errors_name_the_problem():
    X, y = small_counts()
    multinomial = nbayes.MultinomialNB().fit(X, y)
    with pytest.raises(TypeError, match="Cannot merge a BernoulliNB into a MultinomialNB"):
        nbayes.merge(multinomial, nbayes.BernoulliNB().fit(X, y))
    with pytest.raises(ValueError, match="different parameters"):
        nbayes.merge(multinomial, nbayes.MultinomialNB(alpha=0.5).fit(X, y))
    with pytest.raises(ValueError, match="with 4 and 5 features"):
        nbayes.merge(multinomial, nbayes.MultinomialNB().fit(X[:, :4], y))
    with pytest.raises(NotFittedError):
        nbayes.merge(multinomial, nbayes.MultinomialNB())
    with pytest.raises(TypeError, match="takes nbayes estimators"):
        nbayes.merge(multinomial, object())
    named = nbayes.MultinomialNB().fit(pd.DataFrame(X, columns=list("abcde")), y)
    reordered = nbayes.MultinomialNB().fit(pd.DataFrame(X[:, ::-1], columns=list("edcba")), y)
    with pytest.raises(ValueError, match="differently named columns"):
        nbayes.merge(named, reordered)  # summed column by column, 'a' would meet 'e'
    with pytest.raises(ValueError, match="differently named columns"):
        nbayes.merge(named, multinomial)  # named and unnamed
    with pytest.raises(ValueError, match="labels are of different types"):
        nbayes.merge(multinomial, nbayes.MultinomialNB().fit(X, np.asarray(y).astype(str)))
    assert nbayes.merge(named, named).feature_names_in_.tolist() == list("abcde")
    with pytest.raises(ValueError, match="at least one fitted model"):
        nbayes.merge()


# ------------------------------------------------------------- lazy estimation


@pytest.mark.parametrize("model_name", MODELS)
def test_partial_fit_estimates_once_per_prediction(model_name, monkeypatch):
    Model = getattr(nbayes, model_name)
    calls = []
    original = Model._event_type.estimate

    def counting(self, stats):
        calls.append(1)
        return original(self, stats)

    monkeypatch.setattr(Model._event_type, "estimate", counting)
    X, y = small_counts(n=200)
    model = Model()
    for rows in np.array_split(np.arange(200), 100):
        model.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    assert len(calls) == 0
    model.predict(X)
    assert len(calls) == 1
    model.predict_proba(X)
    model.predict_log_proba(X)
    assert len(calls) == 1
    model.partial_fit(X[:5], y[:5])
    assert len(calls) == 1
    model.predict(X)
    assert len(calls) == 2


# ------------------------------------------------------------- alpha arrays


def test_bernoulli_alpha_array_is_per_feature_lidstone():
    """``p_cj = (N_cj + alpha_j) / (N_c + 2 alpha_j)`` (scikit-learn's BernoulliNB
    cannot take alpha arrays)."""
    X, y = small_counts()
    present = (X > 0).astype(float)
    alpha = np.array([0.1, 0.5, 1.0, 2.0, 3.0])
    model = nbayes.BernoulliNB(alpha=alpha).fit(X, y)
    for index, label in enumerate(model.classes_):
        rows = present[y == label]
        expected = (rows.sum(axis=0) + alpha) / (len(rows) + 2 * alpha)
        assert_allclose(np.exp(model.feature_log_prob_[index]), expected, rtol=1e-14)
    x = present[:1]
    manual = np.log(prior_of(model)) + [
        np.sum(np.where(x[0] > 0, lp, np.log1p(-np.exp(lp)))) for lp in model.feature_log_prob_
    ]
    assert_allclose(model.predict_joint_log_proba(X[:1])[0], manual, rtol=1e-13)
