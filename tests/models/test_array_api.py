"""Array API dispatch: the dense models trained and scored on PyTorch, array-api-strict
(and CuPy, CUDA where present) arrays agree with NumPy's, and stay in the input's
namespace and on its device.

``SCIPY_ARRAY_API=1`` is set by ``tests/conftest.py`` (scikit-learn's dispatch needs it).
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils._array_api import _convert_to_numpy, get_namespace
from sklearn.utils._array_api import device as device_of

import nbayes
from nbayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    ExponentialNB,
    GaussianNB,
    KernelDensityNB,
    MultinomialNB,
    PoissonNB,
)
from nbayes.errors import NotSupportedError

#: The models that run on any array namespace, with data they accept (n_classes = 3).
MODELS = {
    "GaussianNB": (GaussianNB, "normal"),
    "MultinomialNB": (MultinomialNB, "counts"),
    "BernoulliNB": (BernoulliNB, "counts"),
    "ComplementNB": (ComplementNB, "counts"),
    "CategoricalNB": (CategoricalNB, "codes"),
    "PoissonNB": (PoissonNB, "counts"),
    "ExponentialNB": (ExponentialNB, "positive"),
}


def _namespace(name: str):
    """``(xp, device)``: the array module and device of a namespace name; skips where
    it is not installed, or its device is absent (CUDA)."""
    module, _, device = name.partition(":")
    xp = pytest.importorskip(module)
    if module == "torch":
        if device == "cuda" and not xp.cuda.is_available():
            pytest.skip("no CUDA device: torch on CUDA not checked")
        return xp, xp.device(device or "cpu")
    if module == "cupy":
        try:
            xp.cuda.runtime.getDeviceCount()
        except Exception:  # cupy without a usable GPU
            pytest.skip("no CUDA device: cupy not checked")
    return xp, None


NAMESPACES = ["numpy", "array_api_strict", "torch", "torch:cuda", "cupy"]


def _data(kind: str, n: int = 240, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    if kind == "normal":
        X = rng.normal(y[:, None] * [1.0, -0.5, 0.2, 2.0], 1.0 + 0.3 * y[:, None])
    elif kind == "counts":
        X = rng.poisson(1.0 + y[:, None] * [0.5, 1.0, 0.0, 2.0]).astype(float)
    elif kind == "codes":
        X = np.minimum(rng.poisson(1.0 + y[:, None] * [0.5, 1.0, 0.0, 2.0]), 4)
    else:
        X = rng.exponential(1.0 + y[:, None] * [0.5, 1.0, 0.1, 2.0])
    return X, y


def _on(xp, device, X):
    return xp.asarray(X, device=device) if device is not None else xp.asarray(X)


def _host(array):
    with sklearn.config_context(array_api_dispatch=True):
        return _convert_to_numpy(array, get_namespace(array)[0])


def _same_place(output, X) -> None:
    """``output`` is an array of X's namespace on X's device."""
    with sklearn.config_context(array_api_dispatch=True):
        assert get_namespace(output)[0] is get_namespace(X)[0]
        assert device_of(output) == device_of(X)


@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_predictions_match_numpy_and_stay_on_the_device(name, namespace):
    """fit / partial_fit in chunks / every prediction method on the namespace give
    NumPy's values (1e-6, float64) as arrays of that namespace, on its device."""
    cls, kind = MODELS[name]
    xp, device = _namespace(namespace)
    X, y = _data(kind)
    weights = np.random.default_rng(1).uniform(0.5, 2.0, X.shape[0])
    reference = cls().fit(X, y, sample_weight=weights)
    X_xp = _on(xp, device, X)
    with sklearn.config_context(array_api_dispatch=True):
        model = cls().fit(X_xp, y, sample_weight=weights)
        chunked = cls()
        for rows in np.array_split(np.arange(X.shape[0]), 3):
            chunked.partial_fit(X_xp[rows[0] : rows[-1] + 1, :], y[rows], [0, 1, 2], weights[rows])
        for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
            expected = getattr(reference, method)(X)
            for fitted in (model, chunked):
                got = getattr(fitted, method)(X_xp)
                _same_place(got, X_xp)
                assert_allclose(_host(got), expected, rtol=1e-6, atol=1e-6 * np.abs(expected).max())
        predicted = model.predict(X_xp)
        if namespace != "numpy":
            _same_place(predicted, X_xp)
        assert_array_equal(_host(predicted), reference.predict(X))
        counts = model.class_count_
        _same_place(counts, X_xp)
    assert_allclose(_host(counts), reference.class_count_)
    assert model.__sklearn_tags__().array_api_support


