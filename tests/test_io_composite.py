"""Composite models in safe model files: SemiSupervisedNB, CalibratedNB, the text
pipeline, scikit-learn Pipelines and ColumnTransformers of allow-listed parts. Exact
round trips, training resumed after loading, what cannot be stored refused by name,
and tampered files refused."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import scipy.sparse as sp
from composite_models import counts, hide_labels, mixed_table, posts, reals
from numpy.testing import assert_array_equal
from sklearn import impute, preprocessing
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction import text as sk_text
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline

import nbayes
from nbayes.core import registry
from nbayes.files import model_file as nbio
from nbayes.files.sklearn_codecs import CODECS


def round_trip(model, tmp_path, name="model.nbm"):
    path = tmp_path / name
    nbayes.save(model, path)
    return nbayes.load(path)


def assert_same_output(a, b, X):
    """Equal probabilities (classifiers) or transforms (transformers), bit for bit."""
    if hasattr(a, "predict_proba"):
        assert_array_equal(b.predict(X), a.predict(X))
        assert b.predict_proba(X).tobytes() == a.predict_proba(X).tobytes()
        return
    ours, theirs = b.transform(X), a.transform(X)
    assert sp.issparse(ours) == sp.issparse(theirs)
    if sp.issparse(ours):
        ours, theirs = ours.toarray(), theirs.toarray()
    assert ours.dtype == theirs.dtype
    assert_array_equal(ours, theirs)


# ---------------------------------------------------------------- meta-estimators
def test_semi_supervised_round_trip_resumes_and_merges(tmp_path):
    X, y = counts()
    model = nbayes.SemiSupervisedNB(nbayes.MultinomialNB(alpha=0.5)).fit(X, hide_labels(y))
    loaded = round_trip(model, tmp_path)
    assert type(loaded.estimator_) is nbayes.MultinomialNB
    assert_same_output(model, loaded, X)
    for name in ("n_iter_", "converged_", "classes_", "n_features_in_"):
        assert_array_equal(getattr(loaded, name), getattr(model, name))
    assert_array_equal(loaded.log_posterior_, model.log_posterior_)
    # the wrapped model resumes where EM left it, and merges with others
    X2, y2 = counts(seed=1)
    resumed = loaded.estimator_.partial_fit(X2, y2)
    straight = copy.deepcopy(model.estimator_).partial_fit(X2, y2)
    assert resumed.predict_proba(X).tobytes() == straight.predict_proba(X).tobytes()
    other = nbayes.MultinomialNB(alpha=0.5).fit(X2, y2)
    merged = nbayes.merge(round_trip(model, tmp_path).estimator_, other)
    assert_array_equal(
        merged.feature_count_, model.estimator_.feature_count_ + other.feature_count_
    )


@pytest.mark.parametrize("method", ["temperature", "isotonic"])
@pytest.mark.parametrize("data", [reals, counts], ids=["gaussian", "multinomial"])
def test_calibrated_round_trip(tmp_path, method, data):
    X, y = data()
    inner = nbayes.GaussianNB() if data is reals else nbayes.MultinomialNB()
    model = nbayes.CalibratedNB(inner, method=method, cv=3).fit(X, y)
    loaded = round_trip(model, tmp_path)
    assert_same_output(model, loaded, X)
    assert_array_equal(loaded.predict_log_proba(X), model.predict_log_proba(X))
    if method == "temperature":
        assert loaded.temperature_ == model.temperature_
    else:
        assert len(loaded.calibrators_) == len(model.calibrators_) == 3
    X2, y2 = data(seed=1)
    loaded.estimator_.partial_fit(X2, y2)  # the calibrated model keeps training
    refit = type(inner)().partial_fit(
        np.vstack([X, X2]), np.concatenate([y, y2]), classes=[0, 1, 2]
    )
    np.testing.assert_allclose(
        loaded.estimator_.predict_joint_log_proba(X), refit.predict_joint_log_proba(X), rtol=1e-9
    )


def test_calibrated_two_classes_isotonic(tmp_path):
    X, y = reals()
    keep = y < 2
    model = nbayes.CalibratedNB(nbayes.GaussianNB(), method="isotonic").fit(X[keep], y[keep])
    assert_same_output(model, round_trip(model, tmp_path), X)


# ---------------------------------------------------------------- text
@pytest.fixture(scope="module")
def corpus():
    pytest.importorskip("numba")
    return posts(90, seed=0), posts(40, seed=1)


@pytest.mark.parametrize(
    "options",
    [{}, {"model": "multinomial", "stop_words": "english", "quotes": "drop"}, {"binary": True}],
    ids=repr,
)
def test_text_classifier_round_trip(tmp_path, corpus, options):
    from nbayes.text import make_text_classifier

    (train, y), (test, _) = corpus
    model = make_text_classifier(**options).fit(train, y)
    loaded = round_trip(model, tmp_path)
    assert [name for name, _ in loaded.steps] == ["posts", "rennie", "nb"]
    assert_same_output(model, loaded, test)
    names = model[0].get_feature_names_out()
    assert_array_equal(loaded[0].get_feature_names_out(), names)
    # the classifier at the end resumes training on the loaded features
    X2 = loaded[:-1].transform(test)
    resumed = loaded[-1].partial_fit(X2, corpus[1][1])
    straight = model[-1].partial_fit(model[:-1].transform(test), corpus[1][1])
    assert resumed.predict_proba(X2).tobytes() == straight.predict_proba(X2).tobytes()


def test_semi_supervised_text_classifier_round_trip(tmp_path, corpus):
    from nbayes.text import make_text_classifier

    (train, y), (test, _) = corpus
    model = make_text_classifier(unlabeled_weight=0.3).fit(train, hide_labels(y))
    loaded = round_trip(model, tmp_path)
    assert type(loaded[-1]) is nbayes.SemiSupervisedNB
    assert_same_output(model, loaded, test)


def _vectorizers():
    from nbayes.text import CountVectorizer, HashingVectorizer, Tokenizer

    return [
        CountVectorizer(ngram_range=(1, 3), min_df=2, max_features=200),
        CountVectorizer(tokenizer=Tokenizer(ngram_range=(1, 2), stop_words=("the", "and"))),
        CountVectorizer(stop_words=frozenset({"the", "of"}), binary=True, dtype=np.float32),
        CountVectorizer(analyzer="char", ngram_range=(2, 3), max_df=0.5),  # scikit-learn's code
        CountVectorizer(vocabulary=["moon", "car", "the moon", "ice"], ngram_range=(1, 2)),
        HashingVectorizer(n_features=2**10, ngram_range=(1, 2)),
    ]


@pytest.mark.parametrize("index", range(6))
def test_nbayes_vectorizers_round_trip(tmp_path, corpus, index):
    (train, _), (test, _) = corpus
    vectorizer = _vectorizers()[index].fit(train)
    loaded = round_trip(vectorizer, tmp_path)
    assert loaded.get_params() == vectorizer.get_params()
    unseen = [*test, "zebra moon quux orbit, the the moon ice"]
    assert_same_output(vectorizer, loaded, unseen)
    if hasattr(vectorizer, "vocabulary_"):
        assert loaded.vocabulary_ == vectorizer.vocabulary_
        assert loaded.fixed_vocabulary_ == vectorizer.fixed_vocabulary_


def test_vocabulary_terms_are_stored_exactly(tmp_path):
    pytest.importorskip("numba")
    from nbayes.text import CountVectorizer

    # a trailing NUL (dropped by numpy unicode arrays) and a lone surrogate survive
    vocabulary = {"a\x00": 0, "caf\u00e9": 1, "\ud800x": 2, "a": 3}
    vectorizer = CountVectorizer(analyzer="char", vocabulary=vocabulary).fit(["a"])
    assert round_trip(vectorizer, tmp_path).vocabulary_ == vocabulary


# ---------------------------------------------------------------- scikit-learn parts
def test_pipeline_with_a_scaler(tmp_path):
    X, y = reals()
    model = make_pipeline(preprocessing.StandardScaler(), nbayes.GaussianNB()).fit(X, y)
    loaded = round_trip(model, tmp_path)
    assert_same_output(model, loaded, X)
    X2, y2 = reals(seed=1)
    scaled = loaded[0].transform(X2)
    loaded[-1].partial_fit(scaled, y2)
    model[-1].partial_fit(model[0].transform(X2), y2)
    assert loaded.predict_proba(X).tobytes() == model.predict_proba(X).tobytes()
    other = nbayes.GaussianNB().fit(scaled, y2)
    merged = nbayes.merge(round_trip(model, tmp_path, "b.nbm")[-1], other)
    assert_array_equal(merged.class_count_, model[-1].class_count_ + other.class_count_)


def test_column_transformer_of_allowed_parts(tmp_path):
    table, y = mixed_table()
    columns = ColumnTransformer(
        [
            ("num", preprocessing.StandardScaler(), [0, 1]),
            ("cat", preprocessing.OneHotEncoder(handle_unknown="ignore"), [2, 3]),
        ]
    )
    model = make_pipeline(columns, nbayes.GaussianNB()).fit(table, y)
    loaded = round_trip(model, tmp_path)
    assert_same_output(model, loaded, table)
    fresh, _ = mixed_table(seed=3)
    fresh[0, 2] = "purple"  # unknown category: ignored, as before saving
    assert_same_output(model, loaded, fresh)
    assert_array_equal(loaded[0].get_feature_names_out(), model[0].get_feature_names_out())


def test_column_transformer_on_a_data_frame(tmp_path):
    pd = pytest.importorskip("pandas")
    table, y = mixed_table()
    frame = pd.DataFrame(table, columns=["x", "z", "colour", "size"]).infer_objects()
    columns = ColumnTransformer(
        [
            ("scaled", preprocessing.MinMaxScaler(), ["x"]),
            ("codes", preprocessing.OrdinalEncoder(), ["colour", "size"]),
        ],
        remainder="passthrough",
    )
    model = make_pipeline(columns, nbayes.GaussianNB()).fit(frame, y)
    loaded = round_trip(model, tmp_path)
    assert_same_output(model, loaded, frame)
    assert_same_output(model, loaded, frame[["size", "z", "colour", "x"]])  # by name


def _transformers():
    X, _ = reals()
    X_missing = X.copy()
    X_missing[::7, 1] = np.nan
    table, _ = mixed_table()
    strings = table[:, 2:]
    with_missing = strings.copy()
    with_missing[::5, 0] = None
    docs = posts(30, seed=2)[0]
    return [
        (preprocessing.StandardScaler(), X),
        (preprocessing.StandardScaler(with_mean=False), X),
        (preprocessing.MinMaxScaler(feature_range=(-1, 1)), X),
        (preprocessing.MaxAbsScaler(), X),
        (preprocessing.Normalizer(norm="l1"), X),
        (preprocessing.Binarizer(threshold=0.5), X),
        (impute.SimpleImputer(strategy="median", add_indicator=True), X_missing),
        (impute.SimpleImputer(strategy="most_frequent"), with_missing),
        (impute.MissingIndicator(features="all"), X_missing),
        (preprocessing.KBinsDiscretizer(n_bins=4, encode="ordinal", quantile_method="linear"), X),
        (preprocessing.KBinsDiscretizer(n_bins=3, strategy="uniform"), X),
        (preprocessing.OneHotEncoder(drop="first", sparse_output=False), strings),
        (preprocessing.OneHotEncoder(handle_unknown="ignore", dtype=np.float32), with_missing),
        (preprocessing.OrdinalEncoder(), with_missing),
        (preprocessing.FunctionTransformer(), X),
        (sk_text.TfidfTransformer(sublinear_tf=True), np.abs(X)),
        (sk_text.TfidfTransformer(use_idf=False), np.abs(X)),
        (sk_text.CountVectorizer(ngram_range=(1, 2), min_df=2, stop_words="english"), docs),
        (sk_text.TfidfVectorizer(max_features=50), docs),
        (sk_text.HashingVectorizer(n_features=64), docs),
    ]


@pytest.mark.parametrize("index", range(len(_transformers())))
def test_scikit_learn_transformers_round_trip(tmp_path, index):
    transformer, X = _transformers()[index]
    transformer.fit(X)
    loaded = round_trip(transformer, tmp_path)
    assert type(loaded) is type(transformer)
    assert_same_output(transformer, loaded, X)


def test_isotonic_regression_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.uniform(size=50)
    regression = IsotonicRegression(out_of_bounds="clip").fit(x, x > 0.4)
    loaded = round_trip(regression, tmp_path)
    grid = np.linspace(-0.5, 1.5, 101)
    assert_array_equal(loaded.predict(grid), regression.predict(grid))


def test_every_scikit_learn_class_has_a_codec_and_a_round_trip_test():
    assert set(registry.SKLEARN) == set(CODECS)
    tested = {type(t).__name__ for t, _ in _transformers()}
    tested |= {"Pipeline", "ColumnTransformer", "IsotonicRegression"}
    assert {name.removeprefix("sklearn.") for name in registry.SKLEARN} == tested


# ---------------------------------------------------------------- refusals
def test_a_step_that_is_not_allowed_is_named(tmp_path):
    X, y = reals()
    model = Pipeline([("scale", preprocessing.StandardScaler()), ("clf", LogisticRegression())])
    model.fit(X, y)
    with pytest.raises(TypeError, match=r"Pipeline\.steps\['clf'\]: LogisticRegression .* not a"):
        nbayes.save(model, tmp_path / "m.nbm")
    columns = ColumnTransformer([("pca", preprocessing.SplineTransformer(), [0])]).fit(X)
    with pytest.raises(TypeError, match=r"transformers\['pca'\]: SplineTransformer"):
        nbayes.save(columns, tmp_path / "m.nbm")
    assert not (tmp_path / "m.nbm").exists()


def test_callables_are_refused_by_name(tmp_path):
    pytest.importorskip("numba")
    from nbayes.text import CountVectorizer, make_text_classifier

    docs, y = posts(20, seed=0)
    cases = [
        (
            CountVectorizer(tokenizer=str.split, token_pattern=None).fit(docs),
            r"CountVectorizer\.tokenizer: .*callable",
        ),
        (
            make_pipeline(sk_text.CountVectorizer(preprocessor=str.lower), nbayes.MultinomialNB()),
            r"steps\['countvectorizer'\]\.preprocessor: .*callable",
        ),
        (
            make_pipeline(preprocessing.FunctionTransformer(np.log1p), nbayes.MultinomialNB()),
            r"steps\['functiontransformer'\]\.func: .*callable \(log1p\)",
        ),
    ]
    for model, message in cases:
        if isinstance(model, Pipeline):
            X, labels = (docs, y) if "countvectorizer" in model.named_steps else counts()
            model.fit(X, labels)
        with pytest.raises(TypeError, match=message):
            nbayes.save(model, tmp_path / "m.nbm")
    # nbayes' own Tokenizer is parameters only, and is stored
    model = make_text_classifier().fit(docs, y)
    assert_same_output(model, round_trip(model, tmp_path), docs)


def test_what_scikit_learn_cannot_rebuild_is_refused(tmp_path):
    X, y = reals()
    cached = Pipeline([("nb", nbayes.GaussianNB())], memory=str(tmp_path)).fit(X, y)
    with pytest.raises(TypeError, match=r"Pipeline: a Pipeline with memory="):
        nbayes.save(cached, tmp_path / "m.nbm")
    table, _ = mixed_table()
    rare = preprocessing.OneHotEncoder(min_frequency=5).fit(table[:, 2:])
    with pytest.raises(TypeError, match=r"OneHotEncoder: .*infrequent"):
        nbayes.save(rare, tmp_path / "m.nbm")
    unfitted = make_pipeline(preprocessing.StandardScaler(), nbayes.GaussianNB())
    with pytest.raises(ValueError, match="not fitted"):
        nbayes.save(unfitted, tmp_path / "m.nbm")
    with pytest.raises(TypeError, match=r"CalibratedNB\.cv: a KFold"):
        from sklearn.model_selection import KFold

        model = nbayes.CalibratedNB(nbayes.GaussianNB(), cv=KFold(3)).fit(X, y)
        nbayes.save(model, tmp_path / "m.nbm")


# ---------------------------------------------------------------- tampered files
@pytest.fixture(scope="module")
def composite_file(tmp_path_factory):
    """A file holding a pipeline of nearly every kind of node: a ColumnTransformer,
    scikit-learn and nbayes parts, a SemiSupervisedNB around CalibratedNB-free NB."""
    table, y = mixed_table()
    columns = ColumnTransformer(
        [
            ("num", make_pipeline(impute.SimpleImputer(), preprocessing.StandardScaler()), [0, 1]),
            ("cat", preprocessing.OneHotEncoder(), [2, 3]),
        ]
    )
    model = make_pipeline(columns, nbayes.SemiSupervisedNB(nbayes.GaussianNB()))
    model.fit(table, hide_labels(y))
    path = tmp_path_factory.mktemp("tampered") / "model.nbm"
    nbayes.save(model, path)
    return path, table


def rewrite(path, edit, target):
    """Write ``path``'s file with its metadata edited by ``edit`` to ``target``, with a
    fresh checksum (as an attacker would)."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(arrays.pop("__nbayes__").tobytes().decode())
    meta.pop("sha256")
    edit(meta, arrays)
    meta["sha256"] = nbio._digest(meta, arrays)
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(target, "wb") as handle:
        np.savez(handle, __nbayes__=blob, **arrays)
    return target


