"""The 8-bytes-at-a-time scan of pure-ASCII documents (nbayes.text._kernels_ascii):
its byte classes against Python's ``\\w``, and its tokens and matrices against
Python's ``re`` and scikit-learn on ASCII text built to hit its edge cases (tokens
ending on and across 8-byte boundaries, at document ends, upper case, digits,
underscores, control bytes) — the same documents with one non-ASCII character
appended, and documents mixing ASCII runs with non-ASCII characters at every
density (ASCII runs scanned 8 bytes at a time, the spans around non-ASCII bytes
decoded), must give the same tokens."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.feature_extraction import text as sk

pytest.importorskip("numba")

from test_text_vectorizers import assert_same_matrix

from nbayes.text import CountVectorizer, Tokenizer, _unicode
from nbayes.text._kernels_ascii import load8, word_bytes

# bytes chosen to sit next to the class boundaries of [0-9A-Za-z_]
EDGE_BYTES = b"/0123456789:@ABCYZ[^_`abcyz{\x7f\x00\x10\x19\x1f\t\n -.,'"


def test_word_bytes_match_python_word_class_for_every_ascii_byte():
    is_word = _unicode.char_classes()[:128] & _unicode.WORD
    for byte in range(128):
        assert bool(re.match(r"\w", chr(byte))) == bool(is_word[byte])
        for position in range(8):
            block = bytearray(b" " * 8)
            block[position] = byte
            w = load8(np.frombuffer(bytes(block), np.uint8), 0, 8)
            mask = int(word_bytes(np.uint64(w))) & (2**64 - 1)
            assert mask == (0x80 << (8 * position) if is_word[byte] else 0), (byte, position)


def test_load8_stops_at_the_document_end():
    buf = np.frombuffer(b"abcdefghij", np.uint8)
    assert int(load8(buf, 0, 3)) == int.from_bytes(b"abc", "little")
    assert int(load8(buf, 2, 10)) == int.from_bytes(b"cdefghij", "little")
    assert int(load8(buf, 4, 10)) == int.from_bytes(b"efghij", "little")


def ascii_docs(n_docs: int, seed: int) -> list[str]:
    """Documents of words of 1-26 characters (mixed case, digits, underscores)
    separated by runs of edge bytes, some ending inside a word."""
    rng = np.random.default_rng(seed)
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_", np.uint8)
    separators = np.frombuffer(EDGE_BYTES.translate(None, b"0123456789ABCYZabcyz_"), np.uint8)
    vocabulary = []
    for _ in range(60):
        word = rng.choice(alphabet, size=rng.integers(1, 27))
        if rng.random() < 0.2:
            word = rng.choice(alphabet[-11:-1], size=rng.integers(1, 12))  # digits only
        vocabulary.append(word.tobytes().decode())
    docs = []
    for _ in range(n_docs):
        parts = []
        for _ in range(rng.integers(0, 40)):
            parts.append(vocabulary[rng.integers(len(vocabulary))])
            parts.append(rng.choice(separators, size=rng.integers(1, 4)).tobytes().decode())
        if parts and rng.random() < 0.5:
            parts.pop()  # end inside a word
        docs.append("".join(parts))
    return docs


def expected_tokens(doc: str, tokenizer: Tokenizer) -> list[str]:
    """Python's ``re`` and ``str.lower`` with the tokenizer's word rules."""
    text = doc.lower() if tokenizer.lowercase else doc
    out = []
    for token in re.findall(r"\w+", text):
        if len(token) < tokenizer.min_len:
            continue
        if tokenizer.max_len is not None and len(token) > tokenizer.max_len:
            continue
        if not tokenizer.numbers and re.fullmatch(r"\d+", token):
            continue
        out.append(token)
    return out


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"lowercase": False},
        {"min_len": 1},
        {"min_len": 8, "max_len": 9},
        {"numbers": False, "min_len": 1},
    ],
)
def test_ascii_tokens_equal_python_re_and_the_decoding_path(options):
    docs = ascii_docs(150, seed=3)
    tokenizer = Tokenizer(kind="words", stop_words=None, **options)
    fast = tokenizer.tokenize_many(docs)
    assert fast == [expected_tokens(doc, tokenizer) for doc in docs]
    # a trailing non-ASCII dash (not a word character): the document is scanned
    # as ASCII up to the span around the dash, which is decoded
    decoded = tokenizer.tokenize_many([doc + " \u2014" for doc in docs])
    assert decoded == fast


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"lowercase": False},
        {"token_pattern": r"(?u)\b\w+\b"},
        {"ngram_range": (1, 2), "stop_words": ["abc", "ABC", "the"]},
        {"stop_words": "english", "min_df": 2, "max_df": 0.5},
        {"max_features": 40},
        {"binary": True, "dtype": np.float32},
    ],
)
def test_count_vectorizer_on_ascii_edge_text_equals_scikit_learn(settings):
    docs = [*ascii_docs(200, seed=11), "The the THE tHe abc ABC", "x", ""]
    ours = CountVectorizer(**settings)
    theirs = sk.CountVectorizer(**settings)
    assert_same_matrix(ours.fit_transform(docs), theirs.fit_transform(docs))
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    unseen = ascii_docs(20, seed=12)
    assert_same_matrix(ours.transform(unseen), theirs.transform(unseen))


def mixed_docs(n_docs: int, seed: int, share: float) -> list[str]:
    """:func:`ascii_docs` with a ``share`` of their characters swapped for non-ASCII
    ones (word characters: accented, Greek, CJK letters; non-word: a pound sign, a
    dash, a no-break space), so ASCII runs and decoded spans meet at every kind of
    boundary, including inside words and across 8-byte blocks."""
    rng = np.random.default_rng(seed)
    others = list("\u00e9\u00c2\u00c9\u03a9\u03b2\u4e2d\u00b2\u00a3\u2014\u00a0\u00df")
    docs = []
    for doc in ascii_docs(n_docs, seed):
        chars = list(doc)
        for i in np.flatnonzero(rng.random(len(chars)) < share):
            chars[i] = others[rng.integers(len(others))]
        docs.append("".join(chars))
    return docs


@pytest.mark.parametrize("share", [0.003, 0.03, 0.3, 1.0])
@pytest.mark.parametrize("options", [{}, {"lowercase": False, "min_len": 1}, {"numbers": False}])
def test_documents_mixing_ascii_and_other_text_equal_python_re(share, options):
    docs = mixed_docs(150, seed=5, share=share)
    tokenizer = Tokenizer(kind="words", stop_words=None, **options)
    assert tokenizer.tokenize_many(docs) == [expected_tokens(doc, tokenizer) for doc in docs]


@pytest.mark.parametrize(
    "settings",
    [{}, {"token_pattern": r"(?u)\b\w+\b", "lowercase": False}, {"ngram_range": (1, 3)}],
)
def test_count_vectorizer_on_mixed_text_equals_scikit_learn(settings):
    docs = [*mixed_docs(200, seed=13, share=0.02), *mixed_docs(20, seed=14, share=0.5)]
    ours = CountVectorizer(**settings)
    theirs = sk.CountVectorizer(**settings)
    assert_same_matrix(ours.fit_transform(docs), theirs.fit_transform(docs))
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    unseen = mixed_docs(30, seed=15, share=0.05)
    assert_same_matrix(ours.transform(unseen), theirs.transform(unseen))


@pytest.mark.parametrize(
    "settings", [{}, {"lowercase": False, "token_pattern": r"(?u)\b\w+\b"}, {"ngram_range": (1, 2)}]
)
def test_latin1_bytes_decoded_by_the_pass_equal_scikit_learn(settings):
    """latin-1 bytes go to the compiled pass undecoded: every byte value, in words
    and between them, in documents of bytes only and mixed with str documents."""
    rng = np.random.default_rng(21)
    latin1 = [
        doc.encode("latin-1", "replace") for doc in mixed_docs(150, seed=22, share=0.05)
    ]
    every_byte = bytes(range(256))
    latin1 += [every_byte, every_byte[::-1], b"caf\xe9 CAF\xc9 \xdf\xb5\xff \xa3\xc25m",
               rng.integers(0, 256, 5000, dtype=np.uint8).tobytes()]  # fmt: skip
    for docs in (latin1, [*latin1, "na\u00efve \u03a3\u039f\u03a3 text"]):
        ours = CountVectorizer(encoding="latin-1", **settings)
        theirs = sk.CountVectorizer(encoding="latin-1", **settings)
        assert_same_matrix(ours.fit_transform(docs), theirs.fit_transform(docs))
        assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
        unseen = latin1[::-7]
        assert_same_matrix(ours.transform(unseen), theirs.transform(unseen))
