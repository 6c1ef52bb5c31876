"""The fast table path: labels hashed (pandas Series kept whole), prediction read and
encoded once then scored in row blocks, missing values in linear time (Gaussian and
Bernoulli blocks), and the numbers unchanged by any of it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from nbayes import NaiveBayes
from nbayes.core import validation as _validate

SPEC = {"height": "gaussian", "colour": "categorical", "smoker": "bernoulli", "score": "gaussian"}


def make_table(n: int, seed: int = 0, rate: float = 0.0) -> tuple[pd.DataFrame, np.ndarray]:
    """Two gaussian columns, a string and a 0/1 column; about ``rate`` of every column's
    values missing, in every pattern."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["a", "b", "c"]), n, p=[0.5, 0.3, 0.2])
    shift = (y == "b") * 1.5 + (y == "c") * -1.0
    frame = pd.DataFrame(
        {
            "height": rng.normal(170 + 5 * shift, 8),
            "colour": np.array(["red", "green", "blue"])[rng.integers(0, 3, n)],
            "smoker": (rng.random(n) < np.where(y == "a", 0.2, 0.6)).astype(float),
            "score": rng.normal(shift, 1.0),
        }
    )
    for name in frame.columns:
        holes = rng.random(n) < rate
        frame[name] = frame[name].where(~holes)
    return frame, y


# ---------------------------------------------------------------- labels
@pytest.mark.parametrize(
    "y",
    [
        np.array(["b", "a", "c"] * 800, dtype=object),
        np.array(["b", "a", "c"] * 800),
        np.array([2.0, -1.0, 7.0] * 800),
        pd.Series(["b", "a", "c"] * 800, dtype="string[pyarrow]"),
        pd.Series(["b", "a", "c"] * 800, dtype="category"),
    ],
    ids=["object", "unicode", "float", "arrow", "category"],
)
def test_hashed_labels_equal_numpy_unique(y):
    """Many labels are hashed (a pandas Series stays one): the classes and indices are
    np.unique's, and label_index gives the same indices."""
    expected_classes, expected_index = np.unique(np.asarray(y), return_inverse=True)
    assert len(y) >= _validate.HASH_LABELS_FROM
    classes, index = _validate.encode_targets(y)
    np.testing.assert_array_equal(classes, expected_classes)
    np.testing.assert_array_equal(index, expected_index)
    np.testing.assert_array_equal(_validate.label_index(y, classes), expected_index)


def test_hashed_labels_keep_scikit_learns_checks():
    many = _validate.HASH_LABELS_FROM
    with pytest.raises(ValueError, match="continuous"):
        _validate.encode_targets(np.linspace(0, 1, many))
    with pytest.raises(ValueError, match="Unknown label type"):
        _validate.encode_targets(np.array([1, "a"] * many, dtype=object))
    with pytest.raises(ValueError, match="NaN"):
        _validate.encode_targets(pd.Series(["a", None] * many, dtype="string[pyarrow]"))
    with pytest.raises(ValueError, match=r"\['zz'\] in y do not exist"):
        _validate.label_index(np.array(["a", "zz"] * many, dtype=object), np.array(["a", "b"]))


def test_a_label_series_gives_the_model_of_its_array():
    frame, y = make_table(3000, rate=0.1)
    series = pd.Series(y, dtype="string[pyarrow]")
    from_series = NaiveBayes(columns=SPEC).fit(frame, series)
    from_array = NaiveBayes(columns=SPEC).fit(frame, y)
    np.testing.assert_array_equal(from_series.classes_, from_array.classes_)
    assert from_series.classes_.dtype == object
    np.testing.assert_array_equal(from_series.predict_proba(frame), from_array.predict_proba(frame))
    streamed = NaiveBayes(columns=SPEC)
    for rows in (slice(0, 1500), slice(1500, None)):
        streamed.partial_fit(frame.iloc[rows], series.iloc[rows])
    np.testing.assert_allclose(
        streamed.predict_proba(frame), from_array.predict_proba(frame), rtol=1e-12
    )
    with pytest.raises(ValueError, match="NaN"):
        NaiveBayes(columns=SPEC).fit(frame, series.where(series != "a"))


