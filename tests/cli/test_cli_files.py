"""The CLI on real files: separators, encodings, header-less files, missing-value
markers, compression, labels as written, errors that name the file and line, and the
small things users hit (issue 18)."""

from __future__ import annotations

import bz2
import gzip
import importlib.resources
import io
import json
import lzma
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import DATA, require_path
from sklearn import metrics

import nbayes
from nbayes.cli import main


def run(*args, input=None, ok=True):
    result = CliRunner().invoke(main, [str(a) for a in args], input=input)
    if ok:
        assert result.exit_code == 0, (result.output, result.exception)
    return result


def refused(*args, message: str):
    result = run(*args, ok=False)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1
    assert message in result.output, result.output
    return result.output


@pytest.fixture
def numbers(tmp_path):
    rng = np.random.default_rng(1)
    n = 60
    label = rng.choice(["a", "b"], size=n)
    frame = pd.DataFrame({"x": rng.normal(size=n) + (label == "b"), "y": rng.normal(size=n)})
    frame["label"] = label
    path = tmp_path / "numbers.csv"
    frame.to_csv(path, index=False)
    return path


def test_labels_are_kept_exactly_as_written(tmp_path):
    labels = ["007", "7", "7.0", "1e20", "99999999999999999999"]
    rows = [f"{i % 5 + 0.5 * (i // 5)},{labels[i % 5]}" for i in range(40)]
    path = tmp_path / "labels.csv"
    path.write_text("x,label\n" + "\n".join(rows) + "\n")
    out = run("train", path, "-t", "label", "-o", tmp_path / "m.nbm").output
    assert "5 classes" in out
    assert sorted(nbayes.load(tmp_path / "m.nbm").classes_.tolist()) == sorted(labels)
    predicted = run("predict", tmp_path / "m.nbm", path, "--proba").output
    header, *lines = predicted.splitlines()
    assert header.split(",")[1:] == [f"proba_{label}" for label in sorted(labels)]
    assert {line.split(",")[0] for line in lines} <= set(labels)


def test_duplicated_column_names_and_a_single_class_are_refused(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("class,a,class\nx,1,y\nz,2,w\n")
    refused("train", path, "-t", "class", "-o", tmp_path / "m.nbm", message="more than once")
    path.write_text("a,class\n1,x\n2,x\n")
    refused("train", path, "-t", "class", "-o", tmp_path / "m.nbm", message="single class")
    assert not (tmp_path / "m.nbm").exists()


def test_missing_value_markers_and_header_less_uci_files(tmp_path):
    mushroom = require_path(DATA / "uci_mushroom" / "agaricus-lepiota.data")
    model = tmp_path / "mushroom.nbm"
    out = run("train", mushroom, "--format", "csv", "--no-header", "-t", "0",
              "--na-values", "?", "-o", model).output  # fmt: skip
    assert "(auto: column(s) 11 have missing values" in out and "NaiveBayes" in out
    info = json.loads(run("inspect", model, "--format", "json").output)
    stalk_root = next(c for c in info["columns"] if c["name"] == "11")
    assert "?" not in stalk_root["per_class"]["values"]
    # a file without the target column reads its columns as the features, in order
    rows = pd.read_csv(mushroom, header=None, dtype=str).iloc[:50]
    rows.drop(columns=0).to_csv(tmp_path / "x.csv", header=False, index=False)
    rows.to_csv(tmp_path / "xy.csv", header=False, index=False)
    without = run("predict", model, tmp_path / "x.csv").output
    assert without == run("predict", model, tmp_path / "xy.csv").output
    assert set(pd.read_csv(io.StringIO(without))["prediction"]) <= {"e", "p"}
    # spaces around a marker (", ?" in the adult files) still mark a missing value
    adult = require_path(DATA / "uci_adult" / "adult.data")
    lines = adult.read_text().splitlines()[:400]
    (tmp_path / "adult.csv").write_text("\n".join(lines) + "\n")
    run("train", tmp_path / "adult.csv", "--no-header", "-t", "14", "--na-values", "?",
        "-o", tmp_path / "adult.nbm")  # fmt: skip
    info = json.loads(run("inspect", tmp_path / "adult.nbm", "--format", "json").output)
    workclass = next(c for c in info["columns"] if c["name"] == "1")
    assert workclass["per_class"]["values"] and not any(
        v.strip() == "?" for v in workclass["per_class"]["values"]
    )


def test_separator_and_encoding(tmp_path):
    text = "colour;label\n" + "".join(f"{c};{c[0]}\n" for c in ["rouge", "vert", "é"] * 5)
    path = tmp_path / "latin.csv"
    path.write_bytes(text.encode("latin-1"))
    refused("train", path, "--sep", ";", "-t", "label", "-o", tmp_path / "m.nbm",
            message=f"{path}, line 4: not valid UTF-8")  # fmt: skip
    out = run("train", path, "--sep", ";", "--encoding", "latin-1", "-t", "label",
              "-o", tmp_path / "m.nbm").output  # fmt: skip
    assert "colour: categorical (inferred, text, 3 values)" in out
    predicted = run("predict", tmp_path / "m.nbm", path).output.split()
    assert predicted[1:4] == ["r", "v", "é"]


def test_compressed_inputs_read_as_the_plain_file(tmp_path, numbers):
    run("train", numbers, "-t", "label", "-o", tmp_path / "m.nbm")
    plain = run("predict", tmp_path / "m.nbm", numbers, "--proba").output
    data = numbers.read_bytes()
    writers = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}
    try:
        import pyarrow as pa

        if pa.Codec.is_available("zstd"):
            writers[".zst"] = lambda b: pa.compress(b, "zstd", asbytes=True)
    except ImportError:
        pass
    for suffix, compress in writers.items():
        path = tmp_path / f"numbers.csv{suffix}"
        path.write_bytes(compress(data))
        assert run("predict", tmp_path / "m.nbm", path, "--proba").output == plain, suffix
    with zipfile.ZipFile(tmp_path / "numbers.csv.zip", "w") as archive:
        archive.writestr("numbers.csv", data)
    assert run("predict", tmp_path / "m.nbm", tmp_path / "numbers.csv.zip", "--proba").output == (
        plain
    )


