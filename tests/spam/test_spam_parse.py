"""Mail parsing, tokenizing and mail sources of nbayes.spam."""

from __future__ import annotations

import base64
import email
import email.errors
import email.policy
import mailbox
import quopri
import time
from email.message import EmailMessage

import pytest
from conftest import DATA, require_path
from hostile_mail import deep_mime, deep_rfc822

from nbayes.spam import tokens as tokens_module
from nbayes.spam.markup import html_to_text
from nbayes.spam.parse import (
    MAX_PART_CHARS,
    MailParseError,
    MimeTooDeepError,
    check_mime_depth,
    mime_depth,
    parse_mail,
)
from nbayes.spam.sources import iter_mail
from nbayes.spam.tokens import LEGACY_OPTIONS, tokenize


def multipart_mail() -> bytes:
    msg = EmailMessage()
    msg["From"] = "Alice Example <alice@example.com>"
    msg["To"] = "bob@example.org"
    msg["Subject"] = "Quarterly réport"  # non-ASCII: RFC 2047 encoded on output
    msg.set_content("Plain words here: zebra quokka\n", charset="utf-8", cte="base64")
    msg.add_alternative(
        '<html><body><font color="red">Click <a href="http://spam.example.net/buy/now">'
        "here</a> &amp; wombat</font><script>evilscript()</script></body></html>",
        subtype="html",
        cte="quoted-printable",
    )
    msg.add_attachment(
        b"%PDF-1.4 binary", maintype="application", subtype="pdf", filename="Invoice.PDF"
    )
    return msg.as_bytes()


def test_headers_become_prefixed_tokens_and_encoded_words_are_decoded():
    raw = multipart_mail()
    assert b"=?utf-8?" in raw  # the subject really is encoded
    tokens = tokenize(raw)
    assert {"subject:quarterly", "subject:réport", "from:alice@example.com"} <= tokens
    assert {"to:bob@example.org", "hdr:subject", "hdr:from"} <= tokens
    assert "quarterly" not in tokens  # header words stay prefixed


@pytest.mark.parametrize("cached_names", [0, 2, 4096])
def test_other_filters_headers_are_left_out_with_or_without_the_name_cache(
    cached_names, monkeypatch
):
    monkeypatch.setattr(tokens_module, "_IGNORED_NAMES", {})
    monkeypatch.setattr(tokens_module, "MAX_CACHED_NAMES", cached_names)
    raw = (
        b"X-Spam-Status: Yes, score=9\nX-Bogosity: Spam\nDate: Mon, 1 Jan 2001\n"
        b"X-Mailer: mutt\nSubject: lunch " + b"z" * 90 + b"\nX-DSPAM-Result: Spam\n\nbody\n"
    )
    for _ in range(2):  # the second time from the cache where there is one
        tokens = tokenize(raw, LEGACY_OPTIONS)  # every header under its own name
        headers = {t for t in tokens if t.startswith("hdr:")}
        assert headers == {"hdr:x-mailer", "hdr:subject"}
        assert {"x-mailer:mutt", "subject:lunch", "subject:" + "z" * 80} <= tokens
        assert not any(t.startswith(("x-spam", "x-bogosity", "date:", "x-dspam")) for t in tokens)
    assert len(tokens_module._IGNORED_NAMES) == min(cached_names, 6)


def test_multipart_base64_quoted_printable_html_and_attachments():
    raw = multipart_mail()
    assert b"zebra" not in raw and b"Click" in raw  # base64 hides the plain part
    tokens = tokenize(raw)
    assert {"zebra", "quokka", "click", "here", "wombat"} <= tokens
    assert {"url:spam.example.net", "url:example.net", "url:buy", "url:now"} <= tokens
    assert "htmltag:font" in tokens and "font" not in tokens and "evilscript" not in tokens
    assert {"attach:type:application/pdf", "attach:name:invoice.pdf", "attach:ext:pdf"} <= tokens
    assert {"ctype:text/html", "cte:base64", "cte:quoted-printable", "charset:utf-8"} <= tokens


def test_quoted_printable_soft_breaks_are_joined():
    body = quopri.encodestring(("word " * 30 + "joinedword").encode())
    raw = b"Subject: x\nContent-Transfer-Encoding: quoted-printable\n\n" + body
    assert b"=\n" in body
    assert "joinedword" in tokenize(raw)


@pytest.mark.parametrize(
    ("charset", "word"), [("koi8-r", "привет"), ("iso-8859-1", "café"), ("shift_jis", "テスト")]
)
def test_any_charset(charset, word):
    raw = f"Subject: x\nContent-Type: text/plain; charset={charset}\n\nhello {word}\n"
    assert word in tokenize(raw.encode(charset))


