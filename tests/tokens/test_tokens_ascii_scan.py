"""The scan of pure-ASCII text, 64 bytes at a time (nbayes.tokens._kernels_ascii):
its byte classes against Python's ``\\w``, its block masks, and its tokens and
matrices against Python's ``re`` and scikit-learn on ASCII text built to hit its
edge cases (tokens ending on and across 8- and 64-byte boundaries, tokens over
several blocks, at document ends, upper case, digits, underscores, control bytes)
— the same documents with one non-ASCII character appended, and documents mixing
ASCII runs with non-ASCII characters at every density and at block edges (ASCII
runs scanned as ASCII, the spans around non-ASCII bytes decoded), must give the
same tokens; the look-up of long tokens compares bytes whatever the hash says."""

from __future__ import annotations

import re

import numba as nb
import numpy as np
import pytest
from sklearn.feature_extraction import text as sk
from test_tokens_vectorizers import assert_same_matrix

from nbayes.text import CountVectorizer, Tokenizer
from nbayes.tokens import _kernels_ascii, _kernels_table, _unicode
from nbayes.tokens._prefetch import prefetch


# The helpers have no Python wrapper (only kernels call them): compiled stubs call them.
@nb.njit
def _bits(m):
    return _kernels_ascii._bits(m)


@nb.njit
def _block(buf, j, end):
    return _kernels_ascii._block(buf, j, end)


@nb.njit
def load8(buf, j, end):
    return _kernels_ascii.load8(buf, j, end)


@nb.njit
def word_bytes(w):
    return _kernels_ascii.word_bytes(w)


@nb.njit
def find_key(table, t_bytes, t_off, buf, s, length, h, lowercase):
    return _kernels_table.find_key(table, t_bytes, t_off, buf, s, length, h, lowercase)


@nb.njit
def add_key(table, t_bytes, t_off, t_stop, counts, buf, s, length, h, slot, lowercase):
    return _kernels_table.add_key(
        table, t_bytes, t_off, t_stop, counts, buf, s, length, h, slot, lowercase
    )


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
    latin1 = [doc.encode("latin-1", "replace") for doc in mixed_docs(150, seed=22, share=0.05)]
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


def test_bits_gather_one_flag_per_byte():
    for pattern in range(256):
        m = sum(0x80 << (8 * i) for i in range(8) if pattern >> i & 1)
        assert int(_bits(np.uint64(m))) == pattern


def test_block_mask_marks_the_word_bytes_of_64_bytes_up_to_the_end():
    rng = np.random.default_rng(31)
    is_word = _unicode.char_classes()[:128] & _unicode.WORD
    for _ in range(200):
        buf = rng.integers(0, 128, 80, dtype=np.uint8)
        start, end = int(rng.integers(0, 16)), int(rng.integers(16, 81))
        mask, high = _block(buf, start, end)
        expected = sum(1 << i for i in range(64) if start + i < end and is_word[buf[start + i]])
        assert int(mask) == expected and int(high) == 0
    buf = np.zeros(64, np.uint8)
    buf[40] = 0xC3
    assert int(_block(buf, 0, 64)[1]) != 0 and int(_block(buf, 0, 40)[1]) == 0


def block_edge_docs() -> list[str]:
    """Tokens ending and starting on each side of 64-byte block boundaries, tokens of
    60-200 bytes running over several blocks, documents of exactly 64 and 128 bytes
    ending inside a token, and non-ASCII characters at block edges, inside tokens
    and next to them."""
    docs = []
    for cut in range(56, 72):
        docs.append("a" * cut + " Bc " + "x" * (127 - cut - 4))
        docs.append("ab " * (cut // 3) + "Y" * (130 - cut) + " zz")
    for length in (60, 63, 64, 65, 127, 128, 129, 200):
        docs.append(f"{'Q' * length} {'7' * length} _{'k' * length}")
    docs += ["w" * 64, "ab " * 21 + "c", "x" * 127 + "y", " " * 63 + "ab"]
    for at in (0, 1, 62, 63, 64, 65, 127, 128):
        for char in ("\u00e9", "\u2014", "\u00a3"):
            text = list("word " * 30)
            text[at] = char
            docs.append("".join(text))
            docs.append("q" * at + char + "Q" * 70)
    return docs


@pytest.mark.parametrize(
    "options", [{}, {"lowercase": False}, {"min_len": 1}, {"numbers": False, "max_len": 64}]
)
def test_tokens_at_64_byte_block_edges_equal_python_re(options):
    docs = block_edge_docs()
    tokenizer = Tokenizer(kind="words", stop_words=None, **options)
    assert tokenizer.tokenize_many(docs) == [expected_tokens(doc, tokenizer) for doc in docs]
    latin1 = [doc.encode("latin-1", "replace") for doc in docs]
    ours = CountVectorizer(encoding="latin-1").fit(latin1)
    theirs = sk.CountVectorizer(encoding="latin-1").fit(latin1)
    assert_same_matrix(ours.transform(latin1), theirs.transform(latin1))
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())


def test_a_long_token_with_an_equal_hash_and_length_is_compared_byte_by_byte():
    table = np.full(2 * 16, -1, np.int64)
    t_bytes = np.frombuffer(b"hello_world_x" + bytes(16), np.uint8).copy()
    t_off, t_stop = np.array([0, 13, 0], np.int64), np.zeros(2, np.uint8)
    counts = np.array([1, 0], np.int64)
    buf = np.frombuffer(b"  HELLO_WORLD_X hello_world_y", np.uint8)
    h = 12345  # stands for both tokens' hash: a collision
    table[2 * (h & 15)], table[2 * (h & 15) + 1] = h, (13 << 32) | 0
    assert find_key(table, t_bytes, t_off, buf, 2, 13, h, True)[0] == 0
    assert find_key(table, t_bytes, t_off, buf, 2, 13, h, False)[0] == -1
    tid, slot = find_key(table, t_bytes, t_off, buf, 16, 13, h, True)
    assert tid == -1 and slot == (h + 1) & 15  # the next free slot, not the other key's
    assert add_key(table, t_bytes, t_off, t_stop, counts, buf, 16, 13, h, slot, True) == 1
    assert t_bytes[13:26].tobytes() == b"hello_world_y"
    assert find_key(table, t_bytes, t_off, buf, 16, 13, h, True)[0] == 1
    assert find_key(table, t_bytes, t_off, buf, 2, 13, h, True)[0] == 0


def test_prefetch_is_only_a_hint():
    @nb.njit
    def total(values, order, hint):
        out = 0
        for i in range(order.shape[0]):
            if hint and i + 4 < order.shape[0]:
                prefetch(values, order[i + 4])
            out += values[order[i]]
        return out

    values = np.random.default_rng(0).integers(0, 1000, 1 << 16)
    order = np.random.default_rng(1).permutation(1 << 16)
    assert total(values, order, True) == total(values, order, False) == values[order].sum()
