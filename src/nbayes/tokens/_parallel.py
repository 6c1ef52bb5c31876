"""Two threads for the compiled pass: each analyzes runs of documents with its own
tables, this thread taking runs from the front and the other from the back until
they meet (:class:`Claims`), so a thread on a slower core simply takes fewer; then
the other thread's new tokens and n-grams are folded into this one's tables and
its stream renumbered and put back in document order.

This thread's ids are in order of first appearance over the documents it took (a
prefix of them); the other's new ones follow in the order it met them (its runs go
from the back). Where the threads meet depends on their speeds, so ids can differ
from run to run, but they never show: the renumbering is one-to-one, so the stream
(token and n-gram names, in document order), its CSR rows and their counts are
exactly what one serial pass gives, and so is every matrix, vocabulary and name
list built on them. With ``insert=False`` the tables are only read, and each
thread gets its own row-position arrays.
"""

from __future__ import annotations

import copy
import os
import threading

import numpy as np
from numpy.typing import NDArray

from nbayes.tokens import _kernels
from nbayes.tokens._pass import Pass

# below this many bytes a second thread costs more than it saves
MIN_BYTES = 4_000_000
# below this many CSR entries, the same for writing the matrix's columns
MIN_ENTRIES = 1 << 18
# the shortest run of documents handed to a thread at a time, in bytes (about half a
# millisecond of one thread's pass)
MIN_PIECE = 1 << 17


def n_threads() -> int:
    """Threads for the compiled pass: ``NBAYES_TEXT_THREADS`` (1 or 2), by default 2
    where the process may run on two or more CPUs.

    On an idle 2-core machine the second thread cuts a 20 Newsgroups fit from
    0.47-0.51 s to 0.36-0.37 s wall (BBC news 0.064-0.070 to 0.051-0.054 s) for about
    8 % more CPU time; on an oversubscribed machine, where the second thread waits for
    a core, it can cost more than it saves (bench/NOTES.md): set
    ``NBAYES_TEXT_THREADS=1`` there.
    """
    value = os.environ.get("NBAYES_TEXT_THREADS")
    if value is None:
        return min(2, _available_cpus())
    try:
        return max(1, int(value))
    except ValueError:
        raise ValueError(f"NBAYES_TEXT_THREADS must be an integer; got {value!r}") from None


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _pool():
    """The second thread: one worker kept between calls (starting a thread costs
    ~0.1-0.3 ms, as much as some of the steps it runs)."""
    from nbayes.core.parallel import kept_executor

    return kept_executor("text", 1)


def worth_splitting(text) -> bool:
    """Whether :class:`nbayes.tokens._encode.Text` ``text`` is worth two threads."""
    return text.n_docs > 1 and text.n_bytes() >= MIN_BYTES and n_threads() > 1


def _clone(vocab, insert: bool):
    """A vocabulary for the second thread: a deep copy (it inserts), or the same
    tables with its own row-position arrays (it only reads)."""
    other = copy.copy(vocab)
    if insert:
        for name, value in vars(vocab).items():
            if isinstance(value, np.ndarray):
                setattr(other, name, value.copy())
    else:
        other.t_where = np.full_like(vocab.t_where, -1)
        other.g_where = np.full_like(vocab.g_where, -1)
    return other


