"""Scenario M: array API dispatch on a GPU, nbayes on PyTorch or CuPy arrays.

    python bench/run.py --only M                          # CUDA: torch and/or CuPy
    BENCH_ARRAY_DEVICE=cpu BENCH_ARRAY_ROWS=200000 python bench/run.py --only M  # on a CPU

Data: 1,000,000 x 50, 10 classes (``--smoke``: 20,000 x 50; ``BENCH_ARRAY_ROWS=n`` sets
the rows), dense Gaussian values and
dense Poisson counts, made on the host and copied to the device once, outside the
timings. Cases, each timed with the device synchronised after every call:

- **GaussianNB fit, predict_proba**: nbayes against scikit-learn's own array-API
  GaussianNB on the same arrays (``array_api_dispatch=True``); floor: the GEMMs the
  same shapes need on the device (``W.T @ X`` for fit; ``(X*X) @ A + X @ B`` for
  scoring).
- **MultinomialNB fit, predict_proba** on the counts: nbayes against scikit-learn's
  NumPy MultinomialNB on the host copy (scikit-learn's discrete models have no array
  API support: what a GPU buys over the CPU); floor: one GEMM.
- **against cuML** (where ``cuml`` is installed): its GaussianNB and MultinomialNB on
  CuPy copies of the same data, nbayes on CuPy.

Without a CUDA device (and without ``BENCH_ARRAY_DEVICE=cpu``) the scenario is not
run, and says so in one line. On the CPU (``BENCH_ARRAY_DEVICE=cpu``) the torch rows
compare nbayes on torch CPU tensors against nbayes's NumPy path and scikit-learn on
NumPy, the same sizes.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator

import numpy as np
import sklearn
from sklearn import naive_bayes as sk

import nbayes
from bench import data
from bench.registry import Case, Dataset, register


def _device() -> str:
    """``BENCH_ARRAY_DEVICE``: ``cpu`` runs the torch rows on the CPU (no GPU needed);
    default ``cuda``."""
    return os.environ.get("BENCH_ARRAY_DEVICE", "cuda")


def _module(name: str):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _torch_device():
    """torch and the device its rows use, or (None, None)."""
    torch = _module("torch")
    if torch is None:
        return None, None
    if _device() == "cpu":
        return torch, torch.device("cpu")
    return (torch, torch.device("cuda")) if torch.cuda.is_available() else (None, None)


def _cupy():
    cupy = _module("cupy") if _device() != "cpu" else None
    if cupy is None:
        return None
    try:
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # cupy installed without a usable driver
        return None


def missing() -> str | None:
    """Why scenario M cannot run here, or None."""
    if os.environ.get("SCIPY_ARRAY_API") != "1":
        return "SCIPY_ARRAY_API=1 is not set (scikit-learn's array API dispatch needs it)."
    if _torch_device()[0] is None and _cupy() is None:
        return (
            "no CUDA device (neither torch.cuda nor CuPy finds one); "
            "BENCH_ARRAY_DEVICE=cpu runs the torch rows on the CPU."
        )
    return None


def _synchronised(call: Callable[[], object], sync: Callable[[], object]) -> Callable[[], object]:
    def timed():
        with sklearn.config_context(array_api_dispatch=True):
            out = call()
        sync()
        return out

    return timed


def _backends():
    """``(label, to_device, sync, xp)`` for each available device namespace."""
    torch, device = _torch_device()
    if torch is not None:
        sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
        yield f"torch {device.type}", (lambda a: torch.asarray(a, device=device)), sync, torch
    cupy = _cupy()
    if cupy is not None:
        yield "cupy", cupy.asarray, cupy.cuda.Device().synchronize, cupy


@register("M", "Array API on a GPU: GaussianNB and multinomial, fit and predict_proba", missing)
def array_api(quick: bool) -> Iterator[Dataset]:
    n = int(os.environ.get("BENCH_ARRAY_ROWS", 20_000 if quick else 1_000_000))
    X, y = data.gaussian(n, 50, 10)
    counts = np.random.default_rng(5).poisson(1.0 + (y[:, None] % 4), size=X.shape)
    for backend in _backends():
        yield from _on_device(backend, X, counts.astype(np.float64), y)


def _on_device(backend, X_host, counts_host, y) -> Iterator[Dataset]:
    """Scenario M's datasets on one device namespace (see the module doc)."""
    label, to_device, sync, xp = backend
    (n, d), k = X_host.shape, int(y.max()) + 1
    X, counts, y_device = to_device(X_host), to_device(counts_host), to_device(y)
    W = to_device(np.eye(k)[y])
    rng = np.random.default_rng(3)
    A, B = to_device(rng.random((d, k))), to_device(rng.random((d, k)))
    with sklearn.config_context(array_api_dispatch=True):
        ours = nbayes.GaussianNB().fit(X, y)
        theirs = sk.GaussianNB().fit(X, y_device)
        ours_counts = nbayes.MultinomialNB().fit(counts, y)
    host_counts = sk.MultinomialNB().fit(counts_host, y)
    host_gaussian = nbayes.GaussianNB().fit(X_host, y)

    def on(call):
        return _synchronised(call, sync)

    fit_gaussian = on(lambda: nbayes.GaussianNB().fit(X, y))
    fit_multinomial = on(lambda: nbayes.MultinomialNB().fit(counts, y))
    gemm_gaussian, gemm_counts = on(lambda: W.T @ X), on(lambda: W.T @ counts)

    def gaussian_cases(their_fit, their_proba, floor_place: str = "") -> list[Case]:
        """nbayes's GaussianNB fit and predict_proba on the device arrays against
        ``their_fit`` and ``their_proba``; floors: the device GEMMs of those shapes."""
        return [
            Case(
                "fit",
                fit_gaussian,
                their_fit,
                gemm_gaussian,
                f"one-hot GEMM W.T@X{floor_place}",
                compare_memory=False,
            ),
            Case(
                "predict_proba",
                on(lambda: ours.predict_proba(X)),
                their_proba,
                on(lambda: (X * X) @ A + X @ B),
                f"two GEMMs (X*X)@A + X@B{floor_place}",
                compare_memory=False,
            ),
        ]

    yield Dataset(
        f"GaussianNB {n:,}x{d}, {k} classes, {label}",
        on(lambda: X.sum()),
        gaussian_cases(
            on(lambda: sk.GaussianNB().fit(X, y_device)), on(lambda: theirs.predict_proba(X))
        ),
        rival=f"scikit-learn array API ({label})",
        notes=[f"nbayes and scikit-learn both on {label} arrays, dispatch on."],
    )
    yield Dataset(
        f"MultinomialNB {n:,}x{d} counts, {k} classes, {label}",
        on(lambda: counts.sum()),
        [
            Case(
                "fit",
                fit_multinomial,
                lambda: sk.MultinomialNB().fit(counts_host, y),
                gemm_counts,
                "one-hot GEMM W.T@X",
                compare_memory=False,
                same_result=False,
            ),
            Case(
                "predict_proba",
                on(lambda: ours_counts.predict_proba(counts)),
                lambda: host_counts.predict_proba(counts_host),
                on(lambda: counts @ A),
                "one GEMM X@A",
                compare_memory=False,
                same_result=False,
            ),
        ],
        rival="scikit-learn on NumPy (host)",
        notes=[f"nbayes on {label} arrays; scikit-learn's MultinomialNB on the host copy."],
    )
    if _device() == "cpu":
        yield Dataset(
            f"GaussianNB {n:,}x{d}, {k} classes, nbayes torch CPU against nbayes NumPy",
            X_host.sum,
            gaussian_cases(
                lambda: nbayes.GaussianNB().fit(X_host, y),
                lambda: host_gaussian.predict_proba(X_host),
                " (torch)",
            ),
            rival="nbayes NumPy path",
        )
    cuml = _module("cuml") if xp.__name__ == "cupy" else None
    if cuml is not None:
        from cuml import naive_bayes as cu

        yield Dataset(
            f"GaussianNB and MultinomialNB {n:,}x{d}, {k} classes, cupy against cuML",
            on(lambda: X.sum()),
            [
                Case(
                    f"{name} fit",
                    ours_fit,
                    on(lambda model=model, values=values: model().fit(values, y_device)),
                    floor,
                    "one-hot GEMM W.T@X",
                    compare_memory=False,
                    same_result=False,
                )
                for name, ours_fit, model, values, floor in [
                    ("GaussianNB", fit_gaussian, cu.GaussianNB, X, gemm_gaussian),
                    ("MultinomialNB", fit_multinomial, cu.MultinomialNB, counts, gemm_counts),
                ]
            ],
            rival="cuML",
        )
