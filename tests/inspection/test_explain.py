"""Explanations: per-feature terms, the worked examples digit for digit, informative features."""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import WORKED_EXAMPLES, require_path

import nbayes
from nbayes.inspection.explain import explain, most_informative_features


def _rows(name: str) -> list[dict[str, str]]:
    with open(require_path(WORKED_EXAMPLES / name), newline="") as handle:
        return list(csv.DictReader(handle))


# ---------------------------------------------------------------- per-feature terms
def _term_cases():
    rng = np.random.default_rng(0)
    counts = rng.poisson(1.0, size=(40, 6)).astype(float)
    binary = (counts > 0).astype(float)
    codes = rng.integers(0, 4, size=(40, 5))
    normal = rng.normal(size=(40, 5)) * [1, 100, 0.01, 5, 1]
    return [
        (nbayes.GaussianNB(), normal, normal[:7] * 3),
        (nbayes.GaussianNB(ddof=1, var_smoothing=0.0), normal, normal[:7]),
        (nbayes.MultinomialNB(), counts, counts[:7]),
        (nbayes.MultinomialNB(alpha=0.0), counts[:10], counts[10:20]),  # -inf terms
        (nbayes.MultinomialNB(), counts, sp.csr_matrix(counts[:7])),
        (nbayes.ComplementNB(norm=True), counts, counts[:7]),
        (nbayes.BernoulliNB(), binary, binary[:7]),
        (nbayes.BernoulliNB(alpha=0.0), binary[:8], binary[8:20]),  # p = 0 and p = 1
        (nbayes.CategoricalNB(), codes, codes[:7]),
        (nbayes.CategoricalNB(alpha=0.0, min_categories=4), codes[:10], codes[10:20]),
        (nbayes.CategoricalNB(handle_unknown="ignore"), codes, np.array([[9, 0, 1, 2, 7]])),
    ]


@pytest.mark.parametrize(("model", "X_fit", "X"), _term_cases())
def test_terms_sum_to_the_log_likelihood(model, X_fit, X):
    n_fit = X_fit.shape[0]
    y = np.resize([0, 1, 2], n_fit)
    model.fit(X_fit, y)
    prepared = model.check_X(X)
    fitted = model._fitted
    terms = fitted.event.log_likelihood_terms(fitted.params, prepared)
    assert terms.shape == (X.shape[0], 3, X_fit.shape[1])
    expected = fitted.event.log_likelihood(fitted.params, prepared)
    with np.errstate(invalid="ignore"):
        total = terms.sum(axis=2)
    np.testing.assert_allclose(total, expected, rtol=1e-11, atol=1e-9)


def test_unknown_category_raises_in_terms_too():
    model = nbayes.CategoricalNB().fit([[0], [1]], [0, 1])
    with pytest.raises(nbayes.UnknownCategoryError):
        model.explain([5])


# ---------------------------------------------------------------- worked examples
def test_weather_table_digit_for_digit():
    rows = _rows("weather.csv")
    days = Counter(row["Play"] for row in rows)
    sunny = Counter(row["Play"] for row in rows if row["Weather"] == "Sunny")
    n = sum(days.values())
    prior = {c: Fraction(days[c], n) for c in days}
    factor = {c: Fraction(sunny[c], days[c]) for c in days}
    numerator = {c: prior[c] * factor[c] for c in days}
    evidence = sum(numerator.values())
    posterior = {c: numerator[c] / evidence for c in days}

    outlooks = sorted({row["Weather"] for row in rows})
    codes = [[outlooks.index(row["Weather"])] for row in rows]
    model = nbayes.CategoricalNB(alpha=0.0).fit(codes, [row["Play"] for row in rows])
    e = model.explain(
        [outlooks.index("Sunny")], feature_names=["Weather"], display_values=["Sunny"]
    )
    classes = e.classes
    assert classes == ["No", "Yes"]
    for k, c in enumerate(classes):
        assert e.prior[k] == pytest.approx(float(prior[c]), rel=1e-14)
        assert e.factors[k, 0] == pytest.approx(float(factor[c]), rel=1e-14)
        assert e.numerator[k] == pytest.approx(float(numerator[c]), rel=1e-14)
        assert e.posterior[k] == pytest.approx(float(posterior[c]), rel=1e-14)
    assert e.evidence == pytest.approx(float(evidence), rel=1e-14)
    # the notes' figures: P(Yes) = 9/14, P(Sunny|Yes) = 3/9, posterior 0.6 / 0.4
    assert (prior["Yes"], factor["Yes"], posterior["Yes"]) == (
        Fraction(9, 14),
        Fraction(3, 9),
        Fraction(3, 5),
    )
    assert f"{e.posterior[1]:.4f}" == "0.6000" and e.predicted == "Yes"
    assert e.contrast == ("Yes", "No")
    assert e.contributions[0].log_ratio == pytest.approx(math.log(factor["Yes"] / factor["No"]))


