"""Safe model files: exact round trips, resumable statistics, and every bad file refused."""

from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.files import model_file as nbio


def _data(kind: str, labels: str, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, size=(60, 4)).astype(float)
    if kind == "gaussian":
        X = rng.normal(size=(60, 4)) * [1.0, 10.0, 0.1, 3.0]
    y_codes = rng.integers(0, 3, size=60)
    y = {
        "int": y_codes,
        "str": np.array(["spam", "ham", "eggs"])[y_codes],
        "object": np.array(["spam", "ham", "eggs"], dtype=object)[y_codes],
    }[labels]
    return X, y


MODELS = [
    ("gaussian", lambda: nbayes.GaussianNB()),
    ("gaussian", lambda: nbayes.GaussianNB(priors=[0.2, 0.3, 0.5], ddof=1, var_smoothing=1e-6)),
    ("counts", lambda: nbayes.MultinomialNB(alpha=np.array([0.5, 1.0, 2.0, 0.1]))),
    ("counts", lambda: nbayes.BernoulliNB(binarize=1.5, prior_alpha=1.0)),
    ("counts", lambda: nbayes.ComplementNB(norm=True)),
    ("counts", lambda: nbayes.CategoricalNB(min_categories=12, handle_unknown="ignore")),
]


@pytest.mark.parametrize("labels", ["int", "str", "object"])
@pytest.mark.parametrize(("kind", "make"), MODELS)
def test_round_trip_is_bitwise_exact(tmp_path, kind, make, labels):
    X, y = _data(kind, labels)
    model = make().fit(X, y)
    path = tmp_path / "model.npz"
    nbayes.save(model, path)
    loaded = nbayes.load(path)
    assert type(loaded) is type(model)
    assert loaded.classes_.dtype == model.classes_.dtype
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    assert json.dumps(str(loaded.get_params())) == json.dumps(str(model.get_params()))
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert loaded.predict_proba(X).tobytes() == model.predict_proba(X).tobytes()
    assert loaded.predict_joint_log_proba(X).tobytes() == model.predict_joint_log_proba(X).tobytes()


def test_feature_names_and_float32_survive(tmp_path):
    X, y = _data("gaussian", "str")
    frame = pd.DataFrame(X.astype(np.float32), columns=["a", "b", "c", "d"])
    model = nbayes.GaussianNB().fit(frame, y)
    model.save(tmp_path / "m.npz")
    loaded = nbayes.GaussianNB.load(tmp_path / "m.npz")
    assert list(loaded.feature_names_in_) == ["a", "b", "c", "d"]
    assert loaded.feature_names_in_.dtype == object
    assert loaded.theta_.dtype == np.float32
    assert loaded.predict_proba(frame).tobytes() == model.predict_proba(frame).tobytes()


@pytest.mark.parametrize(("kind", "make"), MODELS)
def test_partial_fit_resumes_after_load(tmp_path, kind, make):
    X, y = _data(kind, "str")
    X2, y2 = _data(kind, "str", seed=1)
    classes = np.unique(np.concatenate([y, y2]))
    straight = make().partial_fit(X, y, classes=classes).partial_fit(X2, y2)
    first = make().partial_fit(X, y, classes=classes)
    first.save(tmp_path / "half.npz")
    resumed = nbayes.load(tmp_path / "half.npz").partial_fit(X2, y2)
    assert resumed.predict_proba(X2).tobytes() == straight.predict_proba(X2).tobytes()


def test_loaded_models_merge(tmp_path):
    X, y = _data("counts", "str")
    a = nbayes.MultinomialNB().fit(X[:30], y[:30])
    b = nbayes.MultinomialNB().fit(X[30:], y[30:])
    a.save(tmp_path / "a.npz")
    b.save(tmp_path / "b.npz")
    merged = nbayes.merge(nbayes.load(tmp_path / "a.npz"), nbayes.load(tmp_path / "b.npz"))
    whole = nbayes.MultinomialNB().fit(X, y)
    np.testing.assert_array_equal(merged.feature_count_, whole.feature_count_)
    np.testing.assert_allclose(merged.predict_proba(X), whole.predict_proba(X), rtol=1e-12)


def test_metadata_is_stored(tmp_path):
    X, y = _data("counts", "int")
    nbayes.save(nbayes.BernoulliNB().fit(X, y), tmp_path / "m", metadata={"target": "t"})
    assert nbio.load_file(tmp_path / "m").metadata == {"target": "t"}
    assert not (tmp_path / "m.npz").exists()  # written under the exact name given


def test_wrong_class_unfitted_and_foreign_estimators(tmp_path):
    X, y = _data("counts", "int")
    nbayes.MultinomialNB().fit(X, y).save(tmp_path / "m.npz")
    with pytest.raises(nbayes.ModelFileError, match="MultinomialNB, not a GaussianNB"):
        nbayes.GaussianNB.load(tmp_path / "m.npz")
    with pytest.raises(ValueError, match="not fitted"):
        nbayes.save(nbayes.GaussianNB(), tmp_path / "u.npz")
    from sklearn.naive_bayes import GaussianNB as SkGaussianNB

    with pytest.raises(TypeError, match="not an nbayes estimator"):
        nbayes.save(SkGaussianNB().fit(X, y), tmp_path / "sk.npz")


