"""Opening a token store by where it lives; the interface it opens
(:class:`Store`, defined in :mod:`nbayes.spam.store_protocol`, which backends and
users import without importing this opener).

Training, scoring, feedback and maintenance call only :class:`Store`, which two
backends implement:

- :class:`nbayes.spam.store.TokenStore`: a SQLite file (one machine);
- :class:`nbayes.spam.redis_store.RedisTokenStore`: a Redis database, which several
  mail servers share (``pip install 'nbayes[redis]'``).

Both keep the same statistics (per token: the ham and spam messages holding it and the
day it was last learnt; per class: messages and token-set sizes; per trained message:
its SHA-256 and how often it was learnt as each class) and the same metadata (format
version, tokenizer options), so the same mail and options give the same counts, and so
scores equal bit for bit, whichever backend holds them.

:func:`open_store` opens either from a path or a ``redis://`` URL, for the shared
statistics or for one user's (:mod:`nbayes.spam.users`)::

    with open_store(redis="redis://127.0.0.1:6379/0") as store:
        train(store, interleave(iter_mail(["spam/"]), iter_mail(["ham/"])))
"""

from __future__ import annotations

import os

from nbayes.core.lazy import lazy_exports
from nbayes.spam.database import StoreError

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    from pathlib import Path

    from nbayes.spam.store_protocol import Store

__all__ = ["Store", "StoreError", "default_db", "open_store"]

# ``Store`` imported on first use: its module imports ``typing`` (``Protocol``), which
# the one-shot ``nbayes spam classify`` does without.
lazy_exports(__name__, {"Store": "nbayes.spam.store_protocol"})


def default_db() -> Path:
    """``$XDG_DATA_HOME/nbayes/spam.db``, or ``~/.local/share/nbayes/spam.db`` where that
    variable is unset, empty or not an absolute path (the XDG base directory rules)."""
    from pathlib import Path

    return Path(default_db_path())


def default_db_path() -> str:
    """:func:`default_db` as a string, for the one-shot ``nbayes spam classify``, which
    does without importing :mod:`pathlib`."""
    base = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "nbayes", "spam.db")


def open_store(
    db: str | Path | None = None,
    *,
    redis: str | None = None,
    user: str | None = None,
    timeout: float | None = None,
    create: bool = False,
    readonly: bool = False,
) -> Store:
    """The store at the SQLite path ``db`` or the Redis URL ``redis`` (exactly one);
    with ``user``, that user's statistics combined with the shared ones
    (:class:`nbayes.spam.users.UserStore`). ``timeout``: seconds to wait for a lock
    (SQLite) or the server (Redis). :class:`StoreError` if it cannot be used.

    >>> open_store()
    Traceback (most recent call last):
    ...
    nbayes.spam.database.StoreError: give a token database path or a Redis URL
    """
    if (db is None) == (redis is None):
        raise StoreError(
            "give a token database path or a Redis URL"
            if db is None
            else "give a token database path or a Redis URL, not both"
        )
    if user is not None:
        from nbayes.spam.users import open_user_store

        return open_user_store(
            user, db=db, redis=redis, timeout=timeout, create=create, readonly=readonly
        )
    from nbayes.spam.backends import open_shared

    return open_shared(db, redis=redis, timeout=timeout, create=create, readonly=readonly)
