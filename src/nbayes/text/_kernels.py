"""The compiled hot loop of :mod:`nbayes.text` (numba).

One pass over a UTF-8 buffer holding every document turns text into a *feature
stream*: for each document, the ids of its features (tokens and word n-grams) in
the order scikit-learn's analyzer yields them. Tokens and n-grams are interned in
two open-addressing hash tables that compare the full key, so ids are exact (no
hashing trick). A second pass counts the stream into CSR.

State is plain arrays owned by :class:`nbayes.text._engine.Vocabulary`; the kernels
never reallocate them (that would cost reference counting in the hot loop): they
stop before a document that might not fit, and the caller grows the arrays.

token table   ``t_table`` (2 cap,) int64 (hash, meta) slots; ``t_bytes`` the UTF-8
              of all tokens, ``t_off`` (m + 1,) offsets; ``t_stop`` (m,) 1 for stop
              words.
n-gram table  ``g_table``; ``g_toks`` the token ids of all n-grams (n >= 2),
              ``g_off`` (k + 1,) offsets.
counts        (2,) int64: the number of tokens and of n-grams.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_M32 = np.uint64(0xFFFFFFFF)

# opts layout (int64 array)
LOWERCASE, RICH, MIN_LEN, MAX_LEN, NUMBERS, MIN_N, MAX_N, INSERT = range(8)

# char class bits, as in nbayes.text._unicode
_WORD, _DIGIT, _LETTER, _SPACE = 1, 2, 4, 8

KIND_WORD, KIND_NUMBER, KIND_URL, KIND_EMAIL, KIND_HOST = 0, 1, 2, 3, 4


# ------------------------------------------------------------------ utf-8
@nb.njit(cache=True, inline="always")
def _decode(buf, start, end, cps, lower, lowercase):
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


@nb.njit(cache=True, inline="always")
def _encode(cps, s, e, out):
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
@nb.njit(cache=True, inline="always")
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


@nb.njit(cache=True, inline="always")
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


@nb.njit(cache=True)
def _rich_token(cps, i, n, cls, schemes):
    """The token starting at word character i: (end, kind, end of its first run).

    URL: ``http://``, ``https://``, ``ftp://`` or ``www.`` + word character.
    Otherwise word runs joined by single ``.``, ``-``, ``@`` (and ``,`` between
    digits) form a compound, kept whole as an e-mail address (one ``@``, a dot
    after it, last label of >= 2 letters), a host name (no ``@``, a dot, last label
    of >= 2 letters) or a number (digit runs joined by ``.`` or ``,``); any other
    compound yields only its first word run.
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
        while j < n and cls[cps[j]] & _WORD:
            if not cls[cps[j]] & _DIGIT:
                all_digits = False
            if not cls[cps[j]] & _LETTER:
                last_letters = False
            j += 1
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


# ------------------------------------------------------------------ hash tables
# A table is an int64 array of 2 * cap entries: (hash, meta) per slot, meta =
# (key length << 32) | id, or -1 for an empty slot. Short keys (tokens of <= 7
# bytes, bigrams) hash bijectively, so equal hash and length mean equal keys;
# longer keys are compared in full.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_ID_MASK = np.int64(0xFFFFFFFF)
GRAM_BASE = np.int64(1) << 40  # stream entries >= GRAM_BASE are n-grams


@nb.njit(cache=True, inline="always")
def _finish(v):
    h = v * _GOLDEN
    return np.int64(h ^ (h >> np.uint64(32)))


@nb.njit(cache=True, inline="always")
def _token_hash(key, length):
    if length <= 7:
        v = np.uint64(length) << np.uint64(56)
        for q in range(length):
            v |= np.uint64(key[q]) << np.uint64(8 * q)
        return _finish(v)
    h = _FNV_OFFSET
    for q in range(length):
        h = (h ^ np.uint64(key[q])) * _FNV_PRIME
    return _finish(h)


@nb.njit(cache=True, inline="always")
def _gram_hash(seq, s, e):
    if e - s == 2:
        return _finish(np.uint64(seq[s]) | (np.uint64(seq[s + 1]) << np.uint64(32)))
    h = _FNV_OFFSET
    for p in range(s, e):
        h = (h ^ np.uint64(seq[p])) * _FNV_PRIME
        h ^= h >> np.uint64(29)
    return _finish(h)


