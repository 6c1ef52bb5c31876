"""Bad input gets a clear error naming the problem.

Where scikit-learn has the same model, the same mistake must raise the same error
type with the same message as ``sklearn.naive_bayes`` (scikit-learn's own tests
match parts of these messages). Errors nbayes adds (unknown categories, values
float64 cannot hold) are checked for what they name.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as sk
from sklearn.exceptions import DataConversionWarning

import nbayes

MODELS = ["GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]
COUNT_MODELS = ["MultinomialNB", "ComplementNB"]

X = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
Y = np.array([0, 1, 1, 2])


def _fitted(Model):
    return Model().fit(X, Y)


def _started(Model):
    """A model after its first partial_fit call (dense X: CategoricalNB gets integer codes)."""
    first = X.astype(np.int64) if Model.__name__ == "CategoricalNB" else X
    return Model().partial_fit(first, Y, classes=[0, 1, 2])


# How scikit-learn's answer to the same mistake is compared with ours.
SAME = "same message"  # same error type, same message
CLEARER = "same type"  # scikit-learn's message is less clear ("Unknown label type: (array(...),)")
STRICTER = "stricter"  # scikit-learn's discrete models silently drop undeclared classes

# (case id, models, what the user does wrong, the words the error must hold[, comparison])
MISTAKES = [
    (
        "X and y lengths differ",
        MODELS,
        lambda M: M().fit(X, Y[:3]),
        "inconsistent numbers of samples: [4, 3]",
    ),
    ("NaN in X", MODELS, lambda M: M().fit(np.where(X == 3, np.nan, X), Y), "Input X contains NaN"),
    (
        "inf in X",
        MODELS[:-1],
        lambda M: M().fit(np.where(X == 3, np.inf, X), Y),
        "Input X contains infinity",
    ),
    (
        "NaN at predict",
        MODELS,
        lambda M: _fitted(M).predict(np.array([[np.nan, 1.0]])),
        "Input X contains NaN",
    ),
    (
        "negative counts",
        [*COUNT_MODELS, "CategoricalNB"],
        lambda M: M().fit(-X, Y),
        "Negative values in data passed to",
    ),
    (
        "negative counts in partial_fit",
        COUNT_MODELS,
        lambda M: M().partial_fit(X, Y, classes=[0, 1, 2]).partial_fit(-X, Y),
        "Negative values in data passed to",
    ),
    ("y two-dimensional", MODELS, lambda M: M().fit(X, np.c_[Y, Y]), "y should be a 1d array"),
    (
        "y continuous",
        MODELS,
        lambda M: M().fit(X, Y + 0.5),
        "Unknown label type: continuous",
        CLEARER,
    ),
    ("X one-dimensional", MODELS, lambda M: M().fit(X[:, 0], Y), "Expected 2D array"),
    (
        "undeclared class in partial_fit",
        MODELS,
        lambda M: M().partial_fit(X, Y, classes=[0, 1]),
        "The target label(s) [2] in y do not exist in the initial classes [0 1]",
        STRICTER,
    ),
    (
        "undeclared class in a later partial_fit",
        MODELS,
        lambda M: M().partial_fit(X, Y, classes=[0, 1, 2]).partial_fit(X[:1], [7]),
        "The target label(s) [7] in y do not exist in the initial classes [0 1 2]",
        STRICTER,
    ),
    (
        "classes missing on the first partial_fit",
        MODELS,
        lambda M: M().partial_fit(X, Y),
        "classes must be passed on the first call to partial_fit",
    ),
    (
        "classes changed between partial_fit calls",
        MODELS,
        lambda M: M().partial_fit(X, Y, classes=[0, 1, 2]).partial_fit(X, Y, classes=[0, 1, 2, 3]),
        "is not the same as on last call to partial_fit",
    ),
    (
        "empty training set",
        MODELS,
        lambda M: M().fit(np.empty((0, 2)), []),
        "Found array with 0 sample(s) (shape=(0, 2)) while a minimum of 1 is required",
    ),
    (
        "no features",
        MODELS,
        lambda M: M().fit(np.empty((4, 0)), Y),
        "0 feature(s) (shape=(4, 0)) while a minimum of 1 is required",
    ),
    (
        "wrong n_features at predict",
        MODELS,
        lambda M: _fitted(M).predict(np.ones((1, 3))),
        "X has 3 features, but",
    ),
    (
        "wrong n_features in partial_fit",
        MODELS,
        lambda M: M().partial_fit(X, Y, classes=[0, 1, 2]).partial_fit(np.ones((1, 3)), [0]),
        "X has 3 features, but",
    ),
    (
        "sample_weight of the wrong length",
        MODELS,
        lambda M: M().fit(X, Y, sample_weight=[1.0, 2.0]),
        "sample_weight.shape == (2,), expected (4,)!",
    ),
    (
        "class prior of the wrong length",
        MODELS[1:],
        lambda M: M(class_prior=[0.5, 0.5]).fit(X, Y),
        "Number of priors must match number of classes",
    ),
    (
        "Gaussian priors of the wrong length",
        ["GaussianNB"],
        lambda M: M(priors=[0.5, 0.5]).fit(X, Y),
        "Number of priors must match number of classes",
    ),
    (
        "Gaussian priors not summing to 1",
        ["GaussianNB"],
        lambda M: M(priors=[0.2, 0.2, 0.2]).fit(X, Y),
        "The sum of the priors should be 1",
    ),
    (
        "negative Gaussian priors",
        ["GaussianNB"],
        lambda M: M(priors=[-0.5, 0.5, 1.0]).fit(X, Y),
        "Priors must be non-negative",
    ),
    (
        "alpha array of the wrong length",
        COUNT_MODELS,
        lambda M: M(alpha=[1.0, 1.0, 1.0]).fit(X, Y),
        "When alpha is an array, it should contains `n_features`",
    ),
    ("negative alpha", MODELS[1:], lambda M: M(alpha=-1.0).fit(X, Y), "'alpha' parameter"),
    # A later partial_fit batch that needs no conversion takes the quick check
    # (nbayes.core.quick_check.quick_check_X_y): the same errors, worded the same.
    (
        "NaN in X in a later partial_fit",
        MODELS,
        lambda M: _started(M).partial_fit(np.where(X == 3, np.nan, X), Y),
        "Input X contains NaN",
    ),
    (
        "inf in X in a later partial_fit",
        MODELS[:-1],
        lambda M: _started(M).partial_fit(np.where(X == 3, -np.inf, X), Y),
        "Input X contains infinity",
    ),
    (
        "NaN in sparse X in a later partial_fit",
        [*COUNT_MODELS, "BernoulliNB"],
        lambda M: _started(M).partial_fit(sp.csr_matrix(np.where(X == 3, np.nan, X)), Y),
        "Input X contains NaN",
    ),
    (
        "negative counts in a later sparse partial_fit",
        COUNT_MODELS,
        lambda M: _started(M).partial_fit(sp.csr_matrix(-X), Y),
        "Negative values in data passed to",
    ),
    (
        "negative codes in a later partial_fit",
        ["CategoricalNB"],
        lambda M: _started(M).partial_fit(-X.astype(np.int64), Y),
        "Negative values in data passed to",
    ),
    (
        "X and y lengths differ in a later partial_fit",
        MODELS,
        lambda M: _started(M).partial_fit(X, Y[:3]),
        "inconsistent numbers of samples: [4, 3]",
    ),
    (
        "NaN in y in a later partial_fit",
        MODELS,
        lambda M: _started(M).partial_fit(X, np.array([0.0, 1.0, np.nan, 2.0])),
        "Input y contains NaN",
    ),
    (
        "wrong n_features in a later sparse partial_fit",
        [*COUNT_MODELS, "BernoulliNB"],
        lambda M: _started(M).partial_fit(sp.csr_matrix(np.ones((1, 3))), np.array([0])),
        "X has 3 features, but",
    ),
    (
        "undeclared class in a later integer partial_fit",
        MODELS,
        lambda M: _started(M).partial_fit(X, np.array([0, 1, 7, 1])),
        "The target label(s) [7] in y do not exist in the initial classes [0 1 2]",
        STRICTER,
    ),
    (
        "sparse input to a dense-only model",
        ["GaussianNB", "CategoricalNB"],
        lambda M: M().fit(sp.csr_matrix(X), Y),
        "Sparse data was passed",
    ),
]

CASES = [
    pytest.param(model, mistake, words, how[0] if how else SAME, id=f"{model}-{name}")
    for name, models, mistake, words, *how in MISTAKES
    for model in models
]


def _raised(Model, mistake) -> Exception:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            mistake(Model)
        except Exception as error:
            return error
    pytest.fail(f"{Model.__module__}.{Model.__name__}: no error raised")


@pytest.mark.parametrize(("model", "mistake", "words", "comparison"), CASES)
def test_same_error_as_sklearn(model, mistake, words, comparison):
    ours = _raised(getattr(nbayes, model), mistake)
    assert isinstance(ours, ValueError | TypeError), type(ours)
    assert words in str(ours)
    if comparison == STRICTER and model != "GaussianNB":
        return
    theirs = _raised(getattr(sk, model), mistake)
    assert isinstance(ours, type(theirs)), (type(ours), type(theirs))
    if comparison == SAME:
        assert str(ours) == str(theirs)


@pytest.mark.parametrize("model", MODELS)
def test_column_vector_y_warns_and_is_raveled(model):
    Model = getattr(nbayes, model)
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        column = Model().fit(X, Y[:, None])
    np.testing.assert_array_equal(column.predict(X), Model().fit(X, Y).predict(X))


# ------------------------------------------------------------ nbayes's own errors


def test_unknown_category_raises_a_named_error():
    model = nbayes.CategoricalNB().fit([[0, 1], [1, 0]], [0, 1])
    with pytest.raises(nbayes.UnknownCategoryError) as caught:
        model.predict([[0, 0], [1, 5]])
    message = str(caught.value)
    assert "Feature 1 has category 5 at row 1" in message
    assert "categories 0..1" in message and "handle_unknown='ignore'" in message
    # scikit-learn raises IndexError here; code that catches it keeps working.
    assert isinstance(caught.value, IndexError) and isinstance(caught.value, ValueError)
    with pytest.raises(IndexError):
        sk.CategoricalNB().fit([[0, 1], [1, 0]], [0, 1]).predict([[1, 5]])
    for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        with pytest.raises(nbayes.UnknownCategoryError):
            getattr(model, method)([[2, 0]])


def test_all_zero_sample_weight_is_an_error():
    with pytest.raises(ValueError, match="at least one non-zero"):
        nbayes.MultinomialNB().fit(X, Y, sample_weight=np.zeros(4))


def test_negative_sample_weight_is_an_error():
    with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
        nbayes.GaussianNB().fit(X, Y, sample_weight=[1.0, -1.0, 1.0, 1.0])


@pytest.mark.parametrize("model", ["GaussianNB", *COUNT_MODELS])
def test_partial_fit_after_an_error_keeps_the_model(model):
    """A rejected batch leaves the statistics as they were."""
    fitted = getattr(nbayes, model)().partial_fit(X, Y, classes=[0, 1, 2])
    before = fitted.predict_proba(X)
    with pytest.raises(ValueError):
        fitted.partial_fit(np.where(X == 3, np.nan, X), Y)
    with pytest.raises(ValueError):
        fitted.partial_fit(X, [0, 1, 5, 1])
    np.testing.assert_array_equal(fitted.predict_proba(X), before)


def test_gaussian_variance_beyond_float64_is_scaled_not_refused():
    """Squared deviations of 1e300 overflow float64; the scaled statistics do not
    (events.moments), so the model fits and equals the one on the rescaled data."""
    X_far = np.array([[1.0, -1e300], [2.0, 1e300], [0.0, 0.0]])
    far = nbayes.GaussianNB().fit(X_far, [0, 0, 1])
    scaled = X_far * 2.0**-996  # feature 1 near 1, feature 0 near 1e-300
    near = nbayes.GaussianNB().fit(scaled, [0, 0, 1])
    np.testing.assert_allclose(far.predict_proba(X_far), near.predict_proba(scaled), rtol=1e-12)


def test_gaussian_merge_far_apart_is_scaled_not_refused():
    low = nbayes.GaussianNB().fit([[-1e300]], [0])
    high = nbayes.GaussianNB().fit([[1e300]], [0])
    merged = nbayes.merge(low, high)
    np.testing.assert_allclose(merged.theta_, [[0.0]], atol=1e285)
    assert np.isinf(merged.var_).all()  # 1e600 is beyond float64 outside the model
    assert np.isfinite(merged.predict_proba([[3e299], [-1e300]])).all()


@pytest.mark.parametrize("model", COUNT_MODELS)
def test_counts_beyond_float64_are_named(model):
    with pytest.raises(ValueError, match=re.escape("counts of feature(s) [0] cannot be")):
        getattr(nbayes, model)().fit([[1e308, 1.0], [1e308, 1.0]], [0, 0])
    with pytest.raises(ValueError, match="counts of all features together cannot be"):
        getattr(nbayes, model)().fit([[1e308, 1e308]], [0])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", ["first row", "last row", "row of zero weight"])
def test_gaussian_training_finiteness_is_scikit_learns_check(bad, where):
    """GaussianNB checks training X's finiteness on its block moments (several blocks
    here), or directly where rows of zero weight are left out of them; either way the
    error is scikit-learn's, word for word, and a running model keeps its statistics."""
    rng = np.random.default_rng(0)
    X_big, y = rng.normal(size=(60_000, 20)), rng.integers(0, 3, 60_000)
    weight = np.ones(len(y))
    row = {"first row": 0, "last row": -1, "row of zero weight": 30_000}[where]
    if where == "row of zero weight":
        weight[row] = 0.0
    clean = X_big.copy()
    X_big[row, 7] = bad
    with pytest.raises(ValueError) as theirs:
        sk.GaussianNB().fit(X_big, y, sample_weight=weight)
    with pytest.raises(ValueError) as ours:
        nbayes.GaussianNB().fit(X_big, y, sample_weight=weight)
    assert str(ours.value) == str(theirs.value)
    running = nbayes.GaussianNB().partial_fit(clean, y, classes=[0, 1, 2])
    before = (running.theta_.copy(), running.var_.copy(), running.class_count_.copy())
    with pytest.raises(ValueError, match="Input X contains"):
        running.partial_fit(X_big, y, sample_weight=weight)
    for kept, now in zip(before, (running.theta_, running.var_, running.class_count_), strict=True):
        np.testing.assert_array_equal(kept, now)
