"""``nbayes spam train`` and ``nbayes spam unlearn``."""

from __future__ import annotations

import click

from nbayes.cli.paths import guard_outputs
from nbayes.cli.spam.options import (
    MAIL_SOURCE,
    certainty_option,
    db_option,
    exclude_option,
    jobs_option,
    lock_timeout_option,
    open_store,
    progress_bar,
    report,
    scoring_options,
    thick_option,
    token_options,
    user_option,
)
from nbayes.spam.learning import DEFAULT_CERTAINTY, MODES
from nbayes.spam.sources import iter_mail
from nbayes.spam.store import NotTrainedError
from nbayes.spam.store_options import store_options
from nbayes.spam.train import batched, interleave, tokenized
from nbayes.spam.train import train as train_store

sources = [
    click.option(
        "--spam",
        "spam_sources",
        multiple=True,
        type=MAIL_SOURCE,
        metavar="SRC",
        help="Spam: a file, directory, mbox or maildir (repeatable).",
    ),
    click.option(
        "--ham",
        "ham_sources",
        multiple=True,
        type=MAIL_SOURCE,
        metavar="SRC",
        help="Ham: a file, directory, mbox or maildir (repeatable).",
    ),
]


def _with_sources(command):
    for option in reversed(sources):
        command = option(command)
    return command


@guard_outputs(outputs=["db"], inputs=["spam_sources", "ham_sources"])
@click.command()
@db_option
@user_option
@lock_timeout_option
@_with_sources
@exclude_option
@click.option(
    "--mode",
    type=click.Choice(MODES),
    default=MODES[0],
    show_default=True,
    help="Which messages to learn: all but those already classified right beyond "
    "--certainty (unless-sure), every one, only errors (TONE), or until mature.",
)
@click.option(
    "--tone",
    is_flag=True,
    help="Train on or near error: the same as --mode on-error.",
)
@thick_option
@certainty_option
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Messages per transaction.",
)
@jobs_option
@token_options
@scoring_options
def train(
    db, user, lock_timeout, spam_sources, ham_sources, exclude, mode, tone, thick, certainty,
    batch_size, jobs, tokens, settings,
) -> None:
    """Learn spam and ham messages into the token database DB."""
    if not spam_sources and not ham_sources:
        raise click.UsageError("give at least one --spam or --ham source")
    if tone:
        if mode not in (MODES[0], "on-error"):
            raise click.UsageError(f"--tone is --mode on-error, not --mode {mode}")
        mode = "on-error"
    if thick is not None and mode not in ("on-error", "until-mature"):
        raise click.UsageError("--thick applies to --tone (--mode on-error) and until-mature")
    if certainty is not None and mode != "unless-sure":
        raise click.UsageError("--certainty applies to --mode unless-sure")
    with open_store(db, lock_timeout, create=True, user=user) as store:
        options = store_options(store, tokens)
        spam = iter_mail(spam_sources, exclude=exclude, on_error=report)
        ham = iter_mail(ham_sources, exclude=exclude, on_error=report)
        with progress_bar("training") as bar:
            result = train_store(
                store,
                interleave(spam, ham),
                mode=mode,
                settings=settings,
                batch_size=batch_size,
                margin=thick,
                certainty=DEFAULT_CERTAINTY if certainty is None else certainty,
                on_error=report,
                progress=bar.update,
                jobs=jobs,
                options=options,
            )
    sure = f", {result.sure} already sure" if mode == "unless-sure" else ""
    click.echo(
        f"learnt {result.learnt['spam']} spam and {result.learnt['ham']} ham "
        f"({result.seen} read, {result.skipped} skipped{sure}, {result.passes} pass(es))"
    )


@guard_outputs(outputs=["db"], inputs=["spam_sources", "ham_sources"])
@click.command()
@db_option
@user_option
@lock_timeout_option
@_with_sources
@exclude_option
def unlearn(db, user, lock_timeout, spam_sources, ham_sources, exclude) -> None:
    """Reverse the training of these messages exactly (all or nothing)."""
    if not spam_sources and not ham_sources:
        raise click.UsageError("give at least one --spam or --ham source")
    with open_store(db, lock_timeout, user=user) as store:
        spam = iter_mail(spam_sources, exclude=exclude, on_error=report)
        ham = iter_mail(ham_sources, exclude=exclude, on_error=report)
        options = store_options(store)
        messages = list(tokenized(interleave(spam, ham), on_error=report, options=options))
        try:
            with store.transaction():
                for batch in batched(messages, 1000):
                    store.check_trained(batch)
                    store.add(batch, sign=-1)
                store.remove_empty()
        except NotTrainedError as error:  # any other StoreError: exit 3, as everywhere
            raise click.ClickException(f"nothing unlearnt: {error}") from None
    n_spam = sum(label == "spam" for _, _, label in messages)
    click.echo(f"unlearnt {n_spam} spam and {len(messages) - n_spam} ham")
