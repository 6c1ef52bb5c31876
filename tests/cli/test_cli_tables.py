"""The table readers (``nbayes.cli._tables``, ``_columns``) on hostile input (issue 25
items 6 and 7): hypothesis-made CSV, TSV, JSON lines and Parquet, ragged, oddly quoted,
in other encodings, with huge numbers and nested types. Each is read exactly, or
refused with one clear line (exit status 2), within a time limit; every hostile input
found on the way is kept in ``tests/data/hostile_tables`` and run as users run it."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nbayes.cli import main
from nbayes.cli._tables import NULL_VALUES, CLIError, ReadSpec, Source

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile_tables"
EXE = str(Path(sys.executable).with_name("nbayes"))
#: A generous bound on one example (parsing a few hundred bytes takes milliseconds): a
#: reader caught in a loop fails the test instead of hanging it.
TIME_LIMIT_S = 60
#: The address space a fixture's process may use: far more than reading these small
#: files takes, though address space counts what numba, pyarrow and each thread's stack
#: reserve (the text model's threads needed over 2 GiB), far less than a reader that
#: inflates a file without bound reaches.
MEMORY_LIMIT = 4 << 30

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=list(HealthCheck)
)


@contextlib.contextmanager
def time_limit(seconds: int = TIME_LIMIT_S):
    """Fail (TimeoutError) if the block runs longer than ``seconds``."""

    def expire(signum, frame):
        raise TimeoutError(f"took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def invoke(*args) -> tuple[int, str]:
    """Run the command in this process: (exit status, output); an exception that is
    not a clean exit fails the test."""
    with time_limit():
        result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"nbayes {' '.join(map(str, args))} raised") from result.exception
    return result.exit_code, result.output


def assert_clear(status: int, output: str) -> None:
    """Success, or one line saying what is wrong (exit status 2), never a traceback."""
    assert status in (0, 2), output
    assert "Traceback" not in output
    if status == 2:  # notes on what was found in the file may come first
        lines = [line for line in output.strip().splitlines() if not line.startswith("note: ")]
        assert len(lines) == 1 and lines[0].startswith("Error: "), output


def assert_predicts(model: Path, data: Path) -> None:
    """``nbayes predict MODEL DATA --proba`` succeeds with every row's probabilities
    finite and summing to 1, or says in one line what is wrong."""
    predictions = model.with_name("p.csv")
    status, output = invoke("predict", model, data, "--proba", "-o", predictions)
    assert_clear(status, output)
    if status != 0:
        return
    table = pa.csv.read_csv(predictions)
    columns = [name for name in table.column_names if name.startswith("proba_")]
    for row in table.select(columns).to_pylist():
        values = [float(v) for v in row.values()]
        assert all(math.isfinite(v) for v in values) and math.isclose(sum(values), 1.0), row


# ------------------------------------------------------------ CSV and TSV, exactly
#: Pieces of hostile text: quotes, separators, line breaks, markers, odd characters.
PIECES = ['"', ",", "\t", "\n", "\r", "\r\n", " ", "'", ";", "|", "\\", '""', "a", "Z", "1",
          "007", "-2.5", "1e400", "9" * 40, "NA", "?", "nan", "true", "é", "€", "\x00",
          "\ufeff", "\u2028"]  # fmt: skip
cell = st.lists(st.sampled_from(PIECES), max_size=4).map("".join) | st.text(max_size=6)


def _expected(rows: list[list[str]], header: bool) -> tuple[list[str], list[dict]]:
    width = len(rows[0])
    names = (
        [name or f"Unnamed: {j}" for j, name in enumerate(rows[0])]
        if header
        else [str(j) for j in range(width)]
    )
    data = rows[1:] if header else rows
    missing = set(NULL_VALUES)
    return names, [
        {name: None if value in missing else value for name, value in zip(names, row, strict=True)}
        for row in data
    ]


@FUZZ
@given(
    rows=st.lists(st.lists(cell, min_size=1, max_size=4), min_size=1, max_size=6),
    sep=st.sampled_from([",", "\t", ";"]),
    encoding=st.sampled_from(["utf-8", "latin-1", "utf-16"]),
    header=st.booleans(),
)
def test_a_well_formed_file_reads_exactly(tmp_path_factory, rows, sep, encoding, header):
    """What Python's csv writer writes (quoted where needed), in any of these
    encodings, reads back value for value, streamed or whole; or a header naming a
    column twice is refused in one line."""
    width = len(rows[0])
    rows = [(row + [""] * width)[:width] for row in rows]
    # a byte-order mark opening a file marks its encoding and is not read as text
    rows[0][0] = rows[0][0].lstrip("\ufeff")
    if encoding == "latin-1":
        rows = [[v.encode("latin-1", "replace").decode("latin-1") for v in r] for r in rows]
    text = io.StringIO()
    csv.writer(text, delimiter=sep).writerows(rows)  # CRLF: a lone \r is quoted too
    path = tmp_path_factory.mktemp("csv") / ("table.tsv" if sep == "\t" else "table.csv")
    path.write_bytes(text.getvalue().encode(encoding))
    spec = ReadSpec(sep=sep, encoding=encoding, header=header)
    names, expected = _expected(rows, header)
    if not expected and header:
        return  # a header alone: no table to compare
    with time_limit():
        try:
            table = Source(str(path), spec).read()
        except CLIError as error:
            message = error.format_message()
            assert "\n" not in message
            assert "more than once" in message and len(set(names)) < len(names), message
            return
        batches = [b.table for b in Source(str(path), spec).batches(2)]
    assert len(set(names)) == len(names)
    assert table.column_names == names
    assert table.to_pylist() == expected
    assert [row for batch in batches for row in batch.to_pylist()] == expected


# ------------------------------------------------------------ any bytes at all
BYTES = [p.encode() for p in PIECES] + [b"\xff", b"\xc3", b"x,y\n", b"0,1\n", b"\xef\xbb\xbf"]
OPTIONS = [[], ["--no-header"], ["--no-quoting"], ["--encoding", "latin-1"],
           ["--na-values", "?"], ["--strip-spaces"], ["--sep", ";"]]  # fmt: skip


@FUZZ
@given(
    body=st.lists(st.sampled_from(BYTES), max_size=40).map(b"".join),
    suffix=st.sampled_from(["csv", "tsv"]),
    options=st.sampled_from(OPTIONS),
    model=st.sampled_from(["auto", "mixed", "categorical"]),
)
def test_any_bytes_train_and_predict_or_say_why(tmp_path_factory, body, suffix, options, model):
    """Ragged rows, unbalanced quotes, bytes that are no text, numbers too large for a
    float: training reads the file or says in one line what is wrong with it, and a
    model trained on it predicts that same file."""
    folder = tmp_path_factory.mktemp("bytes")
    data = folder / f"table.{suffix}"
    data.write_bytes(b"x,y\n" + body)
    target = "0" if "--no-header" in options else "y"
    status, output = invoke("train", data, "-t", target, "-m", model, "-o", folder / "m.nbm",
                            *options)  # fmt: skip
    assert_clear(status, output)
    if status == 0:
        assert_predicts(folder / "m.nbm", data)


# ------------------------------------------------------------ JSON lines
scalar = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=False), st.text(max_size=5),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.sampled_from([2**53 + 1, 10**20, 1e308, "1e400", "?", "NA"]),
)  # fmt: skip
json_value = st.recursive(
    scalar, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.just("p"), inner),
    max_leaves=4,
)  # fmt: skip


@FUZZ
@given(
    values=st.lists(json_value, min_size=2, max_size=6),
    model=st.sampled_from(["auto", "mixed"]),
)
def test_json_lines_train_or_say_which_column(tmp_path_factory, values, model):
    """A column of JSON values of any shape: trained on, or one line; a column of lists
    or objects is named, with what nbayes reads."""
    folder = tmp_path_factory.mktemp("jsonl")
    data = folder / "table.jsonl"
    rows = [{"x": value, "y": "ab"[k % 2]} for k, value in enumerate(values)]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    status, output = invoke("train", data, "-t", "y", "-m", model, "-o", folder / "m.nbm")
    assert_clear(status, output)
    shapes = {type(v) for v in values if v is not None}
    if status == 2 and shapes and shapes <= {list, dict}:  # no column of plain values
        assert "column 'x" in output, output


# ------------------------------------------------------------ Parquet
ARROW_TYPES = [
    pa.int8(), pa.uint64(), pa.int64(), pa.float16(), pa.float32(), pa.float64(),
    pa.decimal128(38, 0), pa.decimal128(10, 3), pa.string(), pa.large_string(), pa.binary(),
    pa.large_binary(), pa.binary(2), pa.bool_(), pa.date32(), pa.timestamp("ns"),
    pa.timestamp("s", tz="UTC"), pa.time64("us"), pa.duration("s"), pa.null(),
    pa.dictionary(pa.int32(), pa.string()), pa.list_(pa.int64()),
    pa.struct([("p", pa.int64())]), pa.map_(pa.string(), pa.int64()),
]  # fmt: skip
NESTED = {"list": "lists", "struct": "structs", "map": "maps"}


def _column(kind, data, n: int):
    """``n`` values of Arrow type ``kind`` (with missing values), drawn from ``data``."""
    def values(strategy):
        return data.draw(st.lists(st.none() | strategy, min_size=n, max_size=n))

    if pa.types.is_null(kind):
        return pa.nulls(n)
    if pa.types.is_integer(kind):
        info = (0, 2**64 - 1) if kind == pa.uint64() else (-(2**63), 2**63 - 1)
        return pa.array(values(st.integers(*info)), pa.int64() if kind != pa.uint64() else kind)
    if pa.types.is_floating(kind):
        return pa.array(values(st.floats(width=16)), pa.float64()).cast(kind, safe=False)
    if pa.types.is_decimal(kind):
        bound = 10 ** (kind.precision - kind.scale) - 1
        return pa.array(values(st.decimals(-bound, bound, places=kind.scale)), kind)
    if pa.types.is_fixed_size_binary(kind):
        return pa.array(values(st.binary(min_size=2, max_size=2)), kind)
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return pa.array(values(st.binary(max_size=4)), kind)
    if pa.types.is_dictionary(kind):
        return pa.array(values(st.text(max_size=4)), pa.string()).dictionary_encode()
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return pa.array(values(st.text(max_size=4)), kind)
    if pa.types.is_boolean(kind):
        return pa.array(values(st.booleans()), kind)
    if pa.types.is_temporal(kind):
        raw = pa.array(values(st.integers(0, 10**9)), pa.int64())
        return raw.cast(pa.int32()).cast(kind) if kind == pa.date32() else raw.cast(kind)
    if pa.types.is_list(kind):
        return pa.array(values(st.lists(st.integers(0, 9), max_size=2)), kind)
    if pa.types.is_struct(kind):
        return pa.array(values(st.fixed_dictionaries({"p": st.integers(0, 9)})), kind)
    return pa.array(values(st.lists(st.tuples(st.text(max_size=2), st.integers(0, 9)),
                                    max_size=2)), kind)  # fmt: skip


@FUZZ
@given(
    kind=st.sampled_from(ARROW_TYPES),
    data=st.data(),
    n=st.integers(2, 6),
    model=st.sampled_from(["auto", "mixed", "categorical", "gaussian"]),
    as_target=st.booleans(),
)
def test_parquet_of_any_type_trains_or_names_the_column(tmp_path_factory, kind, data, n, model,
                                                        as_target):  # fmt: skip
    """A Parquet column of any Arrow type, as a feature or as the target: trained on
    (and the file predicted), or one line naming the column; nested types say what
    they hold, bytes that are no UTF-8 text say the row."""
    folder = tmp_path_factory.mktemp("parquet")
    labels = pa.array((["a", "b"] * n)[:n])
    table = pa.table({"x": _column(kind, data, n), "y": labels})
    path = folder / "table.parquet"
    pq.write_table(table, path)
    status, output = invoke(
        "train", path, "-t", "x" if as_target else "y", "-m", model, "-o", folder / "m.nbm"
    )
    assert_clear(status, output)
    nested = next((words for name, words in NESTED.items() if str(kind).startswith(name)), None)
    if nested is not None and table.column("x").null_count < n:
        assert status == 2 and f"'x' holds {nested}" in output, output
    if status == 0:
        assert_predicts(folder / "m.nbm", path)


# ------------------------------------------------------------ the corpus, as users run it
#: Hostile files found along the way: (file, options, exit status, what stderr or
#: stdout must say).
CORPUS = [
    ("list_column.parquet", [], 2, "list_column.parquet: column 'x' holds lists"),
    ("struct_column.parquet", [], 2, "column 'x' holds structs"),
    ("map_column.parquet", [], 2, "column 'x' holds maps"),
    ("list_column.jsonl", [], 2, "list_column.jsonl: column 'x' holds lists"),
    ("struct_column.jsonl", [], 2, "column 'x' holds structs"),
    ("binary_not_utf8.parquet", [], 2,
     "binary_not_utf8.parquet, row 3: column 'x' holds bytes that are not UTF-8 text"),
    ("list_column.parquet", ["-c", "x=ignore", "-m", "mixed"], 2, "no feature columns left"),
    ("int64_beyond_2_53.parquet", [], 0, "x: gaussian"),
    ("huge_integers.jsonl", [], 0, "x: gaussian"),
    # the second column stays text (007 is not 7.0) though the first value spans lines
    ("no_header_quoted_line_break.csv", ["--no-header", "-t", "2", "-m", "categorical"], 0,
     "1: categorical (inferred, text, 3 values)"),
    # one row without its line break is a row (pyarrow read none: "no data")
    ("one_line_no_line_break.csv", ["--no-header", "--target", "0"], 2,
     "the target '0' has a single class ('Sunny')"),
    # a column named like a missing-value marker keeps its name (it was 'Unnamed: 0')
    ("header_named_na.csv", ["-t", "label", "-m", "mixed"], 0, "NA: gaussian"),
    ("json_type_change.jsonl", [], 2,
     "line 2: column 'x.p' holds a number where earlier lines hold true/false"),
    # separators, line breaks and doubled quotes inside quoted values: quoting, no note
    ("quotes_inside_quoted_values.tsv", ["--no-header", "-t", "1", "-m", "categorical"], 0,
     "0: categorical (inferred, text, 4 values)"),
    # a file that does not quote: quotes read as text, said, every row read
    ("quotes_that_are_text.tsv", ["-t", "label"], 0, "read 4 rows"),
    ("semicolon_separated.csv", ["-t", "income"], 0, "fields are separated by ';'"),
]  # fmt: skip
#: Files read without a note on stderr.
QUIET = {"header_named_na.csv", "quotes_inside_quoted_values.tsv"}


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.mark.parametrize("name, options, status, says", CORPUS, ids=[c[0] for c in CORPUS])
def test_hostile_corpus_as_users_run_it(tmp_path, name, options, status, says):
    options = list(options)
    if "--target" not in options and "-t" not in options:
        options += ["--target", "1" if "--no-header" in options else "y"]
    result = subprocess.run(
        [EXE, "train", str(HOSTILE / name), *options, "-o", str(tmp_path / "m.nbm")],
        capture_output=True, text=True, timeout=TIME_LIMIT_S, preexec_fn=_limited,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONWARNINGS": "ignore", "MALLOC_ARENA_MAX": "2"},
    )  # fmt: skip
    assert result.returncode == status, result.stderr
    assert says in result.stdout + result.stderr
    if name in QUIET:
        assert result.stderr == ""
    if status == 2:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_corpus_files_are_all_used():
    assert {name for name, *_ in CORPUS} == {p.name for p in HOSTILE.iterdir()}


# ---------------------------------------------------------------- probes of issue 25's review
def test_a_number_of_100000_digits_is_quoted_short(tmp_path):
    """The error names the value, cut, with its length (it quoted all 100,001 digits)."""
    data = tmp_path / "digits.csv"
    data.write_text("a,b,label\n1" + "0" * 100_000 + ",1,x\n2,1,y\n3,2,x\n4,2,y\n")
    status, output = invoke("train", data, "-t", "label", "-o", tmp_path / "m.npz")
    assert_clear(status, output)
    assert status == 2 and "line 2" in output and "(100,001 characters)" in output
    assert len(output) < 300


def test_a_line_longer_than_the_reading_block_is_named(tmp_path):
    """pyarrow's 'straddling object straddles two block boundaries' becomes the line
    and what to look for."""
    from nbayes.cli._tables import BLOCK_SIZE

    data = tmp_path / "long.csv"
    data.write_text("a,b,label\n1,2,x\n1," + "x" * (3 * BLOCK_SIZE) + ",y\n")
    status, output = invoke("train", data, "-t", "label", "-o", tmp_path / "m.npz")
    assert_clear(status, output)
    assert status == 2 and "long.csv, line 3: a line longer than 8 MiB" in output
    assert not (tmp_path / "m.npz").exists()


def test_a_wide_table_reads_in_time_linear_in_its_columns(tmp_path):
    """20,000 columns of 2 rows: column kinds and the model's columns were looked up in
    a list rebuilt for each column (d² steps: minutes); the hang guard fails it then."""
    width = 20_000
    data = tmp_path / "wide.csv"
    header = ",".join(f"c{j}" for j in range(width))
    data.write_text(
        f"{header},label\n" + ",".join(["1"] * width) + ",x\n" + ",".join(["2"] * width) + ",y\n"
    )
    status, output = invoke(
        "train", data, "-t", "label", "--max-columns", width + 1, "-o", tmp_path / "m.npz"
    )
    assert status == 0, output
    assert "read 2 rows, 20001 columns" in output
