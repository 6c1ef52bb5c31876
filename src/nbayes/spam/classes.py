"""More than two classes: mail learnt under any class name (``newsletter``, ``phishing``
...) beside spam and ham, and a verdict naming the most probable class.

Where the counts live. The two classes of the Fisher/Robinson filter keep their
layout (:mod:`nbayes.spam.store`, :mod:`nbayes.spam.redis_store`): ham and spam counts
per token, ham and spam columns per trained digest. Every other class ("extra" class)
is kept beside them, in tables (SQLite) or keys (Redis) of its own, made by its first
training:

- SQLite: ``class_tokens(token, label, count, day)`` (messages of class ``label``
  holding ``token``; day last learnt), ``class_trained(digest, label, count)``, and a
  row of ``totals`` per class (messages, token-set sizes), beside ham's and spam's;
- Redis: hashes ``{prefix}:classes`` (label -> ``"MESSAGES TOKENS"``),
  ``{prefix}:class_tokens`` (``LABEL:TOKEN`` -> ``"COUNT DAY"``) and
  ``{prefix}:class_trained`` (``LABEL:DIGEST`` -> count).

So a store that only ever learnt spam and ham is exactly what it was, byte for byte
(its schema/format version unchanged), and the two-class scores (Fisher, Graham, the
two-class naive Bayes) of any store read only its ham and spam counts, whatever other
classes it holds. An older nbayes opening a store with extra classes sees its two-class
part only (the added tables and keys are unknown to it and left alone).

The verdict (:func:`nbayes.spam.verdicts.classify_classes`): multinomial naive Bayes
over the classes holding at least one message, on each message's token set (binary features, as the
two-class ``naive-bayes`` method), with the store's Laplace smoothing ``alpha`` over
its whole vocabulary ``V`` (the distinct tokens of every class; the stores keep the
part only the extra classes hold as a running count, so it is read, not counted):

    log P(c | x) = log P(c) + sum_{w in x, w known} log theta_cw + (rest) - log Z(x)

``theta_cw = (n_c(w) + alpha) / (N_c. + V alpha)``, ``P(c) = (N_c + alpha) /
(N + K alpha)``, normalised by log-sum-exp in :mod:`nbayes.core.posterior` (see
:func:`nbayes.spam.score.naive_bayes_log_posterior`, which the two-class
``naive-bayes`` method shares).

Class names are untrusted input (they name SQL rows and Redis hash fields and are
printed in headers): :func:`check_class` allows 1 to :data:`MAX_CLASS_LENGTH` of
lower-case ASCII letters, digits, ``_`` and ``-``, starting with a letter, and not
``unsure`` (the two-class verdict that is no class).
"""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet

from nbayes.spam._numpy import np

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    from numpy.typing import NDArray

#: One message to learn: its token set, its raw bytes (for the digest) and its label
#: (defined here, below the store, which takes it from here).
Message = tuple[AbstractSet[str], bytes, str]

#: The classes of the Fisher/Robinson filter, in the order of their count columns.
TWO_CLASSES = ("ham", "spam")
#: The longest class name.
MAX_CLASS_LENGTH = 32
#: Names that are no class: the two-class filter's verdict between ham and spam.
RESERVED_NAMES = frozenset({"unsure"})
_CLASS = re.compile(r"[a-z][a-z0-9_-]*")

__all__ = [
    "MAX_CLASS_LENGTH",
    "TWO_CLASSES",
    "ClassCounts",
    "check_class",
    "class_order",
    "gather_classes",
    "split_classes",
    "sum_classes",
]


def check_class(name: object) -> str:
    """``name`` if it can name a class, else ValueError saying what a name may hold.

    >>> check_class("newsletter")
    'newsletter'
    >>> check_class("News Letter")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: class name 'News Letter': use 1 to 32 lower-case letters, digits, _ and -...
    """
    if (
        isinstance(name, str)
        and 0 < len(name) <= MAX_CLASS_LENGTH
        and _CLASS.fullmatch(name)
        and name not in RESERVED_NAMES
    ):
        return name
    shown = repr(name[:80] if isinstance(name, str) else name)
    raise ValueError(
        f"class name {shown}: use 1 to {MAX_CLASS_LENGTH} lower-case letters, digits, _ and -,"
        f" starting with a letter (not {', '.join(sorted(RESERVED_NAMES))})"
    )


