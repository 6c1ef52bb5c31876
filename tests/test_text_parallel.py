"""nbayes.text's two-thread pass: analyzing two halves of the documents with their
own tables and folding them together gives exactly the serial result (and
scikit-learn's matrices), for fitting, transforming, n-grams and stop words."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction import text as sk

pytest.importorskip("numba")

from nbayes.text import CountVectorizer, HashingVectorizer, Tokenizer, _parallel

WORDS = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda the and of "
    "straße Über ÉCOLE http://example.com/a jane.doe@mail.example.org 3.14 1993 "
    "internationalization counterrevolutionaries x y"
).split()


def corpus(n_docs: int, seed: int) -> list[str]:
    """Random documents whose vocabulary changes along the corpus, so the second
    half brings tokens and n-grams the first half lacks."""
    rng = np.random.default_rng(seed)
    docs = []
    for d in range(n_docs):
        pool = [*WORDS[: 6 + (len(WORDS) - 6) * d // n_docs], f"w{d % 7}_{d // 5}"]
        docs.append(" ".join(rng.choice(pool, size=rng.integers(0, 30))))
    return docs


@pytest.fixture
def threads(monkeypatch):
    """Run the next calls in two threads, whatever their size: ``threads(True)``;
    serially: ``threads(False)``."""

    def set_threads(on: bool) -> None:
        monkeypatch.setattr(_parallel, "MIN_BYTES", 0)
        monkeypatch.setenv("NBAYES_TEXT_THREADS", "2" if on else "1")

    return set_threads


def same(a, b) -> bool:
    a, b = sp.csr_array(a), sp.csr_array(b)
    return a.shape == b.shape and (a != b).nnz == 0 and a.dtype == b.dtype


SETTINGS = [
    {},
    {"ngram_range": (1, 3), "stop_words": "english"},
    {"tokenizer": Tokenizer(kind="rich", stop_words="english"), "ngram_range": (1, 2)},
    {"min_df": 2, "max_features": 20},
]


@pytest.mark.parametrize("settings", SETTINGS)
def test_two_threads_equal_one_and_scikit_learn(threads, settings):
    train, test = corpus(300, 0), corpus(80, 1)
    threads(False)
    serial = CountVectorizer(**settings)
    X_serial = serial.fit_transform(train)
    T_serial = serial.transform(test)
    threads(True)
    parallel = CountVectorizer(**settings)
    X_parallel = parallel.fit_transform(train)
    assert same(X_parallel, X_serial)
    assert parallel.vocabulary_ == serial.vocabulary_
    assert same(parallel.transform(test), T_serial)
    if "tokenizer" not in settings:
        theirs = sk.CountVectorizer(**settings)
        assert same(X_parallel, theirs.fit_transform(train))
        assert same(parallel.transform(test), theirs.transform(test))


def test_two_threads_hashing_and_tokenizer(threads):
    docs = corpus(200, 2)
    tokenizer = Tokenizer(kind="rich", ngram_range=(1, 2))
    threads(False)
    tokens = tokenizer.tokenize_many(docs)
    hashed = HashingVectorizer(ngram_range=(1, 2)).transform(docs)
    threads(True)
    assert tokenizer.tokenize_many(docs) == tokens
    assert abs(HashingVectorizer(ngram_range=(1, 2)).transform(docs) - hashed).max() == 0
    assert tokens[1] == tokenizer(docs[1])


def test_thread_count_setting(monkeypatch):
    monkeypatch.setenv("NBAYES_TEXT_THREADS", "1")
    assert _parallel.n_threads() == 1
    monkeypatch.setenv("NBAYES_TEXT_THREADS", "2")
    assert _parallel.n_threads() == 2
    monkeypatch.setenv("NBAYES_TEXT_THREADS", "two")
    with pytest.raises(ValueError, match="NBAYES_TEXT_THREADS"):
        _parallel.n_threads()
    monkeypatch.delenv("NBAYES_TEXT_THREADS")
    monkeypatch.setattr(_parallel, "_available_cpus", lambda: 1)
    assert _parallel.n_threads() == 1  # by default: one thread per free CPU, at most two
    monkeypatch.setattr(_parallel, "_available_cpus", lambda: 16)
    assert _parallel.n_threads() == 2
