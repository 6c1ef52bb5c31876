"""The multi-class verdict: the most probable of a store's classes for a message, with
every class's probability (the maths: :mod:`nbayes.spam.classes`).

    with open_store("tokens.db", readonly=True) as store:
        [verdict] = classify_classes(store, [tokenize(raw)])
        verdict.verdict, verdict.probabilities  # 'newsletter', {'ham': ..., ...}
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nbayes.spam._numpy import np
from nbayes.spam.database import StoreError
from nbayes.spam.score import _binary_csr, naive_bayes_log_posterior, token_index
from nbayes.spam.store import Totals

if TYPE_CHECKING:
    import scipy.sparse as sp
    from numpy.typing import NDArray

    from nbayes.spam.classes import ClassCounts
    from nbayes.spam.store_protocol import Store

__all__ = [
    "ClassVerdict", "ClassesRead", "NothingLearntError", "class_log_posterior", "classify_classes",
    "read_classes_of",
]  # fmt: skip


class NothingLearntError(StoreError):
    """The store holds no message of any class: there is no verdict to give."""


@dataclass(frozen=True)
class ClassVerdict:
    """One message's verdict: the most probable class and every class's probability
    (in the store's :func:`class_order`), with their natural logarithms."""

    verdict: str
    probabilities: dict[str, float]
    log_probabilities: dict[str, float]


def classify_classes(
    store: Store, token_sets: Sequence[AbstractSet[str]], alpha: float = 1.0
) -> list[ClassVerdict]:
    """The multi-class verdict of each message (a token set) against ``store``, read in
    one consistent state (see the module docstring). ``alpha``: the Laplace pseudocount
    (that of :class:`~nbayes.spam.score.ScoreSettings`). :class:`NothingLearntError` (a
    StoreError) where the store holds no message at all.

    Ties go to the class first in :func:`class_order`.
    """
    if not token_sets:
        return []
    read = read_classes_of(store, token_sets)
    return read.verdicts(alpha)


class ClassesRead:
    """What one :meth:`~nbayes.spam.store_protocol.Store.read_classes` gave for some
    messages' tokens: the messages as CSR index arrays over the distinct tokens
    ``columns`` (:func:`~nbayes.spam.score.token_index`) and every class's counts of
    them (``found``). It gives their multi-class verdicts (:meth:`verdicts`) and the
    ham and spam counts of those tokens (:meth:`two_class_counts`), so that a caller
    wanting both reads the store once, in one state."""

    def __init__(
        self, name: str, indices: NDArray[np.int64], indptr: NDArray[np.int64],
        columns: list[str], found: ClassCounts,
    ) -> None:  # fmt: skip
        self.name, self.indices, self.indptr = name, indices, indptr
        self.columns, self.found = columns, found

    def verdicts(self, alpha: float = 1.0) -> list[ClassVerdict]:
        """Each message's :class:`ClassVerdict`; :class:`NothingLearntError` where the
        store held no message."""
        found = self.found
        if not found.classes:
            raise NothingLearntError(
                f"{self.name}: no message learnt yet, nothing to classify against"
            )
        X = _binary_csr(self.indices, self.indptr, len(self.columns))
        log_post = class_log_posterior(X, found, alpha)
        proba = np.exp(log_post)
        best = np.argmax(log_post, axis=1)
        return [
            ClassVerdict(
                found.classes[best[i]],
                dict(zip(found.classes, proba[i].tolist(), strict=True)),
                dict(zip(found.classes, log_post[i].tolist(), strict=True)),
            )
            for i in range(len(self.indptr) - 1)
        ]

    def two_class_counts(self) -> tuple[dict[str, tuple[int, int]], Totals]:
        """The ham and spam counts of the tokens read (``{token: (ham, spam)}``, tokens
        neither class holds left out) and their totals, as
        ``store.read_counts(tokens, vocabulary=False)`` gives them for the same state
        (a class without messages counts 0: its tokens' counts are 0 too)."""
        found = self.found
        zeros = [0] * len(self.columns)
        ham, spam = (
            found.counts[:, found.classes.index(label)].tolist()
            if label in found.classes
            else zeros
            for label in ("ham", "spam")
        )
        counts = {
            token: (h, s)
            for token, h, s in zip(self.columns, ham, spam, strict=True)
            if h or s
        }
        held = dict(zip(found.classes, zip(found.messages, found.tokens, strict=True), strict=True))
        (ham_m, ham_t), (spam_m, spam_t) = (held.get(label, (0, 0)) for label in ("ham", "spam"))
        return counts, Totals((ham_m, spam_m), (ham_t, spam_t), None)


def read_classes_of(store: Store, token_sets: Sequence[AbstractSet[str]]) -> ClassesRead:
    """Every class's counts of the messages' tokens, read once (:class:`ClassesRead`)."""
    # Each message's tokens in sorted order, not the set's (which follows the process's
    # string hash seed): the log-likelihood sums then add the same terms in the same
    # order in every process, so the probabilities are the same to the last bit.
    indices, indptr, columns = token_index([sorted(tokens) for tokens in token_sets])
    found = store.read_classes(columns, vocabulary=True)
    return ClassesRead(store.name, indices, indptr, columns, found)


def class_log_posterior(X: sp.csr_matrix, found: ClassCounts, alpha: float) -> NDArray[np.float64]:
    """``ln P(c | x)``, shape (n_messages, K), of the messages in binary X (n_messages,
    n_tokens) whose columns have the counts ``found.counts`` (n_tokens, K) of the ``K``
    classes ``found.classes`` (all with messages; ``found.vocabulary`` counted): the
    multi-class verdict's maths (:mod:`nbayes.spam.classes`), whether the counts come
    from a store (:func:`classify_classes`) or from memory (the cross-validation of
    :mod:`nbayes.spam.class_evaluation`).

    >>> from nbayes.spam.classes import ClassCounts
    >>> from nbayes.spam.score import token_matrix
    >>> X, _ = token_matrix([{"a"}])
    >>> found = ClassCounts(("ham", "spam"), np.array([[3, 1]]), (4, 4), (4, 4), 1)
    >>> np.exp(class_log_posterior(X, found, 1.0)).round(3).tolist()
    [[0.667, 0.333]]
    """
    if found.vocabulary is None:
        raise ValueError("class_log_posterior needs the vocabulary counted")
    return naive_bayes_log_posterior(
        X, found.counts, found.messages, found.tokens, found.vocabulary, alpha
    )
