"""ONNX export (:mod:`nbayes.export`): onnxruntime scores as nbayes does on the cases
where the maths has edges (infinite weights, point masses, rows impossible under
every class, classes of prior 0), in float64 and float32, at the oldest opset, and in
a fresh process that imports only onnxruntime and numpy. The contract matrix
(tests/contract/test_every_model.py) runs the export on every registered model."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import onnx
import onnxruntime as ort
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.feature_extraction.text import CountVectorizer as SkCountVectorizer
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

import nbayes
from nbayes import text
from nbayes.export import onnx_feeds, to_onnx


def _score(model, X, dtype=np.float64, opset=None):
    graph = to_onnx(model, dtype=dtype, opset=opset)
    onnx.checker.check_model(graph, full_check=True)
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, onnx_feeds(graph, X))


def _assert_scores_alike(model, X, dtype=np.float64, opset=None):
    label, proba = _score(model, X, dtype, opset)
    tolerance = 1e-9 if dtype == np.float64 else 1e-5
    assert_allclose(proba, model.predict_proba(X), rtol=0, atol=tolerance)
    assert_array_equal(label, model.predict(X).astype(label.dtype))
    return label, proba


@pytest.fixture(scope="module")
def counts():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 150)
    X = np.minimum(rng.poisson(0.5 + y[:, None], size=(150, 6)), 4).astype(float)
    X[y == 0, 5] = 0.0  # a feature class 0 never shows: -inf weights when unsmoothed
    return X, y


@pytest.mark.parametrize(
    "model",
    [
        nbayes.MultinomialNB(alpha=0.0, force_alpha=True),
        nbayes.BernoulliNB(alpha=0.0, force_alpha=True),
        nbayes.CategoricalNB(alpha=0.0, force_alpha=True),
        nbayes.ComplementNB(norm=True),
        nbayes.BernoulliNB(binarize=1.5),
        nbayes.CategoricalNB(handle_unknown="smooth", min_categories=6),
    ],
    ids=lambda m: repr(m),
)
def test_unsmoothed_and_variant_discrete_models(model, counts):
    """Infinite weights count only where their event occurs (0 * inf = 0); rows
    impossible under every class take the prior, as nbayes's posterior does."""
    X, y = counts
    model.fit(X, y)
    _, proba = _assert_scores_alike(model, X)
    _assert_scores_alike(model, X, np.float32)
    if model.get_params().get("alpha") == 0.0:
        assert np.any(proba == 0.0)  # the edge was reached


def test_exponential_point_masses_and_zero_rates():
    """A column of zeros in one class is a point mass there (+inf at 0, impossible
    above); a column of zeros everywhere cancels."""
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 30)
    X = rng.exponential(1.0 + y[:, None], size=(60, 3))
    X[y == 0, 1] = 0.0
    X[:, 2] = 0.0
    model = nbayes.ExponentialNB().fit(X, y)
    test = np.vstack([X[:5], X[-5:], [[0.5, 0.0, 0.0], [0.5, 2.0, 0.0], [0.5, 0.0, 1.0]]])
    test[3, 0] = np.nan
    _assert_scores_alike(model, test)


