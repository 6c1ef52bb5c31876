"""Parity of the fast kernels (bench/ measures their speed) with scikit-learn and with
the direct computations they replace: row blocks, bincount scatter-add, column-blocked
sparse products, label encoding, the one-pass posterior; the compiled (numba) Gaussian
block moments and posterior normalisation against their NumPy fallbacks."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn import naive_bayes as sk

import nbayes
from nbayes import _kernels
from nbayes._kernels import gaussian as gaussian_kernels
from nbayes._kernels import posterior as posterior_kernels
from nbayes._kernels import weights as weights_kernels
from nbayes.core import posterior
from nbayes.core import validation as _validate
from nbayes.core.parallel import SCRATCH
from nbayes.events import _gaussian_fit, counts, gaussian


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few rows / nonzeros / columns, so every multi-block path runs."""
    monkeypatch.setattr(_validate, "BLOCK_BYTES", 8 * 64 * 8)
    monkeypatch.setattr(_gaussian_fit, "FIT_BLOCK_BYTES", 8 * 64 * 8)
    monkeypatch.setattr(_validate, "_NONZEROS_PER_BLOCK", 97)
    monkeypatch.setattr(counts, "_PRODUCT_BLOCK_BYTES", 8 * 3 * 40)
    monkeypatch.setattr(_validate.row_blocks, "__defaults__", (8 * 64 * 8,))


def gaussian_data(n=1500, d=8, k=7, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.normal(size=(k, d))[y] * 3 + rng.normal(size=(n, d)) * rng.uniform(0.2, 2, (k, d))[y]
    return X, y


def test_row_blocks_cover_the_rows_in_order():
    blocks = _validate.row_blocks(1000, 7, block_bytes=8 * 7 * 100)
    assert [b.start for b in blocks] == list(range(0, 1000, 100))
    assert np.array_equal(np.arange(1000)[np.r_[tuple(blocks)]], np.arange(1000))
    assert _validate.row_blocks(0, 5) == []


@pytest.mark.usefixtures("small_blocks", "kernel_path")
def test_blocked_gaussian_matches_scikit_learn():
    X, y = gaussian_data()
    weights = np.random.default_rng(1).uniform(0.1, 3, X.shape[0])
    ours = nbayes.GaussianNB().fit(X, y, sample_weight=weights)
    theirs = sk.GaussianNB().fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12, atol=1e-12)
    # the variance floor differs on purpose with weights (docs/guide/estimators.md): without it
    np.testing.assert_allclose(ours.var_ - ours.epsilon_, theirs.var_ - theirs.epsilon_, rtol=1e-11)
    np.testing.assert_allclose(ours.class_count_, theirs.class_count_, rtol=1e-13)
    ours, theirs = nbayes.GaussianNB().fit(X, y), sk.GaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-11)
    X_test = gaussian_data(seed=2)[0]
    np.testing.assert_allclose(
        ours.predict_proba(X_test), theirs.predict_proba(X_test), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(
        ours.predict_log_proba(X_test), theirs.predict_log_proba(X_test), rtol=1e-10, atol=1e-10
    )
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))


