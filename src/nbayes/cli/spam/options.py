"""Options shared by the ``nbayes spam`` commands."""

from __future__ import annotations

import functools
import itertools
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from nbayes.spam.limits import DEFAULT_MAX_SIZE
from nbayes.spam.parse import MAX_MIME_DEPTH
from nbayes.spam.score import METHODS, ScoreSettings
from nbayes.spam.store import DEFAULT_TIMEOUT
from nbayes.spam.stores import default_db as default_db
from nbayes.spam.tokens import DEFAULT_OPTIONS, HEADER_MODES, MAX_OSB_WINDOW, TokenOptions

if TYPE_CHECKING:
    from nbayes.spam.store_protocol import Store

_DEFAULTS = ScoreSettings()
#: What a command exits with when it cannot do its work (bogofilter's convention).
EXIT_ERROR = 3


@dataclass(frozen=True)
class StoreLocation:
    """Where the token store is: the SQLite file ``db``, or the Redis URL ``redis``."""

    db: str | None
    redis: str | None = None

    def __str__(self) -> str:
        if self.redis is not None:
            from nbayes.spam.redis_store import redis_name

            return redis_name(self.redis)
        return str(self.db)


def db_option(command):
    """Add ``--db`` and ``--redis`` (exclusive) and pass them on as one ``db`` argument,
    a :class:`StoreLocation`."""

    @functools.wraps(command)
    def wrapper(*args, db, redis, **kw):
        ctx = click.get_current_context()
        given = ctx.get_parameter_source("db") == click.core.ParameterSource.COMMANDLINE
        if redis is not None and given:
            raise click.UsageError("--db and --redis are mutually exclusive: give one of them")
        where = StoreLocation(None, redis) if redis is not None else StoreLocation(db)
        return command(*args, db=where, **kw)

    wrapper = click.option(
        "--redis",
        metavar="URL",
        envvar="NBAYES_SPAM_REDIS",
        help="Keep the tokens in Redis instead of --db, shared by every machine that "
        "reaches it: redis://HOST:PORT/DB (rediss:// for TLS, unix:///PATH?db=N); "
        "also $NBAYES_SPAM_REDIS. Needs pip install 'nbayes[redis]'.",
    )(wrapper)
    return click.option(
        "--db",
        type=click.Path(),  # a directory: the store says so, exit 3 as for any unusable one
        envvar="NBAYES_SPAM_DB",
        default=lambda: str(default_db()),
        show_default="$XDG_DATA_HOME/nbayes/spam.db",
        help="Token database (SQLite), a file path; also $NBAYES_SPAM_DB.",
    )(wrapper)


