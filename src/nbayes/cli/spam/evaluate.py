"""``nbayes spam evaluate``: k-fold cross-validation with the TREC Spam Track measures."""

from __future__ import annotations

import click
import numpy as np

from nbayes.cli.spam.options import (
    exclude_option,
    jobs_option,
    progress_bar,
    report,
    scoring_options,
)
from nbayes.spam.evaluate import cross_val_scores, evaluate_scores, fold_indices
from nbayes.spam.sources import iter_mail
from nbayes.spam.train import interleave, tokenized


@click.command()
@click.option("--spam", "spam_sources", multiple=True, required=True, metavar="SRC")
@click.option("--ham", "ham_sources", multiple=True, required=True, metavar="SRC")
@click.option("--folds", type=click.IntRange(min=2), default=10, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Fold shuffling seed.")
@exclude_option
@jobs_option
@scoring_options
def evaluate(spam_sources, ham_sources, folds, seed, exclude, jobs, settings) -> None:
    """Cross-validate the filter (training on everything) on labelled mail."""
    spam = iter_mail(spam_sources, exclude=exclude, on_error=report)
    ham = iter_mail(ham_sources, exclude=exclude, on_error=report)
    token_sets, labels = [], []
    with progress_bar("reading") as bar:
        for tokens, _, label in tokenized(interleave(spam, ham), on_error=report, jobs=jobs):
            token_sets.append(tokens)
            labels.append(label == "spam")
            bar.update(1)
    y = np.asarray(labels, dtype=int)
    if y.sum() < folds or (len(y) - y.sum()) < folds:
        raise click.ClickException(f"need at least {folds} spam and {folds} ham messages")
    scores = cross_val_scores(token_sets, y, settings, fold_indices(y, folds, seed))
    result = evaluate_scores(y, scores, settings)
    click.echo(f"messages\t{int(y.sum())} spam, {int(len(y) - y.sum())} ham, {folds} folds")
    click.echo(f"ROC AUC\t{result.roc_auc:.6f}")
    click.echo(f"1-ROCA %\t{result.one_minus_roca:.4f}")
    click.echo(f"spam caught at 0.1% FPR\t{100 * result.caught_at_01:.2f}%")
    click.echo(f"spam caught at 1% FPR\t{100 * result.caught_at_1:.2f}%")
    click.echo(f"confusion at cutoffs {settings.ham_cutoff} / {settings.spam_cutoff}")
    click.echo("true\\verdict\tSpam\tUnsure\tHam")
    for label in ("spam", "ham"):
        row = "\t".join(str(result.confusion[(label, v)]) for v in ("Spam", "Unsure", "Ham"))
        click.echo(f"{label}\t{row}")