@pytest.mark.usefixtures("small_blocks")
def test_gaussian_overall_moments_pooled_from_classes_equal_the_direct_ones():
    X, y = gaussian_data()
    weights = np.random.default_rng(3).uniform(0, 2, X.shape[0])
    W = _validate.hard_class_weights(y, 7, weights)
    stats = _gaussian_fit.summarize(X, W)
    count, mean, m2 = _gaussian_fit.weighted_moments(weights, X)
    assert stats.total_count == pytest.approx(count, rel=1e-13)
    np.testing.assert_allclose(stats.total_mean, mean, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(stats.total_m2, m2, rtol=1e-11)


@pytest.mark.usefixtures("small_blocks")
def test_gaussian_soft_weights_equal_hard_weights_when_one_hot():
    X, y = gaussian_data()
    weights = np.random.default_rng(4).uniform(0.5, 2, X.shape[0])
    hard = _gaussian_fit.summarize(X, _validate.hard_class_weights(y, 7, weights))
    one_hot = np.zeros((X.shape[0], 7))
    one_hot[np.arange(X.shape[0]), y] = weights
    soft = _gaussian_fit.summarize(X, _validate.soft_class_weights(one_hot))
    for name in ("class_count", "mean", "m2", "total_mean", "total_m2"):
        np.testing.assert_allclose(getattr(soft, name), getattr(hard, name), rtol=1e-11)


@pytest.mark.usefixtures("small_blocks")
def test_blocked_prediction_equals_row_by_row_prediction():
    X, y = gaussian_data()
    model = nbayes.GaussianNB().fit(X, y)
    whole = model.predict_joint_log_proba(X)
    pieces = np.vstack([model.predict_joint_log_proba(X[i : i + 1]) for i in range(0, 300)])
    np.testing.assert_allclose(whole[:300], pieces, rtol=1e-12)  # BLAS rounding only


def count_data(n=400, d=50, k=5, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, format="csr", random_state=seed)
    X.data = np.ceil(X.data * 4)
    return X, rng.integers(0, k, n)


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("weighted", [False, True])
def test_scatter_add_equals_the_sparse_product(weighted):
    X, y = count_data()
    weights = np.random.default_rng(5).uniform(0, 3, X.shape[0]) if weighted else None
    W = _validate.hard_class_weights(y, 5, weights)
    expected = (W.matrix.T @ X.toarray()).astype(float)
    np.testing.assert_allclose(W.transpose_dot(X), expected, rtol=1e-13)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("nonzeros", ["fewer than cells", "more than cells"])
def test_compiled_scatter_add_equals_the_numpy_paths(monkeypatch, weighted, nonzeros):
    """numba's scatter-add makes np.add.at's additions in its order (bitwise equal);
    against the bincount path (X with more nonzeros than the statistics have cells)
    only the grouping of the additions differs."""
    pytest.importorskip("numba")
    X, y = count_data(n=300 if nonzeros == "more than cells" else 20, d=40)
    assert (X.nnz >= 5 * X.shape[1]) == (nonzeros == "more than cells")
    weights = np.random.default_rng(6).uniform(0.1, 3, X.shape[0]) if weighted else None
    W = _validate.hard_class_weights(y, 5, weights)
    start = np.random.default_rng(7).uniform(0, 1, (5, X.shape[1]))  # a running total
    compiled = W.add_transpose_dot(X, start.copy())
    monkeypatch.setattr(_kernels, "ENABLED", False)
    numpy_path = W.add_transpose_dot(X, start.copy())
    if nonzeros == "fewer than cells":
        np.testing.assert_array_equal(compiled, numpy_path)
    else:
        np.testing.assert_allclose(compiled, numpy_path, rtol=1e-14, atol=0)
    np.testing.assert_allclose(compiled, start + W.matrix.T @ X.toarray(), rtol=1e-13)


def test_compiled_scatter_add_rejects_cells_out_of_range():
    pytest.importorskip("numba")
    out = np.zeros(6)
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 6"):
        weights_kernels.scatter_add(np.array([1, 6, 2]), np.ones(3), out)
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        weights_kernels.scatter_add(np.array([-1]), np.ones(1), out)


@pytest.mark.usefixtures("small_blocks")
def test_column_blocked_sparse_product_equals_the_dense_product():
    X, _ = count_data()
    weights = np.random.default_rng(6).normal(size=(9, X.shape[1]))
    np.testing.assert_allclose(counts.product(X, weights), X.toarray() @ weights.T, rtol=1e-12)


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (nbayes.MultinomialNB, sk.MultinomialNB),
        (nbayes.ComplementNB, sk.ComplementNB),
        (nbayes.BernoulliNB, sk.BernoulliNB),
    ],
)
def test_sparse_count_models_match_scikit_learn(ours, theirs):
    X, y = count_data()
    weights = np.random.default_rng(7).uniform(0.5, 2, X.shape[0])
    a, b = ours().fit(X, y, sample_weight=weights), theirs().fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(a.feature_count_, b.feature_count_, rtol=1e-13)
    X_test = count_data(seed=8)[0]
    np.testing.assert_allclose(
        a.predict_log_proba(X_test), b.predict_log_proba(X_test), rtol=1e-10, atol=1e-10
    )
    np.testing.assert_array_equal(a.predict(X_test), b.predict(X_test))


