"""Cross-validated evaluation of the spam filter, with the TREC Spam Track measures.

The counts are additive, so a fold's store is the sum over its training messages:
with binary ``X`` (n_messages, n_tokens) and labels ``y`` (0 ham, 1 spam), the
training counts are ``X[train].T @ onehot(y[train])`` — the same numbers
:class:`~nbayes.spam.store.TokenStore` holds after training on those messages
(mode ``everything``), without the database round trip. Scores come from
:func:`nbayes.spam.score.score_matrix`, the function the store-backed filter uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.model_selection import StratifiedKFold

from nbayes.spam.score import ScoreSettings, score_matrix, token_matrix
from nbayes.spam.store import Totals


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
) -> NDArray[np.float64]:
    """Out-of-fold spamminess of each message, shape (n_messages,)."""
    X, _ = token_matrix(token_sets)
    return cross_val_scores_matrix(X, np.asarray(y), settings, folds)


def cross_val_scores_matrix(
    X: sp.csr_matrix, y: NDArray, settings: ScoreSettings, folds: Sequence[NDArray[np.intp]]
) -> NDArray[np.float64]:
    """:func:`cross_val_scores` on a prepared binary token matrix X (n, n_tokens)."""
    onehot = np.column_stack([y == 0, y == 1]).astype(np.float64)
    all_counts = np.asarray(X.T @ onehot)
    all_sizes = np.asarray(X.sum(axis=1)).ravel()
    scores = np.empty(X.shape[0])
    for test in folds:
        counts = all_counts - np.asarray(X[test].T @ onehot[test])
        train = np.ones(X.shape[0], dtype=bool)
        train[test] = False
        totals = Totals(
            tuple(int(n) for n in onehot[train].sum(axis=0)),
            tuple(int(n) for n in onehot[train].T @ all_sizes[train]),
            int(np.count_nonzero(counts.sum(axis=1))),
        )
        scores[test] = score_matrix(X[test], counts, totals, settings)
    return scores


def evaluate_scores(y: NDArray, scores: NDArray, settings: ScoreSettings) -> Evaluation:
    """The measures of :class:`Evaluation` for labels y (0 ham, 1 spam) and scores."""
    y = np.asarray(y)
    auc = float(roc_auc_score(y, scores))
    fpr, tpr, _ = roc_curve(y, scores)
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
