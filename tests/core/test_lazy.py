"""nbayes.core.lazy: package exports imported on first use, and regular expressions
compiled on first use (LazyPattern)."""

from __future__ import annotations

import copy
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nbayes.core.lazy import LazyPattern

WORD = r"[$€£]?[^\W_][\w'.\-$@]*[^\W_]"


def test_a_lazy_pattern_compiles_on_first_use_and_then_binds_the_method():
    lazy = LazyPattern(WORD)
    assert "findall" not in vars(lazy)  # nothing compiled yet
    assert lazy.findall("one two") == ["one", "two"]
    assert vars(lazy)["findall"] == re.compile(WORD).findall  # bound once, read directly
    assert lazy.pattern == WORD and lazy.flags == re.compile(WORD).flags


@given(st.text(), st.sampled_from([(WORD, 0), (r"(?:https?|ftp)://\S+|www\.\S+", re.I)]))
def test_a_lazy_pattern_matches_as_the_compiled_one(text, source):
    lazy, compiled = LazyPattern(*source), re.compile(*source)
    assert lazy.findall(text) == compiled.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    found, expected = lazy.search(text), compiled.search(text)
    assert (found and found.span()) == (expected and expected.span())
    assert lazy.sub("_", text) == compiled.sub("_", text)


def test_a_lazy_pattern_has_no_private_or_special_attributes_to_invent():
    lazy = LazyPattern(rb"\r\n|\r|\n")
    with pytest.raises(AttributeError):
        lazy._anything  # noqa: B018
    with pytest.raises(AttributeError):
        lazy.__getstate_extra__  # noqa: B018
    assert copy.deepcopy(lazy).split(b"a\r\nb") == [b"a", b"b"]
    assert repr(lazy) == "LazyPattern(b'\\\\r\\\\n|\\\\r|\\\\n', 0)"


def test_a_bad_pattern_fails_where_it_is_used():
    lazy = LazyPattern("(unclosed")
    with pytest.raises(re.error):
        lazy.search("x")


def test_importing_the_spam_reader_compiles_only_the_patterns_it_needs_at_once():
    """The tokenizer and the mail reader leave the patterns plain ASCII one-part mail
    never uses uncompiled (LazyPattern) until a message needs them."""
    code = (
        "import nbayes.spam.tokens as t, nbayes.spam.head as h, nbayes.spam.mailtext as m\n"
        "from nbayes.core.lazy import LazyPattern\n"
        "lazy = [p for mod in (t, h, m) for p in vars(mod).values()"
        " if isinstance(p, LazyPattern)]\n"
        "assert len(lazy) >= 6, lazy\n"
        "assert not any('findall' in vars(p) or 'search' in vars(p) for p in lazy)\n"
        "t.tokenize(b'Subject: caf\\xc3\\xa9\\nContent-Type: text/plain; charset=utf-8\\n\\n"
        "\\xc3\\xa9t\\xc3\\xa9 www.example.com\\n')\n"
        "assert 'findall' in vars(t._WORD)\n"  # non-ASCII text: the Unicode word pattern
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
