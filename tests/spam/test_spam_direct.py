"""The direct reader of single-part mail (nbayes.spam.parse.read_single_part) gives what
the email package gives: the same Mail, and so the same tokens and every score, on all
the shared mail corpora and on generated edge cases."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA, require_path
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes.spam.head import with_separator
from nbayes.spam.parse import MailParseError, parse_mail, read_single_part
from nbayes.spam.tokens import DEFAULT_OPTIONS, mail_tokens, tokenize


def _corpus(name: str) -> list[Path]:
    root = require_path(DATA / name)
    return [
        path
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name != "cmds" and path.suffix != ".md"
        and path.name not in ("SHA256SUMS", "LICENSE")
    ]  # fmt: skip


def _sms() -> list[bytes]:
    """Each SMS as a header-less message, as the benchmarks write them."""
    lines = (require_path(DATA / "sms_spam_collection") / "SMSSpamCollection").read_bytes()
    return [b"\n" + line.partition(b"\t")[2] + b"\n" for line in lines.splitlines()]


def _read_directly(raw: bytes) -> bool:
    """Whether parse_mail takes the direct reader for ``raw``."""
    raw = raw.replace(b"\x00", b"")
    if raw.startswith(b"From "):
        raw = raw.split(b"\n", 1)[1] if b"\n" in raw else b""
    return raw[:1] not in (b"\n", b"\r") and read_single_part(with_separator(raw)) is not None


def _compare(raws) -> tuple[int, int]:
    """(messages, messages read directly); asserts each one's Mail and tokens equal."""
    count = direct = 0
    for raw in raws:
        try:
            reference = parse_mail(raw, direct=False)
        except MailParseError:
            with pytest.raises(MailParseError):
                parse_mail(raw)
            continue
        assert parse_mail(raw) == reference
        assert tokenize(raw) == mail_tokens(reference, DEFAULT_OPTIONS)
        count += 1
        direct += _read_directly(raw)
    return count, direct


@pytest.mark.parametrize("name", ["spamassassin", "20newsgroups_bydate"])
def test_every_message_of_a_mail_corpus_reads_the_same(name):
    count, direct = _compare(path.read_bytes() for path in _corpus(name))
    assert count > 5000
    assert direct > count / 2  # the direct reader takes most of it (96 % when written)


def test_every_sms_reads_the_same():
    count, _ = _compare(_sms())
    assert count > 5000


HEADER_LINES = [
    b"Subject: hello =?utf-8?q?w=C3=B6rld?=",
    b"From: A <a@example.com>",
    b"Content-Type: text/plain",
    b"Content-Type: text/html; charset=UTF-8",
    b'Content-Type: text/plain; format=flowed; charset="iso-8859-1"',
    b"Content-Type: text/plain; charset=",
    b"Content-Type: text/plain; charset",
    b'Content-Type: text/plain; charset="a;b"',
    b'Content-Type: text/plain; x="a; charset=koi8-r"',
    b"Content-Type: text/plain; charset*=utf-8''x",
    b"Content-Type: text/plain; charset=<utf-8>",
    b"Content-Type: text/plain; name=a.txt",
    b"Content-Type: application/octet-stream",
    b"Content-Type: text",
    b"Content-Type: multipart/mixed; boundary=b",
    b"Content-Type: message/rfc822",
    b"Content-Type: text/plain;\n charset=utf-8",
    b"Content-Transfer-Encoding: base64",
    b"Content-Transfer-Encoding: BASE64 ",
    b"Content-Transfer-Encoding: quoted-printable",
    b"Content-Transfer-Encoding: x-uuencode",
    b"Content-Transfer-Encoding: 8bit",
    b"Content-Disposition: inline",
    b"X-Folded: a\n\tb",
    b" continued",
    b":no name",
    b"From nobody",
    b"X-Eight-Bit: caf\xc3\xa9",
    b"X-Form-Feed: a\x0cb",
]
BODIES = [
    b"plain words here\n",
    b"aGVsbG8gd29ybGQ=\n",
    b"aGVsbG8gd29ybG\n",
    b"aGVs*bG8=\n",
    b"caf=C3=A9 =\nsoft break\n",
    b"<html><body><a href='http://x.example/p'>hi</a></body></html>\n",
    b"\xe9t\xe9 latin-1\n",
    b"",
]


