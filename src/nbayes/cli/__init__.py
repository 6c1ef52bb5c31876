"""The ``nbayes`` command line: a thin click layer over the public API."""

from __future__ import annotations

import click

from nbayes.cli._lazy import LazyGroup

#: Errors that mean bad input: one line on stderr and exit status 2 (``--debug``: traceback).
INPUT_ERRORS = (ValueError, TypeError, OSError, KeyError, ImportError)


class _Group(LazyGroup):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except INPUT_ERRORS as exc:
            if ctx.params.get("debug"):
                raise
            # imported here: its table I/O (tempfile, pathlib) cost ``nbayes spam classify``,
            # run once per delivered message, a tenth of its start-up
            from nbayes.cli._tables import CLIError

            lines = str(exc).strip().splitlines()
            raise CLIError(lines[0] if lines else type(exc).__name__) from None


@click.group(
    cls=_Group,
    lazy_commands={
        name: f"nbayes.cli.{name}:{name}"
        for name in ("demo", "train", "predict", "explain", "inspect", "spam", "evaluate")
    },
)
@click.version_option(package_name="nbayes")
@click.option("--debug", is_flag=True, help="Show the full traceback of an error.")
def main(debug: bool) -> None:
    """nbayes: naive Bayes classifiers, exact and fast."""
