"""nbayes on Dask: fit/partial_fit on a real two-process LocalCluster equal the
in-memory fit; predictions are lazy and equal; failures are clear.

Expected values always come from the in-memory estimator on the same (concatenated)
data, never from the code under test.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from fractions import Fraction

import cloudpickle
import numpy as np
import pandas as pd
import pytest
from conftest import DATA, require_path

import nbayes

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
db = pytest.importorskip("dask.bag")
distributed = pytest.importorskip("distributed")
nbd = pytest.importorskip("nbayes.dask")

# Helpers below run on the worker processes: ship them by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

ROW_CHUNKS = (120, 0, 97, 150, 0, 33)  # uneven, with empty partitions
N_ROWS = sum(ROW_CHUNKS)
RARE_CLASS_ROWS = slice(220, 230)  # all inside the fourth chunk (rows 217..366)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with distributed.Client(cluster) as client:
        yield client
    try:
        cluster.close()
    except KeyError:
        # distributed's LocalCluster can race at close with a worker that a test killed
        # and its nanny is restarting (KeyError on the worker's address in
        # _watch_worker_status): the tests are over by then, nothing is left to check.
        pass


def _data(kind: str, seed: int = 0, offset: float = 0.0):
    """X (N_ROWS, 5) suited to the model, labels 0..2 plus class 7 in one chunk only."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, N_ROWS)
    y[RARE_CLASS_ROWS] = 7
    shape = (N_ROWS, 5)
    if kind == "gaussian":
        X = rng.normal(loc=3.0 * y[:, None], scale=1.0 + y[:, None], size=shape) + offset
    elif kind == "counts":
        X = rng.poisson(1.0 + y[:, None], size=shape).astype(float)
    elif kind == "binary":
        X = (rng.random(shape) < 0.3 + 0.05 * (y[:, None] % 5)).astype(float)
    else:
        X = rng.integers(0, 4, size=shape) + (y[:, None] == 7)
    weights = rng.integers(1, 4, N_ROWS).astype(float)  # integer: counts stay exact
    return X, y, weights


MODELS = {
    "gaussian": lambda: nbayes.GaussianNB(),
    "gaussian_ddof1": lambda: nbayes.GaussianNB(ddof=1),
    "multinomial": lambda: nbayes.MultinomialNB(alpha=0.5),
    "complement": lambda: nbayes.ComplementNB(norm=True),
    "bernoulli": lambda: nbayes.BernoulliNB(),
    "categorical": lambda: nbayes.CategoricalNB(),
}
DATA_KIND = {
    "gaussian": "gaussian",
    "gaussian_ddof1": "gaussian",
    "multinomial": "counts",
    "complement": "counts",
    "bernoulli": "binary",
    "categorical": "codes",
}


def _as_dask(X, y, weights):
    chunks = (ROW_CHUNKS, (2, 3))  # columns split too: summarised as whole rows
    return (
        da.from_array(X, chunks=chunks),
        da.from_array(y, chunks=50),  # other row chunks: aligned to X's
        da.from_array(weights, chunks=(ROW_CHUNKS,)),
    )


def _statistics(model) -> dict[str, object]:
    """The fitted statistics of any of the five models, by name."""
    names = ["class_count_", "feature_count_", "category_count_", "theta_", "var_"]
    found = {}
    for name in names:
        try:
            found[name] = getattr(model, name)
        except AttributeError:
            continue
    return found


def _assert_same_model(got, expected, X) -> None:
    np.testing.assert_array_equal(got.classes_, expected.classes_)
    assert got.n_features_in_ == expected.n_features_in_
    expected_stats = _statistics(expected)
    got_stats = _statistics(got)
    assert got_stats.keys() == expected_stats.keys()
    for name, value in expected_stats.items():
        if name in ("theta_", "var_"):  # Chan-pooled moments: rounding only
            np.testing.assert_allclose(got_stats[name], value, rtol=1e-12, err_msg=name)
        elif name == "category_count_":
            for got_j, expected_j in zip(got_stats[name], value, strict=True):
                np.testing.assert_array_equal(got_j, expected_j)
        else:  # counts: exact
            np.testing.assert_array_equal(got_stats[name], value, err_msg=name)
    np.testing.assert_array_equal(got.predict(X), expected.predict(X))
    np.testing.assert_allclose(got.predict_proba(X), expected.predict_proba(X), atol=1e-10)