def _fold(vocab, other, n_tok0: int, n_gram0: int, pool, second=None, sort=False):
    """Intern ``other``'s tokens and n-grams added after (n_tok0, n_gram0) into
    ``vocab``; returns (token map, n-gram map) from ``other``'s ids to ``vocab``'s,
    and the frequencies job below.

    The look-ups of ``other``'s tokens are split in two, the second half of its
    table's slots in ``pool``'s thread, which then (given the tally ``second``,
    ``other``'s (indptr, entries, counts)) counts its frequencies in ``other``'s ids:
    a future of (df, tf), or None. With ``sort``, the sort of the names
    (:meth:`Vocabulary.sorted_order`) starts there as soon as they are all in, while
    this thread puts the new tokens in the hash table.
    """
    n_tok, n_gram = other.n_tokens, other.n_grams
    tok_map = np.arange(n_tok, dtype=np.int64)
    gram_map = np.arange(n_gram, dtype=np.int64)
    t_lo, t_hi = other.t_off[n_tok0], other.t_off[n_tok]
    g_lo, g_hi = other.g_off[n_gram0], other.g_off[n_gram]
    b_tokens = other.t_table, other.t_bytes, other.t_off, n_tok0
    half = len(other.t_table) // 4  # of its slots
    table, t_bytes, t_off, _ = vocab._tokens()  # as they are for the look-ups
    job = None
    if n_tok > n_tok0:
        job = pool.submit(
            _kernels.fold_lookup, *b_tokens, half, 2 * half, table, t_bytes, t_off, tok_map
        )
    counted = None
    if second is not None:
        counted = pool.submit(
            _kernels.frequencies, second[1], second[2], other.n_tokens, other.n_features
        )
    if n_tok > n_tok0:
        _kernels.fold_lookup(*b_tokens, 0, half, table, t_bytes, t_off, tok_map)
        job.result()
    # room for the tokens not found only (the table then seldom grows here, and so
    # seldom shrinks again in compact()); look-ups and ids are unaffected by a rehash
    missing = int(np.count_nonzero(tok_map[n_tok0:] < 0))
    vocab.reserve(missing, int(t_hi - t_lo), n_gram - n_gram0, int(g_hi - g_lo))
    first_new = vocab.n_tokens
    if missing:
        _kernels.fold_append(
            other.t_bytes, other.t_off, n_tok0, vocab.t_bytes, vocab.t_off, vocab.t_stop,
            vocab.counts, tok_map,
        )  # fmt: skip
    if n_gram > n_gram0:
        gram_map[n_gram0:] = _kernels.intern_grams(
            tok_map[other.g_toks[g_lo:g_hi]], other.g_off[n_gram0 : n_gram + 1] - g_lo,
            *vocab._grams(), vocab.counts,
        )  # fmt: skip
    if sort:
        _start_sort(vocab, pool)
    if missing:
        _kernels.fold_slots(other.t_table, n_tok0, first_new, vocab.t_table, tok_map)
    return tok_map, gram_map, counted


def _start_sort(vocab, pool) -> None:
    """Sort ``vocab``'s names in ``pool``'s thread; :meth:`Vocabulary.sorted_order`
    takes the result if the vocabulary has not grown since."""
    vocab.sort_job = pool.submit(vocab.sort_names)
    vocab.sort_job.n_features = vocab.n_features


