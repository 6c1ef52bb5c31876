"""Python side of the compiled tokenizer: documents -> one UTF-8 buffer -> feature
stream, and the interned tables of tokens and features that give names to ids.

numba is imported here, lazily: ``pip install 'nbayes[text]'``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nbayes.text import _unicode
from nbayes.text._encode import encode_documents, read_documents  # noqa: F401 (API)

_SCHEMES = ("http://", "https://", "ftp://", "www.")


def _kernels():
    try:
        from nbayes.text import _kernels
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "nbayes.text needs numba for its compiled tokenizer: pip install 'nbayes[text]'"
        ) from error
    return _kernels


def _schemes() -> NDArray[np.int64]:
    width = max(map(len, _SCHEMES))
    table = np.full((len(_SCHEMES), width + 1), -1, np.int64)
    for row, scheme in enumerate(_SCHEMES):
        table[row, : len(scheme)] = [ord(ch) for ch in scheme]
    return table


@dataclass(frozen=True)
class Rules:
    """How text becomes features (see :class:`nbayes.text.Tokenizer`)."""

    lowercase: bool = True
    rich: bool = False
    min_len: int = 2
    max_len: int | None = None
    numbers: bool = True
    ngram_range: tuple[int, int] = (1, 1)

    def opts(self, insert: bool) -> NDArray[np.int64]:
        max_len = np.iinfo(np.int64).max if self.max_len is None else self.max_len
        return np.array(
            [
                self.lowercase,
                self.rich,
                self.min_len,
                max_len,
                self.numbers,
                self.ngram_range[0],
                self.ngram_range[1],
                insert,
            ],
            dtype=np.int64,
        )


def _utf8_strings(strings: Iterable[str]) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    encoded = [s.encode("utf-8") for s in strings]
    offsets = np.zeros(len(encoded) + 1, np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


def _pow2(n: int) -> int:
    return 1 << max(10, int(n - 1).bit_length())


class Vocabulary:
    """Interned tokens and n-grams; ids are dense, in order of first appearance.

    Holds the arrays described in :mod:`nbayes.text._kernels` and grows them when
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
        kernels = _kernels()
        if 2 * (n_tok + tokens + 1) > len(self.t_table) // 2:
            cap = _pow2(2 * (n_tok + tokens + 1))
            self.t_table = kernels.rehash(self.t_table, cap)
        if 2 * (n_gram + grams + 1) > len(self.g_table) // 2:
            cap = _pow2(2 * (n_gram + grams + 1))
            self.g_table = kernels.rehash(self.g_table, cap)

    def add_stop_words(self, words: Iterable[str]) -> None:
        """Mark the tokens ``words`` (compared after case folding) as stop words."""
        buf, offsets = _utf8_strings(words)
        self.reserve(len(offsets), len(buf), 0, 0)
        ids = _kernels().intern_tokens(buf, offsets, *self._tokens(), self.counts)
        self.t_stop[ids] = 1

    def add_features(self, terms: Sequence[str]) -> NDArray[np.int64]:
        """Feature indices of ``terms`` (n-grams written with single spaces), inserted.

        Feature indices refer to the tables as they are after this call.
        """
        kernels = _kernels()
        split = [term.split(" ") for term in terms]
        buf, offsets = _utf8_strings(t for parts in split for t in parts)
        self.reserve(len(offsets), len(buf), len(split), len(offsets))
        tokens = kernels.intern_tokens(buf, offsets, *self._tokens(), self.counts)
        bounds = np.zeros(len(split) + 1, np.int64)
        np.cumsum([len(parts) for parts in split], out=bounds[1:])
        sizes = np.diff(bounds)
        grams = sizes > 1
        gram_bounds = np.zeros(int(grams.sum()) + 1, np.int64)
        np.cumsum(sizes[grams], out=gram_bounds[1:])
        gram_tokens = np.concatenate(
            [tokens[bounds[i] : bounds[i + 1]] for i in np.flatnonzero(grams)] or [tokens[:0]]
        )
        gram_ids = kernels.intern_grams(gram_tokens, gram_bounds, *self._grams(), self.counts)
        index = tokens[bounds[:-1]].copy()
        index[grams] = self.n_tokens + gram_ids
        return index

    def analyze(
        self,
        buf: NDArray[np.uint8],
        offsets: NDArray[np.int64],
        is_ascii: NDArray[np.bool_],
        insert: bool,
        tally: bool = False,
    ):
        """The feature stream and its per-document offsets, shape (n_docs + 1,);
        with ``tally``, (indptr, entries, counts): CSR rows of distinct entries.

        Entries are token ids, or ``GRAM_BASE + n-gram id`` (see
        :meth:`feature_index`). Large inputs run in two threads (the compiled pass
        releases the GIL), each over half of the documents; see
        :mod:`nbayes.text._parallel`. Either way the result is the same.
        """
        from nbayes.text import _parallel

        if _parallel.worth_splitting(buf, offsets):
            return _parallel.analyze(self, buf, offsets, is_ascii, insert, tally)
        return self.analyze_serial(buf, offsets, is_ascii, insert, tally)

    def analyze_serial(self, buf, offsets, is_ascii, insert: bool, tally: bool = False):
        """:meth:`analyze` in this thread (documents ``offsets`` index into ``buf``)."""
        kernels = _kernels()
        n_docs = len(offsets) - 1
        lo, hi = self.rules.ngram_range
        orders = hi - lo + 1
        gram_orders = max(0, hi - max(lo, 2) + 1)  # orders of n >= 2
        gram_tokens = sum(range(max(lo, 2), hi + 1))
        opts = self.rules.opts(insert)
        capacity = max(1024, int(offsets[-1] - offsets[0]) // 4 * orders)
        stream = np.empty(capacity, np.int64)
        data = np.empty(capacity if tally else 0, np.int64)
        doc_off = np.zeros(n_docs + 1, np.int64)
        if insert:
            # a first guess at the vocabulary (20 Newsgroups: 36 MB, 174k tokens), so
            # the pass seldom stops to grow and rehash the tables
            guess = int(offsets[-1] - offsets[0]) // 256
            self.reserve(guess, 8 * guess, guess * gram_orders, guess * gram_tokens)
        self.t_where[:] = -1
        self.g_where[:] = -1
        next_doc, n_stream = 0, 0
        while True:
            next_doc, n_stream = kernels.analyze(
                buf, offsets, is_ascii, next_doc, _unicode.char_classes(),
                _unicode.lower_map(), opts, _schemes(), *self._tokens(), *self._grams(),
                self.counts, stream, n_stream, doc_off, tally, data, self.t_where,
                self.g_where,
            )  # fmt: skip
            if next_doc == n_docs:
                break
            size = int(offsets[next_doc + 1] - offsets[next_doc]) + 1
            if insert:
                self.reserve(
                    max(size, self.n_tokens),
                    max(2 * size + 4, len(self.t_bytes)),
                    max(size * gram_orders, self.n_grams),
                    max(size * gram_tokens, len(self.g_toks)),
                )
            if n_stream + size * orders > len(stream):
                stream = np.resize(stream, max(2 * len(stream), n_stream + size * orders))
                if tally:
                    data = np.resize(data, len(stream))
        if tally:
            return doc_off, stream[:n_stream], data[:n_stream]
        return stream[:n_stream], doc_off

    def _gram_base(self) -> int:
        return int(_kernels().GRAM_BASE)

    def feature_index(self, stream: NDArray[np.int64]) -> NDArray[np.int64]:
        """Stream entries as feature indices (tokens, then n-grams)."""
        base = self._gram_base()
        return np.where(stream >= base, stream - base + self.n_tokens, stream)

    def name_bytes(self) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
        """UTF-8 names of all features (feature-index order), each ending in a
        newline, and their offsets, shape (n_features + 1,)."""
        n_tok = self.n_tokens
        token_part = self.t_bytes[: self.t_off[n_tok]]
        grams = _kernels().gram_bytes(
            self.g_toks, self.g_off, self.n_grams, self.t_bytes, self.t_off
        )
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
        return out[:-1].tobytes().decode("utf-8").split("\n")

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
        if weight is None:
            weight = np.ones(len(column), np.float64)
        n_tok = self.n_tokens
        return _kernels().count(
            stream, doc_off, column[:n_tok], column[n_tok:], weight[:n_tok], weight[n_tok:],
            n_columns,
        )  # fmt: skip

    def frequencies(
        self, entries: NDArray[np.int64], counts: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Document and corpus frequency per feature index, shapes (n_features,),
        of CSR rows of distinct stream entries with their counts."""
        return _kernels().frequencies(entries, counts, self.n_tokens, self.n_features)

    def to_columns(self, indptr, entries, counts, column: NDArray[np.int64], dtype):
        """CSR (indptr, indices, data) with each entry at ``column[feature index]``
        (dropped where negative); indices int32 where they fit, data of ``dtype``.

        Written over ``entries`` and ``counts`` (consumed): entry p lands at k <= p,
        after it is read, so a 36 MB corpus costs no fresh 36 MB of zeroed pages.
        """
        n_tok = self.n_tokens
        entries = np.ascontiguousarray(entries, np.int64)
        if max(len(column), len(entries)) < 2**31:
            columns = entries.view(np.int32)
        else:
            columns = entries
        counts = np.ascontiguousarray(counts)
        values = counts if counts.dtype == np.dtype(dtype) else np.empty(len(counts), dtype)
        indptr, kept = _kernels().to_columns(
            indptr, entries, counts, column[:n_tok], column[n_tok:], columns, values
        )
        return indptr, columns[:kept], values[:kept]

    def murmur3(self) -> NDArray[np.int64]:
        """scikit-learn's signed murmurhash3_32 (seed 0) of every feature name."""
        out, offsets = self.name_bytes()
        return _kernels().murmur3_32(out, offsets[:-1], offsets[1:] - 1, 0)

    def sorted_order(self) -> NDArray[np.int64]:
        """Feature indices in code-point order of their names (as Python sorts)."""
        out, offsets = self.name_bytes()
        starts, ends = offsets[:-1], offsets[1:] - 1
        first, second = _kernels().prefix_keys(out, starts, ends)
        order = np.lexsort((second, first))
        # names that share a 16-byte prefix: sort those runs in Python
        same = (first[order][1:] == first[order][:-1]) & (second[order][1:] == second[order][:-1])
        if same.any():
            data = out.tobytes()
            edges = np.flatnonzero(np.diff(np.concatenate([[0], same.astype(np.int8), [0]])))
            for a, b in zip(edges[::2], edges[1::2], strict=True):
                run = order[a : b + 1]
                order[a : b + 1] = sorted(run, key=lambda f: data[starts[f] : ends[f]])
        return order
