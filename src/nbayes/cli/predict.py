"""``nbayes predict``: classify a table with a model file, streaming it in chunks."""

from __future__ import annotations

from pathlib import Path

import click

from nbayes.cli._encoding import load_cli_model
from nbayes.cli._options import read_options, read_spec
from nbayes.cli._output import PredictionWriter, output_stream
from nbayes.cli._progress import on_terminal
from nbayes.cli._tables import CLIError, Source
from nbayes.cli.paths import guard_outputs

OUTPUT_FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def output_format(output: str | None, given: str | None) -> str:
    """``--to``, else from the -o suffix; CSV for stdout and devices (/dev/null)."""
    if given:
        return given
    if output in (None, "-"):
        return "csv"
    for suffix, fmt in OUTPUT_FORMATS.items():
        if output.lower().endswith(suffix):
            return fmt
    if Path(output).exists() and not Path(output).is_file():
        return "csv"
    raise CLIError(f"{output}: cannot tell the output format from the suffix; use --to")


@guard_outputs(outputs=["output"], inputs=["model_file", "data"])
@click.command()
@click.argument("model_file", metavar="MODEL")
@click.argument("data")
@click.option("--proba", is_flag=True, help="Also write P(class | row) for every class.")
@click.option("--output", "-o", default=None, help="Output file (default: stdout).")
@click.option(
    "--to",
    "out_fmt",
    type=click.Choice(["csv", "tsv", "jsonl"]),
    default=None,
    help="Output format (default: from the -o suffix, else csv).",
)
@read_options
@click.option(
    "--chunk-size", default=100_000, show_default=True, help="At most this many rows at once."
)
def predict(model_file, data, proba, output, out_fmt, chunk_size, **reading) -> None:
    """Predict the class of every row of DATA ('-' = stdin) with MODEL.

    DATA is read in chunks, so memory stays bounded however large it is; the reading
    options default to those the model was trained with.
    """
    if chunk_size < 1:
        raise CLIError("--chunk-size must be at least 1")
    model, encoder, _, trained = load_cli_model(model_file)
    out_fmt = output_format(output, out_fmt)
    source = Source(
        data, read_spec(**reading).or_(trained), {len(encoder.features): encoder.features}
    )
    with output_stream(output) as stream:
        writer = PredictionWriter(stream, out_fmt, model.classes_, proba)
        for batch in source.batches(chunk_size, progress=on_terminal()):
            X = encoder.transform(batch.table, source, batch.offset)
            with encoder.naming_bad_values(source, batch.offset):
                probabilities = model.predict_proba(X)
            writer.write(probabilities.argmax(axis=1), probabilities if proba else None)
        if writer.rows == 0:
            raise CLIError(f"{source.name}: no rows to predict")
    if output not in (None, "-"):
        click.echo(f"wrote {writer.rows} predictions to {output}", err=True)
