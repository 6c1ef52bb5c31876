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

Classes other than ham and spam (:mod:`nbayes.spam.classes`) keep a count per class and
token: ``older_than`` and ``count_at_most`` remove those counts by the same tests, each
judged by its own class's count and day (a second transaction); ``max_tokens`` bounds
the ham and spam tokens only. A Redis store (:mod:`nbayes.spam.redis_store`)
chooses the same tokens from one read of them all, deletes each only if no trainer has
touched it since, and has nothing to compact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from nbayes.spam.store import today

if TYPE_CHECKING:
    from nbayes.spam.store_protocol import Store


@dataclass(frozen=True)
class PruneReport:
    """Tokens before and removed; the store's bytes (SQLite: the file and its write-ahead
    log; Redis: the memory its keys take) before and after."""

    tokens: int
    removed: int
    bytes_before: int
    bytes_after: int
    #: (class, token) counts of the classes other than ham and spam, before and removed.
    class_rows: int = 0
    class_removed: int = 0


def prune(
    store: Store,
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
    before = store.size_bytes()
    before_day = None if older_than is None else today() - older_than
    tokens, removed = store.prune_tokens(
        before_day=before_day, count_at_most=count_at_most, max_tokens=max_tokens,
        dry_run=dry_run,
    )  # fmt: skip
    class_rows, class_removed = store.prune_classes(
        before_day=before_day, count_at_most=count_at_most, dry_run=dry_run
    )
    if compact and not dry_run:
        store.compact()
    return PruneReport(tokens, removed, before, store.size_bytes(), class_rows, class_removed)
