"""``nbayes spam score``: a score per message of files, directories, mboxes, maildirs."""

from __future__ import annotations

import click

from nbayes.cli.spam.options import (
    MAIL_SOURCE,
    db_option,
    exclude_option,
    jobs_option,
    lock_timeout_option,
    max_size_option,
    open_store,
    progress_bar,
    report,
    scoring_options,
    tsv_field,
)
from nbayes.spam.parallel import tokenize_items
from nbayes.spam.parse import MailParseError
from nbayes.spam.score import score_tokens
from nbayes.spam.sources import iter_mail
from nbayes.spam.store_options import store_options
from nbayes.spam.train import batched


@click.command()
@db_option
@lock_timeout_option
@exclude_option
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=500,
    show_default=True,
    help="Messages scored together.",
)
@jobs_option
@max_size_option
@scoring_options
@click.argument("sources", nargs=-1, required=True, type=MAIL_SOURCE)
def score(db, lock_timeout, exclude, batch_size, jobs, max_size, settings, sources) -> None:
    """Print path<TAB>score<TAB>Spam|Ham|Unsure for every message in SOURCES (a message
    over --max-size is skipped, named on stderr, and read no further than that).

    Backslashes, tabs and line breaks in a path are written \\\\, \\t, \\n, \\r.
    """
    with (
        open_store(db, lock_timeout, readonly=True) as store,
        progress_bar("scoring", prints_lines=True) as bar,
    ):
        mail = iter_mail(sources, exclude=exclude, on_error=report, max_size=max_size)
        parsed = _tokenized(mail, jobs, store_options(store))
        for batch in batched(parsed, batch_size, tokens_of=_token_count):
            scores = score_tokens(store, [tokens for _, tokens, _ in batch], settings)
            lines = [
                b"%s\t%.6f\t%s\n" % (tsv_field(name), value, settings.verdict(value).encode())
                for (name, _, _), value in zip(batch, scores.tolist(), strict=True)
            ]
            click.echo(b"".join(lines), nl=False)
            bar.update(len(batch))


def _token_count(item: tuple) -> int:
    return len(item[1])


def _tokenized(items, jobs, options):
    for item, tokens in tokenize_items(items, jobs, options=options):
        if isinstance(tokens, MailParseError):
            report(item.name, f"skipped: {tokens}")
        else:
            yield item.name, tokens, None
