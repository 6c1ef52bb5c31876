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


@guard_outputs(outputs=["output"], inputs=["model_file", "data"], parent_must_exist=True)
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
@click.option(
    "--keep",
    "keep",
    multiple=True,
    metavar="COL",
    help="Copy this input column (an id, say) into the output, before the prediction; "
    "repeatable.",
)
@click.option("--keep-all", is_flag=True, help="Copy every input column into the output.")
@read_options
@click.option(
    "--chunk-size", default=100_000, show_default=True, help="At most this many rows at once."
)
def predict(
    model_file, data, proba, output, out_fmt, keep, keep_all, chunk_size, **reading
) -> None:
    """Predict the class of every row of DATA ('-' = stdin) with MODEL.

    DATA is read in chunks, so memory stays bounded however large it is; the reading
    options default to those the model was trained with. A column of the model that
    DATA lacks is left out of every row (said on stderr) where the model leaves
    missing values out (--model mixed, aode, tan), else an error.
    """
    if chunk_size < 1:
        raise CLIError("--chunk-size must be at least 1")
    if keep and keep_all:
        raise CLIError("give --keep COL or --keep-all, not both")
    model, encoder, _, trained = load_cli_model(model_file)
    out_fmt = output_format(output, out_fmt)
    source = Source(
        data, read_spec(**reading).or_(trained), {len(encoder.features): encoder.features}
    )
    with output_stream(output) as stream:
        writer = None
        for batch in source.batches(chunk_size, progress=on_terminal()):
            if writer is None:  # the columns are known from the first batch
                kept = _kept(batch.table.column_names, keep, keep_all, source)
                absent_ok = absent_columns(encoder, batch.table.column_names, source)
                writer = PredictionWriter(stream, out_fmt, model.classes_, proba, kept)
            X = encoder.transform(batch.table, source, batch.offset, absent_ok=absent_ok)
            with encoder.naming_bad_values(source, batch.offset):
                probabilities = model.predict_proba(X)
            writer.write(
                probabilities.argmax(axis=1),
                probabilities if proba else None,
                [batch.table.column(name) for name in kept],
            )
        if writer is None:
            raise CLIError(f"{source.name}: no rows to predict")
        if writer.rows == 0:
            raise CLIError(f"{source.name}: no rows to predict")
    if output not in (None, "-"):
        click.echo(f"wrote {writer.rows} predictions to {output}", err=True)


def _kept(columns: list[str], keep: tuple[str, ...], keep_all: bool, source: Source) -> list[str]:
    """The input columns copied into the output: ``--keep``'s, or all of them."""
    if keep_all:
        return list(columns)
    unknown = [name for name in keep if name not in columns]
    if unknown:
        raise CLIError(
            f"--keep: {source.name} has no column(s) {', '.join(map(repr, unknown))} "
            f"(its columns: {', '.join(columns)})"
        )
    return list(dict.fromkeys(keep))


def absent_columns(encoder, columns: list[str], source: Source) -> bool:
    """Whether the model's columns that the input lacks are left out of every row: for
    a model that leaves missing values out, said on stderr; none lacking, nothing to
    say; else False, and the encoder refuses the input, naming them."""
    absent = [name for name in encoder.features if name not in columns]
    if not absent or not encoder.missing_ok:
        return False
    click.echo(
        f"note: {source.name} has no column(s) {', '.join(map(repr, absent))}: left out of "
        "every row, as a missing value is (the prediction uses the other columns)",
        err=True,
    )
    return True
