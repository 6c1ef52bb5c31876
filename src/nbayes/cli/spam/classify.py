"""``nbayes spam classify``: one message from stdin, as a mail delivery agent runs it.

It never loses or holds up mail. With ``--passthrough`` the message always comes
back whole on stdout: marked with its verdict, or, on any failure at all (a message
the parser chokes on, a missing, locked or corrupt database, a bad option, a bug),
unchanged, with one line on stderr and exit status 3.

``--classes`` gives the multi-class verdict instead (:mod:`nbayes.spam.classes`): the
most probable of every class the database learnt, with each class's probability;
``--json`` prints either verdict as one JSON object.
"""

from __future__ import annotations

import re
import shutil
import sys

import click

from nbayes.cli.spam.options import (
    EXIT_ERROR,
    db_option,
    lock_timeout_option,
    max_mime_depth_option,
    max_size_option,
    scoring_options,
    subject_tag_checked,
    user_option,
)
from nbayes.spam.deliver import CLASS_HEADER
from nbayes.spam.deliver import EXIT as EXIT
from nbayes.spam.mark import DEFAULT_HEADER, check_header_name

_PASSTHROUGH_FLAG = re.compile(r"--passthrough|-[a-zA-Z]*p[a-zA-Z]*")


class _PassThroughOnUsageError(click.Command):
    """Usage errors exit with status 3, not click's 2 (which means Unsure here), and
    with ``-p`` the message still goes through, unchanged: those click finds parsing
    the arguments, and those found checking them together before the message is read
    (the scoring settings, :func:`~nbayes.cli.spam.options.scoring_options`)."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, list(args), parent=parent, **extra)
        except click.exceptions.Exit:
            raise
        except click.ClickException as error:
            options = args[: args.index("--")] if "--" in args else args
            _refuse(error, any(_PASSTHROUGH_FLAG.fullmatch(a) for a in options))

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.UsageError as error:  # the command reads stdin only once past these
            _refuse(error, ctx.params.get("passthrough", False))


def _refuse(error: click.ClickException, passthrough: bool):
    """Say what was wrong, pass the message on unchanged (``passthrough``), exit 3."""
    error.show()
    if passthrough:
        shutil.copyfileobj(sys.stdin.buffer, sys.stdout.buffer)
        sys.stdout.flush()
    sys.exit(EXIT_ERROR)


def _header_name(_ctx, _param, value: str) -> str:
    try:
        return check_header_name(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@click.command(cls=_PassThroughOnUsageError)
@db_option
@user_option
@lock_timeout_option
@click.option(
    "--passthrough",
    "-p",
    is_flag=True,
    help="Write the message to stdout with the verdict header added (unchanged on error).",
)
@click.option(
    "--exit-zero",
    "-e",
    is_flag=True,
    help="Exit 0 for spam, ham and unsure alike (3 still means an error), for mail "
    "delivery agents that take a filter's non-zero exit for a failure (procmail).",
)
@click.option(
    "--update",
    "-u",
    is_flag=True,
    help="Learn the message as its verdict when that is Spam or Ham (bogofilter's -u); "
    "a message already learnt is not counted twice.",
)
@click.option(
    "--header",
    default=DEFAULT_HEADER,
    show_default=True,
    callback=_header_name,
    help="Name of the verdict header (replaces any the message has).",
)
@click.option(
    "--subject-tag",
    default="",
    metavar="TAG",
    callback=subject_tag_checked,
    help="Put TAG at the front of the Subject of spam (with --passthrough).",
)
@click.option(
    "--spamassassin-headers",
    is_flag=True,
    help="Also add X-Spam-Flag, X-Spam-Status and X-Spam-Level as SpamAssassin does "
    "(points: 10 x score), for mail rules written for it (with --passthrough).",
)
@click.option(
    "--classes",
    "multiclass",
    is_flag=True,
    help="Name the most probable of every class the database learnt (train --class), "
    "by naive Bayes, instead of Spam/Ham/Unsure: CLASS<TAB>PROBABILITY lines, most "
    "probable first; exit 0 spam, 1 ham, 2 any other class. Header "
    f"{CLASS_HEADER} unless --header is given.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as one JSON object.")
@max_mime_depth_option
@max_size_option
@scoring_options
def classify(
    db, user, lock_timeout, passthrough, exit_zero, update, header, subject_tag,
    spamassassin_headers, multiclass, as_json, max_mime_depth, max_size, settings,
) -> None:  # fmt: skip
    """Classify one message from stdin: exit 0 spam, 1 ham, 2 unsure, 3 error (the
    message passed on unscanned: a database that cannot be read, mail nested deeper
    than --max-mime-depth, a message over --max-size, which is streamed through and
    never held whole)."""
    from nbayes.cli.spam.options import open_store
    from nbayes.spam.deliver import classify_standard_streams

    if multiclass:
        if update:
            raise click.UsageError("--update learns two-class verdicts only: not with --classes")
        if spamassassin_headers:
            raise click.UsageError("--spamassassin-headers are two-class only: not with --classes")
        ctx = click.get_current_context()
        if ctx.get_parameter_source("header") == click.core.ParameterSource.DEFAULT:
            header = None  # the multi-class verdict's own header

    def opened(update: bool):
        # a user's own store starts with their first -u
        return open_store(
            db, lock_timeout, readonly=not update, create=update and user is not None, user=user
        )

    status = classify_standard_streams(
        opened, settings, passthrough=passthrough, exit_zero=exit_zero, update=update,
        header=header, subject_tag=subject_tag, spamassassin_headers=spamassassin_headers,
        max_mime_depth=max_mime_depth, max_size=max_size, classes=multiclass, as_json=as_json,
    )  # fmt: skip
    sys.exit(status)
