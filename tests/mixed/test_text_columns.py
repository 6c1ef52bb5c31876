"""Text columns in NaiveBayes: a bag of words (events/text.py) beside numeric and
categorical columns; recognised from the values (mixed/columns.py: looks_like_text),
or declared; the SMS collection through the library path."""

from __future__ import annotations

import csv
import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, require_path
from sklearn import naive_bayes as sk

import nbayes
from nbayes import NaiveBayes
from nbayes.inspection.evaluation import cross_validate
from nbayes.inspection.explain import most_informative_features
from nbayes.mixed.columns import infer_kind
from nbayes.text import CountVectorizer, Tokenizer

SPAM = ("win", "cash", "prize", "claim", "free", "urgent", "offer", "txt")
HAM = ("lunch", "later", "home", "dinner", "meeting", "tonight", "sorry", "love")
COMMON = ("the", "you", "now", "call", "today", "please", "ok", "get")


def messages(n: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Short messages whose words depend on the label, a number and a category."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.3, "spam", "ham")
    text = []
    for label in y:
        pool = SPAM if label == "spam" else HAM
        size = rng.integers(3, 12)
        words = [rng.choice(pool) if rng.random() < 0.5 else rng.choice(COMMON)
                 for _ in range(size)]  # fmt: skip
        text.append(" ".join(words).capitalize() + "!")
    frame = pd.DataFrame(
        {
            "text": text,
            "length": rng.normal(np.where(y == "spam", 120, 60), 20),
            "hour": np.array(["night", "day"])[rng.integers(0, 2, n)],
        }
    )
    return frame, y


# ---------------------------------------------------------------- recognising text
def test_free_text_is_inferred_and_short_repeated_strings_stay_categories():
    frame, y = messages(400)
    frame["city"] = np.array(["New York", "San Francisco", "Paris"])[np.arange(400) % 3]
    frame["name"] = [f"Jane Doe{i}" for i in range(400)]  # distinct, but two words
    model = NaiveBayes().fit(frame, y)
    assert model.columns_ == {
        "text": "text", "length": "gaussian", "hour": "categorical", "city": "categorical",
        "name": "categorical",
    }  # fmt: skip
    assert "inferred from values" in model.describe()
    pl = pytest.importorskip("polars")
    table = pl.from_pandas(frame)
    assert [infer_kind(table, j) for j in range(table.width)] == list(model.columns_.values())
    repeated = frame.assign(text=frame["text"].iloc[:5].tolist() * 80)  # wordy but repeated
    assert infer_kind(repeated, 0) == "categorical"
    assert infer_kind(frame.assign(text=frame["text"].astype("category")), 0) == "categorical"


def _sms() -> tuple[pd.DataFrame, pd.Series]:
    path = require_path(DATA / "sms_spam_collection" / "SMSSpamCollection")
    frame = pd.read_csv(path, sep="\t", header=None, names=["label", "text"],
                        quoting=csv.QUOTE_NONE, dtype=str, keep_default_na=False)  # fmt: skip
    return frame[["text"]], frame["label"]


UCI = {
    "uci_adult": "adult.data",
    "uci_car": "car.data",
    "uci_mushroom": "agaricus-lepiota.data",
    "uci_nursery": "nursery.data",
}


@pytest.mark.parametrize("folder", sorted(UCI))
@pytest.mark.parametrize("spaces", ["kept", "skipped"])
def test_the_string_columns_of_the_uci_tables_stay_categorical(folder, spaces):
    path = require_path(DATA / folder / UCI[folder])
    frame = pd.read_csv(path, header=None, skipinitialspace=spaces == "skipped")
    strings = [j for j, kind in enumerate(frame.dtypes) if not pd.api.types.is_numeric_dtype(kind)]
    assert strings
    assert {infer_kind(frame, j) for j in strings} == {"categorical"}


def test_the_sms_messages_are_text_and_reach_095_accuracy():
    X, y = _sms()
    assert infer_kind(X, 0) == "text"
    evaluation = cross_validate(NaiveBayes(), X, y.to_numpy())
    assert evaluation.accuracy >= 0.95


# ---------------------------------------------------------------- the model
def test_a_text_column_alone_equals_multinomial_nb_on_its_counts():
    """The bag of words is scikit-learn's MultinomialNB on nbayes's CountVectorizer
    counts (same tokenizer): the same probabilities, unseen tokens dropped alike."""
    frame, y = messages(300)
    test, _ = messages(100, seed=1)
    test.loc[0, "text"] = "zebra quantum"  # no token seen in training: the prior
    for alpha, options in [(1.0, {}), (0.5, {"ngram_range": (1, 2), "stop_words": None})]:
        ours = NaiveBayes(columns={"text": "text"}, alpha=alpha, kind_options={"text": options})
        ours.fit(frame[["text"]], y)
        vectorizer = CountVectorizer(tokenizer=Tokenizer(**options), lowercase=False,
                                     token_pattern=None)  # fmt: skip
        counts = vectorizer.fit_transform(frame["text"])
        theirs = sk.MultinomialNB(alpha=alpha).fit(counts, y)
        np.testing.assert_allclose(
            ours.predict_log_proba(test[["text"]]),
            theirs.predict_log_proba(vectorizer.transform(test["text"])),
            rtol=1e-10, atol=1e-10,
        )  # fmt: skip
    np.testing.assert_allclose(
        ours.predict_proba(test[["text"]])[0], np.exp(ours.class_log_prior_), rtol=1e-12
    )


def test_kind_options_set_the_tokenizer():
    frame, y = messages(200)
    plain = NaiveBayes().fit(frame, y)
    options = {"text": {"ngram_range": (1, 2), "stop_words": None, "min_len": 1}}
    grams = NaiveBayes(kind_options=options).fit(frame, y)
    (tokens,) = plain._stats.blocks[0].vocabulary
    (more,) = grams._stats.blocks[0].vocabulary
    assert "the" not in tokens and "ok" in tokens  # English stop words dropped by default
    assert "the" in more and any(" " in token for token in more)
    with pytest.raises(ValueError, match="Unknown option"):
        NaiveBayes(kind_options={"text": {"stemming": True}}).fit(frame, y)


def _batches(frame, y, cuts):
    bounds = [0, *cuts, len(y)]
    return [(frame.iloc[a:b], y[a:b]) for a, b in itertools.pairwise(bounds)]


def test_partial_fit_and_merge_equal_fit_as_vocabularies_grow():
    frame, y = messages(300)
    frame.loc[::7, "text"] = None  # missing messages are skipped
    whole = NaiveBayes().fit(frame, y)
    streamed = NaiveBayes()
    for part, labels in _batches(frame, y, [40, 41, 200]):
        streamed.partial_fit(part, labels)
    first = NaiveBayes().fit(frame.iloc[:150], y[:150])
    second = NaiveBayes().fit(frame.iloc[150:], y[150:])
    merged = nbayes.merge(second, first)  # vocabularies in another order
    expected = whole.predict_proba(frame)
    np.testing.assert_allclose(streamed.predict_proba(frame), expected, rtol=1e-12)
    np.testing.assert_allclose(merged.predict_proba(frame), expected, rtol=1e-12)


def test_missing_text_is_skipped_and_weights_equal_repeated_rows():
    frame, y = messages(200)
    holey = frame.assign(text=frame["text"].where(np.arange(200) % 5 != 0))
    model = NaiveBayes().fit(holey, y)
    kept = np.arange(200) % 5 != 0
    texts = NaiveBayes(columns={"text": "text"}).fit(frame[["text"]][kept], y[kept])
    (text_block,) = [b for b, block in enumerate(model._layout) if block.kind == "text"]
    np.testing.assert_array_equal(
        model._stats.blocks[text_block].counts, texts._stats.blocks[0].counts
    )
    row = holey.iloc[[0]]  # its text is missing: the other columns decide
    others = NaiveBayes().fit(holey.drop(columns="text"), y)
    np.testing.assert_allclose(
        model.predict_proba(row), others.predict_proba(row.drop(columns="text")), rtol=1e-12
    )
    weights = np.random.default_rng(3).integers(1, 4, 200)
    weighted = NaiveBayes().fit(holey, y, sample_weight=weights)
    repeated = NaiveBayes().fit(holey.loc[np.repeat(holey.index, weights)], np.repeat(y, weights))
    np.testing.assert_allclose(weighted.predict_proba(frame), repeated.predict_proba(frame),
                               rtol=1e-12)  # fmt: skip


def test_explanations_show_tokens():
    frame, y = messages(400)
    model = NaiveBayes().fit(frame, y)
    ranked = most_informative_features(model, n=100)
    top = [item.value for item in ranked if item.feature == "text"][:5]
    assert len(top) == 5 and set(top) <= set(SPAM) | set(HAM)
    explanation = model.explain(frame.iloc[0].to_dict())
    assert explanation.values[0] == frame["text"].iloc[0]
    np.testing.assert_allclose(
        explanation.log_prior + explanation.log_factors.sum(axis=1), explanation.log_joint
    )


def test_a_declared_text_column_must_hold_text():
    frame, y = messages(50)
    with pytest.raises(ValueError, match=r"Column 'length' is text but holds .* text"):
        NaiveBayes(columns={"length": "text"}).fit(frame.astype({"length": object}), y)


def test_text_beside_other_columns_in_row_blocks_equals_one_block(monkeypatch):
    from nbayes.core import validation

    frame, y = messages(600)
    model = NaiveBayes().fit(frame, y)
    monkeypatch.setattr(validation.row_blocks, "__defaults__", (8 * 64 * 8,))  # 128 rows
    many = model.predict_proba(frame)
    monkeypatch.setattr(type(model), "_row_blocks", lambda self, X: [slice(0, X.shape[0])])
    np.testing.assert_allclose(model.predict_proba(frame), many, rtol=1e-12)
