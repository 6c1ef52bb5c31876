"""Cross-validation of the multi-class verdict (:mod:`nbayes.spam.classes`), in memory.

Each message is a binary row of ``X`` (n_messages, n_tokens) with a class index in
``y`` (n_messages,) into ``classes`` (K names, in :func:`~nbayes.spam.classes.class_order`).
A fold's counts are those a store trained on the fold's other messages holds, every
message learnt (as ``nbayes spam train --mode everything``; the two-class training
rules judge the Fisher score, which says nothing of other classes): with ``T`` the
training rows,

    counts = X[T].T @ onehot(y[T])   (n_tokens, K)
    messages_c = |{i in T : y_i = c}|,  tokens_c = sum_{i in T, y_i = c} |x_i|,
    V = |{w : sum_c counts_wc > 0}|

and each held-out message is scored by :func:`~nbayes.spam.verdicts.class_log_posterior`,
the function ``nbayes spam classify --classes`` scores with, on the columns of the
fold's messages (as a store is read for them). So the out-of-fold probabilities are
those ``classify --classes`` gives the message against a store trained on the rest.

The measures (:func:`evaluate_classes`): accuracy, macro-averaged F1, log loss in
nats ``-mean_i ln P(y_i | x_i)`` (from the log-probabilities themselves, never clipped:
naive Bayes is often sure, and wrong), per-class precision, recall and F1, and the
confusion matrix (rows: true class, columns: verdict).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

from nbayes.spam.classes import ClassCounts
from nbayes.spam.verdicts import class_log_posterior

__all__ = ["ClassEvaluation", "cross_val_class_log_posterior", "evaluate_classes"]


@dataclass(frozen=True)
class ClassEvaluation:
    """Out-of-fold measures of the multi-class verdict.

    classes : the K class names; support : messages per class (K,);
    accuracy, macro_f1 : in [0, 1]; log_loss : nats per message (lower is better);
    precision, recall, f1 : per class (K,), 0 where undefined (no verdict of the class);
    confusion : int (K, K), ``confusion[i, j]`` messages of class i given verdict j.
    """

    classes: tuple[str, ...]
    support: tuple[int, ...]
    accuracy: float
    macro_f1: float
    log_loss: float
    precision: tuple[float, ...]
    recall: tuple[float, ...]
    f1: tuple[float, ...]
    confusion: tuple[tuple[int, ...], ...]

    def as_dict(self) -> dict:
        """The measures as plain JSON values (``--json``)."""
        return {
            "classes": list(self.classes),
            "messages": dict(zip(self.classes, self.support, strict=True)),
            "accuracy": self.accuracy,
            "macro_f1": self.macro_f1,
            "log_loss": self.log_loss,
            "per_class": {
                name: {"precision": p, "recall": r, "f1": f, "messages": n}
                for name, p, r, f, n in zip(
                    self.classes, self.precision, self.recall, self.f1, self.support, strict=True
                )
            },
            "confusion": {
                name: dict(zip(self.classes, row, strict=True))
                for name, row in zip(self.classes, self.confusion, strict=True)
            },
        }


def cross_val_class_log_posterior(
    X: sp.csr_matrix,
    y: NDArray[np.intp],
    classes: Sequence[str],
    folds: Sequence[NDArray[np.intp]],
    alpha: float = 1.0,
) -> NDArray[np.float64]:
    """Out-of-fold ``ln P(c | x)`` of each message, shape (n_messages, K) (see the module
    docstring). ``folds``: disjoint test index arrays covering the messages, each
    leaving at least one message of every class to train on (ValueError otherwise:
    a class without messages is no class to a store)."""
    X = sp.csr_matrix(X)
    y = np.asarray(y)
    n_classes = len(classes)
    if X.shape[0] != len(y):
        raise ValueError(f"{X.shape[0]} messages but {len(y)} labels")
    if len(y) and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"labels must index the {n_classes} classes")
    onehot = np.zeros((len(y), n_classes))
    onehot[np.arange(len(y)), y] = 1.0
    sizes = np.asarray(X.sum(axis=1)).ravel()
    all_counts = np.asarray(X.T @ onehot)
    log_post = np.full((X.shape[0], n_classes), np.nan)
    for test in folds:
        train = np.ones(X.shape[0], dtype=bool)
        train[test] = False
        messages = onehot[train].sum(axis=0)
        if np.any(messages == 0):
            missing = [classes[c] for c in np.flatnonzero(messages == 0)]
            raise ValueError(f"a fold leaves no message of {', '.join(missing)} to learn")
        counts = all_counts - np.asarray(X[test].T @ onehot[test])
        vocabulary = int(np.count_nonzero(counts.sum(axis=1)))
        columns = np.unique(X[test].indices)  # the held-out messages' tokens, as a store is read
        found = ClassCounts(
            tuple(classes),
            np.rint(counts[columns]).astype(np.int64),
            tuple(int(m) for m in messages),
            tuple(int(t) for t in onehot[train].T @ sizes[train]),
            vocabulary,
        )
        log_post[test] = class_log_posterior(X[test][:, columns], found, alpha)
    return log_post


def evaluate_classes(
    y: NDArray[np.intp], log_posterior: NDArray[np.float64], classes: Sequence[str]
) -> ClassEvaluation:
    """The measures of :class:`ClassEvaluation` for true class indices ``y`` (n,) and
    ``log_posterior`` (n, K); the verdict is the most probable class (ties: the first).

    >>> result = evaluate_classes(np.array([0, 1]), np.log([[0.5, 0.5], [0.25, 0.75]]), "ab")
    >>> result.accuracy, round(result.log_loss, 4)
    (1.0, 0.4904)
    """
    y = np.asarray(y)
    labels = np.arange(len(classes))
    verdict = np.argmax(log_posterior, axis=1)
    precision, recall, f1, support = precision_recall_fscore_support(
        y, verdict, labels=labels, zero_division=0.0
    )
    confusion = confusion_matrix(y, verdict, labels=labels)
    return ClassEvaluation(
        classes=tuple(classes),
        support=tuple(int(n) for n in support),
        accuracy=float(np.mean(verdict == y)),
        macro_f1=float(np.mean(f1)),
        log_loss=float(-np.mean(log_posterior[np.arange(len(y)), y])),
        precision=tuple(float(v) for v in precision),
        recall=tuple(float(v) for v in recall),
        f1=tuple(float(v) for v in f1),
        confusion=tuple(tuple(int(n) for n in row) for row in confusion),
    )