def test_errors_name_the_file_and_line_also_in_chunks(tmp_path, numbers):
    run("train", numbers, "-t", "label", "-o", tmp_path / "m.nbm")
    frame = pd.read_csv(numbers).astype({"x": object})
    frame.loc[16, "x"] = "abc"  # data row 16: line 18 with the header
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False)
    out = tmp_path / "out.csv"
    refused("predict", tmp_path / "m.nbm", bad, "--chunk-size", "5", "-o", out,
            message=f"{bad}, line 18: column 'x' holds 'abc', not a number")  # fmt: skip
    assert not out.exists()  # nothing half-written
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("x,y\n1,2\n3,4\n5,6,7\n")
    refused("predict", tmp_path / "m.nbm", ragged, message=f"{ragged}, line 4: expected 2")


def test_error_lines_count_values_spanning_lines_and_blank_lines(tmp_path):
    """A quoted value may hold line breaks and blank lines hold no row: the line an
    error names is the line the row starts on in the file (gzip too, chunked too)."""
    text = 'note,n,label\n"one\ntwo\nthree",1,x\n\nok,2,y\n"a\n\nb",3,x\nok,abc,y\nok,5,x\n'
    good = tmp_path / "good.csv"
    good.write_text(text.replace("abc", "4"))
    model = tmp_path / "m.nbm"
    run("train", good, "-t", "label", "-m", "mixed", "-c", "n=gaussian", "-o", model)
    for name, data in (("bad.csv", text.encode()), ("bad.csv.gz", gzip.compress(text.encode()))):
        bad = tmp_path / name
        bad.write_bytes(data)
        where = f"{bad}, line 10: column 'n' holds 'abc'"  # the header, 3 + 1 + 1 + 3 lines
        refused("train", bad, "-t", "label", "-m", "mixed", "-c", "n=gaussian",
                "-o", tmp_path / "other.nbm", message=where)  # fmt: skip
        for chunk in ("2", "100"):
            out = tmp_path / "out.csv"
            refused("predict", model, bad, "--chunk-size", chunk, "-o", out, message=where)
            assert not out.exists()


def test_labels_that_look_like_missing_markers_are_read_as_written_on_request(tmp_path):
    data = tmp_path / "regions.csv"
    data.write_text("size,region\n1,NA\n2,EU\n1.5,NA\n2.5,EU\n1.2,None\n2.2,None\n")
    model = tmp_path / "m.nbm"
    message = refused("train", data, "-t", "region", "-o", model, message="line 2: the target")
    assert "--no-default-na" in message
    run("train", data, "-t", "region", "--no-default-na", "-o", model)
    classes = json.loads(run("inspect", model, "--format", "json").output)["classes"]
    assert [c["label"] for c in classes] == ["EU", "NA", "None"]
    predicted = run("predict", model, data).output.split()  # the model's reading options
    assert predicted[0] == "prediction" and set(predicted[1:]) <= {"EU", "NA", "None"}


