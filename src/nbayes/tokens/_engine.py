"""Python side of the compiled tokenizer: the interned tables of tokens and features
that give names to ids (:class:`Vocabulary`), and how text becomes features
(:class:`Rules`, from :mod:`nbayes.tokens._rules`). A pass over documents
(:class:`nbayes.tokens._pass.Pass`) turns them into a feature stream, in one thread or
two (:mod:`nbayes.tokens._parallel`); names sort by :mod:`nbayes.tokens._sort`. None of those
import this module back.

Those modules (numba) are imported on first use, not with this one: importing
:mod:`nbayes.text` or :mod:`nbayes.tokens` costs no compiler, and a small job that needs
none (:mod:`nbayes.tokens._small`) never loads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from nbayes.tokens._encode import Text, encode_documents, read_documents  # noqa: F401 (API)
from nbayes.tokens._rules import Rules


def _utf8_strings(strings: Iterable[str]) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """The UTF-8 of ``strings`` joined, writable (as the kernels' own scratch keys, so
    they compile once), and their offsets. Lone surrogates (which a Python string may
    hold, and a term of scikit-learn's may be) are written as their three bytes, as the
    documents are (:func:`nbayes.tokens._encode._utf8`), and read back by :meth:`names`."""
    encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
    offsets = np.zeros(len(encoded) + 1, np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return np.frombuffer(bytearray(b"".join(encoded)), dtype=np.uint8), offsets


# A stream is int32 below this bound on its ids and counts (tests lower it to check
# the int64 path).
INT32_BOUND = 2**31


def _pow2(n: int) -> int:
    return 1 << max(10, int(n - 1).bit_length())


class Vocabulary:
    """Interned tokens and n-grams; ids are dense, in order of first appearance (in
    a pass over two threads, see :mod:`nbayes.tokens._parallel`, up to the order in
    which the second thread met its new ones).

    Holds the arrays described in :mod:`nbayes.tokens._kernels` and grows them when
    a kernel stops for room. A *feature index* numbers tokens first, then n-grams:
    token t is t, n-gram g is ``n_tokens + g``.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.counts = np.zeros(2, np.int64)
        self.t_table = np.full(2 * 1024, -1, np.int64)
        self.t_bytes = np.empty(4096, np.uint8)
        self.t_off = np.zeros(257, np.int64)
        self.t_stop = np.zeros(256, np.uint8)
        self.g_table = np.full(2 * 1024, -1, np.int64)
        self.g_toks = np.empty(1024, np.int64)
        self.g_off = np.zeros(257, np.int64)
        self.t_where = np.full(256, -1, np.int64)
        self.g_where = np.full(256, -1, np.int64)
        self.sort_job = None  # a sorted_order() under way in another thread
        self.counted = None  # (n_features, df, tf): frequencies() the pass counted

    @property
    def n_tokens(self) -> int:
        return int(self.counts[0])

    @property
    def n_grams(self) -> int:
        return int(self.counts[1])

    @property
    def n_features(self) -> int:
        return self.n_tokens + self.n_grams

    def _tokens(self):
        return self.t_table, self.t_bytes, self.t_off, self.t_stop

    def _grams(self):
        return self.g_table, self.g_toks, self.g_off

    def reserve(self, tokens: int, token_bytes: int, grams: int, gram_tokens: int) -> None:
        """Grow the tables to take this many more tokens, bytes, n-grams, ids."""
        from nbayes.tokens import _kernels

        n_tok, n_gram = self.n_tokens, self.n_grams

        def grown(array, need, fill=None):
            # np.empty: pages past the copied part are not touched until written
            if need <= len(array):
                return array
            new = np.empty(max(need, 2 * len(array)), array.dtype)
            new[: len(array)] = array
            if fill is not None:
                new[len(array) :] = fill
            return new

        self.t_stop = grown(self.t_stop, n_tok + tokens + 1, 0)
        self.t_off = grown(self.t_off, n_tok + tokens + 2)
        self.t_bytes = grown(self.t_bytes, int(self.t_off[n_tok]) + token_bytes)
        self.g_off = grown(self.g_off, n_gram + grams + 2)
        self.g_toks = grown(self.g_toks, int(self.g_off[n_gram]) + gram_tokens)
        self.t_where = grown(self.t_where, n_tok + tokens + 1, -1)
        self.g_where = grown(self.g_where, n_gram + grams + 1, -1)
        if 2 * (n_tok + tokens + 1) > len(self.t_table) // 2:
            cap = _pow2(2 * (n_tok + tokens + 1))
            self.t_table = _kernels.rehash(self.t_table, cap)
        if 2 * (n_gram + grams + 1) > len(self.g_table) // 2:
            cap = _pow2(2 * (n_gram + grams + 1))
            self.g_table = _kernels.rehash(self.g_table, cap)

    def compact(self) -> None:
        """Give back what only inserting needs: the tables' spare room, the hash
        tables' headroom (down to at most half full) and the row-position arrays
        (made again by the next pass). A later insert grows them again."""
        from nbayes.tokens import _kernels

        n_tok, n_gram = self.n_tokens, self.n_grams
        self.t_bytes = self.t_bytes[: self.t_off[n_tok]].copy()
        self.t_off = self.t_off[: n_tok + 1].copy()
        self.t_stop = self.t_stop[:n_tok].copy()
        self.g_toks = self.g_toks[: self.g_off[n_gram]].copy()
        self.g_off = self.g_off[: n_gram + 1].copy()
        self.t_where = self.t_where[:0].copy()
        self.g_where = self.g_where[:0].copy()
        if len(self.t_table) // 2 > _pow2(2 * (n_tok + 1)):
            self.t_table = _kernels.rehash(self.t_table, _pow2(2 * (n_tok + 1)))
        if len(self.g_table) // 2 > _pow2(2 * (n_gram + 1)):
            self.g_table = _kernels.rehash(self.g_table, _pow2(2 * (n_gram + 1)))

    def add_stop_words(self, words: Iterable[str]) -> None:
        """Mark the tokens ``words`` (compared after case folding) as stop words."""
        from nbayes.tokens import _kernels

        words = list(words)
        if not words:
            return
        buf, offsets = _utf8_strings(words)
        self.reserve(len(offsets), len(buf), 0, 0)
        ids = _kernels.intern_tokens(buf, offsets, *self._tokens(), self.counts)
        self.t_stop[ids] = 1

    def add_features(self, terms: Sequence[str]) -> NDArray[np.int64]:
        """Feature indices of ``terms`` (n-grams written with single spaces), inserted.

        Feature indices refer to the tables as they are after this call.
        """
        from nbayes.tokens import _kernels

        split = [term.split(" ") for term in terms]
        buf, offsets = _utf8_strings(t for parts in split for t in parts)
        self.reserve(len(offsets), len(buf), len(split), len(offsets))
        tokens = _kernels.intern_tokens(buf, offsets, *self._tokens(), self.counts)
        bounds = np.zeros(len(split) + 1, np.int64)
        np.cumsum([len(parts) for parts in split], out=bounds[1:])
        sizes = np.diff(bounds)
        grams = sizes > 1
        gram_bounds = np.zeros(int(grams.sum()) + 1, np.int64)
        np.cumsum(sizes[grams], out=gram_bounds[1:])
        gram_tokens = np.concatenate(
            [tokens[bounds[i] : bounds[i + 1]] for i in np.flatnonzero(grams)] or [tokens[:0]]
        )
        gram_ids = _kernels.intern_grams(gram_tokens, gram_bounds, *self._grams(), self.counts)
        index = tokens[bounds[:-1]].copy()
        index[grams] = self.n_tokens + gram_ids
        return index

    def analyze(
        self, text: Text, insert: bool, tally: bool = False, sort: bool = False,
        count: bool = False,
    ):  # fmt: skip
        """The feature stream of ``text`` and its per-document offsets, shape
        (n_docs + 1,); with ``tally``, (indptr, entries, counts): CSR rows of distinct
        entries.

        Entries are token ids, or ``-1 - n-gram id`` (see :meth:`feature_index`),
        int32 where they fit (:meth:`stream_dtype`), else int64. Large inputs run in
        two threads (the compiled pass releases the GIL), each over half of the
        documents; see :mod:`nbayes.tokens._parallel`. Either way the result is the same.
        With ``sort``, the two threads' pass starts :meth:`sorted_order` in its second
        thread as soon as the vocabulary is complete; with ``count`` (and ``tally``) it
        counts :meth:`frequencies` on the way.
        """
        from nbayes.tokens import _parallel

        dtype = self.stream_dtype(text.n_bytes())
        if _parallel.worth_splitting(text):
            return _parallel.analyze(self, text, insert, tally, dtype, sort, count)
        return self.analyze_serial(text, 0, text.n_docs, insert, tally, dtype)

    def analyze_serial(
        self, text: Text, start: int, stop: int, insert: bool, tally: bool = False,
        dtype=np.int64,
    ):  # fmt: skip
        """:meth:`analyze` of documents start..stop - 1 in this thread, the stream (and
        counts) of ``dtype``; the documents are joined a chunk at a time."""
        from nbayes.tokens._pass import Pass

        run = Pass(self, text.n_bytes(start, stop), insert, tally, dtype)
        run.add(text, start, stop)
        run.finish()
        doc_off = run.rows[0]
        return (doc_off, run.stream, run.data) if tally else (run.stream, doc_off)

    def stream_dtype(self, n_bytes: int) -> np.dtype:
        """int32 for the stream of ``n_bytes`` of text where every id and count it can
        hold fits (ids below the features known plus one per byte per n-gram order),
        else int64."""
        lo, hi = self.rules.ngram_range
        bound = self.n_features + (n_bytes + 1) * (hi - lo + 1)
        return np.dtype(np.int32 if bound < INT32_BOUND else np.int64)

    def feature_index(self, stream: NDArray[np.integer]) -> NDArray[np.int64]:
        """Stream entries as feature indices (tokens, then n-grams), int64."""
        stream = stream.astype(np.int64)
        return np.where(stream >= 0, stream, self.n_tokens - 1 - stream)

    def name_bytes(self) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
        """UTF-8 names of all features (feature-index order), each ending in a
        newline, and their offsets, shape (n_features + 1,)."""
        from nbayes.tokens import _kernels

        n_tok = self.n_tokens
        token_part = self.t_bytes[: self.t_off[n_tok]]
        grams = _kernels.gram_bytes(self.g_toks, self.g_off, self.n_grams, self.t_bytes, self.t_off)
        # tokens: insert a newline after each one
        out = np.empty(len(token_part) + n_tok + len(grams), np.uint8)
        token_ends = self.t_off[1 : n_tok + 1] + np.arange(n_tok)
        mask = np.ones(len(token_part) + n_tok, bool)
        mask[token_ends] = False
        out[: len(mask)][mask] = token_part
        out[token_ends] = 0x0A
        out[len(mask) :] = grams
        ends = np.flatnonzero(out == 0x0A)
        offsets = np.zeros(len(ends) + 1, np.int64)
        offsets[1:] = ends + 1
        return out, offsets

    def names(self) -> list[str]:
        """The name of each feature index: its tokens joined by single spaces."""
        out, _ = self.name_bytes()
        if out.size == 0:
            return []
        return out[:-1].tobytes().decode("utf-8", "surrogatepass").split("\n")

    def count(
        self,
        stream: NDArray[np.int64],
        doc_off: NDArray[np.int64],
        column: NDArray[np.int64],
        n_columns: int,
        weight: NDArray[np.float64] | None = None,
    ):
        """CSR arrays (indptr, indices, data) of the stream counted into
        ``column[feature index]`` (dropped where negative), summing ``weight``."""
        from nbayes.tokens import _kernels

        if weight is None:
            weight = np.ones(len(column), np.float64)
        n_tok = self.n_tokens
        return _kernels.count(
            stream, doc_off, column[:n_tok], column[n_tok:], weight[:n_tok], weight[n_tok:],
            n_columns,
        )  # fmt: skip

    def frequencies(
        self, entries: NDArray[np.int64], counts: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Document and corpus frequency per feature index, shapes (n_features,),
        of CSR rows of distinct stream entries with their counts (those the
        two-thread pass of a fit counted, if this is its stream)."""
        from nbayes.tokens import _kernels

        counted, self.counted = self.counted, None
        if counted is not None and counted[0] == self.n_features:
            return counted[1], counted[2]
        return _kernels.frequencies(entries, counts, self.n_tokens, self.n_features)

    def to_columns(self, indptr, entries, counts, column: NDArray[np.int64], dtype):
        """CSR (indptr, indices, data) with each entry at ``column[feature index]``
        (dropped where negative); indices int32 where they fit, data of ``dtype``.

        The indices are written over ``entries`` (consumed): entry p lands at k <= p,
        after it is read, so the matrix's indices cost no fresh memory. Large inputs
        run in two threads (:func:`nbayes.tokens._parallel.to_columns`).
        """
        from nbayes.tokens import _parallel

        n_tok = self.n_tokens
        if max(len(column), len(entries)) >= 2**31:
            entries = columns = np.ascontiguousarray(entries, np.int64)
        elif entries.dtype == np.int32:
            columns = entries
        else:
            entries = np.ascontiguousarray(entries, np.int64)
            columns = entries.view(np.int32)
        counts = np.ascontiguousarray(counts)
        values = counts if counts.dtype == np.dtype(dtype) else np.empty(len(counts), dtype)
        indptr, kept = _parallel.to_columns(
            indptr, entries, counts, column[:n_tok], column[n_tok:], columns, values
        )
        return indptr, columns[:kept], values[:kept]

    def murmur3(self) -> NDArray[np.int64]:
        """scikit-learn's signed murmurhash3_32 (seed 0) of every feature name."""
        from nbayes.tokens import _kernels

        out, offsets = self.name_bytes()
        return _kernels.murmur3_32(out, offsets[:-1], offsets[1:] - 1, 0)

    def sorted_order(self) -> NDArray[np.intp]:
        """Feature indices in code-point order of their names (as Python sorts); the
        sort the two-thread pass started (``analyze(..., sort=True)``) if there is one."""
        job, self.sort_job = self.sort_job, None
        if job is not None and job.n_features == self.n_features:
            return job.result()
        return self.sort_names()

    def sort_names(self) -> NDArray[np.intp]:
        """:meth:`sorted_order`, computed here and now."""
        from nbayes.tokens import _sort

        if self.n_grams == 0:  # the token table holds every name as it is
            n = self.n_tokens
            return _sort.name_order(self.t_bytes, self.t_off[:n], self.t_off[1 : n + 1])
        out, offsets = self.name_bytes()
        return _sort.name_order(out, offsets[:-1], offsets[1:] - 1)