@settings(max_examples=400, deadline=None)
@given(
    headers=st.lists(st.sampled_from(HEADER_LINES), max_size=6),
    body=st.sampled_from(BODIES),
    newline=st.sampled_from([b"\n", b"\r\n"]),
    separated=st.booleans(),
)
def test_generated_single_part_mail_reads_the_same(headers, body, newline, separated):
    head = newline.join(line.replace(b"\n", newline) for line in headers)
    raw = head + (newline if head else b"") + (newline if separated else b"") + body
    try:
        reference = parse_mail(raw, direct=False)
    except MailParseError:
        with pytest.raises(MailParseError):
            parse_mail(raw)
        return
    assert parse_mail(raw) == reference


# Hostile mail: header lines and bodies an attacker writes, joined by any line breaks.
CHARSETS = [
    "utf-8", "UTF-8", "iso-8859-1", "us-ascii", "unknown-8bit", "utf-7", "utf-16", "koi8-r",
    "rot13", "rot_13", "base64_codec", "base64", "zip", "zlib", "bz2_codec", "hex", "uu",
    "quopri", "punycode", "idna", "unicode_escape", "raw-unicode-escape", "undefined",
    "charmap", "mbcs", "no-such-charset", "x" * 300, "", " utf-8 ", "utf-8\x01",
]  # fmt: skip
TRANSFER_ENCODINGS = [
    "base64", "BASE64", " base64", "base64 ", "quoted-printable", "Quoted-Printable",
    "x-uuencode", "uue", "7bit", "8bit", "binary", "bogus", "", "base64; x=y",
]  # fmt: skip
_NAME = st.text(st.characters(min_codepoint=33, max_codepoint=126, exclude_characters=":"),
                min_size=1, max_size=12)  # fmt: skip
_VALUE = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" ").replace(b"\r", b" "))


@st.composite
def _header_line(draw) -> bytes:
    kind = draw(st.sampled_from(
        ["listed", "type", "encoding", "random", "fold", "no-colon", "encoded-word"]
    ))  # fmt: skip
    if kind == "listed":
        return draw(st.sampled_from(HEADER_LINES))
    if kind == "type":
        maintype = draw(st.sampled_from(["text/plain", "text/html", "TEXT/Plain", "text/",
                                         "image/png", "text/plain/x", "", "multipart/alt"]))
        charset = draw(st.sampled_from(CHARSETS))
        quote = draw(st.sampled_from(["", '"']))
        return f"Content-Type: {maintype}; charset={quote}{charset}{quote}".encode("latin-1")
    if kind == "encoding":
        return b"Content-Transfer-Encoding: " + draw(st.sampled_from(TRANSFER_ENCODINGS)).encode()
    if kind == "encoded-word":
        charset = draw(st.sampled_from(CHARSETS)).encode("latin-1")
        code = draw(st.sampled_from([b"q", b"b", b"Q", b"x"]))
        return b"Subject: =?" + charset + b"?" + code + b"?" + draw(_VALUE) + b"?="
    if kind == "fold":
        return draw(st.sampled_from([b" ", b"\t", b"  "])) + draw(_VALUE)
    if kind == "no-colon":
        return draw(_VALUE)
    return draw(_NAME).encode() + b":" + draw(_VALUE)


_BODY = st.one_of(
    st.sampled_from(BODIES),
    st.binary(max_size=200),
    st.text(alphabet="ABCDabcd0123+/=*- \n\r", max_size=120).map(str.encode),  # base64-ish
    st.text(alphabet="ab=3DFZ \n\r\t", max_size=120).map(str.encode),  # quoted-printable-ish
)


@st.composite
def hostile_mail(draw) -> bytes:
    """A message as an attacker may write one: any header lines (folded, nameless,
    8-bit, NUL), any line breaks (LF, CRLF, lone CR, mixed), a blank line or none,
    charsets that are no character sets, transfer encodings spelt any way, any body."""
    lines = draw(st.lists(_header_line(), max_size=8))
    breaks = st.sampled_from([b"\n", b"\r\n", b"\r"])
    raw = b""
    for line in lines:
        raw += line + draw(breaks)
    raw += draw(st.sampled_from([b"\n", b"\r\n", b"\r", b"", b"\n\n"]))
    return draw(st.sampled_from([b"", b"From a@b Sat Jan  1 00:00:00 2000\n"])) + raw + draw(
        _BODY
    )


@settings(max_examples=1500, deadline=None)
@given(raw=hostile_mail())
def test_hostile_mail_reads_the_same_either_way(raw):
    """Whatever the message, the direct reader gives the email package's Mail and
    tokens, or steps aside; neither raises anything but MailParseError."""
    _compare([raw])
