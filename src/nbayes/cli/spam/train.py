"""``nbayes spam train`` and ``nbayes spam unlearn``.

Sources of spam and ham go with ``--spam``/``--ham``; ``--class NAME SRC...`` names the
class of the positional sources, any class name (:func:`nbayes.spam.classes.check_class`),
``--class spam`` and ``--class ham`` being ``--spam`` and ``--ham`` themselves. All the
sources are read in turn (spam, ham, then the named class), as ``interleave`` does.
"""

from __future__ import annotations

from collections import Counter

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
from nbayes.spam.train import batched, interleave, interleave_classes, tokenized
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


def _class_name(_ctx, _param, value: str | None) -> str | None:
    if value is None:
        return None
    from nbayes.spam.classes import check_class

    try:
        return check_class(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


sources += [
    click.option(
        "--class",
        "class_name",
        callback=_class_name,
        metavar="NAME",
        help="The class of the SRC arguments (ham, spam, or any name: newsletter, "
        "phishing...: lower-case letters, digits, _ and -, at most 32).",
    ),
    click.argument("class_sources", nargs=-1, type=MAIL_SOURCE, metavar="[SRC]..."),
]


def _with_sources(command):
    for option in reversed(sources):
        command = option(command)
    return command


def _labelled(spam_sources, ham_sources, class_name, class_sources, exclude):
    """The (message, class) pairs of every source, in turn (see the module docstring);
    UsageError where there is none, or SRC arguments without ``--class``."""
    if class_sources and class_name is None:
        raise click.UsageError("give --class NAME for the sources named as arguments")
    if class_name is not None and not class_sources:
        raise click.UsageError(f"--class {class_name}: give the sources of its mail (SRC...)")
    if class_name == "spam":
        spam_sources, class_name = (*spam_sources, *class_sources), None
    elif class_name == "ham":
        ham_sources, class_name = (*ham_sources, *class_sources), None
    if not spam_sources and not ham_sources and class_name is None:
        raise click.UsageError("give at least one --spam or --ham source, or --class NAME SRC...")
    spam = iter_mail(spam_sources, exclude=exclude, on_error=report)
    ham = iter_mail(ham_sources, exclude=exclude, on_error=report)
    if class_name is None:
        return interleave(spam, ham)
    other = iter_mail(class_sources, exclude=exclude, on_error=report)
    return interleave_classes({"spam": spam, "ham": ham, class_name: other})


def _others(counts: dict[str, int]) -> str:
    """``", 12 newsletter, 3 phishing"`` for the classes other than ham and spam."""
    return "".join(f", {n} {label}" for label, n in sorted(counts.items())
                   if label not in ("spam", "ham"))  # fmt: skip


@guard_outputs(outputs=["db"], inputs=["spam_sources", "ham_sources", "class_sources"])
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
    db, user, lock_timeout, spam_sources, ham_sources, class_name, class_sources, exclude, mode,
    tone, thick, certainty, batch_size, jobs, tokens, settings,
) -> None:  # fmt: skip
    """Learn spam and ham messages (or those of another class: --class NAME SRC...)
    into the token database DB."""
    labelled = _labelled(spam_sources, ham_sources, class_name, class_sources, exclude)
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
        with progress_bar("training") as bar:
            result = train_store(
                store,
                labelled,
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
        f"learnt {result.learnt['spam']} spam and {result.learnt['ham']} ham"
        f"{_others(result.learnt)} ({result.seen} read, {result.skipped} skipped{sure},"
        f" {result.passes} pass(es))"
    )


@guard_outputs(outputs=["db"], inputs=["spam_sources", "ham_sources", "class_sources"])
@click.command()
@db_option
@user_option
@lock_timeout_option
@_with_sources
@exclude_option
def unlearn(
    db, user, lock_timeout, spam_sources, ham_sources, class_name, class_sources, exclude
) -> None:
    """Reverse the training of these messages exactly (all or nothing)."""
    labelled = _labelled(spam_sources, ham_sources, class_name, class_sources, exclude)
    with open_store(db, lock_timeout, user=user) as store:
        options = store_options(store)
        messages = list(tokenized(labelled, on_error=report, options=options))
        try:
            with store.transaction():
                for batch in batched(messages, 1000):
                    store.check_trained(batch)
                    store.add(batch, sign=-1)
                store.remove_empty()
        except NotTrainedError as error:  # any other StoreError: exit 3, as everywhere
            raise click.ClickException(f"nothing unlearnt: {error}") from None
    counts = Counter(label for _, _, label in messages)
    click.echo(f"unlearnt {counts['spam']} spam and {counts['ham']} ham{_others(counts)}")
