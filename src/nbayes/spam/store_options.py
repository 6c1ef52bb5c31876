"""The tokenizer options a token store was trained with, kept in the store itself.

A store is only meaningful with the tokenizer that trained it: scoring a message with
other tokens (pairs of words the store never saw, header words under other names)
would quietly lose most of the evidence. So the first training of a store records its
:class:`~nbayes.spam.tokens.TokenOptions` in a table of its own,
``settings(name TEXT PRIMARY KEY, value TEXT)``, row ``tokenizer``; every later
training, scoring and unlearning reads them from there. Stores trained before the
table existed hold messages and no such row: they were trained with
:data:`~nbayes.spam.tokens.LEGACY_OPTIONS`, and keep being read and trained with them
(the row is added at their next training). A store with neither (new, never trained)
takes the options asked for, or the defaults. The table is optional, so the schema
version is unchanged: an older nbayes still opens a store that has one.
"""

from __future__ import annotations

from nbayes.spam.store import StoreError, TokenStore
from nbayes.spam.tokens import DEFAULT_OPTIONS, LEGACY_OPTIONS, TokenOptions

_NAME = "tokenizer"


def recorded_options(store: TokenStore) -> TokenOptions | None:
    """The options the store recorded, or None if it recorded none."""
    table = store.db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'"
    ).fetchone()
    if table is None:
        return None
    row = store.db.execute("SELECT value FROM settings WHERE name = ?", (_NAME,)).fetchone()
    if row is None:
        return None
    try:
        return TokenOptions.parse(row[0])
    except ValueError:
        raise StoreError(
            f"{store.path}: trained with tokenizer options this nbayes does not know "
            f"({row[0]!r}); use the nbayes that trained it"
        ) from None


def store_options(store: TokenStore, asked: TokenOptions | None = None) -> TokenOptions:
    """The options to tokenize with for this store: those it recorded, else
    :data:`LEGACY_OPTIONS` if it holds trained messages, else ``asked`` or the defaults.
    :class:`StoreError` if ``asked`` differs from the options the store was trained with.
    """
    recorded = recorded_options(store)
    if recorded is None and sum(store.totals().messages) > 0:
        recorded = LEGACY_OPTIONS
    if recorded is None:
        return asked or DEFAULT_OPTIONS
    if asked is not None and asked != recorded:
        raise StoreError(
            f"{store.path} was trained with tokenizer options {recorded.text()}, not "
            f"{asked.text()}: train a new database to change them"
        )
    return recorded


def record_options(store: TokenStore, options: TokenOptions) -> None:
    """Record ``options`` as the store's, inside the caller's write transaction, unless it
    recorded some already."""
    store.db.execute(
        "CREATE TABLE IF NOT EXISTS settings(name TEXT PRIMARY KEY, value TEXT NOT NULL)"
    )
    store.db.execute("INSERT OR IGNORE INTO settings VALUES (?, ?)", (_NAME, options.text()))