# ---------------------------------------------------------------- bad files
@pytest.fixture
def saved(tmp_path):
    X, y = _data("gaussian", "str")
    path = tmp_path / "model.npz"
    nbayes.GaussianNB().fit(X, y).save(path)
    return path


def _rewrite(path, edit_meta=None, edit_arrays=None, rehash=True):
    """Rewrite a model file with edited metadata/arrays (optionally with a fresh digest)."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(arrays.pop("__nbayes__").tobytes().decode())
    digest = meta.pop("sha256")
    if edit_meta:
        edit_meta(meta)
    if edit_arrays:
        edit_arrays(arrays)
    meta["sha256"] = nbio._digest(meta, arrays) if rehash else digest
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as handle:
        np.savez(handle, __nbayes__=blob, **arrays)


def test_truncated_file(saved):
    data = saved.read_bytes()
    for size in (len(data) // 2, len(data) - 30, 10):
        saved.write_bytes(data[:size])
        with pytest.raises(nbayes.ModelFileError, match=r"truncated|corrupted|not an npz"):
            nbayes.load(saved)


def test_corrupted_bytes(saved):
    data = bytearray(saved.read_bytes())
    data[200] ^= 0xFF  # inside the first member's data: the zip CRC no longer matches
    saved.write_bytes(bytes(data))
    with pytest.raises(nbayes.ModelFileError, match=r"corrupted|SHA-256|metadata"):
        nbayes.load(saved)


def test_tampered_arrays_fail_the_checksum(saved):
    def double_means(arrays):
        for name, array in arrays.items():
            if array.dtype == np.float64 and array.ndim == 2:
                arrays[name] = array * 2

    _rewrite(saved, edit_arrays=double_means, rehash=False)
    with pytest.raises(nbayes.ModelFileError, match="SHA-256"):
        nbayes.load(saved)


def test_tampered_metadata_fails_the_checksum(saved):
    _rewrite(
        saved,
        edit_meta=lambda m: m["model"]["params"]["dict"].update(var_smoothing={"float": 0.5}),
        rehash=False,
    )
    with pytest.raises(nbayes.ModelFileError, match="SHA-256"):
        nbayes.load(saved)


@pytest.mark.parametrize("version", [1, 3])
def test_wrong_version(saved, version):
    _rewrite(saved, edit_meta=lambda m: m.update(version=version))
    with pytest.raises(nbayes.ModelFileError, match=rf"version {version} .*reads version 2"):
        nbayes.load(saved)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m["model"].update(estimator="os.system"), "unknown estimator"),
        (
            lambda m: m["model"]["state"]["dict"]["statistics"].update(dataclass="Popen"),
            "unknown type 'Popen'",
        ),
        (
            lambda m: m["model"]["state"]["dict"].update(__class__={"str": "x"}),
            "unexpected fitted attribute",
        ),
        (lambda m: m["model"]["params"]["dict"].update(evil={"int": 1}), "parameters do not fit"),
        (lambda m: m.update(format="other"), "not an nbayes model file"),
    ],
)
def test_crafted_metadata_is_refused(saved, edit, message):
    _rewrite(saved, edit_meta=edit)
    with pytest.raises(nbayes.ModelFileError, match=message):
        nbayes.load(saved)


def test_non_nbayes_files(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    plain = tmp_path / "plain.npz"
    np.savez(plain, x=np.arange(3))
    npy = tmp_path / "array.npy"
    np.save(npy, np.arange(3))
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    for path in (text, plain, npy, empty, tmp_path / "missing.npz"):
        with pytest.raises(nbayes.ModelFileError, match=r"not an nbayes model file|no such"):
            nbayes.load(path)


class _Boom:
    """Unpickling this would create a file: a stand-in for arbitrary code execution."""

    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (open, (self.target, "w"))


def test_pickle_bearing_files_are_refused_without_running_code(saved, tmp_path):
    witness = tmp_path / "pwned"
    with np.load(saved, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    evil = np.empty(1, dtype=object)
    evil[0] = _Boom(str(witness))
    arrays["a0"] = evil
    with open(saved, "wb") as handle:
        np.savez(handle, **arrays)
    with pytest.raises(nbayes.ModelFileError, match="pickled"):
        nbayes.load(saved)
    raw = tmp_path / "raw.pkl"
    raw.write_bytes(pickle.dumps(_Boom(str(witness))))
    with pytest.raises(nbayes.ModelFileError, match="not an nbayes model file"):
        nbayes.load(raw)
    assert not witness.exists()


def test_crash_mid_save_keeps_the_old_file(saved, monkeypatch):
    before = saved.read_bytes()
    X, y = _data("gaussian", "int", seed=5)
    other = nbayes.GaussianNB().fit(X, y)

    def failing_savez(handle, **arrays):
        handle.write(b"PK\x03\x04 half a zip")
        raise OSError("disk full")

    monkeypatch.setattr(nbio.np, "savez", failing_savez)
    with pytest.raises(OSError, match="disk full"):
        nbayes.save(other, saved)
    monkeypatch.undo()
    assert saved.read_bytes() == before
    assert sorted(os.listdir(saved.parent)) == [saved.name]  # no temporary file left
    assert list(nbayes.load(saved).classes_) == ["eggs", "ham", "spam"]
