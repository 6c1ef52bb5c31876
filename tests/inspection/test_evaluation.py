"""``nbayes evaluate``: cross-validated metrics against scikit-learn's own pipeline
(StratifiedKFold + sklearn.naive_bayes + sklearn.metrics), the HTML report, bad input."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sklearn.naive_bayes as sk
from click.testing import CliRunner
from sklearn import metrics
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from nbayes.cli import main

pytest.importorskip("matplotlib")


def run(*args, ok: bool = True):
    result = CliRunner().invoke(main, [str(a) for a in args])
    if ok:
        assert result.exit_code == 0, (result.output, result.exception)
    return result


def ece_by_hand(y, proba, classes, n_bins=15) -> float:
    confidence = proba.max(axis=1)
    correct = classes[proba.argmax(axis=1)] == y
    bins = np.clip(np.ceil(confidence * n_bins).astype(int) - 1, 0, n_bins - 1)
    return sum(
        np.mean(bins == b) * abs(correct[bins == b].mean() - confidence[bins == b].mean())
        for b in np.unique(bins)
    )


def check_against_sklearn(got: dict, estimator, X, y, folds: int) -> None:
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
    proba = cross_val_predict(estimator, X, y, cv=cv, method="predict_proba")
    classes = np.unique(y)
    predicted = classes[proba.argmax(axis=1)]
    assert got["classes"] == classes.tolist()
    assert got["accuracy"] == pytest.approx(metrics.accuracy_score(y, predicted), abs=1e-12)
    assert got["log_loss"] == pytest.approx(metrics.log_loss(y, proba, labels=classes), rel=1e-9)
    brier = metrics.brier_score_loss(y, proba, labels=classes)
    assert got["brier"] == pytest.approx(brier, rel=1e-9)
    assert got["ece"] == pytest.approx(ece_by_hand(y, proba, classes), rel=1e-9)
    assert got["confusion_matrix"] == metrics.confusion_matrix(y, predicted).tolist()
    p, r, f, s = metrics.precision_recall_fscore_support(y, predicted, zero_division=0)
    for k, label in enumerate(classes.tolist()):
        row = got["per_class"][str(label)]
        assert [row["precision"], row["recall"], row["f1"]] == pytest.approx([p[k], r[k], f[k]])
        assert row["support"] == s[k]


@pytest.fixture
def numeric_csv(tmp_path):
    rng = np.random.default_rng(3)
    y = np.repeat(["a", "b", "c"], [60, 50, 40])
    centre = {"a": 0.0, "b": 1.0, "c": 2.5}
    X = rng.normal(size=(150, 3)) + np.array([centre[v] for v in y])[:, None] * [1, 0.5, -1]
    frame = pd.DataFrame(X.round(6), columns=["u", "v", "w"]).assign(label=y)
    path = tmp_path / "numeric.csv"
    frame.to_csv(path, index=False)
    return path, frame


@pytest.fixture
def categorical_csv(tmp_path):
    rng = np.random.default_rng(4)
    n = 300
    spam = rng.random(n) < 0.4
    colour = np.where(
        rng.random(n) < np.where(spam, 0.6, 0.2), "red", rng.choice(["blue", "green"], n)
    )
    size = rng.choice(["S", "M", "L"], n)
    frame = pd.DataFrame({"colour": colour, "size": size, "kind": np.where(spam, "spam", "ham")})
    path = tmp_path / "categorical.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_gaussian_metrics_match_sklearn(numeric_csv):
    path, frame = numeric_csv
    got = json.loads(run("evaluate", path, "--target", "label", "--folds", 5, "--json").stdout)
    X, y = frame[["u", "v", "w"]].to_numpy(), frame["label"].to_numpy()
    check_against_sklearn(got, sk.GaussianNB(), X, y, folds=5)
    # continuous features rank their representative values (the class mixture's quantiles)
    assert set(got["top_features"]) == {"a", "b", "c"}
    for entries in got["top_features"].values():
        assert {entry["feature"] for entry in entries} <= {"u", "v", "w"}
    text = run("evaluate", path, "--target", "label", "--folds", 5).output
    assert "u: gaussian (inferred, number)" in text
    assert f"accuracy        {got['accuracy']:.4f}" in text
    assert f"log-loss        {got['log_loss']:.4f}" in text


def test_categorical_metrics_match_sklearn_and_top_features(categorical_csv):
    path, frame = categorical_csv
    got = json.loads(
        run("evaluate", path, "-t", "kind", "-k", 4, "-p", "alpha=0.5", "--json").stdout
    )
    codes = np.column_stack(
        [np.searchsorted(sorted(set(frame[c])), frame[c]) for c in ("colour", "size")]
    )
    y = frame["kind"].to_numpy()
    check_against_sklearn(got, sk.CategoricalNB(alpha=0.5), codes, y, folds=4)
    # top feature of "spam": the value with the largest P(v | spam) / P(v | ham), all rows
    best = max(
        (
            ((np.sum((y == "spam") & (frame[c] == v)) + 0.5) / (np.sum(y == "spam") + 0.5 * k))
            / ((np.sum((y == "ham") & (frame[c] == v)) + 0.5) / (np.sum(y == "ham") + 0.5 * k)),
            c,
            v,
        )
        for c, k in (("colour", 3), ("size", 3))
        for v in set(frame[c])
    )
    top = got["top_features"]["spam"][0]
    assert (top["feature"], top["value"], top["versus"]) == (best[1], best[2], "ham")
    assert top["ratio"] == pytest.approx(best[0], rel=1e-12)


def test_report_is_self_contained(categorical_csv, numeric_csv, tmp_path):
    path, _ = categorical_csv
    report = tmp_path / "report.html"
    out = run("evaluate", path, "-t", "kind", "--report", report).output
    assert f"wrote report {report}" in out
    text = report.read_text(encoding="utf-8")
    images = re.findall(r'<img [^>]*src="([^"]*)"', text)
    assert len(images) == 4  # confusion matrix, reliability diagram, ROC, precision-recall
    for src in images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG")
    lowered = text.lower()
    for external in ("http://", "https://", "<script", "<link", "url(", "@import", "//cdn"):
        assert external not in lowered
    for title in ("Confusion matrix", "Reliability diagram", "ROC curve", "Precision-recall"):
        assert title in text
    assert "Most informative features" in text and "<td>colour</td>" in text
    assert "<td>Brier score</td>" in text and "<td>spam</td>" in text

    numeric, _ = numeric_csv  # three classes: no ROC or precision-recall figures
    run("evaluate", numeric, "-t", "label", "--report", report)
    multi = report.read_text(encoding="utf-8")
    assert len(re.findall(r"<img ", multi)) == 2 and "ROC curve" not in multi


def test_mixed_model(numeric_csv, categorical_csv, tmp_path):
    _, numbers = numeric_csv
    _, categories = categorical_csv
    frame = numbers.iloc[:150].assign(colour=categories["colour"].iloc[:150].to_numpy())
    path = tmp_path / "mixed.csv"
    frame.to_csv(path, index=False)
    report = tmp_path / "mixed.html"
    got = json.loads(
        run("evaluate", path, "-t", "label", "--model", "mixed", "-r", report, "--json").stdout
    )
    assert got["model"].startswith("NaiveBayes(")
    confusion = np.array(got["confusion_matrix"])
    assert confusion.sum() == 150 and got["accuracy"] == np.trace(confusion) / 150
    # every column ranks its values, the categorical one its categories
    ranked = [entry for entries in got["top_features"].values() for entry in entries]
    assert {entry["feature"] for entry in ranked} <= {"u", "v", "w", "colour"}
    colours = {entry["value"] for entry in ranked if entry["feature"] == "colour"}
    assert colours <= set(categories["colour"])
    assert "not available for this model" not in report.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--target", "nope"], "no target column 'nope'"),
        (["--target", "kind", "--model", "fancy"], "unknown model 'fancy'"),
        (["--target", "kind", "--column", "colour=weird"], "unknown column kind 'weird'"),
        (["--target", "kind", "--folds", "1"], "need at least 2 folds"),
        (["--target", "kind", "--folds", "500"], "500 folds need at least 500 rows"),
        (
            ["--target", "kind", "--report", "/no/such/dir/r.html"],
            "the folder /no/such/dir does not exist",
        ),
        (["--target", "kind", "-p", "bogus=1"], "has no parameter(s) bogus"),
        (["--target", "kind", "--top", "-1"], "--top -1: must be at least 0"),
    ],
)
def test_bad_input_is_one_line_exit_2(categorical_csv, args, message):
    path, _ = categorical_csv
    result = run("evaluate", path, *args, ok=False)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output


def test_bad_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    one_class = tmp_path / "one.csv"
    one_class.write_text("x,y\n1,a\n2,a\n3,a\n")
    for path, message in [
        (empty, "the file is empty"),
        (tmp_path / "missing.csv", "no such file"),
        (one_class, "has a single class ('a')"),
    ]:
        result = run("evaluate", path, "-t", "y", ok=False)
        assert result.exit_code == 2 and message in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1


def test_small_class_is_noted(tmp_path):
    path = tmp_path / "small.csv"
    rows = ["x,y"] + [f"{i % 7}.5,a" for i in range(12)] + ["9.0,b", "9.5,b"]
    path.write_text("\n".join(rows) + "\n")
    out = run("evaluate", path, "-t", "y", "-k", 3).output
    assert "note: class 'b' has 2 row(s), fewer than 3 folds: 1 test fold(s) hold none" in out
    path.write_text("\n".join(rows[:-1]) + "\n")  # one row of b: one model never sees it
    out = run("evaluate", path, "-t", "y", "-k", 3).output
    assert "class 'b' has 1 row(s), fewer than 3 folds: the fold testing its row has a" in out


def test_installed_command_bad_input_in_a_subprocess(categorical_csv):
    path, _ = categorical_csv
    exe = Path(sys.executable).with_name("nbayes")
    done = subprocess.run(
        [str(exe), "evaluate", str(path), "--target", "missing"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"Error: no target column 'missing' in {path}; columns are: colour, size, kind"
    ]
