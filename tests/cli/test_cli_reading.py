"""What the CLI finds out about a file before reading it, and the notes it gives (issue
29): the separator of a file that does not use commas, quotes that are text, a
number column holding a marker; run as users run it, a fresh process per command."""

from __future__ import annotations

import subprocess

import pytest
from conftest import nbayes


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stderr
    return result


ADULT = [
    ("39", "State-gov", "<=50K"), ("50", "Self-emp", ">50K"), ("38", "Private", "<=50K"),
    ("53", "Private", ">50K"), ("28", "Private", "<=50K"), ("37", "Self-emp", ">50K"),
]  # fmt: skip


@pytest.mark.parametrize("sep, shown", [(";", "';'"), ("|", "'|'"), ("\t", "tabs")])
def test_a_file_separated_otherwise_is_read_so(tmp_path, sep, shown):
    data = tmp_path / "adult.csv"
    data.write_text(sep.join(("age", "workclass", "income")) + "\n"
                    + "".join(sep.join(row) + "\n" for row in ADULT))  # fmt: skip
    trained = ok(nbayes("train", data, "-t", "income", "-o", "m.nbm", cwd=tmp_path))
    assert f"fields are separated by {shown}, not ','" in trained.stderr
    assert "read 6 rows, 3 columns" in trained.stdout and "age: gaussian" in trained.stdout
    # the model keeps the separator: predict reads the file (and stdin) without a note
    predicted = ok(nbayes("predict", "m.nbm", data, cwd=tmp_path))
    header, *labels = predicted.stdout.split()
    assert header == "prediction" and len(labels) == 6 and set(labels) <= {"<=50K", ">50K"}
    assert predicted.stderr == ""
    piped = ok(nbayes("predict", "m.nbm", "-", cwd=tmp_path, input=data.read_text()))
    assert piped.stdout == predicted.stdout


def test_the_separator_given_is_kept_and_a_wrong_one_gets_a_hint(tmp_path):
    data = tmp_path / "adult.csv"
    data.write_text("age;workclass;income\n" + "".join(";".join(r) + "\n" for r in ADULT))
    result = nbayes("train", data, "-t", "income", "--sep", ",", "-o", "m.nbm", cwd=tmp_path)
    assert result.returncode == 2 and "separated" not in result.stderr
    assert "no target column 'income'" in result.stderr and "--sep ';'" in result.stderr


@pytest.mark.parametrize(
    "text",
    [
        "text,label\nhello; world,a\nfoo; bar,b\n",  # commas in the header: a CSV
        "text\nhello; world\nfoo; bar\n",  # one column whose values hold ';'
        "a;b\n1;2;3\nx\n",  # no two lines split alike
    ],
)
def test_a_comma_file_or_one_column_is_not_split(tmp_path, text):
    data = tmp_path / "data.csv"
    data.write_text(text)
    target = text.split("\n", 1)[0].split(",")[-1]
    result = nbayes("train", data, "-t", target, "-o", "m.nbm", cwd=tmp_path)
    assert "separated" not in result.stderr


def test_quotes_of_a_file_that_quotes_are_quoting(tmp_path):
    """A CSV that quotes (a doubled quote, a line break and a separator in values) is
    read as quoted, without a note."""
    data = tmp_path / "quoted.csv"
    data.write_text('text,label\n"say ""hi""",a\n"two\nlines",b\n"a, b",a\nplain,b\n')
    result = ok(nbayes("train", data, "-t", "label", "-m", "categorical", "-o", "m.nbm",
                       cwd=tmp_path))  # fmt: skip
    assert "read 4 rows" in result.stdout and "4 values" in result.stdout
    assert result.stderr == ""


def test_a_number_column_holding_a_marker_gets_a_hint(tmp_path):
    """A numeric column holding '?' became categorical without a word (issue 29)."""
    data = tmp_path / "adult.csv"
    rows = [("39", "State-gov", "<=50K"), ("?", "Self-emp", ">50K"), ("38", "?", "<=50K"),
            ("53", "Private", ">50K"), ("?", "Private", "<=50K")]  # fmt: skip
    data.write_text("age,workclass,income\n" + "".join(",".join(r) + "\n" for r in rows))
    plain = ok(nbayes("train", data, "-t", "income", "-o", "m.nbm", cwd=tmp_path))
    assert "age: categorical" in plain.stdout
    assert (
        "column 'age' holds numbers and '?' (2 rows), so it is read as text (categories); "
        "if that marks a missing value, give --na-values '?'" in plain.stderr
    )
    assert "workclass" not in plain.stderr  # a text column holding '?' is text anyway
    given = ok(nbayes("train", data, "-t", "income", "--na-values", "?", "-o", "m.nbm",
                      cwd=tmp_path))  # fmt: skip
    assert "age: gaussian" in given.stdout and given.stderr == ""
    refused = nbayes("train", data, "-t", "income", "-m", "gaussian", "-c", "workclass=ignore",
                     "-o", "m.nbm", cwd=tmp_path)  # fmt: skip
    assert refused.returncode == 2
    assert "holds '?', not a number (if it marks a missing value: --na-values '?')" in (
        refused.stderr
    )


def test_format_names_the_input_everywhere_and_to_the_output(tmp_path):
    """``--format`` is the input's format in every command, explain's too (it had
    ``--input-format``, kept hidden); ``--to`` the output's. ``--format json``, the
    output's name before, still works for explain and inspect."""
    data = tmp_path / "rows.data"  # no suffix to tell the format by
    data.write_text("x,label\n1,a\n2,b\n1,a\n3,b\n")
    ok(nbayes("train", data, "--format", "csv", "-t", "label", "-o", "m.nbm", cwd=tmp_path))
    outputs = [
        ok(nbayes("explain", "m.nbm", data, "-i", "0", *args, cwd=tmp_path)).stdout
        for args in (["--format", "csv", "--to", "json"], ["--input-format", "csv",
                     "--to", "json"], ["--format", "json"], ["--to", "json"])
    ]  # fmt: skip
    assert outputs[0].startswith("{") and len(set(outputs)) == 1
    text = ok(nbayes("explain", "m.nbm", "--row", "x=1", "--to", "text", cwd=tmp_path)).stdout
    assert "posterior" in text
    both = nbayes("explain", "m.nbm", "--row", "x=1", "--format", "json", "--to", "text",
                  cwd=tmp_path)  # fmt: skip
    assert both.returncode == 2 and "give one" in both.stderr
    shown = ok(nbayes("explain", "--help", cwd=tmp_path)).stdout
    assert "--to" in shown and "--input-format" not in shown
    assert (
        ok(nbayes("inspect", "m.nbm", "--to", "json", cwd=tmp_path)).stdout
        == ok(nbayes("inspect", "m.nbm", "--format", "json", cwd=tmp_path)).stdout
    )