def checked_class_totals(totals: Mapping[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    """``totals`` (``{class: (messages, tokens)}`` as a store holds them), each class
    name and count checked: a store holds only names :func:`check_class` lets through
    and counts of at least 0, unless it was written by something else. Such a name
    (``"evil\\nX-Injected: yes"``) would be printed as a line of its own and written
    into the verdict header of mail passed on: :class:`~nbayes.spam.database.StoreError`
    instead, naming it.

    >>> checked_class_totals({"news": (2, 9)})
    {'news': (2, 9)}
    """
    from nbayes.spam.database import StoreError

    for name, (messages, tokens) in totals.items():
        try:
            check_class(name)
        except ValueError as error:
            raise StoreError(f"the database holds a class nbayes never writes: {error}") from None
        if not (isinstance(messages, int) and isinstance(tokens, int)) or min(messages, tokens) < 0:
            raise StoreError(
                f"the database's totals of class {name!r} are not counts: {messages}, {tokens}"
            )
    return dict(totals)


def class_order(labels: Iterable[str]) -> tuple[str, ...]:
    """The order classes are reported in: ham, spam (where present), then the others by
    name.

    >>> class_order(["phishing", "spam", "ham", "newsletter"])
    ('ham', 'spam', 'newsletter', 'phishing')
    """
    labels = set(labels)
    return tuple(c for c in TWO_CLASSES if c in labels) + tuple(
        sorted(labels.difference(TWO_CLASSES))
    )


def split_classes(
    batch: Sequence[Message],
) -> tuple[list[Message], dict[str, list[tuple[AbstractSet[str], bytes]]]]:
    """``batch`` as its ham and spam messages (in order) and the others' (token set,
    raw) by class name (checked: ValueError for a name :func:`check_class` refuses)."""
    two, extra = [], {}
    for message in batch:
        label = message[2]
        if label in TWO_CLASSES:
            two.append(message)
        else:
            extra.setdefault(check_class(label), []).append((message[0], message[1]))
    return two, extra


class ClassCounts(
    namedtuple("ClassCounts", ("classes", "counts", "messages", "tokens", "vocabulary"))
):
    """What a store holds of every class, for some tokens.

    classes : the class names, in :func:`class_order` (only classes with messages);
    counts : int64 (n_tokens, n_classes), messages of each class holding each token;
    messages, tokens : per class, messages and the sum of their token-set sizes;
    vocabulary : distinct tokens over all classes (None where not asked for).
    """

    __slots__ = ()
    classes: tuple[str, ...]
    counts: NDArray[np.int64]
    messages: tuple[int, ...]
    tokens: tuple[int, ...]
    vocabulary: int | None


def gather_classes(
    two_counts: NDArray[np.int64],
    two_totals: tuple[tuple[int, int], tuple[int, int]],
    extra_totals: Mapping[str, tuple[int, int]],
    extra_counts: Mapping[str, NDArray[np.int64]],
    vocabulary: int | None,
) -> ClassCounts:
    """A :class:`ClassCounts` from a backend's reads: the ham/spam counts (n_tokens, 2)
    and totals ((ham, spam) messages, (ham, spam) tokens), each extra class's totals
    (messages, tokens) and counts (n_tokens,); classes without messages are left out."""
    (ham_m, spam_m), (ham_t, spam_t) = two_totals
    totals = {"ham": (ham_m, ham_t), "spam": (spam_m, spam_t), **checked_class_totals(extra_totals)}
    columns = {"ham": two_counts[:, 0], "spam": two_counts[:, 1]}
    classes = class_order(c for c, (m, _) in totals.items() if m > 0)
    n = two_counts.shape[0]
    table = np.zeros((n, len(classes)), dtype=np.int64)
    for j, name in enumerate(classes):
        column = columns.get(name, extra_counts.get(name))
        if column is not None:
            table[:, j] = column
    return ClassCounts(
        classes,
        table,
        tuple(totals[c][0] for c in classes),
        tuple(totals[c][1] for c in classes),
        vocabulary,
    )


def sum_classes(a: ClassCounts, b: ClassCounts, vocabulary: int | None) -> ClassCounts:
    """The counts of two stores for the same tokens added class by class (a class one
    of them lacks counts 0 there), over the union of their classes; ``vocabulary``: that
    of the union (the caller's to count)."""
    classes = class_order(set(a.classes) | set(b.classes))
    table = np.zeros((a.counts.shape[0], len(classes)), dtype=np.int64)
    messages, tokens = [0] * len(classes), [0] * len(classes)
    for part in (a, b):
        for j, name in enumerate(part.classes):
            k = classes.index(name)
            table[:, k] += part.counts[:, j]
            messages[k] += part.messages[j]
            tokens[k] += part.tokens[j]
    return ClassCounts(classes, table, tuple(messages), tuple(tokens), vocabulary)
