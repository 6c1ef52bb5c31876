"""Hostile mail costs the parser and tokenizer time linear in its size, and is still read.

Each hostile message is tokenized in a child process that is killed after
``DEADLINE`` seconds: before the scans were made linear, these took from 3 s to well
over a minute (``bench/RESULTS.md`` kept the figures). The scans themselves are run
on inputs 16 to 60 times larger, on which the quadratic versions would take hours, and
are checked equal to the patterns they replace."""

from __future__ import annotations

import html
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_mail import HOSTILE, deep_mime, deep_rfc822
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes.spam.markup import _HTML_DROP, _HTML_TAG, drop_hidden, html_to_text
from nbayes.spam.parse import MAX_HEADER_CHARS, MAX_PARAMETER_HEADER_CHARS, parse_mail
from nbayes.spam.tokens import _EMAIL, addresses, tokenize

DEADLINE = 30.0
HERE = Path(__file__).parent


def run_within_deadline(code: str) -> str:
    """Run ``code`` in a fresh interpreter (with this folder importable); its stdout."""
    result = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(HERE)!r}); {code}"],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_mail_is_tokenized_within_the_deadline(name):
    out = run_within_deadline(
        "from hostile_mail import HOSTILE; from nbayes.spam.tokens import tokenize;"
        " from nbayes.spam.parse import mime_depth;"
        f" mime_depth(HOSTILE[{name!r}]());"
        f" print(len(tokenize(HOSTILE[{name!r}]())))"
    )
    assert int(out) > 0


def test_mime_nested_1000_deep_is_read_flat_with_its_text():
    for raw in (deep_mime(1000), deep_rfc822(1000)):
        tokens = tokenize(raw)
        assert "defect:TooManyMimeBoundaries" in tokens
        assert "bottom" in tokens and "subject:hi" in tokens


def test_mime_nested_a_little_is_still_walked_part_by_part():
    mail = parse_mail(deep_mime(20))
    assert mail.parts == [("text/plain", "", "")]
    assert mail.texts == ["hello from the bottom"]  # its line end is the delimiter's
    assert "TooManyMimeBoundaries" not in mail.defects


def test_header_values_are_cut_before_they_are_decoded_or_parsed():
    long_subject = b"Subject: " + b"=?utf-8?q?caf=C3=A9?= " * 20_000 + b"\n"
    long_type = b'Content-Type: text/plain; charset="utf-8"; x="' + b";" * 100_000 + b'"\n'
    mail = parse_mail(b"From: a@b.example\n" + long_subject + long_type + b"\nbody\n")
    values = dict(mail.headers)
    assert values["subject"].startswith("cafécafé")  # space between encoded words dropped
    assert len(values["subject"]) < MAX_HEADER_CHARS
    assert len(values["content-type"]) == MAX_PARAMETER_HEADER_CHARS
    assert mail.parts == [("text/plain", "utf-8", "")]  # parameters still read
    assert mail.texts == ["body\n"]


# ------------------------------------------------------------ the scans, much larger
def test_scans_are_linear_on_inputs_hours_long_for_the_quadratic_ones():
    run_within_deadline(
        "from nbayes.spam.markup import drop_hidden, html_to_text;"
        "from nbayes.spam.tokens import addresses;"
        "assert drop_hidden('<!--' * 1_000_000) == '<!--' * 1_000_000;"
        "assert drop_hidden('<script>' * 500_000 + '</script>') == ' ';"
        "html_to_text('<a' * 2_000_000);"
        "html_to_text(('<' + ' ' * 100_000 + '/' + ' ' * 100_000 + '!') * 10);"
        "assert list(addresses('a' * 4_000_000 + '@')) == [];"
        "assert len(list(addresses('a.' * 2_000_000 + '@x.example'))) == 1"
    )


HIDDEN_PIECES = ["<!--", "-->", "<!-->", "<script", "</script>", "</SCRIPT >", "<style>",
                 "</style\n>", "</Style>", "<ſcript>", "</ſcript>", "<STYLE", "x", " ", ">",
                 "<", "<scripts>", "</scripts>", "<a href=x>", "< / b>", "<\u212aa>", "İ",
                 "</script", "-- >", "<styleX>"]  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(HIDDEN_PIECES), max_size=20))
def test_drop_hidden_and_html_to_text_equal_the_patterns_they_replace(pieces):
    markup = "".join(pieces)
    dropped = _HTML_DROP.sub(" ", markup)
    assert drop_hidden(markup) == dropped
    text, _, tags = html_to_text(markup)
    assert text == html.unescape(_HTML_TAG.sub(" ", dropped))
    assert tags == {t.lower() for t in _HTML_TAG.findall(dropped)}


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab.+-_@é \t1", max_size=40))
def test_addresses_equal_the_pattern_they_replace(text):
    def spans(matches):
        return [(m.start(), m.end(), m.group(1)) for m in matches]

    assert spans(addresses(text)) == spans(_EMAIL.finditer(text))


def _codecs() -> list[str]:
    import encodings
    import pkgutil

    return sorted({m.name for m in pkgutil.iter_modules(encodings.__path__)} - {"aliases"})


@pytest.mark.parametrize("charset", _codecs())
def test_a_charset_is_decoded_only_by_a_character_set_codec(charset):
    """Every codec Python ships, named as a charset: a character set decodes the text,
    anything else (bytes-to-bytes codecs such as rot13, base64_codec, zip; punycode,
    idna, the escape codecs) is taken for an unknown charset, UTF-8 with replacements,
    and nothing raises."""
    import codecs

    from nbayes.spam.mailtext import NOT_CHARSETS, decode_bytes

    data = b"caf\xc3\xa9 +AGE- a-9 \\x41 =41 YWJj\n"
    try:
        codec = codecs.lookup(charset)
    except LookupError:  # a platform's codec (mbcs, oem on Windows)
        codec = None
    fallback = data.decode("utf-8", errors="replace")
    decoded = decode_bytes(data, charset)
    if codec is None or codec.name in NOT_CHARSETS or not codec._is_text_encoding:
        assert decoded == fallback
    else:
        assert decoded == data.decode(charset, errors="replace") or decoded == fallback
    raw = b"Subject: x\nContent-Type: text/plain; charset=" + charset.encode() + b"\n\n" + data
    assert parse_mail(raw) == parse_mail(raw, direct=False)
