"""The ``nbayes`` command line: a thin click layer over the public API."""

from __future__ import annotations

import errno
import os
import sys

import click

from nbayes.cli._lazy import DEFERS_SCIPY_STATS, LazyGroup, defer_import

#: Errors that mean bad input: one line on stderr and exit status 2 (``--debug``: traceback).
INPUT_ERRORS = (ValueError, TypeError, OSError, KeyError, ImportError)


class _Group(LazyGroup):
    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and args[0] in DEFERS_SCIPY_STATS:
            defer_import("scipy.stats")  # before the subcommand imports scikit-learn
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise _input_error(ctx, exc) from None
            _quiet_broken_pipe()
        except INPUT_ERRORS as exc:
            raise _input_error(ctx, exc) from None


#: Exit status after the reader of stdout went away (``| head``): 128 + SIGPIPE.
BROKEN_PIPE_STATUS = 141


def _quiet_broken_pipe() -> None:
    """Exit quietly: stdout's reader is gone (Python's advice: point stdout at
    /dev/null so the interpreter's last flush does not fail again)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(BROKEN_PIPE_STATUS)


def _input_error(ctx: click.Context, exc: Exception) -> Exception:
    """Bad input as one line (the exception itself under --debug)."""
    if ctx.params.get("debug"):
        return exc
    # imported here: its table I/O (tempfile, pathlib) cost ``nbayes spam classify``,
    # run once per delivered message, a tenth of its start-up
    from nbayes.cli._tables import CLIError

    lines = str(exc).strip().splitlines()
    return CLIError(lines[0] if lines else type(exc).__name__)


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
