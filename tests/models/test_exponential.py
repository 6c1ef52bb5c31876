"""ExponentialNB and nbayes.events.exponential: the MLE of the UW-Madison slides,
Gamma-MAP rates, scipy's pdf, invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from continuous_invariants import (
    check_fit_partial_fit_merge,
    check_missing_is_marginalised,
    check_probabilities,
    check_weights_are_repeats,
)
from numpy.testing import assert_allclose
from scipy import optimize, stats
from sklearn.utils.estimator_checks import parametrize_with_checks

import nbayes
from nbayes import ExponentialNB


@pytest.fixture
def durations():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 300)
    scales = np.array([[1.0, 5.0, 2.0], [3.0, 1.0, 2.0], [0.5, 2.0, 4.0]])
    return rng.exponential(scales[y]), y


def test_mle_is_n_over_sum(durations):
    """The slides: d/d lambda [N log lambda - lambda sum x] = 0 gives N / sum x."""
    X, y = durations
    model = ExponentialNB().fit(X, y)
    for c in range(3):
        rows = X[y == c]
        assert_allclose(model.rate_[c], len(rows) / rows.sum(axis=0), rtol=1e-12)
        # and it maximises the log-likelihood (scipy's fit, location fixed at 0)
        _, scale = stats.expon.fit(rows[:, 0], floc=0)
        assert_allclose(model.rate_[c, 0], 1 / scale, rtol=1e-12)


def test_map_rate_is_gamma_posterior_mode(durations):
    X, y = durations
    alpha, beta = 4.0, 2.5
    model = ExponentialNB(alpha=alpha, beta=beta).fit(X, y)
    for c in range(3):
        for j in range(X.shape[1]):
            x = X[y == c, j]

            def negative_log_posterior(rate, x=x):
                return -(
                    stats.expon.logpdf(x, scale=1 / rate).sum()
                    + stats.gamma.logpdf(rate, alpha, scale=1 / beta)
                )

            best = optimize.minimize_scalar(
                negative_log_posterior,
                bounds=(1e-6, 50),
                method="bounded",
                options={"xatol": 1e-10},
            )
            assert_allclose(model.rate_[c, j], best.x, rtol=1e-5)


def test_log_likelihood_matches_scipy_pdf(durations):
    X, y = durations
    model = ExponentialNB().fit(X, y)
    prior = np.log(np.bincount(y) / len(y))
    expected = np.stack(
        [stats.expon.logpdf(X, scale=1 / model.rate_[c]).sum(axis=1) + prior[c] for c in range(3)],
        axis=1,
    )
    assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-12)


def test_all_zero_class_is_a_point_mass_at_zero():
    """MLE with sum x = 0: lambda = inf, log-density +inf at 0 and -inf above."""
    X = np.array([[0.0, 1.0], [0.0, 2.0], [1.0, 1.0], [3.0, 0.5]])
    y = np.array([0, 0, 1, 1])
    model = ExponentialNB().fit(X, y)
    assert model.rate_[0, 0] == np.inf
    jll = model.predict_joint_log_proba(np.array([[0.0, 1.0], [2.0, 1.0]]))
    assert jll[0, 0] == np.inf and np.isfinite(jll[0, 1])
    assert jll[1, 0] == -np.inf and np.isfinite(jll[1, 1])
    np.testing.assert_array_equal(model.predict([[0.0, 1.0], [2.0, 1.0]]), [0, 1])
    check_probabilities(model, np.array([[0.0, 1.0], [2.0, 1.0], [0.0, 0.0]]))
    # a Gamma prior makes every rate finite
    assert np.all(np.isfinite(ExponentialNB(alpha=2.0, beta=1.0).fit(X, y).rate_))


def test_negative_value_is_named():
    X = np.ones((3, 2))
    X[2, 1] = -0.5
    message = "Negative values in data passed to ExponentialNB: feature 1 is -0.5 in row 2"
    with pytest.raises(ValueError, match=message):
        ExponentialNB().fit(X, [0, 1, 0])
    with pytest.raises(ValueError, match=message):
        ExponentialNB().fit(np.ones((3, 2)), [0, 1, 0]).predict_proba(X)


@pytest.mark.parametrize("params", [{}, {"alpha": 3.0, "beta": 2.0}])
def test_invariants(durations, params):
    X, y = durations
    model = ExponentialNB(**params)
    check_fit_partial_fit_merge(model, X, y)
    check_weights_are_repeats(model, X, y)
    check_missing_is_marginalised(model, X, y, column=2)
    check_probabilities(model.fit(X, y), X)


@parametrize_with_checks([ExponentialNB()])
def test_sklearn_estimator_contract(estimator, check):
    check(estimator)


def test_a_column_of_zeros_in_every_class_adds_nothing():
    """Only zeros seen, in every class: a point mass at 0 common to all classes, which
    cancels at 0 (it swamped the prior and the other features: an even split) and is
    impossible above 0 in every class (the prior then)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    informative = np.abs(rng.normal(size=(300, 2))) * (1 + y[:, None])
    with_zeros = np.c_[informative, np.zeros(300)]
    model = nbayes.ExponentialNB().fit(with_zeros, y)
    without = nbayes.ExponentialNB().fit(informative, y)
    np.testing.assert_allclose(
        model.predict_proba(with_zeros), without.predict_proba(informative), rtol=1e-12
    )
    np.testing.assert_allclose(
        model.predict_joint_log_proba(with_zeros), without.predict_joint_log_proba(informative)
    )
    above = model.predict_proba(np.array([[1.0, 1.0, 0.5]]))
    np.testing.assert_allclose(above[0], np.bincount(y) / 300)
    table = pd.DataFrame({"a": informative[:, 0], "b": informative[:, 1], "z": 0.0})
    mixed = nbayes.NaiveBayes(columns="exponential").fit(table, y)
    np.testing.assert_allclose(mixed.predict_proba(table), without.predict_proba(informative))
