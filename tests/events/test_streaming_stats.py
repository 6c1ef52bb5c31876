"""In-place accumulation of the running statistics (fit and partial_fit, one path).

Estimators that add a batch's statistics into their running statistics in place
(Gaussian, the count models, categorical) must never change a statistics object
someone else holds: one read through ``_stats`` (EM's labelled snapshot, a merge, a
saved model), one assigned from outside, or one shared with a shallow copy. And the
in-place path must give the statistics of adding a fresh summary.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import nbayes
from nbayes import _kernels
from nbayes.core import validation as _validate
from nbayes.events import _gaussian_fit, counts, gaussian

IN_PLACE = ["GaussianNB", "MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB"]


def batches(model: str, seed: int = 0, n_batches: int = 4, rows: int = 30):
    """``n_batches`` (X, y) batches for ``model``; categorical batches bring new codes."""
    rng = np.random.default_rng(seed)
    out = []
    for b in range(n_batches):
        y = rng.integers(0, 3, rows)
        if model == "GaussianNB":
            X = rng.normal(size=(rows, 4)) + y[:, None]
        elif model == "CategoricalNB":
            X = rng.integers(0, 3 + b, size=(rows, 4))  # the domain widens batch by batch
        else:
            X = rng.poisson(1.0 + y[:, None], size=(rows, 4)).astype(np.float64)
        out.append((X, y))
    return out


def snapshot(stats) -> dict[str, np.ndarray]:
    return {f.name: np.array(getattr(stats, f.name), copy=True) for f in dataclasses.fields(stats)}


def assert_unchanged(stats, before: dict[str, np.ndarray]) -> None:
    for name, value in before.items():
        np.testing.assert_array_equal(getattr(stats, name), value, err_msg=name)


def assert_same_stats(a, b, rtol: float = 0.0) -> None:
    for field in dataclasses.fields(a):
        np.testing.assert_allclose(
            getattr(a, field.name), getattr(b, field.name), rtol=rtol, atol=0, err_msg=field.name
        )


@pytest.mark.parametrize("model", IN_PLACE)
def test_partial_fit_never_changes_statistics_read_earlier(model):
    data = batches(model)
    estimator = getattr(nbayes, model)()
    estimator.partial_fit(*data[0], classes=[0, 1, 2])
    held = estimator._stats
    before = snapshot(held)
    for X, y in data[1:]:
        estimator.partial_fit(X, y)
    assert_unchanged(held, before)
    assert estimator._stats is not held


@pytest.mark.parametrize("model", IN_PLACE)
def test_statistics_assigned_from_outside_are_never_changed(model):
    """EM's M-step: ``model._stats = labelled_stats`` then ``learn_weighted``."""
    data = batches(model)
    estimator = getattr(nbayes, model)().fit(*data[0])
    labelled = estimator._stats
    before = snapshot(labelled)
    X = estimator.check_X(data[1][0])
    for _ in range(2):
        estimator._stats = labelled
        W = _validate.soft_class_weights(np.full((X.shape[0], 3), 1 / 3))
        estimator.learn_weighted(X, W)
    assert_unchanged(labelled, before)


@pytest.mark.parametrize("model", IN_PLACE)
def test_merge_inputs_and_shallow_copies_are_never_changed(model):
    data = batches(model)
    first = getattr(nbayes, model)().partial_fit(*data[0], classes=[0, 1, 2])
    second = getattr(nbayes, model)().partial_fit(*data[1], classes=[0, 1, 2])
    # statistics reached without reading ``_stats`` (no hand-out recorded)
    first_before = snapshot(first.__dict__["_running"].stats)
    second_before = snapshot(second.__dict__["_running"].stats)
    merged = nbayes.merge(first, second)
    merged.partial_fit(*data[2])
    twin = copy.copy(first)  # shares the running-statistics holder
    twin.partial_fit(*data[3])
    assert_unchanged(first.__dict__["_running"].stats, first_before)
    assert_unchanged(second.__dict__["_running"].stats, second_before)


