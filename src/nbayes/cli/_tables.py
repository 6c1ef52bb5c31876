"""Reading tables for the CLI through pyarrow: CSV and TSV (also compressed), Parquet,
JSON lines, or stdin.

A CSV or TSV file is read with every column as text, so each value stays as written
(``007``, ``7`` and ``7.0`` are three labels); :mod:`nbayes.cli._columns` parses the
numbers. Parquet and JSON lines keep their own types. Empty fields and pyarrow's
usual markers (``NA``, ``null``, ``NaN``, ...) are missing values, and so is every
value given with ``--na-values`` (also with spaces around it, as in ``, ?`` of the
UCI files). Errors name the file and the line (the row for Parquet).
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click

from nbayes.cli._progress import ByteProgress

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".txt": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
#: Compressed inputs: suffix -> pyarrow codec ("xz" and "zip" are read by Python).
COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4", ".br": "brotli",
               ".xz": "xz", ".zip": "zip"}  # fmt: skip
#: pyarrow's (and pandas') default missing-value markers.
NULL_VALUES = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
               "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan",
               "null")  # fmt: skip
#: Bytes looked at before reading (the first record's width, a one-line file).
_HEAD_SIZE = 1 << 16
#: Bytes pyarrow parses at once (a streamed batch): bounds predict's memory.
BLOCK_SIZE = 8 << 20


class CLIError(click.ClickException):
    """Bad input: printed as one line on stderr, exit status 2."""

    exit_code = 2


def pandas():
    try:
        import pandas
    except ImportError:
        raise CLIError("this command needs pandas: pip install 'nbayes[cli]'") from None
    return pandas


def pyarrow():
    try:
        import pyarrow
        import pyarrow.compute
        import pyarrow.csv
        import pyarrow.json
    except ImportError:
        raise CLIError("this command needs pyarrow: pip install 'nbayes[cli]'") from None
    return pyarrow


def release_unused() -> None:
    """Hand the memory pyarrow's pool keeps for reuse back to the system (the tables
    read are gone; NumPy, which allocates elsewhere, can then use it)."""
    pool = pyarrow().default_memory_pool()
    if hasattr(pool, "release_unused"):
        pool.release_unused()


@dataclass(frozen=True)
class ReadSpec:
    """How to read a table: ``--format``, ``--sep``, ``--encoding``, ``--no-header``,
    ``--na-values``, ``--no-default-na``, ``--strip-spaces``, ``--no-quoting`` (None:
    not given; :meth:`or_` fills them from another spec)."""

    fmt: str | None = None
    sep: str | None = None
    encoding: str | None = None
    header: bool | None = None
    na_values: tuple[str, ...] | None = None
    default_na: bool | None = None
    strip_spaces: bool | None = None
    quoting: bool | None = None
    #: The format the model was trained on: read where the path tells none (a file
    #: without a known suffix, stdin), unless ``--format`` is given.
    trained_fmt: str | None = None
    #: ``--max-columns``: the widest table read (None: :data:`DEFAULT_MAX_COLUMNS`).
    max_columns: int | None = None

    def or_(self, other: ReadSpec) -> ReadSpec:
        """This spec with what it leaves open taken from ``other``."""
        return replace(
            self,
            **{k: v for k, v in vars(other).items() if getattr(self, k) is None and k != "fmt"},
        )

    def missing_markers(self) -> tuple[str, ...]:
        """The values read as missing: empty, the usual markers unless
        ``--no-default-na``, and ``--na-values``."""
        defaults = ("",) if self.default_na is False else NULL_VALUES
        return (*defaults, *(self.na_values or ()))

    def to_json(self, fmt: str | None = None) -> dict[str, Any]:
        """The options given, and ``fmt``, the format the data was read in."""
        out = {k: v for k, v in vars(self).items() if v is not None}
        out.pop("fmt", None)
        out.pop("trained_fmt", None)
        return {**out, "format": fmt} if fmt is not None else out

    @classmethod
    def from_json(cls, data: Any) -> ReadSpec:
        """The reading options a model file keeps (:meth:`to_json`), each checked as its
        command-line option is: a CLIError naming the first that is not valid (a file
        from elsewhere, or tampered with), never a traceback when the table is read."""
        if not isinstance(data, dict):
            return cls()
        unknown = sorted(
            set(data) - {*_FLAGS, "sep", "encoding", "na_values", "format", "max_columns"}
        )
        if unknown:
            raise _bad_option(unknown[0], data[unknown[0]], "is not a reading option")
        for name in _FLAGS:
            if data.get(name) is not None and not isinstance(data[name], bool):
                raise _bad_option(name, data[name], "is not true or false")
        sep, encoding, na = data.get("sep"), data.get("encoding"), data.get("na_values")
        if sep is not None and not (isinstance(sep, str) and len(sep.encode()) == 1):
            raise _bad_option("sep", sep, "is not a one-character separator")
        if encoding is not None and not is_text_encoding(encoding):
            raise _bad_option("encoding", encoding, "is not a text encoding Python knows")
        if na is not None and not (
            isinstance(na, list)
            and len(na) <= MAX_NA_VALUES
            and all(isinstance(v, str) and len(v) <= MAX_NA_VALUE_LENGTH for v in na)
        ):
            raise _bad_option(
                "na_values", na, f"is not a list of at most {MAX_NA_VALUES} short strings"
            )
        widest = data.get("max_columns")
        if widest is not None and not (
            isinstance(widest, int)
            and not isinstance(widest, bool)
            and 1 <= widest <= MAX_MAX_COLUMNS
        ):
            raise _bad_option(
                "max_columns", widest, f"is not a whole number from 1 to {MAX_MAX_COLUMNS}"
            )
        fmt = data.get("format")
        if fmt is not None and fmt not in set(FORMATS.values()):
            raise _bad_option(
                "format", fmt, f"is not one of {', '.join(sorted(set(FORMATS.values())))}"
            )
        return cls(
            sep=sep,
            encoding=encoding,
            header=data.get("header"),
            na_values=tuple(na) if na is not None else None,
            default_na=data.get("default_na"),
            strip_spaces=data.get("strip_spaces"),
            quoting=data.get("quoting"),
            trained_fmt=fmt,
            max_columns=widest,
        )


#: The reading options that are switches.
_FLAGS = ("header", "default_na", "strip_spaces", "quoting")
#: The widest table read unless ``--max-columns`` says otherwise (issue 25: a 1 MB CSV
#: of 100,000 columns took 50 s and 1.7 GB; 1,000,000 aborted pyarrow), and the
#: largest ``--max-columns`` taken.
DEFAULT_MAX_COLUMNS = 10_000
MAX_MAX_COLUMNS = 10_000_000
#: Most bytes of a CSV's first record read to count its fields.
_FIRST_RECORD_BYTES = 64 << 20
#: Most missing-value markers a model file may keep, and their longest.
MAX_NA_VALUES = 1000
MAX_NA_VALUE_LENGTH = 1000


def _bad_option(name: str, value: Any, problem: str) -> CLIError:
    return CLIError(
        f"the model file's reading option read.{name}={value!r:.40} {problem}; the file was "
        "altered or not written by nbayes train: train the model again"
    )


def is_text_encoding(name: Any) -> bool:
    """Whether ``name`` is a text encoding Python knows (``latin-1``, ``cp1252``,
    ``utf-16``; not ``base64`` or ``zlib``, which code bytes to bytes, nor ``punycode``,
    which decodes in quadratic time: :func:`nbayes.core.charsets.is_charset`)."""
    from nbayes.core.charsets import is_charset

    return is_charset(name)


@dataclass(frozen=True)
class Batch:
    """Rows ``offset ..`` of a table (0-based data rows), as a pyarrow Table."""

    offset: int
    table: Any


class Source:
    """One input (a path, or '-' for stdin) and how to read it. Without a header,
    columns are named by position (``"0"``, ``"1"``, ...), or, where ``positional``
    names a list for the file's number of columns, by that list (a file to predict
    that lacks the training file's target column)."""

    def __init__(self, path: str, spec: ReadSpec = ReadSpec(), positional: dict | None = None):
        self.path, self.spec = str(path), spec
        self.positional = positional or {}
        self.name = "stdin" if self.path == "-" else self.path
        self.fmt = table_format(self.path, spec.fmt, spec.trained_fmt)
        self.text = self.fmt in ("csv", "tsv")
        self.header = True if spec.header is None else spec.header
        if not self.text and (spec.sep is not None or spec.header is False):
            raise CLIError(f"{self.name}: --sep and --no-header apply to CSV and TSV only")
        if spec.sep is not None and len(spec.sep.encode()) != 1:
            raise CLIError(f"--sep {spec.sep!r}: the separator must be one character")
        if self.path != "-":
            file = Path(self.path)
            if not file.is_file():
                raise CLIError(f"{self.path}: no such file")
            if file.stat().st_size == 0:
                raise CLIError(f"{self.path}: the file is empty")
        self.sep = spec.sep or _DEFAULT_SEP.get(self.fmt, ",")
        self.names: list[str] | None = None
        self._first_record: list[str] | None = None  # as written, from the CSV options
        self.max_columns = spec.max_columns or DEFAULT_MAX_COLUMNS

    # ------------------------------------------------------------ where
    def where(self, row: int) -> str:
        """Data row ``row`` (0-based) as the user finds it: its line in a text file
        (header counted), its row in a Parquet file (from 1)."""
        if self.fmt == "parquet":
            return f"{self.name}, row {row + 1}"
        line = self._line_of_row(row) if self.text else None
        return f"{self.name}, line {line or row + 1 + (self.text and self.header)}"

    def _line_of_row(self, row: int) -> int | None:
        """The line (from 1) on which data row ``row`` of a CSV file starts, reading it
        again with Python's csv reader (error messages only): a quoted value may span
        lines. Blank lines hold no row, as for pyarrow. None for stdin, or if unsure."""
        if self.path == "-":
            return None
        wanted = row + self.header  # the header is record 0
        encoding = self.spec.encoding or "utf-8"
        quoting = csv.QUOTE_MINIMAL if self.spec.quoting is not False else csv.QUOTE_NONE
        try:
            with closing(self._lines_again()) as raw_lines:
                lines = (line.decode(encoding) + "\n" for line in raw_lines)
                reader = csv.reader(lines, delimiter=self.sep, quoting=quoting)
                record, ended = 0, 0  # records read, and the line the last one ended on
                for fields in reader:
                    if fields:
                        if record == wanted:
                            return ended + 1
                        record += 1
                    ended = reader.line_num
        except (OSError, ValueError, csv.Error):
            return None
        return None

    def _lines_again(self) -> Iterator[bytes]:
        """The input's lines (bytes, their ends dropped), read once more from its start,
        for error messages (not for stdin, which cannot be read again)."""
        stream = self._open(progress=False)
        try:
            if isinstance(stream, str):
                stream = pyarrow().input_stream(stream, compression="detect")
            yield from _lines(stream)
        finally:
            _close(stream)

    # ------------------------------------------------------------ reading
    def read(self, progress: bool = False):
        """The whole table (a pyarrow Table), columns named, values as read."""
        pa = pyarrow()
        if self.fmt == "parquet":
            import pyarrow.parquet as pq

            source = self._parquet_source()
            self._check_parquet_width(source)
            table = self._errors(lambda: pq.read_table(source))
            return self._named(table, first=True)
        stream = self._open(progress)
        try:
            if self.fmt == "jsonl":
                self._check_json_width(stream)
                table = self._errors(lambda: pa.json.read_json(stream, **self._json_options()))
                return self._named(table, first=True)
            stream = self._line_ended(stream)
            table = self._errors(lambda: pa.csv.read_csv(stream, **self._csv_options(stream)))
            return self._named(table, first=True)
        finally:
            _close(stream)

    def batches(self, rows: int, progress: bool = False) -> Iterator[Batch]:
        """The table in batches of at most ``rows`` rows, read once, lazily (bounded
        memory: pyarrow parses :data:`BLOCK_SIZE` bytes at a time)."""
        pa = pyarrow()
        if self.fmt == "parquet":
            import pyarrow.parquet as pq

            source = self._parquet_source()
            self._check_parquet_width(source)
            parquet = self._errors(lambda: pq.ParquetFile(source))
            reader = parquet.iter_batches(batch_size=rows)
            stream = None
        else:
            stream = self._open(progress)
            if self.fmt == "jsonl":
                self._check_json_width(stream)
                options = self._json_options()
                reader = self._errors(lambda: pa.json.open_json(stream, **options))
            else:
                stream = self._line_ended(stream)
                options = self._csv_options(stream)
                reader = self._errors(lambda: pa.csv.open_csv(stream, **options))
        offset, first = 0, True
        try:
            while True:
                batch = self._errors(lambda: next(reader, None), offset)
                if batch is None:
                    return
                table = self._named(pa.Table.from_batches([batch]), first)
                first = False
                for start in range(0, table.num_rows, rows):
                    part = table.slice(start, rows)
                    yield Batch(offset, part)
                    offset += part.num_rows
        finally:
            _close(stream)

    # ------------------------------------------------------------ helpers
    def _open(self, progress: bool):
        """What pyarrow reads: the path itself (pyarrow decompresses .gz, .bz2, .zst,
        .lz4, .br), or a binary stream: stdin, xz and zip archives, or the file counted
        by a progress bar."""
        pa = pyarrow()
        if self.path == "-":
            return _Unclosed(sys.stdin.buffer)
        suffix = Path(self.path).suffix.lower()
        codec = COMPRESSION.get(suffix)
        if codec not in (None, "xz", "zip") and not pa.Codec.is_available(codec):
            raise CLIError(f"{self.name}: this pyarrow cannot read {codec} files")
        if not progress and codec not in ("xz", "zip"):
            return self.path
        raw = open(self.path, "rb")  # closed by the caller
        if progress:
            raw = ByteProgress(raw, Path(self.path).stat().st_size, Path(self.path).name)
        if codec == "xz":
            import lzma

            return lzma.LZMAFile(raw)
        if codec == "zip":
            import zipfile

            members = [m for m in zipfile.ZipFile(raw).namelist() if not m.endswith("/")]
            if len(members) != 1:
                raise CLIError(f"{self.name}: a zip archive must hold exactly one file")
            return zipfile.ZipFile(raw).open(members[0])
        if codec is not None:
            return pa.CompressedInputStream(pa.PythonFile(raw, mode="r"), codec)
        return raw

    def _head(self, stream) -> bytes:
        """The first bytes of the (decompressed) input, without consuming them."""
        if not isinstance(stream, str):
            return stream.peek(_HEAD_SIZE) if hasattr(stream, "peek") else b""
        with pyarrow().input_stream(stream, compression="detect") as again:
            return again.read(_HEAD_SIZE)

    def _line_ended(self, stream):
        """``stream``, or, for a text file of a single line without its line break
        (``printf 'Sunny,7' > row.csv``), that line with one: pyarrow reads no row from
        it ("Empty CSV file"), so a file to predict without a header lost its row.
        Files only: stdin cannot be looked at whole without reading it."""
        if not isinstance(stream, (str, _BytesReader)):
            return stream
        head = self._head(stream)
        if not head or b"\n" in head or len(head) >= _HEAD_SIZE:
            return stream
        _close(stream)
        encoder = codecs.getincrementalencoder(self.spec.encoding or "utf-8")()
        encoder.encode("x")  # past a byte-order mark: the line break alone
        return _BytesReader(head + encoder.encode("\n"))

    def _parquet_source(self):
        return io.BytesIO(sys.stdin.buffer.read()) if self.path == "-" else self.path

    def _csv_options(self, stream) -> dict[str, Any]:
        """Every column as text; columns named from the first row (the header) later."""
        pa = pyarrow()
        head = self._head(stream)
        if self.spec.sep is None:
            self._check_separator(head)
        if self.spec.quoting is None:
            self._check_quoting(head)
        self._check_csv_width(stream, head)
        width, self._first_record = _first_record(
            head, self.sep, self.spec.encoding, self.spec.quoting
        )
        nulls = list(self._missing_markers())
        return {
            "read_options": pa.csv.ReadOptions(
                autogenerate_column_names=True,
                encoding=self.spec.encoding or "utf8",
                block_size=BLOCK_SIZE,
            ),
            # a quoted value may hold line breaks: without this, pyarrow splits its
            # 8 MiB blocks at any newline, and a row across a block boundary is cut in two
            "parse_options": pa.csv.ParseOptions(
                delimiter=self.sep,
                quote_char='"' if self.spec.quoting is not False else False,
                newlines_in_values=self.spec.quoting is not False,
            ),
            "convert_options": pa.csv.ConvertOptions(
                column_types={f"f{i}": pa.string() for i in range(width)},
                strings_can_be_null=True,
                null_values=nulls,
            ),
        }

    def _check_separator(self, head: bytes) -> None:
        """Where the first line holds no default separator (``,``; a tab for TSV) but
        the first lines are fields split alike by one of ``;``, tab, ``|`` or ``,``
        (:class:`csv.Sniffer`), read the file with that one, and say so: a ``;`` file
        read with ``,`` was one column named by the whole header ("no target column
        'income'")."""
        text = head.decode(self.spec.encoding or "utf-8", "replace").removeprefix("\ufeff")
        lines = text.splitlines()[:_SNIFFED_LINES]
        if len(lines) > 1 and len(head) >= _HEAD_SIZE:
            lines = lines[:-1]  # the last may be cut short
        if not lines or self.sep in lines[0]:
            return
        try:
            found = csv.Sniffer().sniff("\n".join(lines), delimiters=_SEPARATORS).delimiter
        except csv.Error:
            return
        if found == self.sep or found not in lines[0]:
            return
        self.sep = found
        self.spec = replace(self.spec, sep=found)
        click.echo(
            f"note: {self.name}: fields are separated by {_shown(found)}, not "
            f"{_shown(_DEFAULT_SEP.get(self.fmt, ','))}; reading it so (--sep to say otherwise)",
            err=True,
        )

    def _check_quoting(self, head: bytes) -> None:
        """Where a value of the file's first lines opens with a double quote and goes on
        after the quote that would close it (``"Gimme a few" was 5 minutes ago``), the
        file does not use quotes as field quoting: read them as text, and say so. Read
        as quoting, such a quote takes the lines after it into its value whenever no
        closing quote follows on its line (the SMS Spam Collection lost 2 of its 5,574
        rows). ``--quoting`` or ``--no-quoting`` decide instead."""
        text = head.decode(self.spec.encoding or "utf-8", "replace")
        found = _quote_not_closing(text, self.sep)
        if found is None:
            return
        at, value = found
        self.spec = replace(self.spec, quoting=False)
        line = text.count("\n", 0, at) + 1
        shown = value if len(value) <= 60 else value[:28] + " ... " + value[-28:]
        click.echo(
            f"note: {self.name}, line {line}: a value opens with a quote and goes on after "
            f"the closing one ({shown!r}), so quotes are read as text in this file, not as "
            "quoting (--quoting reads them as quoting)",
            err=True,
        )

    # ------------------------------------------------------------ width
    def _too_wide(self, columns: int, exact: bool) -> CLIError:
        count = f"{columns:,} columns" if exact else f"at least {columns:,} columns"
        return CLIError(
            f"{self.name}: the table has {count}, more than nbayes reads (at most "
            f"{self.max_columns:,}); --max-columns N raises the limit"
        )

    def _check_csv_width(self, stream, head: bytes) -> None:
        """Refuse a CSV/TSV whose first record has more than ``max_columns`` fields,
        counted by Python's csv reader (quoting as pyarrow reads it), before pyarrow
        parses anything. A file is read again up to :data:`_FIRST_RECORD_BYTES` for a
        first record longer than the head; a stream (stdin, xz, zip) is judged by its head."""
        quoting = csv.QUOTE_NONE if self.spec.quoting is False else csv.QUOTE_MINIMAL
        chunks: Iterator[bytes]
        if isinstance(stream, str):
            chunks = _doubling_reads(stream, _FIRST_RECORD_BYTES)
        else:
            chunks = iter([head])
        fields, complete = _first_record_width(
            chunks, self.sep, self.spec.encoding, quoting, self.max_columns
        )
        if fields > self.max_columns:
            raise self._too_wide(fields, complete)

    def _check_parquet_width(self, source) -> None:
        """Refuse a Parquet file of more than ``max_columns`` columns, from its footer."""
        import pyarrow.parquet as pq

        columns = len(self._errors(lambda: pq.read_schema(source)).names)
        if hasattr(source, "seek"):
            source.seek(0)
        if columns > self.max_columns:
            raise self._too_wide(columns, True)

    def _check_json_width(self, stream) -> None:
        """Refuse JSON lines whose first object has more than ``max_columns`` keys (a
        first line too long to hold whole in :data:`_FIRST_RECORD_BYTES` is left to
        pyarrow). Files only: stdin is read once."""
        if not isinstance(stream, str):
            return
        import json

        text = b""
        for chunk in _doubling_reads(stream, _FIRST_RECORD_BYTES):
            text = chunk
            if b"\n" in text:
                break
        first = text.split(b"\n", 1)[0]
        try:
            record = json.loads(first)
        except ValueError:
            return  # pyarrow says what is wrong, with its line
        if isinstance(record, dict) and len(record) > self.max_columns:
            raise self._too_wide(len(record), True)

    def _json_options(self) -> dict[str, Any]:
        pa = pyarrow()
        if self.spec.encoding not in (None, "utf8", "utf-8"):
            raise CLIError(f"{self.name}: JSON lines must be UTF-8 (--encoding is for CSV)")
        return {"read_options": pa.json.ReadOptions(block_size=BLOCK_SIZE)}

    def _named(self, table, first: bool):
        """``table`` with the file's column names (the header row taken off a CSV's
        first batch), missing-value markers applied."""
        if self.names is None:
            if self.text and self.header:
                header = list(table.slice(0, 1).to_pylist()[0].values()) if table.num_rows else []
                raw = self._first_record
                if raw is not None and len(raw) == len(header):  # a column named NA, None
                    header = [raw[j] if value is None else value for j, value in enumerate(header)]
                if self.spec.strip_spaces:
                    header = [None if value is None else value.strip() for value in header]
                names = [
                    value if value not in (None, "") else f"Unnamed: {j}"
                    for j, value in enumerate(header)
                ]
            elif self.text:
                names = self.positional.get(table.num_columns) or [
                    str(j) for j in range(table.num_columns)
                ]
            else:
                names = list(table.column_names)
            repeated = [name for name, count in Counter(names).items() if count > 1]
            if repeated:
                raise CLIError(
                    f"{self.name}: the header names column(s) {', '.join(map(repr, repeated))} "
                    "more than once; every column needs its own name"
                )
            self.names = names
        if first and self.text and self.header:
            table = table.slice(1)
        if table.num_columns != len(self.names):
            raise CLIError(f"{self.name}: the columns changed part way through the file")
        table = table.rename_columns(self.names)
        if self.spec.strip_spaces:  # every value trimmed, then the markers read as missing
            return _mark_missing(table, self._missing_markers(), trim=True)
        return _mark_missing(table, self.spec.na_values) if self.spec.na_values else table

    def _missing_markers(self) -> tuple[str, ...]:
        return self.spec.missing_markers()

    def _errors(self, read, offset: int = 0):
        """``read()``, with pyarrow's errors as one line naming the file and line."""
        pa = pyarrow()
        try:
            return read()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeError) as error:
            raise CLIError(self._explain(str(error).strip(), offset)) from None
        except OSError as error:
            if getattr(error, "errno", None) is not None:
                raise
            raise CLIError(f"{self.name}: {str(error).strip().splitlines()[0]}") from None

    def _explain(self, message: str, offset: int) -> str:
        first = message.splitlines()[0] if message else "cannot read it"
        if "UTF8" in message or "UTF-8" in message or "codec can't decode" in message:
            line = self._scan(lambda text: _not_utf8(text, self.spec.encoding))
            at = f", line {line}" if line else ""
            return (
                f"{self.name}{at}: not valid {self.spec.encoding or 'UTF-8'} text; give the "
                "file's encoding, e.g. --encoding latin-1"
            )
        if "Expected" in first and "columns, got" in first:
            text = first.split(": ", 2)[-1]
            text = text.removesuffix(" ...")  # pyarrow shortens a long row so
            line = self._scan(lambda line_text: line_text.rstrip(b"\r\n").startswith(
                text.encode(self.spec.encoding or "utf8", "replace")))  # fmt: skip
            at = f", line {line}" if line else ""
            counts = first.split(":")[1].strip() if ":" in first else first
            return f"{self.name}{at}: {counts.lower()} (a row with a different number of fields)"
        if "straddling object straddles" in first:  # pyarrow's block, outgrown by one line
            line = self._scan(lambda line_text: len(line_text) > BLOCK_SIZE)
            at = f", line {line}" if line else ""
            return (
                f"{self.name}{at}: a line longer than {BLOCK_SIZE >> 20} MiB, which nbayes "
                "does not read (a quote left open, or not a table of rows?)"
            )
        if "Empty CSV file" in first or "Empty file" in first:
            return f"{self.name}: no data (empty input)"
        if " row " in first and self.fmt == "jsonl":
            tail = first.rsplit(" row ", 1)[-1].split()[0].rstrip(".:,")
            if tail.isdigit():
                changed = _TYPE_CHANGE.search(first)
                if changed:  # Column(/x/p) changed from boolean to number in row 1
                    path, before, after = changed.groups()
                    field = ".".join(path.strip("/").split("/")).replace(".[]", "[]")
                    first = (
                        f"column {field!r} holds {_JSON_TYPES.get(after, after)} where earlier "
                        f"lines hold {_JSON_TYPES.get(before, before)}; give a column one "
                        "type on every line (quote the values to read them all as text)"
                    )
                return f"{self.name}, line {offset + int(tail) + 1}: {first}"
        return f"{self.name}: {first}"

    def _scan(self, bad) -> int | None:
        """The first line (from 1) of the input for which ``bad(line bytes)`` holds,
        reading it again (error messages only; None for stdin)."""
        if self.path == "-":
            return None
        try:
            with closing(self._lines_again()) as lines:
                for number, line in enumerate(lines, start=1):
                    if bad(line):
                        return number
        except (OSError, ValueError):
            return None
        return None


