"""Hostile mail for the spam filter's robustness tests (not a test module): each
message made one of the parser's or tokenizer's scans quadratic (or recursive) in its
size before those were made linear."""

from __future__ import annotations

from collections.abc import Callable

HEAD = b"From: a@b.example\nTo: c@d.example\nSubject: hi\n"


SPACED_TAG = b"<" + b" " * 4000 + b"/" + b" " * 4000 + b"!"  # no tag: "!" is not a name


def deep_mime(depth: int = 1000) -> bytes:
    """``multipart/mixed`` nested ``depth`` deep around one text part."""
    parts = [HEAD, b"MIME-Version: 1.0\n"]
    for i in range(depth):
        parts.append(b'Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (i, i))
    parts.append(b"Content-Type: text/plain\n\nhello from the bottom\n")
    parts += [b"--b%d--\n" % i for i in reversed(range(depth))]
    return b"".join(parts)


def deep_rfc822(depth: int = 1000) -> bytes:
    """``message/rfc822`` nested ``depth`` deep."""
    return HEAD + b"Content-Type: message/rfc822\n\n" * depth + b"Subject: x\n\nbottom\n"


def encoded_subject(size: int = 2_500_000) -> bytes:
    """A Subject of RFC 2047 encoded words with nothing between them."""
    word = b"=?utf-8?q?abc?="
    return b"From: a@b.example\nSubject: " + word * (size // len(word)) + b"\n\nbody\n"


#: name -> a function making the message (the issue's three first).
HOSTILE: dict[str, Callable[[], bytes]] = {
    "address_run": lambda: HEAD + b"\n" + b"a" * 250_000 + b"@\n",
    "html_comments": lambda: HEAD + b"Content-Type: text/html\n\n" + b"<!--" * 16_000,
    "encoded_subject": encoded_subject,
    "deep_mime": deep_mime,
    "deep_rfc822": deep_rfc822,
    "address_dots": lambda: HEAD + b"\n" + b"a." * 125_000 + b"@\n",
    "html_open_tags": lambda: HEAD + b"Content-Type: text/html\n\n" + b"<a" * 128_000,
    "html_scripts": lambda: HEAD + b"Content-Type: text/html\n\n" + b"<script>" * 32_000,
    "html_spaced_tags": lambda: HEAD + b"Content-Type: text/html\n\n" + SPACED_TAG * 30,
    "quoted_parameter": lambda: (
        b'From: a@b.example\nContent-Type: multipart/mixed; boundary="b"; x="'
        + b";" * 200_000
        + b'"\n\n--b\n\nhello\n--b--\n'
    ),
    "many_parts": lambda: (
        b'From: a@b.example\nContent-Type: multipart/mixed; boundary="b"\n\n'
        + b"--b\n\nx\n" * 200_000
        + b"--b--\n"
    ),
    # punycode, a text codec but no charset, decodes in quadratic time: 67-121 s for 1 MB
    "punycode_body": lambda: (
        HEAD + b"Content-Type: text/plain; charset=punycode\n\n" + b"a" * 1_000_000
    ),
    "punycode_part": lambda: (
        b'From: a@b.example\nContent-Type: multipart/mixed; boundary="b"\n\n--b\n'
        b"Content-Type: text/html; charset=punycode\n\n" + b"a" * 500_000 + b"-" + b"9" * 499_999
        + b"\n--b--\n"
    ),
    "folded_header": lambda: b"From: a@b.example\nSubject: x\n" + b" x\n" * 500_000 + b"\nbody\n",
}


#: Mail found by the fuzz tests (``tests/spam/test_spam_fuzz.py``) -> what it broke.
FOUND: dict[bytes, str] = {
    # lines ending in a lone CR: marking read the header block as one line, and the
    # verdict header first in it dropped every other header (From lost in passthrough)
    b"X-Nbayes-Spam: Spam, score=1.0000\rFrom: a@b.example\r\r\r": "headers dropped",
    b"Subject: hi\rX-Nbayes-Spam: Ham\rTo: c@d.example\r\rbody\r": "headers dropped",
}
