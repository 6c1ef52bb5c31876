"""CountVectorizer's Python path for small inputs (nbayes.tokens._small): the compiled
path's matrices (layout included), vocabularies, errors and model files, over random
Unicode text and every option it covers; and a small text job never imports numba."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nbayes
from bench.scenario_startup import small_job
from nbayes.text import CountVectorizer, Tokenizer
from nbayes.tokens import _small

pytest.importorskip("numba")

SMALL_CHARS = _small.SMALL_CHARS  # the default (the tests run with -1: compiled)

# Word characters of several scripts, the context-dependent lower cases (Σ, İ),
# characters whose lower case is another's (K, Å signs), combining marks, digits of
# other scripts, underscores, separators, punctuation, controls and lone surrogates.
SPECIAL = "ΣσςİıIiKkÅåǅǄǆßẞ_0٣߁\u0301\u0345\u00ad \t\n\r\x0b\x0c\x1c\u2028\u00a0\u3000.,-'@/"
CHARACTERS = st.one_of(
    st.sampled_from(SPECIAL),
    st.characters(codec="ascii"),
    st.characters(exclude_categories=()),  # any code point, surrogates included
)
WORDS = st.lists(st.text(CHARACTERS, min_size=1, max_size=8), min_size=1, max_size=12)


@st.composite
def documents(draw) -> list[str]:
    """Documents drawn from a small set of words (so features repeat) and separators."""
    words = draw(WORDS)
    separators = st.sampled_from([" ", "  ", ", ", "\n", "-", "_", "é", ""])
    docs = []
    for _ in range(draw(st.integers(0, 8))):
        parts = draw(st.lists(st.sampled_from(words), max_size=12))
        docs.append("".join(p + draw(separators) for p in parts))
    return docs


WORD_TOKENIZERS = [
    Tokenizer(kind="words", stop_words=None),
    Tokenizer(kind="words", min_len=1, ngram_range=(1, 2), lowercase=False),
]
OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "lowercase": st.booleans(),
        "token_pattern": st.sampled_from([r"(?u)\b\w\w+\b", r"(?u)\b\w+\b"]),
        "ngram_range": st.sampled_from([(1, 1), (1, 2), (2, 2), (1, 3), (2, 3)]),
        "stop_words": st.sampled_from([None, "english", ["the", "ab", "ΣΣ", "σς", "a b"]]),
        "min_df": st.one_of(st.integers(0, 3), st.floats(0.0, 1.0)),
        "max_df": st.one_of(st.integers(0, 5), st.floats(0.0, 1.0)),
        "max_features": st.one_of(st.none(), st.integers(0, 6)),
        "binary": st.booleans(),
        "dtype": st.sampled_from([np.int64, np.float32, np.int8]),
        "tokenizer": st.sampled_from(WORD_TOKENIZERS),
    },
)


def outcome(fn):
    """``fn()``, or the error it raised (type and message)."""
    try:
        return fn()
    except ValueError as error:
        return (type(error), str(error))


def layout(X):
    """Everything a count matrix shows: its type, shape, dtypes and arrays."""
    if isinstance(X, tuple):  # an error
        return X
    return (type(X), X.shape, X.dtype, X.indices.dtype, X.indptr.dtype,
            X.indptr.tolist(), X.indices.tolist(), X.data.tolist())  # fmt: skip


def fitted(vectorizer):
    if not hasattr(vectorizer, "fixed_vocabulary_"):
        return None
    return list(vectorizer.vocabulary_.items()), vectorizer.get_feature_names_out().tolist()


def both(monkeypatch, fn):
    """``fn()`` with the Python path for small inputs, and with the compiled one."""
    monkeypatch.setattr(_small, "SMALL_CHARS", 10**9)
    small = fn()
    monkeypatch.setattr(_small, "SMALL_CHARS", -1)
    return small, fn()


def fit_and_transform(options, docs, unseen):
    vectorizer = CountVectorizer(**options)
    X = outcome(lambda: vectorizer.fit_transform(docs))
    Y = outcome(lambda: vectorizer.transform(unseen)) if fitted(vectorizer) else None
    return layout(X), fitted(vectorizer), Y if Y is None else layout(Y)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=documents(), unseen=documents(), options=OPTIONS)
def test_python_path_is_the_compiled_path(docs, unseen, options):
    """Matrices (entries in the same order within rows), vocabularies and errors."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        small, compiled = both(monkeypatch, lambda: fit_and_transform(options, docs, unseen))
    assert small == compiled


