"""NaiveBayes: one event model per column, missing values, unseen categories,
open-world partial_fit, merge, column spec and its errors."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import naive_bayes as sk
from sklearn.datasets import load_iris
from sklearn.utils.estimator_checks import parametrize_with_checks

import nbayes
from nbayes import NaiveBayes, UnknownCategoryError, merge

try:
    import polars as pl
except ImportError:  # pragma: no cover - polars is optional
    pl = None

needs_polars = pytest.mark.skipif(pl is None, reason="polars not installed")


def make_table(n: int = 300, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """A mixed table whose columns all carry some signal about y."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["a", "b", "c"]), n, p=[0.5, 0.3, 0.2])
    shift = (y == "b") * 1.5 + (y == "c") * -1.0
    colour_p = {"a": [0.6, 0.3, 0.1], "b": [0.2, 0.5, 0.3], "c": [0.1, 0.1, 0.8]}
    frame = pd.DataFrame(
        {
            "height": rng.normal(170 + 5 * shift, 8),
            "colour": np.array(
                [rng.choice(["red", "green", "blue"], p=colour_p[label]) for label in y],
                dtype=object,
            ),
            "smoker": rng.random(n) < np.where(y == "a", 0.2, 0.6),
            "score": rng.normal(shift, 1.0),
        }
    )
    return frame, y


def with_missing(frame: pd.DataFrame, seed: int = 1, rate: float = 0.15) -> pd.DataFrame:
    """The table with about ``rate`` of each column's values missing."""
    rng = np.random.default_rng(seed)
    out = frame.astype({name: object for name in frame.columns if frame[name].dtype == bool})
    for name in out.columns:
        holes = rng.random(len(out)) < rate
        out.loc[holes, name] = None if out[name].dtype == object else np.nan
    return out


SPEC = {"height": "gaussian", "colour": "categorical", "smoker": "bernoulli", "score": "gaussian"}


# ---------------------------------------------------------------- one kind == its model
def test_all_gaussian_equals_gaussian_nb():
    X, y = load_iris(return_X_y=True)
    for ddof in (0, 1):
        ours = NaiveBayes(columns="gaussian", ddof=ddof, var_smoothing=0).fit(X, y)
        reference = nbayes.GaussianNB(ddof=ddof, var_smoothing=0).fit(X, y)
        np.testing.assert_allclose(ours.predict_proba(X), reference.predict_proba(X), atol=1e-12)
    ours = NaiveBayes(columns="gaussian", var_smoothing=0).fit(X, y)
    np.testing.assert_allclose(
        ours.predict_log_proba(X),
        sk.GaussianNB(var_smoothing=0).fit(X, y).predict_log_proba(X),
        atol=1e-10,
    )


def test_variance_floor_is_per_column():
    X, y = load_iris(return_X_y=True)
    X = X * [1.0, 1e3, 1.0, 1e-3]  # unrelated scales
    smoothing = 1e-2
    floored = NaiveBayes(columns="gaussian", var_smoothing=smoothing).fit(X, y)
    (params,) = floored._fitted.params
    class_var = np.array([X[y == c].var(axis=0) for c in range(3)])
    np.testing.assert_allclose(params.var, class_var + smoothing * X.var(axis=0), rtol=1e-12)


def test_discrete_kinds_equal_scikit_learn():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 200)
    codes = (rng.integers(0, 4, (200, 3)) + y[:, None]) % 5  # every code 0..4 appears
    binary = (rng.random((200, 4)) < 0.3 + 0.2 * y[:, None]).astype(float)
    counts = rng.poisson(1.0 + y[:, None], (200, 5)).astype(float)
    cases = [
        (codes, "categorical", sk.CategoricalNB(alpha=0.5)),
        (binary, "bernoulli", sk.BernoulliNB(alpha=0.5, binarize=None)),
        (counts, "multinomial", sk.MultinomialNB(alpha=0.5)),
    ]
    for X, kind, reference in cases:
        ours = NaiveBayes(columns=kind, alpha=0.5).fit(X, y)
        np.testing.assert_allclose(
            ours.predict_log_proba(X), reference.fit(X, y).predict_log_proba(X), atol=1e-10
        )


