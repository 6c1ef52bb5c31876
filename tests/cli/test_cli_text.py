"""Free-text columns through the command line (issue 18 item 4), run as users run it: the
CLI as a subprocess, the model file read back by a fresh process."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import DATA, require_path
from test_cli_processes import nbayes_run

import nbayes


@pytest.fixture(scope="module")
def sms_csv(tmp_path_factory):
    """The SMS Spam Collection as users hold it: a ``label,text`` CSV."""
    source = require_path(DATA / "sms_spam_collection" / "SMSSpamCollection")
    path = tmp_path_factory.mktemp("sms") / "sms.csv"
    with open(source, encoding="utf-8") as lines, open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["label", "text"])
        writer.writerows(line.rstrip("\n").split("\t", 1) for line in lines)
    return path


def test_sms_collection_with_plain_evaluate(sms_csv):
    """The message column is recognised as text with no option given."""
    report = json.loads(nbayes_run("evaluate", sms_csv, "--target", "label", "--json"))
    assert report["rows"] == 5574
    assert report["accuracy"] >= 0.95
    assert report["roc_auc"] >= 0.95
    assert "'text': 'text'" in report["model"]


@pytest.fixture
def notes_csv(tmp_path):
    """A table with a number, a category and a short free-text column (two words a
    value: below the inference rule's three, so it must be declared)."""
    path = tmp_path / "notes.csv"
    rows = [
        ("ok", 1.0, "a", "fine thanks"),
        ("ok", 1.2, "a", "all good"),
        ("ok", 0.9, "b", "fine fine"),
        ("bad", 3.0, "b", "broken screen"),
        ("bad", 3.3, "a", "screen broken"),
        ("bad", 2.8, "b", "broken again"),
    ]
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["status", "size", "group", "note"])
        writer.writerows(rows)
    return path


def test_declared_text_column_trains_predicts_and_explains(tmp_path, notes_csv):
    model = tmp_path / "m.nbm"
    out = nbayes_run("train", notes_csv, "-t", "status", "--text", "note", "-o", model)
    assert "note: text" in out
    assert nbayes.load(model).columns_["note"] == "text"
    test = tmp_path / "test.csv"
    test.write_text("size,group,note\n1.0,a,all fine\n3.1,b,broken screen again\n,,broken\n")
    lines = nbayes_run("predict", model, test).split()
    assert lines == ["prediction", "ok", "bad", "bad"]
    explanation = nbayes_run("explain", model, test, "--index", "2")
    assert "broken" in explanation


def test_text_flag_equals_column_kind(tmp_path, notes_csv):
    by_flag = tmp_path / "flag.nbm"
    by_kind = tmp_path / "kind.nbm"
    nbayes_run("train", notes_csv, "-t", "status", "--text", "note", "-o", by_flag)
    nbayes_run("train", notes_csv, "-t", "status", "-c", "note=text", "-o", by_kind)
    test = tmp_path / "test.csv"
    test.write_text("size,group,note\n2.0,a,fine screen\n")
    assert nbayes_run("predict", by_flag, test, "--proba") == nbayes_run(
        "predict", by_kind, test, "--proba"
    )


def test_short_strings_stay_categorical(tmp_path, notes_csv):
    model = tmp_path / "m.nbm"
    nbayes_run("train", notes_csv, "-t", "status", "-o", model)
    assert nbayes.load(model).columns_["note"] == "categorical"


def test_explain_row_with_a_comma_in_a_text_value(tmp_path, notes_csv):
    """--row takes CSV quoting or a JSON object, so free text may hold commas."""
    model = tmp_path / "m.nbm"
    nbayes_run("train", notes_csv, "-t", "status", "--text", "note", "-o", model)
    quoted = nbayes_run("explain", model, "--row", 'size=3,"note=broken, again"')
    as_json = nbayes_run("explain", model, "--row", '{"size": 3, "note": "broken, again"}')
    assert "note = broken, again" in quoted
    assert quoted == as_json