def test_output_to_dev_null_and_a_closed_pipe(tmp_path, numbers):
    run("train", numbers, "-t", "label", "-o", os.devnull)
    run("train", numbers, "-t", "label", "-o", tmp_path / "m.nbm")
    run("predict", tmp_path / "m.nbm", numbers, "-o", os.devnull)
    assert Path(os.devnull).is_char_device()
    big = tmp_path / "big.csv"
    frame = pd.read_csv(numbers)
    pd.concat([frame] * 2000).to_csv(big, index=False)  # 120,000 rows
    done = subprocess.run(
        f"'{Path(sys.executable).with_name('nbayes')}' predict '{tmp_path / 'm.nbm'}' "
        f"'{big}' --proba | head -n 2",
        shell=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        check=False,
    )
    assert done.stdout.splitlines()[0] == "prediction,proba_a,proba_b"
    assert done.stderr == ""


def test_auto_picks_a_model_that_handles_the_data(tmp_path, numbers):
    out = run("train", numbers, "-t", "label", "-o", tmp_path / "g.nbm").output
    assert "GaussianNB" in out and "auto: every column is gaussian, none missing" in out
    frame = pd.read_csv(numbers)
    frame.loc[3, "y"] = np.nan
    frame.to_csv(tmp_path / "gaps.csv", index=False)
    out = run("train", tmp_path / "gaps.csv", "-t", "label", "-o", tmp_path / "m.nbm").output
    assert "NaiveBayes" in out and "column(s) y have missing values" in out
    refused("train", tmp_path / "gaps.csv", "-t", "label", "-m", "gaussian",
            "-o", tmp_path / "x.nbm", message="line 5: column 'y' is missing")  # fmt: skip
    help_text = " ".join(run("train", "--help").output.split())  # wrapped to the terminal
    assert "'auto' picks" in help_text and "'mixed' is NaiveBayes" in help_text


def test_explain_partial_rows(tmp_path, numbers):
    run("train", numbers, "-t", "label", "-m", "mixed", "-o", tmp_path / "m.nbm")
    out = run("explain", tmp_path / "m.nbm", "--row", "x=0.5").output
    assert "left out (not given; marginalised" in out and ": y" in out
    data = json.loads(run("explain", tmp_path / "m.nbm", "--row", "x=0.5",
                          "--format", "json").output)  # fmt: skip
    model = nbayes.load(tmp_path / "m.nbm")
    expected = model.predict_proba(pd.DataFrame({"x": [0.5], "y": [np.nan]}))[0]
    np.testing.assert_allclose(data["posterior"], expected, rtol=1e-12)
    assert data["left_out"] == ["y"]
    run("train", numbers, "-t", "label", "-m", "gaussian", "-o", tmp_path / "g.nbm")
    refused("explain", tmp_path / "g.nbm", "--row", "x=0.5", message="needs every column")


def test_evaluate_reports_roc_and_pr_auc(tmp_path, numbers):
    info = json.loads(run("evaluate", numbers, "-t", "label", "--json").output)
    frame = pd.read_csv(numbers)
    from nbayes.inspection.evaluation import cross_validate

    expected = cross_validate(
        nbayes.GaussianNB(), frame[["x", "y"]].to_numpy(), frame["label"].to_numpy()
    )
    truth = expected.y_true == "b"
    assert info["roc_auc"] == pytest.approx(metrics.roc_auc_score(truth, expected.proba[:, 1]))
    assert info["pr_auc"] == pytest.approx(
        metrics.average_precision_score(truth, expected.proba[:, 1])
    )
    assert info["positive_class"] == "b"
    text = run("evaluate", numbers, "-t", "label").output
    assert f"ROC AUC         {info['roc_auc']:.4f} (positive class b)" in text
    assert f"PR AUC          {info['pr_auc']:.4f} (positive class b)" in text


def test_jsonl_keeps_full_precision(tmp_path, numbers):
    run("train", numbers, "-t", "label", "-o", tmp_path / "m.nbm")
    out = run("predict", tmp_path / "m.nbm", numbers, "--proba", "--to", "jsonl").output
    rows = [json.loads(line) for line in out.splitlines()]
    model = nbayes.load(tmp_path / "m.nbm")
    expected = model.predict_proba(pd.read_csv(numbers)[["x", "y"]].to_numpy())
    got = np.array([[row["proba_a"], row["proba_b"]] for row in rows])
    assert got.tobytes() == expected.tobytes()


