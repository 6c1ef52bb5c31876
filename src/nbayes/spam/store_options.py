"""The tokenizer options a token store was trained with, kept in the store itself.

A store is only meaningful with the tokenizer that trained it: scoring a message with
other tokens (pairs of words the store never saw, header words under other names)
would quietly lose most of the evidence. So a store records its
:class:`~nbayes.spam.tokens.TokenOptions` in a table of its own,
``settings(name TEXT PRIMARY KEY, value TEXT)``, row ``tokenizer``: the defaults when
it is created, or the options of its first training (while it holds no message, a
training may choose others); every later training, scoring and unlearning reads them
from there. Stores made before the table existed have no such row: they were trained
with :data:`~nbayes.spam.tokens.LEGACY_OPTIONS`, and keep being read and trained with
them (the row is added at their next training). The table is optional, so the schema
version is unchanged: an older nbayes still opens a store that has one.
"""

from __future__ import annotations

from nbayes.spam.tokens import DEFAULT_OPTIONS, LEGACY_OPTIONS, TokenOptions

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    from nbayes.spam.store_protocol import Store


def recorded_options(store: Store) -> TokenOptions | None:
    """The options the store recorded, or None if it recorded none."""
    return store.recorded_options()


def store_options(store: Store, asked: TokenOptions | None = None) -> TokenOptions:
    """The options to tokenize with for this store: those it recorded, or
    :data:`LEGACY_OPTIONS` for a store that predates the record; a store holding no
    message takes ``asked`` where given. :class:`StoreError` if ``asked`` differs from
    the options a store holding messages was trained with."""
    from nbayes.spam.store import trained_with_other

    recorded = store.recorded_options()
    if sum(store.totals(vocabulary=False).messages) == 0:
        return asked or recorded or DEFAULT_OPTIONS
    if recorded is None:
        recorded = LEGACY_OPTIONS
    if asked is not None and asked != recorded:
        raise trained_with_other(store.name, recorded, asked)
    return recorded


def record_options(store: Store, options: TokenOptions = DEFAULT_OPTIONS) -> None:
    """Record ``options`` as the store's, inside the caller's write transaction: in place
    of any record while the store holds no message, else only where it has none.

    :class:`StoreError` (and the caller's transaction rolls back) if the store holds
    messages trained with other options: another process that trained the new store
    first, after this one chose its options."""
    store.record_options(options)