@pytest.mark.parametrize(
    "y",
    [
        np.array([3, -2, 3, 7, -2], dtype=np.int8),
        np.array([-128, 127, 0], dtype=np.int8),
        np.array([2**63 + 5, 2**63 + 1, 2**63 + 5], dtype=np.uint64),
        np.array([10**12, 5, 10**12]),
        np.array(["b", "a", "b"]),
        np.array([1.5, 0.5, 1.5]),
    ],
)
def test_encode_labels_equals_numpy_unique(y):
    classes, index = _validate.encode_labels(y)
    expected_classes, expected_index = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(classes, expected_classes)
    assert classes.dtype == expected_classes.dtype
    np.testing.assert_array_equal(index, expected_index)
    np.testing.assert_array_equal(_validate.label_index(y, classes), expected_index)


def test_label_index_names_unknown_labels():
    with pytest.raises(ValueError, match=r"\[9\] in y do not exist"):
        _validate.label_index(np.array([1, 9, 1]), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match=r"\[-1\] in y do not exist"):
        _validate.label_index(np.array([-1, 1]), np.array([0, 1, 2]))


def test_one_pass_posterior_equals_exp_of_log_posterior():
    rng = np.random.default_rng(9)
    jll = rng.normal(scale=50, size=(200, 6))
    jll[3] = -np.inf  # impossible under every class: the prior
    jll[4, 2] = np.inf  # certain class
    log_prior = np.log(np.full(6, 1 / 6))
    proba = posterior.posterior_proba(jll, log_prior)
    np.testing.assert_allclose(proba, np.exp(posterior.log_posterior(jll, log_prior)), rtol=1e-13)
    np.testing.assert_allclose(proba[5:], np.exp(jll[5:] - logsumexp(jll[5:], axis=1)[:, None]))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_gaussian_still_rejects_non_finite_input():
    X, y = gaussian_data(n=100)
    X[5, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        nbayes.GaussianNB().fit(X, y)


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("soft", [False, True])
def test_blocked_gaussian_summary_equals_one_block(soft):
    """Pooling row blocks gives the one-block statistics, missing values and
    within-class constant features (exact mean, M2 = 0) included."""
    X, y = gaussian_data()
    X[:, 2] = 1e9 + 0.5  # constant feature: its mean must stay exact
    observed = np.random.default_rng(10).random(X.shape) > 0.1
    X[~observed] = np.nan
    weights = np.random.default_rng(11).uniform(0.5, 2, X.shape[0])
    W = _validate.hard_class_weights(y, 7, weights)
    if soft:
        W = _validate.soft_class_weights(W.matrix.toarray())
    blocked = _gaussian_fit.summarize(X, W, observed)
    whole = _gaussian_fit.summarize_block(X, W, observed)
    assert len(_validate.row_blocks(X.shape[0], X.shape[1])) > 1
    for name in ("class_count", "mean", "m2"):
        np.testing.assert_allclose(getattr(blocked, name), getattr(whole, name), rtol=1e-11)
    assert np.all(blocked.mean[:, 2] == 1e9 + 0.5) and np.all(blocked.m2[:, 2] == 0)


def _moments_both_ways(X, y, weights, k):
    numba = pytest.importorskip("numba")
    assert numba is not None
    compiled = _gaussian_fit.hard_block_moments(X, y, weights, k, SCRATCH)
    _kernels.ENABLED = False
    try:
        fallback = _gaussian_fit.hard_block_moments(X, y, weights, k, SCRATCH)
    finally:
        _kernels.ENABLED = True
    return compiled, fallback


@pytest.mark.parametrize("weighting", ["ones", "uniform", "some zero"])
def test_compiled_gaussian_moments_equal_the_numpy_passes(weighting):
    """Same references, same additions in the same order: bitwise the same moments."""
    X, y = gaussian_data(n=900, d=13, k=9)
    X[:, 4] += 1e9  # a large offset
    X[y == 2, 5] = 7.25  # constant within a class
    rng = np.random.default_rng(12)
    weights = {"ones": np.ones(900), "uniform": rng.uniform(0.1, 3, 900)}.get(
        weighting, np.where(rng.random(900) < 0.3, 0.0, rng.uniform(0.1, 3, 900))
    )
    compiled, fallback = _moments_both_ways(X, y.astype(np.intp), weights, 11)  # 2 empty
    for ours, theirs in zip(compiled, fallback, strict=True):
        np.testing.assert_array_equal(ours, theirs)
    assert np.all(compiled[2][2, 5] == 7.25) and compiled[3][2, 5] == 0


def test_gaussian_block_moments_leave_zero_weight_rows_out(kernel_path):
    """A row of weight 0 changes nothing, however large its values (no overflow), and a
    feature constant within a class keeps its value as mean with M2 exactly 0."""
    X, y = gaussian_data(n=300, d=5, k=4)
    y = y.astype(np.intp)
    X[:, 1] = 1e9 + 0.5
    weights = np.random.default_rng(13).uniform(0.5, 2, 300)
    weights[::7] = 0.0
    X[::7] = 1.7e308
    kept = weights > 0
    moments = _gaussian_fit.hard_block_moments(X, y, weights, 4, SCRATCH)
    without = _gaussian_fit.hard_block_moments(X[kept], y[kept], weights[kept], 4, SCRATCH)
    for ours, theirs in zip(moments, without, strict=True):
        np.testing.assert_array_equal(ours, theirs)
    assert np.all(moments[2][:, 1] == 1e9 + 0.5) and np.all(moments[3][:, 1] == 0)
    nothing = _gaussian_fit.hard_block_moments(X[:3], y[:3], np.zeros(3), 4, SCRATCH)
    assert all(np.all(part == 0) for part in nothing)


@pytest.mark.parametrize("n_classes", [1, 3, 12])
def test_in_place_posterior_equals_exp_of_log_posterior(n_classes, kernel_path):
    """Both normalisations: rows sum to 1; degenerate rows (all -inf: the prior; +inf:
    an even split; NaN: the prior) as :func:`posterior.log_posterior` gives them."""
    rng = np.random.default_rng(14)
    jll = rng.normal(scale=300, size=(500, n_classes))
    jll[3] = -np.inf
    jll[4, -1] = jll[5, 0] = np.inf
    jll[6, -1] = np.nan
    jll[7, 1:] = -np.inf  # one possible class
    log_prior = np.log(rng.dirichlet(np.ones(n_classes)))
    expected = np.exp(posterior.log_posterior(jll, log_prior))
    proba = posterior.posterior_proba_inplace(jll.copy(), log_prior)
    np.testing.assert_allclose(proba, expected, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-14)
    assert not np.isnan(proba).any()
    np.testing.assert_allclose(proba[3], np.exp(log_prior), rtol=1e-14)


def test_compiled_gaussian_terms_equal_the_numpy_passes():
    """The fused pass gives bitwise the NumPy passes' log-likelihoods and marks the
    same entries for direct recomputation: cancelling, overflowing, NaN and ordinary
    entries, with and without competing suspect classes."""
    pytest.importorskip("numba")
    rng = np.random.default_rng(15)
    quadratic = rng.uniform(0, 1e3, (400, 9))
    cross = rng.normal(scale=300, size=(400, 9))
    means = rng.uniform(0, 1e3, 9)
    log_norm = rng.normal(scale=10, size=9)
    quadratic[8:40] *= 1e7  # bounds past the absolute tolerance: suspects
    near = rng.random((400, 9)) < 0.2  # A - 2B + C cancels to ~0: inexact
    near[5:8] = False
    cross[near] = ((quadratic + means) / 2 * (1 + 1e-15))[near]
    quadratic[5, 2] = np.inf  # overflow
    cross[6, 3], quadratic[6, 3] = np.inf, np.inf  # inf - inf
    cross[7, 4] = np.nan
    tolerances = (1e-13 / 3e-16, 1e-11 / 3e-16, 60.0)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = gaussian._terms(cross.copy(), quadratic.copy(), means, log_norm, *tolerances)
    got = gaussian_kernels.gaussian_terms(
        cross.copy(), quadratic.copy(), means, log_norm, *tolerances
    )
    for ours, theirs in zip(got, expected, strict=True):
        np.testing.assert_array_equal(ours, theirs)
    mask = got[1]
    assert mask[near].all() and mask[5:8].any() and not mask.all()
    assert (mask[8:40] & ~near[8:40]).any()  # marked only as competing suspects


def test_gaussian_log_likelihood_keeps_its_accuracy_contract(kernel_path):
    """Classes with tiny variances (cancellation near their means) and rows far away
    (overflow): every entry within 1e-13 relative of the direct sum of terms, and
    compiled and NumPy paths agree bitwise."""
    rng = np.random.default_rng(16)
    y = np.repeat(np.arange(4), 50)
    X = rng.normal(size=(4, 6))[y] * 1e3 + rng.normal(size=(200, 6)) * [1e-6, 1e-6, 1, 1, 3, 9]
    model = nbayes.GaussianNB(var_smoothing=1e-15).fit(X, y)
    params = model._fitted.params
    rows = np.vstack([X, X[:5] * 1e150, rng.normal(size=(50, 6)) * 1e3])
    got = gaussian._log_likelihood(params, rows)
    direct = gaussian._log_likelihood_terms(params, rows).sum(axis=2)
    np.testing.assert_allclose(got, direct, rtol=1e-13)
    enabled = _kernels.ENABLED
    _kernels.ENABLED = not enabled
    try:
        other = gaussian._log_likelihood(params, rows)
    finally:
        _kernels.ENABLED = enabled
    if _kernels.numba() is not None:
        np.testing.assert_array_equal(got, other)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def _exp_inputs(rng: np.random.Generator) -> np.ndarray:
    """Ordinary values, the edges of float64's exponential (overflow past 709.78,
    gradual underflow from -708.4 to -745.1), zeros and non-finite values."""
    edges = [0.0, -0.0, 709.7, 709.8, 1e308, -708.3, -708.5, -730.0, -745.1, -745.2, -1e308]
    special = [np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-300]
    ordinary = rng.uniform(-750, 720, 3000)
    return np.concatenate([edges, special, ordinary, rng.normal(size=1000)])


def _assert_exp_matches_numpy(got: np.ndarray, x: np.ndarray) -> None:
    """Within glibc's documented 4 ulp of NumPy's ``exp`` (a few smallest subnormals
    apart in the underflow range), with the same infinities, zeros and NaNs."""
    with np.errstate(over="ignore"):
        expected = np.exp(x)
    np.testing.assert_allclose(got, expected, rtol=4 * np.finfo(float).eps, atol=4 * 5e-324)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(got == 0, expected == 0)
    np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))


