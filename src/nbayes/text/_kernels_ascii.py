"""The token scan of ASCII text, 8 bytes at a time (numba, SWAR): whole ASCII
documents, and the ASCII runs of any other (the scan stops at the first 8 bytes
holding a non-ASCII byte; :func:`unicode_span` finds the span to decode).

Text whose bytes are all < 0x80 needs no decoding: a byte is a word
character (Python's ``\\w`` on ASCII: ``[0-9A-Za-z_]``) by three byte-range tests
done on a whole uint64 at once, the first non-word byte after a token start is the
lowest set bit of the inverted mask (count trailing zeros), and upper case is
folded by adding 0x20 to the bytes in ``[A-Z]``. A token of <= 8 bytes (most of
them) is one load, a few mask operations and its hash ``finish(word)``
(:mod:`nbayes.text._kernels_table`); there is no per-byte loop, and so none of the
branch mispredictions at the end of every token that a byte loop pays.

Range test on bytes b < 0x80: ``b >= lo`` iff ``b + (0x80 - lo)`` has its high bit
set, ``b <= hi`` iff ``b + (0x7f - hi)`` has it clear; neither sum carries into
the next byte.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from nbayes.text._kernels_table import _FNV_OFFSET, add_token, find_token, finish, mix

_ONES = 0x0101010101010101
_HIGH = np.uint64(0x80 * _ONES)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_CASE = np.uint64(0x20 * _ONES)


def _bounds(lo: int, hi: int) -> tuple[np.uint64, np.uint64]:
    return np.uint64((0x80 - lo) * _ONES), np.uint64((0x7F - hi) * _ONES)


_DIGIT_LO, _DIGIT_HI = _bounds(0x30, 0x39)  # 0-9
_LOWER_LO, _LOWER_HI = _bounds(0x61, 0x7A)  # a-z
_UPPER_LO, _UPPER_HI = _bounds(0x41, 0x5A)  # A-Z
_SCORE_LO, _SCORE_HI = _bounds(0x5F, 0x5F)  # _


@nb.njit(cache=True, inline="always")
def _in(w, lo, hi):
    """0x80 in each byte of w (bytes < 0x80) inside the range given by _bounds."""
    return (w + lo) & ~(w + hi) & _HIGH


@nb.njit(cache=True, inline="always")
def word_bytes(w):
    """0x80 in each byte of w (bytes < 0x80) that is a word character."""
    letters = _in(w | _CASE, _LOWER_LO, _LOWER_HI)
    return letters | _in(w, _DIGIT_LO, _DIGIT_HI) | _in(w, _SCORE_LO, _SCORE_HI)


@nb.njit(cache=True, inline="always")
def _digits(w):
    return _in(w, _DIGIT_LO, _DIGIT_HI)


@nb.njit(cache=True, inline="always")
def _lower(w, lowercase):
    if lowercase:
        return w | (_in(w, _UPPER_LO, _UPPER_HI) >> np.uint64(2))
    return w


@nb.njit(cache=True, inline="always")
def _low_bytes(n):
    """Mask of the low n bytes of a uint64, 0 <= n <= 8."""
    if n >= 8:
        return _ALL
    return (np.uint64(1) << np.uint64(8 * n)) - np.uint64(1)


@nb.njit(cache=True, inline="always")
def _first(bits):
    """Index of the lowest byte whose high bit is set (bits != 0)."""
    return np.int64(trailing_zeros(bits) >> np.uint64(3))


@nb.njit(cache=True, inline="always")
def load8(buf, j, end):
    """buf[j:min(j + 8, end)] as a little-endian uint64, zero-padded."""
    if j + 8 <= end:
        u = np.uint64(j)
        one = np.uint64(1)
        return (
            np.uint64(buf[u])
            | (np.uint64(buf[u + one]) << np.uint64(8))
            | (np.uint64(buf[u + np.uint64(2)]) << np.uint64(16))
            | (np.uint64(buf[u + np.uint64(3)]) << np.uint64(24))
            | (np.uint64(buf[u + np.uint64(4)]) << np.uint64(32))
            | (np.uint64(buf[u + np.uint64(5)]) << np.uint64(40))
            | (np.uint64(buf[u + np.uint64(6)]) << np.uint64(48))
            | (np.uint64(buf[u + np.uint64(7)]) << np.uint64(56))
        )
    v = np.uint64(0)
    for q in range(j, end):
        v |= np.uint64(buf[q]) << np.uint64(8 * (q - j))
    return v


@nb.njit(cache=True, inline="always")
def scan_ascii(
    buf, start, end, lowercase, min_len, max_len, numbers, insert,
    key64, key, toks, n_toks, t_table, t_bytes, t_off, t_stop, counts,
):  # fmt: skip
    """Token ids of the text buf[start:end] into toks from ``toks[n_toks]`` on, up
    to its first non-ASCII byte; returns the new count and where it stopped: ``end``,
    or the token boundary before the 8 bytes holding the first non-ASCII byte (the
    start of the token reaching it, or the start of those 8 bytes), from which
    :func:`unicode_span` takes over. ``end`` must be a token boundary (a document
    end or the start of a span to decode); nothing at or after ``end`` is read.

    The rules of the default word pattern: maximal runs of word characters of
    ``min_len..max_len`` bytes (all-digit runs dropped unless ``numbers``),
    lower-cased if asked, stop words dropped, unseen tokens inserted (``insert``)
    or kept as -1. ``key64``/``key`` are one scratch buffer seen as uint64/uint8.
    """
    j = start
    while j < end:
        w = load8(buf, j, end)
        if w & _HIGH:  # j is a token boundary (a token ended before it, or none began)
            return n_toks, j
        m = word_bytes(w)
        if m == 0:
            j += 8
            continue
        if (m & np.uint64(0x80)) == 0:  # the token starts further on: load from there
            j += _first(m)
            w = load8(buf, j, end)
            if w & _HIGH:
                return n_toks, j
            m = word_bytes(w)
        s = j
        gap = ~m & _HIGH
        if gap != 0:  # the token ends inside this word
            n = _first(gap)
            part = w & _low_bytes(n)
            digits = _digits(part) == (_HIGH & _low_bytes(n))
            word = _lower(part, lowercase)
            key64[0] = word
            j = s + n
            h = finish(word)
        else:
            digits = _digits(w) == _HIGH
            word = _lower(w, lowercase)
            key64[0] = word
            state = mix(_FNV_OFFSET, word)
            k = 1
            j = s + 8
            while True:
                w = load8(buf, j, end)
                if w & _HIGH:  # the token may reach a non-ASCII byte: from its start
                    return n_toks, s
                gap = ~word_bytes(w) & _HIGH
                n = 8 if gap == 0 else _first(gap)
                if n == 0:
                    break
                part = w & _low_bytes(n)
                digits = digits and _digits(part) == (_HIGH & _low_bytes(n))
                part = _lower(part, lowercase)
                key64[k] = part
                state = mix(state, part)
                k += 1
                j += n
                if n < 8:
                    break
            if j - s == 8:
                h = finish(word)
            else:
                h = finish(mix(state, np.uint64(j - s)))
        length = j - s
        if length < min_len or length > max_len or (digits and not numbers):
            continue
        # The same look-up as analyze()'s Unicode path, written out on purpose: an
        # inline="always" helper for it made a 20 Newsgroups fit 1.4-1.8x slower.
        tid, slot = find_token(t_table, t_bytes, t_off, key, length, h)
        if tid < 0 and insert:
            tid = add_token(t_table, t_bytes, t_off, t_stop, counts, key, length, h, slot)
        if tid >= 0 and t_stop[tid]:
            continue
        toks[n_toks] = tid
        n_toks += 1
    return n_toks, end


@nb.njit(cache=True, inline="always")
def _ascii_word(b):
    """Whether the byte b is an ASCII word character ([0-9A-Za-z_])."""
    c = b | 0x20
    return (0x61 <= c <= 0x7A) or (0x30 <= b <= 0x39) or b == 0x5F


@nb.njit(cache=True, inline="always")
def next_high(buf, j, end):
    """Index of the first byte >= 0x80 in buf[j:end], or ``end``; 8 bytes at a time."""
    while j + 8 <= end:
        high = load8(buf, j, end) & _HIGH
        if high != 0:
            return j + _first(high)
        j += 8
    while j < end and buf[j] < 0x80:
        j += 1
    return j


@nb.njit(cache=True, inline="always")
def unicode_span(buf, start, end, min_gap):
    """(a, b): the next part of the UTF-8 (or latin-1) text buf[start:end] that the
    decoding path must take, or (end, end) if buf[start:end] is all ASCII.

    Tokens never cross an ASCII non-word byte, so the span runs from the start of
    the token holding the first non-ASCII byte (just after the ASCII non-word byte
    before it, or ``start``) to the next ASCII non-word byte past every non-ASCII
    byte of it (or ``end``); spans closer than ``min_gap`` ASCII bytes are joined
    into one, as scanning so short a run 8 bytes at a time gains nothing.
    """
    h = next_high(buf, start, end)
    if h == end:
        return end, end
    a = h
    while a > start and _ascii_word(buf[a - 1]):
        a -= 1
    b = h
    while True:
        while b < end and (buf[b] >= 0x80 or _ascii_word(buf[b])):
            b += 1
        if b == end:
            return a, b
        h = next_high(buf, b, min(b + min_gap, end))
        if h == min(b + min_gap, end):
            return a, b
        b = h