def test_progress_only_on_a_terminal(tmp_path, numbers, monkeypatch):
    result = run("train", numbers, "-t", "label", "-o", tmp_path / "m.nbm")
    assert "numbers.csv:" not in result.stderr
    monkeypatch.setattr("nbayes.cli.train.on_terminal", lambda: True)
    result = run("train", numbers, "-t", "label", "-o", tmp_path / "m.nbm")
    assert "numbers.csv:" in result.stderr


def test_package_is_typed():
    assert importlib.resources.files("nbayes").joinpath("py.typed").is_file()


def test_an_infinity_is_named_with_its_line_for_every_model_kind(tmp_path):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text("a,label\n1,x\n2,y\n3,x\n4,y\n")
    bad.write_text("a,label\n1,x\n2,y\n3,x\n1e400,y\n")  # beyond float64: read as inf
    where = f"{bad}, line 5: column 'a' holds '1e400', not a finite number"
    for model in ("auto", "gaussian", "poisson", "mixed"):
        refused("train", bad, "-t", "label", "-m", model, "-o", tmp_path / "m.nbm", message=where)
        run("train", good, "-t", "label", "-m", model, "-o", tmp_path / "m.nbm")
        refused("predict", tmp_path / "m.nbm", bad, message=where)


def test_a_value_outside_the_models_domain_is_named_with_its_line(tmp_path):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text("a,b,label\n1,2,x\n3,1,y\n0,2,x\n2,0,y\n")
    bad.write_text("a,b,label\n1,2,x\n3,1,y\n0,2,x\n2,-1,y\n")
    for model, needs in (("multinomial", "non-negative counts"),
                         ("poisson", "non-negative integer counts")):  # fmt: skip
        where = f"{bad}, line 5: column 'b' holds -1.0: the model needs {needs}"
        refused("train", bad, "-t", "label", "-m", model, "-o", tmp_path / "m.nbm", message=where)
        run("train", good, "-t", "label", "-m", model, "-o", tmp_path / "m.nbm")
        for chunk in ("2", "100"):  # the line counted across chunks
            refused("predict", tmp_path / "m.nbm", bad, "--chunk-size", chunk,
                    "-o", tmp_path / "out.csv", message=where)  # fmt: skip


def test_a_text_encoding_error_names_the_file(tmp_path):
    data = tmp_path / "utf16.csv"
    data.write_bytes("a,label\n1,x\n2,y\n".encode("utf-16-le"))  # no byte order mark
    refused("train", data, "-t", "label", "--encoding", "utf-16", "-o", tmp_path / "m.nbm",
            message=f"{data}: UTF-16 stream does not start with BOM")  # fmt: skip
    run("train", data, "-t", "label", "--encoding", "utf-16-le", "-o", tmp_path / "m.nbm")


def test_strip_spaces_reads_uci_style_files_and_the_model_keeps_the_choice(tmp_path):
    data = tmp_path / "uci.csv"
    data.write_text(
        "age, work, class\n39, State-gov, <=50K\n50, Private, >50K\n"
        "38, ?, <=50K\n53, Private, >50K\n28, State-gov, <=50K\n"
    )
    model = tmp_path / "m.nbm"
    run("train", data, "-t", "class", "--na-values", "?", "--strip-spaces", "-o", model)
    info = json.loads(run("inspect", model, "--format", "json").output)
    assert [c["label"] for c in info["classes"]] == ["<=50K", ">50K"]
    assert run("predict", model, data).output.split()[1:] == [
        "<=50K", ">50K", "<=50K", ">50K", "<=50K"
    ]  # read as trained: spaces trimmed, '?' missing
    text = run("explain", model, "--row", "age=45,work=Private").output
    assert "never seen" not in text and "P(work=Private | y)" in text


def test_a_long_ragged_row_is_named_by_its_line(tmp_path):
    """pyarrow quotes a long row shortened with ' ...': the line is still found (the UCI
    adult.test file opens with a one-field line, then rows of 15)."""
    data = tmp_path / "adult.test"
    row = ", ".join(f"value-number-{i}" for i in range(15))
    data.write_text(f"|1x3 Cross validator\n{row}\n{row}\n")
    where = f"{data}, line 2: expected 1 columns, got 15"
    refused("train", data, "--format", "csv", "--no-header", "-t", "0",
            "-o", tmp_path / "m.nbm", message=where)  # fmt: skip


