"""The reading options a model file keeps (``nbayes train`` stores --sep, --encoding,
--na-values, ...) are checked as their command-line options are: a tampered or foreign
value is one clear error line naming the option and the model file, never an
AttributeError or LookupError traceback (issue 25)."""

from __future__ import annotations

import subprocess
import sys

import hostile_files
import numpy as np
import pandas as pd
import pytest


def nbayes_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nbayes", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("options")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=40), "c": rng.choice(["u", "v"], size=40)})
    frame["label"] = np.where(frame["x"] > 0, "pos", "neg")
    data = folder / "data.csv"
    frame.to_csv(data, index=False, sep=";")
    model = folder / "model.nbm"
    result = nbayes_cli("train", data, "-t", "label", "--sep", ";", "-o", model)
    assert result.returncode == 0, result.stderr
    return folder, data, model


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("sep", 5, "read.sep=5 is not a one-character separator"),
        ("sep", ";;", "read.sep=';;' is not a one-character separator"),
        ("encoding", "no-such-codec", "read.encoding='no-such-codec' is not a text encoding"),
        ("encoding", "zlib_codec", "read.encoding='zlib_codec' is not a text encoding"),
        ("encoding", "punycode", "read.encoding='punycode' is not a text encoding"),  # quadratic
        ("encoding", 7, "read.encoding=7 is not a text encoding"),
        ("header", "yes", "read.header='yes' is not true or false"),
        ("na_values", "?", "read.na_values='?' is not a list"),
        ("na_values", ["x" * 5000], "is not a list of at most 1000 short strings"),
        ("format", "pickle", "read.format='pickle' is not one of"),
        ("shell", "rm -rf", "read.shell='rm -rf' is not a reading option"),
    ],
)
def test_a_tampered_reading_option_is_one_clear_error(trained, tmp_path, option, value, message):
    _, data, model = trained
    meta, arrays = hostile_files.read_parts(model)
    meta["metadata"]["cli"]["read"][option] = value
    tampered = tmp_path / "tampered.nbm"
    hostile_files.write_parts(tampered, meta, arrays)
    result = nbayes_cli("predict", tampered, data)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert message in lines[0] and str(tampered) in lines[0], lines[0]


def test_the_kept_options_still_read_the_training_file(trained):
    _, data, model = trained
    result = nbayes_cli("predict", model, data)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) >= 40