def test_mixed_joint_log_likelihood_is_the_sum_of_the_blocks():
    frame, y = make_table()
    X = frame.to_numpy()
    numeric = frame[["height", "score"]].to_numpy(float)
    colour = pd.Categorical(frame["colour"]).codes[:, None]
    smoker = frame[["smoker"]].to_numpy(float)
    ours = NaiveBayes(columns=["gaussian", "categorical", "bernoulli", "gaussian"]).fit(X, y)
    parts = [
        (numeric, sk.GaussianNB()),
        (colour, sk.CategoricalNB()),
        (smoker, sk.BernoulliNB(binarize=None)),
    ]
    log_prior = np.log(np.unique(y, return_counts=True)[1] / len(y))
    expected = log_prior + sum(
        model.fit(data, y).predict_joint_log_proba(data) - log_prior for data, model in parts
    )
    np.testing.assert_allclose(ours.predict_joint_log_proba(X), expected, atol=1e-9)


def test_string_categories_equal_integer_codes():
    frame, y = make_table()
    codes = frame.assign(colour=pd.Categorical(frame["colour"]).codes)
    spec = {**SPEC, "colour": "categorical"}
    by_name = NaiveBayes(columns=spec).fit(frame, y)
    by_code = NaiveBayes(columns=spec).fit(codes, y)
    np.testing.assert_allclose(by_name.predict_proba(frame), by_code.predict_proba(codes))


def test_a_tuple_key_makes_one_multinomial_block():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 150)
    counts = rng.poisson(1 + 2 * y[:, None] * np.array([1, 0, 0]), (150, 3))
    frame = pd.DataFrame(counts, columns=["w1", "w2", "w3"]).assign(z=rng.normal(y, 1.0))
    ours = NaiveBayes(columns={("w1", "w2", "w3"): "multinomial"}).fit(frame, y)
    expected = (
        sk.MultinomialNB().fit(counts, y).predict_joint_log_proba(counts)
        + sk.GaussianNB().fit(frame[["z"]], y).predict_joint_log_proba(frame[["z"]])
        - np.log(np.bincount(y) / len(y))
    )
    np.testing.assert_allclose(ours.predict_joint_log_proba(frame), expected, atol=1e-9)
    assert ours.columns_ == {"w1": "multinomial", "w2": "multinomial", "w3": "multinomial",
                             "z": "gaussian"}  # fmt: skip


# ---------------------------------------------------------------- inference and describe
def test_dtype_inference_and_override(capsys):
    frame, y = make_table()
    frame = frame.assign(
        colour=frame["colour"].astype("category"), age=np.arange(len(frame)) % 50 + 20
    )
    model = NaiveBayes().fit(frame, y)
    assert model.columns_ == {
        "height": "gaussian",
        "colour": "categorical",
        "smoker": "bernoulli",
        "score": "gaussian",
        "age": "gaussian",  # integers are numbers, not codes
    }
    text = model.describe()
    assert "inferred from dtype" in text and repr(text) == text  # a REPL shows it once
    assert capsys.readouterr().out == ""  # returned, not printed as well
    assert text.splitlines()[5].split()[:2] == ["age", "gaussian"]
    override = NaiveBayes(columns={"age": "categorical"}).describe(frame)
    assert override.splitlines()[5].split() == ["age", "categorical", "1", "given"]


@needs_polars
def test_polars_equals_pandas():
    frame, y = make_table()
    frame = with_missing(frame)
    polars_frame = pl.DataFrame(
        {
            "height": frame["height"].to_numpy(),
            "colour": [None if pd.isna(v) else v for v in frame["colour"]],
            "smoker": [None if pd.isna(v) else bool(v) for v in frame["smoker"]],
            "score": frame["score"].to_numpy(),
        }
    ).with_columns(pl.col("height", "score").fill_nan(None))
    by_polars = NaiveBayes().fit(polars_frame, y)
    assert by_polars.columns_ == SPEC
    by_pandas = NaiveBayes(columns=SPEC).fit(frame, y)
    np.testing.assert_allclose(
        by_polars.predict_proba(polars_frame), by_pandas.predict_proba(frame), atol=1e-12
    )


