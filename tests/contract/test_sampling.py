"""model.sample: draws from the fitted generative model, checked statistically."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris

import nbayes
from nbayes.events import binned

N = 40_000


def _digits():
    return load_digits(return_X_y=True)


def test_gaussian_moments_and_refit():
    X, y = load_iris(return_X_y=True)
    model = nbayes.GaussianNB().fit(X, y)
    Xs, ys = model.sample(N, random_state=0)
    refit = nbayes.GaussianNB().fit(Xs, ys)
    # Standard error of a mean: sd / sqrt(n_c) with n_c ~ N/3; 5 standard errors.
    se = np.sqrt(model.var_ / (N / 3))
    assert np.all(np.abs(refit.theta_ - model.theta_) < 5 * se)
    np.testing.assert_allclose(refit.var_, model.var_, rtol=0.05)
    np.testing.assert_allclose(refit.class_prior_, model.class_prior_, atol=0.01)


def test_classes_follow_the_prior_or_y():
    X, y = load_iris(return_X_y=True)
    model = nbayes.GaussianNB(priors=[0.7, 0.2, 0.1]).fit(X, y)
    _, ys = model.sample(N, random_state=1)
    np.testing.assert_allclose(np.bincount(ys) / N, [0.7, 0.2, 0.1], atol=0.01)
    _, fixed = model.sample(5, y=2, random_state=1)
    assert np.all(fixed == 2)
    _, given = model.sample(3, y=[0, 2, 1], random_state=1)
    np.testing.assert_array_equal(given, [0, 2, 1])


def test_bernoulli_frequencies():
    X, y = _digits()
    model = nbayes.BernoulliNB(binarize=4).fit(X, y)
    Xs, ys = model.sample(N, random_state=2)
    refit = nbayes.BernoulliNB(alpha=1e-10, binarize=0.5).fit(Xs, ys)
    np.testing.assert_allclose(
        np.exp(refit.feature_log_prob_), np.exp(model.feature_log_prob_), atol=0.03
    )


def test_categorical_frequencies():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(500, 3))
    y = rng.integers(0, 2, size=500)
    model = nbayes.CategoricalNB().fit(X, y)
    Xs, ys = model.sample(N, random_state=3)
    refit = nbayes.CategoricalNB(alpha=1e-10).fit(Xs, ys)
    for ours, theirs in zip(refit.feature_log_prob_, model.feature_log_prob_, strict=True):
        np.testing.assert_allclose(np.exp(ours), np.exp(theirs), atol=0.015)


@pytest.mark.parametrize("Model", [nbayes.MultinomialNB, nbayes.ComplementNB])
def test_multinomial_word_frequencies_and_lengths(Model):
    X, y = _digits()
    model = Model().fit(X, y)
    Xs, ys = model.sample(4000, random_state=4)
    own = nbayes.MultinomialNB().fit(X, y)
    refit = nbayes.MultinomialNB(alpha=1e-10).fit(Xs, ys)
    np.testing.assert_allclose(
        np.exp(refit.feature_log_prob_), np.exp(own.feature_log_prob_), atol=0.006
    )
    mean_length = X.sum(axis=1).mean()
    assert abs(Xs.sum(axis=1).mean() - mean_length) < 0.02 * mean_length
    fixed, _ = model.sample(10, random_state=4, length=50)
    np.testing.assert_array_equal(fixed.sum(axis=1), 50)


def _dependent_table(seed, n=3000):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = (y + rng.integers(0, 2, n)) % 3
    b = (a + (rng.random(n) < 0.2)) % 3
    return np.stack([a, b, rng.integers(0, 3, n)], axis=1).astype(object), y


@pytest.mark.parametrize("Model", [nbayes.AODE, nbayes.TAN])
def test_aode_and_tan_sample_their_own_joint(Model):
    """Sample frequencies of every (y, x) cell match exp(predict_joint_log_proba), which
    for both models is a normalised distribution over the 2 x 27 cells."""
    X, y = _dependent_table(5)
    model = Model().fit(X, y)
    grid = np.array(np.meshgrid(*[range(3)] * 3, indexing="ij")).reshape(3, -1).T.astype(object)
    joint = np.exp(model.predict_joint_log_proba(grid))  # (27, 2)
    assert joint.sum() == pytest.approx(1.0, rel=1e-12)
    Xs, ys = model.sample(N, random_state=6)
    cell = (Xs.astype(int) @ np.array([9, 3, 1])) * 2 + ys
    frequencies = np.bincount(cell, minlength=54).reshape(27, 2) / N
    np.testing.assert_allclose(frequencies, joint, atol=5 * np.sqrt(joint.max() / N))


def test_aode_given_y_is_the_conditional():
    X, y = _dependent_table(8)
    model = nbayes.AODE().fit(X, y)
    Xs, _ = model.sample(N, y=1, random_state=9)
    grid = np.array(np.meshgrid(*[range(3)] * 3, indexing="ij")).reshape(3, -1).T.astype(object)
    joint = np.exp(model.predict_joint_log_proba(grid))[:, 1]
    frequencies = np.bincount(Xs.astype(int) @ np.array([9, 3, 1]), minlength=27) / N
    np.testing.assert_allclose(frequencies, joint / joint.sum(), atol=0.012)


def test_sampling_is_reproducible_and_checked():
    X, y = load_iris(return_X_y=True)
    model = nbayes.GaussianNB().fit(X, y)
    a, _ = model.sample(10, random_state=7)
    b, _ = model.sample(10, random_state=7)
    np.testing.assert_array_equal(a, b)
    assert model.sample(0)[0].shape == (0, 4)
    with pytest.raises(ValueError, match="non-negative integer"):
        model.sample(-1)
    with pytest.raises(ValueError, match="do not exist"):
        model.sample(3, y="setosa")
    with pytest.raises(ValueError, match="one label or 3 labels"):
        model.sample(3, y=[0, 1])


def test_poisson_exponential_kde_binned_samples():
    rng = np.random.default_rng(10)
    y = rng.integers(0, 2, 3000)
    counts = rng.poisson(np.where(y[:, None] == 1, [2.0, 7.0], [5.0, 1.0]))
    model = nbayes.PoissonNB(alpha=1.0, beta=0.0).fit(counts, y)
    Xs, ys = model.sample(N, random_state=0)
    refit = nbayes.PoissonNB(alpha=1.0, beta=0.0).fit(Xs, ys)
    np.testing.assert_allclose(refit._fitted.params.rate, model._fitted.params.rate, rtol=0.03)

    durations = rng.exponential(np.where(y[:, None] == 1, [2.0, 0.5], [1.0, 3.0]))
    model = nbayes.ExponentialNB().fit(durations, y)
    Xs, ys = model.sample(N, random_state=1)
    refit = nbayes.ExponentialNB().fit(Xs, ys)
    np.testing.assert_allclose(refit._fitted.params.rate, model._fitted.params.rate, rtol=0.04)

    values = rng.normal(np.where(y[:, None] == 1, [0.0, 3.0], [2.0, -1.0]), 1.0)
    for algorithm in ("exact", "binned"):
        model = nbayes.KernelDensityNB(algorithm=algorithm).fit(values, y)
        Xs, ys = model.sample(N, random_state=2)
        for c in (0, 1):
            # The KDE's mean is the data mean; its variance the data's plus h^2.
            np.testing.assert_allclose(
                Xs[ys == c].mean(axis=0), values[y == c].mean(axis=0), atol=0.05
            )
            h = model._fitted.params.bandwidth[c]
            np.testing.assert_allclose(
                Xs[ys == c].var(axis=0), values[y == c].var(axis=0) + h**2, rtol=0.06
            )

    model = nbayes.BinnedNB(strategy="quantile", n_bins=4).fit(values, y)
    Xs, ys = model.sample(N, random_state=3)
    params = model._fitted.params
    intervals = binned.codes(params.cuts, Xs)
    for j, log_prob in enumerate(params.categorical.per_feature()):
        for c in (0, 1):
            frequencies = np.bincount(intervals[ys == c, j], minlength=log_prob.shape[1])
            np.testing.assert_allclose(
                frequencies / (ys == c).sum(), np.exp(log_prob[c]), atol=0.015
            )


def test_naive_bayes_draws_each_column_by_its_kind():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 2000)
    frame = pd.DataFrame(
        {
            "height": rng.normal(np.where(y == 1, 180.0, 165.0), 7.0),
            "colour": np.where(rng.random(2000) < np.where(y == 1, 0.8, 0.3), "red", "blue"),
            "visits": rng.poisson(np.where(y == 1, 4.0, 1.0)).astype(float),
            "smoker": rng.random(2000) < np.where(y == 1, 0.4, 0.1),
        }
    )
    columns = {"visits": "poisson"}
    model = nbayes.NaiveBayes(columns=columns).fit(frame, y)
    sample, labels = model.sample(N, random_state=12)
    assert list(sample.columns) == list(frame.columns)
    assert set(sample["colour"]) == {"red", "blue"}
    refit = nbayes.NaiveBayes(columns=columns).fit(sample, labels)
    for c in (0, 1):
        ours, theirs = sample[labels == c], frame[y == c]
        assert abs(ours["height"].mean() - theirs["height"].mean()) < 0.3
        assert abs((ours["colour"] == "red").mean() - (theirs["colour"] == "red").mean()) < 0.03
        assert abs(ours["visits"].mean() - theirs["visits"].mean()) < 0.1
        assert abs(ours["smoker"].mean() - theirs["smoker"].mean()) < 0.03
    np.testing.assert_allclose(refit.predict_proba(frame), model.predict_proba(frame), atol=0.05)