def test_values_holding_line_breaks_across_read_blocks(tmp_path, monkeypatch):
    """pyarrow reads a CSV in blocks (8 MiB); a quoted value holding a line break across
    a block's end was cut in two: a made-up row trained, one prediction too many."""
    from nbayes.cli import _tables

    monkeypatch.setattr(_tables, "BLOCK_SIZE", 1 << 12)  # many blocks from a small file
    rng = np.random.default_rng(1)
    words = "alpha beta gamma delta epsilon zeta eta theta".split()
    rows = [
        ["spam" if i % 2 else "ham",
         " ".join(rng.choice(words, 5)) + "\nham, " + " ".join(rng.choice(words, 5))]
        for i in range(2000)
    ]  # fmt: skip
    data = tmp_path / "lines.csv"
    pd.DataFrame(rows, columns=["label", "text"]).to_csv(data, index=False)
    assert data.stat().st_size > 20 * (1 << 12)
    out = run("train", data, "-t", "label", "-o", tmp_path / "m.nbm").output
    assert "read 2000 rows" in out and "ham 1000, spam 1000" in out
    for chunk in ("100000", "333"):
        predicted = run("predict", tmp_path / "m.nbm", data, "--chunk-size", chunk).output
        assert predicted.count("\n") == 2001


def test_no_quoting_reads_a_tsv_that_never_quotes(tmp_path):
    """The SMS Spam Collection's TSV: a message starting with an unmatched quote took
    the lines after it into itself (5572 rows of 5574); a quote that goes on after its
    closing one shows the file does not quote, so quotes are read as text, with a note
    (or --no-quoting says so), and the model keeps the choice for predict; --quoting
    reads them as quoting all the same."""
    data = tmp_path / "sms.tsv"
    data.write_text(
        'spam\tcall now to claim\nham\t"Keep ur problems in ur heart\nspam\tWIN a prize\n'
        'ham\tsee you at 5\nham\tok lor", she said\nspam\tfree entry\n'
    )
    model = tmp_path / "m.nbm"
    quoted = run("train", data, "--no-header", "-t", "0", "--quoting", "-o", model).output
    assert "read 3 rows" in quoted  # three lines swallowed by the quoted value
    for given in ([], ["--no-quoting"]):
        plain = run("train", data, "--no-header", "-t", "0", *given, "-o", model)
        assert "read 6 rows" in plain.stdout and "ham 3, spam 3" in plain.stdout
        assert ("quotes are read as text" in plain.stderr) == (given == [])
        predicted = run("predict", model, data)
        assert predicted.stdout.count("\n") == 7 and "note" not in predicted.stderr


def test_the_sms_collection_reads_whole_with_no_option(tmp_path):
    """Issue 29: ``--format tsv --no-header -t 0`` read 5,572 rows of 5,574, silently."""
    source = require_path(DATA / "sms_spam_collection" / "SMSSpamCollection")
    result = subprocess.run(
        [str(Path(sys.executable).with_name("nbayes")), "train", str(source), "--format", "tsv",
         "--no-header", "-t", "0", "-o", str(tmp_path / "sms.nbm")],
        capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "read 5574 rows" in result.stdout and "ham 4827, spam 747" in result.stdout
    assert "line 283: a value opens with a quote" in result.stderr


def test_the_models_format_is_read_where_the_path_tells_none(tmp_path):
    """adult.data has no suffix a format is told by: trained with --format csv, the
    model reads such files (and stdin) in its format without being told again."""
    data = tmp_path / "adult.data"
    data.write_text("39, State-gov, <=50K\n50, Private, >50K\n38, Private, <=50K\n")
    model = tmp_path / "m.nbm"
    run("train", data, "--format", "csv", "--no-header", "-t", "2", "-o", model)
    other = tmp_path / "adult.test"
    other.write_text("45, Private, >50K\n")
    assert run("predict", model, other).output.split()[0] == "prediction"
    lines = tmp_path / "rows.jsonl"
    lines.write_text('{"x": 1.0, "y": "a"}\n{"x": 5.0, "y": "b"}\n{"x": 1.5, "y": "a"}\n')
    run("train", lines, "-t", "y", "-o", model)
    assert run("predict", model, "-", input='{"x": 5.0}\n').output.split() == ["prediction", "b"]
