"""The ``nbayes`` program's front door: ``nbayes spam classify`` in its plain forms
without click, everything else through the click command line (:mod:`nbayes.cli`).

A mail server starts ``nbayes spam classify`` once per delivered message, so its
start-up is most of its cost: importing click (and the ``typing``, ``inspect`` and
``uuid`` modules click brings) took more time than scoring the message. Here the
arguments of the forms a delivery agent uses are read directly,
``--db PATH`` (or ``--db=PATH``, or ``$NBAYES_SPAM_DB``), ``-p``/``--passthrough`` and
``-e``/``--exit-zero``, and the message goes to
:func:`nbayes.spam.deliver.classify_delivery`, the same function the click command
calls with the same defaults. Any other argument (``--help``, a scoring option,
``--user``, ``$NBAYES_SPAM_REDIS``...) goes to click unchanged, so its options, checks
and messages stay written once.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from nbayes.stdio import reopen_closed_streams

#: Exit status after the reader of stdout went away (``| head``): 128 + SIGPIPE, as
#: :data:`nbayes.cli.BROKEN_PIPE_STATUS` (not imported: it imports click).
BROKEN_PIPE_STATUS = 141

#: Flags the lean path reads, and what each sets (passthrough, exit_zero).
_FLAGS = {
    "-p": (True, False), "--passthrough": (True, False),
    "-e": (False, True), "--exit-zero": (False, True),
    "-pe": (True, True), "-ep": (True, True),
}  # fmt: skip


def lean_classify_arguments(
    args: Sequence[str], environ: Mapping[str, str]
) -> tuple[str, bool, bool] | None:
    """``(db, passthrough, exit_zero)`` for the arguments after ``spam classify`` when
    they are only those this module reads; None where click must read them.

    >>> lean_classify_arguments(["--db", "t.db", "-p"], {})
    ('t.db', True, False)
    >>> lean_classify_arguments(["--db", "t.db", "--method", "graham"], {}) is None
    True
    """
    if "NBAYES_SPAM_REDIS" in environ:
        return None
    db = environ.get("NBAYES_SPAM_DB")
    if db is not None and (not db or db.startswith("-")):
        return None  # click reads an empty variable as unset
    passthrough = exit_zero = False
    position = 0
    while position < len(args):
        arg = args[position]
        if arg == "--db" and position + 1 < len(args):
            position += 1
            db = args[position]
        elif arg.startswith("--db="):
            db = arg[len("--db=") :]
        elif arg in _FLAGS:
            passthrough |= _FLAGS[arg][0]
            exit_zero |= _FLAGS[arg][1]
        else:
            return None
        if db is not None and (not db or db.startswith("-")):
            return None  # an empty or dash-led value: click's rules decide
        position += 1
    if db is None:
        from nbayes.spam.stores import default_db_path

        db = default_db_path()
    return db, passthrough, exit_zero


def classify_lean(db: str, passthrough: bool, exit_zero: bool) -> int:
    """``nbayes spam classify --db DB [-p] [-e]`` on this process's standard streams,
    every other option at its default: the exit status."""
    from nbayes.spam.deliver import classify_standard_streams
    from nbayes.spam.score import ScoreSettings
    from nbayes.spam.store import DEFAULT_TIMEOUT, TokenStore

    def opened(update: bool):
        # What nbayes.spam.stores.open_store(db) opens (no user, no Redis here), without
        # importing the modules that choose among the backends.
        return TokenStore(db, timeout=DEFAULT_TIMEOUT, readonly=not update)

    return classify_standard_streams(
        opened, ScoreSettings(), passthrough=passthrough, exit_zero=exit_zero
    )


def run() -> None:
    """The ``nbayes`` console script (and ``python -m nbayes``). Closed standard streams
    are put on ``/dev/null`` first (:func:`nbayes.stdio.reopen_closed_streams`); a reader
    of stdout gone (``| head``) ends the lean path quietly with status 141, as it ends
    every click command."""
    reopen_closed_streams()
    if sys.argv[1:3] == ["spam", "classify"]:
        lean = lean_classify_arguments(sys.argv[3:], os.environ)
        if lean is not None:
            try:
                status = classify_lean(*lean)
            except BrokenPipeError:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                status = BROKEN_PIPE_STATUS
            sys.stderr.flush()
            os._exit(status)  # nothing to tear down: no thread, no pool, no atexit work
    from nbayes.cli import run as run_click

    run_click()