# ---------------------------------------------------------------- missing values
@pytest.mark.parametrize("column", ["height", "colour", "smoker"])
def test_missing_column_equals_model_without_it(column):
    frame, y = make_table()
    holey = with_missing(frame)
    full = NaiveBayes(columns=SPEC).fit(holey, y)
    rest = {k: v for k, v in SPEC.items() if k != column}
    without = NaiveBayes(columns=rest).fit(holey.drop(columns=column), y)
    missing = holey[column].isna().to_numpy()
    assert missing.sum() > 10
    np.testing.assert_allclose(
        full.predict_log_proba(holey[missing]),
        without.predict_log_proba(holey.drop(columns=column)[missing]),
        atol=1e-12,
    )


def test_missing_values_add_nothing_to_the_statistics():
    frame, y = make_table()
    holey = with_missing(frame)
    model = NaiveBayes(columns=SPEC, var_smoothing=0.0, alpha=1.0).fit(holey, y)
    test = pd.DataFrame(
        {"height": [171.0], "colour": ["blue"], "smoker": [True], "score": [np.nan]}
    )
    expected = np.log(np.unique(y, return_counts=True)[1] / len(y))
    for c, label in enumerate(model.classes_):
        rows = holey[y == label]
        height = rows["height"].dropna().to_numpy()
        expected[c] += -0.5 * np.log(2 * np.pi * height.var()) - (171 - height.mean()) ** 2 / (
            2 * height.var()
        )
        colours = rows["colour"].dropna()
        expected[c] += np.log(((colours == "blue").sum() + 1) / (len(colours) + 3))
        smokers = rows["smoker"].dropna().astype(bool)
        expected[c] += np.log((smokers.sum() + 1) / (len(smokers) + 2))
    np.testing.assert_allclose(model.predict_joint_log_proba(test)[0], expected, rtol=1e-12)


def _missing_representations():
    yield "nan-and-none", lambda frame: frame
    yield "pd.NA", lambda frame: frame.astype(object).where(frame.notna(), pd.NA)


@pytest.mark.parametrize("name, convert", list(_missing_representations()))
def test_every_missing_marker_is_skipped(name, convert):
    frame, y = make_table()
    holey = with_missing(frame)
    reference = NaiveBayes(columns=SPEC).fit(holey, y).predict_proba(holey)
    converted = convert(holey)
    np.testing.assert_allclose(
        NaiveBayes(columns=SPEC).fit(converted, y).predict_proba(converted), reference
    )
    as_array = converted.to_numpy(dtype=object)
    positional = dict(enumerate(SPEC.values()))
    np.testing.assert_allclose(
        NaiveBayes(columns=positional).fit(as_array, y).predict_proba(as_array), reference
    )


def test_all_missing_row_gets_the_prior():
    frame, y = make_table()
    model = NaiveBayes(columns=SPEC).fit(frame, y)
    empty = pd.DataFrame(
        {"height": [np.nan], "colour": [None], "smoker": [None], "score": [np.nan]}
    )
    np.testing.assert_allclose(model.predict_proba(empty)[0], np.exp(model.class_log_prior_))


def test_a_column_never_observed_in_training_is_left_out():
    frame, y = make_table()
    blank = frame.assign(height=np.nan, colour=None)
    model = NaiveBayes(columns=SPEC).fit(blank, y)
    without = NaiveBayes(columns={"smoker": "bernoulli", "score": "gaussian"})
    without.fit(frame[["smoker", "score"]], y)
    np.testing.assert_allclose(
        model.predict_log_proba(frame), without.predict_log_proba(frame[["smoker", "score"]])
    )


