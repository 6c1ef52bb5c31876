"""The interning hash tables of :mod:`nbayes.tokens._kernels` (numba).

A table is an int64 array of 2 * cap entries: (hash, meta) per slot, meta =
(key length << 32) | id, or -1 for an empty slot (cap a power of 2, at most half
full). Token keys of <= 8 bytes hash bijectively (the hash of their bytes packed
little-endian into one uint64, zero-padded), so equal hash and length mean equal
keys; longer keys are compared in full. Bigrams of token ids hash bijectively too.

Token hash: w_0, w_1, ... the key's bytes packed 8 at a time (little-endian, the
last word zero-padded); ``finish(w_0)`` for keys of <= 8 bytes, else
``finish(mix(mix(... mix(mix(FNV_OFFSET, w_0), w_1) ...), length))``; the compiled ASCII
scan computes the same value from 8-byte loads.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes._kernels import helper, kernel

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_ID_MASK = np.int64(0xFFFFFFFF)


@helper(inline="llvm")
def finish(v):
    """A bijective scramble of the uint64 v, as int64."""
    h = v * _GOLDEN
    return np.int64(h ^ (h >> np.uint64(32)))


@helper(inline="llvm")
def mix(h, w):
    """One step of the long-key hash: the state h absorbs the 8-byte word w."""
    h = (h ^ w) * _FNV_PRIME
    return h ^ (h >> np.uint64(29))


@helper(inline="llvm")
def _pack(key, start, stop):
    v = np.uint64(0)
    for q in range(start, stop):
        v |= np.uint64(key[q]) << np.uint64(8 * (q - start))
    return v


@helper(inline=True)
def token_hash(key, length):
    """The hash of the token bytes key[:length] (see the module docstring)."""
    if length <= 8:
        return finish(_pack(key, np.int64(0), length))
    h = _FNV_OFFSET
    for q in range(0, length, 8):
        h = mix(h, _pack(key, q, q + 8 if q + 8 < length else length))
    return finish(mix(h, np.uint64(length)))


@helper(inline=True)
def gram_entry(gid):
    """The stream entry of n-gram ``gid``: ``-1 - gid`` (token ids are >= 0), so a
    stream fits int32 whenever its ids do; :func:`gram_entry` is its own inverse."""
    return -1 - gid


@helper(inline=True)
def gram_hash(seq, s, e):
    if e - s == 2:
        return finish(np.uint64(seq[s]) | (np.uint64(seq[s + 1]) << np.uint64(32)))
    h = _FNV_OFFSET
    for p in range(s, e):
        h = (h ^ np.uint64(seq[p])) * _FNV_PRIME
        h ^= h >> np.uint64(29)
    return finish(h)


@helper(inline="llvm")
def _folded(c, lowercase):
    """The ASCII byte c, upper case folded to lower if ``lowercase``."""
    if lowercase and 0x41 <= c <= 0x5A:
        return c + 0x20
    return c


@helper(inline=True)
def _same_key(t_bytes, a, buf, s, length, lowercase):
    """Whether the token bytes t_bytes[a:a + length] equal buf[s:s + length], ASCII
    upper case folded first if ``lowercase``. A byte loop on purpose: comparing 8
    bytes at a time made the ASCII scan's whole pass 1.4-1.8x slower (measured, not
    explained; bench/NOTES.md, text vectorizer round 6)."""
    for k in range(length):
        if t_bytes[a + k] != _folded(buf[s + k], lowercase):
            return False
    return True


@helper(inline=True)
def find_key(table, t_bytes, t_off, buf, s, length, h, lowercase):
    """(token id or -1, slot) of the bytes buf[s:s + length] with hash h, ASCII upper
    case folded if ``lowercase`` (the ASCII scan looks tokens up in the text itself,
    with no copy). Keys of <= 8 bytes hash bijectively, so an equal hash and length
    is the key; longer ones are compared byte by byte."""
    mask = (table.shape[0] >> 1) - 1
    i = h & mask
    while True:
        meta = table[2 * i + 1]
        if meta < 0:
            return -1, i
        if table[2 * i] == h and (meta >> 32) == length:
            tid = meta & _ID_MASK
            if length <= 8 or _same_key(t_bytes, t_off[tid], buf, s, length, lowercase):
                return tid, i
        i = (i + 1) & mask


@helper(inline=True)
def find_token(table, t_bytes, t_off, key, length, h):
    """(token id or -1, slot) of the bytes key[:length] with hash h."""
    return find_key(table, t_bytes, t_off, key, np.int64(0), length, h, np.bool_(False))


@helper(inline=True)
def find_gram(table, g_toks, g_off, seq, s, e, h):
    """(n-gram id or -1, slot) of the token-id sequence seq[s:e] with hash h."""
    mask = (table.shape[0] >> 1) - 1
    length = e - s
    i = h & mask
    while True:
        meta = table[2 * i + 1]
        if meta < 0:
            return -1, i
        if table[2 * i] == h and (meta >> 32) == length:
            gid = meta & _ID_MASK
            if length == 2:
                return gid, i
            a = g_off[gid]
            same = True
            for k in range(length):
                if g_toks[a + k] != seq[s + k]:
                    same = False
                    break
            if same:
                return gid, i
        i = (i + 1) & mask


@helper(inline=True)
def add_key(table, t_bytes, t_off, t_stop, counts, buf, s, length, h, slot, lowercase):
    """Append token buf[s:s + length], ASCII upper case folded if ``lowercase``, at
    the empty ``slot`` :func:`find_key` returned (room is reserved by the caller)."""
    tid = counts[0]
    start = t_off[tid]
    for k in range(length):
        t_bytes[start + k] = _folded(buf[s + k], lowercase)
    t_off[tid + 1] = start + length
    t_stop[tid] = 0
    table[2 * slot] = h
    table[2 * slot + 1] = (np.int64(length) << 32) | tid
    counts[0] = tid + 1
    return tid


@helper(inline=True)
def add_token(table, t_bytes, t_off, t_stop, counts, key, length, h, slot):
    """Append token key[:length] (room is reserved by the caller)."""
    zero, lowercase = np.int64(0), np.bool_(False)
    return add_key(table, t_bytes, t_off, t_stop, counts, key, zero, length, h, slot, lowercase)


@helper(inline=True)
def add_gram(table, g_toks, g_off, counts, seq, s, e, h, slot):
    """Append the n-gram seq[s:e] (room is reserved by the caller)."""
    gid = counts[1]
    start = g_off[gid]
    for k in range(e - s):  # a loop, not a slice: no shape check to compile
        g_toks[start + k] = seq[s + k]
    g_off[gid + 1] = start + e - s
    table[2 * slot] = h
    table[2 * slot + 1] = (np.int64(e - s) << 32) | gid
    counts[1] = gid + 1
    return gid


def rehash(table: NDArray[np.int64], cap: int) -> NDArray[np.int64]:
    """The entries of table in a fresh table of cap slots (a power of 2)."""
    new = np.full(2 * cap, -1, np.int64)
    _rehash_into(table, new)
    return new


@kernel
def _rehash_into(table, new):
    """Put the entries of ``table`` into the empty table ``new`` (allocated by the
    caller: an allocation compiles a function of numba's in)."""
    mask = (new.shape[0] >> 1) - 1
    for j in range(table.shape[0] >> 1):
        if table[2 * j + 1] >= 0:
            i = table[2 * j] & mask
            while new[2 * i + 1] >= 0:
                i = (i + 1) & mask
            new[2 * i] = table[2 * j]
            new[2 * i + 1] = table[2 * j + 1]


@kernel
def intern_tokens(buf, offsets, table, t_bytes, t_off, t_stop, counts):
    """Token ids of the byte strings buf[offsets[i]:offsets[i+1]], inserted if new."""
    n = offsets.shape[0] - 1
    ids = np.empty(n, np.int64)
    for i in range(n):
        key = buf[offsets[i] : offsets[i + 1]]
        h = token_hash(key, key.shape[0])
        tid, slot = find_token(table, t_bytes, t_off, key, key.shape[0], h)
        if tid < 0:
            tid = add_token(table, t_bytes, t_off, t_stop, counts, key, key.shape[0], h, slot)
        ids[i] = tid
    return ids


@kernel
def intern_grams(tokens, offsets, table, g_toks, g_off, counts):
    """n-gram ids of the token-id sequences tokens[offsets[i]:offsets[i+1]]."""
    n = offsets.shape[0] - 1
    ids = np.empty(n, np.int64)
    for i in range(n):
        s, e = offsets[i], offsets[i + 1]
        h = gram_hash(tokens, s, e)
        gid, slot = find_gram(table, g_toks, g_off, tokens, s, e, h)
        if gid < 0:
            gid = add_gram(table, g_toks, g_off, counts, tokens, s, e, h, slot)
        ids[i] = gid
    return ids


@kernel
def fold_lookup(b_table, b_bytes, b_off, n_tok0, lo, hi, table, t_bytes, t_off, tok_map):
    """Look up, in this vocabulary (``table``, ``t_bytes``/``t_off``), the tokens
    n_tok0.. of another one (table ``b_table``, bytes ``b_bytes``/``b_off``) that sit
    in its slots lo..hi - 1: ``tok_map[b id]`` = id here, or -1 if absent.

    The look-ups go in ``b_table``'s slot order, near this table's slot order (same
    hashes, power-of-2 sizes), so they read this table almost sequentially (in id
    order they probe at random). Only reads this vocabulary: slot ranges can be
    looked up in parallel.
    """
    for j in range(lo, hi):
        meta = b_table[2 * j + 1]
        if meta < 0 or (meta & _ID_MASK) < n_tok0:
            continue
        bid = meta & _ID_MASK
        s = b_off[bid]
        tid, _ = find_token(table, t_bytes, t_off, b_bytes[s:], meta >> 32, b_table[2 * j])
        tok_map[bid] = tid


@kernel
def fold_append(b_bytes, b_off, n_tok0, t_bytes, t_off, t_stop, counts, tok_map):
    """Append to this vocabulary the other one's tokens n_tok0.. that
    :func:`fold_lookup` did not find (``tok_map`` -1), in the other's id order (the
    order in which it met them): ``tok_map[b id]`` = their new ids. Their names are
    then complete (a sort can start); :func:`fold_slots` puts them in the table."""
    for bid in range(n_tok0, tok_map.shape[0]):
        if tok_map[bid] >= 0:
            continue
        tid = counts[0]
        start, length = t_off[tid], b_off[bid + 1] - b_off[bid]
        for k in range(length):
            t_bytes[start + k] = b_bytes[b_off[bid] + k]
        t_off[tid + 1] = start + length
        t_stop[tid] = 0
        counts[0] = tid + 1
        tok_map[bid] = tid


@kernel
def fold_slots(b_table, n_tok0, first_new, table, tok_map):
    """Hash-table slots for the tokens :func:`fold_append` gave ids from
    ``first_new`` on, taken in ``b_table``'s slot order, near this table's own (in id
    order each insert probes at random). Where a key lands does not change any id:
    only look-ups read it."""
    mask = (table.shape[0] >> 1) - 1
    for j in range(b_table.shape[0] >> 1):
        meta = b_table[2 * j + 1]
        if meta < 0 or (meta & _ID_MASK) < n_tok0:
            continue
        tid = tok_map[meta & _ID_MASK]
        if tid < first_new:
            continue
        h = b_table[2 * j]
        i = h & mask
        while table[2 * i + 1] >= 0:  # the key is absent: the first free slot
            i = (i + 1) & mask
        table[2 * i] = h
        table[2 * i + 1] = (meta >> 32 << 32) | tid