def nodes(tree, tag):
    """Every node of ``tree`` tagged ``tag`` (depth first): for "estimator" and
    "dataclass", those naming a class (not a parameter called "estimator")."""
    if isinstance(tree, dict):
        if tag in tree and (tag not in ("estimator", "dataclass") or isinstance(tree[tag], str)):
            yield tree
        for value in tree.values():
            yield from nodes(value, tag)
    elif isinstance(tree, list):
        for value in tree:
            yield from nodes(value, tag)


def test_unknown_class_names_at_any_depth_are_refused(composite_file, tmp_path):
    path, _ = composite_file
    meta = json.loads(np.load(path)["__nbayes__"].tobytes().decode())
    for tag, message in [("estimator", "unknown estimator"), ("dataclass", "unknown type")]:
        count = len(list(nodes(meta["model"], tag)))
        assert count >= (8 if tag == "estimator" else 1)
        for k in range(count):

            def edit(meta, arrays, k=k, tag=tag):
                node = list(nodes(meta["model"], tag))[k]
                node[tag] = "subprocess.Popen" if tag == "estimator" else "Popen"

            target = rewrite(path, edit, tmp_path / f"{tag}{k}.nbm")
            with pytest.raises(nbayes.ModelFileError, match=message):
                nbayes.load(target)


