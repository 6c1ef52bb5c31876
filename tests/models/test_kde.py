"""KernelDensityNB and nbayes.events.kde (with its grid, nbayes.events.grid): exact
KDE against scipy and scikit-learn, the binned approximation, invariants."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from continuous_invariants import (
    check_fit_partial_fit_merge,
    check_missing_is_marginalised,
    check_probabilities,
    check_weights_are_repeats,
)
from numpy.testing import assert_allclose
from scipy.stats import gaussian_kde
from sklearn.neighbors import KernelDensity
from sklearn.utils.estimator_checks import parametrize_with_checks

from nbayes import KernelDensityNB
from nbayes.core.validation import hard_class_weights
from nbayes.events import grid
from nbayes.events.kde import ConstantColumnError


@pytest.fixture
def mixed():
    """Two classes; feature 0 bimodal in class 0, feature 1 skewed."""
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 240)
    bimodal = np.where(rng.random(240) < 0.5, -2.0, 2.0) + rng.normal(0, 0.5, 240)
    X = np.column_stack(
        [np.where(y == 0, bimodal, rng.normal(0, 1, 240)), rng.gamma(2.0 + 2 * y, 1.0)]
    )
    return X, y


@pytest.mark.parametrize("rule", ["scott", "silverman"])
def test_exact_matches_scipy_gaussian_kde(mixed, rule):
    X, y = mixed
    model = KernelDensityNB(bandwidth=rule, algorithm="exact").fit(X, y)
    grid_points = np.linspace(-5, 8, 50)
    queries = np.column_stack([grid_points, np.abs(grid_points)])
    expected = np.zeros((len(queries), 2))
    for c in range(2):
        expected[:, c] = np.log(np.mean(y == c))
        for j in range(2):
            density = gaussian_kde(X[y == c, j], bw_method=rule)
            expected[:, c] += density.logpdf(queries[:, j])
            assert_allclose(model.bandwidth_[c, j], np.sqrt(density.covariance[0, 0]), rtol=1e-12)
    assert_allclose(model.predict_joint_log_proba(queries), expected, rtol=1e-10)


def test_weighted_exact_matches_sklearn_kernel_density(mixed):
    X, y = mixed
    weights = np.random.default_rng(0).uniform(0.1, 3.0, len(y))
    model = KernelDensityNB(algorithm="exact").fit(X, y, sample_weight=weights)
    queries = np.column_stack([np.linspace(-4, 4, 30), np.linspace(0, 9, 30)])
    for c in range(2):
        w = weights[y == c]
        for j in range(2):
            x = X[y == c, j]
            # frequency-weighted standard deviation times Scott's n^(-1/5), n = sum w
            mean = np.sum(w * x) / w.sum()
            sigma = np.sqrt(np.sum(w * (x - mean) ** 2) / (w.sum() - 1))
            assert_allclose(model.bandwidth_[c, j], sigma * w.sum() ** -0.2, rtol=1e-12)
    jll = model.predict_joint_log_proba(queries)
    for c in range(2):
        expected = np.log(weights[y == c].sum() / weights.sum())
        for j in range(2):
            density = KernelDensity(bandwidth=model.bandwidth_[c, j])
            density.fit(X[y == c, j][:, None], sample_weight=weights[y == c])
            expected = expected + density.score_samples(queries[:, [j]])
        assert_allclose(jll[:, c], expected, rtol=1e-10)


def test_float_bandwidth_is_the_kernel_width(mixed):
    X, y = mixed
    model = KernelDensityNB(bandwidth=[0.3, 0.7], algorithm="exact").fit(X, y)
    assert_allclose(model.bandwidth_, [[0.3, 0.7], [0.3, 0.7]])
    density = KernelDensity(bandwidth=0.7).fit(X[y == 1, 1][:, None])
    only_feature_1 = KernelDensityNB(bandwidth=0.7, algorithm="exact").fit(X[:, [1]], y)
    assert_allclose(
        only_feature_1.predict_joint_log_proba([[1.5]])[0, 1],
        density.score_samples([[1.5]])[0] + np.log(np.mean(y == 1)),
        rtol=1e-12,
    )


def test_binned_approximates_exact():
    rng = np.random.default_rng(5)
    n = 20_000
    y = rng.integers(0, 2, n)
    X = rng.normal(y[:, None] * [1.0, -0.5], 1.0, (n, 2))
    queries = rng.normal(0.5, 1.0, (400, 2))
    exact = KernelDensityNB(algorithm="exact").fit(X, y)
    binned = KernelDensityNB(algorithm="binned", max_bins=512).fit(X, y)
    assert_allclose(binned.bandwidth_, exact.bandwidth_, rtol=1e-12)
    difference = binned.predict_joint_log_proba(queries) - exact.predict_joint_log_proba(queries)
    assert np.max(np.abs(difference)) < 2e-3
    # prediction cost: at most max_bins kernel centres per class and feature
    centres = binned._fitted.params.centres
    assert max(len(points) for feature in centres for points, _ in feature) <= 512


def test_grid_exponent_is_the_smallest_that_fits():
    """Values 0.1 and 0.9 in at most 4 bins: width 1/4 spans bins 0..3 (4 bins),
    width 1/8 would span bins 0..7 (8): so 2**-2."""
    W = hard_class_weights(np.array([0, 1]), 2, None)
    stats = grid.summarize(np.array([[0.1], [0.9]]), W, max_bins=4)
    assert stats.exponent[0] == -2 and stats.offset[0] == 0
    assert_allclose(stats.counts[:, 0, :], [[1, 0, 0, 0], [0, 0, 0, 1]])
    # a third value at 2.6 needs width 1 (bins 0..2); adding coarsens exactly
    more = grid.summarize(np.array([[2.6]]), hard_class_weights(np.array([0]), 2, None), 4)
    total = stats + more
    assert total.exponent[0] == 0
    assert_allclose(total.counts[:, 0, :3], [[1, 0, 1], [1, 0, 0]])
    assert_allclose(total.low[0, :3], [0.1, np.inf, 2.6])
    assert_allclose(total.sums[:, 0, :3], [[0.1, 0, 2.6], [0.9, 0, 0]])


def test_grid_is_independent_of_batch_order(mixed):
    X, y = mixed
    rng = np.random.default_rng(1)
    W = hard_class_weights(y, 2, None)
    whole = grid.summarize(X, W, max_bins=64)
    order = rng.permutation(len(y))
    streamed = grid.GridStats.zero(2, 2, 64)
    for part in np.array_split(order, 7):
        streamed = streamed + grid.summarize(X[part], hard_class_weights(y[part], 2, None), 64)
    np.testing.assert_array_equal(streamed.exponent, whole.exponent)
    np.testing.assert_array_equal(streamed.offset, whole.offset)
    assert_allclose(streamed.counts, whole.counts, rtol=1e-12)
    np.testing.assert_array_equal(streamed.low, whole.low)
    np.testing.assert_array_equal(streamed.high, whole.high)


def test_constant_column_is_named(mixed):
    X, y = mixed
    X = np.column_stack([X, np.full(len(y), 3.0)])
    with pytest.raises(ConstantColumnError, match="Feature 2 is constant") as error:
        KernelDensityNB().fit(X, y)
    assert error.value.column == 2
    # streamed: the error comes when the bandwidth is needed
    model = KernelDensityNB().partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="Feature 2 is constant"):
        model.predict(X)
    # a given bandwidth needs no spread
    check_probabilities(KernelDensityNB(bandwidth=0.5).fit(X, y), X)


def test_class_constant_feature_falls_back_to_overall_spread(mixed):
    X, y = mixed
    X = X.copy()
    X[y == 1, 0] = 1.0
    model = KernelDensityNB(algorithm="exact").fit(X, y)
    overall = np.std(X[:, 0], ddof=1)
    assert_allclose(model.bandwidth_[1, 0], overall * np.sum(y == 1) ** -0.2, rtol=1e-12)


@pytest.mark.parametrize(
    "params",
    [
        {"algorithm": "exact"},
        {"algorithm": "binned", "max_bins": 64},
        {"algorithm": "auto", "max_exact_samples": 100},  # switches to the grid midway
        {"bandwidth": "silverman", "algorithm": "exact"},
    ],
)
def test_invariants(mixed, params):
    X, y = mixed
    model = KernelDensityNB(**params)
    check_fit_partial_fit_merge(model, X, y)
    check_weights_are_repeats(model, X, y)
    check_missing_is_marginalised(model, X, y, column=1)
    check_probabilities(model.fit(X, y), X)


def test_auto_switches_to_the_grid(mixed):
    X, y = mixed
    small = KernelDensityNB(max_exact_samples=len(y)).fit(X, y)
    large = KernelDensityNB(max_exact_samples=len(y) - 1).fit(X, y)
    assert small._stats.grid is None and large._stats.grid is not None


def test_far_outliers_give_no_nan(mixed):
    X, y = mixed
    model = KernelDensityNB().fit(X, y)
    check_probabilities(model, np.array([[1e6, 1.0], [-1e300, 1e300], [0.0, 1.0]]))


def test_a_table_past_the_largest_float_is_not_tabulated_and_does_not_warn():
    """Found by hypothesis (test_io_hostile's tampered files): centres and a bandwidth
    whose range overflows float64 give no table (exact densities), with no warning."""
    from nbayes.events.kde import _tabulate

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _tabulate(np.array([-1e308, 1e308]), np.zeros(2), 1e300) is None
        assert _tabulate(np.array([0.0, 1.0]), np.zeros(2), 0.5) is not None


@parametrize_with_checks([KernelDensityNB(), KernelDensityNB(algorithm="binned")])
def test_sklearn_estimator_contract(estimator, check):
    check(estimator)
