"""Invariants every additive-statistics estimator must satisfy, shared by
test_poisson.py, test_exponential.py, test_kde.py and test_binned.py."""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose
from sklearn.base import clone

import nbayes


def assert_same_model(a, b, X, rtol=1e-10, atol=1e-10) -> None:
    """Same classes, priors and joint log-likelihood on X."""
    np.testing.assert_array_equal(a.classes_, b.classes_)
    assert_allclose(a.class_count_, b.class_count_, rtol=rtol)
    assert_allclose(a.class_prior_, b.class_prior_, rtol=rtol)
    assert_allclose(
        a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=rtol, atol=atol
    )


def check_fit_partial_fit_merge(estimator, X, y, n_parts=3) -> None:
    """fit == chunked partial_fit (in any order) == merge of models fitted on parts."""
    full = clone(estimator).fit(X, y)
    parts = np.array_split(np.arange(X.shape[0]), n_parts)
    for order in (parts, parts[::-1]):
        streamed = clone(estimator)
        for index in order:
            streamed.partial_fit(X[index], y[index], classes=np.unique(y))
        assert_same_model(full, streamed, X)
    merged = nbayes.merge(*[clone(estimator).fit(X[index], y[index]) for index in parts])
    assert_same_model(full, merged, X)


def check_weights_are_repeats(estimator, X, y, seed=0) -> None:
    """Integer sample weights == repeated rows; weight 0 == row left out."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(0, 4, X.shape[0])
    weights[:: max(1, X.shape[0] // 5)] = 2  # every class keeps some weight
    weighted = clone(estimator).fit(X, y, sample_weight=weights.astype(float))
    repeated = clone(estimator).fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    assert_same_model(weighted, repeated, X)


def check_probabilities(estimator, X) -> None:
    """Rows of predict_proba sum to 1 and hold no NaN; predict is their argmax."""
    proba = estimator.predict_proba(X)
    assert not np.isnan(proba).any()
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert_allclose(np.exp(estimator.predict_log_proba(X)), proba, rtol=1e-12)
    best = estimator.classes_[np.argmax(estimator.predict_joint_log_proba(X), axis=1)]
    np.testing.assert_array_equal(estimator.predict(X), best)


def check_missing_is_marginalised(estimator, X, y, column=0, seed=0) -> None:
    """With column ``column`` missing (NaN) in some rows, training skips those
    entries and prediction leaves the term out: on those rows the model equals one
    trained without the column (the other columns' statistics are unchanged); on
    the other rows the column's term equals that of a model trained on the column's
    observed entries only."""
    rng = np.random.default_rng(seed)
    missing = rng.random(X.shape[0]) < 0.3
    X_missing = X.copy()
    X_missing[missing, column] = np.nan
    with_nan = clone(estimator).fit(X_missing, y)
    without = clone(estimator).fit(np.delete(X, column, axis=1), y)
    assert_allclose(
        with_nan.predict_joint_log_proba(X_missing[missing]),
        without.predict_joint_log_proba(np.delete(X[missing], column, axis=1)),
        rtol=1e-10,
        atol=1e-10,
    )
    observed = ~missing
    column_only = clone(estimator).fit(X[observed][:, [column]], y[observed])

    def log_likelihood(model, rows):
        return model.predict_joint_log_proba(rows) - np.log(model.class_prior_)

    assert_allclose(
        log_likelihood(with_nan, X[observed])
        - log_likelihood(without, np.delete(X[observed], column, axis=1)),
        log_likelihood(column_only, X[observed][:, [column]]),
        rtol=1e-9,
        atol=1e-9,
    )
