"""Mail without a blank line between its headers and its body (preprocessed corpora)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes.spam.parse import parse_mail, with_separator
from nbayes.spam.tokens import tokenize


@pytest.mark.parametrize(
    "raw, expected",
    [
        # a Subject line, then the body at once: the body is the rest
        (b"Subject: hi\r\nhello there\r\n", b"Subject: hi\r\n\r\nhello there\r\n"),
        # body lines the email package would take for headers
        (b"Subject: a\nhttp://x.example/y\nbuy\n", b"Subject: a\n\nhttp://x.example/y\nbuy\n"),
        (b"Subject: a\n  indented\nmore\n", b"Subject: a\n\n  indented\nmore\n"),
        (b"Subject: a\nmailto:b@c.example now\n", b"Subject: a\n\nmailto:b@c.example now\n"),
        (b"Subject: a\n  indented only\n", b"Subject: a\n\n  indented only\n"),
        # a continuation line between headers is a continuation
        (b"Subject: a\n fold\nFrom: b\nbody\n", b"Subject: a\n fold\nFrom: b\n\nbody\n"),
        (b"Subject: a\rbody\r", b"Subject: a\r\rbody\r"),
    ],
)
def test_the_headers_end_where_the_lines_stop_being_headers(raw, expected):
    assert with_separator(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        b"Subject: a\n\nbody\n",  # the blank line is there
        b"Subject: a\r\n\r\nbody\r\n",
        b"Subject: a\nTo: b\n",  # headers only
        b"hello\nworld\n",  # no header at all
        b" first line is a continuation\nbody\n",
        b"Subject: a\nnote:this\n",  # "note:this" is a header line
    ],
)
def test_mail_with_a_separator_or_without_headers_is_left_as_it_is(raw):
    assert with_separator(raw) is raw


def test_a_preprocessed_message_has_its_subject_as_header_and_the_rest_as_body():
    raw = b"Subject: cheap meds\r\n  best prices !\r\nhttp://pills.example/buy now\r\n"
    mail = parse_mail(raw)
    assert mail.headers == [("subject", "cheap meds")]
    assert mail.texts == ["  best prices !\r\nhttp://pills.example/buy now\r\n"]
    assert "MissingHeaderBodySeparatorDefect" in mail.defects
    tokens = tokenize(raw)
    assert {"subject:cheap", "subject:meds", "best", "prices", "url:pills.example"} <= tokens
    assert "subject:best" not in tokens and "hdr:http" not in tokens


def test_mail_with_the_separator_reads_as_before():
    raw = b"Subject: a\nFrom: b@c.example\n\nhttp://x.example/y\n"
    mail = parse_mail(raw)
    assert mail.headers == [("subject", "a"), ("from", "b@c.example")]
    assert "MissingHeaderBodySeparatorDefect" not in mail.defects


LINES = [b"Subject: x", b"To: y", b" fold", b"\tfold", b"http://u.example", b"body words",
         b"", b"note:z", b"a b: c"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=12), st.sampled_from([b"\n", b"\r\n"]))
def test_the_separator_goes_after_the_last_header_line_before_the_body(lines, newline):
    raw = newline.join(lines) + newline
    out = with_separator(raw)
    if out is raw:
        return
    cut = next(i for i in range(len(raw)) if out[i] != raw[i])
    assert out == raw[:cut] + newline + raw[cut:]
    head = raw[:cut].split(newline)[:-1]
    assert head[0] in (b"Subject: x", b"To: y", b"note:z")  # header lines ...
    assert all(line in (b"Subject: x", b"To: y", b"note:z", b" fold", b"\tfold")
               for line in head)  # fmt: skip
    assert head[-1] in (b"Subject: x", b"To: y", b"note:z")  # ... ending with one
    assert raw[cut:].split(newline)[0] != b""  # a body followed, not a blank line
    parse_mail(raw)
