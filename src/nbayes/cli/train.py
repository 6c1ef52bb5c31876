"""``nbayes train``: fit a model on a table and write a safe model file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click
import numpy as np

import nbayes
from nbayes.cli._encoding import (
    COLUMN_KINDS,
    MODEL_NAMES,
    MODELS,
    TableEncoder,
    as_labels,
    infer_kind,
    mixed_model_class,
)
from nbayes.cli._tables import CLIError, read_table


def parse_columns(specs: tuple[str, ...], columns: list[str]) -> dict[str, str]:
    """``("age=kde", ...)`` as ``{"age": "kde"}``, every name and kind checked."""
    out = {}
    for spec in specs:
        name, sep, kind = spec.partition("=")
        name, kind = name.strip(), kind.strip().lower()
        if not sep or not name:
            raise CLIError(f"--column {spec!r}: expected NAME=KIND")
        if name not in columns:
            raise CLIError(f"--column {spec!r}: no column {name!r} in the data")
        if kind not in COLUMN_KINDS:
            raise CLIError(
                f"--column {spec!r}: unknown column kind {kind!r} "
                f"(one of {', '.join(COLUMN_KINDS)})"
            )
        out[name] = kind
    return out


def parse_params(specs: tuple[str, ...]) -> dict:
    """``("alpha=0", "priors=[0.5,0.5]")`` as ``{"alpha": 0, "priors": [0.5, 0.5]}``:
    values are JSON where they parse as JSON, else strings."""
    params = {}
    for spec in specs:
        name, sep, text = spec.partition("=")
        if not sep or not name.strip():
            raise CLIError(f"--param {spec!r}: expected NAME=VALUE")
        try:
            params[name.strip()] = json.loads(text)
        except json.JSONDecodeError:
            params[name.strip()] = text.strip()
    return params


def choose_model(model: str, kinds: dict[str, str], overridden: set[str]):
    """The estimator for ``--model`` given the column kinds; kinds updated in place."""
    used = {name: kind for name, kind in kinds.items() if kind != "ignore"}
    if not used:
        raise CLIError("no feature columns left to train on")
    if model == "auto":
        distinct = set(used.values())
        single = [m for m, (_, kind) in MODELS.items() if distinct == {kind}]
        model = single[0] if single else "mixed"
    if model == "mixed":
        cls = mixed_model_class()
        if cls is None:
            found = ", ".join(f"{n}={k}" for n, k in used.items())
            raise CLIError(
                f"columns of different kinds ({found}) need the mixed model "
                "(nbayes.NaiveBayes), which this nbayes does not have yet; pick one "
                "--model, or drop columns with --column NAME=ignore"
            )
        return cls(columns=dict(used)), False
    cls, kind = MODELS[model]
    clash = [n for n in overridden if used.get(n, kind) != kind]
    if clash:
        raise CLIError(
            f"--model {model} models every column as {kind}, but --column gives "
            f"{', '.join(f'{n}={kinds[n]}' for n in clash)}; use --model mixed"
        )
    for name in used:
        kinds[name] = kind
    estimator = cls(handle_unknown="ignore") if cls is nbayes.CategoricalNB else cls()
    return estimator, True


@click.command()
@click.argument("data")
@click.option("--target", "-t", required=True, help="The column holding the class labels.")
@click.option(
    "--model",
    "-m",
    default="auto",
    show_default=True,
    help=f"One of {', '.join(MODEL_NAMES)}.",
)
@click.option(
    "--column",
    "-c",
    "column_specs",
    multiple=True,
    metavar="NAME=KIND",
    help=f"Override a column's kind ({', '.join(COLUMN_KINDS)}); repeatable.",
)
@click.option(
    "--param",
    "-p",
    "param_specs",
    multiple=True,
    metavar="NAME=VALUE",
    help="Set a model parameter, e.g. alpha=0 or priors=[0.5,0.5] (JSON); repeatable.",
)
@click.option("--format", "fmt", default=None, help="Input format: csv, tsv, parquet, jsonl.")
@click.option("--output", "-o", required=True, help="Where to write the model file.")
def train(data, target, model, column_specs, param_specs, fmt, output) -> None:
    """Fit a naive Bayes model on DATA (CSV, TSV, Parquet, JSON lines; '-' = stdin)."""
    model = model.lower()
    if model not in MODEL_NAMES:
        raise CLIError(f"unknown model {model!r} (one of {', '.join(MODEL_NAMES)})")
    frame = read_table(data, fmt)
    if target not in frame.columns:
        raise CLIError(
            f"no target column {target!r} in {data}; columns are: {', '.join(frame.columns)}"
        )
    if frame.empty:
        raise CLIError(f"{data}: no rows to train on")
    features = [c for c in frame.columns if c != target]
    overrides = parse_columns(column_specs, features)
    kinds = {name: overrides.get(name) or infer_kind(frame[name]) for name in features}
    inferred = dict(kinds)
    estimator, ordinal = choose_model(model, kinds, set(overrides))
    params = parse_params(param_specs)
    unknown = sorted(set(params) - set(estimator.get_params()))
    if unknown:
        raise CLIError(
            f"--param: {type(estimator).__name__} has no parameter(s) {', '.join(unknown)} "
            f"(it has {', '.join(estimator.get_params())})"
        )
    estimator.set_params(**params)
    y = as_labels(frame[target])
    encoder = TableEncoder.fit(frame, kinds, ordinal=ordinal)
    X = encoder.transform(frame)
    estimator.fit(X, y)

    click.echo(f"read {len(frame)} rows, {len(frame.columns)} columns from {data}")
    counts = Counter(y.tolist())
    click.echo(
        f"target {target!r}: {len(counts)} classes ("
        + ", ".join(f"{label} {counts[label]}" for label in estimator.classes_.tolist())
        + ")"
    )
    for name in features:
        how = "given" if name in overrides else f"inferred {inferred[name]}"
        detail = ""
        if name in encoder.categories:
            detail = f", {len(encoder.categories[name])} values"
        click.echo(f"  {name}: {kinds[name]} ({how}{detail})")
    click.echo(f"model: {estimator!r}")
    accuracy = float(np.mean(estimator.predict(X) == y))
    click.echo(f"training accuracy: {accuracy:.4f}")
    metadata = {"cli": {"target": target, "encoder": encoder.to_json()}}
    nbayes.save(estimator, output, metadata=metadata)
    click.echo(f"wrote {output} ({Path(output).stat().st_size} bytes)")