def test_degenerate_rows_and_classes_of_prior_zero():
    """A row far from every Gaussian (every class -inf) gets the prior; a class whose
    prior is 0 never wins."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 90)
    X = rng.normal(y[:, None], 1.0, size=(90, 2))
    model = nbayes.GaussianNB(var_smoothing=0.0, priors=[0.5, 0.5, 0.0]).fit(X, y)
    test = np.vstack([X[:10], [[1e200, -1e200], [3.0, 3.0]]])
    label, proba = _assert_scores_alike(model, test)
    assert np.all(proba[:, 2] == 0.0) and np.all(label != 2)


def test_string_labels_float32_and_the_oldest_opset():
    rng = np.random.default_rng(6)
    y = np.array(["ham", "spam", "eggs"])[rng.integers(0, 3, 80)]
    X = rng.poisson(2.0, size=(80, 4)).astype(float)
    model = nbayes.PoissonNB().fit(X, y)
    label, _ = _assert_scores_alike(model, X, opset=13)
    assert label.dtype == object and set(label) <= set(y)
    _assert_scores_alike(model, X, np.float32, opset=13)


def test_a_mixed_table_with_strings_missing_values_and_unseen_categories():
    rng = np.random.default_rng(7)
    n = 240
    y = rng.integers(0, 2, n)
    table = pd.DataFrame(
        {
            "age": rng.normal(40 + 5 * y, 8),
            "visits": rng.poisson(1 + y).astype(float),
            "city": np.array(["Oslo", "Lima", "Pune"])[rng.integers(0, 3, n)],
            "plan": np.where(rng.random(n) < 0.3 + 0.4 * y, "gold", "basic"),
        }
    )
    model = nbayes.NaiveBayes(columns={"visits": "poisson"}, handle_unknown="smooth")
    model.fit(table[:200], y[:200])
    test = table[200:].copy()
    test.loc[test.index[:5], "age"] = np.nan
    test.loc[test.index[5:10], "city"] = None
    test.loc[test.index[10:15], "city"] = "Quito"  # never seen
    test.loc[test.index[15], ["age", "visits", "city", "plan"]] = [np.nan, np.nan, None, None]
    graph = to_onnx(model)
    assert [(i.name, i.type.tensor_type.elem_type) for i in graph.graph.input] == [
        ("age", onnx.TensorProto.DOUBLE),
        ("visits", onnx.TensorProto.DOUBLE),
        ("city", onnx.TensorProto.STRING),
        ("plan", onnx.TensorProto.STRING),
    ]
    _, proba = _assert_scores_alike(model, test)
    assert_allclose(proba[15], np.exp(model.class_log_prior_))  # nothing known: the prior
    _assert_scores_alike(model, test, np.float32)


def test_refusals_name_the_problem():
    with pytest.raises(nbayes.NotSupportedError, match="cannot be exported"):
        to_onnx(object())
    model = nbayes.GaussianNB().fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="dtype"):
        to_onnx(model, dtype=np.int32)
    with pytest.raises(ValueError, match="opset"):
        to_onnx(model, opset=9)


def test_a_fresh_process_scores_with_onnxruntime_and_numpy_only(tmp_path):
    """The served graph needs no nbayes: a process that imports only onnxruntime and
    numpy gives nbayes's probabilities and labels."""
    rng = np.random.default_rng(8)
    y = rng.integers(0, 3, 120)
    table = pd.DataFrame(
        {"height": rng.normal(170 + 5 * y, 6), "colour": np.array(["red", "blue"])[y % 2]}
    )
    table.loc[3, "height"] = np.nan
    model = nbayes.NaiveBayes().fit(table, y)
    graph = to_onnx(model)
    (tmp_path / "model.onnx").write_bytes(graph.SerializeToString())
    feeds = onnx_feeds(graph, table)
    np.savez(tmp_path / "feeds.npz", **{k: v.astype(str) if v.dtype == object else v
                                        for k, v in feeds.items()})  # fmt: skip
    script = textwrap.dedent(
        """
        import json, sys
        import numpy as np
        import onnxruntime as ort
        folder = sys.argv[1]
        data = np.load(folder + "/feeds.npz")
        feeds = {k: data[k].astype(object) if data[k].dtype.kind == "U" else data[k]
                 for k in data.files}
        session = ort.InferenceSession(folder + "/model.onnx",
                                       providers=["CPUExecutionProvider"])
        label, proba = session.run(None, feeds)
        print(json.dumps({"label": label.tolist(), "proba": proba.tolist(),
                          "nbayes": any(m.startswith("nbayes") for m in sys.modules)}))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    result = json.loads(run.stdout)
    assert result["nbayes"] is False
    assert_allclose(result["proba"], model.predict_proba(table), rtol=0, atol=1e-9)
    assert_array_equal(result["label"], model.predict(table))


# ---------------------------------------------------------------- text and composites
def _newsgroups(split: str, step: int):
    from conftest import DATA, require_path

    root = require_path(DATA / "20newsgroups_bydate" / f"20news-bydate-{split}")
    files = sorted(root.glob("*/*"))[::step]
    # the client decodes the bytes; the graph takes strings
    posts = [p.read_bytes().decode("latin-1") for p in files]
    return posts, np.array([p.parent.name for p in files])


@pytest.fixture(scope="module")
def newsgroups():
    return _newsgroups("train", 16), _newsgroups("test", 16)[0]


@pytest.mark.parametrize(
    "pipeline",
    [
        lambda: make_pipeline(text.CountVectorizer(), text.RennieTransformer(),
                              nbayes.ComplementNB(alpha=0.3)),
        lambda: make_pipeline(text.CountVectorizer(ngram_range=(1, 2), stop_words=None),
                              nbayes.MultinomialNB(alpha=0.01)),
        lambda: make_pipeline(SkCountVectorizer(stop_words="english"),
                              TfidfTransformer(sublinear_tf=True), nbayes.MultinomialNB()),
        lambda: make_pipeline(text.CountVectorizer(
            tokenizer=text.Tokenizer(kind="words", min_len=1, stop_words=None), binary=True),
            nbayes.BernoulliNB()),
    ],
    ids=["rennie-complement", "bigrams-multinomial", "sklearn-tfidf", "tokenizer-bernoulli"],
)
def test_text_pipelines_give_the_same_tokens_on_real_posts(pipeline, newsgroups):
    """The tokenizer's rule as ONNX string operators gives nbayes's tokens on 20
    Newsgroups posts: same probabilities, same labels."""
    (train, y), test = newsgroups
    model = pipeline().fit(train, y)
    _assert_scores_alike(model, np.array(test, dtype=object))


def test_a_text_column_of_a_table_with_its_default_rich_tokens(newsgroups):
    (train, y), test = newsgroups
    table = pd.DataFrame({"post": train, "length": [float(len(t)) for t in train]})
    held_out = pd.DataFrame({"post": test[:200], "length": [float(len(t)) for t in test[:200]]})
    held_out.loc[3, "post"] = None
    for options in ({}, {"text": {"kind": "words"}}):
        model = nbayes.NaiveBayes(columns={"post": "text"}, kind_options=options).fit(table, y)
        _assert_scores_alike(model, held_out)


def _score_in_a_fresh_process(graph, documents: list[str], folder) -> dict:
    """Labels and probabilities from onnxruntime in a process importing only
    onnxruntime and numpy, the documents fed 16 at a time (onnxruntime's Tokenizer
    pads every row to the longest document's)."""
    (folder / "model.onnx").write_bytes(graph.SerializeToString())
    (folder / "documents.json").write_text(json.dumps(documents))
    script = textwrap.dedent(
        """
        import json, sys
        import numpy as np
        import onnxruntime as ort
        folder = sys.argv[1]
        documents = json.load(open(folder + "/documents.json"))
        session = ort.InferenceSession(folder + "/model.onnx",
                                       providers=["CPUExecutionProvider"])
        labels, probabilities = [], []
        for start in range(0, len(documents), 16):
            X = np.array(documents[start:start + 16], dtype=object)
            label, proba = session.run(None, {"X": X})
            labels += label.tolist()
            probabilities += proba.tolist()
        print(json.dumps({"label": labels, "proba": probabilities,
                          "nbayes": any(m.startswith("nbayes") for m in sys.modules)}))
        """
    )
    run = subprocess.run([sys.executable, "-c", script, str(folder)], capture_output=True,
                         text=True, timeout=600, check=True)  # fmt: skip
    return json.loads(run.stdout)


def _sms(step: int):
    from conftest import DATA, require_path

    path = require_path(DATA / "sms_spam_collection" / "SMSSpamCollection")
    rows = [line.split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines()]
    labels = np.array([r[0] for r in rows])
    texts = [r[1] for r in rows]
    train = [i for i in range(len(rows)) if i % step]
    test = [i for i in range(len(rows)) if not i % step]
    return [texts[i] for i in train], labels[train], [texts[i] for i in test]


@pytest.mark.parametrize("corpus", ["20newsgroups", "sms"])
def test_make_text_classifier_with_its_defaults_serves_from_onnxruntime(corpus, newsgroups,
                                                                        tmp_path):  # fmt: skip
    """make_text_classifier() as it is (rich tokens, bigrams, the header lines kept,
    the signature dropped, Subject words 3x, log-TF, IDF, L2, ComplementNB): the
    served graph gives nbayes's probabilities (1e-9 in float64, 1e-5 in float32)
    and labels on held-out posts, in a process without nbayes."""
    (train, y), test = newsgroups if corpus == "20newsgroups" else ((_sms(4)[:2]), _sms(4)[2])
    model = text.make_text_classifier().fit(train, y)
    expected = model.predict_proba(test)
    for dtype, tolerance in ((np.float64, 1e-9), (np.float32, 1e-5)):
        graph = to_onnx(model, dtype=dtype)
        onnx.checker.check_model(graph, full_check=True)
        served = _score_in_a_fresh_process(graph, test, tmp_path)
        assert served["nbayes"] is False
        assert_allclose(served["proba"], expected, rtol=0, atol=tolerance)
        if dtype == np.float64:
            assert_array_equal(served["label"], model.predict(test))


def test_post_vectorizer_settings_export(newsgroups):
    """Other PostVectorizer settings: the header lines dropped, the signature kept,
    two header fields, binary counts, unigrams, stop words dropped before bigrams."""
    (train, y), test = newsgroups
    model = text.make_text_classifier(
        "multinomial", header_fields=("subject", "from"), header_text="drop",
        signature="keep", binary=True, stop_words="english",
    ).fit(train, y)  # fmt: skip
    _assert_scores_alike(model, np.array(test[:150], dtype=object))


def test_composites_export_their_fixed_prediction(counts):
    X, y = counts
    calibrated = nbayes.CalibratedNB(nbayes.MultinomialNB(), cv=3).fit(X, y)
    _assert_scores_alike(calibrated, X)
    for labels in (y, (y > 0).astype(int)):  # one isotonic map per class, or one for two
        isotonic = nbayes.CalibratedNB(nbayes.MultinomialNB(), method="isotonic", cv=3)
        _assert_scores_alike(isotonic.fit(X, labels), X)
    unlabelled = y.astype(object)
    unlabelled[::3] = -1
    semi = nbayes.SemiSupervisedNB(nbayes.MultinomialNB()).fit(X, unlabelled)
    _assert_scores_alike(semi, X)
    scaled = make_pipeline(MinMaxScaler(), nbayes.GaussianNB()).fit(X, y)
    _assert_scores_alike(scaled, X)


@pytest.mark.parametrize(
    "model, reason",
    [
        (lambda: make_pipeline(text.HashingVectorizer(alternate_sign=False),
                               nbayes.MultinomialNB()), "HashingVectorizer"),
        (lambda: text.make_text_classifier(quotes="drop"), "quotes='drop'"),
    ],
    ids=["hashing", "quotes"],
)
def test_what_cannot_be_expressed_is_refused_with_the_reason(model, reason, newsgroups):
    (train, y), _ = newsgroups
    fitted = model().fit(train, y)
    with pytest.raises(nbayes.NotSupportedError, match=reason):
        to_onnx(fitted)


def test_rich_tokens_at_an_opset_before_20_are_refused(newsgroups):
    (train, y), _ = newsgroups
    model = text.make_text_classifier().fit(train[:100], y[:100])
    with pytest.raises(nbayes.NotSupportedError, match="opset 20"):
        to_onnx(model, opset=18)