# ---------------------------------------------------------------- unseen categories
def test_handle_unknown():
    frame, y = make_table()
    unseen = frame.head(5).assign(colour="purple")
    absent = frame.head(5).assign(colour=None)
    ignore = NaiveBayes(columns=SPEC).fit(frame, y)
    np.testing.assert_allclose(ignore.predict_proba(unseen), ignore.predict_proba(absent))

    alpha = 0.7
    smooth = NaiveBayes(columns=SPEC, handle_unknown="smooth", alpha=alpha).fit(frame, y)
    n_colour = np.array([(y == label).sum() for label in smooth.classes_])
    unseen_term = np.log(alpha / (n_colour + 4 * alpha))  # 3 seen colours + the unseen slot
    np.testing.assert_allclose(
        smooth.predict_joint_log_proba(unseen) - smooth.predict_joint_log_proba(absent),
        np.broadcast_to(unseen_term, (5, 3)),
        rtol=1e-12,
    )
    with pytest.raises(UnknownCategoryError, match=r"'colour'.*'purple'"):
        NaiveBayes(columns=SPEC, handle_unknown="error").fit(frame, y).predict(unseen)


# ---------------------------------------------------------------- open world
def _batches(frame, y, cuts):
    bounds = [0, *sorted(set(cuts)), len(y)]
    return [(frame.iloc[a:b], y[a:b]) for a, b in itertools.pairwise(bounds) if b > a]


@settings(max_examples=25, deadline=None)
@given(
    order=st.permutations(range(60)),
    cuts=st.lists(st.integers(1, 59), max_size=5),
    handle_unknown=st.sampled_from(["ignore", "smooth"]),
)
def test_partial_fit_in_any_batches_equals_fit(order, cuts, handle_unknown):
    frame, y = make_table(60, seed=7)
    frame, y = with_missing(frame).iloc[list(order)], y[list(order)]
    spec = {**SPEC}
    full = NaiveBayes(columns=spec, handle_unknown=handle_unknown).fit(frame, y)
    streamed = NaiveBayes(columns=spec, handle_unknown=handle_unknown)
    parts = []
    for batch, labels in _batches(frame, y, cuts):
        streamed.partial_fit(batch, labels)  # classes never declared
        parts.append(NaiveBayes(columns=spec, handle_unknown=handle_unknown).fit(batch, labels))
    probe, _ = make_table(40, seed=8)
    probe = with_missing(probe.assign(colour=probe["colour"].replace("red", "pink")))
    for model in (streamed, merge(*parts)):
        np.testing.assert_array_equal(model.classes_, full.classes_)
        np.testing.assert_allclose(model.class_count_, full.class_count_)
        np.testing.assert_allclose(model.predict_log_proba(probe), full.predict_log_proba(probe),
                                   atol=1e-9)  # fmt: skip


def test_new_class_and_category_in_a_later_batch():
    frame, y = make_table()
    first = y != "c"
    model = NaiveBayes(columns=SPEC).partial_fit(frame[first], y[first])
    assert list(model.classes_) == ["a", "b"]
    model.partial_fit(frame[~first].assign(colour="violet"), y[~first])
    assert list(model.classes_) == ["a", "b", "c"]
    union = pd.concat([frame[first], frame[~first].assign(colour="violet")])
    refit = NaiveBayes(columns=SPEC).fit(union, np.concatenate([y[first], y[~first]]))
    probe = frame.head(10).assign(colour=["violet", "red"] * 5)
    np.testing.assert_allclose(model.predict_log_proba(probe), refit.predict_log_proba(probe))
    assert (model.predict(probe)[::2] == "c").mean() > 0.5  # violet was only seen in c


def test_integer_weights_equal_repeated_rows():
    frame, y = make_table(120)
    holey = with_missing(frame)
    weights = np.random.default_rng(2).integers(0, 4, len(y))
    repeated = holey.loc[holey.index.repeat(weights)]
    weighted = NaiveBayes(columns=SPEC).fit(holey, y, sample_weight=weights)
    plain = NaiveBayes(columns=SPEC).fit(repeated, np.repeat(y, weights))
    np.testing.assert_allclose(
        weighted.predict_log_proba(holey), plain.predict_log_proba(holey), atol=1e-10
    )


def test_merge_refuses_different_kinds():
    frame, y = make_table()
    a = NaiveBayes().fit(frame, y)
    b = NaiveBayes().fit(frame.assign(smoker=frame["smoker"].astype(float)), y)
    with pytest.raises(ValueError, match="different kinds"):
        merge(a, b)


