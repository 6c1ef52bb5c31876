"""``nbayes spam score`` and ``nbayes spam classify``."""

from __future__ import annotations

import re
import sys

import click

from nbayes.cli.spam.options import (
    db_option,
    exclude_option,
    jobs_option,
    open_store,
    options_of,
    progress_bar,
    report,
    scoring_options,
)
from nbayes.spam.parallel import tokenize_items
from nbayes.spam.parse import MailParseError
from nbayes.spam.score import ScoreSettings, score_tokens
from nbayes.spam.sources import iter_mail
from nbayes.spam.tokens import tokenize
from nbayes.spam.train import batched

HEADER = "X-Nbayes-Spam"
EXIT = {"Spam": 0, "Ham": 1, "Unsure": 2}
EXIT_ERROR = 3


@click.command()
@db_option
@exclude_option
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=500,
    show_default=True,
    help="Messages scored together.",
)
@jobs_option
@scoring_options
@click.argument("sources", nargs=-1, required=True)
def score(db, exclude, batch_size, jobs, settings, sources) -> None:
    """Print path<TAB>score<TAB>Spam|Ham|Unsure for every message in SOURCES."""
    with open_store(db) as store, progress_bar("scoring", prints_lines=True) as bar:
        mail = iter_mail(sources, exclude=exclude, on_error=report)
        parsed = _tokenized(mail, jobs, options_of(store))
        for batch in batched(parsed, batch_size):
            scores = score_tokens(store, [tokens for _, tokens, _ in batch], settings)
            click.echo(
                "".join(
                    f"{name}\t{value:.6f}\t{settings.verdict(value)}\n"
                    for (name, _, _), value in zip(batch, scores.tolist(), strict=True)
                ),
                nl=False,
            )
            bar.update(len(batch))


def _tokenized(items, jobs, options):
    for item, tokens in tokenize_items(items, jobs, options=options):
        if isinstance(tokens, MailParseError):
            report(item.name, f"skipped: {tokens}")
        else:
            yield item.name, tokens, None


class _ErrorExit3(click.Command):
    """Usage errors exit with status 3, not click's 2 (which means Unsure here)."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as error:
            error.show()
            sys.exit(EXIT_ERROR)


@click.command(cls=_ErrorExit3)
@db_option
@click.option(
    "--passthrough",
    "-p",
    is_flag=True,
    help=f"Write the message to stdout with an {HEADER} header added.",
)
@click.option(
    "--exit-zero",
    "-e",
    is_flag=True,
    help="Exit 0 for spam, ham and unsure alike (3 still means an error), for mail "
    "delivery agents that take a filter's non-zero exit for a failure (procmail).",
)
@scoring_options
def classify(db, passthrough, exit_zero, settings) -> None:
    """Classify one message from stdin: exit 0 spam, 1 ham, 2 unsure, 3 error."""
    raw = sys.stdin.buffer.read()
    try:
        value = _score_one(db, raw, settings)
    except (click.ClickException, MailParseError) as error:
        click.echo(
            f"nbayes: {error if isinstance(error, MailParseError) else error.message}", err=True
        )
        if passthrough:
            sys.stdout.buffer.write(raw)
        sys.exit(EXIT_ERROR)
    verdict = settings.verdict(value)
    if passthrough:
        sys.stdout.buffer.write(add_header(raw, verdict, value))
    else:
        click.echo(f"{verdict}\t{value:.6f}")
    sys.exit(0 if exit_zero else EXIT[verdict])


def _score_one(db: str, raw: bytes, settings: ScoreSettings) -> float:
    with open_store(db) as store:
        tokens = tokenize(raw, options_of(store))
        return float(score_tokens(store, [tokens], settings)[0])


_HEADER_END = re.compile(rb"\r?\n\r?\n")


def add_header(raw: bytes, verdict: str, value: float) -> bytes:
    """The message with ``X-Nbayes-Spam: <verdict>, score=<value>`` as its last header
    (in the message's own line ending)."""
    newline = b"\r\n" if b"\r\n" in raw[:4096] else b"\n"
    line = f"{HEADER}: {verdict}, score={value:.4f}".encode() + newline
    if raw.startswith((b"\n", b"\r\n")):  # no headers at all
        return line + raw
    end = _HEADER_END.search(raw)
    if end is None:  # headers only
        return raw + (b"" if raw.endswith(b"\n") else newline) + line
    cut = end.start() + (2 if raw[end.start()] == ord("\r") else 1)
    return raw[:cut] + line + raw[cut:]