@pytest.mark.parametrize("model", IN_PLACE)
def test_in_place_accumulation_equals_summing_fresh_summaries(model):
    """Chunked partial_fit (statistics added in place) equals the batches' own
    statistics summed with ``+`` (Chan pooling, widening), and one fit on the union;
    counts exactly."""
    data = batches(model)
    chunked = getattr(nbayes, model)()
    expected = None
    for X, y in data:
        chunked.partial_fit(X, y, classes=[0, 1, 2])
        alone = getattr(nbayes, model)().partial_fit(X, y, classes=[0, 1, 2])._stats
        expected = alone if expected is None else expected + alone
    union = getattr(nbayes, model)().fit(
        np.vstack([X for X, _ in data]), np.concatenate([y for _, y in data])
    )
    rtol = 1e-12 if model == "GaussianNB" else 0.0
    assert_same_stats(chunked._stats, expected, rtol=rtol)
    assert_same_stats(chunked._stats, union._stats, rtol=rtol)


def test_adding_into_running_statistics_equals_adding_a_summary():
    """``counts.add_into`` on a copy equals ``stats + counts.summarize`` for dense,
    CSR (both the bincount and the ``np.add.at`` routes) and soft weights."""
    rng = np.random.default_rng(1)
    X = sp.random(50, 400, density=0.05, format="csr", random_state=2) * 7
    X.data = np.round(X.data)
    y = rng.integers(0, 4, 50).astype(np.intp)
    weights = rng.uniform(0.5, 2.0, 50)
    base = counts.summarize(X[:20], _validate.hard_class_weights(y[:20], 4, None))
    for W in (
        _validate.hard_class_weights(y, 4, None),
        _validate.hard_class_weights(y, 4, weights),
        _validate.soft_class_weights(rng.dirichlet(np.ones(4), 50)),
    ):
        for data in (X, X.toarray()):
            expected = base + counts.summarize(data, W)
            got = counts.add_into(copy.deepcopy(base), data, W)
            assert_same_stats(got, expected, rtol=1e-13)


@pytest.mark.parametrize("dense_rows", [2, 5_000])  # np.add.at route, then bincount route
def test_scatter_add_writes_into_non_contiguous_output(dense_rows):
    X = sp.random(dense_rows, 300, density=0.01, format="csr", random_state=3)
    y = np.random.default_rng(4).integers(0, 3, dense_rows).astype(np.intp)
    W = _validate.hard_class_weights(y, 3, None)
    start = np.asfortranarray(np.arange(900.0).reshape(3, 300))
    out = W.add_transpose_dot(X, start.copy(order="F"))
    one_hot = sp.csr_matrix(
        (np.ones(dense_rows), y, np.arange(dense_rows + 1)), shape=(dense_rows, 3)
    )
    np.testing.assert_allclose(out, start + (one_hot.T @ X).toarray(), rtol=1e-14)


def test_small_sparse_batch_allocates_nothing_the_size_of_the_statistics():
    """A partial_fit batch of a few rows against 20 x 200,000 statistics (32 MB)
    adds into them: its traced peak stays far below one statistics-sized array."""
    n_classes, n_features = 20, 200_000
    model = nbayes.MultinomialNB()
    X0 = sp.csr_matrix(([1.0], ([0], [0])), shape=(1, n_features))
    model.partial_fit(X0, [0], classes=np.arange(n_classes))
    batch = sp.random(10, n_features, density=1e-4, format="csr", random_state=5)
    model.partial_fit(batch, np.arange(10))  # warm-up (imports, caches)
    tracemalloc.start()
    try:
        model.partial_fit(batch, np.arange(10) + 5)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < n_classes * n_features * 8 / 8


