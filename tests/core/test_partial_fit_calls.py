"""Repeated ``partial_fit`` calls: a later batch that needs no conversion is checked by
``nbayes.core.quick_check.quick_check_X_y`` instead of scikit-learn's ``validate_data`` (the
errors it must still raise are in ``test_errors.py``); every other batch goes the full
way. Either way the model is the one ``fit`` gives on all the rows."""

from __future__ import annotations

import os
import signal
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as sk

import nbayes
from nbayes.core import base as _base
from nbayes.core import parallel as _parallel
from nbayes.core import validation as _validate

MODELS = ["GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]


def data(model: str, n: int = 240, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    if model == "GaussianNB":  # values float32 holds exactly: one batch comes as float32
        return (rng.normal(size=(n, 6)) + y[:, None]).astype(np.float32).astype(np.float64), y
    if model == "CategoricalNB":
        return rng.integers(0, 5, size=(n, 6)), y
    return rng.poisson(1.0 + y[:, None], size=(n, 6)).astype(np.float64), y


@pytest.fixture
def validate_data_calls(monkeypatch):
    """The number of ``validate_data`` calls training has made so far."""
    calls = []
    original = _base.validate_data

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_base, "validate_data", counting)
    return calls


@pytest.mark.parametrize("model", MODELS)
def test_later_plain_batches_skip_validate_data(model, validate_data_calls):
    X, y = data(model)
    fitted = getattr(nbayes, model)().partial_fit(X[:60], y[:60], classes=np.arange(4))
    assert len(validate_data_calls) == 1  # the first call: full validation, sets the width
    fitted.partial_fit(X[60:120], y[60:120])
    if model not in ("GaussianNB", "CategoricalNB"):
        fitted.partial_fit(sp.csr_matrix(X[120:180]), y[120:180])
    assert len(validate_data_calls) == 1  # plain ndarray / CSR batches: the quick check
    fitted.partial_fit(X[180:].tolist(), y[180:].tolist())  # lists: converted, full way
    assert len(validate_data_calls) == 2


def batch_forms(model: str, X, y):
    """The rows of X, y in consecutive batches, each in a different form."""
    parts = np.array_split(np.arange(X.shape[0]), 8)
    forms = [
        lambda X, y: (X, y),
        lambda X, y: (X.tolist(), y.tolist()),  # converted: full validation
        lambda X, y: (np.asfortranarray(X), y),
        lambda X, y: (X, np.repeat(y, 2)[::2]),  # y not contiguous: full validation
        lambda X, y: (X, y.astype(np.int8)),
        lambda X, y: (X, y.astype(np.float64)),  # float labels: finite, so quick
        lambda X, y: (X.astype(np.float32) if model == "GaussianNB" else X, y),
        lambda X, y: (
            (X.astype(np.int32) if model == "CategoricalNB" else sp.csr_matrix(X), y)
            if model != "GaussianNB"
            else (X, y)
        ),
    ]
    return [form(X[rows], y[rows]) for form, rows in zip(forms, parts, strict=True)]


@pytest.mark.parametrize("model", MODELS)
def test_batches_of_any_form_give_the_fitted_model(model):
    X, y = data(model)
    Model = getattr(nbayes, model)
    streamed = Model()
    for X_batch, y_batch in batch_forms(model, X, y):
        streamed.partial_fit(X_batch, y_batch, classes=np.arange(4))
    whole = Model().fit(X, y)
    np.testing.assert_allclose(streamed.class_count_, whole.class_count_, rtol=0, atol=0)
    np.testing.assert_allclose(
        streamed.predict_log_proba(X), whole.predict_log_proba(X), rtol=1e-11, atol=1e-11
    )
    theirs = getattr(sk, model)().fit(X, y)
    np.testing.assert_allclose(
        streamed.predict_log_proba(X), theirs.predict_log_proba(X), rtol=1e-9, atol=1e-9
    )


@pytest.mark.parametrize("model", ["GaussianNB", "MultinomialNB"])
def test_model_fitted_with_feature_names_still_warns_on_a_plain_batch(model):
    """The quick check is only for models fitted without feature names: a plain array
    after a DataFrame gets scikit-learn's warning, as from scikit-learn's own model."""
    pd = pytest.importorskip("pandas")
    X, y = data(model)
    frame = pd.DataFrame(X[:100], columns=[f"f{j}" for j in range(X.shape[1])])
    for Model in (getattr(nbayes, model), getattr(sk, model)):
        fitted = Model().partial_fit(frame, y[:100], classes=np.arange(4))
        with pytest.warns(UserWarning, match="X does not have valid feature names"):
            fitted.partial_fit(X[100:], y[100:])


def test_blocks_run_in_order_and_errors_reach_the_caller():
    seen = _parallel.map_blocks(lambda i: i * i, list(range(50)))
    assert seen == [i * i for i in range(50)]

    def fails_on_7(i):
        if i == 7:
            raise ArithmeticError("block 7")
        return i

    threads_before = _parallel.n_workers()
    with pytest.raises(ArithmeticError, match="block 7"):
        _parallel.map_blocks(fails_on_7, list(range(20)))
    assert _parallel.n_workers() == threads_before  # BLAS threads restored

    ran = []

    def fails_first(i):
        ran.append(i)
        if i == 0:
            raise ArithmeticError("block 0")
        time.sleep(0.001)

    with pytest.raises(ArithmeticError, match="block 0"):
        _parallel.map_blocks(fails_first, list(range(1000)))
    assert len(ran) < 100  # after an error no thread takes another block
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _parallel.map_blocks(str, [1]) == ["1"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_kept_pools_start_afresh_in_a_forked_child():
    """A kept pool used before ``fork`` has no thread in the child (work queued to it
    would never run); the child gets a pool of its own and its work runs."""
    _parallel.kept_executor("text", 1).submit(int).result()  # the parent's thread runs
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if the pool's work ran
        code = 1
        try:
            signal.alarm(20)  # a hang ends the child, which the parent sees as a failure
            code = 0 if _parallel.kept_executor("text", 1).submit(int, "7").result() == 7 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_labels_zero_to_k_minus_one_are_their_own_index():
    """Classes ``0 .. k-1`` and ``np.intp`` labels: ``label_index`` hands back y itself;
    a label outside the classes still raises, other dtypes and classes are mapped."""
    y = np.array([3, 0, 2, 2, 1], dtype=np.intp)
    assert _validate.label_index(y, np.arange(4)) is y
    np.testing.assert_array_equal(_validate.label_index(y.astype(np.int32), np.arange(4)), y)
    np.testing.assert_array_equal(_validate.label_index(y + 5, np.arange(5, 9)), y)
    np.testing.assert_array_equal(_validate.label_index(y, np.array([0, 1, 2, 3, 7])), y)
    for bad in ([4], [-1]):
        with pytest.raises(ValueError, match="do not exist in the initial classes"):
            _validate.label_index(np.array(bad, dtype=np.intp), np.arange(4))


def test_classes_on_later_calls_are_checked_against_the_first():
    """The same array (the quick element-wise test), a permutation or a list of them
    (sorted first) pass; different classes raise, as before."""
    X, y = data("GaussianNB")
    model = nbayes.GaussianNB().partial_fit(X[:60], y[:60], classes=np.arange(4))
    model.partial_fit(X[60:120], y[60:120], classes=np.arange(4))
    model.partial_fit(X[120:180], y[120:180], classes=[3, 1, 0, 2])
    model.partial_fit(X[180:], y[180:], classes=np.arange(4).astype(np.int32))
    for other in (np.arange(5), np.array([0, 1, 2, 5]), [0, 1, 2]):
        with pytest.raises(ValueError, match="is not the same as on last call"):
            model.partial_fit(X[:10], y[:10], classes=other)
    np.testing.assert_array_equal(model.class_count_, nbayes.GaussianNB().fit(X, y).class_count_)