@nb.njit(cache=True, inline="always")
def _find_token(table, t_bytes, t_off, key, length, h):
    """(token id or -1, slot) of the bytes key[:length] with hash h."""
    mask = (table.shape[0] >> 1) - 1
    i = h & mask
    while True:
        meta = table[2 * i + 1]
        if meta < 0:
            return -1, i
        if table[2 * i] == h and (meta >> 32) == length:
            tid = meta & _ID_MASK
            if length <= 7:
                return tid, i
            s = t_off[tid]
            same = True
            for k in range(length):
                if t_bytes[s + k] != key[k]:
                    same = False
                    break
            if same:
                return tid, i
        i = (i + 1) & mask


@nb.njit(cache=True, inline="always")
def _find_gram(table, g_toks, g_off, seq, s, e, h):
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


@nb.njit(cache=True, inline="always")
def _add_token(table, t_bytes, t_off, t_stop, counts, key, length, h, slot):
    """Append token key[:length] (room is reserved by the caller)."""
    tid = counts[0]
    start = t_off[tid]
    t_bytes[start : start + length] = key[:length]
    t_off[tid + 1] = start + length
    t_stop[tid] = 0
    table[2 * slot] = h
    table[2 * slot + 1] = (np.int64(length) << 32) | tid
    counts[0] = tid + 1
    return tid


@nb.njit(cache=True, inline="always")
def _add_gram(table, g_toks, g_off, counts, seq, s, e, h, slot):
    """Append the n-gram seq[s:e] (room is reserved by the caller)."""
    gid = counts[1]
    start = g_off[gid]
    g_toks[start : start + e - s] = seq[s:e]
    g_off[gid + 1] = start + e - s
    table[2 * slot] = h
    table[2 * slot + 1] = (np.int64(e - s) << 32) | gid
    counts[1] = gid + 1
    return gid


@nb.njit(cache=True)
def rehash(table, cap):
    """The entries of table in a fresh table of cap slots (a power of 2)."""
    new = np.full(2 * cap, -1, np.int64)
    mask = cap - 1
    for j in range(table.shape[0] >> 1):
        if table[2 * j + 1] >= 0:
            i = table[2 * j] & mask
            while new[2 * i + 1] >= 0:
                i = (i + 1) & mask
            new[2 * i] = table[2 * j]
            new[2 * i + 1] = table[2 * j + 1]
    return new


@nb.njit(cache=True)
def intern_tokens(buf, offsets, table, t_bytes, t_off, t_stop, counts):
    """Token ids of the byte strings buf[offsets[i]:offsets[i+1]], inserted if new."""
    n = offsets.shape[0] - 1
    ids = np.empty(n, np.int64)
    for i in range(n):
        key = buf[offsets[i] : offsets[i + 1]]
        h = _token_hash(key, key.shape[0])
        tid, slot = _find_token(table, t_bytes, t_off, key, key.shape[0], h)
        if tid < 0:
            tid = _add_token(table, t_bytes, t_off, t_stop, counts, key, key.shape[0], h, slot)
        ids[i] = tid
    return ids


@nb.njit(cache=True)
def intern_grams(tokens, offsets, table, g_toks, g_off, counts):
    """n-gram ids of the token-id sequences tokens[offsets[i]:offsets[i+1]]."""
    n = offsets.shape[0] - 1
    ids = np.empty(n, np.int64)
    for i in range(n):
        s, e = offsets[i], offsets[i + 1]
        h = _gram_hash(tokens, s, e)
        gid, slot = _find_gram(table, g_toks, g_off, tokens, s, e, h)
        if gid < 0:
            gid = _add_gram(table, g_toks, g_off, counts, tokens, s, e, h, slot)
        ids[i] = gid
    return ids


# ------------------------------------------------------------------ the pass
@nb.njit(cache=True, inline="always")
def _has_room(
    size, orders, gram_tokens, t_table, t_bytes, t_off, g_table, g_toks, g_off, counts,
    t_where, g_where,
):  # fmt: skip
    n_tok, n_gram = counts[0], counts[1]
    return not (
        2 * (n_tok + size + 1) > (t_table.shape[0] >> 1)
        or n_tok + size + 2 > t_off.shape[0]
        or t_off[n_tok] + 2 * size + 4 > t_bytes.shape[0]
        or 2 * (n_gram + (size + 1) * orders) > (g_table.shape[0] >> 1)
        or n_gram + (size + 1) * orders + 1 > g_off.shape[0]
        or g_off[n_gram] + (size + 1) * gram_tokens > g_toks.shape[0]
        or n_tok + size + 1 > t_where.shape[0]
        or n_gram + (size + 1) * orders > g_where.shape[0]
    )


