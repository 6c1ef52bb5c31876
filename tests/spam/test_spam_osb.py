"""Tokenizer options: orthogonal sparse bigrams (OSB) and the header modes."""

from __future__ import annotations

import pytest

from nbayes.spam.tokens import MAX_WORD, TokenOptions, osb_tokens, tokenize


def test_osb_pairs_each_word_with_the_words_before_it_in_the_window():
    words = "a b c d e".split()
    assert osb_tokens(words, 2) == {"a b", "b c", "c d", "d e"}
    assert osb_tokens(words, 3) == {"a b", "b c", "c d", "d e", "a _ c", "b _ d", "c _ e"}
    assert osb_tokens(words, 5) == {
        "a b", "b c", "c d", "d e",
        "a _ c", "b _ d", "c _ e",
        "a _ _ d", "b _ _ e",
        "a _ _ _ e",
    }  # fmt: skip
    assert osb_tokens(["a"], 5) == set() and osb_tokens([], 3) == set()


def test_osb_of_repeated_words_and_long_words():
    assert osb_tokens("x y x y".split(), 3) == {"x y", "y x", "x _ x", "y _ y"}
    long = "w" * (MAX_WORD + 5)
    assert osb_tokens(["a", long], 2) == {"a " + "w" * MAX_WORD}


def test_tokenize_adds_the_body_pairs_to_the_unigrams():
    raw = b"Subject: Cheap Meds\n\nBuy cheap pills now\n"
    plain = tokenize(raw, TokenOptions(osb=0))
    osb = tokenize(raw, TokenOptions(osb=3))
    assert osb - plain == {
        "buy cheap", "cheap pills", "pills now", "buy _ pills", "cheap _ now",
    }  # fmt: skip
    assert plain == tokenize(raw, TokenOptions(osb=1))
    assert tokenize(raw) - plain == {"buy cheap", "cheap pills", "pills now"}  # the default: 2


def test_osb_pairs_stay_within_one_text_part():
    raw = (
        b"Content-Type: multipart/alternative; boundary=b\n\n"
        b"--b\nContent-Type: text/plain\n\none two\n"
        b"--b\nContent-Type: text/plain\n\nthree four\n--b--\n"
    )
    pairs = {t for t in tokenize(raw, TokenOptions(osb=2)) if " " in t}
    assert pairs == {"one two", "three four"}


@pytest.mark.parametrize("bad", [{"osb": -1}, {"osb": 6}, {"headers": "all"}])
def test_bad_options_are_refused(bad):
    with pytest.raises(ValueError, match=r"osb|headers"):
        TokenOptions(**bad)


def test_header_modes():
    raw = b"Subject: Hello World\nX-Mailer: Mutt\nFrom: a@b.example\n\nbody\n"
    named = tokenize(raw, TokenOptions(headers="named"))
    assert {"subject:hello", "x-mailer:mutt", "hdr:x-mailer", "from:a@b.example"} <= named
    grouped = tokenize(raw)  # the default
    assert {"subject:hello", "head:mutt", "hdr:x-mailer", "from:a@b.example"} <= grouped
    assert "x-mailer:mutt" not in grouped
    plain = tokenize(raw, TokenOptions(headers="plain"))
    assert {"hello", "world", "mutt", "body"} <= plain
    assert not any(t.startswith(("subject:", "hdr:", "x-mailer:")) for t in plain)
