"""``nbayes predict``: classify a table with a model file, streaming it in chunks."""

from __future__ import annotations

import click

from nbayes.cli._encoding import load_cli_model
from nbayes.cli._tables import CLIError, chunks, output_stream, pandas, write_frame

OUTPUT_FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def output_format(output: str | None, given: str | None) -> str:
    if given:
        return given
    if output in (None, "-"):
        return "csv"
    for suffix, fmt in OUTPUT_FORMATS.items():
        if output.lower().endswith(suffix):
            return fmt
    raise CLIError(f"{output}: cannot tell the output format from the suffix; use --to")


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
@click.option("--format", "fmt", default=None, help="Input format: csv, tsv, parquet, jsonl.")
@click.option("--chunk-size", default=100_000, show_default=True, help="Rows per chunk.")
def predict(model_file, data, proba, output, out_fmt, fmt, chunk_size) -> None:
    """Predict the class of every row of DATA ('-' = stdin) with MODEL.

    The input is read in chunks of --chunk-size rows, so memory stays bounded.
    """
    if chunk_size < 1:
        raise CLIError("--chunk-size must be at least 1")
    model, encoder, _ = load_cli_model(model_file)
    out_fmt = output_format(output, out_fmt)
    pd = pandas()
    classes = model.classes_.tolist()
    rows = 0
    with output_stream(output) as stream:
        for chunk in chunks(data, fmt, chunk_size):
            X = encoder.transform(chunk)
            labels = model.predict(X)
            frame = pd.DataFrame({"prediction": labels})
            if proba:
                probabilities = model.predict_proba(X)
                for k, label in enumerate(classes):
                    frame[f"proba_{label}"] = probabilities[:, k]
            write_frame(frame, stream, out_fmt, first=rows == 0)
            rows += len(chunk)
        if rows == 0:
            raise CLIError(f"{data}: no rows to predict")
    if output not in (None, "-"):
        click.echo(f"wrote {rows} predictions to {output}", err=True)