def _normal_pdf(x: Fraction, values: list[Fraction]) -> float:
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)  # Bessel
    return math.exp(-float((x - mean) ** 2 / (2 * var))) / math.sqrt(2 * math.pi * float(var))


def test_person_example_digit_for_digit():
    rows = _rows("person.csv")
    features = ["height_ft", "weight_lb", "foot_size_in"]
    sample = {"height_ft": Fraction(6), "weight_lb": Fraction(130), "foot_size_in": Fraction(8)}
    expected = {}
    for sex in ("female", "male"):
        group = [row for row in rows if row["sex"] == sex]
        expected[sex] = 0.5 * math.prod(
            _normal_pdf(sample[f], [Fraction(row[f]) for row in group]) for f in features
        )
    frame = pd.DataFrame({f: [float(row[f]) for row in rows] for f in features})
    model = nbayes.GaussianNB(priors=[0.5, 0.5], ddof=1, var_smoothing=0.0)
    model.fit(frame, [row["sex"] for row in rows])
    e = model.explain({f: float(v) for f, v in sample.items()})
    assert e.features == features
    for k, sex in enumerate(e.classes):
        assert e.numerator[k] == pytest.approx(expected[sex], rel=1e-12)
    printed = {sex: f"{e.numerator[k]:.4e}" for k, sex in enumerate(e.classes)}
    assert printed == {sex: f"{value:.4e}" for sex, value in expected.items()}
    assert printed == {"female": "5.3779e-04", "male": "6.1971e-09"}  # worked_examples/README
    assert e.predicted == "female"
    assert e.factor_kind == "density" and "p(weight_lb=130.0 | y)" in e.to_text()


def test_bacteria_mle_scores_and_json_with_zeros():
    rows = _rows("bacteria.csv")
    genes = [f"gene{j}" for j in range(1, 11)]
    X = np.array([[int(row[g]) for g in genes] for row in rows])
    y = np.array([int(row["class"]) for row in rows])
    x = np.array([1, 0, 0, 1, 0, 1, 1, 0, 1, 1])
    expected = {}
    for k in (1, 2, 3):
        members = X[y == k]
        p = [Fraction(int(members[:, j].sum()), len(members)) for j in range(10)]
        score = Fraction(len(members), len(X))
        for j in range(10):
            score *= p[j] if x[j] else 1 - p[j]
        expected[k] = score
    assert expected[1] == Fraction(11413325, 3439853568)  # worked_examples/README
    model = nbayes.BernoulliNB(alpha=0.0, force_alpha=True).fit(X, y)
    e = model.explain(x, feature_names=genes)
    for k, c in enumerate(e.classes):
        assert e.numerator[k] == pytest.approx(float(expected[c]), rel=1e-12, abs=0)
    assert e.posterior.tolist() == [1.0, 0.0, 0.0]
    text = json.dumps(e.to_dict(), allow_nan=False)  # -inf logs become strings
    assert '"-inf"' in text


# ---------------------------------------------------------------- invariants
@pytest.mark.parametrize(
    "model",
    [
        nbayes.GaussianNB(),
        nbayes.MultinomialNB(),
        nbayes.ComplementNB(),
        nbayes.BernoulliNB(binarize=2.0),
        nbayes.CategoricalNB(),
    ],
)
@pytest.mark.parametrize("n_classes", [2, 4])
def test_explanation_adds_up(model, n_classes):
    rng = np.random.default_rng(n_classes)
    X = rng.poisson(2.0, size=(80, 5))
    y = rng.integers(0, n_classes, size=80)
    model.fit(X, y)
    for x in X[:5]:
        e = explain(model, x)
        assert e.log_prior + e.log_factors.sum(axis=1) == pytest.approx(e.log_joint, abs=1e-9)
        assert e.posterior.sum() == pytest.approx(1.0)
        assert e.predicted == model.predict([x])[0]
        a, b = (e.classes.index(c) for c in e.contrast)
        if n_classes == 2:
            assert (a, b) == (1, 0)
        else:
            assert a == int(np.argmax(e.posterior))
            assert b == int(np.argsort(e.posterior)[-2])
        total = e.prior_log_odds + sum(c.log_ratio for c in e.contributions)
        assert total == pytest.approx(e.log_odds, abs=1e-9)
        sizes = [abs(c.log_ratio) for c in e.contributions]
        assert sizes == sorted(sizes, reverse=True)
        json.dumps(e.to_dict(), allow_nan=False)


