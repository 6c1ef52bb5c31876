"""The contract test matrix: every shared feature on every model of the registry.

Each estimator named in :data:`nbayes.core.registry.ESTIMATORS` is fitted on data its
event model accepts, and every feature the project promises is run on it: fit ==
chunked partial_fit == merge of parts, proper probabilities, sampling, the worked
explanation, informative features, the nomogram (or the documented
:class:`nbayes.NotSupportedError`), Dask, semi-supervised EM, calibration, and model
files loaded in a fresh Python process. A model added to the registry is covered
without touching this file.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

import nbayes
from nbayes.core.base import BaseNB
from nbayes.core.registry import DATACLASSES, ESTIMATORS, resolve
from nbayes.events._stats import Statistics
from nbayes.inspection.explain import most_informative_features
from nbayes.inspection.nomogram import nomogram_data

MODELS = sorted(ESTIMATORS)
N_ROWS = 120


def _labels(n: int, n_classes: int, rng) -> np.ndarray:
    return rng.integers(0, n_classes, n)


def example(name: str, n_classes: int = 3, seed: int = 0):
    """``(model, X, y)``: an unfitted estimator and data its event model accepts, with
    features that depend on the class. Tables for the models that take strings."""
    cls = resolve(ESTIMATORS, name)
    rng = np.random.default_rng(seed)
    y = _labels(N_ROWS, n_classes, rng)
    shift = y[:, None]
    counts = np.minimum(rng.poisson(1.0 + shift, size=(N_ROWS, 4)), 3)  # every value in every fold
    if cls().__sklearn_tags__().input_tags.string:
        height = rng.normal(170 + 5 * y, 6)
        height[::11] = np.nan  # missing values are skipped
        frame = pd.DataFrame(
            {
                "height": height,
                "visits": counts[:, 0],
                "colour": np.where(rng.random(N_ROWS) < 0.3 + 0.2 * (y == 1), "red", "blue"),
                "size": np.array(["S", "M", "L"])[(counts[:, 1] + y) % 3],
                "smoker": rng.random(N_ROWS) < 0.2 + 0.2 * (y == 2),
            }
        )
        if name in ("AODE", "TAN"):  # categorical data only
            frame = frame[["colour", "size"]].assign(visits=counts[:, 0] % 4)
        else:  # free text (a bag of words), inferred from its values
            frame["note"] = _notes(y, rng)
        return cls(), frame, y
    return cls(), counts, y


WORDS = (
    ("meeting", "report", "lunch", "office", "deadline", "budget"),
    ("prize", "winner", "cash", "claim", "offer", "free"),
    ("match", "goal", "team", "score", "coach", "season"),
)
COMMON = ("today", "please", "call", "later", "really", "thanks", "week", "maybe")


def _notes(y: np.ndarray, rng) -> np.ndarray:
    """A short message per row, its words mostly from its class's pool."""
    notes = []
    for label in y:
        pool = WORDS[label % len(WORDS)]
        words = [
            rng.choice(pool) if rng.random() < 0.6 else rng.choice(COMMON)
            for _ in range(rng.integers(4, 9))
        ]
        notes.append(" ".join(words))
    return np.array(notes, dtype=object)


def _rows(X, index):
    return X.iloc[index] if hasattr(X, "iloc") else X[index]


@pytest.fixture(scope="module", params=MODELS)
def fitted(request):
    model, X, y = example(request.param)
    return request.param, model.fit(X, y), X, y


# ---------------------------------------------------------------- the registry
def test_the_registry_names_every_estimator_and_statistics_type():
    """Walk the package: every public BaseNB subclass of a kind (one with an event
    model, not a base such as EstimatorNB) and every Statistics type is in the
    registry, under its own name, so files can name it in a fresh process."""
    found_estimators, found_stats = {}, {}
    for info in pkgutil.walk_packages(nbayes.__path__, "nbayes."):
        if ".cli" in info.name or ".spam" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if obj.__module__ != module.__name__:
                continue
            public = not obj.__name__.startswith("_")
            if issubclass(obj, BaseNB) and hasattr(obj, "kind") and public:
                found_estimators[obj.__name__] = obj
            if issubclass(obj, Statistics) and obj is not Statistics:
                found_stats[obj.__name__] = obj
    assert set(found_estimators) == set(ESTIMATORS)
    for name, cls in found_estimators.items():
        assert resolve(ESTIMATORS, name) is cls
    for name, cls in found_stats.items():
        assert resolve(DATACLASSES, name) is cls, name