def _user_name(_ctx, _param, value: str | None) -> str | None:
    if value is None:
        return None
    from nbayes.spam.users import check_user

    try:
        return check_user(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


user_option = click.option(
    "--user",
    callback=_user_name,
    metavar="NAME",
    help="This user's own statistics, combined with the shared ones (see docs/spam.md, "
    "per-user statistics): learning changes only the user's.",
)


class FiniteFloat(click.FloatRange):
    """A float range that also refuses NaN and the infinities (click's ``FloatRange``
    lets NaN through: every comparison with it is false)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"must be a finite number, got {number}", param, ctx)
        return number


#: Seconds, a finite number of at least 0.1.
FINITE_SECONDS = FiniteFloat(min=0.1)



def limit_option(name: str, default: int, metavar: str, help_text: str, *, minimum: int = 1):
    """The option ``--NAME`` of a whole-number limit of at least ``minimum``, its default
    shown (``max_size_option`` below, and ``nbayes spam serve``'s connection limits)."""
    return click.option(
        f"--{name}",
        type=click.IntRange(min=minimum),
        default=default,
        show_default=True,
        metavar=metavar,
        help=help_text,
    )


max_size_option = limit_option(
    "max-size",
    DEFAULT_MAX_SIZE,
    "BYTES",
    "Largest message scored, in bytes (spamc's default, as its -s); a larger one is "
    "never read whole, and not scored.",
)


lock_timeout_option = click.option(
    "--lock-timeout",
    type=FiniteFloat(min=0),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    metavar="SECONDS",
    help="How long to wait while another process holds the database's lock.",
)
#: A mail source named on the command line (a file, directory, mbox or maildir): it must
#: exist, so a typo or an empty variable (``""``, which would be the current directory)
#: stops the command before it reads or learns anything, with exit status 2.
MAIL_SOURCE = click.Path(exists=True)

exclude_option = click.option(
    "--exclude", multiple=True, metavar="GLOB", help="Skip files whose name matches (repeatable)."
)
jobs_option = click.option(
    "--jobs",
    type=click.IntRange(min=0),
    default=None,
    help="Worker processes parsing and tokenizing mail (0: none) [default: CPUs - 1].",
)

thick_option = click.option(
    "--thick",
    type=FiniteFloat(0, 1, max_open=True),
    default=None,
    help="Thick threshold of train-on-or-near-error: also learn spam scoring below "
    "spam-cutoff + THICK and ham above ham-cutoff - THICK [default: 0; 0.05 for until-mature].",
)

max_mime_depth_option = limit_option(
    "max-mime-depth",
    MAX_MIME_DEPTH,
    "LEVELS",
    "Mail whose MIME parts nest deeper is passed on unscanned, as an error "
    "(0: no limit; deeper mail is then read flat and scored).",
    minimum=0,
)

certainty_option = click.option(
    "--certainty",
    type=FiniteFloat(0),
    default=None,
    metavar="NATS",
    help="With --mode unless-sure: a message already classified right with log-odds beyond "
    "NATS is not learnt [default: 100].",
)


def _score_setting(name: str, help_text: str, **extra):
    """The option of the number ``ScoreSettings`` field ``name`` (dashes for
    underscores), its default shown."""
    default = getattr(_DEFAULTS, name.replace("-", "_"))
    return click.option(
        f"--{name}", type=float, default=default, show_default=True, help=help_text, **extra
    )


def scoring_options(command):
    """Add the scoring options and pass them on as one ``settings`` argument."""
    options = [
        click.option(
            "--method",
            type=click.Choice(METHODS),
            default=_DEFAULTS.method,
            show_default=True,
            help="How token probabilities are combined.",
        ),
        _score_setting("strength", "Robinson's s: weight of the background for rare tokens."),
        _score_setting("background", "Robinson's x: the probability of an unseen token."),
        _score_setting("min-dev", "Ignore tokens with |f(w) - 0.5| below this."),
        _score_setting("ham-cutoff", "Scores at or below are Ham."),
        _score_setting("spam-cutoff", "Scores at or above are Spam."),
        _score_setting(
            "maturity",
            "Until the database holds this many messages of each class, scores are "
            "tempered: log-odds times (messages of the rarer class) / MESSAGES (0: never).",
            metavar="MESSAGES",
        ),
    ]

    @functools.wraps(command)
    def wrapper(
        *args, method, strength, background, min_dev, ham_cutoff, spam_cutoff, maturity, **kw
    ):
        try:
            settings = ScoreSettings(
                method, strength, background, min_dev, ham_cutoff, spam_cutoff,
                maturity=maturity,
            )  # fmt: skip
        except ValueError as error:
            raise click.BadParameter(str(error)) from None
        return command(*args, settings=settings, **kw)

    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def token_options(command):
    """Add ``--osb`` and ``--headers`` and pass them on as one ``tokens`` argument
    (None where neither is given: the defaults, or a trained store's own)."""

    @functools.wraps(command)
    def wrapper(*args, osb, headers, **kw):
        if osb is None and headers is None:
            return command(*args, tokens=None, **kw)
        try:
            tokens = TokenOptions(
                osb=DEFAULT_OPTIONS.osb if osb is None else osb,
                headers=headers or DEFAULT_OPTIONS.headers,
            )
        except ValueError as error:
            raise click.BadParameter(str(error)) from None
        return command(*args, tokens=tokens, **kw)

    wrapper = click.option(
        "--headers",
        type=click.Choice(HEADER_MODES),
        default=None,
        help="Header tokens: each header's words under its name, grouped as bogofilter's, "
        f"or plain words [default: {DEFAULT_OPTIONS.headers}; a trained database's own].",
    )(wrapper)
    return click.option(
        "--osb",
        type=click.IntRange(0, MAX_OSB_WINDOW),
        default=None,
        help="Orthogonal sparse bigrams of the body words within this window (0: words "
        f"only) [default: {DEFAULT_OPTIONS.osb}; a trained database's own].",
    )(wrapper)


def subject_tag_checked(_ctx, _param, value: str) -> str:
    """The ``--subject-tag`` callback: :func:`~nbayes.spam.mark.check_subject_tag`."""
    from nbayes.spam.mark import check_subject_tag

    try:
        return check_subject_tag(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def open_store(
    where: StoreLocation | str, timeout: float = DEFAULT_TIMEOUT, *, create: bool = False,
    readonly: bool = False, user: str | None = None,
) -> Store:  # fmt: skip
    """The token store at ``where`` (a path, or a :class:`StoreLocation`), with ``user``
    that user's combined with the shared one (errors:
    :class:`~nbayes.spam.store.StoreError`, which the ``spam`` group reports in one line
    with exit status 3). Creating one at the default location makes its directory first
    (private to the user)."""
    from nbayes.spam.stores import open_store as open_any

    if not isinstance(where, StoreLocation):
        where = StoreLocation(str(where))
    if create and where.db is not None and Path(where.db) == default_db():
        Path(where.db).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return open_any(
        where.db, redis=where.redis, user=user, timeout=timeout, create=create,
        readonly=readonly,
    )  # fmt: skip


def tsv_field(text: str) -> bytes:
    r"""``text`` for one field of a tab-separated line, as the bytes the file system
    uses (names undecodable in UTF-8 stay as they are): backslash, tab, newline and
    carriage return written ``\\``, ``\t``, ``\n``, ``\r``, so a line is one record."""
    raw = os.fsencode(text)
    if b"\\" in raw or b"\t" in raw or b"\n" in raw or b"\r" in raw:
        raw = raw.replace(b"\\", b"\\\\").replace(b"\t", b"\\t").replace(b"\n", b"\\n")
        raw = raw.replace(b"\r", b"\\r")
    return raw


def report(name: str, problem: str) -> None:
    """``nbayes: NAME: PROBLEM`` on stderr, one line (the name escaped as in TSV)."""
    click.echo(f"nbayes: {os.fsdecode(tsv_field(name))}: {problem}", err=True)


def progress_bar(label: str, *, prints_lines: bool = False):
    """A click progress bar of unknown length, counting messages, on stderr; advance it
    with ``bar.update(n)``. Shown only when stderr is a terminal and, for a command that
    prints a line per message (``prints_lines``), stdout is not one: there the lines
    themselves show the progress, and a bar redrawn between them would garble them."""
    hidden = not sys.stderr.isatty() or (prints_lines and sys.stdout.isatty())
    return click.progressbar(
        itertools.repeat(None), label=label, file=sys.stderr, hidden=hidden, show_pos=True
    )
