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
from typing import TYPE_CHECKING

from nbayes.spam.store import LABELS
from nbayes.spam.store_options import record_options
from nbayes.spam.tokens import TokenOptions

if TYPE_CHECKING:
    from nbayes.spam.store_protocol import Store


def tell(
    store: Store,
    tokens: AbstractSet[str],
    raw: bytes,
    label: str | None,
    learn: bool,
    options: TokenOptions | None = None,
) -> bool:
    """Learn (``learn``) or forget the message ``raw`` with token set ``tokens``; whether
    the store changed. ``label`` is ``"spam"``, ``"ham"`` or, for forgetting only, None
    (whichever label it was learnt as, spam first). ``options``: the tokenizer options
    ``tokens`` were made with (:func:`nbayes.spam.store_options.store_options` of the
    store), recorded in the store when it learns its first message this way."""
    if label not in (*LABELS, None) or (learn and label is None):
        raise ValueError(f"label must be 'ham' or 'spam' (or None to forget), got {label!r}")
    with store.transaction():
        trained = dict(zip(LABELS, store.trained_as(raw), strict=True))
        if learn:
            if trained[label]:
                return False
            other = "spam" if label == "ham" else "ham"
            if trained[other]:
                store.forget(tokens, raw, other)
            if options is not None:
                record_options(store, options)
            store.add([(tokens, raw, label)])
            return True
        for candidate in [label] if label else ["spam", "ham"]:
            if trained[candidate]:
                store.forget(tokens, raw, candidate)
                return True
        return False

