"""``nbayes score``: a saved model's metrics on a labelled test file
(:func:`nbayes.inspection.evaluation.evaluate_predictions`)."""

from __future__ import annotations

import json

import click
import numpy as np

from nbayes.cli._columns import labels
from nbayes.cli._encoding import load_cli_model
from nbayes.cli._options import read_options, read_spec
from nbayes.cli._progress import on_terminal
from nbayes.cli._tables import CLIError, Source
from nbayes.cli.predict import absent_columns
from nbayes.inspection.evaluation import evaluate_predictions


@click.command()
@click.argument("model_file", metavar="MODEL")
@click.argument("data")
@click.option(
    "--target",
    "-t",
    default=None,
    help="The column holding the true classes (default: the one the model was trained on).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as JSON.")
@read_options
@click.option(
    "--chunk-size", default=100_000, show_default=True, help="At most this many rows at once."
)
def score(model_file, data, target, as_json, chunk_size, **reading) -> None:
    """Score MODEL on the labelled rows of DATA ('-' = stdin): accuracy, log-loss,
    Brier score, calibration error, per-class precision/recall/F1, the confusion
    matrix and, for two classes, ROC AUC and PR AUC (as nbayes evaluate, on a test
    file instead of folds)."""
    if chunk_size < 1:
        raise CLIError("--chunk-size must be at least 1")
    model, encoder, trained_target, trained = load_cli_model(model_file)
    target = target if target is not None else trained_target
    if target is None:
        raise CLIError(f"{model_file} does not name its target column: give --target")
    features = [*encoder.features, target]
    source = Source(data, read_spec(**reading).or_(trained), {len(features): features})
    truth, probabilities, absent_ok = [], [], None
    for batch in source.batches(chunk_size, progress=on_terminal()):
        if absent_ok is None:
            if target not in batch.table.column_names:
                raise CLIError(
                    f"no target column {target!r} in {source.name}; columns are: "
                    + ", ".join(batch.table.column_names)
                )
            absent_ok = absent_columns(encoder, batch.table.column_names, source)
        truth.append(labels(batch.table.column(target), target, source, batch.offset)[0])
        X = encoder.transform(batch.table, source, batch.offset, absent_ok=absent_ok)
        with encoder.naming_bad_values(source, batch.offset):
            probabilities.append(model.predict_proba(X))
    if not truth or sum(len(t) for t in truth) == 0:
        raise CLIError(f"{source.name}: no rows to score")
    evaluation = evaluate_predictions(
        np.concatenate(truth),
        np.concatenate(probabilities),
        # the labels were read as text: the model's classes as text, to compare
        np.asarray([str(c) for c in model.classes_.tolist()]),
        name=f"{source.name}, target {target!r}",
        model=repr(model),
    )
    if as_json:
        click.echo(json.dumps(evaluation.metrics(), indent=2, default=str))
    else:
        click.echo(evaluation.to_text())