def test_count_overflow_is_still_found_batch_by_batch():
    """The cheap bound skips the full overflow check only while it proves the counts
    finite: totals near the float64 limit are checked exactly, overflow is an error."""
    model = nbayes.MultinomialNB()
    big = np.array([[1e307, 1.0]])
    for _ in range(15):  # 1.5e308: past the bound's safe zone, still representable
        model.partial_fit(big, [0], classes=[0, 1])
    assert np.isfinite(model.feature_count_).all()
    with pytest.raises(ValueError, match="cannot be represented in float64"):
        for _ in range(5):
            model.partial_fit(big, [1])


def test_gaussian_chunks_keep_a_constant_feature_exact():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(400, 3))
    X[:, 1] = 1e9 + 0.1
    y = rng.integers(0, 3, 400)
    model = nbayes.GaussianNB()
    for rows in np.array_split(np.arange(400), 7):
        model.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    stats = model._stats
    assert np.all(stats.mean[:, 1] == 1e9 + 0.1) and np.all(stats.m2[:, 1] == 0)
    assert stats.total_mean[1] == 1e9 + 0.1 and stats.total_m2[1] == 0


# ---------------------------------------------- Gaussian: one pass into running moments
def gaussian_batch(rng, rows: int, k: int = 4, d: int = 5, shift: float = 0.0):
    """(X, y): class means N(0, 3) plus ``shift``, per-class scales in [0.2, 2]."""
    y = rng.integers(0, k, rows).astype(np.intp)
    centres = np.random.default_rng(99).normal(size=(k, d)) * 3
    scales = np.random.default_rng(98).uniform(0.2, 2.0, (k, d))
    return centres[y] + scales[y] * rng.normal(size=(rows, d)) + shift, y


@pytest.mark.parametrize("n_blocks", [1, 7])
@pytest.mark.parametrize("weighting", ["ones", "some zero"])
def test_gaussian_one_pass_update_equals_pooling_the_two_pass_summary(
    kernel_path, weighting, n_blocks
):
    """``shifted_update`` (running means as shifts; the blocks' sums added) gives
    ``stats + summary`` of the batch (the two passes, Chan pooling) to rounding."""
    rng = np.random.default_rng(20)
    X0, y0 = gaussian_batch(rng, 300)
    X, y = gaussian_batch(rng, 200)
    weights = rng.uniform(0.2, 3.0, 200)
    if weighting == "some zero":
        weights[::4] = 0.0
        X[::4] = 1.7e308  # never read: no overflow
    running = _gaussian_fit.summarize(X0, _validate.hard_class_weights(y0, 4, None))
    kept = weights > 0
    expected = running + _gaussian_fit.summarize(
        X[kept], _validate.hard_class_weights(y[kept], 4, weights[kept])
    )
    blocks = [
        slice(a, b) for a, b in itertools.pairwise(np.linspace(0, 200, n_blocks + 1, dtype=int))
    ]
    assert _gaussian_fit.shifted_update(running, X, y, weights, blocks)
    for name in ("class_count", "count", "mean", "m2", "total_count", "total_mean", "total_m2"):
        np.testing.assert_allclose(
            getattr(running, name), getattr(expected, name), rtol=1e-13, err_msg=name
        )


@pytest.mark.parametrize("block_bytes", [_gaussian_fit.FIT_BLOCK_BYTES, 8 * 13 * 40])
@pytest.mark.parametrize("classes_features", [(11, 5), (24, 1)])
def test_gaussian_one_pass_update_is_bitwise_the_same_compiled_and_numpy(
    monkeypatch, block_bytes, classes_features
):
    """The compiled kernel makes the NumPy path's operations in its order: chunked
    ``partial_fit`` with weights (some zero), empty classes, a constant feature; each
    batch one block, or several (their sums added in order); one feature and many
    classes (where ``np.sum`` over the classes would add pairwise)."""
    pytest.importorskip("numba")
    monkeypatch.setattr(_gaussian_fit, "FIT_BLOCK_BYTES", block_bytes)
    n_classes, n_features = classes_features
    rng = np.random.default_rng(21)
    X, y = gaussian_batch(rng, 3000, k=n_classes - 2, d=n_features)  # 2 classes empty
    X[:, -1] += 1e9
    X[y == 2, 0] = 7.25
    weights = np.where(rng.random(3000) < 0.2, 0.0, rng.uniform(0.1, 3, 3000))
    fitted = []
    for enabled in (True, False):
        monkeypatch.setattr(_kernels, "ENABLED", enabled)
        model = nbayes.GaussianNB()
        for rows in np.array_split(np.arange(3000), 12):
            model.partial_fit(
                X[rows], y[rows], classes=np.arange(n_classes), sample_weight=weights[rows]
            )
        fitted.append(model._stats)
    assert_same_stats(*fitted)
    assert np.all(fitted[0].mean[2, 0] == 7.25) and fitted[0].m2[2, 0] == 0


