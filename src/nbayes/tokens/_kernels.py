"""The compiled hot loop of :mod:`nbayes.tokens` (numba).

One pass over UTF-8 buffers of documents (a chunk of them at a time) turns text
into a *feature stream*: for each document, the ids of its features (tokens and
word n-grams) in the order scikit-learn's analyzer yields them. Tokens and n-grams are interned in
two open-addressing hash tables that compare the full key, so ids are exact (no
hashing trick). A second pass counts the stream into CSR.

State is plain arrays owned by :class:`nbayes.tokens._engine.Vocabulary`; the kernels
never reallocate them (that would cost reference counting in the hot loop): they
stop before a document that might not fit, and the caller grows the arrays.

token table   ``t_table`` (2 cap,) int64 (hash, meta) slots; ``t_bytes`` the UTF-8
              of all tokens, ``t_off`` (m + 1,) offsets; ``t_stop`` (m,) 1 for stop
              words.
n-gram table  ``g_table``; ``g_toks`` the token ids of all n-grams (n >= 2),
              ``g_off`` (k + 1,) offsets.
counts        (2,) int64: the number of tokens and of n-grams.
stream        entries t >= 0 (token t) or -1 - g (n-gram g); int32 where every id
              fits, else int64 (the caller picks).

The parts live in ``_kernels_unicode`` (UTF-8, rich tokens), ``_kernels_table``
(hashing, interning), ``_kernels_ascii`` (the 64-bytes-at-a-time scan of ASCII
text) and ``_kernels_output`` (CSR counting, names, MurmurHash3); this module
holds the pass and is the one the engine imports.

Every kernel here is compiled on first use and cached on disk
(:func:`nbayes._kernels.cache_dir`); the helpers in the ``_kernels_*`` modules are
compiled into the kernels that call them (:func:`nbayes._kernels.helper`). A cached
kernel is compiled afresh when any of those modules changes
(:func:`nbayes._kernels.source_fingerprint`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from nbayes._kernels import helper, kernel
from nbayes.tokens._encode import LATIN1
from nbayes.tokens._kernels_ascii import find_tokens, look_up_tokens, unicode_span
from nbayes.tokens._kernels_output import (
    count,
    frequencies,
    gram_bytes,
    murmur3_32,
    prefix_keys,
    renumber,
    sort_ties,
    to_columns,
)
from nbayes.tokens._kernels_table import (
    add_gram,
    add_token,
    find_gram,
    find_token,
    fold_append,
    fold_lookup,
    fold_slots,
    gram_entry,
    gram_hash,
    intern_grams,
    intern_tokens,
    rehash,
    token_hash,
)
from nbayes.tokens._kernels_unicode import (
    _DIGIT,
    _WORD,
    KIND_NUMBER,
    KIND_WORD,
    decode,
    decode_latin1,
    encode,
    rich_token,
)

__all__ = [
    "analyze_for",
    "count",
    "fold_append",
    "fold_lookup",
    "fold_slots",
    "frequencies",
    "gram_bytes",
    "intern_grams",
    "intern_tokens",
    "max_tokens",
    "murmur3_32",
    "prefix_keys",
    "rehash",
    "renumber",
    "scratch",
    "sort_ties",
    "to_columns",
]

# ASCII bytes between two non-ASCII ones below which a document is decoded straight
# through, not switched to the ASCII scan and back
MIN_GAP = 16

# opts layout (int64 array)
LOWERCASE, MIN_LEN, MAX_LEN, NUMBERS, MIN_N, MAX_N, INSERT = range(7)


@kernel
def max_tokens(size, rich, min_len):
    """At most how many tokens a document of ``size`` bytes yields. Word tokens are
    maximal runs of >= max(min_len, 1) characters (>= 1 byte each), a non-word byte
    between two: k tokens take k * min_len + k - 1 <= size bytes. Rich tokens: one
    byte each at least."""
    if rich:
        return size
    return size // ((min_len if min_len > 1 else 1) + 1) + 1


@helper(inline=True)
def _has_room(
    size, new, gram_orders, gram_tokens, t_table, t_bytes, t_off, g_table, g_toks, g_off,
    counts, t_where, g_where,
):  # fmt: skip
    """Room for a document of ``size`` bytes and at most ``new`` tokens."""
    n_tok, n_gram = counts[0], counts[1]
    return not (
        2 * (n_tok + new + 1) > (t_table.shape[0] >> 1)
        or n_tok + new + 2 > t_off.shape[0]
        or t_off[n_tok] + 2 * size + 4 > t_bytes.shape[0]
        or 2 * (n_gram + (new + 1) * gram_orders) > (g_table.shape[0] >> 1)
        or n_gram + (new + 1) * gram_orders + 1 > g_off.shape[0]
        or g_off[n_gram] + (new + 1) * gram_tokens > g_toks.shape[0]
        or n_tok + new + 1 > t_where.shape[0]
        or n_gram + (new + 1) * gram_orders > g_where.shape[0]
    )


def _scan_unicode(rich: bool):
    """The decoding scan, with the rich-token rules compiled in (``rich``) or out:
    ``rich`` is a constant of the compiled code (a closure variable), so numba drops
    the branch not taken before typing it, and the rule set not used is never
    compiled."""

    def scan_unicode(
        buf, start, end, latin1, cps, cls, lower, lowercase, schemes, min_len, max_len,
        numbers, insert, key, toks, n_toks, t_table, t_bytes, t_off, t_stop, counts,
    ):  # fmt: skip
        """Token ids of the UTF-8 (or, with ``latin1``, latin-1) text buf[start:end]
        (whole tokens: ``start`` and ``end`` are token boundaries), decoded to code
        points, into toks from ``toks[n_toks]`` on; returns the new count. The rules are
        :func:`analyze_for`'s; ``cps`` and ``key`` are scratch buffers (code points,
        UTF-8 of one token)."""
        if latin1:
            n = decode_latin1(buf, start, end, cps, lower, lowercase)
        else:
            n = decode(buf, start, end, cps, lower, lowercase)
        i = np.int64(0)
        while i < n:
            if not cls[cps[i]] & _WORD:
                i += 1
                continue
            kind = KIND_WORD
            if rich:
                e, kind, _ = rich_token(cps, i, n, cls, schemes)
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
            length = encode(cps, s, e, key)
            h = token_hash(key, length)
            tid, slot = find_token(t_table, t_bytes, t_off, key, length, h)
            if tid < 0 and insert:
                tid = add_token(t_table, t_bytes, t_off, t_stop, counts, key, length, h, slot)
            if tid >= 0 and t_stop[tid]:
                continue
            toks[n_toks] = tid
            n_toks += 1
        return n_toks

    return helper(scan_unicode)


scan_words, scan_rich = _scan_unicode(False), _scan_unicode(True)


def scratch(longest: int, rich: bool, min_len: int):
    """The scratch arrays of :func:`analyze_for`'s pass for documents of at most
    ``longest`` bytes: code points, token ids, (hash, start, length) of a run of ASCII
    tokens, and the UTF-8 of one token (a lower-cased code point can take more bytes
    than it did in the text, a latin-1 byte two). :func:`max_tokens` runs as Python
    here: no kernel to load for it."""
    longest = max(int(longest), 1)
    return (
        np.empty(longest, np.int32),
        np.empty(longest, np.int64),
        np.empty((3, max_tokens.py_func(longest, rich, min_len)), np.int64),
        np.empty(4 * longest + 16, np.uint8),
    )


@cache
def analyze_for(rich: bool, grams: bool):
    """The compiled pass for rich tokens or plain words (:class:`nbayes.text.Tokenizer`
    ``kind``), forming word n-grams (n >= 2) or not: ``rich`` and ``grams`` are
    constants of the compiled code, so each compiles only the code it runs (a first
    fit of a default word vectorizer compiles neither the URL, e-mail and number
    rules nor the n-gram table). Compiled on first use, cached on disk, as every
    kernel."""

    def analyze(
        buf, offsets, form, first_doc, cls, lower, opts, schemes,
        t_table, t_bytes, t_off, t_stop, g_table, g_toks, g_off, counts,
        stream, n_stream, doc_off, tally, data, t_where, g_where, cps, toks, found, key,
    ):  # fmt: skip
        """Append the feature stream of documents first_doc.. to stream.

        ``form[d]`` says how document d's bytes read (``nbayes.tokens._encode``'s UTF8,
        ASCII or LATIN1): ASCII ones are scanned 64 bytes at a time; in UTF-8 and latin-1
        ones, so are the ASCII runs, and the spans around non-ASCII bytes are decoded
        (:func:`_scan_unicode`).

        A stream entry is a token id (a unigram) or ``-1 - n-gram id``, in the
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

        ``cps``, ``toks``, ``found`` and ``key`` are scratch arrays for the longest of
        the documents (:func:`scratch`): the caller's, so that no allocation (each
        kind a function of numba's to compile) is compiled in.
        """
        lowercase = opts[LOWERCASE] != 0
        min_len, max_len = opts[MIN_LEN], opts[MAX_LEN]
        numbers = opts[NUMBERS] != 0
        min_n, max_n = opts[MIN_N], opts[MAX_N]
        insert = opts[INSERT] != 0
        orders = max_n - min_n + 1
        # orders of n >= 2 and their tokens (no min/max: each compiles a function)
        first_gram = min_n if min_n > 2 else np.int64(2)
        gram_orders = max_n - first_gram + 1 if max_n >= first_gram else np.int64(0)
        gram_tokens = np.int64(0)  # not 0: a literal would compile _has_room for it too
        for g in range(first_gram, max_n + 1):
            gram_tokens += g
        n_docs = offsets.shape[0] - 1
        for d in range(first_doc, n_docs):
            size = offsets[d + 1] - offsets[d]
            new = max_tokens(size, np.bool_(rich), min_len)
            if insert and not _has_room(
                size, new, gram_orders, gram_tokens, t_table, t_bytes, t_off, g_table, g_toks,
                g_off, counts, t_where, g_where,
            ):  # fmt: skip
                return d, n_stream
            if n_stream + (new + 1) * orders > stream.shape[0]:
                return d, n_stream
            if tally and n_stream + (new + 1) * orders > data.shape[0]:
                return d, n_stream
            latin1 = form[d] == LATIN1
            if rich:
                n_toks = scan_rich(
                    buf, offsets[d], offsets[d + 1], latin1, cps, cls, lower, lowercase, schemes,
                    min_len, max_len, numbers, insert, key, toks, np.int64(0), t_table, t_bytes,
                    t_off, t_stop, counts,
                )  # fmt: skip
            else:
                # ASCII runs 64 bytes at a time up to a non-ASCII byte, then the span
                # around it decoded: [pos, limit) to scan, then [a, b) to decode
                n_toks = np.int64(0)
                pos, stop = offsets[d], offsets[d + 1]
                limit, a, b = stop, stop, stop
                while True:
                    n_found, at = find_tokens(
                        buf, pos, limit, lowercase, min_len, max_len, numbers, found, t_table
                    )
                    n_toks = look_up_tokens(
                        buf, found, n_found, lowercase, insert, toks, n_toks, t_table, t_bytes,
                        t_off, t_stop, counts, t_where,
                    )  # fmt: skip
                    if at < limit:  # stopped before a non-ASCII byte
                        a, b = unicode_span(buf, at, stop, MIN_GAP)
                        pos, limit = at, a
                        continue
                    if limit == stop:
                        break
                    n_toks = scan_words(
                        buf, a, b, latin1, cps, cls, lower, lowercase, schemes, min_len, max_len,
                        numbers, insert, key, toks, n_toks, t_table, t_bytes, t_off, t_stop,
                        counts,
                    )  # fmt: skip
                    pos, limit = b, stop
            row_start = doc_off[d]
            for g in range(min_n, max_n + 1):
                if g == 1:
                    for p in range(n_toks):
                        tid = toks[p]
                        if tid < 0:
                            continue
                        if tally:  # without branches: the test is a coin flip
                            at = t_where[tid]
                            new = np.int64(at < row_start)
                            at += new * (n_stream - at)  # n_stream if new
                            data[at] = data[at] * (1 - new) + 1  # 1 if new, else one more
                            t_where[tid] = at
                            stream[n_stream] = tid  # kept only if new
                            n_stream += new
                            continue
                        stream[n_stream] = tid
                        n_stream += 1
                    continue
                if grams:  # a constant: n-grams are compiled only where formed
                    for p in range(n_toks - g + 1):
                        known = True
                        for q in range(p, p + g):
                            if toks[q] < 0:
                                known = False
                                break
                        if not known:
                            continue
                        h = gram_hash(toks, p, p + g)
                        gid, slot = find_gram(g_table, g_toks, g_off, toks, p, p + g, h)
                        if gid < 0 and insert:
                            gid = add_gram(g_table, g_toks, g_off, counts, toks, p, p + g, h, slot)
                        if gid < 0:
                            continue
                        # the unigram loop's tally, written out again: helpers in this loop
                        # made a 20 Newsgroups fit 1.4-1.8x slower (measured, not explained)
                        if tally:
                            at = g_where[gid]
                            if at >= row_start:
                                data[at] += 1
                                continue
                            g_where[gid] = n_stream
                            data[n_stream] = 1
                        stream[n_stream] = gram_entry(gid)
                        n_stream += 1
            doc_off[d + 1] = n_stream
        return n_docs, n_stream

    return kernel(analyze)