def test_explain_checks_its_row():
    model = nbayes.GaussianNB().fit(pd.DataFrame({"a": [1.0, 2, 3], "b": [0.0, 1, 1]}), [0, 1, 1])
    with pytest.raises(ValueError, match=r"no value for feature\(s\) \['b'\]"):
        model.explain({"a": 1.0})
    with pytest.raises(ValueError, match="one row"):
        model.explain(np.zeros((2, 2)))


# ---------------------------------------------------------------- informative features
def test_most_informative_features_categorical_by_hand():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(50, 3))
    y = np.where(X[:, 0] + rng.integers(0, 2, size=50) > 2, "a", "b")
    model = nbayes.CategoricalNB(alpha=0.5).fit(X, y)
    expected = []
    for j in range(3):
        for t in range(3):
            probs = {}
            for c in ("a", "b"):
                rows = X[y == c]
                probs[c] = (np.sum(rows[:, j] == t) + 0.5) / (len(rows) + 3 * 0.5)
            top, bottom = max(probs, key=probs.get), min(probs, key=probs.get)
            expected.append((probs[top] / probs[bottom], j, t, top, bottom))
    expected.sort(key=lambda item: -item[0])
    got = most_informative_features(model, n=4)
    assert [(f.index, f.value, f.top, f.bottom) for f in got] == [e[1:] for e in expected[:4]]
    np.testing.assert_allclose([f.ratio for f in got], [e[0] for e in expected[:4]], rtol=1e-12)
    assert got[0].feature == f"x{got[0].index}"


def test_most_informative_features_bernoulli_and_multinomial():
    X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [0, 1, 0]])
    y = np.array(["s", "s", "h", "h"])
    bern = nbayes.BernoulliNB().fit(X, y)
    got = most_informative_features(bern, n=10)
    assert len(got) == 6 and {(f.index, f.value) for f in got} == {
        (j, v) for j in range(3) for v in (0, 1)
    }
    # feature 0 present: P = 3/4 in s, 1/4 in h (Laplace) -> ratio 3
    first = next(f for f in got if (f.index, f.value) == (0, 1))
    assert first.ratio == pytest.approx(3.0) and (first.top, first.bottom) == ("s", "h")
    multi = nbayes.MultinomialNB().fit(X, y)
    theta = (multi.feature_count_ + 1) / (multi.feature_count_ + 1).sum(axis=1, keepdims=True)
    best = most_informative_features(multi, n=1)[0]
    ratios = theta.max(axis=0) / theta.min(axis=0)
    assert best.index == int(np.argmax(ratios))
    assert best.ratio == pytest.approx(ratios.max())


def test_most_informative_features_of_a_continuous_model_rank_intervals_of_its_grid():
    """A Gaussian feature is ranked by the intervals between its grid values (the class
    mixture's mean plus or minus 1 and 1.645 standard deviations): their probability
    per class (estimated from draws; within sampling error of the normal CDF's), not
    densities at points."""
    from scipy.stats import norm

    from nbayes.inspection.features import INTERVAL_SAMPLES

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 50)
    X = rng.normal(size=(100, 2)) + np.c_[3 * y, 0.2 * y]
    model = nbayes.GaussianNB().fit(X, y)
    got = most_informative_features(model, n=100)
    assert len(got) == 12 and got[0].index == 0  # 6 intervals a feature; the separated first
    prior = model.class_prior_
    for item in got:
        theta, var = model.theta_[:, item.index], model.var_[:, item.index]
        mean = prior @ theta
        sd = np.sqrt(prior @ (var + theta**2) - mean**2)
        grid = [-np.inf, *(mean + z * sd for z in (-1.645, -1, 0, 1, 1.645)), np.inf]
        low, high = item.interval
        assert any(np.isclose(low, g) and np.isclose(high, h) for g, h in itertools.pairwise(grid))
        exact = norm.cdf(high, theta, np.sqrt(var)) - norm.cdf(low, theta, np.sqrt(var))
        if exact.min() > 0.05:  # well inside sampling error
            assert item.ratio == pytest.approx(exact.max() / exact.min(), rel=0.2)
        assert item.ratio <= 2 * INTERVAL_SAMPLES + 1  # never a ratio of 1e38


