"""The ``nbayes`` command as users run it: each step a fresh process, so a model file
must load without anything imported before (issue 17's CLI path)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.cli._encoding import model_names

EXE = str(Path(sys.executable).with_name("nbayes"))
ENV = {**os.environ, "PYTHONWARNINGS": "ignore"}


def start(*args) -> subprocess.Popen:
    return subprocess.Popen(
        [EXE, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        stdin=subprocess.DEVNULL,
    )


def finish(process: subprocess.Popen) -> str:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, (process.args, err)
    return out


def nbayes_run(*args) -> str:
    return finish(start(*args))


def in_parallel(commands: list[tuple]) -> list[str]:
    """Run the commands at once, a few at a time; their outputs in order."""
    width = max(2, os.cpu_count() or 2)
    outputs: list[str] = []
    for first in range(0, len(commands), width):
        running = [start(*command) for command in commands[first : first + width]]
        outputs += [finish(process) for process in running]
    return outputs


@pytest.fixture
def counts_csv(tmp_path) -> Path:
    """Small non-negative integer columns (counts, codes or numbers to the models)
    and a two-class target: every model can be trained on it."""
    rng = np.random.default_rng(3)
    n = 120
    label = rng.choice(["no", "yes"], size=n)
    frame = pd.DataFrame(
        {
            "a": rng.poisson(np.where(label == "yes", 3.0, 1.0)),
            "b": rng.poisson(2.0, size=n),
            "c": rng.integers(0, 4, size=n),
            "label": label,
        }
    )
    path = tmp_path / "counts.csv"
    frame.to_csv(path, index=False)
    return path


def test_every_model_trains_and_predicts_in_fresh_processes(tmp_path, counts_csv):
    names = model_names()
    assert {"auto", "mixed", "gaussian", "kde", "aode", "tan", "poisson"} <= set(names)
    trains = [
        ("train", counts_csv, "-t", "label", "-m", name, "-o", tmp_path / f"{name}.nbm")
        for name in names
    ]
    in_parallel(trains)
    outputs = in_parallel(
        [("predict", tmp_path / f"{name}.nbm", counts_csv, "--proba") for name in names]
    )
    truth = pd.read_csv(counts_csv)["label"]
    for name, text in zip(names, outputs, strict=True):
        got = pd.read_csv(io.StringIO(text))
        assert list(got.columns) == ["prediction", "proba_no", "proba_yes"], name
        assert len(got) == len(truth), name
        proba = got[["proba_no", "proba_yes"]].to_numpy()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12, err_msg=name)
        expected = np.where(proba[:, 1] > proba[:, 0], "yes", "no")
        assert list(got["prediction"]) == list(expected), name
        assert (got["prediction"] == truth).mean() > 0.5, name


@pytest.fixture
def mixed_csv(tmp_path) -> Path:
    """Numbers, true/false, and text, with missing values in three columns."""
    rng = np.random.default_rng(7)
    n = 300
    label = rng.choice(["hot", "cold"], size=n)
    hot = label == "hot"
    size = (rng.normal(size=n) + hot).round(6)
    colour = rng.choice(["red", "green", "blue"], size=n).astype(object)
    colour[hot & (rng.random(n) < 0.6)] = "red"
    flag = np.where(rng.random(n) < np.where(hot, 0.8, 0.3), "true", "false")
    frame = pd.DataFrame({"size": size, "colour": colour, "flag": flag, "label": label})
    frame.loc[rng.random(n) < 0.1, "size"] = np.nan
    frame.loc[rng.random(n) < 0.1, "colour"] = None
    path = tmp_path / "mixed.csv"
    frame.to_csv(path, index=False)
    return path


def test_mixed_chain_in_separate_processes(tmp_path, mixed_csv):
    """train -> predict -> explain -> inspect of the default model on a mixed CSV with
    missing values, each a fresh process; it equals NaiveBayes fitted in Python."""
    model = tmp_path / "m.nbm"
    out = nbayes_run("train", mixed_csv, "-t", "label", "-o", model)
    assert "NaiveBayes" in out and "missing values" in out
    assert "size: gaussian" in out and "flag: bernoulli" in out and "colour: categorical" in out
    frame = pd.read_csv(mixed_csv)
    features = frame.drop(columns="label")
    direct = nbayes.NaiveBayes().fit(features, frame["label"].to_numpy())
    predict, explain_row, explain_partial, inspect = (
        start("predict", model, mixed_csv, "--proba", "--to", "jsonl"),
        start("explain", model, mixed_csv, "--index", "3", "--format", "json"),
        start("explain", model, "--row", "colour=red"),
        start("inspect", model, "--format", "json"),
    )
    lines = [json.loads(line) for line in finish(predict).splitlines()]
    proba = np.array([[row["proba_cold"], row["proba_hot"]] for row in lines])
    np.testing.assert_allclose(proba, direct.predict_proba(features), rtol=1e-9)
    assert [row["prediction"] for row in lines] == list(direct.predict(features))
    explained = json.loads(finish(explain_row))
    np.testing.assert_allclose(
        explained["posterior"], direct.predict_proba(features.iloc[[3]])[0], rtol=1e-9
    )
    partial = finish(explain_partial)
    assert "left out (not given; marginalised" in partial and "size, flag" in partial
    info = json.loads(finish(inspect))
    columns = {c["name"]: c for c in info["columns"]}
    means = frame.groupby("label")["size"].mean()  # cold, hot: classes in sorted order
    np.testing.assert_allclose(
        columns["size"]["per_class"]["mean"], [means["cold"], means["hot"]], rtol=1e-9
    )
    assert columns["colour"]["event_model"] == "categorical"
    assert set(columns["colour"]["per_class"]["values"]) == {"red", "green", "blue"}
    assert info["most_informative"] is not None


def test_train_into_a_pipe_that_closes_early_still_writes_the_model(tmp_path, counts_csv):
    """`nbayes train ... | head -1`: the reader goes away after the first line of the
    summary; the model file is written before it is printed."""
    model = tmp_path / "m.nbm"
    train = subprocess.Popen(
        [EXE, "train", str(counts_csv), "-t", "label", "-o", str(model)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    train.stdout.readline()
    train.stdout.close()  # as head does once it has its line
    train.wait(timeout=600)
    train.stderr.close()
    assert train.returncode in (0, 141) and model.exists()
    assert "prediction" in nbayes_run("predict", model, counts_csv)
