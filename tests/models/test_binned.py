"""BinnedNB and nbayes.events.binned: MDL cut points by hand and against an
independent implementation, equal width against scikit-learn, equal frequency,
the categorical model against scikit-learn's CategoricalNB, invariants."""

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
from sklearn.naive_bayes import CategoricalNB
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.utils.estimator_checks import parametrize_with_checks

from nbayes import BinnedNB


def _cuts(x, y, **params):
    return BinnedNB(**params).fit(np.asarray(x, float)[:, None], y).cut_points_[0]


def test_mdl_cut_points_by_hand():
    """x = 1..8, classes 0000 1111. The cut 4.5 leaves two pure halves: gain 1 bit.
    Delta = log2(3^2 - 2) - (2 * 1 - 0 - 0) = log2 7 - 2 = 0.807; the threshold is
    (log2(8 - 1) + 0.807) / 8 = 0.452 < 1: accepted. Both halves are pure (gain 0):
    no further cut."""
    assert_allclose(_cuts(range(1, 9), [0, 0, 0, 0, 1, 1, 1, 1]), [4.5])


def test_mdl_threshold_uses_log2_of_n_minus_1_by_hand():
    """x = 1..5, classes 00001: the cut 4.5 has gain H(1/5) = 0.7219. Delta = log2 7 -
    2 * 0.7219 = 1.3635; threshold (log2(5 - 1) + 1.3635) / 5 = 0.6727 < 0.7219:
    accepted (with log2 5 instead of log2 4 it would be 0.7371: rejected)."""
    assert_allclose(_cuts(range(1, 6), [0, 0, 0, 0, 1]), [4.5])


def test_mdl_rejects_a_weak_cut_by_hand():
    """x = 1..6, classes 001011. Conditional entropies of the cuts after 1..5 values:
    5/6 H(2/5) = 0.809, 4/6 H(1/4) = 0.541, H(1/3) = 0.918, 0.541, 0.809: the first
    best is 2.5 with gain 1 - 0.541 = 0.459. Delta = log2 7 - (2 * 1 - 0 - 2 *
    0.811) = 2.430; threshold (log2 5 + 2.430) / 6 = 0.792 > 0.459: rejected."""
    assert _cuts(range(1, 7), [0, 0, 1, 0, 1, 1]).size == 0


def _entropy(labels, weights):
    total = weights.sum()
    p = np.array([weights[labels == c].sum() / total for c in np.unique(labels)])
    p = p[p > 0]
    return -np.sum(p * np.log2(p))


def _reference_mdl(x, y, w):
    """Fayyad & Irani on sorted distinct values, written from the paper, loop by loop."""
    order = np.argsort(x, kind="stable")
    x, y, w = x[order], y[order], w[order]
    cuts = []

    def split(lo, hi):
        xs, ys, ws = x[lo:hi], y[lo:hi], w[lo:hi]
        n = ws.sum()
        prior = _entropy(ys, ws)
        best, best_i = np.inf, None
        for i in range(1, len(xs)):
            if xs[i] == xs[i - 1]:
                continue
            left, right = ws[:i].sum(), ws[i:].sum()
            e = (left * _entropy(ys[:i], ws[:i]) + right * _entropy(ys[i:], ws[i:])) / n
            if e < best:
                best, best_i = e, i
        if best_i is None or not prior - best > 0:
            return
        k = len(np.unique(ys[ws > 0]))
        k1 = len(np.unique(ys[:best_i][ws[:best_i] > 0]))
        k2 = len(np.unique(ys[best_i:][ws[best_i:] > 0]))
        e1, e2 = _entropy(ys[:best_i], ws[:best_i]), _entropy(ys[best_i:], ws[best_i:])
        delta = np.log2(3.0**k - 2) - (k * prior - k1 * e1 - k2 * e2)
        if prior - best > (np.log2(n - 1) + delta) / n:
            cuts.append((xs[best_i - 1] + xs[best_i]) / 2)
            split(lo, lo + best_i)
            split(lo + best_i, hi)

    split(0, len(x))
    return np.sort(cuts)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mdl_matches_an_independent_implementation(seed):
    rng = np.random.default_rng(seed)
    n = 150
    y = rng.integers(0, 3, n)
    x = np.round(rng.normal(y * 1.5, 1.0), 2)  # ties, few enough for the 1024-bin grid
    weights = rng.uniform(0.5, 2.0, n)
    model = BinnedNB(strategy="mdl").fit(x[:, None], y, sample_weight=weights)
    expected = _reference_mdl(x, y, weights)
    assert expected.size >= 2
    assert_allclose(model.cut_points_[0], expected, rtol=1e-12)


def test_uniform_matches_sklearn_equal_width_bins():
    rng = np.random.default_rng(4)
    X = rng.gamma(2.0, 1.0, (200, 2))
    y = rng.integers(0, 2, 200)
    model = BinnedNB(strategy="uniform", n_bins=5).fit(X, y)
    reference = KBinsDiscretizer(n_bins=5, strategy="uniform", encode="ordinal").fit(X)
    codes = np.column_stack([np.searchsorted(c, X[:, j]) for j, c in enumerate(model.cut_points_)])
    np.testing.assert_array_equal(codes, reference.transform(X))


def test_quantile_gives_equal_counts():
    x = np.random.default_rng(2).permutation(100).astype(float) / 7
    cuts = _cuts(x, np.arange(100) % 2, strategy="quantile", n_bins=4)
    np.testing.assert_array_equal(np.bincount(np.searchsorted(cuts, x)), [25, 25, 25, 25])


def test_interval_model_is_sklearn_categorical_nb():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 300)
    X = rng.normal(y[:, None] * [1.0, 0.5, -1.0], 1.0, (300, 3))
    model = BinnedNB(strategy="quantile", n_bins=4, alpha=0.7).fit(X, y)
    codes = np.column_stack([np.searchsorted(c, X[:, j]) for j, c in enumerate(model.cut_points_)])
    reference = CategoricalNB(alpha=0.7, min_categories=model.n_categories_).fit(codes, y)
    assert_allclose(
        model.predict_joint_log_proba(X), reference.predict_joint_log_proba(codes), rtol=1e-12
    )
    for ours, theirs in zip(model.feature_log_prob_, reference.feature_log_prob_, strict=True):
        assert_allclose(ours, theirs, rtol=1e-12)


def test_values_outside_training_range_and_missing():
    model = BinnedNB().fit([[1.0], [2.0], [8.0], [9.0]], [0, 0, 1, 1])
    np.testing.assert_array_equal(model.predict([[-100.0], [100.0]]), [0, 1])
    proba = model.predict_proba([[np.nan]])
    assert_allclose(proba, [[0.5, 0.5]])  # term left out: the prior


@pytest.mark.parametrize("strategy", ["mdl", "uniform", "quantile"])
def test_invariants(strategy):
    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 300)
    X = rng.normal(y[:, None] * [1.0, -1.0], 1.0, (300, 2))
    model = BinnedNB(strategy=strategy, max_bins=128)
    check_fit_partial_fit_merge(model, X, y)
    check_weights_are_repeats(model, X, y)
    check_missing_is_marginalised(model, X, y, column=0)
    check_probabilities(model.fit(X, y), X)


@parametrize_with_checks([BinnedNB(), BinnedNB(strategy="uniform")])
def test_sklearn_estimator_contract(estimator, check):
    check(estimator)
