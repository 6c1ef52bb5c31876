"""``nbayes explain``: the worked computation of one row's posterior."""

from __future__ import annotations

import csv
import json

import click

from nbayes.cli._encoding import load_cli_model
from nbayes.cli._options import read_options, read_spec
from nbayes.cli._tables import CLIError, Source, pyarrow
from nbayes.inspection.explain import explain as explain_row


class RowSource:
    """Where a ``--row`` comes from, for error messages."""

    name = "--row"

    def where(self, row: int) -> str:
        return "--row"


#: What --to takes (and --format, for the output, as before --to).
OUTPUT_FORMATS = ("text", "json")


def parse_row(text: str):
    """The row of ``--row`` as a one-row table of text (an empty value is missing):
    ``'a=1,b=x'``, fields in CSV quoting where a value holds a comma
    (``'a=1,"note=late, again"'``), or a JSON object (``'{"note": "late, again"}'``)."""
    pa = pyarrow()
    if text.lstrip().startswith("{"):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as error:
            raise CLIError(f"--row: not a JSON object ({error})") from None
        if not isinstance(parsed, dict):
            raise CLIError("--row: not a JSON object")
        pairs = [(str(k), "" if v is None else str(v)) for k, v in parsed.items()]
    else:
        pairs = []
        for part in next(csv.reader([text], skipinitialspace=True), []):
            name, sep, value = part.partition("=")
            if not sep or not name.strip():
                raise CLIError(
                    f"--row: {part!r} is not NAME=VALUE (a value holding a comma is quoted "
                    "as in CSV: --row 'size=3,\"note=late, again\"', or give a JSON object)"
                )
            pairs.append((name.strip(), value.strip()))
    if not pairs:
        raise CLIError("--row: no NAME=VALUE field given")
    names = [name for name, _ in pairs]
    if twice := sorted({name for name in names if names.count(name) > 1}):
        raise CLIError(f"--row: {', '.join(map(repr, twice))} given more than once")
    return pa.table({name: pa.array([value or None], type=pa.string()) for name, value in pairs})


def row_at(source: Source, index: int):
    """Row ``index`` (0-based) of the input as a one-row table, and its offset,
    reading only up to it."""
    if index < 0:
        raise CLIError("--index must be at least 0")
    seen = 0
    for batch in source.batches(10_000):
        if index < batch.offset + batch.table.num_rows:
            return batch.table.slice(index - batch.offset, 1), index
        seen = batch.offset + batch.table.num_rows
    raise CLIError(f"--index {index}: {source.name} has only {seen} rows")


@click.command()
@click.argument("model_file", metavar="MODEL")
@click.argument("data", required=False)
@click.option(
    "--row",
    "row_text",
    default=None,
    help="The row as 'col=value,...' (CSV quoting for a value with a comma, or a JSON "
    "object); columns left out are missing (models that leave "
    "missing values out, such as --model mixed, marginalise them).",
)
@click.option("--index", "-i", type=int, default=None, help="Row number (from 0) in DATA.")
@click.option(
    "--to",
    "out_fmt",
    type=click.Choice(OUTPUT_FORMATS),
    default=None,
    help="Output format: text (the default) or json.",
)
@read_options(output_formats=OUTPUT_FORMATS)
def explain(model_file, data, row_text, index, out_fmt, **reading) -> None:
    """Show how MODEL computes the posterior of one row: --row 'col=value,...',
    or DATA --index N."""
    if reading["fmt"] in OUTPUT_FORMATS:  # --format json, as before --to
        if out_fmt not in (None, reading["fmt"]):
            raise CLIError(f"--format {reading['fmt']} and --to {out_fmt}: give one")
        out_fmt, reading["fmt"] = reading["fmt"], None
    out_fmt = out_fmt or "text"
    if (row_text is None) == (data is None or index is None):
        raise CLIError("give either --row 'col=value,...' or DATA --index N")
    model, encoder, _, trained = load_cli_model(model_file)
    if row_text is not None:
        table, offset, source = parse_row(row_text), 0, RowSource()
        unknown = [name for name in table.column_names if name not in encoder.features]
        if unknown:
            raise CLIError(
                f"--row names no column of the model: {', '.join(map(repr, unknown))} "
                f"(its columns: {', '.join(encoder.features)})"
            )
    else:
        source = Source(
            data, read_spec(**reading).or_(trained), {len(encoder.features): encoder.features}
        )
        table, offset = row_at(source, index)
    absent = [name for name in encoder.features if name not in table.column_names]
    columns = encoder.parsed(table, source, offset, absent_ok=True)
    left_out = [name for name, column in columns.items() if column.null_count]
    if left_out and not encoder.missing_ok:
        raise CLIError(
            f"no value for {', '.join(map(repr, left_out))}: a {type(model).__name__} needs "
            "every column (models trained with --model mixed, aode or tan leave missing "
            "values out)"
        )
    X = encoder.transform(table, source, offset, absent_ok=True)
    values = list(X.iloc[0]) if hasattr(X, "iloc") else X[0]
    # columns the row does not name are left out of it (the explanation says so)
    row = {
        name: value
        for name, value in zip(encoder.features, values, strict=True)
        if name not in absent
    }
    shown = [
        "(missing)" if name in left_out else table.column(name)[0].as_py()
        for name in encoder.features
    ]
    # the explanation lists what it left out, and the values training never gave the
    # model (a typo, another spelling or spaces)
    result = explain_row(model, row, feature_names=encoder.features, display_values=shown)
    if out_fmt == "json":
        click.echo(json.dumps(result.to_dict(), indent=2, allow_nan=False))
    else:
        click.echo(result.to_text())