def test_the_table_example_has_every_inferred_kind():
    model, X, y = example("NaiveBayes")
    kinds = model.fit(X, y).columns_
    assert set(kinds.values()) == {"gaussian", "categorical", "bernoulli", "text"}
    assert kinds["note"] == "text"


def test_every_estimator_is_a_public_name():
    assert set(ESTIMATORS) <= set(nbayes.__all__)


# ---------------------------------------------------------------- training
#: The models that declare scikit-learn's array API tag (derived from their event
#: model's contract: ``summarize_array`` and ``log_likelihood_array``).
ARRAY_API_MODELS = [
    name for name in MODELS if resolve(ESTIMATORS, name)().__sklearn_tags__().array_api_support
]


@pytest.mark.parametrize("name", ARRAY_API_MODELS)
def test_array_api_models_stay_in_the_input_namespace(name):
    """A model declaring the array API tag trains and predicts on array-api-strict
    arrays (the strictest namespace) under dispatch: outputs of that namespace, with
    NumPy's probabilities."""
    from sklearn import config_context
    from sklearn.utils._array_api import _convert_to_numpy, get_namespace

    strict = pytest.importorskip("array_api_strict")
    model, X, y = example(name)
    expected = clone(model).fit(X, y).predict_proba(X)
    with config_context(array_api_dispatch=True):
        X_strict = strict.asarray(X)
        model = clone(model).fit(X_strict, y)
        streamed = clone(model)
        for rows in np.array_split(np.arange(N_ROWS), 3):
            streamed.partial_fit(X_strict[rows[0] : rows[-1] + 1, :], y[rows], classes=[0, 1, 2])
        for fitted in (model, streamed):
            proba = fitted.predict_proba(X_strict)
            assert get_namespace(proba)[0] is strict
            assert_allclose(_convert_to_numpy(proba, strict), expected, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("name", MODELS)
def test_fit_equals_chunked_partial_fit_equals_merge(name):
    model, X, y = example(name)
    whole = clone(model).fit(X, y)
    streamed = clone(model)
    for rows in np.array_split(np.arange(N_ROWS), 3):
        streamed.partial_fit(_rows(X, rows), y[rows], classes=[0, 1, 2])
    half = N_ROWS // 2
    first = clone(model).fit(_rows(X, slice(0, half)), y[:half])
    second = clone(model).fit(_rows(X, slice(half, None)), y[half:])
    merged = nbayes.merge(first, second)
    expected = whole.predict_proba(X)
    assert_allclose(streamed.predict_proba(X), expected, rtol=1e-9, atol=1e-12)
    assert_allclose(merged.predict_proba(X), expected, rtol=1e-9, atol=1e-12)


def test_probabilities_are_proper(fitted):
    _, model, X, _ = fitted
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert_allclose(np.log(proba), model.predict_log_proba(X), rtol=1e-9, atol=1e-12)
    assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])


# ---------------------------------------------------------------- generation
def test_sample_draws_data_the_model_fits_again(fitted):
    _, model, X, _ = fitted
    X_new, y_new = model.sample(60, random_state=1)
    assert X_new.shape == (60, X.shape[1]) and y_new.shape == (60,)
    assert set(y_new) <= set(model.classes_)
    refit = clone(model).fit(X_new, y_new)
    assert np.isfinite(refit.predict_proba(X)).all()


# ---------------------------------------------------------------- explanations
def test_explain_is_the_worked_computation(fitted):
    """prior × factors = numerator, normalised = the model's posterior."""
    _, model, X, _ = fitted
    row = _rows(X, 0)
    explanation = model.explain(row.to_dict() if hasattr(row, "to_dict") else row)
    joint = model.predict_joint_log_proba(_rows(X, slice(0, 1)))[0]
    assert_allclose(explanation.log_joint, joint, rtol=1e-12)
    assert_allclose(explanation.posterior, model.predict_proba(_rows(X, slice(0, 1)))[0])
    rebuilt = explanation.log_prior + explanation.log_factors.sum(axis=1)
    assert_allclose(rebuilt, explanation.log_joint, rtol=1e-9, atol=1e-9)
    assert explanation.to_text() and json.dumps(explanation.to_dict())


def test_most_informative_features(fitted):
    _, model, X, _ = fitted
    ranked = most_informative_features(model, n=5)
    assert 1 <= len(ranked) <= 5
    ratios = [item.ratio for item in ranked]
    assert all(r >= 1.0 for r in ratios) and ratios == sorted(ratios, reverse=True)
    assert {item.index for item in ranked} <= set(range(X.shape[1]))


