"""The benchmark's scenarios: the catalogue. Importing it registers every scenario in
:data:`bench.registry.SCENARIOS` (keyed by letter), which it hands on as ``SCENARIOS``.

A scenario yields :class:`~bench.registry.Dataset` s one at a time (so only one data
set is in memory at once); each holds :class:`~bench.registry.Case` s: the same task
done by nbayes, by scikit-learn and by the floor, the cheapest computation of the same
shape (one read pass, a GEMM or sparse product, one bincount). A, B, C and E are
defined here; D (text), F (mixed columns), G (spam), H (start-up), I (the table path),
J (the command line) and K (the spamd server under hostile load) in
``bench/scenario_text.py``, ``scenario_mixed.py``, ``scenario_spam.py``,
``scenario_startup.py``, ``table_path.py``, ``cli_tool.py`` and ``scenario_spamd.py``;
L (ONNX serving) in ``scenario_onnx.py``; M (array API on a GPU) in
``scenario_array_api.py``.
A new scenario is a module that registers into :mod:`bench.registry` (importing it,
never this catalogue) and is named in the import list at the end of this file.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import numpy as np
import scipy.sparse as sp
from sklearn import naive_bayes as sk

import nbayes
from bench import data
from bench.harness import partial_fits
from bench.registry import SCENARIOS, Case, Dataset, register

__all__ = ["SCENARIOS"]  # every scenario, once the modules below have registered


def _one_hot(y: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros((y.shape[0], k))
    out[np.arange(y.shape[0]), y] = 1.0
    return out


def _chunks(n: int, parts: int) -> list[slice]:
    bounds = np.linspace(0, n, parts + 1).astype(int)
    return [slice(a, b) for a, b in itertools.pairwise(bounds)]


# ---------------------------------------------------------------- A: Gaussian
@register("A", "Gaussian: fit, predict, predict_proba")
def gaussian(quick: bool) -> Iterator[Dataset]:
    shapes = (
        [(3_000, 20, 10), (2_000, 20, 100)]
        if quick
        else [
            (1_000_000, 50, 10),
            (100_000, 50, 100),
        ]
    )
    for n, d, k in shapes:
        X, y = data.gaussian(n, d, k)
        onehot = _one_hot(y, k)
        rng = np.random.default_rng(3)
        A, B = rng.random((d, k)), rng.random((d, k))
        ours, theirs = nbayes.GaussianNB().fit(X, y), sk.GaussianNB().fit(X, y)
        vs_sklearn = 0.1 if k <= 10 else 0.05

        def two_gemms(X=X, A=A, B=B):
            return (X * X) @ A + X @ B

        yield Dataset(
            f"GaussianNB {n:,}x{d}, {k} classes",
            X.sum,
            [
                Case(
                    "fit",
                    lambda X=X, y=y: nbayes.GaussianNB().fit(X, y),
                    lambda X=X, y=y: sk.GaussianNB().fit(X, y),
                    lambda X=X, W=onehot: W.T @ X,
                    "one-hot GEMM W.T@X",
                    None,
                    1.5,
                ),
                *(
                    Case(
                        method,
                        lambda X=X, m=ours, f=method: getattr(m, f)(X),
                        lambda X=X, m=theirs, f=method: getattr(m, f)(X),
                        two_gemms,
                        "two GEMMs (X*X)@A + X@B",
                        vs_sklearn,
                        1.5,
                    )
                    for method in ("predict", "predict_proba")
                ),
            ],
        )


# ---------------------------------------------------------------- B: sparse counts
_SPARSE_MODELS = [
    ("MultinomialNB", nbayes.MultinomialNB, sk.MultinomialNB),
    ("ComplementNB", nbayes.ComplementNB, sk.ComplementNB),
    ("BernoulliNB", nbayes.BernoulliNB, sk.BernoulliNB),
]


def _bincount_floor(X: sp.csr_matrix, y: np.ndarray, k: int) -> Callable[[], object]:
    """One weighted bincount scatter-add of every nonzero into its (class, feature) bin."""
    flat = np.repeat(y, np.diff(X.indptr)) * X.shape[1] + X.indices
    size = k * X.shape[1]
    return lambda: np.bincount(flat, X.data, minlength=size)


def _product_floor(X, k: int) -> Callable[[], object]:
    """One sparse (or dense) product X @ M, M of shape (n_features, n_classes)."""
    M = np.random.default_rng(4).random((X.shape[1], k))
    return lambda: X @ M


@register("B", "Sparse counts: multinomial, complement, Bernoulli; fit and predict")
def sparse_counts(quick: bool) -> Iterator[Dataset]:
    n, d, per_row, k = (4_000, 2_000, 20, 20) if quick else (200_000, 100_000, 100, 20)
    X, y = data.sparse_counts(n, d, per_row, k)
    cases = []
    fit_floor, predict_floor = _bincount_floor(X, y, k), _product_floor(X, k)
    for name, ours_cls, theirs_cls in _SPARSE_MODELS:
        ours, theirs = ours_cls().fit(X, y), theirs_cls().fit(X, y)
        cases += [
            Case(
                f"{name} fit",
                lambda c=ours_cls: c().fit(X, y),
                lambda c=theirs_cls: c().fit(X, y),
                fit_floor,
                "one bincount",
                1 / 1.5,
                None,
            ),
            Case(
                f"{name} predict",
                lambda m=ours: m.predict(X),
                lambda m=theirs: m.predict(X),
                predict_floor,
                "one sparse product X@M (scipy, 1 thread)",
                1 / 1.5,
                None,
            ),
        ]
    yield Dataset(f"CSR {n:,}x{d:,}, {X.nnz:,} nonzeros, {k} classes", X.data.sum, cases)


# ---------------------------------------------------------------- C: categorical
@register("C", "Categorical: fit and predict")
def categorical(quick: bool) -> Iterator[Dataset]:
    n, d, k = (5_000, 20, 5) if quick else (500_000, 200, 5)
    X, y, n_categories = data.categorical(n, d, k)
    offsets = np.concatenate(([0], np.cumsum(n_categories)[:-1]))
    width = int(n_categories.sum())
    codes = X + offsets
    flat = (codes + (y * width)[:, None]).ravel()
    onehot = sp.csr_matrix(
        (np.ones(codes.size), codes.ravel().astype(np.int32), np.arange(0, codes.size + 1, d)),
        shape=(n, width),
    )
    del codes
    M = np.random.default_rng(5).random((width, k))
    ours, theirs = nbayes.CategoricalNB().fit(X, y), sk.CategoricalNB().fit(X, y)
    yield Dataset(
        f"CategoricalNB {n:,}x{d}, 5-20 categories, {k} classes",
        X.sum,
        [
            Case(
                "fit",
                lambda: nbayes.CategoricalNB().fit(X, y),
                lambda: sk.CategoricalNB().fit(X, y),
                lambda: np.bincount(flat, minlength=k * width),
                "one bincount of (class, feature, category) codes",
                0.1,
                None,
            ),
            Case(
                "predict",
                lambda: ours.predict(X),
                lambda: theirs.predict(X),
                lambda: onehot @ M,
                "one-hot sparse product (scipy, 1 thread)",
                0.1,
                None,
            ),
        ],
    )


# ---------------------------------------------------------------- E: partial_fit
def _chunked(model_cls, X, y, classes, parts: list[slice]):
    # The chunks are cut once, outside the timed call: a stream hands partial_fit ready
    # batches, and slicing a CSR matrix copies its nonzeros (a cost of the data source,
    # ~25 % of one sparse fit, not of the estimator). Dense slices are views either way.
    return partial_fits(model_cls, [(X[part], y[part]) for part in parts], classes)


@register("E", "partial_fit over 100 chunks against one fit")
def streaming(quick: bool) -> Iterator[Dataset]:
    scale = 100 if quick else 1
    problems = [
        (
            "GaussianNB",
            nbayes.GaussianNB,
            sk.GaussianNB,
            *data.gaussian(1_000_000 // scale, 50 // (5 if quick else 1), 10),
        ),
        (
            "MultinomialNB (CSR)",
            nbayes.MultinomialNB,
            sk.MultinomialNB,
            *data.sparse_counts(200_000 // scale, 100_000 // scale, 100 // (5 if quick else 1), 20),
        ),
        (
            "CategoricalNB",
            nbayes.CategoricalNB,
            sk.CategoricalNB,
            *data.categorical(500_000 // scale, 200 // (10 if quick else 1), 5)[:2],
        ),
    ]
    n_chunks = 10 if quick else 100
    for name, ours_cls, theirs_cls, X, y in problems:
        parts = _chunks(X.shape[0], n_chunks)
        classes = np.unique(y)
        read = X.data.sum if sp.issparse(X) else X.sum
        yield Dataset(
            f"{name} {X.shape[0]:,}x{X.shape[1]:,} in {n_chunks} chunks",
            read,
            [
                Case(
                    f"partial_fit x{n_chunks}",
                    _chunked(ours_cls, X, y, classes, parts),
                    _chunked(theirs_cls, X, y, classes, parts),
                    lambda c=ours_cls, X=X, y=y: c().fit(X, y),
                    "nbayes one fit",
                    None,
                    1.2,
                ),
            ],
        )


# ---------------------------------------------------------------- D, F, G, H, I, J, K, L
# Registered into bench.registry by their own modules.
from bench import (  # noqa: E402, F401
    cli_tool,
    scenario_array_api,
    scenario_mixed,
    scenario_onnx,
    scenario_spam,
    scenario_spamd,
    scenario_startup,
    scenario_text,
    table_path,
)
