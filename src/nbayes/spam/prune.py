"""Database maintenance, as bogofilter's ``bogoutil`` does it: drop tokens that no longer
earn their place, then compact the file.

A token's row holds its message counts per class and the day it was last learnt
(``tokens.day``). :func:`prune` deletes, in one transaction:

- with ``older_than`` and/or ``count_at_most``: the tokens last learnt more than
  ``older_than`` days ago **and** seen in at most ``count_at_most`` messages (either
  test alone where only one is given; ``count_at_most=1`` are the hapaxes, the tokens
  of a single message, most of any vocabulary and the least informative: with
  Robinson's strength ``s``, a token seen once scores close to the background);
- then, with ``max_tokens``: the least-seen tokens beyond that many (fewest messages
  first, then the oldest, then by token).

The message totals are left as they are: scores use the message counts, so a pruned
token simply scores as unseen. Then ``VACUUM`` rewrites the file without the freed pages
(it needs free disk space about the size of the database, and waits for other writers)
and the write-ahead log is truncated.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from nbayes.spam.store import TokenStore, today


@dataclass(frozen=True)
class PruneReport:
    """Tokens before and removed; the database's bytes (file and write-ahead log) before
    and after."""

    tokens: int
    removed: int
    bytes_before: int
    bytes_after: int


def prune(
    store: TokenStore,
    *,
    older_than: int | None = None,
    count_at_most: int | None = None,
    max_tokens: int | None = None,
    dry_run: bool = False,
    compact: bool = True,
) -> PruneReport:
    """Prune ``store`` (see the module docstring); ``dry_run``: count, change nothing."""
    for name, value in (("older_than", older_than), ("count_at_most", count_at_most),
                        ("max_tokens", max_tokens)):  # fmt: skip
        if value is not None and value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    before = _size(store)
    conditions, parameters = [], []
    if older_than is not None:
        conditions.append("day < ?")
        parameters.append(today() - older_than)
    if count_at_most is not None:
        conditions.append("ham + spam <= ?")
        parameters.append(count_at_most)
    with store.transaction():
        tokens = store.db.execute("SELECT COUNT(*) FROM tokens").fetchone()[0]
        removed = 0
        if conditions:
            where = " AND ".join(conditions)
            removed = store.db.execute(
                f"SELECT COUNT(*) FROM tokens WHERE {where}", parameters
            ).fetchone()[0]
            if not dry_run:
                store.db.execute(f"DELETE FROM tokens WHERE {where}", parameters)
        if max_tokens is not None and tokens - removed > max_tokens:
            extra = tokens - removed - max_tokens
            if not dry_run:
                store.db.execute(
                    "DELETE FROM tokens WHERE token IN (SELECT token FROM tokens"
                    " ORDER BY ham + spam, day, token LIMIT ?)",
                    (extra,),
                )
            removed += extra
    if compact and not dry_run:
        store.db.execute("VACUUM")
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return PruneReport(tokens, removed, before, _size(store))


def _size(store: TokenStore) -> int:
    """Bytes of the database file and its write-ahead log."""
    return sum(
        os.path.getsize(path) for path in (store.path, f"{store.path}-wal") if os.path.exists(path)
    )
