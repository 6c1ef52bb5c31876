"""What the compiled pass of :mod:`nbayes.tokens._kernels` feeds (numba): counting a
feature stream into CSR rows, feature names as UTF-8, sort keys for names, and
scikit-learn's MurmurHash3 of names (HashingVectorizer)."""

from __future__ import annotations

import numpy as np

from nbayes._kernels import helper, kernel
from nbayes.tokens._kernels_ascii import _load_full
from nbayes.tokens._kernels_table import gram_entry

_M32 = np.uint64(0xFFFFFFFF)


@helper
def _sort_row(indices, data, a, b):
    """Sort indices[a:b] (carrying data along): insertion sort for short rows."""
    if b - a > 32:
        order = np.argsort(indices[a:b], kind="mergesort")
        keys, values = indices[a:b].copy(), data[a:b].copy()
        for k in range(b - a):  # loops, not slices: no shape checks to compile
            indices[a + k] = keys[order[k]]
            data[a + k] = values[order[k]]
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


@kernel
def count(stream, doc_off, col_tok, col_gram, weight_tok, weight_gram, n_columns):
    """CSR (indptr, indices, data) of summed weights per (document, column).

    A stream entry f maps to ``col_tok[f]`` (or ``col_gram[-1 - f]``, an n-gram);
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
            if f >= 0:
                c = col_tok[f]
                w = weight_tok[f]
            else:
                c = col_gram[gram_entry(f)]
                w = weight_gram[gram_entry(f)]
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


@kernel
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
            for q in range(a, b):
                out[k] = t_bytes[q]
                k += 1
        out[k] = 0x0A
        k += 1
    return out


_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@helper(inline=True)
def _byte_swap(v):
    """The bytes of the uint64 v in reverse order (LLVM makes it one bswap)."""
    v = ((v & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8)) | (
        (v >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)
    )
    v = ((v & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16)) | (
        (v >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)
    )
    return (v << np.uint64(32)) | (v >> np.uint64(32))


@helper(inline=True)
def _prefix_key(buf, s, e):
    """Bytes buf[s:min(s + 8, e)] as a big-endian uint64, zero-padded on the right."""
    n = min(e - s, 8)
    if n <= 0:
        return np.uint64(0)
    if s + 8 <= buf.shape[0]:  # one load; the bytes past e are masked off
        v = _byte_swap(_load_full(buf, np.uint64(s)))  # big-endian
        if n < 8:
            v &= ~(_ALL >> np.uint64(8 * n))
        return v
    v = np.uint64(0)
    for k in range(8):
        v = (v << np.uint64(8)) | (np.uint64(buf[s + k]) if k < n else np.uint64(0))
    return v


@kernel
def prefix_keys(buf, starts, ends, first, second):
    """Big-endian uint64 of bytes 0-7 and 8-15 of each string (zero-padded) into
    ``first`` and ``second`` (n,): sorting by them sorts strings in code-point order
    up to a 16-byte common prefix. The caller allocates them: an allocation compiled
    into a kernel costs its first use ~0.2 s of numba's own overloads."""
    for i in range(starts.shape[0]):
        s, e = starts[i], ends[i]
        first[i] = _prefix_key(buf, s, e)
        second[i] = _prefix_key(buf, s + 8, e)


@helper(inline="llvm")
def _before(i, j, first, second):
    """Whether item i orders before item j by (first, second)."""
    return first[i] < first[j] or (first[i] == first[j] and second[i] < second[j])


@helper
def _merge_pass(src, dst, a, b, width, first, second):
    """Merge the sorted runs src[lo:lo + width], src[lo + width:lo + 2 width] for lo
    in a, a + 2 width, ... < b into dst (stable)."""
    for lo in range(a, b, 2 * width):
        mid, hi = min(lo + width, b), min(lo + 2 * width, b)
        i, j = lo, mid
        for k in range(lo, hi):
            if j >= hi or (i < mid and not _before(src[j], src[i], first, second)):
                dst[k] = src[i]
                i += 1
            else:
                dst[k] = src[j]
                j += 1