#: pyarrow's words for a JSON value that changed type part way through a file.
_TYPE_CHANGE = re.compile(r"Column\((/[^)]*)\) changed from (\w+) to (\w+)")
_JSON_TYPES = {"boolean": "true/false", "number": "a number", "string": "text",
               "object": "an object", "array": "a list", "null": "null"}  # fmt: skip


def table_format(path: str, given: str | None, trained: str | None = None) -> str:
    """The format of ``path``: ``given``, else from its suffix, else ``trained`` (the
    model's training data's), else CSV for stdin."""
    if given:
        if given not in set(FORMATS.values()):
            raise CLIError(f"--format {given!r}: one of {', '.join(sorted(set(FORMATS.values())))}")
        return given
    if path == "-":
        return trained or "csv"
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in COMPRESSION:
        suffixes.pop()
    if suffixes and suffixes[-1] in FORMATS:
        return FORMATS[suffixes[-1]]
    if trained:
        return trained
    raise CLIError(
        f"{path}: cannot tell the format from the suffix; use --format "
        f"(one of {', '.join(sorted(set(FORMATS.values())))})"
    )


def _mark_missing(table, na_values: tuple[str, ...], trim: bool = False):
    """Text values that are a missing-value marker once spaces around them are
    trimmed become missing; with ``trim``, the others are trimmed too."""
    pa = pyarrow()
    pc = pa.compute
    markers = pa.array(list(na_values), type=pa.string())
    columns = []
    for column in table.columns:
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            trimmed = pc.utf8_trim_whitespace(column)
            marked = pc.is_in(trimmed, value_set=markers)
            column = pc.if_else(marked, pa.scalar(None, column.type), trimmed if trim else column)
        columns.append(column)
    return pa.Table.from_arrays(columns, names=table.column_names)