def _state_entry(meta, estimator, attribute):
    for node in nodes(meta["model"], "estimator"):
        if node["estimator"] == estimator and "state" in node:
            return node["state"]["dict"], attribute
    raise AssertionError(f"no fitted {estimator} in the file")


@pytest.mark.parametrize(
    ("estimator", "attribute", "value", "message"),
    [
        ("sklearn.StandardScaler", "mean_", {"str": "x"}, "mean_ must be an array"),
        ("sklearn.StandardScaler", "scale_", {"list": []}, "scale_ must be an array"),
        ("sklearn.StandardScaler", "n_features_in_", {"float": 2.0}, "must be an integer"),
        ("sklearn.StandardScaler", "__class__", {"str": "x"}, "unexpected fitted attribute"),
        ("sklearn.SimpleImputer", "_fit_dtype", {"str": "V8"}, "numeric or object dtype"),
        ("sklearn.SimpleImputer", "_fill_dtype", {"int": 8}, "numeric or object dtype"),
        ("sklearn.OneHotEncoder", "categories_", {"list": [{"list": []}]}, "empty|per feature"),
        ("sklearn.ColumnTransformer", "sparse_output_", {"int": 1}, "must be a bool"),
        ("sklearn.ColumnTransformer", "output_indices_", {"dict": {}}, "output_indices_ do not"),
        ("SemiSupervisedNB", "n_iter_", {"int": -1}, r"n_iter_ must be in \[0"),
        ("SemiSupervisedNB", "estimator_", {"str": "GaussianNB"}, "must be a BaseNB"),
        ("SemiSupervisedNB", "converged_", {"none": None}, "must be a bool"),
    ],
)
def test_wrong_typed_attributes_are_refused(
    composite_file, tmp_path, estimator, attribute, value, message
):
    path, _ = composite_file

    def edit(meta, arrays):
        state, name = _state_entry(meta, estimator, attribute)
        state[name] = value

    target = rewrite(path, edit, tmp_path / "bad.nbm")
    with pytest.raises(nbayes.ModelFileError, match=message):
        nbayes.load(target)