@pytest.mark.parametrize("name", MODELS)
def test_nomogram_points_add_up_to_the_log_odds_or_are_not_supported(name):
    model, X, y = example(name, n_classes=2)
    model.fit(X, y)
    row = _rows(X, 3)
    values = row.to_dict() if hasattr(row, "to_dict") else dict(enumerate(row))
    names = [str(n) for n in getattr(model, "feature_names_in_", [f"x{j}" for j in values])]
    given = {name: [value] for name, value in zip(names, values.values(), strict=True)}
    try:
        nomogram = nomogram_data(model, values=given)
    except nbayes.NotSupportedError as error:
        assert type(model).__name__ in str(error)
        return
    proba = model.predict_proba(_rows(X, slice(3, 4)))[0]
    observed = {n: v[0] for n, v in given.items() if not pd.isna(v[0])}
    assert nomogram.log_odds(observed) == pytest.approx(np.log(proba[1] / proba[0]), rel=1e-9)


# ---------------------------------------------------------------- scale
@pytest.mark.parametrize("name", MODELS)
def test_dask_fit_equals_in_memory_fit(name):
    dask = pytest.importorskip("dask")
    import dask.array as da
    import dask.dataframe as dd

    from nbayes import dask as nbayes_dask

    model, X, y = example(name)
    if hasattr(X, "iloc"):
        dX = dd.from_pandas(X, npartitions=3)
        dy = dd.from_pandas(pd.Series(y), npartitions=3)
    else:
        dX, dy = da.from_array(X, chunks=(40, -1)), da.from_array(y, chunks=40)
    with dask.config.set(scheduler="synchronous"):
        distributed = nbayes_dask.fit(clone(model), dX, dy)
    expected = clone(model).fit(X, y).predict_proba(X)
    assert_allclose(distributed.predict_proba(X), expected, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- meta-estimators
@pytest.mark.parametrize("name", MODELS)
def test_semi_supervised_em_runs_on_every_model(name):
    model, X, y = example(name)
    partial = y.astype(object)
    partial[::3] = -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence within the few iterations given
        em = nbayes.SemiSupervisedNB(model, max_iter=5).fit(X, partial)
    proba = em.predict_proba(X)
    assert np.isfinite(proba).all() and em.n_iter_ >= 1
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("name", MODELS)
def test_calibration_wraps_every_model(name):
    model, X, y = example(name)
    calibrated = nbayes.CalibratedNB(model, method="temperature", cv=3).fit(X, y)
    proba = calibrated.predict_proba(X)
    assert np.isfinite(proba).all()
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)


# ---------------------------------------------------------------- model files
LOADER = """
import sys, numpy as np, pandas as pd
import nbayes
from nbayes import _kernels
_kernels.SMALL_WORK = _kernels.LOAD_COST_S = 0  # as in the tests (a small exp: NumPy's)
out = {}
for name in sys.argv[2:]:
    model = nbayes.load(f"{sys.argv[1]}/{name}.nbm")
    data = np.load(f"{sys.argv[1]}/{name}.X.npz", allow_pickle=False)
    if "columns" in data:
        X = pd.DataFrame({c: data[c] for c in data["columns"]})
    elif "documents" in data:
        X = [str(document) for document in data["documents"]]
    else:
        X = data["X"]
    out[name] = model.predict_proba(X)
np.savez(f"{sys.argv[1]}/proba.npz", **out)
"""


def _composites():
    """``(name, unfitted model, X, y)`` for every composite a model file holds: EM and
    calibration around every estimator, the text classifier (plain and with EM), a
    scaler pipeline and a ColumnTransformer pipeline."""
    from composite_models import hide_labels, mixed_table, posts, reals
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from nbayes.text import make_text_classifier

    for name in MODELS:
        model, X, y = example(name)
        partial = y.astype(object)
        partial[::3] = -1
        yield f"em-{name}", nbayes.SemiSupervisedNB(model, max_iter=5), X, partial
        yield f"calibrated-{name}", nbayes.CalibratedNB(clone(model), cv=3), X, y
    X, y = reals()
    isotonic = nbayes.CalibratedNB(nbayes.GaussianNB(), method="isotonic", cv=3)
    yield "calibrated-isotonic", isotonic, X, y
    yield "scaler-pipeline", make_pipeline(StandardScaler(), nbayes.GaussianNB()), X, y
    table, y = mixed_table()
    frame = pd.DataFrame(table, columns=["x", "z", "colour", "size"]).infer_objects()
    columns = ColumnTransformer(
        [("num", StandardScaler(), ["x", "z"]), ("cat", OneHotEncoder(), ["colour", "size"])]
    )
    yield "column-pipeline", make_pipeline(columns, nbayes.GaussianNB()), frame, y
    documents, topics = posts(60, seed=0)
    yield "text-classifier", make_text_classifier(), documents, topics
    yield (
        "text-classifier-em",
        make_text_classifier(unlabeled_weight=0.3),
        documents,
        hide_labels(topics),
    )