@kernel
def sort_ties(order, packed, first, second, shift, scratch, ties):
    """Sort, in place and by (first, second), each run of ``order`` whose items
    share ``first >> shift``, given ``packed`` (sorted: ``packed[p] >> shift`` is
    ``first[order[p]] >> shift``, so the runs are found without a gather). Writes
    the (start, stop) pairs of the runs of ``order`` that then share both keys (names
    equal in their first 16 bytes) into ``ties`` (n // 2 + 1, 2) and returns their
    number; ``scratch`` (n,) is the merge's buffer (both the caller's: see
    :func:`prefix_keys`).

    Runs of up to 16 items by insertion, longer ones by a bottom-up merge sort, so
    a long run costs O(k log k).
    """
    n = order.shape[0]
    n_ties = np.int64(0)
    a = np.int64(0)
    while a < n:
        top = packed[a] >> shift
        b = a + 1
        while b < n and (packed[b] >> shift) == top:
            b += 1
        if b - a == 1:
            a = b
            continue
        if b - a <= 16:
            for p in range(a + 1, b):
                item = order[p]
                q = p
                while q > a and _before(item, order[q - 1], first, second):
                    order[q] = order[q - 1]
                    q -= 1
                order[q] = item
        else:
            width = np.int64(1)
            in_scratch = False  # where the sorted widths now are
            while width < b - a:
                if in_scratch:
                    _merge_pass(scratch, order, a, b, width, first, second)
                else:
                    _merge_pass(order, scratch, a, b, width, first, second)
                in_scratch = not in_scratch
                width *= 2
            if in_scratch:
                for p in range(a, b):
                    order[p] = scratch[p]
        p = a
        while p < b:  # runs of equal (first, second) within this one
            q = p + 1
            while q < b and not _before(order[p], order[q], first, second):
                q += 1
            if q - p > 1:
                ties[n_ties, 0], ties[n_ties, 1] = p, q
                n_ties += 1
            p = q
        a = b
    return n_ties


@helper(inline=True)
def _rotl32(x, r):
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & _M32


@kernel
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
            k = _rotl32(k, np.int64(15))
            k = (k * c2) & _M32
            h ^= k
            h = _rotl32(h, np.int64(13))
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
            k = _rotl32(k, np.int64(15))
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


@kernel
def frequencies(entries, counts, n_tok, n_features):
    """Document and corpus frequency of every feature index, shapes (n_features,).

    ``entries`` are CSR indices of distinct stream entries per row (token id t, or
    ``-1 - g`` for n-gram g, feature index ``n_tok + g``), ``counts`` their
    counts: df[f] = number of rows holding f, tf[f] = sum of its counts.
    """
    df = np.zeros(n_features, np.int64)
    tf = np.zeros(n_features, np.int64)
    for p in range(entries.shape[0]):
        e = entries[p]
        f = e if e >= 0 else n_tok + gram_entry(e)
        df[f] += 1
        tf[f] += counts[p]
    return df, tf


@kernel
def to_columns(indptr, entries, counts, col_tok, col_gram, columns, values, out):
    """CSR rows of stream entries -> rows of matrix columns, in place of a gather.

    Entry e goes to column ``col_tok[e]`` (a token) or ``col_gram[-1 - e]``
    (an n-gram); entries whose column is negative are dropped. Fills ``columns``
    and ``values`` (caller's dtypes, length >= len(entries)) and ``out``, int64 of
    the shape of ``indptr``, with the new indptr; returns the number of entries kept.
    """
    n_rows = indptr.shape[0] - 1
    out[0] = 0
    k = 0
    for d in range(n_rows):
        for p in range(indptr[d], indptr[d + 1]):
            e = entries[p]
            c = col_tok[e] if e >= 0 else col_gram[gram_entry(e)]
            if c >= 0:
                columns[k] = c
                values[k] = counts[p]
                k += 1
        out[d + 1] = k
    return k


@kernel
def renumber(stream, tok_map, gram_map, out):
    """``out[p]`` = stream entry ``stream[p]`` with its id mapped: token t to
    ``tok_map[t]``, n-gram g to ``gram_map[g]`` (same length; out may be stream)."""
    for p in range(stream.shape[0]):
        e = stream[p]
        if e >= 0:
            out[p] = tok_map[e]
        else:
            out[p] = gram_entry(gram_map[gram_entry(e)])
