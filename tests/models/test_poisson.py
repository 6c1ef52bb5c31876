"""PoissonNB and nbayes.events.poisson: Gamma-MAP rates, scipy's pmf, invariants."""

from __future__ import annotations

import numpy as np
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

from nbayes import PoissonNB


@pytest.fixture
def counts():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, 300)
    rates = np.array([[0.5, 3.0, 1.0, 0.0], [2.0, 1.0, 1.0, 0.0], [4.0, 0.2, 1.5, 0.0]])
    return rng.poisson(rates[y]).astype(float), y


def test_map_rate_is_gamma_posterior_mode(counts):
    X, y = counts
    alpha, beta = 3.0, 0.5
    model = PoissonNB(alpha=alpha, beta=beta).fit(X, y)
    for c in range(3):
        for j in range(X.shape[1]):
            x = X[y == c, j]

            def negative_log_posterior(rate, x=x):
                return -(
                    stats.poisson.logpmf(x, rate).sum()
                    + stats.gamma.logpdf(rate, alpha, scale=1 / beta)
                )

            best = optimize.minimize_scalar(
                negative_log_posterior,
                bounds=(1e-6, 20),
                method="bounded",
                options={"xatol": 1e-10},
            )
            assert_allclose(model.rate_[c, j], best.x, rtol=1e-5)


def test_mle_and_default_rates(counts):
    X, y = counts
    mle = PoissonNB(alpha=1.0, beta=0.0).fit(X, y)
    default = PoissonNB().fit(X, y)
    for c in range(3):
        rows = X[y == c]
        assert_allclose(mle.rate_[c], rows.mean(axis=0), rtol=1e-12)
        # default Gamma(2, 1): one pseudo-observation of count 1
        assert_allclose(default.rate_[c], (rows.sum(axis=0) + 1) / (len(rows) + 1), rtol=1e-12)
    assert np.all(default.rate_ > 0)
    assert np.all(mle.rate_[:, 3] == 0)  # the all-zero column: the MLE is 0


def test_log_likelihood_matches_scipy_pmf(counts):
    X, y = counts
    model = PoissonNB().fit(X, y)
    prior = np.log(np.bincount(y) / len(y))
    expected = np.stack(
        [stats.poisson.logpmf(X, model.rate_[c]).sum(axis=1) + prior[c] for c in range(3)],
        axis=1,
    )
    assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-12)


def test_zero_mle_rate_gives_no_nan():
    X = np.array([[0.0, 1], [0, 2], [3, 0], [4, 1]])
    y = np.array([0, 0, 1, 1])
    model = PoissonNB(alpha=1.0, beta=0.0).fit(X, y)
    jll = model.predict_joint_log_proba(np.array([[2.0, 1.0]]))
    assert jll[0, 0] == -np.inf and np.isfinite(jll[0, 1])
    check_probabilities(model, np.array([[2.0, 1.0], [0, 0], [1, 5]]))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (-1.0, "Negative values in data passed to PoissonNB: feature 2 is -1.0 in row 1"),
        (1.5, "Non-integer values in data passed to PoissonNB: feature 2 is 1.5 in row 1"),
    ],
)
def test_bad_counts_are_named(bad, message):
    X = np.ones((3, 3))
    X[1, 2] = bad
    with pytest.raises(ValueError, match=message):
        PoissonNB().fit(X, [0, 1, 0])
    model = PoissonNB().fit(np.ones((3, 3)), [0, 1, 0])
    with pytest.raises(ValueError, match=message):
        model.predict(X)


@pytest.mark.parametrize("params", [{}, {"alpha": 1.0, "beta": 0.0}, {"alpha": 5.0, "beta": 2.0}])
def test_invariants(counts, params):
    X, y = counts
    model = PoissonNB(**params)
    check_fit_partial_fit_merge(model, X, y)
    check_weights_are_repeats(model, X, y)
    check_missing_is_marginalised(model, X, y, column=1)
    check_probabilities(model.fit(X, y), X)


# scikit-learn has no "non-negative integer" input tag; these two checks fit on
# uniform random floats, which PoissonNB rightly rejects as non-integer counts.
# test_invariants checks sample weights == repeated rows on counts instead.
_FLOATS = "the check fits on non-integer floats, which are not counts"
EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": _FLOATS,
    "check_classifiers_one_label_sample_weights": _FLOATS,
}


@parametrize_with_checks([PoissonNB()], expected_failed_checks=lambda e: EXPECTED_FAILURES)
def test_sklearn_estimator_contract(estimator, check):
    check(estimator)
