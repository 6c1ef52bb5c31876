"""NaiveBayes columns given as event-model instances: composed as configured, like the
kind names with the same settings, savable, and refused with a clear error where a
table column cannot take them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes import NaiveBayes
from nbayes.events.categorical import Categorical
from nbayes.events.gaussian import Gaussian


def _table(seed: int = 0, n: int = 300):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame(
        {
            "a": rng.normal(y, 1.0),
            "b": rng.normal(-y, 2.0),
            "c": np.array(["x", "y", "z"], dtype=object)[(y + rng.integers(0, 2, n)) % 3],
        }
    )
    return frame, y


def test_an_instance_is_the_kind_with_its_settings():
    X, y = _table()
    given = NaiveBayes(
        columns={
            "a": Gaussian(ddof=1, var_smoothing=0.0),
            "b": "gaussian",
            "c": Categorical(alpha=0.5),
        }
    ).fit(X, y)
    by_kind = NaiveBayes(
        columns={"a": "gaussian", "b": "gaussian", "c": "categorical"},
        ddof=1,
        var_smoothing=0.0,
        alpha=0.5,
    ).fit(X, y)
    assert given.columns_ == {"a": "gaussian", "b": "gaussian", "c": "categorical"}
    # column b keeps NaiveBayes's own ddof and var_smoothing: it differs from by_kind in b
    only_a_c = X[["a", "c"]]
    one = NaiveBayes(
        columns={"a": Gaussian(ddof=1, var_smoothing=0.0), "c": Categorical(alpha=0.5)}
    )
    two = NaiveBayes(
        columns={"a": "gaussian", "c": "categorical"}, ddof=1, var_smoothing=0.0, alpha=0.5
    )
    assert_allclose(
        one.fit(only_a_c, y).predict_proba(only_a_c),
        two.fit(only_a_c, y).predict_proba(only_a_c),
        rtol=1e-12,
    )
    assert not np.allclose(given.predict_proba(X), by_kind.predict_proba(X), rtol=1e-12)


def test_columns_of_one_kind_with_different_settings_are_separate_blocks():
    X, y = _table(1)
    model = NaiveBayes(columns={"a": Gaussian(ddof=1), "b": "gaussian", "c": "categorical"}).fit(
        X, y
    )
    layout = model.fitted_state()["_layout"]
    gaussian_blocks = [block for block in layout if block.kind == "gaussian"]
    assert sorted(block.keys for block in gaussian_blocks) == [("a",), ("b",)]
    assert dict(next(b for b in gaussian_blocks if b.keys == ("a",)).options) == {"ddof": 1}


def test_a_model_with_instances_survives_a_model_file(tmp_path):
    X, y = _table(2)
    model = NaiveBayes(
        columns={"a": Gaussian(ddof=1), "b": "gaussian", "c": Categorical(alpha=0.25)}
    )
    model.fit(X, y)
    path = tmp_path / "m.nbm"
    nbayes.save(model, path)
    loaded = nbayes.load(path)
    assert_allclose(loaded.predict_proba(X), model.predict_proba(X), rtol=0, atol=0)


def test_one_instance_for_every_column_and_a_group():
    X, y = _table(3)
    numbers = X[["a", "b"]].to_numpy()
    everywhere = NaiveBayes(columns=Gaussian(ddof=1)).fit(numbers, y)
    assert everywhere.columns_ == {0: "gaussian", 1: "gaussian"}
    grouped = NaiveBayes(columns={(0, 1): Gaussian(ddof=1)}).fit(numbers, y)
    assert_allclose(everywhere.predict_proba(numbers), grouped.predict_proba(numbers), rtol=1e-12)


def test_settings_out_of_their_constraints_are_refused():
    X, y = _table(4)
    with pytest.raises(ValueError, match="alpha"):
        NaiveBayes(columns={"a": "gaussian", "b": "gaussian", "c": Categorical(alpha=-1.0)}).fit(
            X, y
        )

    @dataclasses.dataclass(frozen=True)
    class Unregistered(Gaussian):
        pass

    with pytest.raises(ValueError, match="not a registered column kind"):
        NaiveBayes(columns={"a": Unregistered(), "b": "gaussian", "c": "categorical"}).fit(X, y)


def _rewrite_event_models(path, edit) -> None:
    """Rewrite the model file at ``path`` with ``edit`` applied to every event-model
    node of its metadata, and a fresh checksum (a tampered file, not a damaged one)."""
    import json

    from nbayes.files import model_file

    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(arrays.pop("__nbayes__").tobytes().decode())
    meta.pop("sha256")

    def walk(node):
        if isinstance(node, dict):
            if "event_model" in node:
                edit(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(meta)
    meta["sha256"] = model_file._digest(meta, arrays)
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as handle:
        np.savez(handle, __nbayes__=blob, **arrays)


@pytest.mark.parametrize(
    "edit",
    [
        lambda node: node.update(event_model="pickle"),
        lambda node: node["settings"].update(extra={"int": 1}),
        lambda node: node["settings"].pop(next(iter(node["settings"]))),
    ],
    ids=["unknown model", "unknown setting", "missing setting"],
)
def test_a_file_naming_an_event_model_wrongly_is_refused(tmp_path, edit):
    X, y = _table(5)
    path = tmp_path / "m.nbm"
    nbayes.save(
        NaiveBayes(columns={"a": Gaussian(ddof=1), "b": "gaussian", "c": "categorical"}).fit(X, y),
        path,
    )
    _rewrite_event_models(path, edit)
    with pytest.raises(nbayes.ModelFileError, match="event model"):
        nbayes.load(path)