@pytest.mark.parametrize("length", [0, 1, 2, 3, 4, 5, 7, 8, 9, 4031])
def test_vector_exp_matches_numpy(length):
    """Every length (whole lanes and a scalar tail), every range of the exponential."""
    pytest.importorskip("numba")
    from nbayes._kernels import vector_math as _vector_math

    libc, version = platform.libc_ver()
    if platform.machine() == "x86_64" and libc == "glibc" and _version(version) >= (2, 22):
        assert _vector_math.LANES in (2, 4)  # glibc's libmvec is there to use
    if not _vector_math.LANES:
        pytest.skip("glibc's vector math library is not available here")
    x = _exp_inputs(np.random.default_rng(17))[:length]
    got = x.copy()
    assert posterior_kernels.exp_in_place(got)
    _assert_exp_matches_numpy(got, x)


def test_vector_exp_works_in_place_on_any_shape_and_declines_other_arrays(monkeypatch):
    """A 2-d block is exponentiated whole; a strided view, float32 or a read-only
    array is left untouched with False (the caller falls back to NumPy), as is every
    array with the compiled kernels switched off."""
    pytest.importorskip("numba")
    from nbayes._kernels import vector_math as _vector_math

    if not _vector_math.LANES:
        pytest.skip("glibc's vector math library is not available here")
    x = np.random.default_rng(18).uniform(-700, 10, (301, 13))
    block = x.copy()
    assert posterior_kernels.exp_in_place(block)
    _assert_exp_matches_numpy(block, x)
    readonly = x.copy()
    readonly.flags.writeable = False
    for declined in (x.copy()[:, ::2], x.astype(np.float32), readonly):
        before = declined.copy()
        assert not posterior_kernels.exp_in_place(declined)
        np.testing.assert_array_equal(declined, before)
    monkeypatch.setattr(_kernels, "ENABLED", False)
    untouched = x.copy()
    assert not posterior_kernels.exp_in_place(untouched)
    np.testing.assert_array_equal(untouched, x)


