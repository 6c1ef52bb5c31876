"""Learning one message from a verdict or a user's correction: spamd's TELL
(``spamc -L spam|ham|forget``) and ``classify -u``.

Each message is known by the SHA-256 of its bytes (the store's ``trained`` table), so
feedback is idempotent: learning a message already learnt as that label changes
nothing, learning it as the other label moves it (unlearnt there first), and forgetting
it unlearns it once. One transaction each; only the message's own tokens are visited,
so a correction costs the same on a database of any size.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from nbayes.spam.store import LABELS, TokenStore, digest


def tell(
    store: TokenStore, tokens: AbstractSet[str], raw: bytes, label: str | None, learn: bool
) -> bool:
    """Learn (``learn``) or forget the message ``raw`` with token set ``tokens``; whether
    the store changed. ``label`` is ``"spam"``, ``"ham"`` or, for forgetting only, None
    (whichever label it was learnt as, spam first)."""
    if label not in (*LABELS, None) or (learn and label is None):
        raise ValueError(f"label must be 'ham' or 'spam' (or None to forget), got {label!r}")
    with store.transaction():
        trained = dict(zip(LABELS, store.trained_as(raw), strict=True))
        if learn:
            if trained[label]:
                return False
            other = "spam" if label == "ham" else "ham"
            if trained[other]:
                _forget(store, tokens, raw, other)
            store.add([(tokens, raw, label)])
            return True
        for candidate in [label] if label else ["spam", "ham"]:
            if trained[candidate]:
                _forget(store, tokens, raw, candidate)
                return True
        return False


def _forget(store: TokenStore, tokens: AbstractSet[str], raw: bytes, label: str) -> None:
    """Unlearn one message learnt as ``label`` (inside a transaction), deleting the rows
    of its tokens and its digest that fall to zero."""
    store.add([(tokens, raw, label)], sign=-1)
    store.db.executemany(
        "DELETE FROM tokens WHERE token = ? AND ham = 0 AND spam = 0", [(t,) for t in tokens]
    )
    store.db.execute(
        "DELETE FROM trained WHERE ham = 0 AND spam = 0 AND digest = ?", (digest(raw),)
    )
