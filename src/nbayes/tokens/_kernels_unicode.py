"""Compiled UTF-8 helpers and the rich-token rules of :mod:`nbayes.tokens._kernels`
(numba): decoding a document to code points, encoding a token back to UTF-8, and
the URL / e-mail / host / number compounds of ``Tokenizer(rich=True)``."""

from __future__ import annotations

import numpy as np

from nbayes._kernels import helper

# char class bits, as in nbayes.tokens._unicode
_WORD, _DIGIT, _LETTER, _SPACE = 1, 2, 4, 8

KIND_WORD, KIND_NUMBER, KIND_URL, KIND_EMAIL, KIND_HOST = 0, 1, 2, 3, 4
#: A compound longer than this (code points) is not kept whole. A rejected compound
#: yields its first word run and is scanned again from its second run on, so without a
#: bound hostile text (``a.`` * n) took time quadratic in n.
MAX_COMPOUND = 256


@helper
def decode(buf, start, end, cps, lower, lowercase):
    """Code points of buf[start:end] (valid UTF-8) into cps, lower-cased if asked."""
    k = 0
    j = start
    while j < end:
        b = np.int32(buf[j])
        if b < 0x80:
            c = b
            j += 1
        elif b < 0xE0:
            c = ((b & 0x1F) << 6) | (np.int32(buf[j + 1]) & 0x3F)
            j += 2
        elif b < 0xF0:
            c = ((b & 0x0F) << 12) | ((np.int32(buf[j + 1]) & 0x3F) << 6)
            c |= np.int32(buf[j + 2]) & 0x3F
            j += 3
        else:
            c = ((b & 0x07) << 18) | ((np.int32(buf[j + 1]) & 0x3F) << 12)
            c |= ((np.int32(buf[j + 2]) & 0x3F) << 6) | (np.int32(buf[j + 3]) & 0x3F)
            j += 4
        if lowercase:
            c = lower[c]
        cps[k] = c
        k += 1
    return k


@helper
def decode_latin1(buf, start, end, cps, lower, lowercase):
    """Code points of the latin-1 bytes buf[start:end] (each byte its own code
    point) into cps, lower-cased if asked."""
    for j in range(start, end):
        c = np.int32(buf[j])
        cps[j - start] = lower[c] if lowercase else c
    return end - start


@helper
def encode(cps, s, e, out):
    """UTF-8 of cps[s:e] into out; returns its length in bytes."""
    k = 0
    for p in range(s, e):
        c = cps[p]
        if c < 0x80:
            out[k] = c
            k += 1
        elif c < 0x800:
            out[k] = 0xC0 | (c >> 6)
            out[k + 1] = 0x80 | (c & 0x3F)
            k += 2
        elif c < 0x10000:
            out[k] = 0xE0 | (c >> 12)
            out[k + 1] = 0x80 | ((c >> 6) & 0x3F)
            out[k + 2] = 0x80 | (c & 0x3F)
            k += 3
        else:
            out[k] = 0xF0 | (c >> 18)
            out[k + 1] = 0x80 | ((c >> 12) & 0x3F)
            out[k + 2] = 0x80 | ((c >> 6) & 0x3F)
            out[k + 3] = 0x80 | (c & 0x3F)
            k += 4
    return k


# ------------------------------------------------------------------ rich tokens
@helper
def _starts_with(cps, i, n, word):
    """cps[i:] starts with the ASCII string given as an int array (case-blind)."""
    if i + word.shape[0] > n:
        return False
    for k in range(word.shape[0]):
        c = cps[i + k]
        if 0x41 <= c <= 0x5A:
            c += 32
        if c != word[k]:
            return False
    return True


@helper
def _url_end(cps, i, n):
    """End of a URL starting at i: up to whitespace, a control or <>"'`, less
    trailing punctuation."""
    e = i
    while e < n:
        c = cps[e]
        if c <= 0x20 or c == 0x7F or c == 0x3C or c == 0x3E or c == 0x22 or c == 0x27:
            break
        if c == 0x60 or (0x80 <= c <= 0x9F) or c == 0xA0 or c == 0x3000:
            break
        e += 1
    while e > i:
        c = cps[e - 1]
        if c == 0x2E or c == 0x2C or c == 0x3B or c == 0x3A or c == 0x21 or c == 0x3F:
            e -= 1
        elif c == 0x29 or c == 0x5D or c == 0x7D:
            e -= 1
        else:
            break
    return e


@helper
def rich_token(cps, i, n, cls, schemes):
    """The token starting at word character i: (end, kind, end of its first run).

    URL: ``http://``, ``https://``, ``ftp://`` or ``www.`` + word character.
    Otherwise word runs joined by single ``.``, ``-``, ``@`` (and ``,`` between
    digits) form a compound, kept whole as an e-mail address (one ``@``, a dot
    after it, last label of >= 2 letters), a host name (no ``@``, a dot, last label
    of >= 2 letters) or a number (digit runs joined by ``.`` or ``,``); any other
    compound, and any longer than :data:`MAX_COMPOUND`, yields only its first word run.
    """
    for s in range(schemes.shape[0]):
        scheme = schemes[s]
        m = 0
        while m < scheme.shape[0] and scheme[m] >= 0:
            m += 1
        if _starts_with(cps, i, n, scheme[:m]):
            if scheme[m - 1] != 0x2E or (i + m < n and cls[cps[i + m]] & _WORD):
                return _url_end(cps, i, n), KIND_URL, -1
    j = i
    while j < n and cls[cps[j]] & _WORD:
        j += 1
    first_end = j
    n_at = 0
    n_dot_after_at = 0
    n_dot = 0
    n_comma = 0
    n_hyphen = 0
    all_digits = True
    last_start = i
    last_letters = True
    for p in range(i, j):
        if not cls[cps[p]] & _DIGIT:
            all_digits = False
        if not cls[cps[p]] & _LETTER:
            last_letters = False
    while j + 1 < n:
        sep = cps[j]
        nxt = cps[j + 1]
        if not cls[nxt] & _WORD:
            break
        if sep == 0x2C:
            if not (cls[cps[j - 1]] & _DIGIT and cls[nxt] & _DIGIT):
                break
            n_comma += 1
        elif sep == 0x2E:
            n_dot += 1
            if n_at:
                n_dot_after_at += 1
        elif sep == 0x40:
            n_at += 1
        elif sep == 0x2D:
            n_hyphen += 1
        else:
            break
        j += 1
        if sep != 0x2D:
            last_start = j
            last_letters = True
        while j < n and cls[cps[j]] & _WORD and j - i <= MAX_COMPOUND:
            if not cls[cps[j]] & _DIGIT:
                all_digits = False
            if not cls[cps[j]] & _LETTER:
                last_letters = False
            j += 1
        if j - i > MAX_COMPOUND:
            return first_end, KIND_WORD, first_end
    if j == first_end:
        return first_end, KIND_WORD, first_end
    tld = last_letters and j - last_start >= 2
    if n_at == 1 and n_dot_after_at >= 1 and tld and n_comma == 0:
        return j, KIND_EMAIL, first_end
    if n_at == 0 and n_dot >= 1 and tld and n_comma == 0:
        return j, KIND_HOST, first_end
    if all_digits and n_at == 0 and n_hyphen == 0:
        return j, KIND_NUMBER, first_end
    return first_end, KIND_WORD, first_end