# ---------------------------------------------------------------- errors name the column
@pytest.mark.parametrize(
    "columns, table, message",
    [
        ({"weight": "gaussian"}, None, "'weight'.*not a column"),
        ({"height": "gausian"}, None, "Unknown kind 'gausian' for column 'height'"),
        ({"colour": "gaussian"}, None, "Column 'colour' is gaussian but holds strings"),
        ({"score": "bernoulli"}, None, "Column 'score' is bernoulli but holds"),
        (
            {"score": "multinomial"},
            None,
            r"Column 'score' is multinomial but holds -[\d.]+ in row \d+ \(negative values\)",
        ),
        ({0: "gaussian"}, "array", r"columns \[1, 2, 3\] have none"),
        (None, "array", "NumPy arrays need an explicit kind"),
    ],
)
def test_errors_name_the_column(columns, table, message):
    frame, y = make_table()
    X = frame.to_numpy() if table == "array" else frame
    with pytest.raises(ValueError, match=message):
        NaiveBayes(columns=columns).fit(X, y)


def test_uninferable_dtype_names_the_column():
    frame, y = make_table()
    frame = frame.assign(when=pd.Timestamp("2020-01-01"))
    with pytest.raises(TypeError, match="'when'"):
        NaiveBayes().fit(frame, y)


# ---------------------------------------------------------------- scikit-learn's contract
@parametrize_with_checks([NaiveBayes(columns="gaussian"), NaiveBayes(columns="categorical")])
def test_sklearn_estimator_contract(estimator, check):
    check(estimator)


def test_python_lists_keep_numbers_and_strings_apart():
    frame, y = make_table(50)
    rows = frame.astype(object).to_numpy().tolist()
    spec = list(SPEC.values())
    np.testing.assert_allclose(
        NaiveBayes(columns=spec).fit(rows, y).predict_proba(rows),
        NaiveBayes(columns=SPEC).fit(frame, y).predict_proba(frame),
    )


def test_soft_class_weights_equal_hard_labels():
    """EM's path: dense responsibilities W through learn_weighted."""
    from nbayes.core.validation import soft_class_weights

    frame, y = make_table(150)
    holey = with_missing(frame)
    hard = NaiveBayes(columns=SPEC).fit(holey, y)
    soft = NaiveBayes(columns=SPEC).fit(holey, y)
    soft.replace_statistics(soft.event.zero(len(soft.classes_), soft.n_features_in_))
    one_hot = (y[:, None] == soft.classes_).astype(float)
    soft.learn_weighted(soft.check_X(holey), soft_class_weights(one_hot))
    np.testing.assert_allclose(soft.predict_log_proba(holey), hard.predict_log_proba(holey),
                               atol=1e-10)  # fmt: skip


@pytest.mark.parametrize("handle_unknown", ["ignore", "smooth"])
def test_per_column_terms_sum_to_the_log_likelihood(handle_unknown):
    frame, y = make_table()
    holey = with_missing(frame)
    probe = holey.assign(colour=holey["colour"].replace("red", "pink"))
    model = NaiveBayes(columns=SPEC, handle_unknown=handle_unknown).fit(holey.head(200), y[:200])
    X = model.check_X(probe)
    fitted = model._fitted
    terms = fitted.event.log_likelihood_terms(fitted.params, X)
    np.testing.assert_allclose(terms.sum(axis=2), fitted.event.log_likelihood(fitted.params, X),
                               rtol=1e-12, atol=1e-9)  # fmt: skip
    missing = probe.isna().to_numpy()
    assert np.all(terms.transpose(0, 2, 1)[missing] == 0)


def test_model_file_round_trip(tmp_path):
    """Saved with nbayes.io (JSON + arrays, never a pickle): same predictions, and
    partial_fit resumes as if never saved."""
    frame, y = make_table()
    holey = with_missing(frame)
    model = NaiveBayes(handle_unknown="smooth").partial_fit(holey[:200], y[:200])
    model.save(tmp_path / "mixed.npz")
    loaded = NaiveBayes.load(tmp_path / "mixed.npz")
    assert loaded.columns_ == model.columns_
    np.testing.assert_array_equal(loaded.predict_proba(holey), model.predict_proba(holey))
    rest = holey[200:].assign(colour=holey["colour"][200:].replace("red", "pink"))
    for m in (model, loaded):
        m.partial_fit(rest, y[200:])
    np.testing.assert_array_equal(loaded.predict_proba(rest), model.predict_proba(rest))