@pytest.mark.parametrize("name", list(MODELS))
def test_fit_equals_in_memory_fit(client, name):
    X, y, weights = _data(DATA_KIND[name])
    dX, dy, dw = _as_dask(X, y, weights)
    estimator = MODELS[name]()
    returned = nbd.fit(estimator, dX, dy, sample_weight=dw)
    assert returned is estimator
    expected = MODELS[name]().fit(X, y, sample_weight=weights)
    _assert_same_model(estimator, expected, X)
    assert 7 in estimator.classes_  # seen in one partition only
    np.testing.assert_array_equal(
        estimator.class_count_[estimator.classes_ == 7], [weights[RARE_CLASS_ROWS].sum()]
    )


@pytest.mark.parametrize("name", ["gaussian", "multinomial", "categorical"])
def test_predictions_are_lazy_and_equal(client, name):
    X, y, weights = _data(DATA_KIND[name], seed=1)
    dX, dy, _ = _as_dask(X, y, weights)
    model = nbd.fit(MODELS[name](), dX, dy)
    labels = nbd.predict(model, dX)
    proba = nbd.predict_proba(model, dX)
    log_proba = nbd.predict_log_proba(model, dX)
    for lazy in (labels, proba, log_proba):
        assert isinstance(lazy, da.Array)
        assert lazy.numblocks[0] == len(ROW_CHUNKS)
    assert proba.shape == (N_ROWS, len(model.classes_))
    np.testing.assert_array_equal(labels.compute(), model.predict(X))
    np.testing.assert_allclose(proba.compute(), model.predict_proba(X), rtol=1e-14)
    np.testing.assert_allclose(log_proba.compute(), model.predict_log_proba(X), rtol=1e-14)


def test_dataframe_with_string_labels_and_empty_partitions(client):
    X, y, weights = _data("gaussian", seed=2)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    frame["label"] = np.array(["ham", "spam", "eggs", "", "", "", "", "rare"])[y]
    frame["weight"] = weights
    lazy = dd.from_pandas(frame, npartitions=6)
    kept = lazy.map_partitions(lambda part: part[(part.index < 100) | (part.index >= 300)])
    kept_in_memory = frame[(frame.index < 100) | (frame.index >= 300)]
    features = list(frame.columns[:5])
    sizes = kept.map_partitions(len).compute().tolist()
    assert 0 in sizes and sum(sizes) == len(kept_in_memory) > 0

    model = nbd.fit(nbayes.GaussianNB(), kept[features], kept["label"], kept["weight"])
    expected = nbayes.GaussianNB().fit(
        kept_in_memory[features], kept_in_memory["label"], kept_in_memory["weight"]
    )
    _assert_same_model(model, expected, kept_in_memory[features])
    np.testing.assert_array_equal(model.feature_names_in_, features)

    # Mixed partitions (including empty ones) predicted lazily, as pandas objects.
    model = nbd.fit(nbayes.GaussianNB(), lazy[features], lazy["label"])
    expected = nbayes.GaussianNB().fit(frame[features], frame["label"])
    labels = nbd.predict(model, kept[features])
    proba = nbd.predict_proba(model, kept[features])
    assert isinstance(labels, dd.Series) and isinstance(proba, dd.DataFrame)
    np.testing.assert_array_equal(
        labels.compute().to_numpy(), expected.predict(kept_in_memory[features])
    )
    got = proba.compute()
    assert list(got.columns) == list(expected.classes_)
    np.testing.assert_allclose(
        got.to_numpy(), expected.predict_proba(kept_in_memory[features]), atol=1e-12
    )


def test_aode_and_tan_on_a_dataframe(client):
    """Pairwise statistics with per-partition vocabularies tree-reduce like the rest."""
    rng = np.random.default_rng(8)
    a = rng.choice(["x", "y", "z"], N_ROWS)
    frame = pd.DataFrame(
        {
            "a": a,
            "b": np.where(rng.random(N_ROWS) < 0.8, a, "w"),
            "c": rng.choice(["p", "q"], N_ROWS),
        }
    )
    frame["label"] = np.where(rng.random(N_ROWS) < 0.7, frame["a"] == "x", rng.random(N_ROWS) < 0.5)
    lazy = dd.from_pandas(frame, npartitions=4)
    columns = ["a", "b", "c"]
    for Model in (nbayes.AODE, nbayes.TAN):
        model = nbd.fit(Model(), lazy[columns], lazy["label"])
        expected = Model().fit(frame[columns], frame["label"])
        np.testing.assert_allclose(
            model.predict_proba(frame[columns]), expected.predict_proba(frame[columns]), atol=1e-12
        )


