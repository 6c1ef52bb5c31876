"""Two threads for the compiled pass: split the documents in two halves (by bytes),
analyze each half with its own tables, then fold the second half's new tokens and
n-grams into the first's and renumber its stream.

Ids stay in order of first appearance over all documents (the first half's come
first, then the second's new ones, in their own order of appearance), and the
renumbering is one-to-one, so the stream, its CSR rows and their counts are exactly
what one serial pass gives. With ``insert=False`` the tables are only read, and
each thread gets its own row-position arrays.
"""

from __future__ import annotations

import copy
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

# below this many bytes a second thread costs more than it saves
MIN_BYTES = 4_000_000
# below this many CSR entries, the same for writing the matrix's columns
MIN_ENTRIES = 1 << 18


def n_threads() -> int:
    """Threads for the compiled pass: ``NBAYES_TEXT_THREADS`` (1 or 2), by default 2
    where the process may run on two or more CPUs.

    On an idle 2-core machine the second thread cuts a 20 Newsgroups fit from
    0.47-0.51 s to 0.36-0.37 s wall (BBC news 0.064-0.070 to 0.051-0.054 s) for about
    8 % more CPU time; on an oversubscribed machine, where the second thread waits for
    a core, it can cost more than it saves (bench/RESULTS_text.md): set
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


def worth_splitting(text) -> bool:
    """Whether :class:`nbayes.text._encode.Text` ``text`` is worth two threads."""
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


def _fold(vocab, other, n_tok0: int, n_gram0: int, pool, second=None):
    """Intern ``other``'s tokens and n-grams added after (n_tok0, n_gram0) into
    ``vocab``; returns (token map, n-gram map) from ``other``'s ids to ``vocab``'s,
    and the frequencies job below.

    The look-ups of ``other``'s tokens are split in two, the second half of its
    table's slots in ``pool``'s thread, which then (given the tally ``second``,
    ``other``'s (indptr, entries, counts)) counts its frequencies in ``other``'s ids:
    a future of (df, tf), or None.
    """
    from nbayes.text._engine import _kernels

    kernels = _kernels()
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
            kernels.fold_lookup, *b_tokens, half, 2 * half, table, t_bytes, t_off, tok_map
        )
    counted = None
    if second is not None:
        counted = pool.submit(
            kernels.frequencies, second[1], second[2], other.n_tokens, other.n_features
        )
    if n_tok > n_tok0:
        kernels.fold_lookup(*b_tokens, 0, half, table, t_bytes, t_off, tok_map)
        job.result()
    # room for the tokens not found only (the table then seldom grows here, and so
    # seldom shrinks again in compact()); look-ups and ids are unaffected by a rehash
    missing = int(np.count_nonzero(tok_map[n_tok0:] < 0))
    vocab.reserve(missing, int(t_hi - t_lo), n_gram - n_gram0, int(g_hi - g_lo))
    if missing:
        kernels.fold_insert(*b_tokens, *vocab._tokens(), vocab.counts, tok_map)
    if n_gram > n_gram0:
        gram_map[n_gram0:] = kernels.intern_grams(
            tok_map[other.g_toks[g_lo:g_hi]], other.g_off[n_gram0 : n_gram + 1] - g_lo,
            *vocab._grams(), vocab.counts,
        )  # fmt: skip
    return tok_map, gram_map, counted


def analyze(vocab, text, insert: bool, tally: bool, dtype: np.dtype, sort: bool = False):
    """:meth:`Vocabulary.analyze` over two halves of the documents in two threads
    (streams of ``dtype``, chosen for the whole input). With ``sort``, the second
    thread then sorts the vocabulary (:meth:`Vocabulary.sorted_order`) while this one
    joins the two streams; with ``sort`` and ``tally`` (a fit), it first counts the
    second half's feature frequencies while this thread folds the vocabularies, and
    this one then counts the first half's and adds the two
    (:meth:`Vocabulary.frequencies` returns them)."""
    from nbayes.text._engine import _kernels

    kernels = _kernels()
    offsets = text.offsets
    cut = int(np.clip(np.searchsorted(offsets, offsets[-1] // 2), 1, text.n_docs - 1))
    n_tok0, n_gram0 = vocab.n_tokens, vocab.n_grams
    other = _clone(vocab, insert)
    pool = ThreadPoolExecutor(1)  # the second half there, the first in this thread
    try:
        job = pool.submit(other.analyze_serial, text, cut, text.n_docs, insert, tally, dtype)
        first = vocab.analyze_serial(text, 0, cut, insert, tally, dtype)
        second = job.result()
        counted = None
        if insert:
            count = second if sort and tally else None
            tok_map, gram_map, counted = _fold(vocab, other, n_tok0, n_gram0, pool, count)
        if sort:
            vocab.sort_job = pool.submit(vocab.sort_names)
            vocab.sort_job.n_features = vocab.n_features
    finally:
        pool.shutdown(wait=False)
    del other  # its tables go before the streams grow
    if tally:
        (off_a, stream_a, data_a), (off_b, stream_b, data_b) = first, second
    else:
        (stream_a, off_a), (stream_b, off_b) = first, second
    del first, second
    # both halves into fresh arrays: NumPy asks for huge pages for them, so they fault
    # in far fewer pages than the first half's arrays grown in place (which took
    # ~15 ms for 20 Newsgroups' 3M entries against ~6 ms, copy included)
    n_a, n_b = len(stream_a), len(stream_b)
    stream = _joined(stream_a, n_b)
    del stream_a
    if insert:
        kernels.renumber(stream_b, tok_map, gram_map, stream[n_a:])
    else:
        stream[n_a:] = stream_b
    doc_off = np.concatenate([off_a, off_b[1:] + off_a[-1]])
    if tally:
        data = _joined(data_a, n_b)
        del data_a
        data[n_a:] = data_b
        if counted is not None:
            df, tf = kernels.frequencies(stream[:n_a], data[:n_a], vocab.n_tokens, vocab.n_features)
            df_b, tf_b = counted.result()
            where = np.concatenate([tok_map, vocab.n_tokens + gram_map])  # one-to-one
            df[where] += df_b
            tf[where] += tf_b
            vocab.counted = vocab.n_features, df, tf
        return doc_off, stream, data
    return stream, doc_off


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
    from nbayes.text._engine import _kernels

    kernels = _kernels()
    n_rows = len(indptr) - 1
    if columns is not entries or n_rows < 2 or n_threads() < 2 or len(entries) < MIN_ENTRIES:
        return kernels.to_columns(indptr, entries, counts, col_tok, col_gram, columns, values)
    cut = int(np.clip(np.searchsorted(indptr, indptr[-1] // 2), 1, n_rows - 1))
    s = int(indptr[cut])
    with ThreadPoolExecutor(1) as pool:
        job = pool.submit(
            kernels.to_columns, indptr[cut:] - s, entries[s:], counts[s:], col_tok, col_gram,
            columns[s:], values[s:],
        )  # fmt: skip
        head, k1 = kernels.to_columns(
            indptr[: cut + 1], entries[:s], counts[:s], col_tok, col_gram, columns[:s], values[:s]
        )
        tail, k2 = job.result()
    if k1 < s:
        columns[k1 : k1 + k2] = columns[s : s + k2]
        values[k1 : k1 + k2] = values[s : s + k2]
    return np.concatenate([head, tail[1:] + k1]), k1 + k2
