"""``nbayes spam``: a Bayesian spam filter over a SQLite token store.

A thin layer over :mod:`nbayes.spam`; the commands follow bogofilter's conventions
where they fit (``classify`` exits 0 for spam, 1 for ham, 2 for unsure, 3 for an error).
"""

from __future__ import annotations

import click

from nbayes.cli._lazy import LazyGroup

_COMMANDS = {
    "train": "train", "unlearn": "train", "score": "score", "classify": "score",
    "stats": "info", "dump": "info", "evaluate": "evaluate",
}  # fmt: skip


@click.group(
    cls=LazyGroup,
    lazy_commands={name: f"nbayes.cli.spam.{module}:{name}" for name, module in _COMMANDS.items()},
)
def spam() -> None:
    """Bayesian spam filter: train, score, classify, evaluate."""
