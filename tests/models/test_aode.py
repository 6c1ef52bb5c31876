"""AODE and TAN: checked against a brute-force computation of Webb et al.'s formulas."""

from __future__ import annotations

import csv
import itertools

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.preprocessing import OrdinalEncoder

import nbayes
from tests.conftest import DATA, require_path


def _random_table(seed, n=60, d=4, k=3, levels=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, d)).astype(object)
    y = rng.integers(0, k, size=n)
    return X, y


def _brute_force_aode(X, y, x, alpha=1.0, m=1):
    """P(y | x) from the textbook formulas, by loops over the training rows."""
    classes = np.unique(y)
    d = X.shape[1]
    values = [sorted(set(X[:, j])) for j in range(d)]
    scores = []
    for c in classes:
        spodes = []
        for i in range(d):
            if sum(X[:, i] == x[i]) < m:
                continue
            joint = (np.sum((y == c) & (X[:, i] == x[i])) + alpha) / (
                len(y) + len(classes) * len(values[i]) * alpha
            )
            log_score = np.log(joint)
            for j in range(d):
                if j == i:
                    continue
                parent_rows = (y == c) & (X[:, i] == x[i])
                numerator = np.sum(parent_rows & (X[:, j] == x[j])) + alpha
                log_score += np.log(numerator / (parent_rows.sum() + len(values[j]) * alpha))
            spodes.append(log_score)
        scores.append(logsumexp(spodes) - np.log(len(spodes)))
    scores = np.array(scores)
    return np.exp(scores - logsumexp(scores))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_aode_matches_brute_force(seed, alpha):
    X, y = _random_table(seed)
    model = nbayes.AODE(alpha=alpha).fit(X, y)
    for row in X[:10]:
        np.testing.assert_allclose(
            model.predict_proba(row[None, :])[0], _brute_force_aode(X, y, row, alpha), rtol=1e-12
        )


def test_min_parent_count_excludes_rare_parents():
    X, y = _random_table(7, n=40, levels=4)
    model = nbayes.AODE(min_parent_count=9).fit(X, y)
    for row in X[:10]:
        np.testing.assert_allclose(
            model.predict_proba(row[None, :])[0], _brute_force_aode(X, y, row, m=9), rtol=1e-12
        )


def test_falls_back_to_naive_bayes_without_parents():
    X, y = _random_table(3)
    codes = X.astype(int)
    aode = nbayes.AODE(min_parent_count=10**9).fit(X, y)
    naive = nbayes.CategoricalNB(alpha=1.0).fit(codes, y)
    np.testing.assert_allclose(aode.predict_proba(X), naive.predict_proba(codes), rtol=1e-12)


def test_strings_and_missing_values():
    X, y = _random_table(11)
    letters = np.vectorize(lambda v: "abc"[v], otypes=[object])(X)
    model = nbayes.AODE().fit(letters, y)
    np.testing.assert_allclose(
        model.predict_proba(letters), nbayes.AODE().fit(X, y).predict_proba(X), rtol=1e-12
    )
    # A value missing at predict time gives the model trained without that column.
    queries = letters[:8].copy()
    queries[:, 2] = None
    without = nbayes.AODE().fit(np.delete(letters, 2, axis=1), y)
    np.testing.assert_allclose(
        model.predict_proba(queries),
        without.predict_proba(np.delete(letters[:8], 2, axis=1)),
        rtol=1e-12,
    )
    # Missing values in training are skipped: the model still predicts everywhere.
    holes = letters.copy()
    holes[::5, 1] = np.nan
    proba = nbayes.AODE().fit(holes, y).predict_proba(holes)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1)


def test_fit_equals_partial_fit_equals_merge():
    X, y = _random_table(5, n=90, levels=5)
    full = nbayes.AODE().fit(X, y)
    streamed = nbayes.AODE()
    for part in np.array_split(np.arange(90), 6):
        streamed.partial_fit(X[part], y[part], classes=np.unique(y))
    merged = nbayes.merge(
        *(nbayes.AODE().fit(X[p], y[p]) for p in np.array_split(np.arange(90), 3))
    )
    for other in (streamed, merged):
        assert other._stats.vocabularies == full._stats.vocabularies
        np.testing.assert_array_equal(other._stats.joint, full._stats.joint)
        np.testing.assert_allclose(other.predict_proba(X), full.predict_proba(X), rtol=1e-12)