def test_mixed_naive_bayes_on_a_dataframe(client):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "height": rng.normal(170.0, 10.0, N_ROWS),
            "colour": rng.choice(["red", "green", "blue"], N_ROWS),
            "flag": rng.random(N_ROWS) < 0.3,
        }
    )
    frame.loc[rng.random(N_ROWS) < 0.1, "height"] = np.nan
    frame["label"] = rng.choice(["a", "b", "c"], N_ROWS)
    frame.loc[250:259, "label"] = "rare"
    lazy = dd.from_pandas(frame, npartitions=5)
    columns = ["height", "colour", "flag"]
    model = nbd.fit(nbayes.NaiveBayes(), lazy[columns], lazy["label"])
    expected = nbayes.NaiveBayes().fit(frame[columns], frame["label"])
    np.testing.assert_array_equal(model.classes_, expected.classes_)
    np.testing.assert_array_equal(model.class_count_, expected.class_count_)
    np.testing.assert_allclose(
        nbd.predict_proba(model, lazy[columns]).compute().to_numpy(),
        expected.predict_proba(frame[columns]),
        atol=1e-12,
    )


def test_partial_fit_equals_fit_on_the_union(client):
    X, y, weights = _data("counts", seed=3)
    dX, dy, dw = _as_dask(X, y, weights)
    classes = [0, 1, 2, 7]
    model = nbayes.MultinomialNB()
    with pytest.raises(ValueError, match="classes must be passed"):
        nbd.partial_fit(model, dX, dy)
    nbd.partial_fit(model, dX[:200], dy[:200], classes=classes, sample_weight=dw[:200])
    nbd.partial_fit(model, dX[200:], dy[200:], sample_weight=dw[200:])
    expected = nbayes.MultinomialNB().fit(X, y, sample_weight=weights)
    _assert_same_model(model, expected, X)

    before = model.feature_count_
    with pytest.raises(ValueError, match="not the same as on last call"):
        nbd.partial_fit(model, dX, dy, classes=[0, 1])
    with pytest.raises(ValueError, match="X has 4 features"):
        nbd.partial_fit(model, dX[:, :4], dy)
    with pytest.raises(ValueError, match=r"partition \d+ .*\[99\]"):
        nbd.partial_fit(model, dX, dy.map_blocks(lambda b: np.where(b == 7, 99, b)))
    np.testing.assert_array_equal(model.feature_count_, before)  # errors change nothing


def test_bad_input_is_named(client):
    X, y, _ = _data("gaussian")
    dX, dy, _ = _as_dask(X, y, np.ones(N_ROWS))
    model = nbayes.GaussianNB()
    with pytest.raises(TypeError, match="X must be a dask array"):
        nbd.fit(model, X, dy)
    with pytest.raises(ValueError, match="X has 400 rows but y has 399"):
        nbd.fit(model, dX, dy[1:])
    with pytest.raises(ValueError, match="every partition of X is empty"):
        nbd.fit(model, dX[:0], dy[:0])
    with pytest.raises(ValueError, match=r"partition \d .*inconsistent numbers of samples"):
        frame = dd.from_pandas(pd.DataFrame(X), npartitions=2)
        nbd.fit(model, frame, dd.from_pandas(pd.Series(y[:-5]), npartitions=2))
    with pytest.raises(ValueError, match=r"partition 3 .*NaN"):
        nbd.fit(model, da.where(da.arange(N_ROWS)[:, None] == 300, np.nan, dX), dy)
    assert not hasattr(model, "classes_")


def test_pooled_moments_on_ill_conditioned_data_against_exact_values(client):
    """Means 1e6 standard deviations from zero: the partitions' moments pooled with
    Chan's formula stay within ``eps * |mean| / std`` of the exact (rational) values."""
    X, y, _ = _data("gaussian", seed=6, offset=1e6)
    dX, dy, _ = _as_dask(X, y, np.ones(N_ROWS))
    model = nbd.fit(nbayes.GaussianNB(), dX, dy)
    for index, label in enumerate(model.classes_):
        for j in range(X.shape[1]):
            values = [Fraction(value) for value in X[y == label, j]]
            mean = sum(values) / len(values)
            variance = sum((value - mean) ** 2 for value in values) / len(values)
            condition = abs(float(mean)) / float(variance) ** 0.5
            bound = 4 * np.finfo(float).eps * condition
            assert abs(model.theta_[index, j] - float(mean)) <= bound * abs(float(mean))
            pooled = model.var_[index, j] - model.epsilon_
            assert abs(pooled - float(variance)) <= bound * float(variance)


