"""Property tests (hypothesis) of the invariants every model keeps.

- ``fit`` == chunked ``partial_fit`` == ``nbayes.merge`` of models fitted on parts
  (counts bitwise equal; Gaussian moments to ~1e-12 of the data's scale);
- integer sample weights == repeated rows;
- probabilities sum to 1, ``log(predict_proba) == predict_log_proba``, and never NaN
  or inf for finite input, extreme magnitudes (1e300, 1e-300) and constant features
  included.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose, assert_array_equal

import nbayes

settings.register_profile(
    "nbayes-invariants",
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
PROFILE = settings.get_profile("nbayes-invariants")

MODELS = ["GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]
DISCRETE = MODELS[1:]

EXTREMES = [0.0, 1.0, -1.0, 1e300, -1e300, 1e-300, -1e-300, 5e-324, 1.7e308, -1.7e308]


def elements(model: str, extreme: bool) -> st.SearchStrategy:
    """Feature values each model accepts: reals for Gaussian, non-negative counts
    for the count models, 0/1 for Bernoulli, small codes for categorical."""
    if model == "CategoricalNB":
        return st.integers(0, 4)
    if model == "BernoulliNB" and not extreme:
        return st.integers(0, 1)
    if model == "GaussianNB":
        if extreme:
            return st.one_of(
                st.sampled_from(EXTREMES), st.floats(allow_nan=False, allow_infinity=False)
            )
        return st.floats(-1e6, 1e6)
    if extreme:
        non_negative = [v for v in EXTREMES if v >= 0]
        return st.one_of(st.sampled_from(non_negative), st.floats(0, 1e308))
    return st.integers(0, 20)


@st.composite
def matrices(draw, model: str, extreme: bool, n_features: int) -> np.ndarray:
    """X of shape (1..24, n_features), some columns made constant."""
    n = draw(st.integers(1, 24))
    X = draw(hnp.arrays(np.float64, (n, n_features), elements=elements(model, extreme)))
    for j in draw(st.sets(st.integers(0, n_features - 1), max_size=n_features)):
        X[:, j] = X[0, j]  # constant features
    return X.astype(np.int64) if model == "CategoricalNB" else X


@st.composite
def training_sets(draw, model: str, extreme: bool = False):
    """(X, y): X (n, 1..4) from :func:`matrices`, y (n,) with 1-3 classes."""
    X = draw(matrices(model, extreme, draw(st.integers(1, 4))))
    y = draw(hnp.arrays(np.int64, X.shape[0], elements=st.integers(0, 2)))
    return X, y


def make(model: str, **params):
    return getattr(nbayes, model)(**params)


def split_points(draw, n: int) -> list[int]:
    cuts = draw(st.lists(st.integers(1, n - 1), max_size=4, unique=True)) if n > 1 else []
    return sorted(cuts)


def assert_same_statistics(a, b, model: str, X) -> None:
    """Counts bitwise equal; Gaussian moments to 1e-12 of the data's scale."""
    assert_array_equal(a.classes_, b.classes_)
    assert_array_equal(a.class_count_, b.class_count_)
    if model == "GaussianNB":
        scale = max(1.0, float(np.max(np.abs(X))))
        assert_allclose(a.theta_, b.theta_, rtol=1e-12, atol=1e-12 * scale)
        assert_allclose(a.var_, b.var_, rtol=1e-12, atol=1e-12 * scale**2)
        assert_allclose(a.epsilon_, b.epsilon_, rtol=1e-12, atol=1e-12 * scale**2)
    elif model == "CategoricalNB":
        assert_array_equal(a.n_categories_, b.n_categories_)
        for counts_a, counts_b in zip(a.category_count_, b.category_count_, strict=True):
            assert_array_equal(counts_a, counts_b)
        for log_a, log_b in zip(a.feature_log_prob_, b.feature_log_prob_, strict=True):
            assert_array_equal(log_a, log_b)
    else:
        assert_array_equal(a.feature_count_, b.feature_count_)
        assert_array_equal(a.feature_log_prob_, b.feature_log_prob_)


# ---------------------------------------------------------- additivity


