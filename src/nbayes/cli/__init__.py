"""The ``nbayes`` command line: a thin click layer over the public API."""

from __future__ import annotations

import atexit
import errno
import os
import sys
import threading
from typing import NoReturn

import click

from nbayes.cli._lazy import DEFERS_SCIPY_STATS, LazyGroup, defer_import
from nbayes.stdio import reopen_closed_streams

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
        for name in (
            "demo", "train", "predict", "explain", "inspect", "spam", "evaluate", "export",
            "score",
        )
    },
)
@click.version_option(package_name="nbayes")
@click.option("--debug", is_flag=True, help="Show the full traceback of an error.")
def main(debug: bool) -> None:
    """nbayes: naive Bayes classifiers, exact and fast."""


def run() -> NoReturn:
    """The ``nbayes`` program (its console script, and ``python -m nbayes``): :data:`main`
    run as a process of its own, which then leaves without the interpreter's teardown.

    A command's imports (scikit-learn, pandas, numba) leave some 200,000 objects that
    Python's shutdown would garbage-collect and free one by one: 0.3-0.5 s of CPU per
    command, as much as ``nbayes predict`` spends predicting 100,000 rows
    (bench/NOTES.md, scenario J). What shutdown does that matters still happens: the
    ``atexit`` functions run, the standard streams are flushed, and the pools' threads
    are stopped; with any other thread still running, the ordinary shutdown is used.
    Library use (``main`` called in a process of the caller's) is not affected.
    """
    reopen_closed_streams()
    main.freeze_imports = True
    try:
        main()
        status: object = 0
    except SystemExit as exc:
        status = exc.code
    _leave(status)


def _leave(status: object) -> NoReturn:
    """End the process with ``status`` (what ``sys.exit`` takes), skipping the
    interpreter's teardown where nothing but idle pool threads is running."""
    parallel = sys.modules.get("nbayes.core.parallel")
    if parallel is not None:  # not imported: no pools (importing it would import NumPy)
        parallel.shut_down_executors()
    current = threading.current_thread()
    if any(t is not current and t.is_alive() and not t.daemon for t in threading.enumerate()):
        sys.exit(status)
    if status is None:
        code = 0
    elif isinstance(status, int):
        code = status
    else:  # what sys.exit does with a message
        print(status, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):  # the reader went away (``| head``), or it is closed
        code = code or BROKEN_PIPE_STATUS
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code & 0xFF)  # as the shell sees it: sys.exit(-1) is 255 too
