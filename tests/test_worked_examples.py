"""The course notes' worked examples, with expected values computed exactly from the
data in ``../shared/worked_examples`` (fractions; ``decimal`` at 50 digits for the
Gaussian densities), never copied from the printed notes.

The one exception is the comparison of our exact values with the figures the notes
and issue 2 quote (rounded), which checks the transcription of the data, not the
models.
"""

from __future__ import annotations

import csv
import decimal
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from math import prod

import numpy as np
import pytest
from conftest import WORKED_EXAMPLES, require_path
from numpy.testing import assert_allclose, assert_array_equal

from nbayes import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB, examples


def read_csv(name: str) -> list[dict[str, str]]:
    with open(require_path(WORKED_EXAMPLES / name), newline="") as handle:
        return list(csv.DictReader(handle))


def exact_posterior(numerators: dict) -> dict:
    total = sum(numerators.values())
    return {label: value / total for label, value in numerators.items()}


# ------------------------------------------------------------------- weather


def weather_table() -> tuple[list[str], list[str]]:
    rows = read_csv("weather.csv")
    return [row["Weather"] for row in rows], [row["Play"] for row in rows]


def test_weather_play_given_sunny_is_exact():
    """Unsmoothed categorical NB: ``P(play | Sunny) ∝ P(play) P(Sunny | play)``."""
    outlook, play = weather_table()
    days = Counter(play)
    both = Counter(zip(outlook, play, strict=True))
    numerators = {
        label: Fraction(days[label], len(play)) * Fraction(both["Sunny", label], days[label])
        for label in days
    }
    expected = exact_posterior(numerators)
    assert expected == {"Yes": Fraction(3, 5), "No": Fraction(2, 5)}

    categories = sorted(set(outlook))
    codes = np.array([[categories.index(day)] for day in outlook])
    model = CategoricalNB(alpha=0.0).fit(codes, play)
    proba = model.predict_proba([[categories.index("Sunny")]])[0]
    assert_allclose(proba, [float(expected[c]) for c in model.classes_], rtol=1e-15)
    likelihood = np.exp(model.feature_log_prob_[0][:, categories.index("Sunny")])
    exact = [Fraction(both["Sunny", c], days[c]) for c in model.classes_]
    assert_allclose(likelihood, [float(p) for p in exact], rtol=1e-15)
    assert model.predict([[categories.index("Sunny")]])[0] == "Yes"
    assert examples.weather_example() == pytest.approx({k: float(v) for k, v in expected.items()})


# ------------------------------------------------------------------- person

PERSON_SAMPLE = {"height_ft": "6", "weight_lb": "130", "foot_size_in": "8"}
DIGITS = 50


def decimal_pi() -> Decimal:
    """π to the current precision (the ``decimal`` module documentation's recipe)."""
    decimal.getcontext().prec += 2
    three = Decimal(3)
    lasts, t, s, n, na, d, da = 0, three, 3, 1, 0, 0, 24
    while s != lasts:
        lasts = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = (t * n) / d
        s += t
    decimal.getcontext().prec -= 2
    return +s


def normal_density(x: Decimal, values: list[Decimal]) -> Decimal:
    """N(x; sample mean, sample variance with n - 1), in Decimal."""
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return (-((x - mean) ** 2) / (2 * variance)).exp() / (2 * decimal_pi() * variance).sqrt()


def test_person_posterior_numerators_in_high_precision():
    rows = read_csv("person.csv")
    features = [name for name in rows[0] if name != "sex"]
    with decimal.localcontext() as context:
        context.prec = DIGITS
        numerators = {
            sex: Decimal("0.5")
            * prod(
                normal_density(
                    Decimal(PERSON_SAMPLE[f]),
                    [Decimal(row[f]) for row in rows if row["sex"] == sex],
                )
                for f in features
            )
            for sex in ("male", "female")
        }
    # The figures the issue quotes, as rounded from our exact values.
    assert f"{numerators['male']:.4e}" == "6.1971e-9"
    assert f"{numerators['female']:.4e}" == "5.3779e-4"

    X = np.array([[float(row[f]) for f in features] for row in rows])
    sex = np.array([row["sex"] for row in rows])
    model = GaussianNB(priors=[0.5, 0.5], ddof=1, var_smoothing=0.0).fit(X, sex)
    sample = np.array([[float(PERSON_SAMPLE[f]) for f in features]])
    got = np.exp(model.predict_joint_log_proba(sample)[0])
    assert_allclose(got, [float(numerators[c]) for c in model.classes_], rtol=1e-12)
    posterior = exact_posterior(numerators)
    proba = model.predict_proba(sample)[0]
    assert_allclose(proba, [float(posterior[c]) for c in model.classes_], rtol=1e-12)
    assert model.predict(sample)[0] == "female"
    from_examples = examples.person_example()
    assert_allclose([from_examples[c] for c in model.classes_], got, rtol=1e-15)


# ------------------------------------------------------------------- bacteria

BACTERIA_SAMPLE = [1, 0, 0, 1, 0, 1, 1, 0, 1, 1]


def bacteria_table() -> tuple[list[list[int]], list[int]]:
    rows = read_csv("bacteria.csv")
    genes = [name for name in rows[0] if name.startswith("gene")]
    return [[int(row[g]) for g in genes] for row in rows], [int(row["class"]) for row in rows]


def bernoulli_scores(X: list[list[int]], y: list, x: list[int]) -> dict:
    """``P(k) prod_j p_kj^x_j (1 - p_kj)^(1 - x_j)`` by MLE, exactly."""
    scores = {}
    for label in sorted(set(y)):
        rows = [row for row, k in zip(X, y, strict=True) if k == label]
        score = Fraction(len(rows), len(X))
        for j, present in enumerate(x):
            p = Fraction(sum(row[j] for row in rows), len(rows))
            score *= p if present else 1 - p
        scores[label] = score
    return scores