# ---------------------------------------------------------------- the continuous kinds
def make_continuous_table(n: int = 240, seed: int = 4) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame(
        {
            "visits": rng.poisson(1.0 + 2.0 * y).astype(float),
            "wait": rng.exponential(1.0 + y),
            "income": rng.lognormal(3.0 + 0.3 * y, 0.5),
            "age": rng.normal(40 + 5 * y, 8),
        }
    )
    return frame, y


CONTINUOUS = [
    ("poisson", {}, nbayes.PoissonNB()),
    ("poisson", {"alpha": 1.0, "beta": 0.0}, nbayes.PoissonNB(alpha=1.0, beta=0.0)),
    ("exponential", {}, nbayes.ExponentialNB()),
    ("exponential", {"alpha": 2.0, "beta": 1.0}, nbayes.ExponentialNB(alpha=2.0, beta=1.0)),
    ("kde", {}, nbayes.KernelDensityNB()),
    ("kde", {"bandwidth": "silverman", "algorithm": "binned"},
     nbayes.KernelDensityNB(bandwidth="silverman", algorithm="binned")),
    ("binned", {}, nbayes.BinnedNB()),
    ("binned", {"strategy": "quantile", "n_bins": 4},
     nbayes.BinnedNB(strategy="quantile", n_bins=4)),
]  # fmt: skip


@pytest.mark.parametrize("kind, options, reference", CONTINUOUS)
def test_continuous_kind_equals_its_standalone_model(kind, options, reference):
    frame, y = make_continuous_table()
    X = frame[["visits"]].to_numpy() if kind == "poisson" else frame[["wait", "income"]].to_numpy()
    ours = NaiveBayes(columns=kind, kind_options={kind: options}).fit(X, y)
    np.testing.assert_allclose(
        ours.predict_log_proba(X), reference.fit(X, y).predict_log_proba(X), atol=1e-10
    )


