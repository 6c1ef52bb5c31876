"""One thread's compiled pass over documents: the feature stream (and, with a
tally, the counts) that runs of documents append to, grown as the kernel asks
(:func:`nbayes.tokens._kernels.analyze_for` stops before a document that might not fit)."""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from nbayes.tokens import _kernels, _unicode
from nbayes.tokens._encode import Text
from nbayes.tokens._rules import Rules


class Tables(Protocol):
    """What a pass reads and grows of a vocabulary (:class:`nbayes.tokens._engine.Vocabulary`,
    which calls passes, so this module does not import it): its rules, the interned
    tables of tokens and n-grams with their counts ``counts = [n_tokens, n_grams]``,
    and the row positions ``t_where`` (n_tokens + 1,) and ``g_where`` (n_grams + 1,)
    that a pass fills."""

    rules: Rules
    counts: NDArray[np.int64]
    t_where: NDArray[np.int64]
    g_where: NDArray[np.int64]

    @property
    def n_tokens(self) -> int: ...
    @property
    def n_grams(self) -> int: ...
    def _tokens(self) -> tuple: ...
    def _grams(self) -> tuple: ...
    def reserve(self, tokens: int, token_bytes: int, grams: int, gram_tokens: int) -> None: ...

_SCHEMES = ("http://", "https://", "ftp://", "www.")

# Bytes of text per stream entry, a first guess at the stream's length.
STREAM_BYTES_TALLY = 16
STREAM_BYTES = 6


def _schemes() -> NDArray[np.int64]:
    width = max(map(len, _SCHEMES))
    table = np.full((len(_SCHEMES), width + 1), -1, np.int64)
    for row, scheme in enumerate(_SCHEMES):
        table[row, : len(scheme)] = [ord(ch) for ch in scheme]
    return table


def _resize(array: NDArray, size: int) -> None:
    """Resize an array that owns its data and has no views, in place (``realloc``:
    no copy where the block can grow or shrink where it is; new entries are zeros)."""
    array.resize(size, refcheck=False)


def _filled(array: NDArray[np.int64], size: int) -> NDArray[np.int64]:
    """``array`` (or a new one of ``size`` if shorter) filled with -1."""
    if len(array) < size:
        return np.full(size, -1, np.int64)
    array[:] = -1
    return array


class Pass:
    """One thread's compiled pass over runs of documents handed to it one at a time,
    in any order (:meth:`add`): a single stream (and counts, with ``tally``) of
    ``dtype`` that the runs append to, grown as needed.

    ``rows`` holds one array per run (documents start..stop - 1), in the order the
    runs were added: shape (stop - start + 1,), where each document's entries begin
    and end in the stream. The vocabulary's row-position arrays are filled once, here: stream
    positions only grow, so a position left by an earlier run is never taken for
    one in the current row.
    """

    def __init__(self, vocab: Tables, n_bytes: int, insert: bool, tally: bool, dtype):
        self.vocab, self.insert, self.tally = vocab, insert, tally
        rules = vocab.rules
        lo, hi = rules.ngram_range
        self.orders = hi - lo + 1
        self.gram_orders = max(0, hi - max(lo, 2) + 1)  # orders of n >= 2
        self.gram_tokens = sum(range(max(lo, 2), hi + 1))
        opts = rules.opts(insert)
        self.tables = _unicode.char_classes(), _unicode.lower_map(), opts, _schemes()
        # a first guess (distinct entries per document: ~1 per 12 bytes in 20 Newsgroups
        # and BBC news); the pass stops and the arrays grow in place where it is short
        per_entry = STREAM_BYTES_TALLY if tally else STREAM_BYTES
        capacity = max(1024, n_bytes // per_entry * self.orders)
        self.stream = np.empty(capacity, dtype)
        self.data = np.empty(capacity if tally else 0, dtype)
        self.n_stream = 0
        self.rows: list[NDArray[np.int64]] = []
        self.longest = -1  # the longest document the scratch arrays take
        self.scratch = ()
        if insert:
            # vocabularies grow about as the square root of the text (Heaps' law; 18 MB
            # halves of 20 Newsgroups: 91k, 130k tokens; 2.5 MB of BBC: 19k, 21k)
            guess = int(20 * n_bytes**0.5)
            vocab.reserve(guess, 8 * guess, guess * self.gram_orders, guess * self.gram_tokens)
        vocab.t_where = _filled(vocab.t_where, vocab.n_tokens + 1)
        vocab.g_where = _filled(vocab.g_where, vocab.n_grams + 1)

    def add(self, text: Text, start: int, stop: int) -> None:
        """Append the stream of documents start..stop - 1 (joined a chunk at a time)."""
        vocab, rules = self.vocab, self.vocab.rules
        analyze = _kernels.analyze_for(rules.rich, rules.ngram_range[1] >= 2)
        doc_off = np.empty(stop - start + 1, np.int64)
        doc_off[0] = self.n_stream
        for first, buf, offsets, form in text.chunks(start, stop):
            n_docs = len(offsets) - 1
            longest = int(np.diff(offsets).max())
            if longest > self.longest:
                self.longest = longest
                self.scratch = _kernels.scratch(longest, rules.rich, rules.min_len)
            rows = doc_off[first - start : first - start + n_docs + 1]
            next_doc, stopped = 0, (-1, -1)
            while True:
                next_doc, self.n_stream = analyze(
                    buf, offsets, form, next_doc, *self.tables, *vocab._tokens(),
                    *vocab._grams(), vocab.counts, self.stream, self.n_stream, rows,
                    self.tally, self.data, vocab.t_where, vocab.g_where, *self.scratch,
                )  # fmt: skip
                if next_doc == n_docs:
                    break
                if (next_doc, self.n_stream) == stopped:
                    raise RuntimeError("nbayes.text: the compiled pass found no room twice")
                stopped = next_doc, self.n_stream
                # room for the document the pass stopped at (as the pass counts it)
                size = int(offsets[next_doc + 1] - offsets[next_doc])
                new = _kernels.max_tokens.py_func(size, rules.rich, rules.min_len) + 1
                if self.insert:  # what is short at least doubles
                    vocab.reserve(new, 2 * size + 4, new * self.gram_orders, new * self.gram_tokens)
                need = self.n_stream + new * self.orders
                if need > len(self.stream):
                    capacity = max(len(self.stream) + len(self.stream) // 2, need)
                    _resize(self.stream, capacity)
                    if self.tally:
                        _resize(self.data, capacity)
        self.rows.append(doc_off)

    def finish(self) -> None:
        """Cut ``stream`` and ``data`` (empty without tally) to the entries written,
        and let go of the vocabulary (a thread's copy is freed once folded)."""
        self.vocab = None
        _resize(self.stream, self.n_stream)
        if self.tally:
            _resize(self.data, self.n_stream)
