"""Small calls take the NumPy/SciPy paths (``nbayes._kernels.SMALL_WORK``), with the
kernels' results, and a process doing only small jobs never imports numba."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import nbayes
from nbayes import _kernels
from nbayes._kernels import posterior as posterior_kernels
from nbayes.core import posterior
from nbayes.events import _gaussian_fit
from nbayes.events import gaussian as gaussian_event

pytest.importorskip("numba")

# The shipped defaults, whatever was imported first (bench/run.py sets LOAD_COST_S to 0
# when a test imports it; the tests run with both at 0).
SMALL_WORK = _kernels.DEFAULT_SMALL_WORK
LOAD_COST_S = _kernels.DEFAULT_LOAD_COST_S


def both_paths(monkeypatch, fn):
    """``fn()`` with every call small (the NumPy paths, kernels enabled) and with every
    call compiled."""
    monkeypatch.setattr(_kernels, "SMALL_WORK", math.inf)
    small = fn()
    monkeypatch.setattr(_kernels, "SMALL_WORK", 0)
    return small, fn()


def assert_same(small, compiled):
    for a, b in zip(small, compiled, strict=True):
        a, b = (x.toarray() if sp.issparse(x) else np.asarray(x) for x in (a, b))
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_available_is_the_threshold(monkeypatch):
    monkeypatch.setattr(_kernels, "SMALL_WORK", SMALL_WORK)
    assert _kernels.available()  # a call that does not say its work: compiled
    monkeypatch.setattr(_kernels, "SMALL_WORK", 100)
    assert not _kernels.available(99) and _kernels.available(100)
    monkeypatch.setattr(_kernels, "ENABLED", False)
    assert not _kernels.available(10**9) and not _kernels.available()


def _gaussian(n=300, d=6, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, d)) * np.resize([1, 1e-3, 1e3, 5], d) + y[:, None]
    X[:, 0] += 1e9  # a large offset: the reference values matter
    return X, y, rng.uniform(0.1, 3, n)


def test_gaussian_fit_update_and_prediction_are_the_kernels(monkeypatch):
    X, y, w = _gaussian()

    def run():
        model = nbayes.GaussianNB().fit(X[:200], y[:200], sample_weight=w[:200])
        first = (model.theta_.copy(), model.var_.copy(), model.class_count_.copy())
        model.partial_fit(X[200:], y[200:], sample_weight=w[200:])  # the one-pass update
        return (*first, model.theta_, model.var_, model.predict_joint_log_proba(X),
                model.predict_log_proba(X), model.predict(X))  # fmt: skip

    assert_same(*both_paths(monkeypatch, run))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("cls", [nbayes.MultinomialNB, nbayes.ComplementNB, nbayes.BernoulliNB])
def test_count_models_are_the_kernels(monkeypatch, cls, sparse):
    """The scatter-add of a small X goes by ``np.add.at`` (the kernel's additions in
    its order), also where X has more nonzeros than the statistics have cells, where
    the kernels switched off count by ``bincount``."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 200)
    X = rng.poisson(1.0, (200, 30)).astype(float)
    X = sp.csr_matrix(X) if sparse else X
    w = rng.uniform(0.1, 3, 200)

    def run():
        model = cls().fit(X[:120], y[:120], sample_weight=w[:120])
        first = model.feature_count_.copy()
        model.partial_fit(X[120:], y[120:], sample_weight=w[120:])
        return first, model.feature_count_, model.predict_joint_log_proba(X)

    assert_same(*both_paths(monkeypatch, run))


def test_categorical_counts_and_gather_are_the_kernels(monkeypatch):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 4, 300)
    X = (rng.integers(0, 5, (300, 7)) + y[:, None]) % 6
    w = rng.uniform(0.1, 3, 300)

    def run():
        model = nbayes.CategoricalNB().fit(X[:150], y[:150], sample_weight=w[:150])
        first = [c.copy() for c in model.category_count_]
        model.partial_fit(X[150:], y[150:], sample_weight=w[150:])
        return (*first, *model.category_count_, model.predict_joint_log_proba(X))

    assert_same(*both_paths(monkeypatch, run))


def test_table_with_missing_values_is_the_kernels(monkeypatch):
    X, y, w = _gaussian(n=200, d=3)
    table = pd.DataFrame({"a": X[:, 0], "b": np.where(X[:, 1] > 1, np.nan, X[:, 1]),
                          "c": np.array(["x", "y", "z"])[y]})  # fmt: skip

    def run():
        model = nbayes.NaiveBayes().fit(table, y, sample_weight=w)
        return (model.predict_joint_log_proba(table),)

    assert_same(*both_paths(monkeypatch, run))


