"""Hostile spamd requests, kept as regression fixtures (not a test module): each found
a failure, by hand or by the fuzz tests (``tests/spam/test_spam_fuzz.py``), and the
status the server must answer it with (spamd's exit codes: 65 EX_DATAERR, 76
EX_PROTOCOL); tested on the parser and on a running server."""

from __future__ import annotations

#: name -> (request bytes, status the server answers: 76 protocol, 65 data error).
HOSTILE_REQUESTS: dict[str, tuple[bytes, int]] = {
    # a Unicode digit is a digit to str.isdigit, not to int(): EX_SOFTWARE before
    "superscript_length": ("CHECK SPAMC/1.5\r\nContent-length: \u00b2\r\n\r\nab".encode(), 76),
    "arabic_indic_length": ("CHECK SPAMC/1.5\r\nContent-length: \u0662\r\n\r\nab".encode(), 76),
    "latin1_superscript": (b"CHECK SPAMC/1.5\r\nContent-length: \xb2\r\n\r\nab", 76),
    "negative_length": (b"CHECK SPAMC/1.5\r\nContent-length: -1\r\n\r\n", 76),
    "spaced_length": (b"CHECK SPAMC/1.5\r\nContent-length: 1 2\r\n\r\nab", 76),
    # int() of 5,000 digits raised ValueError (the int string limit): EX_SOFTWARE before
    "five_thousand_digits": (
        b"CHECK SPAMC/1.5\r\nContent-length: " + b"9" * 5000 + b"\r\n\r\n",
        65,
    ),
    "huge_length": (b"CHECK SPAMC/1.5\r\nContent-length: 99999999999999999999\r\n\r\n", 65),
    "head_cut_short": (b"CHECK SPAMC/1.5\r\nContent-length: 3\r\n", 76),
    "body_cut_short": (b"CHECK SPAMC/1.5\r\nContent-length: 99\r\n\r\nshort", 76),
    "long_header_line": (b"CHECK SPAMC/1.5\r\nX: " + b"y" * 9000 + b"\r\n\r\n", 76),
    "endless_head": (b"CHECK SPAMC/1.5\r\n" + b"X: y\r\n" * 10000, 76),
    "no_colon": (b"CHECK SPAMC/1.5\r\nno colon\r\n\r\n", 76),
    "http": (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 76),
    "empty_lines": (b"\r\n\r\n\r\n", 76),
    "nul_method": (b"\x00CHECK SPAMC/1.5\r\n\r\n", 76),
    "bad_zlib": (b"CHECK SPAMC/1.5\r\nCompress: zlib\r\nContent-length: 3\r\n\r\nabc", 65),
    "not_mail": (b"CHECK SPAMC/1.5\r\nContent-length: 6\r\n\r\n\x00\x01\x02\x00\x01\x02", 65),
}
