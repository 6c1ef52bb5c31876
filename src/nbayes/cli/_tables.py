"""Reading and writing tables for the CLI: CSV, TSV, Parquet, JSON lines, or stdin/stdout.

Text formats are read with every column as strings, so a column's values look the
same to ``train`` and ``predict`` whatever else the file holds; the encoder parses
numbers itself. pandas (and pyarrow for Parquet) come with the ``cli`` extra.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import click

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
_COMPRESSION = {".gz", ".bz2", ".xz", ".zst", ".zip"}


class CLIError(click.ClickException):
    """Bad input: printed as one line on stderr, exit status 2."""

    exit_code = 2


def pandas():
    try:
        import pandas
    except ImportError:
        raise CLIError("this command needs pandas: pip install 'nbayes[cli]'") from None
    return pandas


def table_format(path: str, given: str | None) -> str:
    """The format of ``path``: ``given``, else from its suffix (CSV for stdin)."""
    if given:
        return given
    if path == "-":
        return "csv"
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSION:
        suffixes.pop()
    if suffixes and suffixes[-1] in FORMATS:
        return FORMATS[suffixes[-1]]
    raise CLIError(
        f"{path}: cannot tell the format from the suffix; use --format "
        f"(one of {', '.join(sorted(set(FORMATS.values())))})"
    )


def read_table(path: str, fmt: str | None = None, chunksize: int | None = None):
    """The table at ``path`` ('-' = stdin): a DataFrame, or an iterator of DataFrames
    of at most ``chunksize`` rows."""
    pd = pandas()
    fmt = table_format(path, fmt)
    if path != "-" and not Path(path).is_file():
        raise CLIError(f"{path}: no such file")
    if path != "-" and Path(path).stat().st_size == 0:
        raise CLIError(f"{path}: the file is empty")
    if fmt == "parquet":
        return _read_parquet(path, chunksize)
    source = sys.stdin if path == "-" else path
    try:
        if fmt in ("csv", "tsv"):
            sep = "\t" if fmt == "tsv" else ","
            return pd.read_csv(source, sep=sep, dtype=str, chunksize=chunksize)
        return pd.read_json(source, lines=True, dtype=False, chunksize=chunksize)
    except pd.errors.EmptyDataError:
        raise CLIError(f"{'stdin' if path == '-' else path}: no data (empty input)") from None


def _read_parquet(path: str, chunksize: int | None):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise CLIError("Parquet needs pyarrow: pip install 'nbayes[cli]'") from None
    source = io.BytesIO(sys.stdin.buffer.read()) if path == "-" else path
    if chunksize is None:
        return pq.read_table(source).to_pandas()
    parquet = pq.ParquetFile(source)
    return (batch.to_pandas() for batch in parquet.iter_batches(batch_size=chunksize))


def chunks(path: str, fmt: str | None, chunksize: int) -> Iterator:
    """DataFrames of at most ``chunksize`` rows, reading the input once, lazily."""
    reader = read_table(path, fmt, chunksize=chunksize)
    with reader if hasattr(reader, "__enter__") else _nothing():
        yield from reader


@contextmanager
def _nothing():
    yield


@contextmanager
def output_stream(path: str | None) -> Iterator[IO[str]]:
    """A text stream to ``path`` (stdout for None or '-'), replaced atomically."""
    if path in (None, "-"):
        yield sys.stdout
        return
    target = Path(path)
    handle = tempfile.NamedTemporaryFile(
        "w", dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def write_frame(frame, stream: IO[str], fmt: str, first: bool) -> None:
    """Append ``frame`` to ``stream`` as CSV (header on the first chunk) or JSON lines."""
    if fmt == "jsonl":
        text = frame.to_json(orient="records", lines=True)
        stream.write(text if text.endswith("\n") or not text else text + "\n")
    else:
        frame.to_csv(stream, header=first, index=False, sep="\t" if fmt == "tsv" else ",")