def test_informative_intervals_lie_in_the_observed_range():
    """With the training data, a skewed column's intervals end at its observed minimum
    and maximum (no age of 16.14 where the youngest is 17, no negative capital gain),
    and their ratios are plausible."""
    rng = np.random.default_rng(1)
    n = 2000
    y = rng.random(n) < 0.25
    age = np.clip(rng.normal(np.where(y, 44, 37), 12), 17, 90).round()
    gain = np.where(rng.random(n) < np.where(y, 0.2, 0.03), rng.exponential(8000, n), 0.0)
    X = np.c_[age, gain]
    model = nbayes.GaussianNB().fit(X, y)
    got = most_informative_features(model, n=100, X=X)
    for item in got:
        low, high = item.interval
        column = X[:, item.index]
        assert column.min() <= low < high <= column.max()
        assert item.ratio < 1e4
    assert {item.value.split(" to ")[0] for item in got if item.index == 0} >= {"17"}
def test_naive_bayes_mixed_columns_explained():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    frame = pd.DataFrame(
        {
            "colour": np.where(rng.random(200) < np.where(y == 1, 0.7, 0.2), "red", "blue"),
            "size": rng.normal(np.where(y == 1, 3.0, 1.0), 1.0),
        }
    )
    model = nbayes.NaiveBayes().fit(frame, y)
    explanation = model.explain({"colour": "red", "size": 2.5})
    row = pd.DataFrame({"colour": ["red"], "size": [2.5]})
    np.testing.assert_allclose(
        explanation.prior * explanation.factors.prod(axis=1),
        np.exp(model.predict_joint_log_proba(row)[0]),
        rtol=1e-12,
    )
    np.testing.assert_allclose(explanation.posterior, model.predict_proba(row)[0], rtol=1e-12)
    assert explanation.factor_kind == "probability or density"
    assert {c.feature for c in explanation.contributions} == {"colour", "size"}


def test_log_odds_of_a_row_no_class_can_have_made_are_the_posteriors():
    """Unsmoothed (alpha=0), a value seen with one class only and another seen with the
    other only make every joint probability 0: the log-odds are then those of the
    posterior the model reports (its fallback), not NaN with a warning."""
    X = np.array([[0, 0], [1, 1], [0, 1], [1, 0], [2, 3], [1, 2]])
    y = np.array(["A", "B", "A", "B", "B", "A"])
    model = nbayes.CategoricalNB(alpha=0, force_alpha=True).fit(X, y)
    with np.errstate(all="raise"):
        result = explain(model, [2, 2])
    assert np.all(np.isneginf(result.log_joint))
    posterior = model.predict_proba([[2, 2]])[0]
    assert result.log_odds == pytest.approx(math.log(posterior[1] / posterior[0]))
    assert json.loads(json.dumps(result.to_dict()))["log_odds"] != "nan"


def test_the_worked_computation_of_a_long_text_reads_true_below_float64():
    """A long message's likelihood is far below the smallest float64 (1e-308): the
    steps print mantissa and decimal exponent from the logarithms, not 0.0000e+00, and
    the message shows once, on one line, shortened."""
    docs = ["win a free prize now claim cash", "see you at lunch tomorrow ok"] * 5
    y = ["spam", "ham"] * 5
    model = nbayes.NaiveBayes(columns={"text": "text"}).fit(pd.DataFrame({"text": docs}), y)
    message = " ".join(["free cash prize win now"] * 400) + "\nsecond line"
    result = explain(model, pd.DataFrame({"text": [message]}).iloc[0].tolist())
    assert np.all(result.log_joint < -1000)  # exp() of it is 0.0 in float64
    text = result.to_text()
    numerator = next(line for line in text.splitlines() if line.startswith("numerator"))
    printed = numerator.split()[-2:]
    for cell, log_joint in zip(printed, result.log_joint, strict=True):
        mantissa, exponent = cell.split("e")
        assert math.log10(float(mantissa)) + int(exponent) == pytest.approx(
            log_joint / math.log(10), abs=1e-4
        )
    assert "0.0000e+00" not in numerator
    assert sum("free cash prize" in line for line in text.splitlines()) == 3  # x, factor, ratio
    assert "second line" not in text and max(map(len, text.splitlines())) < 120


