"""``nbayes predict`` carrying input columns into its output and leaving out a column
the file lacks, and ``nbayes score`` (issue 29), run as users run them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import nbayes as run_nbayes
from sklearn import metrics

import nbayes


def nbayes_cli(*args, cwd: Path, ok: bool = True) -> subprocess.CompletedProcess:
    """The installed command (``conftest.nbayes``) run in ``cwd``; ``ok``: exit 0."""
    return run_nbayes(*args, cwd=cwd, check=ok)


def _table(rng, n: int) -> str:
    age = rng.integers(18, 80, n)
    work = rng.choice(["Private", "Self-emp", "State-gov"], n)
    income = np.where((age > 40) ^ (rng.random(n) < 0.2), ">50K", "<=50K")
    columns = zip(age, work, income, strict=True)
    rows = [f"id{k},{a},{w},{i}" for k, (a, w, i) in enumerate(columns)]
    return "id,age,workclass,income\n" + "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("adult")
    rng = np.random.default_rng(0)
    (folder / "train.csv").write_text(_table(rng, 300))
    (folder / "test.csv").write_text(_table(rng, 120))
    nbayes_cli("train", "train.csv", "-t", "income", "-c", "id=ignore", "-m", "mixed",
               "-o", "mixed.nbm", cwd=folder)  # fmt: skip
    nbayes_cli("train", "train.csv", "-t", "income", "-c", "id=ignore", "-c",
               "workclass=ignore", "-m", "gaussian", "-o", "gaussian.nbm", cwd=folder)  # fmt: skip
    return folder


def test_keep_carries_input_columns_into_the_output(folder):
    out = nbayes_cli("predict", "mixed.nbm", "test.csv", "--keep", "id", "--proba",
                     cwd=folder).stdout.splitlines()  # fmt: skip
    assert out[0] == "id,prediction,proba_<=50K,proba_>50K"
    ids = [line.split(",")[0].strip('"') for line in out[1:]]
    assert ids == [f"id{k}" for k in range(120)]
    plain = nbayes_cli("predict", "mixed.nbm", "test.csv", cwd=folder).stdout.splitlines()
    assert [line.split(",")[1].strip('"') for line in out[1:]] == [p.strip('"') for p in plain[1:]]


def test_keep_all_in_json_lines(folder):
    nbayes_cli("predict", "mixed.nbm", "test.csv", "--keep-all", "-o", "all.jsonl", cwd=folder)
    rows = [json.loads(line) for line in (folder / "all.jsonl").read_text().splitlines()]
    assert list(rows[0]) == ["id", "age", "workclass", "income", "prediction"]
    assert rows[3]["id"] == "id3" and rows[3]["prediction"] in ("<=50K", ">50K")


@pytest.mark.parametrize(
    "args, says",
    [
        (["--keep", "nope"], "--keep: test.csv has no column(s) 'nope'"),
        (["--keep", "id", "--keep-all"], "not both"),
        (["--keep", "income", "--keep-all"], "not both"),
    ],
)
def test_keep_errors(folder, args, says):
    result = nbayes_cli("predict", "mixed.nbm", "test.csv", *args, cwd=folder, ok=False)
    assert result.returncode == 2 and says in result.stderr


def test_a_column_the_file_lacks_is_left_out_by_the_mixed_model(folder):
    """The mixed model marginalises a column the file lacks, as a missing value, and
    says so; the result is the model's on rows with that value missing."""
    lines = (folder / "test.csv").read_text().splitlines()
    (folder / "no_age.csv").write_text(
        "\n".join(",".join(x for j, x in enumerate(line.split(",")) if j != 1) for line in lines)
    )
    result = nbayes_cli("predict", "mixed.nbm", "no_age.csv", "--proba", cwd=folder)
    assert "no_age.csv has no column(s) 'age': left out of every row" in result.stderr
    model = nbayes.load(folder / "mixed.nbm")
    frame = pd.read_csv(folder / "test.csv")[["age", "workclass"]]
    frame["age"] = np.nan
    frame["workclass"] = frame["workclass"].astype("category")
    expected = model.predict_proba(frame)
    got = np.loadtxt(result.stdout.splitlines()[1:], delimiter=",", usecols=(1, 2))
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # a model that needs every column still refuses, naming it
    refused = nbayes_cli("predict", "gaussian.nbm", "no_age.csv", cwd=folder, ok=False)
    assert refused.returncode == 2 and "has no column(s) 'age'" in refused.stderr


def test_score_a_saved_model_on_a_test_file(folder):
    """``nbayes score`` gives the metrics scikit-learn computes from the model's own
    probabilities on the test file; the target defaults to the model's."""
    info = json.loads(nbayes_cli("score", "mixed.nbm", "test.csv", "--json", cwd=folder).stdout)
    proba = np.loadtxt(
        nbayes_cli("predict", "mixed.nbm", "test.csv", "--proba", cwd=folder).stdout
        .splitlines()[1:], delimiter=",", usecols=(1, 2),
    )  # fmt: skip
    truth = np.array([line.rsplit(",", 1)[1] for line in
                      (folder / "test.csv").read_text().splitlines()[1:]])  # fmt: skip
    classes = np.array(["<=50K", ">50K"])
    assert info["rows"] == 120 and info["folds"] == 0 and info["classes"] == list(classes)
    assert info["accuracy"] == pytest.approx(
        metrics.accuracy_score(truth, classes[proba.argmax(axis=1)]), abs=1e-12
    )
    assert info["log_loss"] == pytest.approx(metrics.log_loss(truth, proba, labels=classes))
    assert info["roc_auc"] == pytest.approx(metrics.roc_auc_score(truth == ">50K", proba[:, 1]))
    text = nbayes_cli("score", "mixed.nbm", "test.csv", "-t", "income", cwd=folder).stdout
    assert "accuracy" in text and "confusion matrix" in text and "<=50K" in text


def test_score_errors_name_the_problem(folder):
    (folder / "no_target.csv").write_text("id,age,workclass\nx,30,Private\n")
    result = nbayes_cli("score", "mixed.nbm", "no_target.csv", cwd=folder, ok=False)
    assert result.returncode == 2 and "no target column 'income'" in result.stderr
    other = nbayes_cli("score", "mixed.nbm", "test.csv", "-t", "nope", cwd=folder, ok=False)
    assert other.returncode == 2 and "no target column 'nope'" in other.stderr
