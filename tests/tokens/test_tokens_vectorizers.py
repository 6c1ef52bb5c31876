"""nbayes.text.CountVectorizer / HashingVectorizer: the same matrices, vocabularies
and errors as scikit-learn's, option by option, on hand-made and real text."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DATA, require_path
from sklearn.base import clone
from sklearn.feature_extraction import text as sk
from sklearn.pipeline import make_pipeline

from nbayes import MultinomialNB
from nbayes.text import CountVectorizer, HashingVectorizer, Tokenizer

DOCS = [
    "Hello World, hello again! The end.",
    "hello the",
    "The quick brown fox; the LAZY dog. Über straße ÉCOLE",
    "Visit http://example.com/path?q=1 or mail jane.doe@mail.example.org, pi is 3.14",
    "",
    "ΟΔΟΣ ΣΟΦΟΣ İstanbul the end the end",
    "__init__ x_1 1993 1993 1993",
]
UNSEEN = ["brand new words", "hello world the end", "the quick fox"]


def assert_same_matrix(ours, theirs):
    assert ours.shape == theirs.shape
    assert ours.dtype == theirs.dtype
    assert type(ours) is type(theirs)
    a, b = sp.csr_array(ours), sp.csr_array(theirs)
    a.sort_indices()
    b.sort_indices()
    assert np.array_equal(a.indptr, b.indptr)
    assert np.array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.data, b.data)


COUNT_SETTINGS = [
    {},
    {"lowercase": False},
    {"ngram_range": (1, 3)},
    {"ngram_range": (2, 2), "stop_words": "english"},
    {"stop_words": ["hello", "the"]},
    {"binary": True},
    {"dtype": np.float32},
    {"max_features": 4},
    {"max_features": 6, "ngram_range": (1, 2)},
    {"min_df": 2},
    {"max_df": 0.3},
    {"min_df": 0.2, "max_df": 3},
    {"min_df": 0.5},  # half of the documents (a float): prunes
    {"max_df": 1, "stop_words": "english"},  # one document at most (an int): prunes
    {"min_df": 0.0, "max_df": 1.0, "ngram_range": (2, 3)},  # prunes nothing
    {"token_pattern": r"(?u)\b\w+\b"},
    {"vocabulary": ["hello", "the end", "zzz", "world"], "ngram_range": (1, 2)},
    {"vocabulary": {"end": 1, "hello": 0}},
    {"analyzer": "char", "ngram_range": (2, 3)},  # scikit-learn's own code path
    {"strip_accents": "unicode"},
    {"token_pattern": r"\S+"},
]


@pytest.mark.parametrize("settings", COUNT_SETTINGS, ids=repr)
def test_count_vectorizer_equals_scikit_learn(settings):
    ours, theirs = CountVectorizer(**settings), sk.CountVectorizer(**settings)
    assert_same_matrix(ours.fit_transform(DOCS), theirs.fit_transform(DOCS))
    assert ours.vocabulary_ == theirs.vocabulary_
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    assert_same_matrix(ours.transform(UNSEEN), theirs.transform(UNSEEN))
    assert ours.fixed_vocabulary_ == theirs.fixed_vocabulary_


def test_fit_then_transform_equals_fit_transform():
    X = CountVectorizer(ngram_range=(1, 2)).fit_transform(DOCS)
    Y = CountVectorizer(ngram_range=(1, 2)).fit(DOCS).transform(DOCS)
    assert_same_matrix(X, Y)


def test_bytes_encodings_and_input_modes(tmp_path):
    raw = [d.encode("utf-8") for d in DOCS] + ["café".encode("latin-1")]
    for settings in ({"encoding": "latin-1"}, {"decode_error": "replace"}):
        ours, theirs = CountVectorizer(**settings), sk.CountVectorizer(**settings)
        assert_same_matrix(ours.fit_transform(raw), theirs.fit_transform(raw))
        assert ours.vocabulary_ == theirs.vocabulary_
    with pytest.raises(UnicodeDecodeError):
        CountVectorizer().fit(raw)
    paths = []
    for i, doc in enumerate(raw):
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_bytes(doc)
    by_name = CountVectorizer(input="filename", encoding="latin-1").fit_transform(paths)
    by_content = CountVectorizer(encoding="latin-1").fit_transform(raw)
    assert_same_matrix(by_name, by_content)
    handles = [open(p, "rb") for p in paths]
    try:
        by_file = CountVectorizer(input="file", encoding="latin-1").fit_transform(handles)
    finally:
        for handle in handles:
            handle.close()
    assert_same_matrix(by_file, by_content)


def test_nbayes_tokenizer_runs_compiled_and_equals_scikit_learn_calling_it():
    tokenizer = Tokenizer(min_len=2)
    for settings in ({"binary": True, "min_df": 2}, {"ngram_range": (1, 2)}, {}):
        ours = CountVectorizer(tokenizer=tokenizer, **settings)
        theirs = sk.CountVectorizer(tokenizer=tokenizer, token_pattern=None, **settings)
        assert_same_matrix(ours.fit_transform(DOCS), theirs.fit_transform(DOCS))
        assert ours.vocabulary_ == theirs.vocabulary_
        assert ours._fallback is None  # the compiled path ran
    assert "jane.doe@mail.example.org" in ours.vocabulary_


@pytest.mark.parametrize("settings", [{}, {"max_df": 0.5}, {"max_features": 5}], ids=repr)
def test_tokenizer_with_its_own_ngrams_equals_scikit_learn_calling_it(settings):
    """A Tokenizer forming its own bigrams (the vectorizer's n-grams stay (1, 1)):
    only the bigrams are features, whether the fit prunes (and counts frequencies)
    or not (and takes every feature the pass yielded)."""
    tokenizer = Tokenizer(ngram_range=(2, 2))
    ours = CountVectorizer(tokenizer=tokenizer, **settings)
    theirs = sk.CountVectorizer(tokenizer=tokenizer, token_pattern=None, **settings)
    assert_same_matrix(ours.fit_transform(DOCS), theirs.fit_transform(DOCS))
    assert ours.vocabulary_ == theirs.vocabulary_
    assert all(" " in term for term in ours.vocabulary_)
    assert ours._fallback is None


def test_hashing_vectorizer_equals_scikit_learn():
    for settings in (
        {},
        {"ngram_range": (1, 2), "n_features": 16},  # many collisions
        {"binary": True, "n_features": 8, "norm": None},
        {"alternate_sign": False, "norm": "l1", "stop_words": "english"},
        {"analyzer": "char_wb", "n_features": 64},
    ):
        ours = HashingVectorizer(**settings).fit_transform(DOCS)
        theirs = sk.HashingVectorizer(**settings).fit_transform(DOCS)
        assert ours.shape == theirs.shape and type(ours) is type(theirs)
        diff = sp.csr_array(ours - theirs)
        assert diff.nnz == 0 or np.abs(diff.data).max() < 1e-12


def test_drops_into_a_pipeline_and_clones():
    train = ["good great fine", "bad awful poor", "great good", "poor bad"]
    labels = ["pos", "neg", "pos", "neg"]
    model = make_pipeline(CountVectorizer(ngram_range=(1, 2)), MultinomialNB()).fit(train, labels)
    assert list(model.predict(["good fine", "awful"])) == ["pos", "neg"]
    copy = clone(CountVectorizer(min_df=2, stop_words="english"))
    assert copy.get_params()["min_df"] == 2
    assert HashingVectorizer().fit([]).transform(["x y"]).shape == (1, 2**20)


def test_errors_are_clear():
    with pytest.raises(ValueError, match="string object received"):
        CountVectorizer().fit("one document")
    with pytest.raises(ValueError, match=r"np\.nan is an invalid document"):
        CountVectorizer().fit(["fine", np.nan])
    with pytest.raises(TypeError, match="document 1 is a int"):
        CountVectorizer().fit(["fine", 3])
    with pytest.raises(ValueError, match="empty vocabulary"):
        CountVectorizer(stop_words="english").fit(["the and of", "a"])
    with pytest.raises(ValueError, match="max_df corresponds to < documents than min_df"):
        CountVectorizer(min_df=3, max_df=1).fit(DOCS)
    with pytest.raises(ValueError, match="ngram_range"):
        CountVectorizer(ngram_range=(2, 1)).fit(DOCS)
    with pytest.raises(ValueError, match="unknown encoding"):
        CountVectorizer(encoding="no-such-codec").fit([b"x"])
    with pytest.raises(ValueError, match="Duplicate term"):
        CountVectorizer(vocabulary=["a", "a"]).fit(DOCS)
    with pytest.raises(ValueError, match="norm"):
        HashingVectorizer(norm="l3").transform(DOCS)


def test_twenty_newsgroups_sample_equals_scikit_learn():
    root = require_path(DATA / "20newsgroups_bydate" / "20news-bydate-train")
    files = sorted(root.glob("*/*"))[::40]  # ~280 posts, every group
    raw = [path.read_bytes() for path in files]
    for settings in ({"encoding": "latin-1"}, {"encoding": "latin-1", "ngram_range": (1, 2),
                                               "stop_words": "english", "min_df": 2}):  # fmt: skip
        ours, theirs = CountVectorizer(**settings), sk.CountVectorizer(**settings)
        assert_same_matrix(ours.fit_transform(raw[::2]), theirs.fit_transform(raw[::2]))
        assert ours.vocabulary_ == theirs.vocabulary_
        assert_same_matrix(ours.transform(raw[1::2]), theirs.transform(raw[1::2]))
    ours = HashingVectorizer(encoding="latin-1").transform(raw)
    theirs = sk.HashingVectorizer(encoding="latin-1").transform(raw)
    assert abs(ours - theirs).max() < 1e-12


def test_sort_by_two_keys_equals_lexsort():
    """The vocabulary's sort (a sort of the first key's high bits with the index
    packed below them, then a compiled sort of the runs that share those bits:
    insertion for short runs, merging for long ones) orders as lexsort does, with
    many ties in the first key and in its high bits (first keys that differ only in
    their low bits, as names sharing 6-7 bytes do), and reports the runs of equal
    pairs (left for the full names to order)."""
    from nbayes.tokens._sort import by_two_keys

    rng = np.random.default_rng(0)
    cases = [(0, 1, 0), (1, 1, 0), (1000, 5, 0), (1000, 1000, 0), (5000, 2**63, 0),
             (5000, 40, 2**20), (3000, 3, 2**40), (300, 2**64 - 1, 1)]  # fmt: skip
    for case, (n, spread, scale) in enumerate(cases):
        first = rng.integers(0, spread, n, dtype=np.uint64, endpoint=True)
        if scale:  # runs of first keys that share all but their low bits
            first = first * np.uint64(scale) + rng.integers(0, 4, n, dtype=np.uint64)
        second = rng.permutation(n).astype(np.uint64)  # distinct, as names are
        if case % 2:  # and pairs of keys repeated (names sharing 16 bytes)
            second //= np.uint64(3)
        order, ties = by_two_keys(first, second)
        expected = np.lexsort((second, first))
        assert np.array_equal(np.sort(order), np.arange(n))
        assert np.array_equal(first[order], first[expected]), (n, spread, scale)
        assert np.array_equal(second[order], second[expected]), (n, spread, scale)
        pairs = first[order], second[order]
        equal = (pairs[0][1:] == pairs[0][:-1]) & (pairs[1][1:] == pairs[1][:-1])
        edges = np.flatnonzero(np.diff(np.concatenate([[0], equal.astype(np.int8), [0]])))
        assert np.array_equal(ties, np.stack([edges[::2], edges[1::2] + 1], axis=1))


def test_prefix_keys_are_big_endian_zero_padded_prefixes():
    """The sort keys of names: bytes 0-7 and 8-15 as big-endian integers, zero-padded
    past the name's end (one 8-byte load where 8 bytes are left in the buffer, masked
    to the name; byte by byte at the buffer's end), for names of 0-20 bytes anywhere,
    the last ones ending at the buffer's last byte."""
    from nbayes.tokens import _kernels

    rng = np.random.default_rng(1)
    lengths = np.concatenate([np.arange(21), rng.integers(0, 21, 300), np.arange(21)[::-1]])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    ends = starts + lengths
    buf = rng.integers(0, 256, int(ends[-1]), dtype=np.uint8)
    first = np.empty(len(starts), np.uint64)
    second = np.empty(len(starts), np.uint64)
    _kernels.prefix_keys(buf, starts, ends, first, second)
    for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
        name = buf[s:e].tobytes() + bytes(16)
        assert first[i] == int.from_bytes(name[:8], "big"), i
        assert second[i] == int.from_bytes(name[8:16], "big"), i


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)])
def test_vocabulary_sort_orders_names_as_python_sorts(ngram_range, compiled, monkeypatch):
    """Names sharing long prefixes (16+ bytes), prefixes of each other, non-ASCII:
    the fitted vocabulary's columns are in Python's sorted order of the names, by the
    compiled prefix-key sort and by the Python sort small vocabularies take."""
    from nbayes.tokens import _sort

    monkeypatch.setattr(_sort, "COMPILED_MIN", 0 if compiled else 10**9)
    stems = ["a" * 20, "ab" * 9, "\u00e9t\u00e9" * 5, "x", "word"]
    docs = [" ".join(s + t for s in stems for t in ["", "a", "b", "zz", "\u00e0"][: 1 + i % 5])
            for i in range(40)]  # fmt: skip
    ours = CountVectorizer(ngram_range=ngram_range).fit(docs)
    names = list(ours.get_feature_names_out())
    assert names == sorted(names)
    assert names == list(sk.CountVectorizer(ngram_range=ngram_range).fit(docs)
                         .get_feature_names_out())  # fmt: skip


