"""Parity with scikit-learn: the same data, the same numbers, for all five models.

Every case fits ``nbayes`` and ``sklearn.naive_bayes`` the same way (``fit`` or
``partial_fit`` in chunks, with or without ``sample_weight``, dense or CSR, with a
given or uniform prior, with ``alpha`` arrays) and compares ``predict``,
``predict_proba``, ``predict_log_proba``, ``predict_joint_log_proba`` and the fitted
attributes to ``rtol=1e-10``. Data: scikit-learn's bundled iris, wine, digits and
breast_cancer, and the UCI sets in ``../shared/data`` (mushroom, car, nursery, adult).

Where nbayes differs from scikit-learn on purpose (docs/guide/estimators.md, "Where nbayes
differs"), the case is set up so the difference does not arise, and the documented
behaviour is checked against an independent computation instead (see the tests at the
bottom).
"""

from __future__ import annotations

import warnings
import zlib
from functools import cache

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as sk
from conftest import DATA, require_path
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import datasets
from sklearn.preprocessing import KBinsDiscretizer, OneHotEncoder, OrdinalEncoder

import nbayes

RTOL = 1e-10
# Absolute slack for values that cancel near 0, where a relative tolerance means
# nothing: a joint log-likelihood like -0.0011 that is the sum of Gaussian terms of
# size ~1e3 (digits), whose rounding error is then ~eps * 1e3 ~ 1e-13 in both
# libraries; the log-posterior of a winning class, log(1 - tiny). Probabilities are
# bounded by 1, so their absolute slack is smaller.
ATOL_LOG = 1e-10
ATOL_PROBA = 1e-12

# ------------------------------------------------------------------- data sets


@cache
def _bundled(name: str) -> tuple[np.ndarray, np.ndarray]:
    loader = getattr(datasets, f"load_{name}")
    X, y = loader(return_X_y=True)
    return X.astype(np.float64), y


def _read_uci(folder: str, filename: str, label_column: int) -> tuple[np.ndarray, np.ndarray]:
    path = require_path(DATA / folder / filename)
    frame = pd.read_csv(path, header=None, dtype=str, skip_blank_lines=True)
    y = frame.pop(frame.columns[label_column]).to_numpy()
    return frame.to_numpy(), y


@cache
def _uci_categorical(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Raw string features and labels; mushroom's '?' is kept as its own category."""
    folder, filename, label_column = {
        "mushroom": ("uci_mushroom", "agaricus-lepiota.data", 0),
        "car": ("uci_car", "car.data", -1),
        "nursery": ("uci_nursery", "nursery.data", -1),
    }[name]
    return _read_uci(folder, filename, label_column)


@cache
def _adult_numeric() -> tuple[np.ndarray, np.ndarray]:
    """The six numeric columns of adult.data (age, fnlwgt, education-num,
    capital-gain, capital-loss, hours-per-week)."""
    path = require_path(DATA / "uci_adult" / "adult.data")
    frame = pd.read_csv(path, header=None, skipinitialspace=True)
    X = frame[[0, 2, 4, 10, 11, 12]].to_numpy(dtype=np.float64)
    return X, frame[14].to_numpy()


BUNDLED = ["iris", "wine", "digits", "breast_cancer"]
UCI_CATEGORICAL = ["mushroom", "car", "nursery"]


def continuous(name: str) -> tuple[np.ndarray, np.ndarray]:
    return _adult_numeric() if name == "adult" else _bundled(name)


def counts(name: str) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """Non-negative features: bundled sets as they are, UCI sets one-hot (CSR)."""
    if name in BUNDLED:
        return _bundled(name)
    X, y = _uci_categorical(name)
    return OneHotEncoder(sparse_output=True, dtype=np.float64).fit_transform(X).tocsr(), y


def binary(name: str) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray, float]:
    """(X, y, binarize threshold). Digits: pixel > 8; other bundled sets are
    thresholded at each column's median here; one-hot UCI sets are binary already."""
    if name == "digits":
        X, y = _bundled(name)
        return X, y, 8.0
    if name in BUNDLED:
        X, y = _bundled(name)
        return (X > np.median(X, axis=0)).astype(np.float64), y, 0.0
    X, y = counts(name)
    return X, y, 0.0


