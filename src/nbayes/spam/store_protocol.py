"""The token store interface: what training, scoring, feedback and maintenance call of a
store, which both backends implement (:class:`nbayes.spam.store.TokenStore`, SQLite;
:class:`nbayes.spam.redis_store.RedisTokenStore`, Redis) and
:class:`nbayes.spam.users.UserStore` too. Opening one: :func:`nbayes.spam.stores.open_store`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from nbayes.spam.tokens import DEFAULT_OPTIONS, TokenOptions

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from nbayes.spam.classes import ClassCounts, Message
    from nbayes.spam.store import Totals

__all__ = ["Store"]


@runtime_checkable
class Store(Protocol):
    """What the spam filter needs of a token store.

    Writes happen inside :meth:`transaction` and are applied all together or not at all
    (a SQLite write transaction; a Redis server-side script run at the end of the
    block). Reads inside a transaction see the committed state; those whose results
    decide the writes (:meth:`trained_as`, :meth:`check_trained`) are checked again
    when the writes are applied, so no other writer can slip in between. The
    ``read_*`` methods read counts and totals from one committed state.
    """

    #: How error messages name the store (a path, a URL without its password).
    name: str
    readonly: bool
    #: The store's format version.
    version: int

    def close(self) -> None: ...
    def __enter__(self) -> Store: ...
    def __exit__(self, *exc: object) -> None: ...

    # writing
    def transaction(self) -> AbstractContextManager[None]: ...
    def changes(self, batch: Sequence[Message], sign: int = 1) -> Any:
        """The writes of :meth:`add` for ``batch``, prepared without touching the store."""
    def apply(self, changes: Any) -> None:
        """Apply :meth:`changes`' result inside the caller's transaction."""
    def add(self, batch: Sequence[Message], sign: int = 1) -> None: ...
    def learn(self, batch: Sequence[Message]) -> int: ...
    def unlearn(self, batch: Sequence[Message]) -> int: ...
    def check_trained(self, batch: Sequence[Message]) -> None: ...
    def remove_empty(self) -> None: ...
    def trained_as(self, raw: bytes) -> tuple[int, int]: ...
    def forget(self, tokens: AbstractSet[str], raw: bytes, label: str) -> None: ...
    def recorded_options(self) -> TokenOptions | None: ...
    def record_options(self, options: TokenOptions = DEFAULT_OPTIONS) -> None: ...

    # reading
    def snapshot(self) -> AbstractContextManager[None]: ...
    def totals(self, vocabulary: bool = True) -> Totals: ...
    def counts(self, tokens: Iterable[str]) -> dict[str, tuple[int, int]]: ...
    def lookup(self, tokens: Sequence[str]) -> NDArray[np.int64]: ...
    def all_counts(self) -> tuple[list[str], NDArray[np.int64]]: ...
    def read_lookup(
        self, tokens: Sequence[str], *, vocabulary: bool = True
    ) -> tuple[NDArray[np.int64], Totals]: ...
    def read_counts(
        self, tokens: Iterable[str], *, vocabulary: bool = False
    ) -> tuple[dict[str, tuple[int, int]], Totals]: ...
    def read_all(self) -> tuple[list[str], NDArray[np.int64], Totals]: ...

    # more than two classes (nbayes.spam.classes)
    def class_totals(self) -> dict[str, tuple[int, int]]:
        """``{class: (messages, token-set size sum)}`` of the classes other than ham and
        spam that hold messages."""
    def read_classes(self, tokens: Sequence[str], *, vocabulary: bool = True) -> ClassCounts:
        """Every class's counts of the distinct ``tokens``, with the totals, in one state."""
    def read_all_classes(self) -> tuple[list[str], ClassCounts]:
        """:meth:`class_vocabulary` and :meth:`read_classes` of it, in one state."""
    def class_vocabulary(self) -> list[str]:
        """Every token of every class, sorted."""
    def prune_classes(
        self, *, before_day: int | None, count_at_most: int | None, dry_run: bool
    ) -> tuple[int, int]: ...  # fmt: skip

    # maintenance
    def prune_tokens(
        self, *, before_day: int | None, count_at_most: int | None, max_tokens: int | None,
        dry_run: bool,
    ) -> tuple[int, int]: ...  # fmt: skip
    def compact(self) -> None: ...
    def size_bytes(self) -> int: ...
