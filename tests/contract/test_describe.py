"""The event models' ``describe``: per-feature summaries per class, for every
estimator of the registry (what ``nbayes inspect`` shows)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.core.registry import ESTIMATORS, resolve


def _data():
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b"], size=200)
    counts = rng.poisson(np.where(y == "a", 1.0, 3.0)[:, None], size=(200, 3)).astype(float)
    return counts, y


def _table(counts):
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        {
            "n": counts[:, 0] + rng.normal(size=len(counts)),
            "c": counts[:, 1],
            "s": np.where(counts[:, 2] > 1, "hi", "lo"),
        }
    )


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_one_summary_per_feature_with_a_value_per_class(name):
    counts, y = _data()
    if name == "NaiveBayes":
        model = nbayes.NaiveBayes(columns={"c": "poisson"}).fit(_table(counts), y)
    else:
        model = resolve(ESTIMATORS, name)().fit(counts, y)
    summaries = model.describe_features()
    assert len(summaries) == model.n_features_in_
    for summary in summaries:
        assert summary, name
        values = summary.get("values")
        for key, per_class in summary.items():
            if key == "values":
                continue
            assert len(per_class) == len(model.classes_), (name, key)
            if values is not None:
                assert all(len(row) == len(values) for row in per_class), (name, key)


def test_summaries_are_the_fitted_parameters():
    counts, y = _data()
    X = _table(counts)
    numbers, rates, text = nbayes.NaiveBayes(columns={"c": "poisson"}).fit(X, y).describe_features()
    means = X.groupby(y)["n"].mean()
    np.testing.assert_allclose(numbers["mean"], [means["a"], means["b"]], rtol=1e-12)
    assert set(numbers) == {"mean", "sd"}
    poisson = nbayes.PoissonNB().fit(X[["c"]].to_numpy(), y)
    np.testing.assert_allclose(rates["rate"], poisson.describe_features()[0]["rate"], rtol=1e-12)
    lo = (X["s"] == "lo").groupby(y).sum()  # Laplace: (N_lo + 1) / (N_c + 2)
    n = pd.Series(y).value_counts()
    got = dict(zip(text["values"], np.transpose(text["probability"]), strict=True))
    np.testing.assert_allclose(got["lo"], [(lo[c] + 1) / (n[c] + 2) for c in "ab"], rtol=1e-12)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_gaussian_summaries_are_in_the_units_of_x_at_the_float64_limits(scale):
    """Values near the limits are modelled scaled by powers of two; the summaries (what
    ``nbayes inspect`` prints) are the means and deviations of the data as given."""
    X = np.array([[1.0], [2.0], [5.0], [6.0]]) * scale
    y = np.array(["x", "x", "y", "y"])
    model = nbayes.GaussianNB().fit(X, y)
    (summary,) = model.describe_features()
    np.testing.assert_allclose(summary["mean"], [1.5 * scale, 5.5 * scale], rtol=1e-12)
    np.testing.assert_allclose(summary["sd"], [0.5 * scale, 0.5 * scale], rtol=1e-6)
    with np.errstate(over="raise"):
        grid = model.value_grid(0)
    assert np.all(np.isfinite(grid))