_WORD_BIT, _DIGIT_BIT = _WORD << 8, _DIGIT << 8


@nb.njit(cache=True)
def _ascii_table(cls, lower, lowercase):
    """Per byte c < 256 of an ASCII document: its (lower-cased) code point in the low
    8 bits, and that code point's class bits shifted left by 8 (one load per byte)."""
    tab = np.empty(256, np.int64)
    for c in range(256):
        low = lower[c] if lowercase else c
        tab[c] = (low & 0xFF) | (np.int64(cls[low]) << 8)
    return tab


@nb.njit(cache=True, nogil=True)
def analyze(
    buf, offsets, is_ascii, first_doc, cls, lower, opts, schemes,
    t_table, t_bytes, t_off, t_stop, g_table, g_toks, g_off, counts,
    stream, n_stream, doc_off, tally, data, t_where, g_where,
):  # fmt: skip
    """Append the feature stream of documents first_doc.. to stream.

    A stream entry is a token id (a unigram) or ``GRAM_BASE + n-gram id``, in the
    order scikit-learn's analyzer yields features. ``doc_off[d + 1]`` is where
    document d's entries end. Returns (next document, stream length): stops early,
    before a document, when the arrays may lack room for it (the caller grows them
    and calls again). Tokens failing the length or number rules are dropped; stop
    words are dropped before n-grams are formed; with ``opts[INSERT] == 0`` unseen
    tokens keep their place in n-gram windows but yield no feature.

    With ``tally``, each document's entries are distinct and ``data`` holds their
    counts (stream, data, doc_off are then CSR indices, data, indptr, with rows
    in order of first appearance); ``t_where``/``g_where`` (filled with -1 by the
    caller) track where a feature sits in the current row.
    """
    lowercase = opts[LOWERCASE] != 0
    rich = opts[RICH] != 0
    min_len, max_len = opts[MIN_LEN], opts[MAX_LEN]
    numbers = opts[NUMBERS] != 0
    min_n, max_n = opts[MIN_N], opts[MAX_N]
    insert = opts[INSERT] != 0
    orders = max_n - min_n + 1
    gram_tokens = 0
    for g in range(max(min_n, 2), max_n + 1):
        gram_tokens += g
    n_docs = offsets.shape[0] - 1
    longest = 1
    for d in range(first_doc, n_docs):
        longest = max(longest, offsets[d + 1] - offsets[d])
    cps = np.empty(longest, np.int32)
    toks = np.empty(longest, np.int64)
    key = np.empty(4 * longest + 4, np.uint8)
    ascii_tab = _ascii_table(cls, lower, lowercase)
    for d in range(first_doc, n_docs):
        size = offsets[d + 1] - offsets[d]
        if insert and not _has_room(
            size, orders, gram_tokens, t_table, t_bytes, t_off, g_table, g_toks, g_off, counts,
            t_where, g_where,
        ):  # fmt: skip
            return d, n_stream
        if n_stream + (size + 1) * orders > stream.shape[0]:
            return d, n_stream
        if tally and n_stream + (size + 1) * orders > data.shape[0]:
            return d, n_stream
        n_toks = 0
        if is_ascii[d] and not rich:
            # fast path: bytes are code points; no decoding; hash as we scan
            j, end = offsets[d], offsets[d + 1]
            while j < end:
                x = ascii_tab[buf[j]]
                if not x & _WORD_BIT:
                    j += 1
                    continue
                length = 0
                digit_bits = _DIGIT_BIT
                short = np.uint64(0)
                fnv = _FNV_OFFSET
                while True:
                    c = x & 0xFF
                    key[length] = c
                    if length < 7:
                        short |= np.uint64(c) << np.uint64(8 * length)
                    fnv = (fnv ^ np.uint64(c)) * _FNV_PRIME
                    digit_bits &= x
                    length += 1
                    j += 1
                    if j == end:
                        break
                    x = ascii_tab[buf[j]]
                    if not x & _WORD_BIT:
                        break
                if length < min_len or length > max_len or (digit_bits and not numbers):
                    continue
                if length <= 7:
                    h = _finish((np.uint64(length) << np.uint64(56)) | short)
                else:
                    h = _finish(fnv)
                tid, slot = _find_token(t_table, t_bytes, t_off, key, length, h)
                if tid < 0 and insert:
                    tid = _add_token(t_table, t_bytes, t_off, t_stop, counts, key, length, h, slot)
                if tid >= 0 and t_stop[tid]:
                    continue
                toks[n_toks] = tid
                n_toks += 1
        else:
            n = _decode(buf, offsets[d], offsets[d + 1], cps, lower, lowercase)
            i = 0
            while i < n:
                if not cls[cps[i]] & _WORD:
                    i += 1
                    continue
                kind = KIND_WORD
                if rich:
                    e, kind, _ = _rich_token(cps, i, n, cls, schemes)
                else:
                    e = i
                    while e < n and cls[cps[e]] & _WORD:
                        e += 1
                s = i
                i = e
                if kind == KIND_WORD and not numbers:
                    digits_only = True
                    for p in range(s, e):
                        if not cls[cps[p]] & _DIGIT:
                            digits_only = False
                            break
                    if digits_only:
                        continue
                if (kind == KIND_NUMBER and not numbers) or e - s < min_len or e - s > max_len:
                    continue
                length = _encode(cps, s, e, key)
                h = _token_hash(key, length)
                tid, slot = _find_token(t_table, t_bytes, t_off, key, length, h)
                if tid < 0 and insert:
                    tid = _add_token(t_table, t_bytes, t_off, t_stop, counts, key, length, h, slot)
                if tid >= 0 and t_stop[tid]:
                    continue
                toks[n_toks] = tid
                n_toks += 1
        row_start = doc_off[d]
        for g in range(min_n, max_n + 1):
            if g == 1:
                for p in range(n_toks):
                    tid = toks[p]
                    if tid < 0:
                        continue
                    if tally:
                        at = t_where[tid]
                        if at >= row_start:
                            data[at] += 1.0
                            continue
                        t_where[tid] = n_stream
                        data[n_stream] = 1.0
                    stream[n_stream] = tid
                    n_stream += 1
                continue
            for p in range(n_toks - g + 1):
                known = True
                for q in range(p, p + g):
                    if toks[q] < 0:
                        known = False
                        break
                if not known:
                    continue
                h = _gram_hash(toks, p, p + g)
                gid, slot = _find_gram(g_table, g_toks, g_off, toks, p, p + g, h)
                if gid < 0 and insert:
                    gid = _add_gram(g_table, g_toks, g_off, counts, toks, p, p + g, h, slot)
                if gid < 0:
                    continue
                if tally:
                    at = g_where[gid]
                    if at >= row_start:
                        data[at] += 1.0
                        continue
                    g_where[gid] = n_stream
                    data[n_stream] = 1.0
                stream[n_stream] = GRAM_BASE + gid
                n_stream += 1
        doc_off[d + 1] = n_stream
    return n_docs, n_stream


