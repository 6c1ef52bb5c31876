"""The spam filter's speed work must not change a token: the faster parser against the
email package, and the pinned token sets of a SpamAssassin sample (the worker-process
tokenizer: tests/test_spam_workers.py)."""

from __future__ import annotations

import hashlib
import html
import json
import re
from email import message_from_bytes
from pathlib import Path

import pytest
from conftest import DATA, require_path
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes.spam.markup import _HTML_DROP, _HTML_TAG, _HTML_URL, html_to_text, html_urls
from nbayes.spam.mime import read_message
from nbayes.spam.parse import (
    MAX_PART_CHARS,
    Mail,
    MailParseError,
    check_is_mail,
    decode_bytes,
    decode_header_value,
    parse_mail,
    with_separator,
)
from nbayes.spam.tokens import _EMAIL, _WORD, LEGACY_OPTIONS, lower_words, text_tokens, tokenize

DIGESTS = Path(__file__).parents[1] / "data" / "spam_token_digests.json"


# ------------------------------------------------------------ the same tokens
def test_token_sets_of_a_spamassassin_sample_are_unchanged():
    """Digests written by the tokenizer before the speed work (tests/data/spam_token_digests.py),
    whose tokens are those of the legacy options (words only, every header by its name)."""
    root = require_path(DATA / "spamassassin")
    expected = json.loads(DIGESTS.read_text())
    assert len(expected) > 500
    changed = []
    for name, digest in expected.items():
        try:
            tokens = tokenize((root / name).read_bytes(), LEGACY_OPTIONS)
            got = hashlib.sha256("\n".join(sorted(tokens)).encode()).hexdigest()
        except MailParseError:
            got = "error"
        if got != digest:
            changed.append(name)
    assert changed == []


def structure(message) -> list:
    """Everything nbayes reads from a parsed message, part by part."""
    return [
        (
            part.get_unixfrom(),
            list(part.raw_items()),
            part.get_content_type(),
            None if part.is_multipart() else part.get_payload(),
            sorted(type(d).__name__ for d in part.defects),
        )
        for part in message.walk()
    ]


EDGE_CASES = [
    b"Subject: hi\n\nbody\n",
    b"Subject: hi\r\nTo: a@b.c\r\n\r\nbody\r\nmore\r\n",
    b"Subject: hi\rTo: x\r\rcr only\r",
    b"\nno headers at all\n",
    b"Subject: headers only, no newline",
    b"Subject: no separator\nthis line is not a header\nbody\n",
    b" continuation first\nSubject: x\n\nbody",
    b"From someone Sat Jan  1 00:00:00 2000\nSubject: envelope\n\nbody\n",
    b"Subject: folded\n  over two lines\n\tand three\n\nbody\n",
    b":no name\nSubject: x\n\nbody\n",
    b"Subject: caf\xc3\xa9 8-bit\nX-Raw: \xff\xfe\n\nbody \xe9\xe8\n",
    b"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nx\n--b--\n",
    b"Content-Type: multipart/mixed; boundary=b\n\nno parts, truncated",
    b"Content-Type: message/rfc822\n\nSubject: inner\n\ninner body\n",
    b"Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: base64\n\nPGI+eDwvYj4=\n",
    b"Subject: x\n\n\n\nbody after blank lines\n",
    b"Subject: x\n\r\nmixed separator\n",
    b"Subject: x\nFrom misplaced\nTo: z\n\nbody\n",
    b"Subject: x\nFrom last header line\n\nbody\n",
    b"Subject: x\x0bsplit by splitlines\nTo: z\n\nbody\n",
    b"Subject: x\r\n folded\r\n\tagain\r\nTo:\r\n\r\nbody\r\n",
]


@pytest.mark.parametrize("raw", EDGE_CASES)
def test_read_message_equals_the_email_package_on_edge_cases(raw):
    assert structure(read_message(raw)) == structure(message_from_bytes(raw))