def test_two_lane_vector_exp_for_code_without_avx():
    """Where numba compiles for a CPU other than this one (here the generic x86-64), the
    kernel calls the 2-lane SSE2 variant, whose argument register every x86-64 CPU has;
    it matches NumPy's ``exp`` too."""
    pytest.importorskip("numba")
    from nbayes._kernels import vector_math as _vector_math

    if not _vector_math.LANES:
        pytest.skip("glibc's vector math library is not available here")
    script = (
        "import numpy as np, sys\n"
        "from nbayes import _kernels\n"
        "from nbayes._kernels import posterior, vector_math\n"
        "_kernels.SMALL_WORK = _kernels.LOAD_COST_S = 0\n"
        "x = np.load(sys.argv[1])\n"
        "assert posterior.exp_in_place(x)\n"
        "np.save(sys.argv[1], x)\n"
        "print(vector_math.LANES)\n"
    )
    x = _exp_inputs(np.random.default_rng(19))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.npy"
        np.save(path, x)
        environment = {**os.environ, "NUMBA_CPU_NAME": "generic", "NUMBA_CACHE_DIR": folder}
        run = subprocess.run(
            [sys.executable, "-c", script, str(path)],
            env=environment, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert run.stdout.strip() == "2"
        _assert_exp_matches_numpy(np.load(path), x)


@pytest.mark.parametrize("weighting", ["ones", "uniform", "some zero"])
def test_compiled_gaussian_moments_with_missing_values_equal_the_numpy_passes(weighting):
    """Missing values (hard labels): the compiled passes take the same references and
    make the same additions in the same order as the NumPy ones: bitwise the same; the
    NaN where nothing is observed is never read."""
    pytest.importorskip("numba")
    X, y = gaussian_data(n=900, d=13, k=9)
    X[:, 4] += 1e9  # a large offset
    X[y == 2, 5] = 7.25  # constant within a class
    rng = np.random.default_rng(14)
    observed = rng.random(X.shape) > 0.2
    observed[y == 3, 6] = False  # a class never observing a feature
    X = np.where(observed, X, np.nan)  # never read
    weights = {"ones": np.ones(900), "uniform": rng.uniform(0.1, 3, 900)}.get(
        weighting, np.where(rng.random(900) < 0.3, 0.0, rng.uniform(0.1, 3, 900))
    )
    W = _validate.hard_class_weights(y.astype(np.intp), 11, weights)  # 2 classes empty
    compiled = _gaussian_fit.block_moments(X, W, observed)
    _kernels.ENABLED = False
    try:
        fallback = _gaussian_fit.block_moments(X, W, observed)
    finally:
        _kernels.ENABLED = True
    for ours, theirs in zip(compiled, fallback, strict=True):
        np.testing.assert_array_equal(ours, theirs)
        assert np.isfinite(ours).all()
    assert np.all(compiled[2][2, 5][compiled[1][2, 5] > 0] == 7.25)


@pytest.mark.parametrize("weighting", ["ones", "integers", "uniform"])
def test_compiled_categorical_counts_equal_the_bincount_path(weighting):
    """One compiled pass adds what the blocked bincounts add: the same counts (exactly
    for whole weights; to rounding for others, added in another order); missing codes
    add nothing, and a code beyond its category count is refused."""
    pytest.importorskip("numba")
    from nbayes.events.categorical import CategoricalStats, add_codes

    rng = np.random.default_rng(15)
    X = rng.integers(-1, 6, size=(5000, 4))
    y = rng.integers(0, 3, 5000)
    weights = {
        "ones": np.ones(5000),
        "integers": rng.integers(0, 4, 5000).astype(float),
        "uniform": rng.uniform(0.1, 3, 5000),
    }[weighting]
    W = _validate.hard_class_weights(y.astype(np.intp), 3, weights)
    sizes = np.full(4, 6)
    compiled = add_codes(CategoricalStats.zero(3, 4), X, W, sizes).counts
    _kernels.ENABLED = False
    try:
        fallback = add_codes(CategoricalStats.zero(3, 4), X, W, sizes).counts
    finally:
        _kernels.ENABLED = True
    if weighting == "uniform":
        np.testing.assert_allclose(compiled, fallback, rtol=1e-12)
    else:
        np.testing.assert_array_equal(compiled, fallback)
    with pytest.raises(IndexError, match="beyond"):
        add_codes(CategoricalStats.zero(3, 4), X, W, np.full(4, 5))
