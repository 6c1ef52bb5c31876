"""``nbayes spam evaluate``: k-fold cross-validation, or the TREC Spam Track's incremental
run (each message scored, then learnt, in date order), with the TREC measures; with
``--classes`` (or ``--class NAME SRC`` naming a class other than spam and ham) the
cross-validation of the multi-class verdict (:mod:`nbayes.spam.class_evaluation`)."""

from __future__ import annotations

import json
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
from nbayes.spam.class_evaluation import cross_val_class_log_posterior, evaluate_classes
from nbayes.spam.classes import TWO_CLASSES, check_class, class_order
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
from nbayes.spam.sources import MailItem, iter_mail, open_regular, problem
from nbayes.spam.tokens import DEFAULT_OPTIONS
from nbayes.spam.train import interleave, interleave_classes, tokenized


def _class_sources(_ctx, _param, value: tuple[tuple[str, str], ...]) -> tuple:
    """``--class NAME SRC`` pairs, each name checked (:func:`check_class`)."""
    for name, _ in value:
        if name not in TWO_CLASSES:
            try:
                check_class(name)
            except ValueError as error:
                raise click.BadParameter(str(error)) from None
    return value


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
    "--class",
    "class_sources",
    nargs=2,
    multiple=True,
    type=(str, MAIL_SOURCE),
    callback=_class_sources,
    metavar="NAME SRC",
    help="Mail of class NAME (repeatable; spam and ham are --spam and --ham): more than "
    "two classes are evaluated as --classes.",
)
@click.option(
    "--classes",
    "multiclass",
    is_flag=True,
    help="Cross-validate the multi-class verdict (classify --classes), every message "
    "learnt: accuracy, macro F1, log loss, per-class precision and recall, confusion.",
)
@click.option(
    "--index",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A TREC Spam Track index instead of --spam/--ham: lines 'spam PATH' or 'ham PATH' "
    "(with --classes, 'CLASS PATH'), paths relative to the index's folder, in the order "
    "the messages arrived.",
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
@click.option("--json", "as_json", is_flag=True, help="Print the measures as one JSON object.")
@exclude_option
@jobs_option
@token_options
@scoring_options
def evaluate(
    spam_sources, ham_sources, class_sources, multiclass, index, incremental, mode, tone, thick,
    certainty, folds, seed, as_json, exclude, jobs, tokens, settings,
) -> None:  # fmt: skip
    """Cross-validate the filter on labelled mail, or run it incrementally (--incremental);
    with --classes, cross-validate the multi-class verdict."""
    spam_sources = (*spam_sources, *(src for name, src in class_sources if name == "spam"))
    ham_sources = (*ham_sources, *(src for name, src in class_sources if name == "ham"))
    others = {}
    for name, src in class_sources:
        if name not in TWO_CLASSES:
            others.setdefault(name, []).append(src)
    if index is not None and (spam_sources or ham_sources or others):
        raise click.UsageError("give --index or --spam/--ham/--class, not both")
    if multiclass or others:
        _evaluate_classes(
            spam_sources, ham_sources, others, index, incremental, mode, tone, thick, certainty,
            folds, seed, as_json, exclude, jobs, tokens, settings,
        )  # fmt: skip
        return
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
    X, labels = _read_rows(labelled, index is not None, tokens, jobs)
    y = (np.asarray(labels) == "spam").astype(int)
    if incremental:
        if y.sum() == 0 or y.sum() == len(y):
            raise click.ClickException("need spam and ham messages")
        scores, learnt = incremental_scores_matrix(
            X, y, settings, thick=thick or 0.0, log_odds=True, **learning
        )
        run = {"incremental": True, "learnt": int(learnt.sum())}
        lines = [
            f"messages\t{int(y.sum())} spam, {int(len(y) - y.sum())} ham, incremental",
            f"training\t{mode}: {int(learnt.sum())} of {len(y)} learnt",
        ]
    else:
        if y.sum() < folds or (len(y) - y.sum()) < folds:
            raise click.ClickException(f"need at least {folds} spam and {folds} ham messages")
        folds_ = fold_indices(y, folds, seed)
        scores = cross_val_scores_matrix(X, y, settings, folds_, log_odds=True, **learning)
        run = {"folds": folds}
        lines = [
            f"messages\t{int(y.sum())} spam, {int(len(y) - y.sum())} ham, {folds} folds",
            f"training\t{mode}",
        ]
    result = evaluate_scores(y, scores, settings, log_odds=True)
    if as_json:
        verdicts = ("Spam", "Unsure", "Ham")
        click.echo(json.dumps({
            "messages": {"spam": int(y.sum()), "ham": int(len(y) - y.sum())},
            **run, "mode": mode, "roc_auc": result.roc_auc,
            "one_minus_roca_percent": result.one_minus_roca,
            "caught_at_0.1%_fpr": result.caught_at_01, "caught_at_1%_fpr": result.caught_at_1,
            "cutoffs": [settings.ham_cutoff, settings.spam_cutoff],
            "confusion": {label: {v: result.confusion[(label, v)] for v in verdicts}
                          for label in ("spam", "ham")},
        }))  # fmt: skip
        return
    for line in lines:
        click.echo(line)
    click.echo(f"ROC AUC\t{result.roc_auc:.6f}")
    click.echo(f"1-ROCA %\t{result.one_minus_roca:.4f}")
    click.echo(f"spam caught at 0.1% FPR\t{100 * result.caught_at_01:.2f}%")
    click.echo(f"spam caught at 1% FPR\t{100 * result.caught_at_1:.2f}%")
    click.echo(f"confusion at cutoffs {settings.ham_cutoff} / {settings.spam_cutoff}")
    click.echo("true\\verdict\tSpam\tUnsure\tHam")
    for label in ("spam", "ham"):
        row = "\t".join(str(result.confusion[(label, v)]) for v in ("Spam", "Unsure", "Ham"))
        click.echo(f"{label}\t{row}")


def _evaluate_classes(
    spam_sources, ham_sources, others, index, incremental, mode, tone, thick, certainty, folds,
    seed, as_json, exclude, jobs, tokens, settings,
) -> None:  # fmt: skip
    """``evaluate --classes``: the multi-class verdict cross-validated, every message learnt."""
    mode_given = click.get_current_context().get_parameter_source("mode")
    if incremental:
        raise click.UsageError("--incremental is the two-class TREC run: not with --classes")
    if (
        tone
        or thick is not None
        or certainty is not None
        or (mode != "everything" and mode_given != click.core.ParameterSource.DEFAULT)
    ):
        raise click.UsageError(
            "--classes learns every message (--mode everything): no --mode, --tone, --thick "
            "or --certainty, which judge the two-class score"
        )
    if index is not None:
        labelled = _indexed(index, any_class=True)
    else:
        sources = {"spam": spam_sources, "ham": ham_sources, **others}
        labelled = interleave_classes({
            name: iter_mail(paths, exclude=exclude, on_error=report)
            for name, paths in sources.items() if paths
        })  # fmt: skip
    X, labels = _read_rows(labelled, index is not None, tokens, jobs)
    classes = class_order(labels)
    if len(classes) < 2:
        found = f"only {classes[0]}" if classes else "none"
        raise click.ClickException(
            f"--classes needs mail of at least two classes (found {found}): give more "
            "--spam, --ham or --class NAME SRC"
        )
    y = np.array([classes.index(label) for label in labels], dtype=np.intp)
    support = np.bincount(y, minlength=len(classes))
    if support.min() < folds:
        few = ", ".join(f"{n} {c}" for c, n in zip(classes, support, strict=True) if n < folds)
        raise click.ClickException(
            f"need at least {folds} messages of every class for {folds} folds (found {few}):"
            " give more mail or fewer --folds"
        )
    folds_ = fold_indices(y, folds, seed)
    log_post = cross_val_class_log_posterior(X, y, classes, folds_, settings.alpha)
    result = evaluate_classes(y, log_post, classes)
    if as_json:
        click.echo(json.dumps({"folds": folds, "mode": "everything", **result.as_dict()}))
        return
    counts = ", ".join(f"{n} {c}" for c, n in zip(classes, result.support, strict=True))
    click.echo(f"messages\t{counts}, {folds} folds")
    click.echo("training\teverything")
    click.echo(f"accuracy\t{result.accuracy:.4f}")
    click.echo(f"macro F1\t{result.macro_f1:.4f}")
    click.echo(f"log loss\t{result.log_loss:.4f} nats")
    click.echo("class\tprecision\trecall\tF1\tmessages")
    for j, name in enumerate(classes):
        click.echo(
            f"{name}\t{result.precision[j]:.4f}\t{result.recall[j]:.4f}\t{result.f1[j]:.4f}"
            f"\t{result.support[j]}"
        )
    click.echo("confusion (rows: true class; columns: verdict)")
    click.echo("true\\verdict\t" + "\t".join(classes))
    for name, row in zip(classes, result.confusion, strict=True):
        click.echo(name + "\t" + "\t".join(str(n) for n in row))


def _read_rows(labelled, indexed: bool, tokens, jobs) -> tuple:
    """The labelled messages tokenized: their binary token matrix (n, n_tokens) and labels
    (n,), in arrival order (an index's order, else by date): the stream of an
    incremental run, and the order folds learn in."""
    rows, labels, dates = TokenRows(), [], []
    with progress_bar("reading") as bar:
        options = tokens or DEFAULT_OPTIONS
        for message, raw, label in tokenized(labelled, report, jobs=jobs, options=options):
            rows.add(message)
            labels.append(label)
            dates.append(None if indexed else mail_date(raw))
            bar.update(1)
    order = date_order(dates)
    return rows.matrix(order), [labels[i] for i in order]


#: The longest index line read (characters): a label, a space and a path (Linux's
#: PATH_MAX is 4,096 bytes); a longer one is an error, not a line held whole in memory.
MAX_INDEX_LINE = 16 * 1024


def _index_lines(index: Path) -> Iterator[tuple[int, str]]:
    """(number, line) of an index file, each line at most :data:`MAX_INDEX_LINE`
    characters; a file that is not a regular file (``/dev/zero``, a FIFO that would wait
    for ever: :func:`~nbayes.spam.sources.open_regular`) or a longer line is a usage
    error, before it fills the memory."""
    import io

    try:
        raw = open_regular(index)
    except OSError as error:
        message = f"{index}: {problem(error, index)}: give an index file"
        raise click.ClickException(message) from None
    with io.TextIOWrapper(raw, encoding="utf-8", errors="replace") as lines:
        number = 0
        while line := lines.readline(MAX_INDEX_LINE + 1):
            number += 1
            if len(line) > MAX_INDEX_LINE:
                raise click.ClickException(
                    f"{index}:{number}: a line longer than {MAX_INDEX_LINE:,} characters: "
                    "not an index (lines 'CLASS PATH')"
                )
            yield number, line


def _indexed(index: Path, *, any_class: bool = False) -> Iterator[tuple[MailItem, str]]:
    """The messages of a TREC index, in its order (with ``any_class``, lines of any class
    name :func:`check_class` allows); a bad line is a usage error."""
    for number, line in _index_lines(index):
        if not line.strip():
            continue
        label, _, path = line.strip().partition(" ")
        label = label.lower()
        if not path.strip() or (label not in TWO_CLASSES and not any_class):
            expected = "'CLASS PATH'" if any_class else "'spam PATH' or 'ham PATH'"
            raise click.ClickException(f"{index}:{number}: expected {expected}")
        if label not in TWO_CLASSES:
            try:
                check_class(label)
            except ValueError as error:
                raise click.ClickException(f"{index}:{number}: {error}") from None
        for item in iter_mail([index.parent / path.strip()], on_error=report):
            yield item, label
