"""nbayes.text.Tokenizer: each rule on hand-made text, and the word rules against
Python's own ``re`` and ``str.lower`` (the definitions scikit-learn uses)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes.text import ENGLISH_STOP_WORDS, Tokenizer
from nbayes.tokens import _unicode

PLAIN = dict(stop_words=None)


def test_unicode_words_and_case_folding():
    text = "Über STRASSE straße École, naïve café 東京 x_y"
    assert Tokenizer(kind="words", **PLAIN)(text) == [
        "über", "strasse", "straße", "école", "naïve", "café", "東京", "x_y",
    ]  # fmt: skip
    assert Tokenizer(kind="words", lowercase=False, **PLAIN)(text)[:2] == ["Über", "STRASSE"]


def test_context_dependent_lower_case_follows_python():
    # final sigma and dotted capital I have no one-to-one lower case
    text = "ΟΔΟΣ ΣΟΦΟΣ İSTANBUL"
    expected = re.findall(r"(?u)\b\w\w+\b", text.lower())
    assert Tokenizer(kind="words", **PLAIN)(text) == expected
    assert "οδος" in expected  # final sigma, as Python writes it


def test_numbers_kept_or_dropped():
    text = "In 1993 pi was 3.14 and 1,000,000 people had abc123"
    rich = Tokenizer(**PLAIN)
    assert rich(text) == ["in", "1993", "pi", "was", "3.14", "and", "1,000,000", "people", "had",
                          "abc123"]  # fmt: skip
    no_numbers = Tokenizer(numbers=False, **PLAIN)(text)
    assert no_numbers == ["in", "pi", "was", "and", "people", "had", "abc123"]
    assert Tokenizer(kind="words", numbers=False, **PLAIN)("12 x9 9x 007") == ["x9", "9x"]


def test_urls_kept_whole_without_trailing_punctuation():
    text = "See http://example.com/a/b?q=1&r=2. Or (https://x.org/p_(1)), www.python.org!"
    tokens = Tokenizer(lowercase=False, **PLAIN)(text)
    assert tokens == ["See", "http://example.com/a/b?q=1&r=2", "Or", "https://x.org/p_(1",
                      "www.python.org"]  # fmt: skip
    assert Tokenizer(**PLAIN)("FTP://Files.Example.COM/pub") == ["ftp://files.example.com/pub"]


def test_email_addresses_and_host_names_kept_whole():
    text = "Write to Jane.Doe@mail.example.org or root@cs.cmu.edu via news-server.example.com"
    assert Tokenizer(**PLAIN)(text) == [
        "write", "to", "jane.doe@mail.example.org", "or", "root@cs.cmu.edu", "via",
        "news-server.example.com",
    ]  # fmt: skip


def test_other_joined_runs_split_into_words():
    assert Tokenizer(min_len=1, **PLAIN)("e.g. well-known a@b x.9") == [
        "e", "g", "well", "known", "a", "b", "x", "9",
    ]  # fmt: skip


def test_words_kind_splits_urls_like_scikit_learn():
    text = "mail jane@example.org at http://x.org/a"
    assert Tokenizer(kind="words", **PLAIN)(text) == re.findall(r"(?u)\b\w\w+\b", text)


def test_min_and_max_length_in_code_points():
    text = "a ab abc abcd abcde abcdef ééé"
    assert Tokenizer(min_len=3, max_len=5, **PLAIN)(text) == ["abc", "abcd", "abcde", "ééé"]
    assert Tokenizer(min_len=1, **PLAIN)("a b") == ["a", "b"]


def test_english_stop_words_by_default_and_switchable():
    text = "the cat sat on the mat"
    assert Tokenizer()(text) == ["cat", "sat", "mat"]
    assert Tokenizer(stop_words=None)(text) == text.split()
    assert Tokenizer(stop_words=["cat", "mat"])(text) == ["the", "sat", "on", "the"]
    assert "the" in ENGLISH_STOP_WORDS
    # compared after case folding, as scikit-learn does
    assert Tokenizer(lowercase=False)("The the") == ["The"]


def test_word_ngram_windows():
    text = "one two three four"
    words = text.split()
    expected = words + [" ".join(words[i : i + 2]) for i in range(3)]
    expected += [" ".join(words[i : i + 3]) for i in range(2)]
    assert Tokenizer(ngram_range=(1, 3), **PLAIN)(text) == expected
    assert Tokenizer(ngram_range=(2, 2), **PLAIN)(text) == expected[4:7]
    # stop words leave the window before n-grams are formed
    assert Tokenizer(ngram_range=(2, 2))("cat on the mat") == ["cat mat"]
    assert Tokenizer(ngram_range=(3, 4), **PLAIN)("a1 b2") == []


def test_bytes_are_utf8_and_many_documents_in_one_pass():
    tok = Tokenizer(**PLAIN)
    assert tok("Grüße aus Köln".encode()) == ["grüße", "aus", "köln"]
    assert tok(b"bad \xff byte") == ["bad", "byte"]
    assert tok.tokenize_many(["x1 y1", "", "z1"]) == [["x1", "y1"], [], ["z1"]]


def test_bad_settings_are_named():
    with pytest.raises(ValueError, match="kind"):
        Tokenizer(kind="chars")
    with pytest.raises(ValueError, match="min_len"):
        Tokenizer(min_len=0)
    with pytest.raises(ValueError, match="max_len"):
        Tokenizer(min_len=3, max_len=2)
    with pytest.raises(ValueError, match="ngram_range"):
        Tokenizer(ngram_range=(2, 1))
    with pytest.raises(ValueError, match="stop_words"):
        Tokenizer(stop_words="french")
    with pytest.raises(TypeError, match="document 0"):
        Tokenizer().tokenize_many([42])


def test_tables_match_python_for_every_code_point():
    classes = _unicode.char_classes()
    lower = _unicode.lower_map()
    rng = np.random.default_rng(0)
    sample = np.concatenate([np.arange(0x3000), rng.integers(0, 0x110000, 20000)])
    for c in sample:
        ch = chr(c)
        assert bool(classes[c] & _unicode.WORD) == bool(re.match(r"\w", ch)), hex(c)
        assert bool(classes[c] & _unicode.DIGIT) == bool(re.match(r"\d", ch)), hex(c)
        if len(ch.lower()) == 1:
            assert lower[c] == ord(ch.lower()), hex(c)
    # lower-casing twice changes nothing (documents may be lower-cased by Python first)
    assert np.array_equal(lower[lower], lower)


def test_tables_are_kept_in_the_user_cache_and_rebuilt_when_damaged(tmp_path, monkeypatch):
    """A table is built once and read back by a later process (here: a second kept
    wrapper, as a fresh process has); a damaged file is built again."""
    monkeypatch.setattr(_unicode, "cache_root", lambda: tmp_path)
    built = []

    def table():
        built.append(1)
        return np.arange(_unicode.N_CODE_POINTS, dtype=np.int32)

    first = _unicode._kept(table)()
    (path,) = (tmp_path / "tables").iterdir()
    assert path.name.startswith("table-py") and built == [1]
    again = _unicode._kept(table)()
    assert built == [1] and np.array_equal(again, first)
    path.write_bytes(path.read_bytes()[:100])  # cut short
    assert np.array_equal(_unicode._kept(table)(), first) and built == [1, 1]
    assert np.array_equal(_unicode._kept(table)(), first) and built == [1, 1]  # rewritten


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_words_kind_equals_python_regex(text):
    expected = re.findall(r"(?u)\b\w\w+\b", text.lower())
    assert Tokenizer(kind="words", stop_words=None)(text) == expected
    expected = re.findall(r"(?u)\b\w+\b", text)
    assert Tokenizer(kind="words", lowercase=False, min_len=1, stop_words=None)(text) == expected