class Claims:
    """Runs of documents for the two threads: the first takes them from the front,
    the second from the back, until they meet. Each run is a quarter of the bytes
    still unclaimed (at least :data:`MIN_PIECE` bytes, whole documents), so the last
    runs are short and the threads finish close together even when one of them runs
    slower (as a core shared with another machine's work does for a while: a BBC
    half took 15-18 ms there against 12 ms on the other core)."""

    def __init__(self, offsets: NDArray[np.int64]) -> None:
        self.offsets = offsets
        self.front, self.back = 0, len(offsets) - 1
        self.lock = threading.Lock()

    def take(self, from_front: bool) -> tuple[int, int] | None:
        """The next run (start, stop) from the front or the back, or None if none is left."""
        offsets = self.offsets
        with self.lock:
            front, back = self.front, self.back
            if front >= back:
                return None
            size = max(MIN_PIECE, int(offsets[back] - offsets[front]) // 4)
            if from_front:
                stop = int(np.searchsorted(offsets, offsets[front] + size))
                self.front = stop = min(max(stop, front + 1), back)
                return front, stop
            start = int(np.searchsorted(offsets, offsets[back] - size, "right")) - 1
            self.back = start = max(min(start, back - 1), front)
            return start, back


def _take_runs(vocab, text, claims: Claims, from_front: bool, insert, tally, dtype):
    """A finished :class:`nbayes.tokens._pass.Pass` of ``vocab`` over the runs it takes."""
    run = Pass(vocab, text.n_bytes() // 2, insert, tally, dtype)
    while (piece := claims.take(from_front)) is not None:
        run.add(text, *piece)
    run.finish()
    return run


def analyze(
    vocab, text, insert: bool, tally: bool, dtype: np.dtype, sort: bool = False,
    count: bool = False,
):  # fmt: skip
    """:meth:`Vocabulary.analyze` in two threads, each over the runs of documents it
    takes (:class:`Claims`: this one from the front, the other from the back), with
    streams of ``dtype`` chosen for the whole input. With ``sort``, the second
    thread then sorts the vocabulary (:meth:`Vocabulary.sorted_order`) while this one
    joins the two streams; with ``count`` and ``tally`` (a fit that prunes), it first
    counts the second thread's feature frequencies while this thread folds the
    vocabularies, and this one then counts its own and adds the two
    (:meth:`Vocabulary.frequencies` returns them)."""
    n_tok0, n_gram0 = vocab.n_tokens, vocab.n_grams
    other = _clone(vocab, insert)
    claims = Claims(text.offsets)
    pool = _pool()  # the runs from the back there, from the front here
    job = pool.submit(_take_runs, other, text, claims, False, insert, tally, dtype)
    front = _take_runs(vocab, text, claims, True, insert, tally, dtype)
    back = job.result()
    counted = None
    if insert:
        second = (None, back.stream, back.data) if count and tally else None
        tok_map, gram_map, counted = _fold(vocab, other, n_tok0, n_gram0, pool, second, sort)
    elif sort:
        _start_sort(vocab, pool)
    del other  # its tables go before the streams grow
    n_a = front.n_stream
    doc_off, stream, data = _join(front, back, (tok_map, gram_map) if insert else None)
    if tally:
        if counted is not None:
            n_tok, n_features = vocab.n_tokens, vocab.n_features
            df, tf = _kernels.frequencies(stream[:n_a], data[:n_a], n_tok, n_features)
            df_b, tf_b = counted.result()
            where = np.concatenate([tok_map, vocab.n_tokens + gram_map])  # one-to-one
            df[where] += df_b
            tf[where] += tf_b
            vocab.counted = vocab.n_features, df, tf
        return doc_off, stream, data
    return stream, doc_off


def _join(front, back, maps):
    """(doc_off, stream, counts) of all documents from the two threads' passes: this
    thread's stream (``front``'s runs, in document order), then the other's runs
    (``back``'s, taken in reverse) put back in document order and renumbered by
    ``maps`` (token map, n-gram map) where the other thread inserted into its own
    tables. Takes the passes' arrays, freeing each as soon as it is copied.

    Into fresh arrays: NumPy asks for huge pages for them, so they fault in far fewer
    pages than ``front``'s stream grown in place (which took ~15 ms for 20
    Newsgroups' 3M entries against ~6 ms, copy included).
    """
    stream_b, data_b = back.stream, back.data
    back.stream = back.data = None
    n_a, n_b = front.n_stream, back.n_stream
    stream = _joined(front.stream, n_b)
    front.stream = None
    data = _joined(front.data, n_b) if front.tally else front.data
    front.data = None
    rows = list(front.rows)
    at = n_a
    for piece_rows in reversed(back.rows):
        lo, hi = int(piece_rows[0]), int(piece_rows[-1])
        if maps is not None:
            _kernels.renumber(stream_b[lo:hi], *maps, stream[at : at + hi - lo])
        else:
            stream[at : at + hi - lo] = stream_b[lo:hi]
        if front.tally:
            data[at : at + hi - lo] = data_b[lo:hi]
        rows.append(piece_rows - lo + at)
        at += hi - lo
    doc_off = np.concatenate([rows[0], *(r[1:] for r in rows[1:])])
    return doc_off, stream, data


def _joined(head: np.ndarray, more: int) -> np.ndarray:
    """A new array of ``len(head) + more`` entries starting with ``head``."""
    out = np.empty(len(head) + more, head.dtype)
    out[: len(head)] = head
    return out


def to_columns(indptr, entries, counts, col_tok, col_gram, columns, values):
    """The compiled ``to_columns`` (see :meth:`Vocabulary.to_columns`) over the rows
    in two halves (by entries), the second in another thread, where ``columns`` is
    ``entries`` (each half then writes only over its own entries); entries the first
    half dropped leave a gap that the second half's output is moved down over.
    Returns (indptr, kept) as the kernel does, the same values."""
    n_rows = len(indptr) - 1
    out = np.empty(n_rows + 1, np.int64)
    if columns is not entries or n_rows < 2 or n_threads() < 2 or len(entries) < MIN_ENTRIES:
        kept = _kernels.to_columns(indptr, entries, counts, col_tok, col_gram, columns, values, out)
        return out, kept
    cut = int(np.clip(np.searchsorted(indptr, indptr[-1] // 2), 1, n_rows - 1))
    s = int(indptr[cut])
    tail = np.empty(n_rows - cut + 1, np.int64)
    job = _pool().submit(
        _kernels.to_columns, indptr[cut:] - s, entries[s:], counts[s:], col_tok, col_gram,
        columns[s:], values[s:], tail,
    )  # fmt: skip
    k1 = _kernels.to_columns(
        indptr[: cut + 1], entries[:s], counts[:s], col_tok, col_gram, columns[:s], values[:s],
        out[: cut + 1],
    )  # fmt: skip
    k2 = job.result()
    if k1 < s:
        columns[k1 : k1 + k2] = columns[s : s + k2]
        values[k1 : k1 + k2] = values[s : s + k2]
    out[cut + 1 :] = tail[1:] + k1
    return out, k1 + k2
