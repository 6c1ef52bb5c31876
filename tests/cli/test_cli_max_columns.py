"""Very wide tables (issue 25): a table of more than ``--max-columns`` columns (default
10,000) is refused with one line naming the limit and how to raise it, before pyarrow
parses anything (a 2 MB CSV of 1,000,000 columns aborted pyarrow with std::bad_alloc),
for CSV, TSV, JSON lines and Parquet, run as users run it; the limit a model was
trained with is kept for predict."""

from __future__ import annotations

import json
import resource
import subprocess
from pathlib import Path

import pytest
from conftest import nbayes

from nbayes.cli._tables import DEFAULT_MAX_COLUMNS, ReadSpec, _first_record_width

#: Two malloc arenas at most: one per thread would reserve address space that the
#: limit below counts.
FEW_ARENAS = {"MALLOC_ARENA_MAX": "2"}
#: The address space the refusal must fit in (pyarrow needed gigabytes).
ADDRESS_SPACE = 1 << 30


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _wide_csv(path: Path, columns: int, sep: str = ",") -> Path:
    header = sep.join(f"c{i}" for i in range(columns - 1)) + sep + "y"
    rows = "".join(sep.join([value] * (columns - 1)) + sep + label + "\n" for value, label in
                   [("1", "a"), ("2", "b"), ("1", "a"), ("2", "b")])  # fmt: skip
    path.write_text(header + "\n" + rows)
    return path


def _assert_refused(result: subprocess.CompletedProcess, columns: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr[-2000:]
    assert columns in lines[0] and "--max-columns" in lines[0], lines[0]
    assert f"{DEFAULT_MAX_COLUMNS:,}" in lines[0] or "at most" in lines[0]


def test_a_million_columns_is_refused_in_one_line_within_a_gibibyte(tmp_path):
    data = tmp_path / "wide.csv"
    data.write_text(",".join(["1"] * 1_000_000) + "\n")  # 2 MB
    for command in (["train", data, "-t", "0", "-o", "m.nbm"], ["evaluate", data, "-t", "0"]):
        result = nbayes(*command, cwd=tmp_path, preexec_fn=_limited, env=FEW_ARENAS)
        _assert_refused(result, "columns")
        assert "at most 10,000" in result.stderr
    assert not (tmp_path / "m.nbm").exists()


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t"), (".csv.gz", ",")])
def test_one_column_over_the_limit_is_refused_exactly(tmp_path, suffix, sep):
    data = _wide_csv(tmp_path / f"wide{suffix.removesuffix('.gz')}", 11, sep)
    if suffix.endswith(".gz"):
        import gzip

        data = data.with_name(data.name + ".gz")
        data.write_bytes(gzip.compress((tmp_path / "wide.csv").read_bytes()))
    result = nbayes("train", data, "-t", "y", "--max-columns", 10, "-o", "m.nbm", cwd=tmp_path)
    _assert_refused(result, "11 columns")
    assert "(at most 10)" in result.stderr
    ok = nbayes("train", data, "-t", "y", "--max-columns", 11, "-o", "m.nbm", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr


def test_quoted_separators_are_not_columns(tmp_path):
    data = tmp_path / "quoted.csv"
    data.write_text('"a,b,c,d",y\n"1,2,3,4",x\n"5,6",z\n')
    ok = nbayes("train", data, "-t", "y", "--max-columns", 2, "-o", "m.nbm", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr


def test_json_lines_and_parquet_are_capped(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [
        {f"c{i}": i for i in range(12)} | {"y": "a"},
        {f"c{i}": -i for i in range(12)} | {"y": "b"},
    ]
    (tmp_path / "wide.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "wide.parquet")
    for name in ("wide.jsonl", "wide.parquet"):
        result = nbayes("train", name, "-t", "y", "--max-columns", 12, "-o", "m.nbm", cwd=tmp_path)
        _assert_refused(result, "13 columns")
        ok = nbayes("train", name, "-t", "y", "--max-columns", 13, "-o", "m.nbm", cwd=tmp_path)
        assert ok.returncode == 0, ok.stderr


def test_predict_keeps_the_models_limit_and_refuses_a_wider_file(tmp_path):
    train = _wide_csv(tmp_path / "train.csv", 20)
    result = nbayes("train", train, "-t", "y", "--max-columns", 20, "-o", "m.nbm", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert nbayes("predict", "m.nbm", train, cwd=tmp_path).returncode == 0
    wider = _wide_csv(tmp_path / "wider.csv", 25)
    for command in (["predict"], ["score"], ["explain", "--index", "0"]):
        _assert_refused(nbayes(*command, "m.nbm", wider, cwd=tmp_path), "25 columns")
    ok = nbayes("predict", "m.nbm", wider, "--max-columns", 25, cwd=tmp_path)
    assert "--max-columns" not in ok.stderr


def test_max_columns_in_a_model_file_is_checked():
    assert ReadSpec.from_json({"max_columns": 50}).max_columns == 50
    for bad in (0, -1, 1.5, "10", True, 10**12):
        with pytest.raises(Exception, match="max_columns"):
            ReadSpec.from_json({"max_columns": bad})


def test_first_record_width_stops_early_and_counts_exactly():
    starts = iter([b"a,b,c", b"a,b,c,d,e,f"])  # never complete: stops past 4
    assert _first_record_width(starts, ",", None, 0, 4) == (6, False)
    assert _first_record_width(iter([b'"x\ny",z\n1,2\n']), ",", None, 0, 9) == (2, True)
    assert _first_record_width(iter([b""]), ",", None, 0, 9) == (0, True)