@pytest.mark.parametrize("model", MODELS)
@settings(PROFILE)
@given(data=st.data())
def test_fit_equals_partial_fit_equals_merge(model, data):
    X, y = data.draw(training_sets(model))
    cuts = split_points(data.draw, X.shape[0])
    parts = np.split(np.arange(X.shape[0]), cuts)
    whole = make(model).fit(X, y)

    streamed = make(model)
    for rows in parts:
        streamed.partial_fit(X[rows], y[rows], classes=np.unique(y))
    assert_same_statistics(whole, streamed, model, X)

    merged = nbayes.merge(*(make(model).fit(X[rows], y[rows]) for rows in parts))
    assert_same_statistics(whole, merged, model, X)
    assert_allclose(merged.predict_proba(X), whole.predict_proba(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("model", MODELS)
@settings(PROFILE)
@given(data=st.data())
def test_integer_weights_equal_repeated_rows(model, data):
    X, y = data.draw(training_sets(model))
    # A zero-weight row still declares its category code to CategoricalNB (as in
    # scikit-learn), so only there a zero weight is not the same as no row.
    lowest = 1 if model == "CategoricalNB" else 0
    weights = data.draw(hnp.arrays(np.int64, X.shape[0], elements=st.integers(lowest, 3)))
    weights[0] = max(weights[0], 1)
    weighted = make(model).partial_fit(X, y, classes=np.unique(y), sample_weight=weights)
    repeated = make(model).partial_fit(
        np.repeat(X, weights, axis=0), np.repeat(y, weights), classes=np.unique(y)
    )
    assert_same_statistics(weighted, repeated, model, X)
    assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------- probabilities


def assert_proper_probabilities(model, X) -> None:
    proba = model.predict_proba(X)
    log_proba = model.predict_log_proba(X)
    assert np.all(np.isfinite(proba)), proba
    assert np.all((proba >= 0) & (proba <= 1))
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert not np.isnan(log_proba).any()
    # exp/log round trip: exact to rounding wherever the probability is a normal
    # float; a probability that underflows must have a log below the underflow point.
    normal = proba >= np.finfo(np.float64).tiny
    with np.errstate(divide="ignore"):
        assert_allclose(np.log(proba[normal]), log_proba[normal], rtol=1e-12, atol=1e-15)
    assert np.all(log_proba[~normal] < np.log(np.finfo(np.float64).tiny))
    # predict takes a most probable class (ties in the jll below the posterior's
    # rounding may resolve differently from argmax of the rounded log-posterior).
    chosen = np.searchsorted(model.classes_, model.predict(X))
    best = log_proba[np.arange(X.shape[0]), chosen]
    assert_allclose(best, log_proba.max(axis=1), rtol=1e-12, atol=1e-12)


def assert_unrepresentable(model: str, X, y) -> None:
    """The data justify the overflow error: counts whose total exceeds the largest
    float."""
    scale = 2.0**-900
    assert np.sum(X * scale) > np.finfo(np.float64).max * scale * (1 - 1e-9)


@pytest.mark.parametrize("model", MODELS)
@settings(PROFILE)
@given(data=st.data())
def test_probabilities_are_proper_for_extreme_input(model, data):
    X, y = data.draw(training_sets(model, extreme=True))
    test = data.draw(matrices(model, True, X.shape[1]))
    params = {"alpha": data.draw(st.sampled_from([0.0, 1e-10, 1.0]))} if model in DISCRETE else {}
    try:
        fitted = make(model, **params).fit(X, y)
    except ValueError as error:  # counts (not Gaussian moments, kept scaled) may overflow
        assert model != "GaussianNB", error
        assert "cannot be represented in float64" in str(error)
        assert_unrepresentable(model, X, y)
        return
    if model == "CategoricalNB":
        test = np.minimum(test, fitted.n_categories_ - 1)  # unknown codes are tested elsewhere
    assert_proper_probabilities(fitted, X)
    assert_proper_probabilities(fitted, test)


@pytest.mark.parametrize("model", MODELS)
@settings(PROFILE)
@given(data=st.data())
def test_probabilities_are_proper_for_ordinary_input(model, data):
    X, y = data.draw(training_sets(model))
    fitted = make(model).fit(X, y)
    assert_proper_probabilities(fitted, X)


# ---------------------------------------------------------- regressions
# Cases hypothesis found; kept as plain examples so they run on every seed.


def test_tied_classes_with_huge_joint_log_likelihood_split_evenly():
    """|jll| ~ 1e300: the normaliser must not round away the log(2) of a tie."""
    model = nbayes.MultinomialNB(alpha=1e-10).fit(np.zeros((2, 2)), [0, 1])
    assert_allclose(model.predict_proba([[1e300, 1e300]]), [[0.5, 0.5]], rtol=1e-15)


def test_gaussian_point_masses_far_from_the_sample_give_the_prior():
    """Zero variances (floored to the smallest normal times var_smoothing) make
    x = 1 impossible under both classes: the posterior is the prior, not [1, 1]."""
    model = nbayes.GaussianNB().fit(np.zeros((2, 1)), [0, 1])
    assert_allclose(model.predict_proba([[1.0]]), [[0.5, 0.5]], rtol=1e-15)


@pytest.mark.parametrize("value", [1e300, -1.7e308, 1e-300, 116508.74773917])
def test_gaussian_constant_feature_has_its_exact_mean_and_no_variance(value):
    """A constant feature's mean is its value and its M2 is 0 whatever the weights
    or the order of the rows, so the variance floor does not depend on them."""
    X = np.full((5, 1), value)
    weights = np.array([3.0, 0.0, 3.0, 0.7, 3.0])
    model = nbayes.GaussianNB().fit(X, np.zeros(5, int), sample_weight=weights)
    assert model.theta_[0, 0] == value
    assert model.var_[0, 0] == model.epsilon_
    # The documented fallback floor: var_smoothing * mean^2, kept scaled where mean^2
    # is beyond float64 (var_ and epsilon_, in the units of x, are then inf or 0).
    params = model._fitted.params
    exponent = 0 if params.exponent is None else int(params.exponent[0])
    in_units = np.ldexp(np.float64(value), -exponent)
    with np.errstate(under="ignore"):
        assert_allclose(params.var[0, 0], 1e-9 * in_units**2, rtol=1e-15)
    with np.errstate(over="ignore"):
        assert_allclose(model.epsilon_, 1e-9 * np.float64(value) ** 2, rtol=1e-15)
    assert_array_equal(model.predict_proba([[value], [0.0]]), [[1.0], [1.0]])