def test_undeclared_8bit_bytes_are_tolerated():
    raw = "Subject: caf\xe9\n\nna\xefve latin-1 body\n".encode("latin-1")
    tokens = tokenize(raw)
    assert "naïve" in tokens and "subject:café" in tokens


def test_html_to_text_keeps_urls_and_drops_markup():
    text, urls, tags = html_to_text(
        '<p>Hi&nbsp;there<!-- hidden --><img src="http://img.example/x.gif"></p>'
    )
    assert "Hi\xa0there" in text and "hidden" not in text
    assert urls == ["http://img.example/x.gif"] and tags == {"p", "img"}


# ------------------------------------------------------------ malformed mail
def test_truncated_mime_is_still_tokenized():
    raw = (
        b'Subject: t\nContent-Type: multipart/mixed; boundary="XX"\n\n--XX\n'
        b"Content-Type: text/plain\n\nbefore truncation marmot\n--XX\nContent-Type: text/pl"
    )
    assert "marmot" in tokenize(raw)


def test_bad_base64_is_decoded_as_far_as_it_goes():
    good = base64.b64encode(b"valid armadillo text here")
    raw = b"Subject: b\nContent-Transfer-Encoding: base64\n\n" + good + b"\n!!!@@@###\n"
    tokens = tokenize(raw)
    assert "armadillo" in tokens


def test_unknown_charset_falls_back():
    raw = b"Subject: u\nContent-Type: text/plain; charset=x-no-such-charset\n\nokapi text\n"
    assert "okapi" in tokenize(raw)
    assert "charset:x-no-such-charset" in tokenize(raw)


def test_nul_bytes_are_dropped():
    raw = b"Subject: n\n\nnull\x00ified gecko\x00 text\n"
    assert {"nullified", "gecko"} <= tokenize(raw)


