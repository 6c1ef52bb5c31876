"""Extreme magnitudes (values near 1e300 and 1e-300): the Gaussian and kernel density
statistics are kept scaled by a power of two per feature (events.moments), so models
fit and predict finite probabilities that sum to 1, equal to those on the same data
rescaled to ordinary magnitudes, and fit == partial_fit == merge still hold."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

import nbayes
from nbayes.errors import StatisticsError
from nbayes.events.moments import NO_VALUES, GaussianStats, magnitude_exponent

MODELS = {
    "GaussianNB": lambda: nbayes.GaussianNB(),
    "GaussianNB per class ddof": lambda: nbayes.GaussianNB(ddof=1, var_smoothing=1e-6),
    "KernelDensityNB exact": lambda: nbayes.KernelDensityNB(algorithm="exact"),
    "KernelDensityNB binned": lambda: nbayes.KernelDensityNB(algorithm="binned", max_bins=64),
    "NaiveBayes gaussian+kde": lambda: nbayes.NaiveBayes(columns=["gaussian", "kde", "gaussian"]),
}


def ordinary_data(seed: int, n: int = 80) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    y[:3] = [0, 1, 2]
    X = rng.normal(size=(n, 3)) * [1.0, 0.5, 2.0] + y[:, None] * [0.8, -0.5, 0.3]
    return X, y


def assert_proper(proba: np.ndarray) -> None:
    assert np.all(np.isfinite(proba))
    assert np.all((proba >= 0) & (proba <= 1))
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(MODELS))
@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    power=st.one_of(st.integers(-1040, -900), st.integers(900, 1020), st.integers(-30, 30)),
)
def test_scaled_data_give_the_probabilities_of_ordinary_data(name, seed, power):
    """X * 2**power (exact) against X: the same probabilities up to rounding, and joint
    log-likelihoods shifted by exactly the log of the scale, d * power * log 2."""
    X, y = ordinary_data(seed)
    scaled = np.ldexp(X, power)
    near, far = MODELS[name]().fit(X, y), MODELS[name]().fit(scaled, y)
    proba = far.predict_proba(scaled)
    assert_proper(proba)
    assert_allclose(proba, near.predict_proba(X), rtol=1e-9, atol=1e-12)
    shift = far.predict_joint_log_proba(scaled) - near.predict_joint_log_proba(X)
    assert_allclose(shift, -X.shape[1] * power * np.log(2.0), rtol=1e-9)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("factor", [1e300, 1e-300, 1.5e-320 / 1e-16])
def test_decimal_extremes_fit_and_predict(name, factor):
    """The issue's cases: data near 1e300 and 1e-300 (not powers of two: rounding
    only; the binned grid's cells move with the data, so only closely)."""
    X, y = ordinary_data(3)
    near, far = MODELS[name]().fit(X, y), MODELS[name]().fit(X * factor, y)
    proba = far.predict_proba(X * factor)
    assert_proper(proba)
    tolerance = 1e-2 if "binned" in name else 1e-9  # bins fall elsewhere on the data
    assert_allclose(proba, near.predict_proba(X), atol=tolerance)
    if isinstance(far, nbayes.NaiveBayes):
        return
    outside = far.predict_proba(np.full((2, 3), 1.7e308) * [[1], [-1]])
    assert_proper(outside)


@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_table_with_missing_values_at_extreme_magnitudes(factor):
    """A table's gaussian columns are scored directly, each row over its known values
    (the table path): in the scaled domain too."""
    X, y = ordinary_data(5)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame.iloc[::7, 0] = np.nan
    frame.iloc[3::11, 2] = np.nan
    near = nbayes.NaiveBayes().fit(frame, y)
    far = nbayes.NaiveBayes().fit(frame * factor, y)
    proba = far.predict_proba(frame * factor)
    assert_proper(proba)
    assert_allclose(proba, near.predict_proba(frame), atol=1e-9)


def test_kernel_density_on_tiny_values_is_not_constant():
    """1e-300 values used to have a variance of 0 (underflow): 'constant column'."""
    X, y = ordinary_data(4)
    model = nbayes.KernelDensityNB().fit(X * 1e-300, y)
    assert np.all(model.bandwidth_ > 0) and np.all(model.bandwidth_ < 1e-299)
    assert_allclose(model.bandwidth_, nbayes.KernelDensityNB().fit(X, y).bandwidth_ * 1e-300)