PIECES = [
    b"Subject: x",
    b"From ",
    b"To: a@b.c",
    b"Content-Type: text/plain",
    b"Content-Type: multipart/alternative; boundary=zz",
    b"--zz",
    b"--zz--",
    b":",
    b" ",
    b"\t",
    b"\r",
    b"\n",
    b"\r\n",
    b"word",
    b"\xe9",
    b"From x",
    b"Content-Type: message/rfc822",
    b"\x0b",
    b"\x1c",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_read_message_equals_the_email_package_on_any_line_soup(pieces):
    raw = b"".join(pieces)
    assert structure(read_message(raw)) == structure(message_from_bytes(raw))


def test_charset_and_file_names_as_the_email_package_reads_them():
    raw = (
        b"Content-Type: multipart/mixed; boundary=b\n\n"
        b"--b\nContent-Type: text/plain; CHARSET=ISO-8859-1\n\nx\n"
        b"--b\nContent-Type: text/plain; charset*=utf-8''koi8-r\n\nx\n"
        b'--b\nContent-Type: application/pdf; NAME="A.PDF"\n\nx\n'
        b'--b\nContent-Type: application/zip; name*0="long"; name*1=".zip"\n\nx\n'
        b"--b\nContent-Type: image/gif\nContent-Disposition: attachment; filename=pic.gif\n\nx\n"
        b"--b\nContent-Type: text/plain; format=flowed\n\nno charset, no name\n"
        b"--b\nContent-Type: application/octet-stream; name==?utf-8?q?caf=C3=A9.txt?=\n\nx\n"
        b"--b--\n"
    )
    mail = parse_mail(raw)
    leaves = [p for p in message_from_bytes(raw).walk() if not p.is_multipart()]
    assert [charset for _, charset, _ in mail.parts] == [
        p.get_content_charset() or "" for p in leaves
    ]
    names = [decode_header_value(p.get_filename()) for p in leaves if p.get_filename()]
    assert [name for name, _ in mail.attachments if name] == names
    assert names == ["A.PDF", "long.zip", "pic.gif", "café.txt"]


def reference_mail(raw: bytes) -> Mail:
    """parse_mail as first written: the email package's own parser and accessors for
    every part (Message.get, get_content_type), no header-less shortcut."""
    check_is_mail(raw)
    raw = raw.replace(b"\x00", b"")
    if raw.startswith(b"From "):
        raw = raw.split(b"\n", 1)[1] if b"\n" in raw else b""
    separated = with_separator(raw)  # the separator-less reading (tests/spam/test_spam_parse_*)
    message = message_from_bytes(separated)
    mail = Mail()
    if separated is not raw:
        mail.defects.add("MissingHeaderBodySeparatorDefect")
    mail.headers = [(k.lower(), decode_header_value(v)) for k, v in message.raw_items()]
    for part in message.walk():
        mail.defects.update(type(d).__name__ for d in part.defects)
        if part.is_multipart():
            continue
        content_type = part.get_content_type()
        params = str(part.get("content-type", "")).lower()
        charset = (part.get_content_charset() or "") if "charset" in params else ""
        encoding = str(part.get("content-transfer-encoding", "")).strip().lower()
        mail.parts.append((content_type, charset, encoding))
        filename = ""
        if "name" in params or "content-disposition" in part:
            try:
                filename = part.get_filename() or ""
            except Exception:
                filename = ""
        filename = decode_header_value(filename) if filename else ""
        if filename or part.get_content_maintype() not in ("text", "message"):
            mail.attachments.append((filename, content_type))
            if part.get_content_maintype() != "text":
                continue
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            text = decode_bytes(payload[: 4 * MAX_PART_CHARS], charset or None)[:MAX_PART_CHARS]
            head = text[:2048].lower()
            if content_type == "text/html" or (
                content_type == "text/plain" and ("<html" in head or "<body" in head)
            ):
                text, urls, tags = html_to_text(text)
                mail.urls.extend(urls)
                mail.html_tags.update(tags)
            mail.texts.append(text)
    return mail


PART_HEADERS = [
    b"\n",
    b"\r\n",
    b"\r",
    b'Content-Type: text/html; charset="utf-8"\n',
    b"CONTENT-TYPE: Text/Plain; Charset=ISO-8859-1\n",
    b"Content-Type: textplain\n",
    b'Content-Type: image/png; name="a.png"\n',
    b"Content-Type: text/plain; name=\xe9t\xe9.txt\n",
    b"Content-type: multipart/mixed; boundary=b\n",
    b"Content-Type: application/x-zip; charset=\xff\n",
    b"Content-Transfer-Encoding:  Base64 \n",
    b"Content-Type: Text/\xe9\n",  # 8-bit: Message.get gives a Header, str() makes it U+FFFD
    b"Content-Transfer-Encoding: B\xe9se64\n",
    b"Content-Transfer-Encoding: quoted-printable\n",
    b"Content-Disposition: attachment; filename=x.exe\n",
    b"content-disposition: inline\n",
    b"Subject: caf\xc3\xa9\n",
    b"--b\n",
    b"--b--\n",
    b"From x\n",
    b"<html><body><a href=http://x.example/p>w\xe9</a></body></html>\n",
    b"aGVsbG8gd29ybGQ=\n",
    b"caf=C3=A9 =\n",
    b"\x00",
    b"\xa0\x93",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PART_HEADERS), max_size=25))