# ------------------------------------------------------------------ text
SYNTHETIC_DOCUMENTS = [
    ("win cash now", "spam"),
    ("cash prize win win", "spam"),
    ("lunch at noon", "ham"),
    ("see you at lunch", "ham"),
    ("", "ham"),
    ("free entry win a prize", "spam"),
    ("meeting moved to noon", "ham"),
]


def test_text_bag_and_series_equal_in_memory(client):
    documents, labels = (list(column) for column in zip(*SYNTHETIC_DOCUMENTS, strict=True))
    vectorizer = nbd.hashing_vectorizer(n_features=64)
    counts = vectorizer.transform(documents)
    expected = nbayes.MultinomialNB().fit(counts, labels)

    bag = db.from_sequence(documents, npartitions=3)
    model = nbd.fit(
        nbayes.MultinomialNB(), bag, db.from_sequence(labels, npartitions=3), vectorizer=vectorizer
    )
    np.testing.assert_array_equal(model.feature_count_, expected.feature_count_)
    predicted = nbd.predict(model, bag, vectorizer=vectorizer)
    assert isinstance(predicted, db.Bag)
    assert predicted.compute() == list(expected.predict(counts))

    series = dd.from_pandas(pd.Series(documents), npartitions=2)
    model = nbd.fit(
        nbayes.MultinomialNB(),
        series,
        dd.from_pandas(pd.Series(labels), npartitions=2),
        vectorizer=vectorizer,
    )
    np.testing.assert_array_equal(model.feature_count_, expected.feature_count_)
    np.testing.assert_allclose(
        nbd.predict_proba(model, series, vectorizer=vectorizer).compute().to_numpy(),
        expected.predict_proba(counts),
        rtol=1e-14,
    )


def test_sms_spam_collection_read_by_dask(client):
    path = require_path(DATA / "sms_spam_collection" / "SMSSpamCollection")
    lines = db.read_text(str(path), blocksize=100_000, encoding="utf-8")
    assert lines.npartitions > 1
    records = lines.map(lambda line: line.rstrip("\n").split("\t", 1))
    model = nbd.fit(
        nbayes.MultinomialNB(), records.pluck(1), records.pluck(0)
    )  # default hashing vectorizer

    with open(path, encoding="utf-8") as handle:
        rows = [line.rstrip("\n").split("\t", 1) for line in handle]
    labels = [label for label, _ in rows]
    counts = nbd.hashing_vectorizer().transform([text for _, text in rows])
    expected = nbayes.MultinomialNB().fit(counts, labels)
    np.testing.assert_array_equal(model.class_count_, [4827, 747])
    np.testing.assert_array_equal(model.feature_count_, expected.feature_count_)


# ------------------------------------------------------------------ failures
def _slowly(block, seconds=0.15):
    time.sleep(seconds)
    return block


def _exit_on_worker(block):
    os._exit(1)


def test_worker_killed_mid_fit_completes_by_retry(client):
    client.wait_for_workers(2, timeout=60)  # a clean cluster, whatever ran before
    X, y, _ = _data("gaussian", seed=4)
    dX = da.from_array(X, chunks=(40, 5)).map_blocks(_slowly, meta=np.empty((0, 0)))
    dy = da.from_array(y, chunks=40)
    result: dict[str, object] = {}

    def run():
        try:
            result["model"] = nbd.fit(nbayes.GaussianNB(), dX, dy)
        except Exception as exc:  # reported below
            result["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 20
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.02)
    victim = next(address for address, tasks in client.processing().items() if tasks)
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)
    thread.join(60)
    assert "error" not in result, result.get("error")
    expected = nbayes.GaussianNB().fit(X, y)
    _assert_same_model(result["model"], expected, X)
    client.wait_for_workers(2, timeout=60)


def test_worker_that_always_dies_gives_a_clear_error(client):
    client.wait_for_workers(2, timeout=60)
    X, y, _ = _data("gaussian", seed=5)
    dX = da.from_array(X, chunks=(200, 5)).map_blocks(_exit_on_worker, meta=np.empty((0, 0)))
    dy = da.from_array(y, chunks=200)
    scheduler = client.cluster.scheduler
    allowed, scheduler.allowed_failures = scheduler.allowed_failures, 0
    model = nbayes.GaussianNB()
    try:
        with pytest.raises(RuntimeError, match="worker died"):
            nbd.fit(model, dX, dy)
    finally:
        scheduler.allowed_failures = allowed
    assert not hasattr(model, "classes_")
    client.wait_for_workers(2, timeout=60)
