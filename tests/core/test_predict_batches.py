"""Prediction in row batches: ``batch_size``, bounded memory, float32 input, and the
compiled categorical kernel against its SciPy fallback.

Expected values come from the same model on unbatched (or float64, or one-hot
product) input: the batched, float32 and compiled paths must reproduce them.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import nbayes
from nbayes import _kernels
from nbayes.core.base import _take_rows
from nbayes.events import categorical

METHODS = ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba")


def _counts(n=300, d=40, k=3, seed=0, density=0.2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.poisson(0.3 + (np.arange(d) % (y[:, None] + 2) == 0), size=(n, d)).astype(float)
    X *= rng.random((n, d)) < density + 0.3
    return X, y


def _gaussian(n=300, d=6, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    means = rng.normal(scale=3.0, size=(k, d))
    return means[y] + rng.normal(size=(n, d)), y


def _codes(n=300, d=7, k=3, seed=0, top=6):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = (rng.integers(0, top, (n, d)) + y[:, None]) % top
    return X, y


def _cases():
    Xg, yg = _gaussian()
    Xc, yc = _counts()
    Xk, yk = _codes()
    return [
        ("gaussian", nbayes.GaussianNB, Xg, yg),
        ("multinomial", nbayes.MultinomialNB, Xc, yc),
        ("multinomial-csr", nbayes.MultinomialNB, sp.csr_matrix(Xc), yc),
        ("complement-csr", nbayes.ComplementNB, sp.csr_matrix(Xc), yc),
        ("bernoulli", nbayes.BernoulliNB, Xc, yc),
        ("bernoulli-csr", nbayes.BernoulliNB, sp.csr_matrix(Xc), yc),
        ("categorical", nbayes.CategoricalNB, Xk, yk),
    ]


@pytest.mark.parametrize(("name", "cls", "X", "y"), _cases(), ids=[c[0] for c in _cases()])
@pytest.mark.parametrize("batch_size", [5, 64])
def test_batched_prediction_equals_unbatched(name, cls, X, y, batch_size):
    whole = cls(batch_size=10**9).fit(X, y)
    batched = cls(batch_size=batch_size).fit(X, y)
    for method in (*METHODS, "decision_function"):
        if not hasattr(whole, method):
            continue
        expected, got = getattr(whole, method)(X), getattr(batched, method)(X)
        assert got.shape == expected.shape and got.dtype == expected.dtype, method
        if method == "predict":
            np.testing.assert_array_equal(got, expected)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=method)


@pytest.mark.parametrize("batch_size", [0, -3, 2.5, True, "10"])
def test_bad_batch_size_is_a_clear_error(batch_size):
    X, y = _gaussian()
    if batch_size is not True:  # scikit-learn's Interval(Integral) lets a bool through
        with pytest.raises(ValueError, match="batch_size"):
            nbayes.GaussianNB(batch_size=batch_size).fit(X, y)
    model = nbayes.GaussianNB().fit(X, y)
    model.batch_size = batch_size  # set after fit: checked where it is used
    with pytest.raises(ValueError, match="batch_size"):
        model.predict(X)


def test_binary_decision_function_in_batches():
    X, y = _counts(k=2)
    model = nbayes.MultinomialNB(batch_size=11).fit(X, y)
    jll = nbayes.MultinomialNB().fit(X, y).predict_joint_log_proba(X)
    np.testing.assert_allclose(model.decision_function(X), jll[:, 1] - jll[:, 0], rtol=1e-12)


def test_csr_row_views_equal_slices():
    X = sp.csr_matrix(_counts(n=50)[0])
    for rows in (slice(0, 50), slice(3, 17), slice(49, 50), slice(10, 10)):
        view = _take_rows(X, rows)
        assert (view != X[rows]).nnz == 0 and view.shape == X[rows].shape
        assert np.shares_memory(view.data, X.data) or view.nnz == 0


def _peak_above_result(fn) -> int:
    """Traced peak bytes of fn() above the level before it, minus its result's size."""
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before - result.nbytes


@pytest.mark.parametrize("sparse", [False, True])
def test_peak_memory_is_bounded_as_rows_grow(sparse):
    """With batch_size fixed, the memory beyond the result does not grow with n (a full
    float64 copy of X, or an n x k temporary, would make it grow 4x)."""
    rng = np.random.default_rng(1)
    d, k, batch = 50, 10, 500
    y = rng.integers(0, k, 40_000)
    X = rng.random((40_000, d)) * (rng.random((40_000, d)) < 0.3)
    X = sp.csr_matrix(X) if sparse else X
    # Bernoulli binarizes (copies) each block; Gaussian upcasts float32 blocks.
    model = nbayes.BernoulliNB(batch_size=batch).fit(X, y)
    small, large = X[:10_000], X
    extra_small = _peak_above_result(lambda: model.predict_proba(small))
    extra_large = _peak_above_result(lambda: model.predict_proba(large))
    one_copy_of_large = 40_000 * d * 8 if not sparse else large.nnz * 12
    assert extra_large < 0.1 * one_copy_of_large
    assert extra_large < 1.5 * extra_small + (1 << 20)


def test_gaussian_float32_is_not_upcast_whole():
    X, y = _gaussian(n=40_000, d=50, k=5)
    model = nbayes.GaussianNB(batch_size=500).fit(X, y)
    X32 = X.astype(np.float32)
    extra = _peak_above_result(lambda: model.predict_proba(X32))
    assert extra < 0.25 * X.nbytes  # a float64 copy of X would be X.nbytes
    assert extra < 1.5 * _peak_above_result(lambda: model.predict_proba(X32[:10_000])) + 2**20


