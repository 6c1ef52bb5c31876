"""``nbayes spam evaluate``: k-fold cross-validation, or the TREC Spam Track's incremental
run (each message scored, then learnt, in date order), with the TREC measures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import numpy as np

from nbayes.cli.spam.options import (
    MAIL_SOURCE,
    certainty_option,
    exclude_option,
    jobs_option,
    progress_bar,
    report,
    scoring_options,
    thick_option,
    token_options,
)
from nbayes.spam.evaluate import (
    TokenRows,
    cross_val_scores_matrix,
    date_order,
    evaluate_scores,
    fold_indices,
    incremental_scores_matrix,
    mail_date,
)
from nbayes.spam.learning import DEFAULT_CERTAINTY, MODES
from nbayes.spam.sources import MailItem, iter_mail
from nbayes.spam.tokens import DEFAULT_OPTIONS
from nbayes.spam.train import interleave, tokenized


@click.command()
@click.option(
    "--spam", "spam_sources", multiple=True, type=MAIL_SOURCE, metavar="SRC",
    help="Spam (repeatable).",
)  # fmt: skip
@click.option(
    "--ham", "ham_sources", multiple=True, type=MAIL_SOURCE, metavar="SRC",
    help="Ham (repeatable).",
)  # fmt: skip
@click.option(
    "--index",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A TREC Spam Track index instead of --spam/--ham: lines 'spam PATH' or 'ham PATH', "
    "paths relative to the index's folder, in the order the messages arrived.",
)
@click.option(
    "--incremental",
    is_flag=True,
    help="Score each message, then learn it, in arrival order (TREC): the order of --index, "
    "else by date (topmost Received header, else Date; undated messages keep their place).",
)
@click.option(
    "--mode",
    type=click.Choice(MODES[:3]),
    default=MODES[0],
    show_default=True,
    help="How the filter learns (as nbayes spam train --mode); on-error with --incremental.",
)
@click.option("--tone", is_flag=True, help="With --incremental: the same as --mode on-error.")
@thick_option
@certainty_option
@click.option("--folds", type=click.IntRange(min=2), default=10, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Fold shuffling seed.")
@exclude_option
@jobs_option
@token_options
@scoring_options
def evaluate(
    spam_sources, ham_sources, index, incremental, mode, tone, thick, certainty, folds, seed,
    exclude, jobs, tokens, settings,
) -> None:  # fmt: skip
    """Cross-validate the filter on labelled mail, or run it incrementally (--incremental)."""
    if index is not None and (spam_sources or ham_sources):
        raise click.UsageError("give --index or --spam/--ham, not both")
    if index is None and not (spam_sources and ham_sources):
        raise click.UsageError("give --spam and --ham sources, or --index")
    if tone:
        mode = "on-error"
    if mode == "on-error" and not incremental:
        raise click.UsageError("--tone (--mode on-error) applies to --incremental")
    if thick is not None and mode != "on-error":
        raise click.UsageError("--thick applies to --tone (--mode on-error)")
    if certainty is not None and mode != "unless-sure":
        raise click.UsageError("--certainty applies to --mode unless-sure")
    learning = {"mode": mode, "certainty": DEFAULT_CERTAINTY if certainty is None else certainty}
    if index is not None:
        labelled = _indexed(index)
    else:
        spam = iter_mail(spam_sources, exclude=exclude, on_error=report)
        ham = iter_mail(ham_sources, exclude=exclude, on_error=report)
        labelled = interleave(spam, ham)
    rows, labels, dates = TokenRows(), [], []
    with progress_bar("reading") as bar:
        options = tokens or DEFAULT_OPTIONS
        for message, raw, label in tokenized(labelled, report, jobs=jobs, options=options):
            rows.add(message)
            labels.append(label == "spam")
            dates.append(None if index is not None else mail_date(raw))
            bar.update(1)
    # arrival order: the stream of an incremental run, and the order folds learn in
    order = date_order(dates)
    y = np.asarray(labels, dtype=int)[order]
    X = rows.matrix(order)
    del rows
    if incremental:
        if y.sum() == 0 or y.sum() == len(y):
            raise click.ClickException("need spam and ham messages")
        scores, learnt = incremental_scores_matrix(
            X, y, settings, thick=thick or 0.0, log_odds=True, **learning
        )
        click.echo(f"messages\t{int(y.sum())} spam, {int(len(y) - y.sum())} ham, incremental")
        click.echo(f"training\t{mode}: {int(learnt.sum())} of {len(y)} learnt")
    else:
        if y.sum() < folds or (len(y) - y.sum()) < folds:
            raise click.ClickException(f"need at least {folds} spam and {folds} ham messages")
        folds_ = fold_indices(y, folds, seed)
        scores = cross_val_scores_matrix(X, y, settings, folds_, log_odds=True, **learning)
        click.echo(f"messages\t{int(y.sum())} spam, {int(len(y) - y.sum())} ham, {folds} folds")
        click.echo(f"training\t{mode}")
    result = evaluate_scores(y, scores, settings, log_odds=True)
    click.echo(f"ROC AUC\t{result.roc_auc:.6f}")
    click.echo(f"1-ROCA %\t{result.one_minus_roca:.4f}")
    click.echo(f"spam caught at 0.1% FPR\t{100 * result.caught_at_01:.2f}%")
    click.echo(f"spam caught at 1% FPR\t{100 * result.caught_at_1:.2f}%")
    click.echo(f"confusion at cutoffs {settings.ham_cutoff} / {settings.spam_cutoff}")
    click.echo("true\\verdict\tSpam\tUnsure\tHam")
    for label in ("spam", "ham"):
        row = "\t".join(str(result.confusion[(label, v)]) for v in ("Spam", "Unsure", "Ham"))
        click.echo(f"{label}\t{row}")


def _indexed(index: Path) -> Iterator[tuple[MailItem, str]]:
    """The messages of a TREC index, in its order; a bad line is a usage error."""
    for number, line in enumerate(index.read_text(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        label, _, path = line.strip().partition(" ")
        label = label.lower()
        if label not in ("spam", "ham") or not path.strip():
            raise click.ClickException(f"{index}:{number}: expected 'spam PATH' or 'ham PATH'")
        for item in iter_mail([index.parent / path.strip()], on_error=report):
            yield item, label
