"""The token scan of ASCII text (numba, SWAR): whole ASCII documents, and the ASCII
runs of any other (the scan stops at the first non-ASCII byte; :func:`unicode_span`
finds the span to decode).

Text whose bytes are all < 0x80 needs no decoding: a byte is a word character
(Python's ``\\w`` on ASCII: ``[0-9A-Za-z_]``) by three byte-range tests done on a
whole uint64 at once, and upper case is folded by adding 0x20 to the bytes in
``[A-Z]``. The scan takes 64 bytes at a time: eight such tests give a 64-bit mask of
the word bytes (each 8-byte test's flags gathered into 8 bits by one multiply), and
the token starts and ends are the mask's edges, found by counting trailing zeros. A
token of <= 8 bytes (most of them) is then one load, a few mask operations and its
hash ``finish(word)`` (:mod:`nbayes.tokens._kernels_table`): no per-byte loop, and
no branch per token beyond the edge loop's.

Range test on bytes b < 0x80: ``b >= lo`` iff ``b + (0x80 - lo)`` has its high bit
set, ``b <= hi`` iff ``b + (0x7f - hi)`` has it clear; neither sum carries into
the next byte.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from nbayes._kernels import helper
from nbayes.tokens._kernels_table import _FNV_OFFSET, add_key, find_key, finish, mix
from nbayes.tokens._prefetch import prefetch

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


@helper(inline="llvm")
def _in(w, lo, hi):
    """0x80 in each byte of w (bytes < 0x80) inside the range given by _bounds."""
    return (w + lo) & ~(w + hi) & _HIGH


@helper(inline=True)
def word_bytes(w):
    """0x80 in each byte of w (bytes < 0x80) that is a word character."""
    letters = _in(w | _CASE, _LOWER_LO, _LOWER_HI)
    return letters | _in(w, _DIGIT_LO, _DIGIT_HI) | _in(w, _SCORE_LO, _SCORE_HI)


@helper(inline="llvm")
def _digits(w):
    return _in(w, _DIGIT_LO, _DIGIT_HI)


@helper(inline="llvm")
def _lower(w, lowercase):
    if lowercase:
        return w | (_in(w, _UPPER_LO, _UPPER_HI) >> np.uint64(2))
    return w


@helper(inline="llvm")
def _low_bytes(n):
    """Mask of the low n bytes of a uint64, 0 <= n <= 8."""
    if n >= 8:
        return _ALL
    return (np.uint64(1) << np.uint64(8 * n)) - np.uint64(1)


@helper(inline="llvm")
def _first(bits):
    """Index of the lowest byte whose high bit is set (bits != 0)."""
    return np.int64(trailing_zeros(bits) >> np.uint64(3))


@helper(inline="llvm")
def _load_full(buf, u):
    """buf[u:u + 8] (all inside buf) as a little-endian uint64: LLVM makes the eight
    byte loads one 8-byte load."""
    return (
        np.uint64(buf[u])
        | (np.uint64(buf[u + np.uint64(1)]) << np.uint64(8))
        | (np.uint64(buf[u + np.uint64(2)]) << np.uint64(16))
        | (np.uint64(buf[u + np.uint64(3)]) << np.uint64(24))
        | (np.uint64(buf[u + np.uint64(4)]) << np.uint64(32))
        | (np.uint64(buf[u + np.uint64(5)]) << np.uint64(40))
        | (np.uint64(buf[u + np.uint64(6)]) << np.uint64(48))
        | (np.uint64(buf[u + np.uint64(7)]) << np.uint64(56))
    )


@helper(inline="llvm")
def load8(buf, j, end):
    """buf[j:min(j + 8, end)] as a little-endian uint64, zero-padded."""
    if j + 8 <= end:
        return _load_full(buf, np.uint64(j))
    v = np.uint64(0)
    for q in range(j, end):
        v |= np.uint64(buf[q]) << np.uint64(8 * (q - j))
    return v


_MOVEMASK = np.uint64(0x0102040810204080)


@helper(inline="llvm")
def _bits(m):
    """The flags of m (0x80 in some bytes, nothing else) as 8 bits: byte i's to bit i.
    The product adds byte i's flag (bit 8i + 7 of m, bit 8i after the shift) times
    2 ** (7 * (8 - i)) at bit 56 + i; no two of its 64 terms share a bit, so
    nothing carries."""
    return ((m >> np.uint64(7)) * _MOVEMASK) >> np.uint64(56)


@helper(inline=True)
def _block(buf, j, end):
    """(word mask, high) of the 64 bytes buf[j:j + 64], those at or after ``end``
    read as zeros: bit i of the mask is set where byte j + i is a word character,
    ``high`` is nonzero where any byte is >= 0x80 (the mask is then valid only below
    the first such byte)."""
    if j + 64 > end:
        return _last_block(buf, j, end)
    mask = np.uint64(0)
    high = np.uint64(0)
    for k in range(8):  # no bounds test per load (8-10 % of the scan's time)
        w = _load_full(buf, np.uint64(j + 8 * k))
        high |= w
        mask |= _bits(word_bytes(w)) << np.uint64(8 * k)
    return mask, high & _HIGH


@helper
def _last_block(buf, j, end):
    """:func:`_block` of the last bytes of a text, fewer than 64 (once a text: not
    inlined, which would compile its unrolled loop into every caller again)."""
    mask = np.uint64(0)
    high = np.uint64(0)
    for k in range(8):
        w = load8(buf, j + 8 * k, end)
        high |= w
        mask |= _bits(word_bytes(w)) << np.uint64(8 * k)
    return mask, high & _HIGH


@helper
def _first_high(buf, j, end):
    """Offset from j of the first byte >= 0x80 in buf[j:min(j + 64, end)] (one exists)."""
    for k in range(8):
        high = load8(buf, j + 8 * k, end) & _HIGH
        if high:
            return 8 * k + _first(high)
    return 64


@helper(inline=True)
def _word_at(buf, s, n, n_buf, lowercase):
    """buf[s:s + n] (0 < n <= 8) as a little-endian uint64, lower-cased if asked."""
    return _lower(load8(buf, s, n_buf) & _low_bytes(n), lowercase)


@helper
def _all_digits(buf, s, length):
    """Whether the ASCII bytes buf[s:s + length] are all digits, 8 at a time."""
    for k in range(0, length, 8):
        n = length - k if length - k < 8 else np.int64(8)
        if _digits(load8(buf, s + k, buf.shape[0]) & _low_bytes(n)) != _HIGH & _low_bytes(n):
            return False
    return True


@helper(inline=True)
def find_tokens(buf, start, end, lowercase, min_len, max_len, numbers, found, t_table):
    """The first half of the ASCII scan of buf[start:end], up to its first non-ASCII
    byte: the tokens that pass the rules into ``found`` (shape (3, n): hash, start,
    length), their hash-table slots prefetched; returns how many, and where it
    stopped: ``end``, or a token boundary at or before the first non-ASCII byte (the
    start of the token reaching it, or the byte itself), from which
    :func:`unicode_span` takes over. ``end`` must be a token boundary (a document end
    or the start of a span to decode); nothing at or after ``end`` is read as text.
    :func:`look_up_tokens` is the second half.

    The rules of the default word pattern: maximal runs of word characters of
    ``min_len..max_len`` bytes (all-digit runs dropped unless ``numbers``),
    lower-cased if asked.

    The scan takes 64 bytes at a time: a bit mask of their word bytes
    (:func:`_block`), whose edges ``mask & ~(mask << 1 | carry)`` are the token
    starts and ``~mask & (mask << 1 | carry)`` the ends (the carry: a token running
    on from the block before), taken in pairs by counting trailing zeros. The
    look-ups come after the whole run: by then the slots are in cache or on their
    way, so the misses of a run of tokens overlap instead of each stalling the next.

    Inlined by numba into its one caller, as :func:`look_up_tokens` is: as one
    compiled helper, the scan's machine code was made twice (its own, and its
    caller's copy), 0.5-0.7 s of a first fit.
    """
    n_buf = buf.shape[0]
    one = np.uint64(1)
    slots = (t_table.shape[0] >> 1) - 1
    n_found = np.int64(0)
    open_start = -1  # start of a token that runs on into the next block
    stopped = end
    j = start
    while j < end or open_start >= 0:
        mask, high = _block(buf, j, end)
        carry = one if open_start >= 0 else np.uint64(0)
        before = (mask << one) | carry  # bit i: byte i - 1 is a word byte
        starts, ends = mask & ~before, ~mask & before
        if high:  # only the tokens ending before the first non-ASCII byte, at j + p
            p = _first_high(buf, j, end)
            starts &= (one << np.uint64(p)) - one
            ends &= (one << np.uint64(p)) - one
            touches = carry if p == 0 else (mask >> np.uint64(p - 1)) & one
            stopped = j + p if touches == 0 else -1  # -1: from the start of that token
        while ends:  # each end closes the open token or the next start's
            e = j + np.int64(trailing_zeros(ends))
            ends &= ends - one
            if open_start >= 0:
                s, open_start = open_start, -1
            else:
                s = j + np.int64(trailing_zeros(starts))
                starts &= starts - one
            length = e - s
            if length < min_len or length > max_len:
                continue
            if not numbers and _all_digits(buf, s, length):
                continue
            word = _word_at(buf, s, length if length < 8 else np.int64(8), n_buf, lowercase)
            if length <= 8:
                h = finish(word)
            else:
                state = mix(_FNV_OFFSET, word)
                for k in range(8, length, 8):
                    n = length - k if length - k < 8 else np.int64(8)
                    state = mix(state, _word_at(buf, s + k, n, n_buf, lowercase))
                h = finish(mix(state, np.uint64(length)))
            found[0, n_found] = h
            found[1, n_found] = s
            found[2, n_found] = length
            n_found += 1
            prefetch(t_table, 2 * (h & slots))
        if starts:  # a token runs on into the next block
            open_start = j + np.int64(trailing_zeros(starts))
        if high:
            if stopped < 0:
                stopped = open_start
            break
        j += 64
    return n_found, stopped


@helper(inline=True)
def look_up_tokens(
    buf, found, n_found, lowercase, insert, toks, n_toks, t_table, t_bytes, t_off, t_stop,
    counts, t_where,
):  # fmt: skip
    """The second half of the ASCII scan: the ids of the ``n_found`` tokens
    :func:`find_tokens` found into toks from ``toks[n_toks]`` on; returns the new
    count. Stop words are dropped, unseen tokens inserted (``insert``) or kept as -1.
    The slot of ``t_where`` (the row-position array the caller's tally reads next)
    of each is prefetched."""
    for f in range(n_found):
        h, s, length = found[0, f], found[1, f], found[2, f]
        tid, slot = find_key(t_table, t_bytes, t_off, buf, s, length, h, lowercase)
        if tid < 0 and insert:
            tid = add_key(t_table, t_bytes, t_off, t_stop, counts, buf, s, length, h, slot,
                          lowercase)  # fmt: skip
        if tid >= 0 and t_stop[tid]:
            continue
        prefetch(t_where, tid if tid > 0 else np.int64(0))
        toks[n_toks] = tid
        n_toks += 1
    return n_toks


@helper(inline="llvm")
def _ascii_word(b):
    """Whether the byte b is an ASCII word character ([0-9A-Za-z_])."""
    c = b | 0x20
    return (0x61 <= c <= 0x7A) or (0x30 <= b <= 0x39) or b == 0x5F


@helper(inline=True)
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


@helper
def unicode_span(buf, start, end, min_gap):
    """(a, b): the next part of the UTF-8 (or latin-1) text buf[start:end] that the
    decoding path must take, or (end, end) if buf[start:end] is all ASCII.

    Tokens never cross an ASCII non-word byte, so the span runs from the start of
    the token holding the first non-ASCII byte (just after the ASCII non-word byte
    before it, or ``start``) to the next ASCII non-word byte past every non-ASCII
    byte of it (or ``end``); spans closer than ``min_gap`` ASCII bytes are joined
    into one, as scanning so short a run as ASCII gains nothing.
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
        gap_end = b + min_gap if b + min_gap < end else end
        h = next_high(buf, b, gap_end)
        if h == gap_end:
            return a, b
        b = h
