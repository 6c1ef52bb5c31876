"""A class with no observed value of a continuous column (every one of its values
missing): no warning, finite probabilities summing to 1, the other columns still
count, and for a gaussian column the class backs off to the column's pooled
(all-class) mean and variance."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import softmax
from scipy.stats import norm

from nbayes import NaiveBayes, merge

Y = np.array(["a", "b", "b", "c", "c", "a", "b", "c"])
X = np.array(  # column 0: never observed in class "a"
    [[np.nan, 1.0], [0.0, 2.0], [1.0, 3.0], [5.0, 2.5],
     [6.0, 2.6], [np.nan, 1.2], [0.5, 2.2], [5.5, 2.9]]
)  # fmt: skip


def _fit_clean(model: NaiveBayes, X, y) -> NaiveBayes:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return model.fit(X, y)


def _proba_clean(model: NaiveBayes, X) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    return proba


def _by_hand(X_train, y, X_test) -> np.ndarray:
    """The posterior with class "a"'s column 0 the pooled normal (ddof 0), computed
    from the data with scipy."""
    classes = np.unique(y)
    log_joint = np.log([np.mean(y == c) for c in classes])[None, :].repeat(len(X_test), 0)
    for j in range(X_train.shape[1]):
        for k, c in enumerate(classes):
            values = X_train[y == c, j]
            values = values[~np.isnan(values)]
            if values.size == 0:
                values = X_train[~np.isnan(X_train[:, j]), j]  # the pooled column
            known = ~np.isnan(X_test[:, j])
            log_joint[known, k] += norm.logpdf(X_test[known, j], values.mean(), values.std())
    return softmax(log_joint, axis=1)


def test_gaussian_class_without_values_backs_off_to_the_pooled_estimate():
    model = _fit_clean(NaiveBayes(columns=["gaussian", "gaussian"], var_smoothing=0.0), X, Y)
    proba = _proba_clean(model, X)
    np.testing.assert_allclose(proba, _by_hand(X, Y, X), rtol=1e-9)
    # the column counts: scored without it, the rows that know it move
    alone = _fit_clean(NaiveBayes(columns=["gaussian"], var_smoothing=0.0), X[:, 1:], Y)
    known = ~np.isnan(X[:, 0])
    assert np.abs(proba[known] - alone.predict_proba(X[known, 1:])).max() > 1e-3
    np.testing.assert_allclose(proba[~known], alone.predict_proba(X[~known, 1:]), rtol=1e-12)


@pytest.mark.parametrize("ddof", [0.0, 1.0])
def test_a_column_of_zeros_unobserved_in_a_class_gives_no_warning(ddof):
    """The pooled variance is 0: the variance floor (never subnormal) keeps 1 / var
    finite; the reproduction of the fuzzing find (``,a`` / ``0,b`` / ``0,b``)."""
    X_train = np.array([[np.nan], [0.0], [0.0]])
    y = np.array(["a", "b", "b"])
    model = _fit_clean(NaiveBayes(columns=["gaussian"], ddof=ddof), X_train, y)
    proba = _proba_clean(model, np.array([[0.0], [np.nan], [1.0], [-3.0]]))
    np.testing.assert_allclose(proba[:2], [[1 / 3, 2 / 3]] * 2, rtol=1e-12)  # a = b there


@pytest.mark.parametrize("kind", ["gaussian", "poisson", "exponential", "kde", "binned"])
def test_fit_partial_fit_and_merge_agree_with_a_class_unobserved(kind):
    X_kind = np.abs(np.round(X)) if kind == "poisson" else X
    columns = [kind, "gaussian"]
    whole = _fit_clean(NaiveBayes(columns=columns), X_kind, Y)
    expected = _proba_clean(whole, X_kind)
    without_column = np.column_stack([np.full(len(Y), np.nan), X_kind[:, 1]])
    assert np.abs(expected - _proba_clean(whole, without_column)).max() > 1e-3  # it counts
    streamed = NaiveBayes(columns=columns)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        streamed.partial_fit(X_kind[[0, 5]], Y[[0, 5]], classes=np.unique(Y))  # "a" only
        streamed.partial_fit(X_kind[1:5], Y[1:5])
        streamed.partial_fit(X_kind[6:], Y[6:])
        halves = [NaiveBayes(columns=columns).fit(X_kind[[0, 1, 3, 5]], Y[[0, 1, 3, 5]]),
                  NaiveBayes(columns=columns).fit(X_kind[[2, 4, 6, 7]], Y[[2, 4, 6, 7]])]
        merged = merge(*halves)
    if kind == "kde":  # a KDE's streamed grid is exact only to its binning
        tolerance = {"rtol": 1e-6, "atol": 1e-9}
    else:
        tolerance = {"rtol": 1e-9}
    np.testing.assert_allclose(_proba_clean(streamed, X_kind), expected, **tolerance)
    np.testing.assert_allclose(_proba_clean(merged, X_kind), expected, **tolerance)


@pytest.mark.parametrize("kind", ["gaussian", "kde", "exponential", "binned"])
def test_a_class_without_values_does_not_depend_on_the_units_of_x(kind):
    """Its factor is a density in the units of x, as the other classes' are (a term
    left out, a factor of 1, would change the posterior with the units)."""
    X_kind = np.abs(X[:, :1])
    proba = _proba_clean(_fit_clean(NaiveBayes(columns=[kind]), X_kind, Y), X_kind)
    scaled = _fit_clean(NaiveBayes(columns=[kind]), 1000.0 * X_kind, Y)
    np.testing.assert_allclose(_proba_clean(scaled, 1000.0 * X_kind), proba, rtol=1e-9)


def test_a_kde_class_without_values_is_the_pooled_kde():
    model = _fit_clean(NaiveBayes(columns=["kde"]), X[:, :1], Y)
    known = ~np.isnan(X[:, 0])
    pooled = _fit_clean(NaiveBayes(columns=["kde"]), X[known, :1], np.full(known.sum(), "a"))
    grid = np.linspace(-2.0, 8.0, 11)[:, None]
    prior_a = np.mean(Y == "a")
    np.testing.assert_allclose(model.predict_joint_log_proba(grid)[:, 0] - np.log(prior_a),
                               pooled.predict_joint_log_proba(grid)[:, 0], rtol=1e-12)


def test_a_poisson_class_without_values_and_no_prior_rate_takes_the_pooled_rate():
    from scipy.stats import poisson

    counts = np.abs(np.round(X[:, :1]))
    options = {"poisson": {"alpha": 1.0, "beta": 0.0}}  # the MLE: no prior rate
    model = _fit_clean(NaiveBayes(columns=["poisson"], kind_options=options), counts, Y)
    known = ~np.isnan(counts[:, 0])
    grid = np.arange(8.0)[:, None]
    expected = np.log(np.mean(Y == "a")) + poisson.logpmf(grid[:, 0], counts[known, 0].mean())
    np.testing.assert_allclose(model.predict_joint_log_proba(grid)[:, 0], expected, rtol=1e-12)