def codes(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer category codes: UCI sets by OrdinalEncoder, digits' pixel values as
    they are, other bundled sets cut into 5 quantile bins."""
    if name in UCI_CATEGORICAL:
        X, y = _uci_categorical(name)
        return OrdinalEncoder(dtype=np.int64).fit_transform(X).astype(np.int64), y
    X, y = _bundled(name)
    if name == "digits":
        return X.astype(np.int64), y
    binner = KBinsDiscretizer(
        n_bins=5, encode="ordinal", strategy="quantile", quantile_method="linear"
    )
    return binner.fit_transform(X).astype(np.int64), y


# ------------------------------------------------------------------- cases

DISCRETE_SETS = BUNDLED + UCI_CATEGORICAL
DATA_SETS = {
    "GaussianNB": [*BUNDLED, "adult"],
    "MultinomialNB": DISCRETE_SETS,
    "ComplementNB": DISCRETE_SETS,
    "BernoulliNB": DISCRETE_SETS,
    "CategoricalNB": DISCRETE_SETS,
}

# Each variant: (name, training, sample weights?, input format, settings).
VARIANTS = [
    ("fit", "fit", False, "dense", "default"),
    ("fit-weighted", "fit", True, "dense", "default"),
    ("partial_fit", "partial_fit", False, "dense", "default"),
    ("partial_fit-weighted", "partial_fit", True, "dense", "default"),
    ("fit-class_prior", "fit", False, "dense", "class_prior"),
    ("fit-uniform_prior", "fit", False, "dense", "uniform_prior"),
    ("fit-alpha_array", "fit", True, "dense", "alpha_array"),
    ("csr-fit", "fit", False, "csr", "default"),
    ("csr-partial_fit-weighted", "partial_fit", True, "csr", "alpha_array"),
]
N_CHUNKS = 4


def _applies(model: str, data: str, variant: tuple) -> bool:
    _, training, weighted, layout, settings = variant
    if layout == "csr" and model in ("GaussianNB", "CategoricalNB"):
        return False  # scikit-learn takes no sparse input for these two
    if settings == "alpha_array" and model in ("GaussianNB", "CategoricalNB", "BernoulliNB"):
        # scikit-learn's BernoulliNB breaks on alpha arrays (class_count_ + 2 * alpha
        # broadcasts classes against features); test_bernoulli_alpha_array checks ours.
        return False
    if settings == "uniform_prior" and model == "GaussianNB":
        return False  # GaussianNB has no fit_prior
    if model == "GaussianNB" and data == "digits" and (weighted or training == "partial_fit"):
        # These cases run with var_smoothing=0 (see _settings); digits has pixels
        # constant within a class, whose variance would then be 0.
        return False
    return True


CASES = [
    pytest.param(model, data, variant, id=f"{model}-{data}-{variant[0]}")
    for model, sets in DATA_SETS.items()
    for data in sets
    for variant in VARIANTS
    if _applies(model, data, variant)
]


def _data(model: str, data: str):
    """(X, y, extra settings) for a model and data set."""
    if model == "GaussianNB":
        return (*continuous(data), {})
    if model == "CategoricalNB":
        return (*codes(data), {})
    if model == "BernoulliNB":
        X, y, threshold = binary(data)
        return X, y, {"binarize": threshold}
    return (*counts(data), {})


def _settings(model: str, variant: tuple, n_classes: int, n_features: int, rng) -> dict:
    _, training, weighted, _, settings = variant
    if model == "GaussianNB":
        # scikit-learn's variance floor uses the unweighted variance of the latest
        # batch; nbayes the weighted variance of all data (a documented difference,
        # checked in test_gaussian_floor_is_weighted_and_cumulative). Without a
        # floor, the two agree.
        out = {"var_smoothing": 0.0} if weighted or training == "partial_fit" else {}
        if settings == "class_prior":
            out["priors"] = rng.dirichlet(np.ones(n_classes))
        return out
    if settings == "class_prior":
        return {"class_prior": rng.dirichlet(np.ones(n_classes))}
    if settings == "uniform_prior":
        return {"fit_prior": False}
    if settings == "alpha_array":
        return {"alpha": rng.uniform(0.05, 2.0, n_features)}
    return {}


def _train(model, X, y, training: str, sample_weight):
    if training == "fit":
        return model.fit(X, y, sample_weight=sample_weight)
    classes = np.unique(y)
    # Contiguous chunks of the files' own order: many data sets are sorted by
    # class, so chunks lack classes (and categories), as real streams do.
    for rows in np.array_split(np.arange(X.shape[0]), N_CHUNKS):
        weights = None if sample_weight is None else sample_weight[rows]
        model.partial_fit(X[rows], y[rows], classes=classes, sample_weight=weights)
    return model


ATTRIBUTES = {
    "GaussianNB": ["class_count_", "class_prior_", "theta_", "var_", "epsilon_"],
    "MultinomialNB": ["class_count_", "class_log_prior_", "feature_count_", "feature_log_prob_"],
    "ComplementNB": [
        "class_count_",
        "class_log_prior_",
        "feature_count_",
        "feature_all_",
        "feature_log_prob_",
    ],
    "BernoulliNB": ["class_count_", "class_log_prior_", "feature_count_", "feature_log_prob_"],
    "CategoricalNB": [
        "class_count_",
        "class_log_prior_",
        "category_count_",
        "feature_log_prob_",
    ],
}


def fit_both(model_name: str, data: str, variant: tuple):
    """The nbayes and scikit-learn models trained identically, and X to predict on."""
    X, y, extra = _data(model_name, data)
    rng = np.random.default_rng(zlib.crc32(f"{model_name}-{data}-{variant[0]}".encode()))
    _, training, weighted, layout, _ = variant
    if layout == "csr":
        X = sp.csr_matrix(X)
    elif sp.issparse(X):
        X = X.toarray()
    n_classes = len(np.unique(y))
    settings = {**extra, **_settings(model_name, variant, n_classes, X.shape[1], rng)}
    # Weights in [0, 3) with a tenth of them 0: rows that must count for nothing.
    weights = rng.uniform(0, 3, X.shape[0]) * (rng.random(X.shape[0]) > 0.1) if weighted else None
    ours = _train(getattr(nbayes, model_name)(**settings), X, y, training, weights)
    theirs = _train(getattr(sk, model_name)(**settings), X, y, training, weights)
    return ours, theirs, X


def _max_abs_difference(a, b) -> float:
    """The largest |a - b|, counting equal infinities as 0."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    return float(np.max(np.where(same, 0.0, np.abs(a - b)), initial=0.0))


def compare(ours, theirs, X, model_name: str) -> dict[str, float]:
    """Assert parity; return the largest absolute difference of each output."""
    differences = {}
    assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.n_features_in_ == theirs.n_features_in_
    for name in ATTRIBUTES[model_name]:
        expected, actual = getattr(theirs, name), getattr(ours, name)
        pairs = (
            zip(actual, expected, strict=True)
            if isinstance(expected, list)
            else [(actual, expected)]
        )
        for a, e in pairs:
            assert_allclose(a, e, rtol=RTOL, atol=0, err_msg=name)
            differences[name] = max(differences.get(name, 0.0), _max_abs_difference(a, e))
    for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba"):
        expected, actual = getattr(theirs, method)(X), getattr(ours, method)(X)
        atol = ATOL_PROBA if method == "predict_proba" else ATOL_LOG
        assert_allclose(actual, expected, rtol=RTOL, atol=atol, err_msg=method)
        differences[method] = _max_abs_difference(actual, expected)
    predicted, expected = ours.predict(X), theirs.predict(X)
    # Labels agree exactly: both take the first maximum on ties, and no pair of
    # classes on these data is within the rounding error of a tie.
    assert_array_equal(predicted, expected)
    return differences


@pytest.mark.parametrize(("model_name", "data", "variant"), CASES)
def test_parity_with_sklearn(model_name, data, variant):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        ours, theirs, X = fit_both(model_name, data, variant)
        compare(ours, theirs, X, model_name)
    if model_name == "CategoricalNB" and variant[1] == "fit":
        assert_array_equal(ours.n_categories_, theirs.n_categories_)


# ------------------------------------------------- documented differences


@pytest.mark.parametrize("data", ["iris", "breast_cancer", "adult"])
def test_gaussian_floor_is_weighted_and_cumulative(data):
    """nbayes: ``epsilon_ = var_smoothing * max_j Var_w(x_j)`` over all data seen,
    weighted; the unfloored variances equal scikit-learn's (var_smoothing=0)."""
    X, y = continuous(data)
    rng = np.random.default_rng(0)
    weights = rng.uniform(0, 3, X.shape[0])
    ours = nbayes.GaussianNB(var_smoothing=1e-6)
    for rows in np.array_split(np.arange(X.shape[0]), N_CHUNKS):
        ours.partial_fit(X[rows], y[rows], classes=np.unique(y), sample_weight=weights[rows])
    mean = np.average(X, axis=0, weights=weights)
    expected_floor = 1e-6 * np.max(np.average((X - mean) ** 2, axis=0, weights=weights))
    assert_allclose(ours.epsilon_, expected_floor, rtol=1e-12)
    unfloored = sk.GaussianNB(var_smoothing=0.0).fit(X, y, sample_weight=weights)
    assert_allclose(ours.var_ - ours.epsilon_, unfloored.var_, rtol=1e-10)


@pytest.mark.parametrize("data", ["digits", "mushroom"])
def test_categorical_n_categories_cover_every_batch(data):
    """scikit-learn keeps the last batch's ``n_categories_``; nbayes all batches'."""
    X, y = codes(data)
    ours = nbayes.CategoricalNB()
    for rows in np.array_split(np.arange(X.shape[0]), N_CHUNKS):
        ours.partial_fit(X[rows], y[rows], classes=np.unique(y))
    assert_array_equal(ours.n_categories_, X.max(axis=0) + 1)
    full = sk.CategoricalNB().fit(X, y)
    assert_array_equal(ours.n_categories_, full.n_categories_)
