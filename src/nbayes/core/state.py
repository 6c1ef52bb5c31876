"""State an estimator keeps between calls: its running statistics and their estimate.

``_RunningStats`` holds the additive statistics and whether they may be updated in
place (copy on write once anyone else may hold them); ``_LazyFit`` holds the
parameters estimated from one state of them, computed the first time prediction
needs them; ``Fitted`` is that estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Fitted:
    """What prediction needs: the event model's parameters, ``log P(y)``, and the
    event model itself (its settings as at the last training call)."""

    params: Any
    log_prior: NDArray[np.float64]
    event: Any


@dataclass(frozen=True)
class Scoring:
    """A fitted estimator's prediction, as exporters read it (:meth:`BaseNB.scoring`):
    ``event`` the event model of the last training call, ``params`` its parameters,
    ``jll_prior`` (n_classes,) the prior term added to ``log P(x | y)`` (``log P(y)``,
    or 0 for a model that leaves the prior out) and ``log_prior`` (n_classes,)
    ``log P(y)``, which a row impossible under every class gets as its posterior."""

    event: Any
    params: Any
    jll_prior: NDArray[np.float64]
    log_prior: NDArray[np.float64]


class _LazyFit:
    """Holds the event model of the last training call and, once computed, the
    estimate it derives from one state of the statistics.

    A fresh holder replaces the old one at every training call, so the estimator's
    ``__dict__`` never changes during prediction.
    """

    __slots__ = ("elsewhere", "event", "fitted")

    def __init__(self, event: Any) -> None:
        self.event = event
        self.fitted: Fitted | None = None
        #: The same estimate in other array namespaces or devices, by their key.
        self.elsewhere: dict[Any, Fitted] = {}


class _RunningStats:
    """The estimator's running statistics and whether they may be updated in place.

    ``owner`` is the ``id`` of the estimator they belong to (a shallow copy of the
    estimator shares this holder, but is not its owner); ``shared`` turns True once
    the statistics have been handed out (read through ``BaseNB._stats``) or were given
    from outside (assigned to it), so someone else may hold them.
    """

    __slots__ = ("owner", "shared", "stats")

    def __init__(self, stats: Any, owner: int, shared: bool) -> None:
        self.stats = stats
        self.owner = owner
        self.shared = shared