@settings(max_examples=100, deadline=None)
@given(docs=documents(), unseen=documents(), data=st.data())
def test_given_vocabulary(docs, unseen, data):
    """A fixed vocabulary: terms seen or not, n-grams, stop words, a permuted index."""
    features = sorted({f for doc in docs for f in doc.lower().split()})
    terms = data.draw(st.lists(st.sampled_from(features), unique=True)) if features else []
    terms += data.draw(st.lists(st.text(CHARACTERS, max_size=5), max_size=3, unique=True))
    terms = list(dict.fromkeys([*terms, "the end", "ab cd"]))
    order = data.draw(st.permutations(range(len(terms))))
    vocabulary = dict(zip(terms, order, strict=True))
    options = {"vocabulary": vocabulary, "ngram_range": (1, 2), "stop_words": ["the"]}
    with pytest.MonkeyPatch.context() as monkeypatch:
        small, compiled = both(monkeypatch, lambda: fit_and_transform(options, docs, unseen))
    assert small == compiled


@pytest.mark.parametrize(
    "options",
    [
        {"vocabulary": {"\ud800 ": 0, "ab": 1, "\udfff\ud800x": 2}},
        {"vocabulary": ["ab", "ab \udc80", "\ud83d"], "ngram_range": (1, 2)},
        {"stop_words": ["\ud800", "ab"]},
    ],
)
def test_lone_surrogates_in_terms(options):
    """Terms and stop words holding lone surrogates (which no UTF-8 can hold) are
    read by the compiled path as by the Python path and scikit-learn (the compiled
    one raised UnicodeEncodeError)."""
    from sklearn.feature_extraction.text import CountVectorizer as SkCountVectorizer

    docs = ["\ud800 ab", "ab \udfff\ud800x cd", "x\ud83d ab ab"]
    with pytest.MonkeyPatch.context() as monkeypatch:
        small, compiled = both(monkeypatch, lambda: fit_and_transform(options, docs, docs))
    assert small == compiled
    reference = SkCountVectorizer(**options)
    expected = reference.fit_transform(docs)
    assert compiled[1][1] == reference.get_feature_names_out().tolist()
    ours = CountVectorizer(**options).fit_transform(docs)
    assert (ours != expected).nnz == 0


def test_small_fit_then_large_transform_builds_the_compiled_tables(monkeypatch):
    """A vectorizer fitted on the Python path counts a large input compiled (its
    tables made from the terms), as one fitted compiled does; and a model file of it."""
    docs = ["Zeta alpha beta alpha ΣΟΦΟΣ", "beta gamma zeta zeta the", "omega 42 42", ""]
    large = [doc * 50 for doc in docs] * 100
    assert sum(map(len, large)) > SMALL_CHARS
    monkeypatch.setattr(_small, "SMALL_CHARS", SMALL_CHARS)
    for options in ({}, {"ngram_range": (1, 2), "min_df": 2}, {"stop_words": ["the"]}):
        small = CountVectorizer(**options)
        small.fit(docs)
        assert "_vocab" not in small.__dict__  # the Python path
        compiled = CountVectorizer(**options)
        monkeypatch.setattr(_small, "SMALL_CHARS", -1)
        compiled.fit(docs)
        monkeypatch.setattr(_small, "SMALL_CHARS", SMALL_CHARS)
        assert "_vocab" in compiled.__dict__
        assert layout(small.transform(large)) == layout(compiled.transform(large))
        assert "_vocab" in small.__dict__  # made for the large input
        assert layout(small.transform(docs)) == layout(compiled.transform(docs))


