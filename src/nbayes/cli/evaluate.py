"""``nbayes evaluate``: stratified K-fold cross-validation of a model on a table,
with an optional self-contained HTML report (:mod:`nbayes.inspection.evaluation`,
:mod:`nbayes.plot.report`)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import click
import numpy as np
from sklearn.base import clone

from nbayes.cli._options import read_spec
from nbayes.cli._tables import CLIError, Source
from nbayes.cli.paths import guard_outputs
from nbayes.cli.train import prepare, table_options
from nbayes.inspection.evaluation import cross_validate, top_features_by_class


@guard_outputs(outputs=["report"], inputs=["data"], parent_must_exist=True)
@click.command()
@click.argument("data")
@table_options
@click.option("--folds", "-k", default=5, show_default=True, help="Number of folds (≥ 2).")
@click.option("--seed", default=0, show_default=True, help="Seed of the fold shuffle.")
@click.option("--top", default=5, show_default=True, help="Informative features per class.")
@click.option("--report", "-r", default=None, help="Write a self-contained HTML report here.")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as JSON.")
def evaluate(
    data, target, model, column_specs, param_specs, folds, seed, top, report, as_json, **reading
) -> None:
    """Cross-validate a model on DATA: accuracy, per-class precision/recall/F1,
    log-loss, Brier score, calibration error, the confusion matrix and, for two
    classes, ROC AUC and PR AUC (the second class, in sorted order, is positive)."""
    if folds < 2:
        raise CLIError(f"--folds {folds}: need at least 2 folds")
    if top < 0:
        raise CLIError(f"--top {top}: must be at least 0")
    if report is not None and not Path(report).resolve().parent.is_dir():
        raise CLIError(f"--report {report}: no such directory {str(Path(report).parent)!r}")
    source = Source(data, read_spec(**reading))
    prepared = prepare(source, target, model, column_specs, param_specs)
    estimator, X, y, encoder = prepared.estimator, prepared.X, prepared.y, prepared.encoder
    evaluation = cross_validate(
        estimator, X, y, folds=folds, seed=seed, name=f"{source.name}, target {target!r}"
    )
    final = clone(estimator).fit(X, y)
    ranked = top_features_by_class(
        final, top, feature_names=encoder.features, decode=encoder.decode, X=X
    )
    evaluation = dataclasses.replace(evaluation, top_features=ranked)
    if as_json:
        info = evaluation.metrics()
        info["top_features"] = _top_json(ranked)
        click.echo(json.dumps(info, indent=2, default=str))
    else:
        prepared.describe(final)
        click.echo("")
        click.echo(evaluation.to_text(with_model=False))
        if ranked:
            click.echo("\nmost informative features (model fitted on all rows):")
            for label, entries in ranked.items():
                for feature, value, ratio, versus in entries:
                    click.echo(
                        f"  {label!s:>12} : {versus!s:<12} {feature} = {value}   {ratio:.2f} : 1"
                    )
    if report is not None:
        from nbayes.plot.report import write_report

        path = write_report(report, [evaluation], title=f"nbayes evaluate {Path(data).name}")
        click.echo(f"wrote report {path}", err=as_json)


def _top_json(ranked) -> dict | None:
    if ranked is None:
        return None
    return {
        str(label): [
            {
                "feature": feature,
                "value": _plain(value),
                "ratio": ratio if math.isfinite(ratio) else str(ratio),
                "versus": _plain(versus),
            }
            for feature, value, ratio, versus in entries
        ]
        for label, entries in ranked.items()
    }


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value
