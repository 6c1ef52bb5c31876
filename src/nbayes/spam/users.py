"""Per-user statistics: each user's counts kept apart from the shared ones, and how the
two are combined when the user's mail is scored.

Where a user's counts live:

- SQLite: one file per user, ``<db>.users/<NAME>.db`` beside the shared database
  ``<db>`` (the folder made private to its owner);
- Redis: the same database, keys under the prefix ``nbayes:user:<NAME>``
  (:mod:`nbayes.spam.redis_store`).

Learning for a user (``train --user``, ``classify -u --user``, ``spamc -u NAME -L``)
changes only that user's counts; the shared store is only ever read.

Scoring a user's mail (the combining rule):

- while the user's own store is **thin**, holding fewer than :data:`USER_MATURITY`
  (50) messages of either class, the counts scored are the **sum** of the user's and
  the shared counts, token by token, and so are the totals: exactly the counts the
  shared store would hold had the user's messages been trained into it too. A new user
  gets the shared filter at once, and every correction they make counts on top of it;
- once the user's store holds at least 50 messages of each class, the user's counts
  are scored **alone**: their filter now stands by its own scores (50 is where a
  store's scores stop being tempered, :attr:`~nbayes.spam.score.ScoreSettings.maturity`),
  and a user whose mail differs from everyone else's (the newsletter they want, the
  supplier others mark as spam) is no longer outvoted by the other users' counts.

The multi-class verdict (:mod:`nbayes.spam.classes`) follows the same rule: summed
class by class over the classes of both stores, and over the union of their
vocabularies, until the user's store holds 50 ham and 50 spam; then the user's alone.

Summing rather than choosing token by token keeps every token's probability made from
one set of counts and its own totals (``b(w) = n_spam(w) / N_spam`` with matching
numerator and denominator), so scores stay what the maths of :mod:`nbayes.spam.score`
says they are. Each of the two stores is read in one consistent state.

A user's store records the shared store's tokenizer options (tokens must mean the
same in both to be added). User names are checked against an allow-list
(:func:`check_user`): they become file names and key prefixes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nbayes.spam.database import StoreError
from nbayes.spam.store import NoStoreError, Totals
from nbayes.spam.tokens import DEFAULT_OPTIONS, TokenOptions

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from nbayes.spam.classes import ClassCounts, Message
    from nbayes.spam.store_protocol import Store

#: Messages of each class from which a user's own counts are scored alone.
USER_MATURITY = 50
#: The longest user name.
MAX_USER_LENGTH = 64
_USER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@+-]*")


def check_user(name: str) -> str:
    """``name`` if it is a user name: 1 to 64 of letters, digits and ``_ . @ + -``, not
    starting with ``.``, ``-``, ``+`` or ``@`` and holding no ``..`` (so never a path,
    a hidden file or an option); ValueError naming the problem.

    >>> check_user("alice@example.org")
    'alice@example.org'
    >>> check_user("../x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: user name '../x': use 1 to 64 letters, digits and _ . @ + - ...
    """
    if not (
        isinstance(name, str)
        and 0 < len(name) <= MAX_USER_LENGTH
        and _USER.fullmatch(name)
        and ".." not in name
    ):
        shown = repr(name[:80] if isinstance(name, str) else name)
        raise ValueError(
            f"user name {shown}: use 1 to {MAX_USER_LENGTH} letters, digits and _ . @ + -"
            " (not starting with . - + @, no '..')"
        )
    return name


def user_db(db: str | Path, user: str) -> Path:
    """The SQLite file of ``user``'s counts beside the shared database ``db``.

    >>> user_db("/var/lib/nbayes/spam.db", "alice").as_posix()
    '/var/lib/nbayes/spam.db.users/alice.db'
    """
    db = Path(db)
    return db.parent / f"{db.name}.users" / f"{check_user(user)}.db"


def user_prefix(user: str) -> str:
    """The Redis key prefix of ``user``'s counts."""
    from nbayes.spam.redis_store import SHARED_PREFIX

    return f"{SHARED_PREFIX}:user:{check_user(user)}"


def open_user_store(
    user: str,
    *,
    db: str | Path | None = None,
    redis: str | None = None,
    timeout: float | None = None,
    create: bool = False,
    readonly: bool = False,
    maturity: int = USER_MATURITY,
) -> UserStore:
    """``user``'s store (created where ``create``) over the shared one at ``db`` or
    ``redis``, which is opened read-only and may be missing; a store missing for reading
    is left out. :class:`StoreError` where neither exists."""
    from nbayes.spam.backends import open_shared

    check_user(user)
    shared = _open_or_none(lambda: open_shared(db, redis=redis, timeout=timeout, readonly=True))
    try:
        if redis is not None:
            where: dict[str, Any] = {"redis": redis, "prefix": user_prefix(user)}
            own_db = None
        else:
            own_db = user_db(db, user)
            where = {}
            if create and not readonly:
                own_db.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        own = _open_or_none(
            lambda: open_shared(
                own_db, **where, timeout=timeout, create=create, readonly=readonly
            )
        )
        if own is None and shared is None:
            shown = own_db if own_db is not None else f"{redis} ({where['prefix']})"
            raise NoStoreError(f"no token store for user {user} at {shown}, and no shared one")
        if own is not None and shared is not None:
            _check_same_options(own, shared)
        return UserStore(own, shared, user, maturity)
    except BaseException:
        if shared is not None:
            shared.close()
        raise


def _open_or_none(opener) -> Store | None:
    try:
        return opener()
    except NoStoreError:
        return None


def _check_same_options(own: Store, shared: Store) -> None:
    from nbayes.spam.store_options import store_options

    theirs = store_options(shared)
    if sum(own.totals(vocabulary=False).messages) == 0:
        return  # its first training records the shared options (recorded_options below)
    mine = store_options(own)
    if mine != theirs:
        raise StoreError(
            f"{own.name} was trained with tokenizer options {mine.text()}, the shared"
            f" store {shared.name} with {theirs.text()}: their counts cannot be combined"
        )


class UserStore:
    """One user's store (``own``, None where it does not exist yet and is only read)
    over the shared one (``shared``, read-only, None where missing), combined as the
    module docstring says. Writes go to ``own``. Implements
    :class:`nbayes.spam.stores.Store`."""

    def __init__(
        self, own: Store | None, shared: Store | None, user: str, maturity: int = USER_MATURITY
    ) -> None:
        self.own, self.shared, self.user, self.maturity = own, shared, user, maturity
        either = own if own is not None else shared
        self.name = either.name
        self.readonly = own is None or own.readonly
        self.version = either.version

    def close(self) -> None:
        for store in (self.own, self.shared):
            if store is not None:
                store.close()

    def __enter__(self) -> UserStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ writing: the user's
    def _writable(self) -> Store:
        if self.own is None:
            raise NoStoreError(f"no token store for user {self.user}: nothing learnt for them")
        if self.own.readonly:
            raise StoreError(f"{self.own.name}: opened read-only")
        return self.own

    def transaction(self):
        return self._writable().transaction()

    def changes(self, batch: Sequence[Message], sign: int = 1) -> Any:
        return self._writable().changes(batch, sign)

    def apply(self, changes: Any) -> None:
        self._writable().apply(changes)

    def add(self, batch: Sequence[Message], sign: int = 1) -> None:
        self._writable().add(batch, sign)

    def learn(self, batch: Sequence[Message]) -> int:
        return self._writable().learn(batch)

    def unlearn(self, batch: Sequence[Message]) -> int:
        return self._writable().unlearn(batch)

    def check_trained(self, batch: Sequence[Message]) -> None:
        self._writable().check_trained(batch)

    def remove_empty(self) -> None:
        self._writable().remove_empty()

    def trained_as(self, raw: bytes) -> tuple[int, int]:
        """How often the user learnt ``raw`` as (ham, spam) (feedback is the user's)."""
        return (0, 0) if self.own is None else self.own.trained_as(raw)

    def forget(self, tokens: AbstractSet[str], raw: bytes, label: str) -> None:
        self._writable().forget(tokens, raw, label)

    def recorded_options(self) -> TokenOptions | None:
        """The shared store's options where it has messages (the user's must match),
        else the user's own."""
        from nbayes.spam.store_options import store_options

        if self.shared is not None and sum(self.shared.totals(vocabulary=False).messages):
            return store_options(self.shared)
        return None if self.own is None else self.own.recorded_options()

    def record_options(self, options: TokenOptions = DEFAULT_OPTIONS) -> None:
        self._writable().record_options(options)

    # ------------------------------------------------------------ reading: combined
    def _mature(self, totals: Totals) -> bool:
        return min(totals.messages) >= self.maturity

    def snapshot(self):
        """Nothing: each ``read_*`` reads each store in one consistent state."""
        return nullcontext()

    def read_lookup(
        self, tokens: Sequence[str], *, vocabulary: bool = True
    ) -> tuple[NDArray[np.int64], Totals]:
        if self.own is None:
            return self.shared.read_lookup(tokens, vocabulary=vocabulary)
        counts, totals = self.own.read_lookup(tokens, vocabulary=vocabulary)
        if self.shared is None or self._mature(totals):
            return counts, totals
        theirs, their_totals = self.shared.read_lookup(tokens, vocabulary=False)
        return counts + theirs, self._sum(totals, their_totals, vocabulary)

    def read_counts(
        self, tokens: Iterable[str], *, vocabulary: bool = False
    ) -> tuple[dict[str, tuple[int, int]], Totals]:
        if self.own is None:
            return self.shared.read_counts(tokens, vocabulary=vocabulary)
        tokens = list(tokens)
        counts, totals = self.own.read_counts(tokens, vocabulary=vocabulary)
        if self.shared is None or self._mature(totals):
            return counts, totals
        theirs, their_totals = self.shared.read_counts(tokens, vocabulary=False)
        for token, (ham, spam) in theirs.items():
            mine = counts.get(token, (0, 0))
            counts[token] = (mine[0] + ham, mine[1] + spam)
        return counts, self._sum(totals, their_totals, vocabulary)

    def read_all(self) -> tuple[list[str], NDArray[np.int64], Totals]:
        import numpy as np

        if self.own is None:
            return self.shared.read_all()
        tokens, counts, totals = self.own.read_all()
        if self.shared is None or self._mature(totals):
            return tokens, counts, totals
        their_tokens, theirs, their_totals = self.shared.read_all()
        merged: dict[str, Any] = dict(zip(their_tokens, theirs.tolist(), strict=True))
        for token, (ham, spam) in zip(tokens, counts.tolist(), strict=True):
            old = merged.get(token, (0, 0))
            merged[token] = (old[0] + ham, old[1] + spam)
        names = sorted(merged)
        table = np.array([merged[t] for t in names], dtype=np.int64).reshape(-1, 2)
        total = Totals(
            _add(totals.messages, their_totals.messages),
            _add(totals.tokens, their_totals.tokens),
            len(names),
        )
        return names, table, total

    def _sum(self, mine: Totals, theirs: Totals, vocabulary: bool) -> Totals:
        size = None
        if vocabulary:  # the union of both vocabularies: the user's tokens the shared lacks
            own_tokens = self.own.read_all()[0]
            seen = self.shared.read_lookup(own_tokens, vocabulary=True)
            size = seen[1].vocabulary + int((seen[0].sum(axis=1) == 0).sum())
        return Totals(_add(mine.messages, theirs.messages), _add(mine.tokens, theirs.tokens), size)

    def totals(self, vocabulary: bool = True) -> Totals:
        return self.read_lookup([], vocabulary=vocabulary)[1]

    def counts(self, tokens: Iterable[str]) -> dict[str, tuple[int, int]]:
        return self.read_counts(tokens)[0]

    def lookup(self, tokens: Sequence[str]) -> NDArray[np.int64]:
        return self.read_lookup(tokens, vocabulary=False)[0]

    def all_counts(self) -> tuple[list[str], NDArray[np.int64]]:
        tokens, counts, _ = self.read_all()
        return tokens, counts

    # ------------------------------------------------------------ more classes
    def class_totals(self) -> dict[str, tuple[int, int]]:
        """The user's own classes where their store exists, else the shared store's."""
        return (self.own if self.own is not None else self.shared).class_totals()

    def read_classes(self, tokens: Sequence[str], *, vocabulary: bool = True) -> ClassCounts:
        """Every class's counts combined by the rule of the module docstring: the user's
        alone once they hold :attr:`maturity` ham and spam messages each, else the sum of
        theirs and the shared ones, class by class (the union of both stores' classes and
        of their vocabularies)."""
        from nbayes.spam.classes import sum_classes

        if self.own is None:
            return self.shared.read_classes(tokens, vocabulary=vocabulary)
        if self.shared is None or self._mature(self.own.totals(vocabulary=False)):
            return self.own.read_classes(tokens, vocabulary=vocabulary)
        mine = self.own.read_classes(tokens, vocabulary=False)
        theirs = self.shared.read_classes(tokens, vocabulary=False)
        size = None
        if vocabulary:  # the union of both vocabularies: the user's tokens the shared lacks
            seen = self.shared.read_classes(self.own.class_vocabulary(), vocabulary=True)
            size = seen.vocabulary + int((seen.counts.sum(axis=1) == 0).sum())
        return sum_classes(mine, theirs, size)

    def read_all_classes(self) -> tuple[list[str], ClassCounts]:
        """:meth:`class_vocabulary` and :meth:`read_classes` of it (the rule of the module
        docstring)."""
        tokens = self.class_vocabulary()
        return tokens, self.read_classes(tokens)

    def class_vocabulary(self) -> list[str]:
        if self.own is None:
            return self.shared.class_vocabulary()
        mine = self.own.class_vocabulary()
        if self.shared is None or self._mature(self.own.totals(vocabulary=False)):
            return mine
        return sorted(set(mine).union(self.shared.class_vocabulary()))

    def prune_classes(self, **how: Any) -> tuple[int, int]:
        return self._writable().prune_classes(**how)

    # ------------------------------------------------------------ maintenance: the user's
    def prune_tokens(self, **how: Any) -> tuple[int, int]:
        return self._writable().prune_tokens(**how)

    def compact(self) -> None:
        self._writable().compact()

    def size_bytes(self) -> int:
        return 0 if self.own is None else self.own.size_bytes()


def _add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return a[0] + b[0], a[1] + b[1]