def test_model_file_of_a_small_fit(tmp_path, monkeypatch):
    docs = ["Zeta alpha beta alpha", "beta gamma zeta zeta the", "omega"]
    monkeypatch.setattr(_small, "SMALL_CHARS", SMALL_CHARS)
    vectorizer = CountVectorizer(ngram_range=(1, 2)).fit(docs)
    nbayes.save(vectorizer, tmp_path / "v.nbm")
    loaded = nbayes.load(tmp_path / "v.nbm")
    assert loaded.vocabulary_ == vectorizer.vocabulary_
    assert layout(loaded.transform(docs)) == layout(vectorizer.transform(docs))
    assert "_vocab" not in loaded.__dict__  # a small transform needs no compiled tables


@pytest.mark.parametrize(
    "options",
    [{"tokenizer": Tokenizer()}, {"input": "filename"}, {"token_pattern": r"\w+"}],
    ids=["Tokenizer", "filename", "pattern"],
)
def test_what_the_python_path_leaves_to_the_compiled_one(options, monkeypatch, tmp_path):
    monkeypatch.setattr(_small, "SMALL_CHARS", SMALL_CHARS)
    path = tmp_path / "doc.txt"
    path.write_text("hello world")
    docs = [str(path)] if options.get("input") == "filename" else ["hello world"]
    vectorizer = CountVectorizer(**options)
    vectorizer.fit(docs)
    assert ("_vocab" in vectorizer.__dict__) == ("token_pattern" not in options)
    assert "_vocab" in CountVectorizer().fit([b"hello world"]).__dict__  # bytes


def test_numpy_strings_take_the_python_path(monkeypatch):
    docs = np.array(["Zeta alpha beta alpha", "beta gamma ΣΟΦΟΣ zeta", ""])
    small, compiled = both(monkeypatch, lambda: CountVectorizer().fit(docs))
    assert "_vocab" not in small.__dict__ and "_vocab" in compiled.__dict__
    assert layout(small.transform(docs)) == layout(compiled.transform(docs))


# bench/scenario_startup.py's small job (its data, fits, predictions, vectorizing),
# then a little more of the vectorizer
SMALL_JOB = small_job("nbayes") + """
vectorizer = CountVectorizer(ngram_range=(1, 2), min_df=2)
counts = vectorizer.fit_transform(docs)
vectorizer.transform(docs[:20]), vectorizer.get_feature_names_out()
import sys
print("numba" in sys.modules)
print(sorted(m for m in sys.modules if m.startswith(("sklearn.feature_extraction",
                                                     "sklearn.preprocessing"))))
"""


def test_the_small_job_never_imports_numba():
    """bench/scenario_startup.py's warm row, and a little more, in a fresh process:
    neither numba nor scikit-learn's text and preprocessing modules (~30 modules,
    needed only for English stop words, a hashing vectorizer's norm, or scikit-learn's
    own vectorizer as the slow path) are imported."""
    done = subprocess.run([sys.executable, "-c", SMALL_JOB], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["False", "[]"]


def test_english_stop_words_are_scikit_learns_loaded_on_first_use():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as sklearns

    from nbayes.text import ENGLISH_STOP_WORDS
    from nbayes.tokens import tokenize

    assert ENGLISH_STOP_WORDS is sklearns is tokenize.ENGLISH_STOP_WORDS
    assert tokenize.stop_word_set("english") is sklearns
    with pytest.raises(AttributeError, match="no attribute 'STOP_WORDS'"):
        tokenize.STOP_WORDS  # noqa: B018
    counts = CountVectorizer(stop_words="english").fit(["the cat and a dog"])
    assert sorted(counts.vocabulary_) == ["cat", "dog"]


def test_csr_flags_as_the_compiled_path(monkeypatch):
    docs = ["bb aa aa", "aa cc"]
    small, compiled = both(monkeypatch, lambda: CountVectorizer().fit_transform(docs))
    assert small.has_sorted_indices == compiled.has_sorted_indices
    assert sp.issparse(small) and type(small) is type(compiled)