def test_gaussian_float32_agrees_with_float64():
    """float32 X is scored exactly as its float64 value (outputs float64, documented);
    against the unrounded float64 X, argmax agrees wherever the decision is not
    within float32 rounding of a tie, and probabilities agree to 1e-4."""
    X, y = _gaussian(n=2_000, d=8, k=5)
    model = nbayes.GaussianNB(batch_size=300).fit(X, y)
    X32 = X.astype(np.float32)
    proba32 = model.predict_proba(X32)
    assert proba32.dtype == np.float64
    np.testing.assert_allclose(
        proba32, model.predict_proba(X32.astype(np.float64)), rtol=1e-12, atol=1e-15
    )
    proba64 = model.predict_proba(X)
    np.testing.assert_allclose(proba32, proba64, atol=1e-4)
    top2 = np.sort(model.predict_log_proba(X), axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-3
    assert clear.mean() > 0.9
    np.testing.assert_array_equal(model.predict(X32)[clear], model.predict(X)[clear])


@pytest.mark.parametrize("cls", [nbayes.MultinomialNB, nbayes.ComplementNB, nbayes.BernoulliNB])
def test_sparse_float32_counts_agree_and_are_not_upcast_whole(cls):
    X, y = _counts(n=20_000, d=300, k=4)
    X64 = sp.csr_matrix(X)
    X32 = X64.astype(np.float32)
    model = cls(batch_size=2_000).fit(X64, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X32), model.predict_joint_log_proba(X64), rtol=1e-12
    )
    np.testing.assert_array_equal(model.predict(X32), model.predict(X64))
    extra = _peak_above_result(lambda: model.predict(X32))
    assert extra < 0.5 * X32.nnz * 8  # a float64 copy of X's data would be nnz * 8


# ------------------------------------------------ the compiled categorical kernel
numba = pytest.importorskip("numba")


@pytest.fixture
def scipy_path(monkeypatch):
    """Runs the test body's ``predict`` calls on the SciPy one-hot path."""

    def run(fn):
        monkeypatch.setattr(_kernels, "ENABLED", False)
        try:
            return fn()
        finally:
            monkeypatch.setattr(_kernels, "ENABLED", True)

    return run


@pytest.mark.parametrize("n_classes", [1, 3, 9])  # one pass; 8 + 1 classes in two
@pytest.mark.parametrize("alpha", [1.0, 0.0])
def test_compiled_categorical_equals_one_hot_product(n_classes, alpha, scipy_path):
    X, y = _codes(n=400, d=9, k=n_classes, top=7)
    model = nbayes.CategoricalNB(alpha=alpha, force_alpha=True).fit(X[:60], y[:60] % n_classes)
    model.handle_unknown = "ignore"  # the first 60 rows need not show every code
    expected = scipy_path(lambda: model.predict_joint_log_proba(X))
    got = model.predict_joint_log_proba(X)
    if alpha == 0.0 and n_classes > 1:
        assert np.isneginf(expected).any()  # the -inf handling is exercised
    np.testing.assert_array_equal(got, expected)  # same terms, same order: bitwise
    np.testing.assert_array_equal(model.predict(X), scipy_path(lambda: model.predict(X)))


def test_compiled_categorical_unknown_codes(scipy_path):
    X, y = _codes(n=200, d=5, k=3, top=4)
    model = nbayes.CategoricalNB().fit(X, y)
    unseen = X.copy()
    unseen[17, 3] = 9
    with pytest.raises(categorical.UnknownCategoryError, match="Feature 3 has category 9"):
        model.predict(unseen)
    model = nbayes.CategoricalNB(handle_unknown="ignore").fit(X, y)
    expected = scipy_path(lambda: model.predict_joint_log_proba(unseen))
    np.testing.assert_array_equal(model.predict_joint_log_proba(unseen), expected)


def test_compiled_gather_skips_missing_codes():
    """Negative codes (missing values, as binned data produces) add nothing."""
    table = np.arange(18.0).reshape(3, 6)  # (n_classes, cells): features of 2 and 4 codes
    params = categorical.CategoricalParams(table, np.array([2, 4]))
    codes = np.array([[1, 3], [-1, 0], [0, -1]])
    got = categorical.Categorical(handle_unknown="ignore").log_likelihood(params, codes)
    expected = np.array([[1 + 5, 7 + 11, 13 + 17], [2, 8, 14], [0, 6, 12]], dtype=float)
    np.testing.assert_array_equal(got, expected)


def test_small_sparse_predict_does_not_scan_the_loaded_libraries():
    """The BLAS thread count (threadpoolctl's scan of every loaded library, ~10 ms a
    fresh process) is asked for sparse row blocks only when X is large enough to split
    over the threads; a small predict in a fresh process never builds it."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import numpy as np, scipy.sparse as sp
        from nbayes import MultinomialNB
        from nbayes.core import parallel
        rng = np.random.default_rng(0)
        X = sp.csr_matrix(rng.poisson(1.0, size=(200, 30)).astype(float))
        y = rng.integers(0, 2, 200)
        MultinomialNB().fit(X, y).predict(X)
        print(parallel._controller is None)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["True"], done.stderr[-2000:]