# ---------------------------------------------------------------- prediction in row blocks
def test_row_blocks_give_the_one_block_prediction(monkeypatch):
    """The table is read and encoded once, then scored in many row blocks on the block
    threads: the numbers of scoring it in one block, unseen values included."""
    frame, y = make_table(5000, rate=0.1)
    model = NaiveBayes(columns=SPEC).fit(frame.head(4000), y[:4000])
    probe = frame.assign(colour=frame["colour"].replace("red", "pink"))
    monkeypatch.setattr(_validate.row_blocks, "__defaults__", (8 * 64 * 8,))  # 128 rows
    many = model.predict_log_proba(probe)
    assert len(model._row_blocks(model._prediction_input(probe, model._fitted))) > 1
    monkeypatch.setattr(type(model), "_row_blocks", lambda self, X: [slice(0, X.shape[0])])
    one = model.predict_log_proba(probe)  # (BLAS may round a row's sums apart by an ulp)
    np.testing.assert_allclose(many, one, rtol=1e-13, atol=1e-13)


def test_unknown_value_under_error_is_named_when_encoding():
    frame, y = make_table(300)
    model = NaiveBayes(columns=SPEC, handle_unknown="error").fit(frame, y)
    probe = frame.assign(colour=frame["colour"].replace("red", "pink"))
    with pytest.raises(ValueError, match="Column 'colour' has the value 'pink'"):
        model.predict(probe)


# ---------------------------------------------------------------- missing values, linear
def _by_hand(model: NaiveBayes, frame: pd.DataFrame) -> np.ndarray:
    """``log P(y) + sum`` over the observed values of each column's own log-probability,
    from the fitted parameters, one column at a time."""
    fitted = model._fitted
    blocks = {block.kind: (block, params) for block, params in zip(
        fitted.event.layout, fitted.params, strict=True)}  # fmt: skip
    joint = np.tile(fitted.log_prior, (len(frame), 1))
    gaussian, params = blocks["gaussian"]
    for k, name in enumerate(gaussian.keys):
        x = frame[name].to_numpy()
        seen = ~np.isnan(x)
        sd = np.sqrt(params.var[:, k])
        joint[seen] += norm.logpdf(x[seen, None], params.theta[:, k], sd)
    bernoulli, params = blocks["bernoulli"]
    for k, name in enumerate(bernoulli.keys):
        x = frame[name].to_numpy()
        seen = ~np.isnan(x)
        present, absent = params.feature_log_prob[:, k], params.absent_log_prob[:, k]
        joint[seen] += np.where(x[seen, None] == 1, present, absent)
    categorical, params = blocks["categorical"]
    (codes,) = params.codes
    for k, name in enumerate(categorical.keys):
        log_prob = params.params.per_feature()[k]
        for value, code in codes.items():
            rows = (frame[name] == value).to_numpy()
            joint[rows] += log_prob[:, code]
    return joint


@pytest.mark.parametrize("direct", ["direct", "gemm"])
def test_every_pattern_of_missing_values_leaves_out_exactly_those_terms(
    kernel_path, direct, monkeypatch
):
    """Random holes in every column (so rows of every pattern, all-missing rows too):
    the joint log-likelihood is the prior plus each observed value's term, whether
    the gaussian columns are scored directly (compiled, or NumPy feature by feature)
    or by the GEMM path with the rows with a gap scored again."""
    from nbayes.events import gaussian

    if direct == "gemm":
        monkeypatch.setattr(gaussian, "DIRECT_MAX_TERMS", 0)
    frame, y = make_table(4000, rate=0.3)
    model = NaiveBayes(columns=SPEC).fit(frame, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(frame), _by_hand(model, frame), rtol=1e-11, atol=1e-9
    )
    complete, _ = make_table(500, seed=3)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(complete), _by_hand(model, complete), rtol=1e-11, atol=1e-9
    )


