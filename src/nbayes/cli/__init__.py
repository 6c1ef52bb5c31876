"""The ``nbayes`` command line: a thin click layer over the public API."""

from __future__ import annotations

import click

from nbayes.cli._tables import CLIError
from nbayes.cli.demo import demo
from nbayes.cli.explain import explain
from nbayes.cli.inspect import inspect
from nbayes.cli.predict import predict
from nbayes.cli.spam import spam
from nbayes.cli.train import train

#: Errors that mean bad input: one line on stderr and exit status 2 (``--debug``: traceback).
INPUT_ERRORS = (ValueError, TypeError, OSError, KeyError, ImportError)


class _Group(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except INPUT_ERRORS as exc:
            if ctx.params.get("debug"):
                raise
            lines = str(exc).strip().splitlines()
            raise CLIError(lines[0] if lines else type(exc).__name__) from None


@click.group(cls=_Group)
@click.version_option(package_name="nbayes")
@click.option("--debug", is_flag=True, help="Show the full traceback of an error.")
def main(debug: bool) -> None:
    """nbayes: naive Bayes classifiers, exact and fast."""


main.add_command(demo)
main.add_command(train)
main.add_command(predict)
main.add_command(explain)
main.add_command(inspect)
main.add_command(spam)