def test_continuous_kinds_mixed_with_missing_values_and_streaming():
    frame, y = make_continuous_table()
    holey = with_missing(frame.assign(colour=make_table(len(y))[0]["colour"]), seed=3)
    spec = {"visits": "poisson", "wait": "exponential", "income": "kde", "age": "binned"}
    full = NaiveBayes(columns=spec).fit(holey, y)
    streamed = NaiveBayes(columns=spec)
    for rows in np.array_split(np.random.default_rng(0).permutation(len(y)), 3):
        streamed.partial_fit(holey.iloc[rows], y[rows])
    np.testing.assert_allclose(streamed.predict_log_proba(holey), full.predict_log_proba(holey),
                               atol=1e-9)  # fmt: skip
    halves = [NaiveBayes(columns=spec).fit(holey[: len(y) // 2], y[: len(y) // 2]),
              NaiveBayes(columns=spec).fit(holey[len(y) // 2 :], y[len(y) // 2 :])]  # fmt: skip
    np.testing.assert_allclose(merge(*halves).predict_log_proba(holey),
                               full.predict_log_proba(holey), atol=1e-9)  # fmt: skip
    for column in spec:
        missing = holey[column].isna().to_numpy()
        rest = {k: v for k, v in spec.items() if k != column}
        without = NaiveBayes(columns=rest).fit(holey.drop(columns=column), y)
        np.testing.assert_allclose(
            full.predict_log_proba(holey[missing]),
            without.predict_log_proba(holey.drop(columns=column)[missing]),
            atol=1e-10,
        )


@pytest.mark.parametrize(
    "columns, kind_options, message",
    [
        (
            {"score": "poisson"},
            None,
            r"Column 'score' is poisson but holds -[\d.]+ in row \d+ \(negative values\); "
            "the poisson model needs non-negative integer counts",
        ),
        (
            {"score": "exponential"},
            None,
            r"Column 'score' is exponential but holds -[\d.]+ in row \d+ \(negative values\)",
        ),
        ({"flat": "kde"}, None, "Column 'flat' is kde but constant"),
        (None, {"kde": {"bandwith": 1.0}}, r"Unknown option\(s\) \['bandwith'\] for kind 'kde'"),
        (None, {"kernel": {}}, "kind_options names unknown kind 'kernel'"),
    ],
)
def test_continuous_kind_errors_name_the_column(columns, kind_options, message):
    frame, y = make_table()
    with pytest.raises(ValueError, match=message):
        NaiveBayes(columns=columns, kind_options=kind_options).fit(frame.assign(flat=3.0), y)


def test_model_file_round_trip_with_continuous_kinds(tmp_path):
    frame, y = make_continuous_table()
    spec = {"visits": "poisson", "wait": "exponential", "income": "binned", "age": "kde"}
    model = NaiveBayes(columns=spec, kind_options={"kde": {"algorithm": "binned"}}).fit(frame, y)
    model.save(tmp_path / "continuous.npz")
    loaded = NaiveBayes.load(tmp_path / "continuous.npz")
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))


def test_rows_of_zero_weight_add_no_category():
    """A value seen only in rows of weight 0 joins no vocabulary: the model equals one
    fitted without those rows, values, vocabulary and all."""
    X = pd.DataFrame({"colour": ["red", "blue", "green", "red", "teal", "blue"]})
    y = np.array([0, 1, 0, 1, 0, 1])
    weight = np.array([1.0, 2.0, 1.0, 0.0, 0.0, 1.0])
    weighted = NaiveBayes(handle_unknown="smooth").fit(X, y, sample_weight=weight)
    kept = weight > 0
    plain = NaiveBayes(handle_unknown="smooth").fit(X[kept], y[kept], sample_weight=weight[kept])
    assert weighted.describe() == plain.describe()
    probe = pd.DataFrame({"colour": ["teal", "red", "green"]})
    np.testing.assert_allclose(weighted.predict_proba(probe), plain.predict_proba(probe))


def test_string_columns_are_factorized_without_a_python_object_per_row():
    """Arrow-backed string columns are coded by pandas: fitting 100,000 rows x 4 string
    columns, or predicting them, traces far less than one Python str per cell."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 100_000
    words = np.array([f"value-{i}" for i in range(30)])
    X = pd.DataFrame(
        {
            f"c{j}": pd.array(words[rng.integers(0, 30, n)], dtype="string[pyarrow]")
            for j in range(4)
        }
    )
    y = rng.integers(0, 3, n)
    model = NaiveBayes().fit(X, y)
    model.predict(X)  # warm-up: pyarrow's first compute call allocates its own state
    for step in (lambda: NaiveBayes().fit(X, y), lambda: model.predict(X)):
        tracemalloc.start()
        try:
            step()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 16e6  # 38 MB when each cell became a Python str


@pytest.mark.parametrize("where", ["first", "last", "only"])
def test_a_column_missing_in_every_row_adds_nothing(where):
    """Missing values are skipped in training: a column with none known is a factor of
    1 in every class, wherever it stands (after a categorical column it broke
    np.add.reduceat; alone, the broadcast of the per-feature totals)."""
    y = list("ababab")
    known = pd.DataFrame({"c": list("uvuvuu")})
    empty = pd.Series([None] * 6, dtype=object)
    frame = {
        "first": pd.DataFrame({"z": empty, "c": known["c"]}),
        "last": pd.DataFrame({"c": known["c"], "z": empty}),
        "only": pd.DataFrame({"z": empty, "w": empty}),
    }[where]
    model = NaiveBayes().fit(frame, y)
    proba = model.predict_proba(frame)
    if where == "only":
        np.testing.assert_allclose(proba, 0.5)
    else:
        np.testing.assert_allclose(proba, NaiveBayes().fit(known, y).predict_proba(known))
    codes = NaiveBayes(columns="categorical").fit(frame.to_numpy(dtype=object), y)
    np.testing.assert_allclose(codes.predict_proba(frame.to_numpy(dtype=object)), proba)