def _quote_not_closing(text: str, sep: str) -> tuple[int, str] | None:
    """Where ``text`` (a file's first lines) shows quotes that are not field quoting:
    the position of the first value that opens with a double quote whose closing quote
    (a lone ``"``; ``""`` is a quote inside) is followed by something other than the
    separator or the line's end, and that value; None where every quoted value closes
    properly. Values are walked in order from the start, so a separator or a line
    break inside a quoted value starts no value."""
    at, end = 0, len(text)
    while at < end:
        if text[at] == '"':
            close = at + 1
            while True:
                close = text.find('"', close)
                if close < 0:
                    return None  # still open where the text ends: undecided
                if text.startswith('""', close):
                    close += 2
                    continue
                break
            after = close + 1
            if after < end and text[after] not in (sep, "\r", "\n"):
                stop = min((k for k in (text.find(c, after) for c in (sep, "\n")) if k >= 0),
                           default=end)  # fmt: skip
                return at, text[at:stop].rstrip("\r")
            at = after + 1  # past the separator, or onto the \n of a \r\n
            continue
        stops = [k for k in (text.find(sep, at), text.find("\n", at)) if k >= 0]
        if not stops:
            return None
        at = min(stops) + 1
    return None


#: The separators a file may be found to use, and the lines looked at.
_SEPARATORS, _SNIFFED_LINES = ",;\t|", 20
_DEFAULT_SEP = {"csv": ",", "tsv": "\t"}


