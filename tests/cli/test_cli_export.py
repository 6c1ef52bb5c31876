"""``nbayes export`` as users run it: a model trained by ``nbayes train`` in one
process, exported in another, served by onnxruntime in a third that imports only
onnxruntime and numpy, agreeing with ``nbayes predict --proba`` on rows with missing
values (empty cells and the model's missing markers) and unseen categories."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import onnx
import pandas as pd
import pytest
from conftest import nbayes
from numpy.testing import assert_allclose, assert_array_equal

SCORE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import onnxruntime as ort
    folder = sys.argv[1]
    data = np.load(folder + "/feeds.npz")
    feeds = {k: data[k].astype(object) if data[k].dtype.kind == "U" else data[k]
             for k in data.files}
    session = ort.InferenceSession(folder + "/model.onnx", providers=["CPUExecutionProvider"])
    label, proba = session.run(None, feeds)
    print(json.dumps({"label": [str(v) for v in label], "proba": proba.tolist(),
                      "nbayes": any(m.startswith("nbayes") for m in sys.modules)}))
    """
)


def _tables(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(11)
    n = 300
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "temp": np.round(rng.normal(20 + 4 * y, 3), 1),
            "hum": np.round(rng.normal(70 - 8 * y, 6), 1),
            "outlook": np.array(["sunny", "rainy", "overcast"])[(rng.integers(0, 3, n) + y) % 3],
            "wind": np.where(rng.random(n) < 0.3 + 0.3 * y, "strong", "weak"),
            "play": np.array(["no", "yes"])[y],
        }
    )
    train, test = frame[:240].copy(), frame[240:].copy()
    test = test.astype({"temp": object, "outlook": object})
    test.iloc[0, 0] = ""  # an empty cell: missing
    test.iloc[1, 2] = "NA"  # a missing marker
    test.iloc[2, 2] = "foggy"  # never seen in training
    paths = tmp_path / "train.csv", tmp_path / "test.csv"
    train.to_csv(paths[0], index=False)
    test.to_csv(paths[1], index=False)
    return paths


def _feeds(graph, test: pd.DataFrame) -> dict[str, np.ndarray]:
    """The graph's inputs from the CSV's text, as a client would make them: strings as
    written, numbers as floats (NaN for an empty cell)."""
    feeds = {}
    for given in graph.graph.input:
        string = given.type.tensor_type.elem_type == onnx.TensorProto.STRING
        names = [given.name]
        if given.name == "X":  # an array model: its features, named in the metadata
            names = json.loads(graph.metadata_props[0].value)["features"]
        block = test[names].fillna("")
        if string:
            feeds[given.name] = block.to_numpy(dtype=str)
        else:
            feeds[given.name] = block.replace("", np.nan).astype(float).to_numpy()
    return feeds


@pytest.mark.parametrize("kind", ["mixed", "gaussian", "aode"])
def test_export_serves_what_predict_predicts(kind, tmp_path):
    train, test = _tables(tmp_path)
    if kind == "gaussian":  # numbers only, complete rows
        for path in (train, test):
            frame = pd.read_csv(path)[["temp", "hum", "play"]]
            frame.iloc[:3] = pd.read_csv(train)[["temp", "hum", "play"]].iloc[:3].to_numpy()
            frame.to_csv(path, index=False)
    if kind == "aode":  # categories only
        for path in (train, test):
            frame = pd.read_csv(path, keep_default_na=False, dtype=str)
            frame[["outlook", "wind", "play"]].to_csv(path, index=False)
    model, graph_path = tmp_path / "model.nbm", tmp_path / "model.onnx"
    nbayes("train", train, "-t", "play", "-m", kind, "-o", model, check=True)
    done = nbayes("export", model, "-o", graph_path, check=True)
    assert "label, probabilities" in done.stderr
    graph = onnx.load(graph_path)
    onnx.checker.check_model(graph, full_check=True)
    frame = pd.read_csv(test, keep_default_na=False, dtype=str)
    feeds = _feeds(graph, frame)
    np.savez(tmp_path / "feeds.npz", **feeds)
    scored = subprocess.run([sys.executable, "-c", SCORE, str(tmp_path)], capture_output=True,
                            text=True, timeout=120, check=True)  # fmt: skip
    served = json.loads(scored.stdout)
    assert served["nbayes"] is False
    predicted = nbayes("predict", model, test, "--proba", check=True).stdout
    predicted = pd.read_csv(io.StringIO(predicted))
    proba = predicted[[c for c in predicted.columns if c.startswith("proba_")]].to_numpy()
    assert_allclose(served["proba"], proba, rtol=0, atol=1e-9)
    assert_array_equal(served["label"], predicted["prediction"].astype(str))


def test_export_refuses_to_write_over_the_model_and_writes_atomically(tmp_path):
    train, _ = _tables(tmp_path)
    model = tmp_path / "model.nbm"
    nbayes("train", train, "-t", "play", "-m", "mixed", "-o", model, check=True)
    before = model.read_bytes()
    done = nbayes("export", model, "-o", model)
    assert done.returncode == 2 and "model.nbm" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert model.read_bytes() == before
    done = nbayes("export", tmp_path / "absent.nbm", "-o", tmp_path / "x.onnx")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.onnx").exists()


def test_export_serves_a_text_model_trained_on_sms_messages(tmp_path):
    """A model trained by ``nbayes train`` on a text column (the default rich tokens)
    exports and serves, in a process without nbayes, what ``nbayes predict`` gives on
    held-out messages of the SMS Spam Collection."""
    from conftest import DATA, require_path

    path = require_path(DATA / "sms_spam_collection" / "SMSSpamCollection")
    rows = [line.split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines()]
    frame = pd.DataFrame(rows, columns=["label", "message"])
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    frame[frame.index % 5 != 0].to_csv(train, index=False)
    frame[frame.index % 5 == 0][["message"]].to_csv(test, index=False)
    model, graph_path = tmp_path / "model.nbm", tmp_path / "model.onnx"
    nbayes("train", train, "-t", "label", "--text", "message", "-o", model)
    nbayes("export", model, "-o", graph_path)
    graph = onnx.load(graph_path)
    onnx.checker.check_model(graph, full_check=True)
    messages = pd.read_csv(test, keep_default_na=False, dtype=str)
    np.savez(tmp_path / "feeds.npz", message=messages[["message"]].to_numpy(dtype=str))
    scored = subprocess.run([sys.executable, "-c", SCORE, str(tmp_path)], capture_output=True,
                            text=True, timeout=300, check=True)  # fmt: skip
    served = json.loads(scored.stdout)
    assert served["nbayes"] is False
    predicted = pd.read_csv(io.StringIO(nbayes("predict", model, test, "--proba").stdout))
    proba = predicted[[c for c in predicted.columns if c.startswith("proba_")]].to_numpy()
    assert_allclose(served["proba"], proba, rtol=0, atol=1e-9)
    assert_array_equal(served["label"], predicted["prediction"].astype(str))