@pytest.mark.parametrize("model", ["GaussianNB", "KernelDensityNB"])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_fit_equals_partial_fit_equals_merge_across_magnitudes(model, data):
    """Batches of different magnitudes (the scale grows as they arrive, in any order):
    the same exponents, and the same probabilities up to rounding."""
    X, y = ordinary_data(data.draw(st.integers(0, 2**16), label="seed"), n=60)
    powers = data.draw(
        st.lists(st.sampled_from([-1000, -500, 0, 3, 600, 1000]), min_size=3, max_size=3),
        label="powers per batch",
    )
    parts = np.array_split(np.arange(60), 3)
    for rows, power in zip(parts, powers, strict=True):
        X[rows] = np.ldexp(X[rows], power)
    whole = getattr(nbayes, model)().fit(X, y)
    order = data.draw(st.permutations(range(3)), label="order")
    streamed = getattr(nbayes, model)()
    for i in order:
        streamed.partial_fit(X[parts[i]], y[parts[i]], classes=[0, 1, 2])
    merged = nbayes.merge(*(getattr(nbayes, model)().fit(X[rows], y[rows]) for rows in parts))

    def moments(fitted):
        return fitted._stats if model == "GaussianNB" else fitted._stats.moments

    for other in (streamed, merged):
        assert_array_equal(moments(other).exponent, moments(whole).exponent)
        proba = other.predict_proba(X)
        assert_proper(proba)
        assert_allclose(proba, whole.predict_proba(X), rtol=1e-7, atol=1e-9)


def test_a_row_of_weight_zero_is_left_out_quietly_at_any_magnitude():
    """Found by hypothesis (test_integer_weights_equal_repeated_rows): the scale comes
    from the counted rows, so a weight-0 row of 1.0 beside subnormal values overflowed
    when scaled; left out, it must not warn either."""
    X, y = np.array([[2.22507386e-309], [1.0]]), np.array([0, 0])
    for model in (nbayes.GaussianNB(), nbayes.NaiveBayes(columns="gaussian")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            weighted = clone(model).fit(X, y, sample_weight=[1.0, 0.0])
        alone = clone(model).fit(X[:1], y[:1])
        assert_array_equal(weighted.predict_proba(X), alone.predict_proba(X))


def test_ordinary_data_stay_unscaled():
    """Every ordinary data set keeps exponent 0: its statistics are the unscaled ones
    (scikit-learn parity rests on it), and an all-zero feature has no exponent yet."""
    X, y = ordinary_data(5)
    X[:, 1] = 0.0
    stats = nbayes.GaussianNB().fit(X * 1e100, y)._stats
    assert_array_equal(stats.exponent, [0, NO_VALUES, 0])
    assert not stats.scaled


@given(st.lists(st.floats(0, 1.7e308, allow_nan=False), min_size=2, max_size=2))
def test_the_exponent_of_a_union_is_the_largest(values):
    """Monotone in the magnitude: the exponent of a union of batches is the largest
    of theirs, so the scale does not depend on how the data were split."""
    a, b = magnitude_exponent(np.array(values))
    assert magnitude_exponent(np.array([max(values)]))[0] == max(a, b)


def test_exponents_out_of_range_are_refused():
    stats = GaussianStats.zero(2, 3)
    stats.exponent[0] = 5000
    with pytest.raises(StatisticsError, match="exponent is outside"):
        stats.validate(2, 3)


def test_a_scaled_model_round_trips_through_a_file(tmp_path):
    X, y = ordinary_data(6)
    frame = pd.DataFrame(X * 1e300, columns=["a", "b", "c"])
    for model in (nbayes.GaussianNB(), nbayes.KernelDensityNB(), nbayes.NaiveBayes("kde")):
        fitted = model.fit(frame, y)
        path = tmp_path / "model.npz"
        fitted.save(path)
        loaded = nbayes.load(path)
        assert loaded.predict_proba(frame).tobytes() == fitted.predict_proba(frame).tobytes()