def _shown(sep: str) -> str:
    return "tabs" if sep == "\t" else repr(sep)


def _first_record(
    head: bytes, sep: str, encoding: str | None, quoting: bool | None
) -> tuple[int, list[str] | None]:
    """An upper bound of the number of columns, and the first record's values as
    written (None where the head does not hold it whole). The bound: the separators
    in the first record plus one (a quoted separator only makes it larger); the first
    record, not the first line: a quoted value may hold a line break (``"a\nb",007``
    read without a header had its second column typed, 007 read as 7.0). The values:
    a header's names, which pyarrow reads as missing where they look like a marker (a
    column named ``NA`` or ``None`` became ``Unnamed: 0``)."""
    text = head.decode(encoding or "utf-8", "replace").removeprefix("\ufeff")
    lines = io.StringIO(text, newline="")
    style = csv.QUOTE_NONE if quoting is False else csv.QUOTE_MINIMAL
    try:
        record = next(csv.reader(lines, delimiter=sep, quoting=style))
    except (csv.Error, StopIteration):
        return 1 << 12, None
    end = lines.tell()
    if end >= len(text) and not text.endswith(("\n", "\r")):  # cut off
        return 1 << 12, None
    return text[:end].count(sep) + 1, record


def _doubling_reads(path: str, limit: int) -> Iterator[bytes]:
    """The (decompressed) start of the file ``path``, longer each time (64 KiB, 128 KiB,
    ...): each item the whole start read so far, at most ``limit`` bytes."""
    with pyarrow().input_stream(path, compression="detect") as stream:
        data, size = b"", _HEAD_SIZE
        while True:
            block = stream.read(size - len(data))
            data += block
            yield data
            if not block or len(data) >= limit:
                return
            size = min(2 * size, limit)