@nb.njit(cache=True)
def _sort_row(indices, data, a, b):
    """Sort indices[a:b] (carrying data along): insertion sort for short rows."""
    if b - a > 32:
        order = np.argsort(indices[a:b], kind="mergesort")
        indices[a:b] = indices[a:b][order]
        data[a:b] = data[a:b][order]
        return
    for i in range(a + 1, b):
        key, value = indices[i], data[i]
        j = i - 1
        while j >= a and indices[j] > key:
            indices[j + 1] = indices[j]
            data[j + 1] = data[j]
            j -= 1
        indices[j + 1] = key
        data[j + 1] = value


@nb.njit(cache=True)
def count(stream, doc_off, col_tok, col_gram, weight_tok, weight_gram, n_columns):
    """CSR (indptr, indices, data) of summed weights per (document, column).

    A stream entry f maps to ``col_tok[f]`` (or ``col_gram[f - GRAM_BASE]``);
    negative columns are dropped; indices are sorted within rows; sums that
    cancel to zero stay stored, as in scikit-learn's FeatureHasher.
    """
    n_docs = doc_off.shape[0] - 1
    indptr = np.empty(n_docs + 1, np.int64)
    indices = np.empty(stream.shape[0], np.int32)
    data = np.empty(stream.shape[0], np.float64)
    where = np.full(n_columns, -1, np.int64)
    nnz = 0
    indptr[0] = 0
    for d in range(n_docs):
        row_start = nnz
        for p in range(doc_off[d], doc_off[d + 1]):
            f = stream[p]
            if f < GRAM_BASE:
                c = col_tok[f]
                w = weight_tok[f]
            else:
                c = col_gram[f - GRAM_BASE]
                w = weight_gram[f - GRAM_BASE]
            if c < 0:
                continue
            at = where[c]
            if at >= row_start:
                data[at] += w
            else:
                where[c] = nnz
                indices[nnz] = c
                data[nnz] = w
                nnz += 1
        _sort_row(indices, data, row_start, nnz)
        indptr[d + 1] = nnz
    return indptr, indices[:nnz].copy(), data[:nnz].copy()


