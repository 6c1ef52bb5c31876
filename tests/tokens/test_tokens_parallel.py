"""nbayes.tokens' two-thread pass: analyzing two halves of the documents with their
own tables and folding them together gives exactly the serial result (and
scikit-learn's matrices), for fitting, transforming, n-grams and stop words."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction import text as sk

from nbayes.text import CountVectorizer, HashingVectorizer, Tokenizer
from nbayes.tokens import _parallel

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
        monkeypatch.setattr(_parallel, "MIN_ENTRIES", 0)
        monkeypatch.setattr(_parallel, "MIN_PIECE", 0)
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
    {"binary": True, "max_features": 25, "ngram_range": (1, 2)},
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


def test_claims_hand_out_every_document_once_front_and_back():
    """The runs the two threads take: from the front in order from document 0, from
    the back in reverse order from the last; disjoint, covering every document once,
    each a quarter of the bytes left (whole documents, at least MIN_PIECE bytes) so
    that they shrink towards the meeting point, whatever the order of the takes."""
    rng = np.random.default_rng(11)
    sizes = rng.integers(0, 5000, 400)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    for seed in range(5):
        order = np.random.default_rng(seed).random(1000) < 0.5
        claims = _parallel.Claims(offsets)
        front, back = [], []
        for from_front in order:
            left = int(offsets[claims.back] - offsets[claims.front])
            run = claims.take(bool(from_front))
            if run is None:
                break
            span = int(offsets[run[1]] - offsets[run[0]])
            assert span <= max(_parallel.MIN_PIECE, left // 4) + sizes.max()
            assert span >= min(_parallel.MIN_PIECE, left // 4, left) or run[1] - run[0] == 1
            (front if from_front else back).append(run)
        assert claims.take(True) is None and claims.take(False) is None
        runs = front + back[::-1]
        assert runs[0][0] == 0 and runs[-1][1] == len(sizes)
        assert all(a[1] == b[0] and a[0] < a[1] for a, b in itertools.pairwise(runs))


def test_a_slow_thread_takes_fewer_runs_and_changes_nothing(threads, monkeypatch):
    """With the front thread slowed down, the back thread takes several runs (each
    appended to its one stream, in reverse document order); the joined result is
    still the serial one: matrices, vocabulary and tokens."""
    import time

    train, test = corpus(400, 12), corpus(80, 13)
    settings = {"ngram_range": (1, 2), "min_df": 2}
    threads(False)
    serial = CountVectorizer(**settings)
    X_serial, T_serial = serial.fit_transform(train), serial.transform(test)
    tokens = Tokenizer(ngram_range=(1, 2)).tokenize_many(train)
    threads(True)
    taken = {True: 0, False: 0}
    take = _parallel.Claims.take

    def slow_front(self, from_front):
        if from_front:
            time.sleep(0.005)
        run = take(self, from_front)
        taken[from_front] += run is not None
        return run

    monkeypatch.setattr(_parallel.Claims, "take", slow_front)
    parallel = CountVectorizer(**settings)
    assert same(parallel.fit_transform(train), X_serial)
    assert taken[False] >= 2 and taken[False] > taken[True]
    assert parallel.vocabulary_ == serial.vocabulary_
    assert same(parallel.transform(test), T_serial)
    assert Tokenizer(ngram_range=(1, 2)).tokenize_many(train) == tokens


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


@pytest.mark.parametrize("two_threads", [False, True])
def test_int64_streams_equal_int32_streams(threads, monkeypatch, two_threads):
    """Streams past int32's range are int64 (forced here by lowering the bound): the
    same matrices, vocabulary and hashed features as the int32 streams."""
    from nbayes.tokens import _engine

    train, test = corpus(300, 3), corpus(80, 4)
    threads(two_threads)
    settings = {"ngram_range": (1, 2), "stop_words": "english"}
    narrow = CountVectorizer(**settings)
    X_narrow, T_narrow = narrow.fit_transform(train), narrow.transform(test)
    H_narrow = HashingVectorizer(ngram_range=(1, 2)).transform(train)
    assert narrow._vocab.stream_dtype(10**6) == np.int32
    monkeypatch.setattr(_engine, "INT32_BOUND", 0)
    wide = CountVectorizer(**settings)
    X_wide = wide.fit_transform(train)
    assert wide._vocab.stream_dtype(1) == np.int64
    assert same(X_wide, X_narrow) and wide.vocabulary_ == narrow.vocabulary_
    assert same(wide.transform(test), T_narrow)
    assert abs(HashingVectorizer(ngram_range=(1, 2)).transform(train) - H_narrow).max() == 0


@pytest.mark.parametrize("two_threads", [False, True])
def test_small_chunks_and_short_streams_change_nothing(threads, monkeypatch, two_threads):
    """Documents joined a few at a time (chunks smaller than one document too), and
    stream arrays that start short and grow many times: the same matrices."""
    from nbayes.tokens import _encode, _engine, _pass

    train, test = corpus(300, 5), corpus(80, 6)
    threads(two_threads)
    settings = {"ngram_range": (1, 3), "min_df": 2}
    usual = CountVectorizer(**settings)
    X_usual, T_usual = usual.fit_transform(train), usual.transform(test)
    tokens = Tokenizer(ngram_range=(1, 2)).tokenize_many(train)
    monkeypatch.setattr(_encode, "CHUNK_BYTES", 64)
    monkeypatch.setattr(_pass, "STREAM_BYTES_TALLY", 10**9)
    monkeypatch.setattr(_pass, "STREAM_BYTES", 10**9)
    text = _engine.encode_documents(train)
    chunks = list(text.chunks(0, text.n_docs))
    assert len(chunks) > 50
    assert all(len(buf) <= 64 or len(offsets) == 2 for _, buf, offsets, _ in chunks)
    assert b"".join(bytes(c[1]) for c in chunks) == "".join(train).encode()
    small = CountVectorizer(**settings)
    assert same(small.fit_transform(train), X_usual)
    assert small.vocabulary_ == usual.vocabulary_
    assert same(small.transform(test), T_usual)
    assert Tokenizer(ngram_range=(1, 2)).tokenize_many(train) == tokens


@pytest.mark.parametrize("dropped", [0.0, 0.3, 1.0])
def test_columns_written_in_two_threads_equal_one(threads, dropped):
    """The matrix's columns written in two halves of the rows (the first half's
    dropped entries leave a gap the second half is moved down over) equal the one
    pass of the kernel: indptr, columns and values."""
    from nbayes.tokens import _kernels

    rng = np.random.default_rng(7)
    n_rows, n_tok, n_gram = 500, 300, 40
    indptr = np.concatenate([[0], np.cumsum(rng.integers(0, 30, n_rows))]).astype(np.int64)
    entries = rng.integers(-n_gram, n_tok, indptr[-1]).astype(np.int32)
    counts = rng.integers(1, 9, indptr[-1]).astype(np.int32)
    column = rng.permutation(n_tok + n_gram).astype(np.int64)
    column[rng.random(n_tok + n_gram) < dropped] = -1
    col_tok, col_gram = column[:n_tok], column[n_tok:]
    one = entries.copy()
    values_one = np.empty(len(one), np.int64)
    ptr_one = np.empty(n_rows + 1, np.int64)
    kept_one = _kernels.to_columns(indptr, one, counts, col_tok, col_gram, one, values_one, ptr_one)
    threads(True)
    two = entries.copy()
    values_two = np.empty(len(two), np.int64)
    ptr_two, kept_two = _parallel.to_columns(
        indptr, two, counts, col_tok, col_gram, two, values_two
    )
    assert kept_two == kept_one
    assert np.array_equal(ptr_two, ptr_one)
    assert np.array_equal(two[:kept_two], one[:kept_one])
    assert np.array_equal(values_two[:kept_two], values_one[:kept_one])


def test_frequencies_counted_during_the_fold_equal_a_count_of_the_stream(threads):
    """A two-thread fit counts the second half's frequencies while the vocabularies
    are folded, then the first half's, and adds them mapped to the folded ids:
    the same document and corpus frequencies as counting the joined stream."""
    from nbayes.tokens import _engine

    threads(True)
    vocab = _engine.Vocabulary(_engine.Rules(ngram_range=(1, 2)))
    vocab.add_stop_words(["the", "and"])
    text = _engine.encode_documents(corpus(300, 8))
    _, entries, counts = vocab.analyze(text, True, tally=True, sort=True, count=True)
    n_features, df, tf = vocab.counted
    assert n_features == vocab.n_features
    vocab.counted = None  # count the joined stream afresh
    df_all, tf_all = vocab.frequencies(entries, counts)
    assert np.array_equal(df, df_all) and np.array_equal(tf, tf_all)
    assert df.sum() == len(entries) and tf.sum() == counts.sum()


def test_folded_tokens_are_found_in_the_table_at_their_ids(threads):
    """After the fold (ids in the second half's order of appearance, table slots
    taken in its table's slot order), looking every token's bytes up in the table
    finds it at its own id and inserts nothing."""
    from nbayes.tokens import _engine, _kernels

    threads(True)
    vocab = _engine.Vocabulary(_engine.Rules())
    vocab.analyze(_engine.encode_documents(corpus(400, 9)), True, tally=True)
    n_tok = vocab.n_tokens
    names = vocab.t_bytes[: vocab.t_off[n_tok]]
    ids = _kernels.intern_tokens(names, vocab.t_off[: n_tok + 1], *vocab._tokens(), vocab.counts)
    assert np.array_equal(ids, np.arange(n_tok)) and vocab.n_tokens == n_tok


def test_fits_from_several_threads_share_the_kept_worker(threads):
    """Fits called from several threads at once share the one kept worker thread
    (each caller's front thread takes the runs the worker has no time for): every
    result is still the serial one."""
    from concurrent.futures import ThreadPoolExecutor

    corpora = [corpus(300, seed) for seed in (14, 15)]
    threads(False)
    expected = [CountVectorizer(ngram_range=(1, 2)).fit_transform(docs) for docs in corpora]
    threads(True)
    with ThreadPoolExecutor(3) as callers:
        got = list(
            callers.map(
                lambda i: CountVectorizer(ngram_range=(1, 2)).fit_transform(corpora[i % 2]),
                range(8),
            )
        )
    assert all(same(X, expected[i % 2]) for i, X in enumerate(got))