def _first_record_width(
    starts: Iterator[bytes], sep: str, encoding: str | None, quoting: int, most: int
) -> tuple[int, bool]:
    """The number of fields of the first record (Python's csv reader) of a text whose
    ever longer starts ``starts`` gives, and whether that record was whole: reading
    stops as soon as it has more than ``most`` fields, or is whole.

    >>> _first_record_width(iter([b'a,"b,c",d\\n1,2,3\\n']), ",", None, csv.QUOTE_MINIMAL, 10)
    (3, True)
    """
    fields, complete = 0, False
    for start in starts:
        text = start.decode(encoding or "utf-8", "replace").removeprefix("\ufeff")
        lines = io.StringIO(text, newline="")
        try:
            record = next(csv.reader(lines, delimiter=sep, quoting=quoting))
        except StopIteration:
            return 0, True
        except csv.Error:
            return fields, complete  # pyarrow says what is wrong, with its line
        fields = len(record)
        complete = lines.tell() < len(text) or text.endswith(("\n", "\r"))
        if complete or fields > most:
            return fields, complete
    return fields, True  # the whole file is one record


def _lines(stream) -> Iterator[bytes]:
    """The lines of a binary stream, read in blocks."""
    rest = b""
    while True:
        block = stream.read(1 << 20)
        if not block:
            break
        *lines, rest = (rest + block).split(b"\n")
        yield from lines
    if rest:
        yield rest


def _close(stream) -> None:
    if stream is not None and not isinstance(stream, str):
        stream.close()


def csv_line(values: list[str], sep: str) -> str:
    """One CSV line (a header), quoted where needed."""
    out = io.StringIO()
    csv.writer(out, delimiter=sep, lineterminator="\n").writerow(values)
    return out.getvalue()


class _BytesReader(io.BytesIO):
    """A short input held in memory, that can be looked at (``peek``) before reading."""

    def peek(self, size: int = 0) -> bytes:
        return self.getvalue()[self.tell() :]


class _Unclosed(io.RawIOBase):
    """Stdin for pyarrow: closing it leaves stdin open."""

    def __init__(self, inner):
        self.inner = inner

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.inner.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def peek(self, size: int = 0) -> bytes:
        return self.inner.peek(size) if hasattr(self.inner, "peek") else b""


def _not_utf8(line: bytes, encoding: str | None) -> bool:
    try:
        line.decode(encoding or "utf8")
    except (UnicodeDecodeError, LookupError):
        return True
    return False
