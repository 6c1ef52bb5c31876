"""``nbayes spam serve``: a spamd-compatible daemon (``spamc`` and MTA setups built for it)."""

from __future__ import annotations

import functools
from pathlib import Path

import click

from nbayes.cli.paths import guard_outputs
from nbayes.cli.spam.classify import _header_name
from nbayes.cli.spam.options import (
    FINITE_SECONDS,
    db_option,
    limit_option,
    lock_timeout_option,
    max_mime_depth_option,
    open_store,
    scoring_options,
    subject_tag_checked,
)
from nbayes.spam.limits import DEFAULT_MAX_SIZE
from nbayes.spam.mark import DEFAULT_HEADER


def _listen(_ctx, _param, values: tuple[str, ...]) -> list[tuple[str, int]]:
    from nbayes.spam.server import parse_listen

    try:
        return [parse_listen(value) for value in values]
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def _mode(_ctx, _param, value: str | None) -> int | None:
    if value is None:
        return None
    try:
        mode = int(value, 8)
    except ValueError:
        mode = -1
    if not 0 <= mode <= 0o777:
        raise click.BadParameter(f"an octal file mode such as 660, got {value!r}")
    return mode


@guard_outputs(outputs=["sockets"], inputs=["db"])
@click.command()
@db_option
@lock_timeout_option
@click.option(
    "--listen",
    multiple=True,
    callback=_listen,
    metavar="HOST:PORT",
    help="TCP address to listen on ([::1]:783 for IPv6, *:783 for every interface; "
    "repeatable) [default: 127.0.0.1:783 where no --socket is given].",
)
@click.option(
    "--socket",
    "sockets",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Unix socket to listen on (spamc -U PATH; repeatable).",
)
@click.option("--socket-mode", callback=_mode, metavar="OCTAL", help="Permissions of --socket.")
@click.option(
    "--allow-tell",
    is_flag=True,
    help="Accept TELL (spamc -L spam|ham|forget): learning into the database, which is "
    "created if missing.",
)
@click.option(
    "--timeout",
    type=FINITE_SECONDS,
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="A whole request (head and message) must arrive within this of its connection, "
    "and its answer be taken within this; else the connection is closed.",
)
@limit_option(
    "max-size",
    DEFAULT_MAX_SIZE,
    "BYTES",
    "Largest message scored (spamc's own default, -s); a larger one is answered "
    "EX_DATAERR unread, and spamc passes it on unchanged.",
)
@limit_option(
    "workers",
    8,
    "N",
    "Threads scoring requests (the others wait in a queue shared fairly by client, "
    "by the bytes of mail each has had scored).",
)
@limit_option(
    "max-connections",
    512,
    "N",
    "Connections open at once (also the listen backlog); one over it closes the "
    "idlest connection still sending its request, or is answered EX_TEMPFAIL.",
)
@limit_option(
    "max-per-client",
    256,
    "N",
    "Connections open at once from one client (a TCP address, a Unix socket user).",
)
@click.option(
    "--header",
    default=DEFAULT_HEADER,
    show_default=True,
    callback=_header_name,
    help="Name of the verdict header PROCESS and HEADERS add.",
)
@click.option(
    "--subject-tag",
    default="",
    metavar="TAG",
    callback=subject_tag_checked,
    help="Put TAG at the front of the Subject of spam.",
)
@click.option(
    "--spamassassin-headers/--no-spamassassin-headers",
    default=True,
    show_default=True,
    help="Also add X-Spam-Flag, X-Spam-Status and X-Spam-Level, as spamd does.",
)
@click.option(
    "--classes",
    "multiclass",
    is_flag=True,
    help="PROCESS and HEADERS also add X-Nbayes-Class: CLASS, score=P, the most probable "
    "of every class the database learnt (train --class), as classify --classes -p; "
    "every other reply stays two-class.",
)
@click.option(
    "--per-user",
    is_flag=True,
    help="Honour spamc's -u USER: score with that user's statistics combined with the "
    "shared ones, and learn TELL (spamc -u USER -L) into the user's alone (see "
    "nbayes spam train --user).",
)
@max_mime_depth_option
@click.option("--verbose", "-v", is_flag=True, help="Log a line per request on stderr.")
@scoring_options
def serve(
    db, lock_timeout, listen, sockets, socket_mode, allow_tell, timeout, max_size, workers,
    max_connections, max_per_client, header, subject_tag, spamassassin_headers, multiclass,
    per_user, max_mime_depth, verbose, settings,
) -> None:  # fmt: skip
    """Answer spamd's protocol (SPAMC/1.5: CHECK, SYMBOLS, REPORT, PROCESS, HEADERS,
    PING, TELL) from the token database, for spamc and mail servers built for spamd.

    Scores are points: 10 times the filter's score against 10 times --spam-cutoff, so
    `spamc -c` prints e.g. 9.9/9.0 and exits 1 for spam, 0 for ham and unsure.
    """
    from nbayes.spam.server import DEFAULT_PORT, Limits, StorePool, serve
    from nbayes.spam.spamd import Filter, Marking

    try:
        marking = Marking(header, subject_tag, spamassassin_headers, classes=multiclass)
    except ValueError as error:
        raise click.UsageError(f"--header {header}: {error}") from None
    if not listen and not sockets:
        listen = [("127.0.0.1", DEFAULT_PORT)]
    if allow_tell:
        open_store(db, lock_timeout, create=True).close()  # makes the default directory
    pool = StorePool(functools.partial(open_store, db, lock_timeout), writable=allow_tell)
    answering = Filter(
        pool.reader, pool.writer if allow_tell else None, settings, marking,
        max_mime_depth=max_mime_depth, per_user=per_user,
    )  # fmt: skip
    try:
        serve(
            answering, listen=listen, sockets=list(sockets), socket_mode=socket_mode,
            limits=Limits(
                timeout=timeout, max_size=max_size, workers=workers,
                max_connections=max_connections, max_per_client=max_per_client,
            ),
            verbose=verbose,
            on_hangup=pool.reset,
        )  # fmt: skip
    except OSError as error:
        raise click.ClickException(f"cannot listen: {_in_words(error)}") from None
    finally:
        pool.close()


def _in_words(error: OSError) -> str:
    text = error.strerror or str(error)
    if error.filename is not None:
        text = f"{error.filename}: {text}"
    if isinstance(error, PermissionError):
        text += " (ports below 1024 need root: --listen 127.0.0.1:PORT with spamc -p PORT)"
    return text
