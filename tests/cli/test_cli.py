"""The ``nbayes`` command line: train, predict, explain, inspect, and bad input."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import WORKED_EXAMPLES, require_path

import nbayes
from nbayes.cli import main

DEEP = "[" * 5000 + "]" * 5000  # a JSON value nested past Python's recursion limit


def run(*args: str, input: str | bytes | None = None, ok: bool = True):
    result = CliRunner().invoke(main, [str(a) for a in args], input=input)
    if ok:
        assert result.exit_code == 0, (result.output, result.exception)
    return result


@pytest.fixture
def weather(tmp_path):
    return require_path(WORKED_EXAMPLES / "weather.csv")


@pytest.fixture
def mixed_table(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    colour = rng.choice(["red", "green", "blue"], size=n)
    size = rng.normal(size=n) + (colour == "red")
    label = np.where((colour == "red") ^ (rng.random(n) < 0.1), "hot", "cold")
    return pd.DataFrame({"colour": colour, "size": size.round(6), "label": label})


def test_weather_end_to_end(tmp_path, weather):
    model = tmp_path / "weather.nbm"
    out = run("train", weather, "--target", "Play", "-p", "alpha=0", "-o", model).output
    assert "Weather: categorical (inferred, text, 3 values)" in out
    assert "2 classes (No 5, Yes 9)" in out
    loaded = nbayes.load(model)
    assert isinstance(loaded, nbayes.CategoricalNB) and loaded.alpha == 0

    info = run("inspect", model).output
    assert "Weather: categorical, 3 values" in info
    assert [line.split()[0] for line in info.splitlines() if line.startswith(" " * 6)][2:5] == [
        "Overcast", "Rainy", "Sunny"
    ]  # fmt: skip
    assert f"prior {9 / 14:.4f}" in info
    assert "Yes : No" in info and "Weather = Overcast" in info  # P(Overcast|No) = 0: inf

    text = run("explain", model, "--row", "Weather=Sunny").output
    assert "P(Weather=Sunny | y)" in text and "predicted: Yes" in text
    assert "never seen" not in text
    typo = run("explain", model, "--row", "Weather=sunny").output  # not a value it knows
    assert "never seen in training (a factor of 1 in every class): Weather='sunny'" in typo
    typo_json = run("explain", model, "--row", "Weather=sunny", "--format", "json").output
    assert json.loads(typo_json)["unseen"] == {"Weather": "sunny"}
    data = json.loads(run("explain", model, "--row", "Weather=Sunny", "--format", "json").output)
    assert data["posterior"] == pytest.approx([float(Fraction(2, 5)), float(Fraction(3, 5))])
    assert data["features"][0]["factor"][1] == pytest.approx(3 / 9)
    from_data = json.loads(
        run("explain", model, weather, "--index", "0", "--format", "json").output
    )
    assert from_data["features"][0]["value"] == "Sunny"
    assert from_data["posterior"] == data["posterior"]

    predictions = tmp_path / "out.csv"
    run("predict", model, weather, "--proba", "-o", predictions, "--chunk-size", "4")
    got = pd.read_csv(predictions)
    rows = pd.read_csv(weather)
    # unsmoothed: P(Yes | o) = P(Yes) P(o | Yes) / P(o) = N(o, Yes) / N(o)
    pairs = rows.value_counts(["Weather", "Play"])
    expected = {o: pairs.get((o, "Yes"), 0) / pairs[o].sum() for o in rows["Weather"].unique()}
    assert len(got) == 14
    np.testing.assert_allclose(got["proba_Yes"], rows["Weather"].map(expected), rtol=1e-12)
    assert list(got["prediction"]) == list(np.where(got["proba_Yes"] > 0.5, "Yes", "No"))


def test_formats_stdin_and_streaming_agree(tmp_path, mixed_table):
    frame = mixed_table.drop(columns="colour")
    csv = tmp_path / "t.csv"
    frame.to_csv(csv, index=False)
    frame.to_csv(tmp_path / "t.tsv", sep="\t", index=False)
    frame.to_parquet(tmp_path / "t.parquet")
    frame.to_json(tmp_path / "t.jsonl", orient="records", lines=True)
    run("train", csv, "-t", "label", "-o", tmp_path / "m.npz")
    model = nbayes.load(tmp_path / "m.npz")
    direct = nbayes.GaussianNB().fit(frame[["size"]].to_numpy(), frame["label"].to_numpy())
    assert model.predict_proba(frame[["size"]].to_numpy()).tobytes() == (
        direct.predict_proba(frame[["size"]].to_numpy()).tobytes()
    )
    outputs = []
    for name in ("t.csv", "t.tsv", "t.parquet", "t.jsonl"):
        out = tmp_path / f"{name}.out.jsonl"
        run("predict", tmp_path / "m.npz", tmp_path / name, "--proba", "--chunk-size", "7",
            "-o", out)  # fmt: skip
        outputs.append(pd.read_json(out, lines=True))
    stdin = run("predict", tmp_path / "m.npz", "-", "--proba", input=csv.read_text()).output
    outputs.append(pd.read_csv(io.StringIO(stdin)))
    for other in outputs[1:]:
        pd.testing.assert_frame_equal(outputs[0], other)
    np.testing.assert_array_equal(
        outputs[0]["prediction"], direct.predict(frame[["size"]].to_numpy())
    )
    trained_from_stdin = run("train", "-", "-t", "label", "-o", tmp_path / "s.npz",
                             input=csv.read_text())  # fmt: skip
    assert "read 200 rows" in trained_from_stdin.output


def test_mixed_columns(tmp_path, mixed_table):
    path = tmp_path / "mixed.csv"
    mixed_table.to_csv(path, index=False)
    # auto picks the mixed model; it equals NaiveBayes fitted in Python on the same frame
    out = run("train", path, "-t", "label", "-c", "size=kde", "-o", tmp_path / "m.npz").output
    assert "NaiveBayes" in out and "size: kde (given)" in out
    features = mixed_table.drop(columns="label")
    direct = nbayes.NaiveBayes(columns={"colour": "categorical", "size": "kde"})
    direct.fit(features, mixed_table["label"])
    predicted = run("predict", tmp_path / "m.npz", path, "--proba").output
    proba = pd.read_csv(io.StringIO(predicted))[["proba_cold", "proba_hot"]].to_numpy()
    np.testing.assert_allclose(proba, direct.predict_proba(features), rtol=1e-9)
    explained = json.loads(
        run("explain", tmp_path / "m.npz", path, "--index", "0", "--format", "json").output
    )
    assert explained["posterior"] == pytest.approx(direct.predict_proba(features.iloc[[0]])[0])
    out = run("train", path, "-t", "label", "-m", "categorical", "-c", "size=ignore",
              "-o", tmp_path / "c.npz").output  # fmt: skip
    assert "size: ignore (given)" in out
    model = nbayes.load(tmp_path / "c.npz")
    codes = np.searchsorted(["blue", "green", "red"], mixed_table["colour"])[:, None]
    direct = nbayes.CategoricalNB().fit(codes, mixed_table["label"])
    np.testing.assert_array_equal(model.predict_proba(codes), direct.predict_proba(codes))
    # an unseen colour is left out of the likelihood: the prior decides
    unseen = json.loads(
        run("explain", tmp_path / "c.npz", "--row", "colour=purple", "--format", "json").output
    )
    assert unseen["posterior"] == pytest.approx(unseen["prior"])


def test_model_saved_from_python(tmp_path):
    X = np.array([[0, 1], [1, 1], [2, 0], [3, 0]])
    model = nbayes.MultinomialNB().fit(pd.DataFrame(X, columns=["a", "b"]), ["x", "x", "y", "y"])
    model.save(tmp_path / "m.npz")
    pd.DataFrame(X, columns=["a", "b"]).to_csv(tmp_path / "d.csv", index=False)
    out = run("predict", tmp_path / "m.npz", tmp_path / "d.csv").output
    assert out.split() == ["prediction", *model.predict(pd.DataFrame(X, columns=["a", "b"]))]
    info = run("inspect", tmp_path / "m.npz").output  # theta: x (.4, .6), y (6/7, 1/7)
    assert "x : y            b = 1   4.20 : 1" in info


def test_a_composite_model_file_is_refused_in_one_line(tmp_path):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [1.0, 1.0, 0.0, 0.0]})
    pipeline = make_pipeline(StandardScaler(), nbayes.GaussianNB()).fit(X, ["x", "x", "y", "y"])
    nbayes.save(pipeline, tmp_path / "p.nbm")
    X.to_csv(tmp_path / "d.csv", index=False)
    model, data = tmp_path / "p.nbm", tmp_path / "d.csv"
    for args in (["inspect", model], ["predict", model, data], ["explain", model, data, "-i", "0"]):
        result = run(*args, ok=False)
        assert result.exit_code == 2, result.output
        assert "holds a Pipeline; the command line works on nbayes estimators" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train", "{w}", "-t", "Nope", "-o", "{m}"], "no target column 'Nope'"),
        (["train", "{w}", "-t", "Play", "-m", "magic", "-o", "{m}"], "unknown model 'magic'"),
        (["train", "{w}", "-t", "Play", "-c", "Weather=fuzzy", "-o", "{m}"], "column kind"),
        (["train", "{w}", "-t", "Play", "-c", "Nope=gaussian", "-o", "{m}"], "no column 'Nope'"),
        (["train", "{w}", "-t", "Play", "-m", "gaussian", "-o", "{m}"], "not a number"),
        (["train", "{w}", "-t", "Play", "-p", "alpha=-1", "-o", "{m}"], "alpha"),
        (["train", "{w}", "-t", "Play", "-p", "alpha=" + "9" * 5000, "-o", "{m}"], "4,300 digits"),
        (
            ["train", "{w}", "-t", "Play", "-p", "class_prior=" + DEEP, "-o", "{m}"],
            "nested too deeply",
        ),
        (["train", "{d}/missing.csv", "-t", "Play", "-o", "{m}"], "no such file"),
        (["train", "{d}/empty.csv", "-t", "Play", "-o", "{m}"], "empty"),
        (["train", "{d}/header.csv", "-t", "Play", "-o", "{m}"], "no rows"),
        (["train", "{d}/data.xyz", "-t", "Play", "-o", "{m}"], "cannot tell the format"),
        (["inspect", "{w}"], "not an nbayes model file"),
        (["predict", "{d}/foreign.npz", "{w}"], "not an nbayes model file"),
        (["predict", "{good}", "{d}/person.csv"], "no column(s) 'Weather'"),
        (["explain", "{good}"], "either --row"),
        (["explain", "{good}", "{w}", "--index", "99"], "has only 14 rows"),
        (["train", "{w}", "-t", "Play", "-c", "Play=gaussian", "-o", "{m}"], "is the target"),
        (["train", "{w}", "-t", "Play", "-o", "{d}"], "a directory, not a file"),
        (["inspect", "{d}"], "is a directory, not a model file"),
        (["explain", "{good}", "--row", ""], "no NAME=VALUE field"),
        (["explain", "{good}", "--row", "{{}}"], "no NAME=VALUE field"),
        (["explain", "{good}", "--row", "Weather=Sunny,Weather=Rainy"], "given more than once"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, weather, args, message):
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("Weather,Play\n")
    (tmp_path / "data.xyz").write_text("Weather,Play\nSunny,No\n")
    np.savez(tmp_path / "foreign.npz", weights=np.ones(3))
    shutil.copy(require_path(WORKED_EXAMPLES / "person.csv"), tmp_path / "person.csv")
    good = tmp_path / "good.npz"
    run("train", weather, "-t", "Play", "-o", good)
    fill = {"w": weather, "m": tmp_path / "out.npz", "d": tmp_path, "good": good}
    result = run(*[a.format(**fill) for a in args], ok=False)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ")
    assert not (tmp_path / "out.npz").exists()


def test_an_unknown_text_encoding_is_refused_before_reading(tmp_path, weather):
    for command in (["train", weather, "-t", "Play", "-o", tmp_path / "m.nbm"],
                    ["predict", tmp_path / "m.nbm", weather]):  # fmt: skip
        for encoding in ("bogus", "base64"):  # base64: a codec, but not of text
            result = run(*command, "--encoding", encoding, ok=False)
            assert result.exit_code == 2 and "Traceback" not in result.output
            assert f"unknown text encoding '{encoding}'" in result.output


def test_debug_shows_the_traceback(tmp_path, weather):
    result = run("--debug", "inspect", weather, ok=False)
    assert isinstance(result.exception, nbayes.ModelFileError)


def test_installed_command_in_a_subprocess(tmp_path, weather):
    """One real run of the installed ``nbayes`` (slow to start: it imports scikit-learn)."""
    exe = Path(sys.executable).with_name("nbayes")
    model = tmp_path / "m.npz"
    run("train", weather, "-t", "Play", "-o", model)
    done = subprocess.run(
        [str(exe), "predict", str(model), "-", "--to", "jsonl"],
        input="Weather\nSunny\nOvercast\n",
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["prediction"] for line in done.stdout.splitlines()] == ["Yes", "Yes"]


def test_inspect_headings_of_long_class_names_stay_apart(tmp_path):
    data = tmp_path / "groups.csv"
    rows = ["word,group"] + [
        f"{w},{g}" for w, g in [("god", "alt.atheism"), ("gpu", "comp.graphics"),
                                ("dos", "comp.os.ms-windows.misc")] * 4
    ]  # fmt: skip
    data.write_text("\n".join(rows) + "\n")
    run("train", data, "-t", "group", "-o", tmp_path / "m.nbm")
    heading = next(
        line for line in run("inspect", tmp_path / "m.nbm").output.splitlines()
        if line.strip().startswith("value")
    )
    assert heading.split()[1:] == ["alt.atheism", "comp.graph…", "comp.os.ms…"]


def test_explain_names_unseen_categories_of_every_model(tmp_path, weather):
    """A value training never saw is named whatever model holds the column: the
    categorical model's codes or a mixed table's vocabulary (which left it out)."""
    for model_kind in ("categorical", "mixed"):
        model = tmp_path / f"{model_kind}.nbm"
        run("train", weather, "-t", "Play", "-m", model_kind, "-o", model)
        data = json.loads(
            run("explain", model, "--row", "Weather=Snowy", "--format", "json").output
        )
        assert data["unseen"] == {"Weather": "Snowy"}, model_kind
        assert data["features"][0]["log_factor"] == [0.0, 0.0]
        text = run("explain", model, "--row", "Weather=Snowy").output
        assert "never seen in training (a factor of 1 in every class): Weather='Snowy'" in text
        seen = run("explain", model, "--row", "Weather=Rainy", "--format", "json").output
        assert json.loads(seen)["unseen"] == {}