@pytest.mark.parametrize("case", ["first batch", "new class", "far batch", "nan", "overflow"])
def test_gaussian_one_pass_update_declines_and_leaves_statistics_untouched(kernel_path, case):
    """No running moments for a class of the batch, a batch far from the running means
    and larger than what they summarise (the subtraction would lose more than a bit),
    or moments that are not finite: False, nothing changed (the two passes follow)."""
    rng = np.random.default_rng(22)
    X0, y0 = gaussian_batch(rng, 12 if case == "far batch" else 300, k=3)
    X, y = gaussian_batch(rng, 1000, shift=100.0 if case == "far batch" else 0.0)
    y = y % (4 if case == "new class" else 3)
    X[5, 2] = {"nan": np.nan, "overflow": 1e300}.get(case, X[5, 2])
    running = gaussian.GaussianStats.zero(4, 5)
    if case != "first batch":
        running = _gaussian_fit.summarize(X0, _validate.hard_class_weights(y0, 4, None))
    before = snapshot(running)
    blocks = [slice(0, 500), slice(500, 1000)]
    assert not _gaussian_fit.shifted_update(running, X, y, np.ones(1000), blocks)
    assert_unchanged(running, before)


def test_gaussian_chunks_far_from_the_running_means_equal_one_fit(kernel_path):
    """A stream whose later, larger batches move far away (the two passes take them):
    chunked ``partial_fit`` equals one fit."""
    rng = np.random.default_rng(23)
    parts = [
        gaussian_batch(rng, rows, shift=shift)
        for rows, shift in [(20, 0.0), (2000, 50.0), (500, 50.0), (3000, -1e4), (400, -1e4)]
    ]
    model = nbayes.GaussianNB()
    for X, y in parts:
        model.partial_fit(X, y, classes=np.arange(4))
    whole = nbayes.GaussianNB().fit(
        np.vstack([X for X, _ in parts]), np.concatenate([y for _, y in parts])
    )
    assert_same_stats(model._stats, whole._stats, rtol=1e-12)


def test_gaussian_chunks_keep_their_precision_with_a_large_offset(kernel_path):
    """1e8 + N(0, 1) in 100 chunks: the running mean is stored to 1.5e-8 (an ulp of
    1e8), so each batch's shift is off by up to half that; the variances stay within
    1e-8 of the exact ones (long double), as Chan pooling of two-pass summaries does."""
    rng = np.random.default_rng(24)
    y = rng.integers(0, 3, 50_000)
    X = rng.normal(size=(50_000, 2)) + [1e8, -3.7e8] + y[:, None]
    model = nbayes.GaussianNB(var_smoothing=0.0)
    for rows in np.array_split(np.arange(50_000), 100):
        model.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    for c in range(3):
        exact = X[y == c].astype(np.longdouble)
        deviation = exact - exact.mean(axis=0)
        variance = (deviation * deviation).mean(axis=0)
        np.testing.assert_allclose(model.var_[c], variance.astype(np.float64), rtol=1e-8)
        np.testing.assert_allclose(
            model.theta_[c], exact.mean(axis=0).astype(np.float64), rtol=1e-15, atol=0
        )
