"""Marking a message with its verdict: one header, the rest byte for byte."""

from __future__ import annotations

import pytest

from nbayes.spam.mark import check_header_name, mark, split_head

BODY = b"\nbody line\n\nX-Nbayes-Spam: in the body, kept\n"


@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
def test_the_header_is_added_last_in_the_message_s_own_line_ends(newline):
    raw = (b"From: a@b.example\nSubject: hi\n" + BODY).replace(b"\n", newline)
    marked = mark(raw, "Ham", 0.01234)
    head, body = split_head(marked)
    assert body == BODY.replace(b"\n", newline)
    assert head == split_head(raw)[0] + b"X-Nbayes-Spam: Ham, score=0.0123" + newline


def test_every_earlier_verdict_header_is_replaced_with_its_continuation_lines():
    raw = (
        b"X-NBAYES-spam : Ham,\n\tscore=0.0000\nFrom: a@b.example\n"
        b"X-Nbayes-Spam: Ham\nX-Nbayes-Spammy: other\n  continued\n" + BODY
    )
    once = mark(raw, "Spam", 0.99)
    assert once == (
        b"From: a@b.example\nX-Nbayes-Spammy: other\n  continued\n"
        b"X-Nbayes-Spam: Spam, score=0.9900\n" + BODY
    )
    assert mark(once, "Spam", 0.99) == once


def test_a_custom_header_name_and_the_subject_tag_of_spam():
    raw = b"From: a@b.example\nSubject:  cheap pills\n" + BODY
    spam = mark(raw, "Spam", 1.0, header="X-Spam-Verdict", subject_tag="[SPAM]")
    assert spam.startswith(b"From: a@b.example\nSubject:  [SPAM] cheap pills\n")
    assert spam.endswith(b"X-Spam-Verdict: Spam, score=1.0000\n" + BODY)
    assert mark(spam, "Spam", 1.0, header="X-Spam-Verdict", subject_tag="[SPAM]") == spam
    assert b"[SPAM]" not in mark(raw, "Unsure", 0.5, subject_tag="[SPAM]")
    no_subject = mark(b"From: a@b.example\n" + BODY, "Spam", 1.0, subject_tag="[SPAM]")
    assert no_subject.startswith(b"From: a@b.example\nSubject: [SPAM]\nX-Nbayes-Spam: Spam")


def test_messages_without_a_header_block_or_without_a_body():
    assert (
        mark(b"\nonly a body\n", "Ham", 0.0) == b"X-Nbayes-Spam: Ham, score=0.0000\n\nonly a body\n"
    )
    assert mark(b"Subject: x", "Ham", 0.0) == b"Subject: x\nX-Nbayes-Spam: Ham, score=0.0000\n"
    mbox = b"From a@b Sat Jan  1 00:00:00 2000\nSubject: x\n\nbody\n"
    assert mark(mbox, "Ham", 0.0).startswith(b"From a@b Sat Jan  1 00:00:00 2000\nSubject: x\n")


@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
def test_mail_without_a_blank_line_after_its_headers_keeps_every_body_line(newline):
    """The headers end where the reader ends them (the leading Name: value lines), so
    body lines that look like verdict or SpamAssassin headers, or continuations, stay."""
    body = (
        b"Hi all, below the log:\nX-Nbayes-Spam: Ham, score=0.0000\n  indented line\n"
        b"X-Spam-Status: No\nbye\n"
    )
    raw = (b"Subject: meeting notes\nFrom: a@b.example\n" + body).replace(b"\n", newline)
    marked = mark(raw, "Spam", 0.95, subject_tag="[SPAM]", spamassassin=9.5, threshold=9.0)
    head, rest = split_head(marked)
    assert rest == body.replace(b"\n", newline)
    assert head.startswith(b"Subject: [SPAM] meeting notes" + newline + b"From: a@b.example")
    assert head.endswith(b"X-Spam-Level: *********" + newline)
    assert b"X-Nbayes-Spam: Spam, score=0.9500" + newline in head
    again = mark(marked, "Spam", 0.95, subject_tag="[SPAM]", spamassassin=9.5, threshold=9.0)
    assert again == marked


def test_header_names_are_checked():
    assert check_header_name("X-Spam-Flag") == "X-Spam-Flag"
    for bad in ("X Spam", "X:Spam", "", "Xé"):
        with pytest.raises(ValueError, match="header field name"):
            check_header_name(bad)


def test_spamassassin_headers_replace_earlier_ones():
    raw = b"X-Spam-Flag: YES\nX-Spam-Status: Yes, score=99\n  tests=FORGED\nSubject: x\n" + BODY
    ham = mark(raw, "Ham", 0.02, spamassassin=0.2, threshold=9.0)
    assert ham == (
        b"Subject: x\nX-Nbayes-Spam: Ham, score=0.0200\n"
        b"X-Spam-Status: No, score=0.2 required=9.0 tests=NBAYES_HAM\nX-Spam-Level: \n" + BODY
    )
    spam = mark(ham, "Spam", 0.99999, spamassassin=9.9999, threshold=9.0)
    assert b"X-Spam-Flag: YES\nX-Spam-Status: Yes, score=10.0 required=9.0" in spam
    assert spam.count(b"X-Spam-") == 3 and b"X-Spam-Level: **********\n" in spam


def test_classify_writes_them_on_request(tmp_path):
    from click.testing import CliRunner
    from spam_mail import corpus

    from nbayes.cli import main
    from nbayes.spam.store import TokenStore
    from nbayes.spam.tokens import tokenize

    messages, labels = corpus(20, 20)
    with TokenStore(tmp_path / "t.db") as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
    args = ["spam", "classify", "--db", str(tmp_path / "t.db"), "-p", "--spamassassin-headers"]
    result = CliRunner().invoke(main, args, input=messages[0])
    assert result.exit_code == 0 and b"\nX-Spam-Flag: YES\n" in result.stdout_bytes