def test_bacteria_bernoulli_mle_scores_are_exact():
    X, y = bacteria_table()
    scores = bernoulli_scores(X, y, BACTERIA_SAMPLE)
    assert scores == {1: Fraction(11413325, 3439853568), 2: 0, 3: 0}

    model = BernoulliNB(alpha=0.0).fit(np.array(X), np.array(y))
    priors = [Fraction(y.count(k), len(y)) for k in model.classes_]
    assert priors == [Fraction(12, 16), Fraction(2, 16), Fraction(2, 16)]
    assert_allclose(np.exp(model.class_log_prior_), [float(p) for p in priors], rtol=1e-15)
    jll = model.predict_joint_log_proba([BACTERIA_SAMPLE])[0]
    assert_allclose(np.exp(jll[0]), float(scores[1]), rtol=1e-13)
    assert_array_equal(jll[1:], [-np.inf, -np.inf])
    proba = model.predict_proba([BACTERIA_SAMPLE])
    assert not np.isnan(proba).any()
    assert_array_equal(proba, [[1.0, 0.0, 0.0]])
    assert model.predict([BACTERIA_SAMPLE])[0] == 1


# ------------------------------------------- Manning et al., IIR ch. 13 (China)

IIR_TRAIN = [
    ("Chinese Beijing Chinese", "China"),
    ("Chinese Chinese Shanghai", "China"),
    ("Chinese Macao", "China"),
    ("Tokyo Japan Chinese", "Japan"),
]
IIR_TEST = "Chinese Chinese Chinese Tokyo Japan"


def iir_counts() -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    vocabulary = sorted({word for text, _ in IIR_TRAIN for word in text.split()})

    def count(text: str) -> list[int]:
        words = Counter(text.split())
        return [words[w] for w in vocabulary]

    X = np.array([count(text) for text, _ in IIR_TRAIN])
    y = np.array([label for _, label in IIR_TRAIN])
    return vocabulary, X, y, np.array([count(IIR_TEST)])


def test_iir_multinomial_china_japan():
    """IIR 13.2: Laplace-smoothed multinomial; ``P(c|d5) ∝ 3/4 (3/7)^3 (1/14)^2``."""
    vocabulary, X, y, test = iir_counts()
    numerators = {}
    for label in sorted(set(y)):
        in_class = X[y == label]
        total = int(in_class.sum())
        score = Fraction(len(in_class), len(X))
        for j, n in enumerate(test[0]):
            score *= Fraction(int(in_class[:, j].sum()) + 1, total + len(vocabulary)) ** int(n)
        numerators[label] = score
    assert numerators["China"] == Fraction(3, 4) * Fraction(3, 7) ** 3 * Fraction(1, 14) ** 2
    # The book's rounded figures: 0.0003 versus 0.0001.
    assert round(float(numerators["China"]), 4) == 0.0003
    assert round(float(numerators["Japan"]), 4) == 0.0001

    model = MultinomialNB(alpha=1.0).fit(X, y)
    assert_allclose(
        np.exp(model.predict_joint_log_proba(test)[0]),
        [float(numerators[c]) for c in model.classes_],
        rtol=1e-13,
    )
    posterior = exact_posterior(numerators)
    assert_allclose(
        model.predict_proba(test)[0], [float(posterior[c]) for c in model.classes_], rtol=1e-13
    )
    assert model.predict(test)[0] == "China"


def test_iir_bernoulli_china_japan():
    """IIR 13.3: Laplace-smoothed Bernoulli; absent terms count, and Japan wins."""
    _, X, y, test = iir_counts()
    present = (X > 0).astype(int)
    x = (test[0] > 0).astype(int)
    numerators = {}
    for label in sorted(set(y)):
        docs = present[y == label]
        score = Fraction(len(docs), len(X))
        for j, term_in_test in enumerate(x):
            p = Fraction(int(docs[:, j].sum()) + 1, len(docs) + 2)
            score *= p if term_in_test else 1 - p
        numerators[label] = score
    # The book's rounded figures: 0.005 versus 0.022.
    assert round(float(numerators["China"]), 3) == 0.005
    assert round(float(numerators["Japan"]), 3) == 0.022

    model = BernoulliNB(alpha=1.0).fit(X, y)
    assert_allclose(
        np.exp(model.predict_joint_log_proba(test)[0]),
        [float(numerators[c]) for c in model.classes_],
        rtol=1e-13,
    )
    assert model.predict(test)[0] == "Japan"


# ------------------------------------------- nbayes.examples equals the CSVs


def test_examples_module_matches_the_csvs():
    outlook, play = weather_table()
    codes, labels, names = examples.weather_data()
    assert [names[c] for c in codes[:, 0]] == outlook
    assert labels.tolist() == play

    rows = read_csv("person.csv")
    features = [name for name in rows[0] if name != "sex"]
    assert list(examples.PERSON_FEATURES) == features
    assert_array_equal(examples.PERSON, [[float(row[f]) for f in features] for row in rows])
    assert examples.PERSON_SEX.tolist() == [row["sex"] for row in rows]
    assert_array_equal(examples.PERSON_SAMPLE, [[float(PERSON_SAMPLE[f]) for f in features]])

    X, y = bacteria_table()
    assert_array_equal(examples.BACTERIA[:, :-1], X)
    assert_array_equal(examples.BACTERIA[:, -1], y)
    assert_array_equal(examples.BACTERIA_SAMPLE, [BACTERIA_SAMPLE])