def test_compiled_direct_gaussian_log_likelihood_equals_the_numpy_pass(monkeypatch):
    """The same terms added in the same order: bitwise the same."""
    pytest.importorskip("numba")
    from nbayes import _kernels
    from nbayes.events import gaussian

    frame, y = make_table(3000, rate=0.2)
    model = NaiveBayes(columns=SPEC).fit(frame, y)
    (params,) = [p for p in model._fitted.params if isinstance(p, gaussian.GaussianParams)]
    X = frame[["height", "score"]].to_numpy()
    compiled = gaussian._observed_log_likelihood(params, X)
    monkeypatch.setattr(_kernels, "ENABLED", False)
    np.testing.assert_array_equal(compiled, gaussian._observed_log_likelihood(params, X))


def test_categorical_labels_keep_their_categories_dtype():
    frame, y = make_table(2000)
    codes = pd.Series(np.searchsorted(["a", "b", "c"], y) + 7, dtype="category")
    model = NaiveBayes(columns=SPEC).fit(frame, codes)
    expected = NaiveBayes(columns=SPEC).fit(frame, codes.to_numpy())
    assert model.classes_.dtype == expected.classes_.dtype
    np.testing.assert_array_equal(model.classes_, [7, 8, 9])


@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]", "object", "category"])
def test_values_looked_up_in_the_vocabulary_equal_the_factorized_path(dtype, monkeypatch):
    """Prediction codes an Arrow string column against the fitted vocabulary in one
    look-up pass (compiled, nbayes._kernels.strings); other columns are factorized and mapped. Both
    give the same probabilities, with unseen and missing values."""
    from nbayes.mixed.vocabulary import Vocabulary

    frame, y = make_table(3000)
    model = NaiveBayes(columns=SPEC).fit(frame.astype({"colour": dtype}), y)
    probe = frame.assign(colour=frame["colour"].replace("red", "pink"))
    probe.loc[::9, "colour"] = None
    probe = probe.astype({"colour": dtype})
    looked_up = model.predict_log_proba(probe)
    monkeypatch.setattr(Vocabulary, "known_values", lambda self, params, j: None)
    np.testing.assert_allclose(model.predict_log_proba(probe), looked_up, rtol=1e-13)


def test_an_arrow_string_column_is_coded_against_known_values():
    from nbayes.mixed.columns import UNSEEN, read_codes

    table = pd.DataFrame({"c": pd.array(["b", None, "zz", "a", "b"], dtype="str")})
    uniques, codes = read_codes(table, 0, ["a", "b"])
    assert uniques == ["a", "b", UNSEEN]
    np.testing.assert_array_equal(codes, [1, -1, 2, 0, 1])
    uniques, codes = read_codes(table.astype(object), 0, ["a", "b"])  # factorized instead
    assert [uniques[c] if c >= 0 else None for c in codes] == ["b", None, "zz", "a", "b"]


@pytest.mark.parametrize("dtype", ["float64", "Float64", "object"])
def test_an_infinite_number_is_an_error_naming_its_column(dtype):
    """float64 columns are read as they are (NaN their only missing value), other
    dtypes through their missing-value mask: both refuse infinities, at fit and at
    prediction."""
    frame, y = make_table(200, rate=0.1)
    model = NaiveBayes(columns=SPEC).fit(frame.astype({"score": dtype}), y)
    bad = frame.astype({"score": dtype})
    bad.loc[7, "score"] = np.inf
    with pytest.raises(ValueError, match="Column 'score' holds infinite values"):
        NaiveBayes(columns=SPEC).fit(bad, y)
    with pytest.raises(ValueError, match="Column 'score' holds infinite values"):
        model.predict_proba(bad)
    np.testing.assert_array_equal(
        model.predict_proba(frame), NaiveBayes(columns=SPEC).fit(frame, y).predict_proba(frame)
    )