@nb.njit(cache=True)
def gram_bytes(g_toks, g_off, n_gram, t_bytes, t_off):
    """UTF-8 of every n-gram's name (tokens joined by a space), each followed by \\n."""
    size = 0
    for f in range(n_gram):
        for p in range(g_off[f], g_off[f + 1]):
            t = g_toks[p]
            size += t_off[t + 1] - t_off[t] + 1
    out = np.empty(size, np.uint8)
    k = 0
    for f in range(n_gram):
        for p in range(g_off[f], g_off[f + 1]):
            t = g_toks[p]
            if p > g_off[f]:
                out[k] = 0x20
                k += 1
            a, b = t_off[t], t_off[t + 1]
            out[k : k + b - a] = t_bytes[a:b]
            k += b - a
        out[k] = 0x0A
        k += 1
    return out


@nb.njit(cache=True)
def prefix_keys(buf, starts, ends):
    """Big-endian uint64 of bytes 0-7 and 8-15 of each string (zero-padded): sorting
    by them sorts strings in code-point order up to a 16-byte common prefix."""
    n = starts.shape[0]
    first = np.zeros(n, np.uint64)
    second = np.zeros(n, np.uint64)
    for i in range(n):
        s, e = starts[i], ends[i]
        a = np.uint64(0)
        b = np.uint64(0)
        for k in range(8):
            a = (a << np.uint64(8)) | (np.uint64(buf[s + k]) if s + k < e else np.uint64(0))
        for k in range(8, 16):
            b = (b << np.uint64(8)) | (np.uint64(buf[s + k]) if s + k < e else np.uint64(0))
        first[i] = a
        second[i] = b
    return first, second


@nb.njit(cache=True)
def _rotl32(x, r):
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & _M32


@nb.njit(cache=True)
def murmur3_32(buf, starts, ends, seed):
    """Signed MurmurHash3_x86_32 of each buf[starts[i]:ends[i]] (scikit-learn's hash)."""
    c1 = np.uint64(0xCC9E2D51)
    c2 = np.uint64(0x1B873593)
    out = np.empty(starts.shape[0], np.int64)
    for i in range(starts.shape[0]):
        s, e = starts[i], ends[i]
        length = e - s
        h = np.uint64(seed) & _M32
        nblocks = length // 4
        for b in range(nblocks):
            p = s + 4 * b
            k = np.uint64(buf[p]) | (np.uint64(buf[p + 1]) << np.uint64(8))
            k |= (np.uint64(buf[p + 2]) << np.uint64(16)) | (np.uint64(buf[p + 3]) << np.uint64(24))
            k = (k * c1) & _M32
            k = _rotl32(k, 15)
            k = (k * c2) & _M32
            h ^= k
            h = _rotl32(h, 13)
            h = (h * np.uint64(5) + np.uint64(0xE6546B64)) & _M32
        tail = s + 4 * nblocks
        rem = length & 3
        k = np.uint64(0)
        if rem >= 3:
            k ^= np.uint64(buf[tail + 2]) << np.uint64(16)
        if rem >= 2:
            k ^= np.uint64(buf[tail + 1]) << np.uint64(8)
        if rem >= 1:
            k ^= np.uint64(buf[tail])
            k = (k * c1) & _M32
            k = _rotl32(k, 15)
            k = (k * c2) & _M32
            h ^= k
        h ^= np.uint64(length)
        h ^= h >> np.uint64(16)
        h = (h * np.uint64(0x85EBCA6B)) & _M32
        h ^= h >> np.uint64(13)
        h = (h * np.uint64(0xC2B2AE35)) & _M32
        h ^= h >> np.uint64(16)
        v = np.int64(h)
        out[i] = v - (np.int64(1) << 32) if v >= (np.int64(1) << 31) else v
    return out
