"""``nbayes explain``: the worked computation of one row's posterior."""

from __future__ import annotations

import json

import click

from nbayes.cli._encoding import load_cli_model
from nbayes.cli._tables import CLIError, chunks, pandas
from nbayes.inspection.explain import explain as explain_row


def parse_row(text: str):
    """``'a=1,b=x'`` as a one-row DataFrame of strings."""
    values = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise CLIError(f"--row: {part!r} is not NAME=VALUE")
        values[name.strip()] = value.strip()
    return pandas().DataFrame([values], dtype=str)


def row_at(data: str, fmt: str | None, index: int):
    """Row ``index`` (0-based) of DATA as a one-row DataFrame, reading only up to it."""
    if index < 0:
        raise CLIError("--index must be at least 0")
    seen = 0
    for chunk in chunks(data, fmt, 10_000):
        if index < seen + len(chunk):
            return chunk.iloc[[index - seen]].reset_index(drop=True)
        seen += len(chunk)
    raise CLIError(f"--index {index}: {data} has only {seen} rows")


@click.command()
@click.argument("model_file", metavar="MODEL")
@click.argument("data", required=False)
@click.option("--row", "row_text", default=None, help="The row as 'col=value,...'.")
@click.option("--index", "-i", type=int, default=None, help="Row number (from 0) in DATA.")
@click.option("--format", "out_fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("--input-format", "fmt", default=None, help="DATA format: csv, tsv, parquet, jsonl.")
def explain(model_file, data, row_text, index, out_fmt, fmt) -> None:
    """Show how MODEL computes the posterior of one row: --row 'col=value,...',
    or DATA --index N."""
    if (row_text is None) == (data is None or index is None):
        raise CLIError("give either --row 'col=value,...' or DATA --index N")
    model, encoder, _ = load_cli_model(model_file)
    frame = parse_row(row_text) if row_text is not None else row_at(data, fmt, index)
    X = encoder.transform(frame)
    row = X.iloc[0].tolist() if hasattr(X, "iloc") else X[0]
    shown = [frame[name].iloc[0] for name in encoder.features]
    result = explain_row(model, row, feature_names=encoder.features, display_values=shown)
    if out_fmt == "json":
        click.echo(json.dumps(result.to_dict(), indent=2, allow_nan=False))
    else:
        click.echo(result.to_text())
