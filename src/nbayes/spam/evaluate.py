"""Evaluation of the spam filter with the TREC Spam Track measures: by cross-validation,
and incrementally, as the TREC Spam Track does (each message scored, then learnt).

Training follows the rule of a training mode (:mod:`nbayes.spam.learning`, the same
code as ``nbayes spam train``), in memory: a fold's store is what training on its
other messages, in the order given (arrival order), leaves. In mode ``everything``
the counts are additive, so with binary ``X`` (n_messages, n_tokens) and labels
``y`` (0 ham, 1 spam) they are ``X[train].T @ onehot(y[train])``; in the default mode
``unless-sure`` each training message is scored, then learnt unless sure. Scores come
from :func:`nbayes.spam.score.score_matrix`, the function the store-backed filter uses.

The incremental evaluation (:func:`incremental_scores`) runs the filter's life on a
stream of messages in order (by date: :func:`date_order`): each message is scored by
the counts of the messages before it, then learnt by the mode's rule: unless sure
(the default), always (TREC's "full training"), or only where its score was wrong or
within ``thick`` of the cutoffs (``on-error``: train on or near error, TONE).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import timezone
from email.utils import parsedate_to_datetime

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.special import expit
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.model_selection import StratifiedKFold

from nbayes.spam.learning import (
    DEFAULT_CERTAINTY,
    RunningCounts,
    check_certainty,
    needs_learning,
)
from nbayes.spam.score import ScoreSettings, score_matrix, token_matrix
from nbayes.spam.store import Totals

#: Where a message's Date header is looked for: the first bytes, up to the first blank line.
MAX_HEADER_BYTES = 64 * 1024


@dataclass(frozen=True)
class Evaluation:
    """Out-of-fold results.

    roc_auc : area under the ROC curve of the scores; ``one_minus_roca`` is
        ``100 (1 - roc_auc)`` (%, lower is better).
    caught_at_01, caught_at_1 : spam recall at 0.1 % and 1 % false-positive rate,
        the largest true-positive rate whose false-positive rate does not exceed it.
    confusion : ``{(true label, verdict): count}`` at the settings' cutoffs.
    """

    roc_auc: float
    one_minus_roca: float
    caught_at_01: float
    caught_at_1: float
    confusion: dict[tuple[str, str], int]


def fold_indices(y: NDArray, folds: int, seed: int = 0) -> list[NDArray[np.intp]]:
    """Stratified, shuffled test folds (the same for every filter compared)."""
    if folds < 2:
        raise ValueError(f"folds must be >= 2, got {folds}")
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    return [test for _, test in splitter.split(np.zeros(len(y)), y)]


def cross_val_scores(
    token_sets: Sequence[AbstractSet[str]],
    y: NDArray,
    settings: ScoreSettings,
    folds: Sequence[NDArray[np.intp]],
    *,
    log_odds: bool = False,
    mode: str = "unless-sure",
    certainty: float = DEFAULT_CERTAINTY,
) -> NDArray[np.float64]:
    """Out-of-fold spamminess of each message, shape (n_messages,); with ``log_odds``,
    ``ln(score / (1 - score))`` (exact where the score rounds to 0 or 1: for ranking).
    Each fold's filter is trained on the other messages, in the order of ``token_sets``,
    by ``mode`` (``unless-sure`` or ``everything``) and ``certainty``."""
    X, _ = token_matrix(token_sets)
    return cross_val_scores_matrix(
        X, np.asarray(y), settings, folds, log_odds=log_odds, mode=mode, certainty=certainty
    )


def cross_val_scores_matrix(
    X: sp.csr_matrix,
    y: NDArray,
    settings: ScoreSettings,
    folds: Sequence[NDArray[np.intp]],
    *,
    log_odds: bool = False,
    mode: str = "unless-sure",
    certainty: float = DEFAULT_CERTAINTY,
) -> NDArray[np.float64]:
    """:func:`cross_val_scores` on a prepared binary token matrix X (n, n_tokens)."""
    if mode not in ("unless-sure", "everything"):
        raise ValueError(f"mode must be 'unless-sure' or 'everything', got {mode!r}")
    certainty = check_certainty(certainty)
    X = sp.csr_matrix(X)
    onehot = np.column_stack([y == 0, y == 1]).astype(np.float64)
    all_counts = np.asarray(X.T @ onehot)
    all_sizes = np.asarray(X.sum(axis=1)).ravel()
    scores = np.empty(X.shape[0])
    for test in folds:
        train = np.ones(X.shape[0], dtype=bool)
        train[test] = False
        if mode == "everything":
            counts = all_counts - np.asarray(X[test].T @ onehot[test])
            totals = Totals(
                tuple(int(n) for n in onehot[train].sum(axis=0)),
                tuple(int(n) for n in onehot[train].T @ all_sizes[train]),
                int(np.count_nonzero(counts.sum(axis=1))),
            )
        else:
            running = RunningCounts(np.zeros((X.shape[1], 2), dtype=np.int64), _NO_MAIL)
            for i in np.flatnonzero(train):
                ids = X.indices[X.indptr[i] : X.indptr[i + 1]]
                running.learn_unless_sure(ids, int(y[i]), settings, certainty)
            counts, totals = running.counts, running.totals()
        scores[test] = score_matrix(X[test], counts, totals, settings, log_odds=log_odds)
    return scores


class TokenRows:
    """Messages' tokens encoded as they are read, for a corpus too large to hold as
    token sets: each distinct token is kept once (``columns``: token -> column), each
    message as an int32 array of its columns, in its set's order.

    A token set costs about 100 bytes a token (a string and a set slot each); a row 4.
    ``matrix(order)`` is then :func:`~nbayes.spam.score.token_matrix` of the sets in
    that order, its columns permuted (scores are the same, bit for bit).

    >>> rows = TokenRows()
    >>> rows.add({"a"}); rows.add({"a", "b"})
    >>> rows.matrix().toarray().tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """

    def __init__(self) -> None:
        self.columns: dict[str, int] = {}
        self.rows: list[NDArray[np.int32]] = []

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, tokens: Iterable[str]) -> None:
        """Append one message's (distinct) tokens."""
        columns = self.columns
        ids = [columns.setdefault(token, len(columns)) for token in tokens]
        self.rows.append(np.array(ids, dtype=np.int32))

    def matrix(self, order: Sequence[int] | None = None) -> sp.csr_matrix:
        """Binary CSR matrix (n_messages, n_tokens), rows in ``order`` (default: as added)."""
        rows = self.rows if order is None else [self.rows[i] for i in order]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(row) for row in rows], out=indptr[1:])
        indices = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int32)
        shape = (len(rows), len(self.columns))
        return sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=shape)