def _save_input(path, X) -> None:
    """X for the loading process, in a file numpy reads without pickle."""
    if hasattr(X, "iloc"):
        columns = {
            c: X[c].to_numpy().astype(str) if X[c].dtype.kind not in "fiub" else X[c].to_numpy()
            for c in X.columns
        }
        np.savez(path, columns=np.array(list(X.columns)), **columns)
    elif isinstance(X, list):
        np.savez(path, documents=np.array(X))
    else:
        np.savez(path, X=X)


# ---------------------------------------------------------------- ONNX export
#: Registry models whose export is refused (NotSupportedError), with the reason; the
#: refusal itself is tested. Every other model must export with parity.
NOT_EXPORTED: dict[str, str] = {}
#: Settings a model exports under, where its example's defaults are refused (the
#: refusal of the defaults is tested too). None today: a text column's default "rich"
#: tokens export too (nbayes.export._tokens).
EXPORTED_WITH: dict[str, dict] = {}


def _with_gaps(X):
    """Held-out rows with missing values and, in tables, values never seen in training."""
    X = X.copy()
    if hasattr(X, "iloc"):
        for position, key in enumerate(X.columns):
            column, row = X[key], np.arange(len(X))
            if column.dtype.kind == "f":
                column = column.where(row % 7 != position, np.nan)
            elif column.dtype == object:  # strings: a missing and an unseen value
                column = column.where(row % 5 != position, None)
                column = column.where(row % 9 != position, "never-seen")
            X[key] = column
        return X
    return X


@pytest.mark.parametrize("name", MODELS)
def test_onnx_export_scores_as_nbayes_does(name):
    """The exported graph passes onnx.checker and onnxruntime gives nbayes's
    probabilities (1e-9 in float64, 1e-5 in float32) and labels on held-out rows with
    missing values and unseen categories; or the export is refused, documented."""
    import onnx
    import onnxruntime as ort

    from nbayes.export import onnx_feeds, to_onnx

    model, X, y = example(name)
    model.fit(X, y)
    if name in NOT_EXPORTED or name in EXPORTED_WITH:
        with pytest.raises(nbayes.NotSupportedError):
            to_onnx(model)
        if name in NOT_EXPORTED:
            return
        model = clone(model).set_params(**EXPORTED_WITH[name]).fit(X, y)
    held_out = _with_gaps(example(name, seed=1)[1])
    expected = model.predict_proba(held_out)
    labels = model.predict(held_out)
    for dtype, tolerance in ((np.float64, 1e-9), (np.float32, 1e-5)):
        graph = to_onnx(model, dtype=dtype)
        onnx.checker.check_model(graph, full_check=True)
        session = ort.InferenceSession(
            graph.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        label, proba = session.run(None, onnx_feeds(graph, held_out))
        assert proba.dtype == dtype
        assert_allclose(proba, expected, rtol=0, atol=tolerance)
        top_two = np.sort(expected, axis=1)[:, -2:]
        clear = top_two[:, 1] - top_two[:, 0] > 4 * tolerance  # no near-tie
        assert_array_equal(label[clear], labels[clear].astype(label.dtype))


def test_model_files_load_in_a_fresh_process(tmp_path):
    """Every model, and every composite around it (EM, calibration, the text
    classifier, scikit-learn pipelines), saved here and loaded by a new Python process
    that imports only nbayes (and pandas for tables), predicts the same probabilities,
    bit for bit. One process loads them all, to keep the suite fast."""
    pytest.importorskip("numba")  # the text classifier
    entries = [(name, *example(name)) for name in MODELS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # EM's convergence within the few iterations given
        entries += [(name, model.fit(X, y), X, y) for name, model, X, y in _composites()]
    expected = {}
    for name, model, X, y in entries:
        if name in MODELS:
            model.fit(X, y)
        nbayes.save(model, tmp_path / f"{name}.nbm")
        _save_input(tmp_path / f"{name}.X.npz", X)
        expected[name] = model.predict_proba(X)
    names = [name for name, *_ in entries]
    run = subprocess.run(
        [sys.executable, "-c", LOADER, str(tmp_path), *names], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    with np.load(tmp_path / "proba.npz") as got:
        assert sorted(got.files) == sorted(names)
        for name in names:
            assert_array_equal(got[name], expected[name], err_msg=name)