def test_ten_megabyte_attachment_is_bounded():
    payload = base64.encodebytes(bytes(range(256)) * (10 * 1024 * 1024 // 256))
    raw = (
        b'Subject: big\nContent-Type: multipart/mixed; boundary="B"\n\n--B\n'
        b"Content-Type: text/plain\n\nsmall lemur body\n--B\n"
        b'Content-Type: application/octet-stream; name="big.bin"\n'
        b"Content-Transfer-Encoding: base64\n\n" + payload + b"--B--\n"
    )
    assert len(raw) > 10 * 1024 * 1024
    tokens = tokenize(raw)
    assert {"lemur", "attach:name:big.bin", "attach:type:application/octet-stream"} <= tokens


def test_huge_text_part_is_cut():
    raw = b"Subject: h\n\n" + b"aardvark " * (MAX_PART_CHARS // 4) + b"lastword\n"
    mail = parse_mail(raw)
    assert len(mail.texts[0]) == MAX_PART_CHARS
    assert "lastword" not in tokenize(raw)


@pytest.mark.parametrize(
    "raw", [b"", b"  \n", bytes(range(256)) * 64], ids=["empty", "blank", "binary"]
)
def test_non_mail_is_rejected_with_a_message(raw):
    with pytest.raises(MailParseError, match=r"empty|binary"):
        tokenize(raw)


def test_spamassassin_sample_parses_quickly():
    root = require_path(DATA / "spamassassin")
    files = [
        f
        for d in ("easy_ham", "hard_ham", "spam", "spam_2")
        for f in sorted((root / d).iterdir())[:25]
        if f.name != "cmds"
    ]
    start = time.perf_counter()
    sizes = [len(tokenize(f.read_bytes())) for f in files]
    assert len(sizes) == 100 and min(sizes) > 10
    assert time.perf_counter() - start < 30  # generous: a hang guard, not a benchmark


# ------------------------------------------------------------ sources
def test_sources_file_directory_mbox_maildir(tmp_path):
    one = b"Subject: one\n\nfirst\n"
    (tmp_path / "single.eml").write_bytes(one)
    deep = tmp_path / "dir" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "m1").write_bytes(b"Subject: d1\n\nx\n")
    (tmp_path / "dir" / "m0").write_bytes(b"Subject: d0\n\ny\n")
    (tmp_path / "dir" / "cmds").write_bytes(b"mv a b\n")
    box = mailbox.mbox(tmp_path / "box.mbox")
    for i in range(3):
        box.add(f"Subject: mbox number{i}\n\nFrom here on, body {i}\n".encode())
    box.close()
    md = mailbox.Maildir(tmp_path / "maildir")
    md.add(b"Subject: md\n\nin maildir\n")
    md.close()
    errors = []

    def names(path, **kw):
        return [m.name for m in iter_mail([path], on_error=lambda *e: errors.append(e), **kw)]

    assert names(tmp_path / "single.eml") == [str(tmp_path / "single.eml")]
    assert len(names(tmp_path / "dir")) == 3
    assert names(tmp_path / "dir", exclude=["cmds"]) == [
        str(tmp_path / "dir" / "m0"),
        str(tmp_path / "dir" / "a" / "b" / "m1"),
    ]
    items = list(iter_mail([tmp_path / "box.mbox"]))
    assert [tokenize(m.raw) >= {f"subject:number{i}"} for i, m in enumerate(items)] == [True] * 3
    assert len(names(tmp_path / "maildir")) == 1
    assert not errors
    assert names(tmp_path / "missing") == [] and "no such file" in errors[0][1]


def test_a_maildir_inside_a_walked_folder_is_read_as_a_maildir(tmp_path):
    """Only its new/ and cur/: not tmp/ (mail being written) nor the files a mail server
    keeps beside them; its Maildir++ folders are maildirs of their own."""
    mail = tmp_path / "Mail"
    (mail / "loose").mkdir(parents=True)
    (mail / "loose" / "m1").write_bytes(b"Subject: loose\n\nx\n")
    inbox = mailbox.Maildir(mail / "inbox")
    inbox.add(b"Subject: in\n\nx\n")
    sent = inbox.add_folder("Sent")  # Maildir++: inbox/.Sent
    sent.add(b"Subject: sent\n\nx\n")
    (mail / "inbox" / "tmp" / "partial").write_bytes(b"Subject: half writ")
    for name in ("dovecot-uidlist", "subscriptions", "dovecot.index"):
        (mail / "inbox" / name).write_bytes(b"3 V1 N2\n")
    errors = []
    items = list(iter_mail([mail], on_error=lambda *e: errors.append(e)))
    subjects = sorted(m.raw.split(b"\n")[0] for m in items)
    assert subjects == [b"Subject: in", b"Subject: loose", b"Subject: sent"] and not errors
    assert {m.name.rpartition(":")[0] for m in items if "inbox" in m.name} == {
        str(mail / "inbox"), str(mail / "inbox" / ".Sent")
    }


# ------------------------------------------------------------ MIME depth
def _email_depth(message) -> int:
    """Nesting depth as the ``email`` package parses it (message/* counts as a level)."""
    if not message.is_multipart():
        return 0
    return 1 + max((_email_depth(part) for part in message.get_payload()), default=0)


@pytest.mark.parametrize("depth", [0, 1, 2, 5, 100, 101, 1000])
def test_mime_depth_counts_multipart_and_message_nesting(depth):
    assert mime_depth(deep_mime(depth)) == depth
    assert mime_depth(deep_rfc822(depth)) == depth
    assert mime_depth(deep_mime(depth), limit=3) == min(depth, 4)  # stops past the limit


def test_mime_depth_of_siblings_and_of_lines_that_only_look_like_mime():
    head = b"From: a@b.example\nSubject: s\n"
    digest = head + b'Content-Type: multipart/digest; boundary="d"\n\n' + b"".join(
        b"--d\nContent-Type: message/rfc822\n\nSubject: %d\n\nbody\n" % i for i in range(300)
    ) + b"--d--\n"
    siblings = head + b"Content-Type: multipart/mixed; boundary=m\n\n" + b"".join(
        b"--m\nContent-Type: multipart/alternative; boundary=a%d\n\n--a%d\n\nx\n--a%d--\n"
        % (i, i, i)
        for i in range(300)
    ) + b"--m--\n"
    quoted = head + b"\n" + b"Content-Type: multipart/mixed; boundary=q\n--q\n" * 300
    for raw, depth in ((digest, 2), (siblings, 2), (quoted, 0)):
        assert mime_depth(raw) == depth
        check_mime_depth(raw, 2)
    with pytest.raises(MimeTooDeepError, match="more than 1 deep"):
        check_mime_depth(digest, 1)
    check_mime_depth(digest, 0)  # 0: no limit


def test_mime_depth_agrees_with_the_email_package_on_real_mail():
    root = require_path(DATA / "spamassassin")
    disagreements = 0
    for folder in ("easy_ham", "hard_ham", "spam", "spam_2"):
        for path in sorted((root / folder).iterdir()):
            raw = path.read_bytes()
            message = email.message_from_bytes(raw, policy=email.policy.compat32)
            expected = _email_depth(message)
            if mime_depth(raw) != expected:
                # declared multipart whose delimiters do not match its boundary: the
                # email package reads it as one part
                assert any(
                    isinstance(d, email.errors.StartBoundaryNotFoundDefect)
                    for d in message.defects
                ), path
                assert mime_depth(raw) == expected + 1
                disagreements += 1
            assert mime_depth(raw) <= 3  # real mail nests little: far inside the limit
    assert disagreements < 10