def test_wrong_values_are_refused(composite_file, tmp_path):
    path, _ = composite_file

    def wrong_width(meta, arrays):
        state, _ = _state_entry(meta, "sklearn.StandardScaler", "mean_")
        arrays[state["mean_"]["array"]] = np.zeros(5)

    def swapped_model(meta, arrays):
        state, _ = _state_entry(meta, "SemiSupervisedNB", "estimator_")
        state["estimator_"]["estimator"] = "MultinomialNB"

    def cache_directory(meta, arrays):
        node = next(nodes(meta["model"], "estimator"))  # the outer Pipeline
        node["params"]["dict"]["memory"] = {"str": str(tmp_path)}

    def void_dtype(meta, arrays):
        next(nodes(meta["model"], "scalar_type"))["scalar_type"] = "|V8"

    cases = [
        (void_dtype, "not a numeric dtype"),
        (wrong_width, "entries, not one per feature"),
        (swapped_model, "do not fit MultinomialNB"),
        (cache_directory, "memory="),
    ]
    for edit, message in cases:
        with pytest.raises(nbayes.ModelFileError, match=message):
            nbayes.load(rewrite(path, edit, tmp_path / "bad.nbm"))


def test_tampered_vocabularies_are_refused(tmp_path, corpus):
    from nbayes.text import make_text_classifier

    (train, y), _ = corpus
    path = tmp_path / "text.nbm"
    nbayes.save(make_text_classifier().fit(train, y), path)

    def strings_node(meta):
        return next(nodes(meta["model"], "strings"))["strings"]

    def repeated_term(meta, arrays):
        node = strings_node(meta)
        offsets = arrays[node["offsets"]["array"]]
        text = arrays[node["utf8"]["array"]].tobytes().decode()
        first = text[offsets[0] : offsets[1]]
        second = text[offsets[1] : offsets[2]]
        text = first + first + text[offsets[2] :]
        offsets = offsets.copy()
        offsets[1:] += len(first) - len(second)
        offsets[1] = len(first)
        arrays[node["utf8"]["array"]] = np.frombuffer(text.encode(), np.uint8)
        arrays[node["offsets"]["array"]] = offsets

    def bad_offsets(meta, arrays):
        key = strings_node(meta)["offsets"]["array"]
        arrays[key] = arrays[key][::-1].copy()

    def not_utf8(meta, arrays):
        key = strings_node(meta)["utf8"]["array"]
        arrays[key] = np.full_like(arrays[key], 0xFF)

    def float_offsets(meta, arrays):
        key = strings_node(meta)["offsets"]["array"]
        arrays[key] = arrays[key].astype(float)

    for edit, message in [
        (repeated_term, "repeated strings"),
        (bad_offsets, "offsets do not cut the text"),
        (not_utf8, "bad list of strings"),
        (float_offsets, "offsets do not cut the text"),
    ]:
        with pytest.raises(nbayes.ModelFileError, match=message):
            nbayes.load(rewrite(path, edit, tmp_path / "bad.nbm"))


def test_a_file_asking_for_thousands_of_workers_is_refused(composite_file, tmp_path):
    """``ColumnTransformer(n_jobs=...)`` from a stranger's file must not start thousands
    of processes: beyond a few per CPU it is refused, naming the parameter."""
    path, _ = composite_file

    def many_workers(meta, arrays):
        (columns,) = [
            node for node in nodes(meta, "estimator") if node["estimator"].endswith("Transformer")
        ]
        columns["params"]["dict"]["n_jobs"] = {"int": 100_000}

    tampered = rewrite(path, many_workers, tmp_path / "workers.nbm")
    with pytest.raises(nbayes.ModelFileError, match="n_jobs=100000"):
        nbayes.load(tampered)
