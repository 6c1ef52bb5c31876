"""Calibration: ECE and reliability tables against hand computations, temperature
scaling recovering a known temperature, isotonic calibration against scikit-learn's
CalibratedClassifierCV, and probabilities that still sum to 1."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_softmax
from sklearn.calibration import CalibratedClassifierCV
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

import nbayes


# ---------------------------------------------------------------- ECE by hand
def test_ece_matches_a_hand_computation():
    # Two bins, (0, 0.5] and (0.5, 1]; confidence is the largest probability.
    proba = np.array(
        [
            [0.5, 0.5],  # confidence 0.5 -> bin 0, predicts class 0 (first maximum)
            [0.75, 0.25],  # 0.75 -> bin 1, predicts 0
            [0.25, 0.75],  # 0.75 -> bin 1, predicts 1
            [0.0, 1.0],  # 1.0 -> bin 1, predicts 1
        ]
    )
    y_true = np.array([1, 0, 0, 1])
    # bin 0: one row, confidence 0.5, accuracy 0 -> gap 0.5
    # bin 1: three rows, mean confidence (0.75 + 0.75 + 1) / 3, accuracy 2 / 3
    expected = 1 / 4 * 0.5 + 3 / 4 * abs(2.5 / 3 - 2 / 3)
    assert nbayes.expected_calibration_error(y_true, proba, n_bins=2) == pytest.approx(expected)
    table = nbayes.reliability_table(y_true, proba, n_bins=2)
    np.testing.assert_array_equal(table.count, [1, 3])
    np.testing.assert_allclose(table.mean_confidence, [0.5, 2.5 / 3])
    np.testing.assert_allclose(table.accuracy, [0.0, 2 / 3])
    np.testing.assert_allclose(table.lower, [0.0, 0.5])
    np.testing.assert_allclose(table.upper, [0.5, 1.0])
    assert "| (0.500, 1.000] | 3 |" in table.to_markdown()


def reference_ece(y_index, proba, n_bins):
    """A loop over bins (lower, upper], written independently of the library."""
    confidence = proba.max(axis=1)
    correct = proba.argmax(axis=1) == y_index
    total = 0.0
    for b in range(n_bins):
        lower, upper = b / n_bins, (b + 1) / n_bins
        inside = (confidence > lower) & (confidence <= upper)
        if b == 0:
            inside |= confidence == 0
        if inside.any():
            total += inside.sum() * abs(correct[inside].mean() - confidence[inside].mean())
    return total / len(y_index)


@pytest.mark.parametrize("n_bins", [1, 7, 15])
def test_ece_matches_a_reference_loop_on_random_probabilities(n_bins):
    rng = np.random.default_rng(n_bins)
    proba = rng.dirichlet(np.full(4, 0.5), size=500)
    y_index = rng.integers(0, 4, size=500)
    assert nbayes.expected_calibration_error(y_index, proba, n_bins) == pytest.approx(
        reference_ece(y_index, proba, n_bins), rel=1e-12
    )


def test_ece_label_mapping_and_binary_vectors():
    proba = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    labels = np.array(["spam", "spam", "ham"])
    by_index = nbayes.expected_calibration_error([1, 1, 0], proba)
    assert nbayes.expected_calibration_error(labels, proba, classes=["ham", "spam"]) == by_index
    # Columns need not be sorted.
    swapped = nbayes.expected_calibration_error(labels, proba[:, ::-1], classes=["spam", "ham"])
    assert swapped == by_index
    assert nbayes.expected_calibration_error([1, 1, 0], proba[:, 1]) == by_index


def test_ece_bad_input():
    proba = np.array([[0.9, 0.1], [0.2, 0.8]])
    with pytest.raises(ValueError, match="column indices"):
        nbayes.expected_calibration_error(["a", "b"], proba)
    with pytest.raises(ValueError, match="do not exist"):
        nbayes.expected_calibration_error(["a", "c"], proba, classes=["a", "b"])
    with pytest.raises(ValueError, match="3 labels but proba has 2 rows"):
        nbayes.expected_calibration_error([0, 1, 1], proba)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        nbayes.expected_calibration_error([0, 1], proba * 2)
    with pytest.raises(ValueError, match="n_bins"):
        nbayes.expected_calibration_error([0, 1], proba, n_bins=0)


# ---------------------------------------------------------------- temperature
def duplicated_gaussians(n, copies, seed, n_classes=3):
    """Gaussian classes whose one informative feature is repeated ``copies`` times:
    naive Bayes counts the same evidence ``copies`` times, so its joint
    log-likelihood is ``copies`` times the true one (uniform prior), and the
    temperature that calibrates it is ``copies``."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    x = rng.normal(size=n) + 1.0 * y
    return np.repeat(x[:, None], copies, axis=1), y


@pytest.mark.parametrize("copies", [1, 3, 6])
def test_temperature_recovers_the_known_temperature(copies):
    X, y = duplicated_gaussians(6000, copies, seed=copies)
    uniform = nbayes.GaussianNB(priors=np.full(3, 1 / 3))
    model = nbayes.CalibratedNB(uniform, method="temperature").fit(X, y)
    assert model.temperature_ == pytest.approx(copies, rel=0.06)
    # predict is unchanged and the calibrated model is better calibrated.
    X_test, y_test = duplicated_gaussians(6000, copies, seed=100 + copies)
    raw = uniform.fit(X, y)
    np.testing.assert_array_equal(model.predict(X_test), raw.predict(X_test))
    if copies > 1:
        calibrated_loss = log_loss(y_test, model.predict_proba(X_test))
        assert calibrated_loss < log_loss(y_test, raw.predict_proba(X_test))


