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

if TYPE_CHECKING:
    import scipy.sparse as sp
    from numpy.typing import NDArray

    from nbayes.spam.classes import ClassCounts
    from nbayes.spam.store_protocol import Store

__all__ = ["ClassVerdict", "NothingLearntError", "class_log_posterior", "classify_classes"]


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
    # Each message's tokens in sorted order, not the set's (which follows the process's
    # string hash seed): the log-likelihood sums then add the same terms in the same
    # order in every process, so the probabilities are the same to the last bit.
    indices, indptr, columns = token_index([sorted(tokens) for tokens in token_sets])
    found = store.read_classes(columns, vocabulary=True)
    if not found.classes:
        raise NothingLearntError(
            f"{store.name}: no message learnt yet, nothing to classify against"
        )
    log_post = class_log_posterior(_binary_csr(indices, indptr, len(columns)), found, alpha)
    proba = np.exp(log_post)
    best = np.argmax(log_post, axis=1)
    return [
        ClassVerdict(
            found.classes[best[i]],
            dict(zip(found.classes, proba[i].tolist(), strict=True)),
            dict(zip(found.classes, log_post[i].tolist(), strict=True)),
        )
        for i in range(len(token_sets))
    ]


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
