"""``nbayes spam``: a Bayesian spam filter over a SQLite token store.

A thin layer over :mod:`nbayes.spam`; the commands follow bogofilter's conventions
where they fit (``classify`` exits 0 for spam, 1 for ham, 2 for unsure, 3 for an error).
A database that cannot be used (missing, locked, full, read-only, corrupt, not a token
store) is one line on stderr and exit status 3 for every command, never a traceback.
"""

from __future__ import annotations

import click

from nbayes.cli._lazy import LazyGroup
from nbayes.spam.database import StoreError

EXIT_ERROR = 3
_COMMANDS = {
    "train": "train", "unlearn": "train", "score": "score", "classify": "classify",
    "stats": "info", "dump": "info", "evaluate": "evaluate", "serve": "serve", "prune": "prune",
}  # fmt: skip


class _SpamGroup(LazyGroup):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except StoreError as error:
            click.echo(f"nbayes: {error}", err=True)
            ctx.exit(EXIT_ERROR)


@click.group(
    cls=_SpamGroup,
    lazy_commands={name: f"nbayes.cli.spam.{module}:{name}" for name, module in _COMMANDS.items()},
)
def spam() -> None:
    """Bayesian spam filter: train, score, classify, serve (spamd), evaluate."""