#: The totals of a store that has learnt nothing.
_NO_MAIL = Totals((0, 0), (0, 0), 0)


def evaluate_scores(
    y: NDArray, scores: NDArray, settings: ScoreSettings, *, log_odds: bool = False
) -> Evaluation:
    """The measures of :class:`Evaluation` for labels y (0 ham, 1 spam) and scores (with
    ``log_odds``, log-odds of the scores: the ROC ranks by them, the verdicts are
    those of the scores they stand for)."""
    y = np.asarray(y)
    auc = float(roc_auc_score(y, scores))
    fpr, tpr, _ = roc_curve(y, scores)
    if log_odds:
        scores = expit(scores)
    confusion: dict[tuple[str, str], int] = {}
    for label, truth in (("ham", 0), ("spam", 1)):
        for verdict in ("Spam", "Unsure", "Ham"):
            confusion[(label, verdict)] = 0
        for score in scores[y == truth]:
            confusion[(label, settings.verdict(score))] += 1
    return Evaluation(
        roc_auc=auc,
        one_minus_roca=100 * (1 - auc),
        caught_at_01=float(tpr[fpr <= 0.001].max()),
        caught_at_1=float(tpr[fpr <= 0.01].max()),
        confusion=confusion,
    )


def incremental_scores(
    token_sets: Sequence[AbstractSet[str]],
    y: NDArray,
    settings: ScoreSettings,
    *,
    mode: str = "unless-sure",
    certainty: float = DEFAULT_CERTAINTY,
    tone: bool = False,
    thick: float = 0.0,
    log_odds: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Score each message with the counts of the messages before it, then learn it by the
    rule of ``mode`` (:mod:`nbayes.spam.learning`).

    token_sets : the messages' token sets, in the order they arrive; y : labels (0 ham,
    1 spam), shape (n,). ``mode``: ``unless-sure`` (learnt unless right by more than
    ``certainty`` nats), ``everything``, or ``on-error`` (learnt only where
    :func:`~nbayes.spam.learning.needs_learning` says so: its verdict wrong or Unsure,
    or its score within ``thick`` of the cutoffs). Returns the scores (with
    ``log_odds``, their log-odds, as :func:`cross_val_scores`), shape (n,), and which
    messages were learnt, shape (n,). ``tone=True`` is ``mode="on-error"``.
    """
    if len(y) != len(token_sets):
        raise ValueError(f"{len(token_sets)} token sets but {len(y)} labels")
    X, _ = token_matrix(token_sets)
    return incremental_scores_matrix(
        X, y, settings, mode=mode, certainty=certainty, tone=tone, thick=thick,
        log_odds=log_odds,
    )  # fmt: skip


def incremental_scores_matrix(
    X: sp.csr_matrix,
    y: NDArray,
    settings: ScoreSettings,
    *,
    mode: str = "unless-sure",
    certainty: float = DEFAULT_CERTAINTY,
    tone: bool = False,
    thick: float = 0.0,
    log_odds: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """:func:`incremental_scores` on a binary token matrix X (n, n_tokens), rows in order."""
    y = np.asarray(y)
    if X.shape[0] != len(y):
        raise ValueError(f"{X.shape[0]} rows but {len(y)} labels")
    X = sp.csr_matrix(X)
    return _incremental(
        X.indices, X.indptr, X.shape[1], y, settings, "on-error" if tone else mode,
        certainty, thick, log_odds,
    )  # fmt: skip


def _incremental(
    indices: NDArray, indptr: NDArray, n_tokens: int, y: NDArray, settings: ScoreSettings,
    mode: str, certainty: float, thick: float, log_odds: bool,
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:  # fmt: skip
    if mode not in ("unless-sure", "everything", "on-error"):
        raise ValueError(f"mode must be 'unless-sure', 'everything' or 'on-error', got {mode!r}")
    certainty = check_certainty(certainty)
    running = RunningCounts(np.zeros((n_tokens, 2), dtype=np.int64), _NO_MAIL)
    scores = np.empty(len(y))
    learnt = np.zeros(len(y), dtype=bool)
    for i in range(len(y)):
        ids = indices[indptr[i] : indptr[i + 1]]
        label = int(y[i])
        raw = running.score(ids, settings, temper=False)
        value = raw * running.maturity(settings)  # what the filter says; the rule judges raw
        scores[i] = value if log_odds else running.score(ids, settings, log_odds=False)
        if mode == "unless-sure" and running.sure(raw, label, certainty):
            continue
        if mode == "on-error" and not needs_learning(expit(value), label == 1, settings, thick):
            continue
        running.learn(ids, label)
        learnt[i] = True
    return scores, learnt


_DATE_HEADER = re.compile(rb"^date:[ \t]*([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)", re.I | re.M)
_RECEIVED_HEADER = re.compile(rb"^received:([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)", re.I | re.M)
_HEADER_END = re.compile(rb"\r?\n\r?\n")


def mail_date(raw: bytes) -> float | None:
    """When a message arrived, as POSIX seconds: the date the topmost ``Received`` header
    ends with (the last hop's, which the sender cannot forge), else the ``Date`` header;
    None where neither holds a date. A date without a zone is read as UTC."""
    end = _HEADER_END.search(raw, 0, MAX_HEADER_BYTES)
    header = raw[: end.start() if end else MAX_HEADER_BYTES]
    received = _RECEIVED_HEADER.search(header)
    if received is not None and b";" in received.group(1):
        date = _parse_date(received.group(1).rpartition(b";")[2])
        if date is not None:
            return date
    match = _DATE_HEADER.search(header)
    return None if match is None else _parse_date(match.group(1))


def _parse_date(text: bytes) -> float | None:
    try:
        date = parsedate_to_datetime(" ".join(text.decode("latin-1").split()))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if date.tzinfo is None:
        date = date.replace(tzinfo=timezone.utc)
    return date.timestamp()


def date_order(dates: Sequence[float | None]) -> NDArray[np.intp]:
    """The order of messages by date (seconds), stable; an undated message keeps its place
    after the message before it in the input (it takes that message's date), so messages
    without any dates stay in input order."""
    keys = np.empty(len(dates))
    last = -np.inf
    for i, date in enumerate(dates):
        if date is not None and np.isfinite(date):
            last = date
        keys[i] = last
    return np.argsort(keys, kind="stable")