def test_parse_mail_equals_the_email_package_accessors(pieces):
    """The one-pass header look-up per part and the header-less shortcut read what the
    email package's accessors read, on mail with and without a header block."""
    raw = b"".join(pieces)
    try:
        expected = reference_mail(raw)
    except MailParseError as error:
        with pytest.raises(MailParseError, match=re.escape(str(error))):
            parse_mail(raw)
        return
    assert parse_mail(raw) == expected


@pytest.mark.parametrize("raw", [*EDGE_CASES, b"\r\nbare \xe9\r\n", b"\n<html><b>x</b>", b"\n\nx"])
def test_parse_mail_equals_the_email_package_accessors_on_edge_cases(raw):
    assert parse_mail(raw) == reference_mail(raw)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab.+-_@é \t\n", max_size=60))
def test_addresses_searched_chunk_by_chunk_equal_a_search_of_the_whole_text(text):
    expected = set()
    for match in _EMAIL.finditer(text):
        expected |= {"email:" + match.group(0)[:80], "email:" + match.group(1)[:40]}
    got = {t for t in text_tokens(text, fold_case=False) if t.startswith("email:")}
    assert got == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80) | st.text(max_size=40))
def test_words_of_lower_cased_ascii_text_equal_the_unicode_pattern(text):
    text = text.lower()
    assert lower_words(text) == _WORD.findall(text)


def test_the_ascii_word_pattern_is_taken_only_for_ascii_text():
    text = "caf\xe9 na\xefve £50 $x-y.z ab_c"  # not ASCII: _WORD itself
    assert (
        lower_words(text) == _WORD.findall(text) == ["caf\xe9", "na\xefve", "£50", "$x-y.z", "ab_c"]
    )
    assert lower_words("$x_y 'ab' a.b.") == ["$x_y", "ab", "a.b"]


HTML_PIECES = ["href", "HREF", "Src", "action", "xhref", "_src", "9src", "a", "=", " = ", '"',
               "'", ">", "<a ", "http://x.example/A", "\n", "é", "ſrc", "İ", "src=srC=",
               "acTion"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(HTML_PIECES), max_size=25))
def test_html_urls_equal_the_case_insensitive_pattern(pieces):
    markup = "".join(pieces)
    assert html_urls(markup) == _HTML_URL.findall(markup)


TAG_PIECES = ["<a href=x>", "</A >", "<", ">", "< b>", "<!-- c -->", "<9x>", "text", " ", "&amp;",
              "<Div\nclass=y>", "é", "<script>s</script>", "<p/>"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TAG_PIECES), max_size=25))
def test_html_text_and_tags_from_one_split_equal_sub_and_findall(pieces):
    markup = "".join(pieces)
    text, _, tags = html_to_text(markup)
    dropped = _HTML_DROP.sub(" ", markup)
    assert text == html.unescape(_HTML_TAG.sub(" ", dropped))
    assert tags == {t.lower() for t in _HTML_TAG.findall(dropped)}


# ------------------------------------------------------------ worker processes