def test_a_text_factor_is_shown_word_by_word_and_the_words_add_up():
    """A text column's factor log P(d | y) is the sum of n_t log theta_ct over its
    tokens: the explanation lists them, the most telling first, and they add up to
    the factor in every class (as the contribution they make up)."""
    docs = ["win a free prize now", "free cash claim now", "see you at lunch",
            "lunch at noon ok", "claim your free cash", "ok see you soon"]  # fmt: skip
    y = ["spam", "spam", "ham", "ham", "spam", "ham"]
    frame = pd.DataFrame({"text": docs, "n": [1.0, 2.0, 3.0, 4.0, 1.5, 3.5]})
    model = nbayes.NaiveBayes(columns={"text": "text"}).fit(frame, y)
    result = explain(model, {"text": "free cash for lunch, free", "n": 2.5})
    parts = result.parts["text"]
    j = result.features.index("text")
    np.testing.assert_allclose(sum(p.log_terms for p in parts), result.log_factors[:, j])
    assert [p.part for p in parts][:1] == ["free"] and parts[0].count == 2
    ratios = [abs(p.log_ratio) for p in parts]
    assert ratios == sorted(ratios, reverse=True)
    assert "n" not in result.parts  # a number is one piece
    as_json = json.loads(json.dumps(result.to_dict()))
    assert [p["part"] for p in as_json["parts"]["text"]] == [p.part for p in parts]
    text = result.to_text()
    assert "    free ×2" in text and "    lunch" in text


# ---------------------------------------------------------------- partial rows, unseen values
@pytest.fixture
def people():
    rng = np.random.default_rng(5)
    n = 120
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "age": rng.normal(np.where(y == 1, 45.0, 30.0), 8.0).round(),
            "workclass": rng.choice(["Private", "Gov", "Self"], n),
            "hours": rng.normal(40.0, 5.0, n),
        }
    )
    return frame, np.where(y == 1, ">50K", "<=50K")


def test_a_partial_row_is_marginalised_and_the_explanation_says_which(people):
    """A model that leaves missing values out explains a row lacking columns as it
    predicts one holding missing values there (as ``nbayes explain --row`` does); the
    explanation names the columns left out, not given or given as missing."""
    frame, y = people
    model = nbayes.NaiveBayes().fit(frame, y)
    result = model.explain({"age": 30, "workclass": "Private"})
    full = pd.DataFrame({"age": [30.0], "workclass": ["Private"], "hours": [np.nan]})
    np.testing.assert_allclose(result.posterior, model.predict_proba(full)[0], rtol=1e-12)
    assert result.left_out == ["hours"] and result.not_given == ["hours"]
    j = result.features.index("hours")
    assert np.all(result.log_factors[:, j] == 0)  # a factor of 1 in every class
    assert "left out (not given; marginalised" in result.to_text()
    assert result.to_dict()["left_out"] == ["hours"]
    given_missing = model.explain({"age": None, "workclass": "Gov", "hours": 41.0})
    assert given_missing.left_out == ["age"] and given_missing.not_given == []
    assert "left out (missing; marginalised" in given_missing.to_text()
    complete = model.explain({"age": 30, "workclass": "Private", "hours": 40.0})
    assert complete.left_out == [] and "left out" not in complete.to_text()


def test_a_partial_row_is_refused_where_the_model_needs_every_feature(people):
    frame, y = people
    model = nbayes.GaussianNB().fit(frame[["age", "hours"]], y)
    with pytest.raises(ValueError, match=r"no value for feature\(s\) \['hours'\]"):
        model.explain({"age": 30})


def test_values_never_seen_in_training_are_named_for_every_model(people):
    """An unseen category is named (its factor is then 1 in every class) whatever
    holds the column: a table's vocabulary or CategoricalNB's codes."""
    frame, y = people
    mixed = nbayes.NaiveBayes().fit(frame, y)
    result = mixed.explain({"age": 30, "workclass": "Snowy", "hours": 40.0})
    assert result.unseen == {"workclass": "Snowy"}
    assert np.all(result.log_factors[:, result.features.index("workclass")] == 0)
    assert "never seen in training (a factor of 1 in every class): workclass='Snowy'" in str(
        result
    )
    assert result.to_dict()["unseen"] == {"workclass": "Snowy"}
    assert mixed.explain({"age": 30, "workclass": "Gov", "hours": 40.0}).unseen == {}
    codes = nbayes.CategoricalNB(handle_unknown="ignore").fit([[0, 1], [1, 0], [2, 1]], [0, 1, 1])
    assert explain(codes, [3, 1]).unseen == {"x0": 3}
    assert explain(codes, [2, 1]).unseen == {}
    assert explain(nbayes.GaussianNB().fit(frame[["age"]], y), [1e6]).unseen == {}