@pytest.mark.parametrize("namespace", ["array_api_strict", "torch"])
def test_float32_stays_float32_where_scikit_learn_keeps_it(namespace):
    """GaussianNB keeps float32 X in float32 (fitted attributes and outputs), as
    scikit-learn's array-API GaussianNB; the count models compute in float64 where
    the device has it, as their NumPy path does."""
    xp, device = _namespace(namespace)
    X, y = _data("normal")
    X32 = _on(xp, device, X.astype(np.float32))
    with sklearn.config_context(array_api_dispatch=True):
        gaussian = GaussianNB().fit(X32, y)
        assert gaussian.theta_.dtype == X32.dtype
        assert gaussian.predict_proba(X32).dtype == X32.dtype
        counts = _on(xp, device, _data("counts")[0].astype(np.float32))
        multinomial = MultinomialNB().fit(counts, y)
        assert multinomial.predict_proba(counts).dtype == xp.float64
    expected = GaussianNB().fit(X.astype(np.float32), y).predict_proba(X.astype(np.float32))
    with sklearn.config_context(array_api_dispatch=True):
        assert_allclose(_host(gaussian.predict_proba(X32)), expected, atol=1e-4)


@pytest.mark.parametrize("namespace", ["array_api_strict", "torch"])
def test_a_device_model_saves_merges_and_explains_in_numpy(namespace, tmp_path):
    """Statistics trained on a device leave it as NumPy: a model file loaded in a fresh
    process, a merge of two device models, an explanation, the statistics read out."""
    xp, device = _namespace(namespace)
    X, y = _data("counts")
    half = X.shape[0] // 2
    with sklearn.config_context(array_api_dispatch=True):
        first = MultinomialNB().fit(_on(xp, device, X[:half]), y[:half])
        second = MultinomialNB().fit(_on(xp, device, X[half:]), y[half:])
        merged = nbayes.merge(first, second)
        first.save(tmp_path / "model.nbm")
        explanation = first.explain(_on(xp, device, X[0]))
    assert isinstance(first._stats.feature_count, np.ndarray)
    reference = MultinomialNB().fit(X, y)
    assert_allclose(merged.predict_proba(X), reference.predict_proba(X), rtol=1e-10)
    script = (
        "import sys, numpy as np, nbayes;"
        "m = nbayes.MultinomialNB.load(sys.argv[1]);"
        "print(float(m.predict_proba(np.array(eval(sys.argv[2])))[0, 0]))"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "model.nbm"), repr(X[:1].tolist())],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    expected = MultinomialNB().fit(X[:half], y[:half]).predict_proba(X[:1])[0, 0]
    assert float(run.stdout) == pytest.approx(expected, rel=1e-12)
    on_host = MultinomialNB().fit(X[:half], y[:half]).explain(X[0])
    assert_allclose(explanation.posterior, on_host.posterior, rtol=1e-10)
    assert explanation.predicted == on_host.predicted


def test_models_without_array_support_refuse_with_a_clear_error():
    """A model that runs on NumPy only says so (and how to go on) under dispatch, and
    does not declare the tag."""
    strict = pytest.importorskip("array_api_strict")
    X, y = _data("normal")
    assert not KernelDensityNB().__sklearn_tags__().array_api_support
    with sklearn.config_context(array_api_dispatch=True):
        with pytest.raises(NotSupportedError, match="NumPy arrays only"):
            KernelDensityNB().fit(strict.asarray(X), y)


def test_numpy_input_under_dispatch_takes_the_numpy_path():
    """NumPy input gives the same NumPy results with dispatch on as off."""
    X, y = _data("counts")
    expected = MultinomialNB().fit(X, y).predict_proba(X)
    with sklearn.config_context(array_api_dispatch=True):
        got = MultinomialNB().fit(X, y).predict_proba(X)
    assert isinstance(got, np.ndarray)
    assert_array_equal(got, expected)


def test_namespace_helpers_import_without_optional_packages():
    """The core namespace helpers need neither torch nor array-api-strict."""
    module = importlib.import_module("nbayes.core.namespace")
    assert module.namespace_of(np.zeros(2)) is np