def test_temperature_minimises_the_out_of_fold_log_loss():
    X, y = duplicated_gaussians(900, 2, seed=7)
    folds = list(StratifiedKFold(3).split(X, y))
    model = nbayes.CalibratedNB(nbayes.MultinomialNB(), cv=folds).fit(np.abs(X), y)

    def oof_loss(temperature):
        loss = 0.0
        for train, test in folds:
            reference = nbayes.MultinomialNB().fit(np.abs(X[train]), y[train])
            jll = reference.predict_joint_log_proba(np.abs(X[test]))
            loss -= log_softmax(jll / temperature, axis=1)[np.arange(len(test)), y[test]].sum()
        return loss

    best = oof_loss(model.temperature_)
    assert best <= oof_loss(model.temperature_ * 1.01)
    assert best <= oof_loss(model.temperature_ / 1.01)
    jll = model.estimator_.predict_joint_log_proba(np.abs(X))
    np.testing.assert_allclose(
        model.predict_proba(np.abs(X)),
        np.exp(log_softmax(jll / model.temperature_, axis=1)),
        rtol=1e-12,
    )


# ---------------------------------------------------------------- isotonic
@pytest.mark.parametrize("n_classes", [2, 3])
def test_isotonic_matches_scikit_learn_calibrated_classifier(n_classes):
    X, y = duplicated_gaussians(600, 3, seed=n_classes, n_classes=n_classes)
    ours = nbayes.CalibratedNB(nbayes.GaussianNB(), method="isotonic", cv=4).fit(X, y)
    theirs = CalibratedClassifierCV(
        nbayes.GaussianNB(), method="isotonic", cv=4, ensemble=False
    ).fit(X, y)
    X_test, _ = duplicated_gaussians(300, 3, seed=50, n_classes=n_classes)
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), atol=1e-12)


# ---------------------------------------------------------------- every estimator
def data_for(estimator, rng):
    y = np.arange(240) % 3
    if isinstance(estimator, nbayes.GaussianNB):
        return rng.normal(size=(240, 4)) + y[:, None], y
    X = rng.poisson(1.0 + y[:, None] * np.array([1.0, 0.0, 0.5, 2.0]), size=(240, 4))
    if isinstance(estimator, nbayes.CategoricalNB):
        X = np.minimum(X, 3)
    return X, y


ESTIMATORS = [
    nbayes.GaussianNB(),
    nbayes.MultinomialNB(),
    nbayes.BernoulliNB(),
    nbayes.CategoricalNB(),
    nbayes.ComplementNB(),
]


@pytest.mark.parametrize("method", ["temperature", "isotonic"])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_every_estimator_gives_probabilities_that_sum_to_one(estimator, method):
    rng = np.random.default_rng(0)
    X, y = data_for(estimator, rng)
    weights = rng.uniform(0.5, 2.0, size=len(y))
    model = nbayes.CalibratedNB(estimator, method=method, cv=3).fit(X, y, sample_weight=weights)
    proba = model.predict_proba(X)
    assert proba.shape == (len(y), 3) and not np.isnan(proba).any()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(np.exp(model.predict_log_proba(X)), proba, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])


def test_calibrated_bad_input():
    X, y = duplicated_gaussians(60, 1, seed=0)
    with pytest.raises(ValueError, match="method"):
        nbayes.CalibratedNB(nbayes.GaussianNB(), method="platt").fit(X, y)
    with pytest.raises(ValueError, match="estimator"):
        nbayes.CalibratedNB(object()).fit(X, y)


@pytest.mark.parametrize("method", ["temperature", "isotonic"])
def test_calibrating_a_semi_supervised_model_keeps_its_classes(method, tmp_path):
    """-1 marks unlabelled rows, not a class: the classes are the wrapped model's, the
    unlabelled rows are learnt by each fold's model but calibrate nothing, and a saved
    model predicts as the one that was saved."""
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 3, 300)
    X = rng.poisson(1, (300, 10)) + (np.arange(10) % 3 == truth[:, None]) * 2
    y = np.where(rng.random(300) > 0.3, -1, truth)
    model = nbayes.CalibratedNB(
        nbayes.SemiSupervisedNB(nbayes.MultinomialNB()), method=method
    ).fit(X, y)
    assert model.classes_.tolist() == [0, 1, 2]
    assert np.mean(model.predict(X) == truth) > 0.9
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    model.save(tmp_path / "m.nbm")  # the wrappers have the estimators' save and load
    loaded = nbayes.CalibratedNB.load(tmp_path / "m.nbm")
    assert np.array_equal(loaded.predict(X), model.predict(X))
    model.estimator_.save(tmp_path / "em.nbm")
    em = nbayes.SemiSupervisedNB.load(tmp_path / "em.nbm")
    np.testing.assert_array_equal(em.predict_proba(X), model.estimator_.predict_proba(X))
    with pytest.raises(nbayes.ModelFileError, match="not a CalibratedNB"):
        nbayes.CalibratedNB.load(tmp_path / "em.nbm")
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_a_denormal_temperature_gives_the_argmax_without_overflow():
    """T = 5e-324 (a forged model file passes it: positive, finite): jll / T overflowed
    (a RuntimeWarning) and every class at -inf gave 0.5 / 0.5; the limit T -> 0 is the
    estimator's argmax, one-hot."""
    import warnings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + rng.normal(scale=0.5, size=80) > 0).astype(int)
    model = nbayes.CalibratedNB(nbayes.GaussianNB(), method="temperature").fit(X, y)
    model.temperature_ = 5e-324
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba))
    np.testing.assert_array_equal(proba.argmax(axis=1), model.estimator_.predict(X))
    assert set(np.unique(proba)) <= {0.0, 1.0}
