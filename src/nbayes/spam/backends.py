"""Opening one token store by backend: a SQLite file or a Redis key prefix (the
interface they share: :class:`nbayes.spam.stores.Store`)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    from pathlib import Path

    from nbayes.spam.store_protocol import Store


def open_shared(
    db: str | Path | None,
    *,
    redis: str | None = None,
    prefix: str | None = None,
    timeout: float | None = None,
    create: bool = False,
    readonly: bool = False,
) -> Store:
    """One store: the SQLite file ``db`` or the Redis store at ``redis`` (under the key
    prefix ``prefix``, the shared statistics' where None)."""
    from nbayes.spam.store import DEFAULT_TIMEOUT

    timeout = DEFAULT_TIMEOUT if timeout is None else timeout
    if redis is not None:
        from nbayes.spam.redis_store import SHARED_PREFIX, RedisTokenStore

        return RedisTokenStore(
            redis, prefix=prefix or SHARED_PREFIX, timeout=timeout, create=create,
            readonly=readonly,
        )  # fmt: skip
    from nbayes.spam.store import TokenStore

    return TokenStore(db, timeout=timeout, create=create, readonly=readonly)