def test_fitted_vocabulary_is_compacted_and_still_transforms():
    """After fit the vocabulary keeps only what look-ups need (no spare room, hash
    tables at most half full, no row-position arrays), and transforms and refits
    as scikit-learn's vectorizer does."""
    from nbayes.tokens._engine import _pow2

    ours, theirs = CountVectorizer(ngram_range=(1, 2)), sk.CountVectorizer(ngram_range=(1, 2))
    ours.fit(DOCS * 30)
    theirs.fit(DOCS * 30)
    vocab = ours._vocab
    assert len(vocab.t_off) == vocab.n_tokens + 1 and len(vocab.t_where) == 0
    assert len(vocab.t_table) // 2 == _pow2(2 * (vocab.n_tokens + 1))
    assert len(vocab.g_table) // 2 == _pow2(2 * (vocab.n_grams + 1))
    assert (ours.transform(UNSEEN + DOCS) != theirs.transform(UNSEEN + DOCS)).nnz == 0
    assert (ours.fit_transform(UNSEEN) != theirs.fit_transform(UNSEEN)).nnz == 0
    assert ours.vocabulary_ == theirs.vocabulary_


@pytest.mark.parametrize("compiled", [False, True])
def test_name_order_is_pythons_sort_of_the_bytes(compiled, monkeypatch):
    """Names in code-point (UTF-8 byte) order by NumPy's key sort and by the compiled
    one: many sharing up to 20-byte prefixes (ties past the 16-byte keys, sorted in
    Python), empty names, names ending at the buffer's last byte."""
    from nbayes.tokens import _sort

    if compiled:
        monkeypatch.setattr(_sort, "COMPILED_MIN", 0)
    rng = np.random.default_rng(7)
    for _ in range(60):
        prefix = rng.integers(0, 256, 20, dtype=np.uint8).tobytes()
        names = sorted({
            prefix[: int(rng.integers(0, 21))] * int(rng.random() < 0.6)
            + rng.integers(0, 256, int(rng.integers(0, 12)), dtype=np.uint8).tobytes()
            for _ in range(int(rng.integers(1, 300)))
        })  # fmt: skip
        shuffled = [names[i] for i in rng.permutation(len(names))]
        buf = np.frombuffer(b"".join(shuffled), np.uint8).copy()
        lengths = np.array([len(name) for name in shuffled], dtype=np.int64)
        ends = np.cumsum(lengths)
        order = _sort.name_order(buf, ends - lengths, ends)
        assert [shuffled[i] for i in order] == names