def test_merge_aligns_different_vocabularies():
    X = np.array([["a", "x"], ["b", "y"], ["c", "x"], ["a", "z"]], dtype=object)
    y = np.array([0, 1, 0, 1])
    full = nbayes.AODE().fit(X, y)
    parts = nbayes.merge(nbayes.AODE().fit(X[2:], y[2:]), nbayes.AODE().fit(X[:2], y[:2]))
    np.testing.assert_allclose(parts.predict_proba(X), full.predict_proba(X), rtol=1e-12)


def test_sample_weights_equal_repeated_rows():
    X, y = _random_table(9)
    weights = np.random.default_rng(0).integers(1, 4, size=len(y))
    weighted = nbayes.AODE().fit(X, y, sample_weight=weights)
    repeated = nbayes.AODE().fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)


def test_bad_input():
    X, y = _random_table(1)
    with pytest.raises(ValueError, match="continuous"):
        nbayes.AODE().fit(np.random.default_rng(0).normal(size=(20, 3)), np.arange(20) % 2)
    with pytest.raises(ValueError, match="Bin continuous or high-cardinality"):
        nbayes.AODE().fit(np.arange(40000).reshape(20000, 2), np.arange(20000) % 2)
    model = nbayes.AODE().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])


def test_tan_tree_follows_dependence():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 500)
    a = rng.integers(0, 3, 500)
    b = (a + (rng.random(500) < 0.1)) % 3  # b nearly copies a
    c = rng.integers(0, 3, 500)
    X = np.stack([a, b, c], axis=1)
    tan = nbayes.TAN().fit(X, y)
    assert tan.tree_parent_[1] == 0
    proba = tan.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1)


def _read(name, file):
    rows = [r for r in csv.reader(open(require_path(DATA / name / file))) if r]
    return np.array([r[:-1] for r in rows], dtype=object), np.array([r[-1] for r in rows])


def test_aode_beats_categorical_nb_on_car():
    """Webb et al. report AODE well ahead of naive Bayes on car (about +5 points)."""
    X, y = _read("uci_car", "car.data")
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    aode = cross_val_score(nbayes.AODE(), X, y, cv=cv).mean()
    codes = OrdinalEncoder().fit_transform(X).astype(int)
    naive = cross_val_score(nbayes.CategoricalNB(min_categories=5), codes, y, cv=cv).mean()
    assert aode > naive + 0.04


def test_every_pair_of_models_round_trips(tmp_path):
    X, y = _random_table(2)
    for model in (nbayes.AODE().fit(X, y), nbayes.TAN().fit(X, y)):
        path = tmp_path / f"{type(model).__name__}.npz"
        nbayes.save(model, path)
        np.testing.assert_array_equal(nbayes.load(path).predict_proba(X), model.predict_proba(X))


def test_brute_force_helper_is_not_trivial():
    """Guard the oracle: on dependent data it differs from naive Bayes."""
    X = np.array(list(itertools.product([0, 1], repeat=3)) * 3, dtype=object)
    y = np.array([int(a == b) for a, b, _ in X])
    naive = nbayes.CategoricalNB().fit(X.astype(int), y).predict_proba(X.astype(int)[:1])[0]
    assert not np.allclose(_brute_force_aode(X, y, X[0]), naive)


@pytest.mark.parametrize("Model", [nbayes.AODE, nbayes.TAN])
def test_a_declared_class_without_rows_is_impossible_not_nan(Model):
    """partial_fit with classes=[0, 1] and only class 0 seen: P(y=1) = 0, so the joint
    log-probability of class 1 is -inf (as CategoricalNB gives), not NaN with a warning
    (its unsmoothed pair terms were +inf, added to the -inf prior)."""
    X = np.random.default_rng(0).integers(0, 3, (10, 4))
    model = Model().partial_fit(X, np.zeros(10, dtype=int), classes=[0, 1])
    with np.errstate(all="raise"):
        joint = model.predict_joint_log_proba(X)
    assert np.all(np.isfinite(joint[:, 0])) and np.all(np.isneginf(joint[:, 1]))
    np.testing.assert_array_equal(model.predict_proba(X), np.tile([1.0, 0.0], (10, 1)))