# ---------------------------------------------------------------- wide (text) rows
@pytest.fixture
def word_counts():
    rng = np.random.default_rng(11)
    n, d = 60, 3000
    X = sp.random(n, d, density=0.004, random_state=rng, format="csr",
                  data_rvs=lambda k: rng.integers(1, 4, k))  # fmt: skip
    y = rng.integers(0, 3, n)
    return X, y


@pytest.mark.parametrize("estimator", ["MultinomialNB", "BernoulliNB", "ComplementNB"])
def test_a_wide_row_lists_its_nonzero_features_and_folds_the_zeros(word_counts, estimator):
    """A sparse row (1 x n_features) is explained; only its non-zero features are
    listed, the zero ones are folded into one factor: with it the factors still make
    the numerator, the contributions the log-odds. A dense row reads the same."""
    X, y = word_counts
    model = getattr(nbayes, estimator)().fit(X, y)
    row = X[[0]]
    result = explain(model, row)
    nonzero = row.indices
    assert result.features == [f"x{j}" for j in sorted(nonzero)]
    assert result.values == [float(row[0, j]) for j in sorted(nonzero)]
    assert result.folded.n_features == X.shape[1] - len(nonzero)
    terms = model.log_likelihood_terms(model.check_X(row))[0]
    zero = np.setdiff1d(np.arange(X.shape[1]), nonzero)
    np.testing.assert_allclose(result.folded.log_factor, terms[:, zero].sum(axis=1), rtol=1e-12)
    total = result.log_prior + result.log_factors.sum(axis=1) + result.folded.log_factor
    np.testing.assert_allclose(total, result.log_joint, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(result.posterior, model.predict_proba(row)[0], rtol=1e-12)
    assert sum(c.log_ratio for c in result.contributions) + result.prior_log_odds == (
        pytest.approx(result.log_odds, abs=1e-9)
    )
    text = result.to_text()
    assert len(text.splitlines()) < 2 * len(nonzero) + 25
    assert f"{X.shape[1] - len(nonzero):,} others = 0" in text
    dense = explain(model, row.toarray()[0])
    assert dense.features == result.features
    np.testing.assert_allclose(dense.log_factors, result.log_factors, rtol=1e-12)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["folded"]["features"] == result.folded.n_features


def test_a_narrow_row_lists_every_feature():
    """The course notes' layout: a few features are all listed, zeros included."""
    X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [0, 1, 0]])
    model = nbayes.BernoulliNB().fit(X, ["s", "s", "h", "h"])
    result = explain(model, [1, 0, 0])
    assert result.features == ["x0", "x1", "x2"] and result.folded is None


def test_a_text_pipeline_explains_a_raw_document():
    """make_text_classifier(): the document goes through the pipeline's transforms and
    the model's explanation names its words."""
    from nbayes.text import make_text_classifier

    docs = ["Subject: cheap pills\n\nbuy cheap pills now", "Subject: lunch\n\nsee you at lunch",
            "Subject: offer\n\ncheap offer, buy now", "Subject: notes\n\nthe lecture notes"] * 3
    y = ["spam", "ham", "spam", "ham"] * 3
    pipeline = make_text_classifier().fit(docs, y)
    document = "Subject: pills\n\ncheap pills at lunch"
    result = explain(pipeline, document)
    np.testing.assert_allclose(result.posterior, pipeline.predict_proba([document])[0])
    assert {"cheap", "pills", "subject:pills", "lunch"} <= set(result.features)
    assert result.folded.n_features > 0 and len(result.to_text().splitlines()) < 60
    assert result.predicted == pipeline.predict([document])[0]


def test_class_names_are_shown_whole_in_the_table():
    """Long class names widen their columns; the numbers stay under them."""
    classes = ["comp.sys.ibm.pc.hardware", "rec.sport.hockey"]
    y = [classes[0], classes[1], classes[0]]
    model = nbayes.MultinomialNB().fit([[3, 0], [0, 2], [2, 1]], y)
    lines = explain(model, [1, 1]).to_text().splitlines()
    header = next(line for line in lines if classes[0] in line and "classes:" not in line)
    assert header.split() == classes
    prior = next(line for line in lines if line.startswith("prior P(y)"))
    assert len(prior) == len(header)  # each number right under its class