@pytest.mark.parametrize("n_classes", [3, 11, 40])  # column by column, or accumulated
@pytest.mark.parametrize("degenerate", [False, True])
def test_posterior_of_a_small_block_is_the_kernels_but_for_the_exponential(
    monkeypatch, n_classes, degenerate
):
    """Row max and row sum (added in order of the classes) bitwise the kernels';
    degenerate rows alike; the exponential NumPy's, within a few ulp of glibc's vector
    one, bitwise the same where the kernel path takes NumPy's too."""
    rng = np.random.default_rng(3)
    jll = rng.normal(size=(400, n_classes)) * 30
    if degenerate:
        jll[5] = -np.inf
        jll[6, 2] = np.inf
        jll[7, 1] = np.nan
    log_prior = np.log(np.full(n_classes, 1 / n_classes))

    def run():
        return (posterior.posterior_proba_inplace(jll.copy(), log_prior),)

    small, compiled = both_paths(monkeypatch, run)
    np.testing.assert_allclose(small[0], compiled[0], rtol=1e-14, atol=0)
    monkeypatch.setattr(posterior_kernels, "exp_in_place", lambda values: False)
    assert_same(*both_paths(monkeypatch, run))


@pytest.mark.parametrize("offset", [-1, 0])
def test_identical_on_either_side_of_the_threshold(monkeypatch, offset):
    """At the default threshold: calls one row short of it and at it (the class
    moments' work n x d, the Gaussian terms' n x k and the scatter-add's nonzeros
    all n x 8), each the same whichever path it takes."""
    threshold = SMALL_WORK
    d = k = 8
    n = -(-threshold // d) + offset
    X, y, _ = _gaussian(n=n, d=d, k=k, seed=4)
    assert (X.size >= threshold) == (offset == 0)
    monkeypatch.setattr(_kernels, "SMALL_WORK", threshold)
    assert _kernels.available(X.size) == (offset == 0)
    model = nbayes.GaussianNB().fit(X, y)
    counts = sp.csr_matrix(np.abs(X[:, 1:]).round() + 1)
    counts = sp.hstack([counts, sp.csr_matrix(np.ones((n, 1)))], format="csr")
    assert counts.nnz == X.size

    def run():
        stats = _gaussian_fit.hard_block_moments(X, y, np.ones(n), k, _gaussian_fit.SCRATCH)
        terms = gaussian_event._log_likelihood(model._fitted.params, X)
        sums = nbayes.MultinomialNB().fit(counts, y).feature_count_
        return (*stats, terms, sums)

    default = run()
    for forced in both_paths(monkeypatch, run):
        assert_same(default, forced)


SMALL_JOB = """
import sys
import numpy as np
import pandas as pd
import scipy.sparse as sp
import nbayes

rng = np.random.default_rng(0)
y = rng.integers(0, 3, 300)
X = rng.normal(size=(300, 6)) + y[:, None]
model = nbayes.GaussianNB().fit(X, y)
model.predict(X), model.predict_proba(X), model.partial_fit(X, y).predict_log_proba(X)
counts = rng.poisson(1.0, (300, 8))
for cls in (nbayes.MultinomialNB, nbayes.ComplementNB, nbayes.BernoulliNB,
            nbayes.CategoricalNB):
    for data in (counts, sp.csr_matrix(counts)) if cls is not nbayes.CategoricalNB else (counts,):
        cls().fit(data, y).partial_fit(data, y).predict_proba(data)
table = pd.DataFrame({"a": X[:, 0], "b": np.where(X[:, 1] > 1, np.nan, X[:, 1]),
                      "c": np.array(["x", "y", "z"])[y]})
nbayes.NaiveBayes().fit(table, y).predict_proba(table)
arrow = table.astype({"c": "string[pyarrow]"})  # the compiled string hash's input
labels = pd.Series(np.array(["p", "q", "r"])[y], dtype="string[pyarrow]")
nbayes.NaiveBayes().fit(arrow, labels).predict_proba(arrow)
{big}
print("numba" in sys.modules)
"""


@pytest.mark.parametrize("big", [False, True])
def test_a_small_job_never_imports_numba(big):
    """A fresh process fitting and predicting every kind of model on small data
    does not import numba; one large call worth loading it for does (here the cost of
    loading set lower: a fit of 36,000 values forgoes ~0.07 ms)."""
    fit = "nbayes.GaussianNB().fit(np.tile(X, (20, 1)), np.tile(y, 20))"
    extra = f"nbayes._kernels.LOAD_COST_S = 1e-5\n{fit}" if big else ""
    done = subprocess.run(
        [sys.executable, "-c", SMALL_JOB.replace("{big}", extra)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == str(big)


def deferred_and_loaded(monkeypatch, fn):
    """``fn()`` as a fresh process runs it, at the default thresholds (calls above
    ``SMALL_WORK`` take the reference paths until loading numba pays), and with the
    kernels loaded for every call above ``SMALL_WORK``."""
    monkeypatch.setattr(_kernels, "SMALL_WORK", SMALL_WORK)
    monkeypatch.setattr(_kernels, "LOAD_COST_S", LOAD_COST_S)
    monkeypatch.setattr(_kernels, "_forgone_s", 0.0)  # as if numba were not loaded yet
    deferred = fn()
    forgone = _kernels._forgone_s
    monkeypatch.setattr(_kernels, "LOAD_COST_S", 0.0)
    return deferred, fn(), forgone


def test_available_defers_loading_until_it_pays(monkeypatch):
    """Calls above the threshold add what the kernels would have saved them; the one
    that brings the total to the cost of loading takes the kernels, as every later
    call above the threshold does. Calls below it, or of unknown work, add nothing."""
    monkeypatch.setattr(_kernels, "SMALL_WORK", 100)
    monkeypatch.setattr(_kernels, "LOAD_COST_S", 1.0)
    monkeypatch.setattr(_kernels, "_forgone_s", 0.0)
    assert not _kernels.available(99, saving_s=1.0)  # small: nothing forgone
    assert [_kernels.available(1000, saving_s=3e-4) for _ in range(4)] == [False] * 3 + [True]
    assert _kernels.available(100, saving_s=1e-9) and not _kernels.available(99)
    monkeypatch.setattr(_kernels, "_forgone_s", 0.0)
    assert _kernels.available()  # a call that does not say its work: worth any cost
    monkeypatch.setattr(_kernels, "_forgone_s", 0.0)
    monkeypatch.setattr(_kernels, "ENABLED", False)
    assert not _kernels.available() and _kernels._forgone_s == 0.0


def test_loading_numba_marks_the_kernels_loaded():
    """Once nbayes has loaded numba (here for the text kernels, which load it on their
    own terms), every call above the threshold takes the kernels, however little it
    saves; before, one that saves little does not."""
    code = (
        "from nbayes import _kernels\n"
        "before = _kernels.available(10**6, saving_s=1e-12)\n"
        "_kernels.numba()\n"
        "print(before, _kernels.available(10**6, saving_s=1e-12))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False", "True"]


def test_large_calls_before_the_load_are_the_kernels(monkeypatch):
    """Calls of 10x to 100x the small-call threshold, numba not yet worth loading:
    the reference paths, bitwise the kernels' results (but for the posterior's
    exponential, within a few ulp), for every model whose kernels they defer."""
    X, y, w = _gaussian(n=20_000, d=10, k=3, seed=5)
    rng = np.random.default_rng(6)
    codes = (rng.integers(0, 5, (60_000, 7)) + np.resize(y, 60_000)[:, None]) % 6
    counts = sp.csr_matrix(rng.poisson(1.0, (20_000, 30)).astype(float))
    strings = pd.Series(np.array(["x", "y", "z"])[y], dtype="string[pyarrow]")
    table = pd.DataFrame({"a": X[:, 0], "b": np.where(X[:, 1] > 1, np.nan, X[:, 1]), "c": strings})

    def run():
        gaussian = nbayes.GaussianNB().fit(X[:10_000], y[:10_000], sample_weight=w[:10_000])
        first = (gaussian.theta_.copy(), gaussian.var_.copy())
        gaussian.partial_fit(X[10_000:], y[10_000:], sample_weight=w[10_000:])
        categorical = nbayes.CategoricalNB().fit(codes, np.resize(y, 60_000))
        multinomial = nbayes.MultinomialNB().fit(counts, y, sample_weight=w)
        mixed = nbayes.NaiveBayes().fit(table, y, sample_weight=w)
        exact = (*first, gaussian.theta_, gaussian.var_, gaussian.predict_joint_log_proba(X),
                 *categorical.category_count_, categorical.predict_joint_log_proba(codes),
                 multinomial.feature_count_, multinomial.predict_joint_log_proba(counts),
                 mixed.predict_joint_log_proba(table))  # fmt: skip
        proba = (gaussian.predict_proba(X), categorical.predict_proba(codes),
                 mixed.predict_proba(table))  # fmt: skip
        return exact, proba

    (deferred, deferred_proba), (loaded, loaded_proba), forgone = deferred_and_loaded(
        monkeypatch, run
    )
    assert 0 < forgone < LOAD_COST_S  # large calls, numba not worth loading yet
    assert_same(deferred, loaded)
    for a, b in zip(deferred_proba, loaded_proba, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-300)


@pytest.mark.parametrize("loads", [False, True])
def test_a_process_loads_numba_once_its_calls_would_have_saved_the_cost(loads):
    """A fresh process: large fits that together would save less than loading numba
    costs never import it; past that (here the cost set lower), numba loads and the
    results are the same."""
    code = f"""
import sys
import numpy as np
from nbayes import GaussianNB, _kernels
_kernels.LOAD_COST_S = {1e-4 if loads else LOAD_COST_S!r}
rng = np.random.default_rng(0)
y = rng.integers(0, 3, 50_000)
X = rng.normal(size=(50_000, 4)) + y[:, None]  # 200,000 values: ~0.4 ms forgone a fit
fits = [GaussianNB().fit(X, y) for _ in range(3)]
print("numba" in sys.modules, _kernels._forgone_s)
assert all(np.array_equal(f.var_, fits[0].var_) for f in fits)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    imported, forgone = done.stdout.split()
    assert imported == str(loads)
    assert (float(forgone) == math.inf) == loads
