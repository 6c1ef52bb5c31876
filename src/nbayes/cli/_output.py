"""Writing the CLI's tables: predictions as CSV, TSV or JSON lines through pyarrow,
to a file (replaced atomically), a device such as /dev/null, or stdout."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import numpy as np

from nbayes.cli._tables import CLIError, csv_line, pyarrow
from nbayes.core.atomic import atomic_file

#: Characters that make a CSV value need quotes.
_STRUCTURAL = set(",\t\"'\r\n")


@contextmanager
def output_stream(path: str | None) -> Iterator[IO[bytes]]:
    """A binary stream to ``path`` (stdout for None or '-'): a regular file is
    replaced atomically when the writing is done; a device or pipe is written as it is."""
    if path in (None, "-"):
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    target = Path(path)
    if target.exists() and not target.is_file():
        with open(target, "wb") as stream:
            yield stream
        return
    with atomic_file(target) as handle:
        yield handle


class PredictionWriter:
    """Appends predictions to a stream: the input columns ``kept`` (``--keep``, as
    read), the label of each row and, with ``proba``, ``P(class | row)`` for every
    class, at full precision (each float written so that it reads back as the same
    float)."""

    def __init__(
        self, stream: IO[bytes], fmt: str, classes: np.ndarray, proba: bool,
        kept: Sequence[str] = (),
    ):  # fmt: skip
        pa = pyarrow()
        self.stream, self.fmt, self.proba, self.kept = stream, fmt, proba, list(kept)
        self.names = (
            self.kept
            + ["prediction"]
            + ([f"proba_{c}" for c in classes.tolist()] if proba else [])
        )
        twice = sorted({name for name in self.names if self.names.count(name) > 1})
        if twice:
            raise CLIError(
                f"--keep: the output has its own column(s) {', '.join(map(repr, twice))}; "
                "rename the input's (or keep other columns)"
            )
        self.sep = "\t" if fmt == "tsv" else ","
        text = [str(c) for c in classes.tolist()]
        if fmt == "jsonl":
            self.labels = pa.array([json.dumps(_plain(c)) for c in classes.tolist()])
            self.keys = [json.dumps(name) for name in self.names]
        else:
            self.labels = pa.array(text)
            quoted = bool(self.kept) or any(_STRUCTURAL & set(label) for label in text)
            self.options = pa.csv.WriteOptions(
                include_header=False,
                delimiter=self.sep,
                quoting_style="needed" if quoted else "none",
            )
        self.rows = 0

    def write(
        self, index: np.ndarray, probabilities: np.ndarray | None, kept: Sequence = ()
    ) -> None:
        """Rows whose predicted class is ``classes[index]``; ``probabilities``
        (n, n_classes) with ``proba``; ``kept``, the kept input columns of these rows
        (pyarrow arrays)."""
        pa = pyarrow()
        if self.fmt == "jsonl":
            kept = [_json_values(column) for column in kept]
        columns = [*kept, self.labels.take(pa.array(index))]
        if self.proba:
            columns += [pa.array(probabilities[:, k]) for k in range(probabilities.shape[1])]
        if self.fmt == "jsonl":
            self._write_jsonl(columns)
        else:
            if self.rows == 0:
                self.stream.write(csv_line(self.names, self.sep).encode())
            table = pa.Table.from_arrays(columns, names=self.names)
            pa.csv.write_csv(table, self.stream, write_options=self.options)
        self.rows += len(index)

    def _write_jsonl(self, columns) -> None:
        pa = pyarrow()
        pc = pa.compute
        parts = []
        labels = len(self.kept)  # the kept columns are JSON text already, as are the labels
        for k, (key, column) in enumerate(zip(self.keys, columns, strict=True)):
            text = column if k <= labels else pc.cast(column, pa.string())
            parts += [("{" if k == 0 else ", ") + key + ": ", text]
        lines = pc.binary_join_element_wise(*parts, "}\n", "")
        self.stream.write(b"".join(buffer.to_pybytes() for buffer in _data(lines)))


def _json_values(column):
    """A column's values as JSON text (``null`` for missing), as a pyarrow string array."""
    pa = pyarrow()
    def text(value) -> str:
        value = _plain(value)
        if isinstance(value, float) and not math.isfinite(value):
            return "null"  # JSON has no NaN or infinity
        return json.dumps(value, default=str)

    return pa.array([text(value) for value in column.to_pylist()], type=pa.string())


def _data(strings) -> list:
    """The concatenated bytes of a string array (no nulls), as buffers."""
    pa = pyarrow()
    array = strings.combine_chunks() if isinstance(strings, pa.ChunkedArray) else strings
    _, offsets, data = array.buffers()
    bounds = np.frombuffer(offsets, dtype=np.int32)[array.offset : array.offset + len(array) + 1]
    return [data.slice(int(bounds[0]), int(bounds[-1] - bounds[0]))]


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value
