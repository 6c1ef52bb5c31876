"""Hostile model files: fitted models of every registered estimator, tampered variants of
their files (saved with a valid checksum, as an attacker who recomputes it would), and
the check each variant must pass: refused on load with ``ModelFileError``, or loaded
and predicting finite probabilities that sum to 1.

Used by ``tests/test_io_hostile.py``; ``python tests/hostile_files.py DIR`` checks every
``*.npz`` under DIR against ``DIR/inputs.npz`` in this (fresh) process and prints one
JSON line per file, which is how the test runs the whole batch in one subprocess.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

META_KEY = "__nbayes__"

#: Estimators that need settings (or data) of their own; every other registered
#: estimator is fitted with its defaults on the generic small-integer table.
CONFIGS: dict[str, list[tuple[str, Callable[[], Any], str]]] = {}


def _configs() -> dict[str, list[tuple[str, Callable[[], Any], str]]]:
    import nbayes

    mixed_columns = [
        "gaussian",
        "kde",
        "categorical",
        "poisson",
        "bernoulli",
        "exponential",
        "binned",
        "multinomial",
        "multinomial",
    ]
    return {
        "KernelDensityNB": [
            ("exact", lambda: nbayes.KernelDensityNB(), "numbers"),
            ("binned", lambda: nbayes.KernelDensityNB(algorithm="binned", max_bins=16), "numbers"),
        ],
        "CategoricalNB": [
            ("min_categories", lambda: nbayes.CategoricalNB(min_categories=5), "codes"),
        ],
        "NaiveBayes": [
            ("mixed", lambda: nbayes.NaiveBayes(columns=mixed_columns), "table"),
        ],
    }


def training_data(kind: str, seed: int = 0) -> tuple[Any, np.ndarray]:
    """``(X, y)``: 60 rows, 3 classes; ``kind`` "codes" (small integers, accepted by
    every model), "numbers" (continuous, non-negative) or "table" (a DataFrame of
    mixed columns)."""
    rng = np.random.default_rng(seed)
    y = np.array(["ant", "bee", "cat"])[rng.integers(0, 3, size=60)]
    y[:3] = ["ant", "bee", "cat"]
    if kind == "codes":
        return rng.integers(0, 4, size=(60, 3)), y
    if kind == "numbers":
        return rng.gamma(2.0, 1.5, size=(60, 3)), y
    import pandas as pd

    table = pd.DataFrame(
        {
            "g": rng.normal(size=60),
            "k": rng.normal(size=60),
            "c": rng.choice(["red", "green", "blue"], size=60),
            "p": rng.poisson(3.0, size=60).astype(float),
            "b": rng.integers(0, 2, size=60).astype(float),
            "e": rng.exponential(2.0, size=60),
            "n": rng.normal(size=60),
            "m1": rng.poisson(2.0, size=60).astype(float),
            "m2": rng.poisson(2.0, size=60).astype(float),
        }
    )
    return table, y


def fitted_models() -> Iterator[tuple[str, Any, Any]]:
    """``(label, fitted model, X to predict)`` for every estimator in the registry:
    its configurations from :func:`_configs`, else its defaults on small integers."""
    from nbayes.core.registry import ESTIMATORS, resolve

    configs = _configs()
    for name in ESTIMATORS:
        for variant, make, kind in configs.get(
            name, [("default", resolve(ESTIMATORS, name), "codes")]
        ):
            X, y = training_data(kind)
            yield f"{name}-{variant}", make().fit(X, y), X


# ---------------------------------------------------------------- file surgery
def read_parts(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """A model file's metadata (without its digest) and arrays."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(arrays.pop(META_KEY).tobytes().decode())
    meta.pop("sha256", None)
    return meta, arrays


def write_parts(path: Path, meta: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write a model file with a freshly computed (valid) digest."""
    from nbayes.files import model_file as nbio

    meta = dict(meta)
    meta["sha256"] = nbio._digest(meta, arrays)
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as handle:
        np.savez(handle, **{META_KEY: blob}, **arrays)


def _walk(node: Any, path: tuple = ()) -> Iterator[tuple[tuple, dict]]:
    """Every tagged node of a metadata tree with its path of keys/indices."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, (*path, index))


def _name(path: tuple) -> str:
    """A readable name of a node: the dict keys and dataclass field names on its path."""
    keep = [str(p) for p in path if isinstance(p, str) and p not in ("dict", "fields", "list")]
    return ".".join(keep[-4:])


Edit = Callable[[dict, dict[str, np.ndarray]], None]


def _array_edits(array: np.ndarray) -> Iterator[tuple[str, Callable[[np.ndarray], np.ndarray]]]:
    if array.dtype.kind in "fiu" and array.size:

        def negative(a):
            out = a.astype(np.float64 if a.dtype.kind == "u" else a.dtype)
            return -np.abs(out) - 1

        def with_value(value):
            def edit(a):
                out = a.astype(np.float64).copy()
                out.flat[0] = value
                return out

            return edit

        yield "negative", negative
        yield "nan", with_value(np.nan)
        yield "inf", with_value(np.inf)
        yield "huge", with_value(1e300)
    if array.dtype.kind == "i" and array.size:

        def absurd(a):
            out = a.copy()
            out.flat[0] = np.iinfo(a.dtype).max // 2
            return out

        def trillion(a):
            out = a.copy()
            out.flat[0] = min(10**12, np.iinfo(a.dtype).max)
            return out

        def smallest(a):  # what NaN becomes cast to int64; its own absolute value
            out = a.copy()
            out.flat[0] = np.iinfo(a.dtype).min
            return out

        yield "absurd", absurd
        yield "1e12", trillion
        yield "smallest", smallest
    if array.ndim >= 1 and array.shape[0] >= 1:
        yield "short", lambda a: a[:-1]
    if array.ndim >= 2 and array.shape[1] >= 1:
        yield "narrow", lambda a: a[:, :-1]
    if array.ndim >= 1:
        yield "2-D", lambda a: a.reshape(1, *a.shape) if a.ndim == 1 else a.reshape(-1)


def _scalar_edits(tag: str) -> list[tuple[str, Any]]:
    if tag == "int":
        return [("-3", -3), ("1e12", 10**12), ("float", 2.5)]
    if tag == "float":
        return [("-3", -3.0), ("1e300", 1e300), ("nan", float("nan")), ("-inf", float("-inf"))]
    if tag == "str":
        return [("bogus", "bogus")]
    if tag == "bool":
        return [("int", 7)]
    return []


def variants(meta: dict, arrays: dict[str, np.ndarray]) -> Iterator[tuple[str, Edit]]:
    """``(name, edit)`` for every tampering of one model file: each array of the fitted
    state made negative, NaN, inf, huge, one row shorter or narrower or of another rank;
    each scalar of the state and of the parameters set out of range; the format version
    and the class labels forged."""
    state = meta["model"]["state"]
    for path, node in _walk(state):
        if "array" in node and node["array"] in arrays:
            key = node["array"]
            for label, change in _array_edits(arrays[key]):

                def edit(m, a, key=key, change=change):
                    a[key] = np.ascontiguousarray(change(a[key]))

                yield f"state.{_name(path)}:{label}", edit
        elif len(node) == 1 and next(iter(node)) in ("list", "tuple"):
            tag = next(iter(node))
            items = node[tag]
            if not items:
                continue

            def shorter(m, a, path=path, tag=tag):
                _at(m["model"]["state"], path)[tag].pop()

            def longer(m, a, path=path, tag=tag):
                entries = _at(m["model"]["state"], path)[tag]
                entries.append(copy.deepcopy(entries[-1]))

            yield f"state.{_name(path)}:shorter", shorter
            yield f"state.{_name(path)}:longer", longer
        elif len(node) == 1 and next(iter(node)) in ("int", "float", "bool", "str"):
            tag = next(iter(node))
            for label, value in _scalar_edits(tag):

                def edit(m, a, path=path, tag=tag, value=value):
                    _at(m["model"]["state"], path)[tag] = value

                yield f"state.{_name(path)}:{label}", edit
    params = meta["model"]["params"]["dict"]
    for name, node in params.items():
        if not isinstance(node, dict) or len(node) != 1:
            continue
        tag = next(iter(node))
        values = [*_scalar_edits(tag), ("-1", -1), ("nan", float("nan")), ("list", [1, 2])]
        if tag == "none":
            values += [("str", "bogus")]
        for label, value in values:
            new = {"int": value} if isinstance(value, int) and not isinstance(value, bool) else None
            if isinstance(value, float):
                new = {"float": value}
            elif isinstance(value, str):
                new = {"str": value}
            elif isinstance(value, list):
                new = {"list": [{"int": v} for v in value]}
            if new is None:
                continue

            def edit(m, a, name=name, new=new):
                m["model"]["params"]["dict"][name] = new

            yield f"params.{name}:{label}", edit
    for label, version in [("1.0", 1.0), ("2.0", 2.0), ("true", True), ("'2'", "2"), ("3", 3)]:

        def edit(m, a, version=version):
            m["version"] = version

        yield f"version:{label}", edit

    classes_key = state["dict"]["classes_"]["array"]

    def million_classes(m, a):
        a[classes_key] = np.arange(1_000_000)

    yield "classes_:million", million_classes

    def repeated_classes(m, a):
        a[classes_key] = np.zeros_like(a[classes_key])

    yield "classes_:repeated", repeated_classes


def _set_param(name: str, node: dict) -> Edit:
    """An edit setting the top-level object's parameter ``name`` to the tree ``node``."""

    def edit(meta: dict, arrays: dict[str, np.ndarray]) -> None:
        meta["model"]["params"]["dict"][name] = node

    return edit


def _set_inner_param(name: str, node: dict) -> Edit:
    """An edit setting parameter ``name`` of the first object (depth first) having one."""

    def edit(meta: dict, arrays: dict[str, np.ndarray]) -> None:
        for _, found in _walk(meta["model"]):
            params = found.get("params", {}).get("dict", {}) if "estimator" in found else {}
            if name in params:
                params[name] = node
                return
        raise AssertionError(f"no parameter {name}")

    return edit


def _sparse_rows(node: dict) -> Edit:
    """An edit setting the row count of the first sparse matrix in the fitted state."""

    def edit(meta: dict, arrays: dict[str, np.ndarray]) -> None:
        for _, found in _walk(meta["model"]["state"]):
            if "csr" in found:
                found["csr"]["shape"]["list"][0] = node
                return
        raise AssertionError("no sparse matrix")

    return edit


def _first_position(node: dict) -> Edit:
    """An edit setting the first column position of a mixed model's second block."""

    def edit(meta: dict, arrays: dict[str, np.ndarray]) -> None:
        blocks = meta["model"]["state"]["dict"]["_layout"]["tuple"]
        blocks[1]["fields"]["positions"]["tuple"][0] = node

    return edit


#: Hostile files the mutation tests found (``test_a_mutated_model_file_is_refused_or_
#: loads_correctly``), kept as regression fixtures: ``(model label, what, edit)`` of a
#: corpus file (:func:`fitted_models`, :func:`text_models`), each to be refused or to
#: predict cleanly.
REGRESSIONS: list[tuple[str, str, Edit]] = [
    # an Integral to Python: passed the constructor's check, failed at prediction
    ("GaussianNB-default", "batch_size=True", _set_param("batch_size", {"bool": True})),
    # a truthy number as a switch: signs alternated, and the multinomial model then
    # refused the input at prediction instead of the file at loading
    ("Text-hashing", "alternate_sign=-1", _set_inner_param("alternate_sign", {"int": -1})),
    # a number as the preprocessor: the loaded vectorizer called 0(document)
    ("Text-hashing", "preprocessor=0", _set_inner_param("preprocessor", {"int": 0})),
    ("Text-classifier", "analyzer='x'", _set_inner_param("analyzer", {"str": "x"})),
    ("Text-hashing", "stop_words=0", _set_inner_param("stop_words", {"int": 0})),
    ("Text-classifier", "tf='sqrt'", _set_inner_param("tf", {"str": "sqrt"})),
    ("Text-classifier", "header_weight=inf", _set_inner_param("header_weight", {"float": 1e309})),
    # scikit-learn allows either, then calls re.compile(None) on the first document
    (
        "Text-sklearn-pattern",
        "token_pattern=None",
        _set_inner_param("token_pattern", {"none": None}),
    ),
    # True == 1 as a column position: the layout matched, and pandas refused True
    ("NaiveBayes-mixed", "positions[0]=True", _first_position({"bool": True})),
    # a float as a sparse matrix's size: OverflowError from scipy, not the file error
    ("KernelDensityNB-exact", "weights.shape[0]=9.2e18", _sparse_rows({"float": 2.0**63})),
]


def _needs_zip_version(version: int) -> Callable[[bytearray], None]:
    """A byte edit: the first central-directory entry's "version needed to extract"."""

    def edit(raw: bytearray) -> None:
        at = raw.find(b"PK\x01\x02")
        raw[at + 6 : at + 8] = version.to_bytes(2, "little")

    return edit


def _unclosed_npy_header(raw: bytearray) -> None:
    """A byte edit: the first ``.npy`` header's dict left open (``{'descr': ...`` with
    its closing brace blanked)."""
    start = raw.find(b"{'descr'")
    end = raw.find(b"}", start)
    raw[end : end + 1] = b" "


#: Byte-level hostile files the mutation tests found: ``(model label, what, edit of the
#: file's bytes)`` (no checksum can be recomputed for these).
BYTE_REGRESSIONS: list[tuple[str, str, Callable[[bytearray], None]]] = [
    # zipfile raised NotImplementedError("zip file version 10.9"), not the file error
    ("GaussianNB-default", "zip version 10.9", _needs_zip_version(109)),
    # numpy parses the header with tokenize: TokenError ("EOF in multi-line statement")
    ("GaussianNB-default", "unclosed .npy header", _unclosed_npy_header),
]


def _at(tree: Any, path: tuple) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def tampered_files(directory: Path) -> list[str]:
    """Write every tampered variant of every registered estimator's file into
    ``directory`` (and the inputs to predict on, ``inputs.npz``); their names."""
    import nbayes

    names, inputs = [], {}
    for label, model, X in fitted_models():
        clean = directory / f"{label}.clean.npz"
        nbayes.save(model, clean)
        names.append(clean.name)
        inputs[label] = _as_array(X)
        meta, arrays = read_parts(clean)
        for index, (name, edit) in enumerate(variants(meta, arrays)):
            m, a = copy.deepcopy(meta), {k: v.copy() for k, v in arrays.items()}
            edit(m, a)
            target = directory / f"{label}.{index:03d}.npz"
            (directory / f"{label}.{index:03d}.txt").write_text(name)
            write_parts(target, m, a)
            names.append(target.name)
    np.savez(directory / "inputs.npz", **inputs)
    (directory / "columns.json").write_text(json.dumps(_columns()))
    return names


def _columns() -> dict[str, list]:
    X, _ = training_data("table")
    return {"table": list(X.columns)}


def _as_array(X: Any) -> np.ndarray:
    """X for storage in ``inputs.npz`` (a DataFrame as an object array)."""
    if hasattr(X, "to_numpy"):
        return np.asarray(X.to_numpy(), dtype=str)
    return np.asarray(X)


def text_models() -> Iterator[tuple[str, Any, Any]]:
    """``(label, fitted model, documents)``: the text pipelines a model file may hold,
    nbayes' and scikit-learn's vectorizers, one with a token pattern of its own."""
    from sklearn.feature_extraction import text as sk_text
    from sklearn.pipeline import make_pipeline

    import nbayes

    docs = [
        "Subject: cheap pills\n\nbuy cheap pills now",
        "Subject: lunch\n\nsee you at lunch today",
        "Subject: offer\n\ncheap offer, claim your prize now",
        "Subject: meeting\n\nthe report is due at the meeting",
    ] * 3
    y = np.array(["spam", "ham", "spam", "ham"] * 3)
    models = {
        "Text-classifier": nbayes.text.make_text_classifier(),
        "Text-sklearn-pattern": make_pipeline(
            sk_text.CountVectorizer(token_pattern=r"[a-z]+", ngram_range=(1, 2)),
            nbayes.MultinomialNB(),
        ),
        "Text-tfidf": make_pipeline(sk_text.TfidfVectorizer(), nbayes.ComplementNB()),
        "Text-hashing": make_pipeline(
            nbayes.text.HashingVectorizer(n_features=64, alternate_sign=False),
            nbayes.MultinomialNB(),
        ),
    }
    for label, model in models.items():
        yield label, model.fit(docs, y), np.array(docs)


def _as_input(label: str, stored: np.ndarray, columns: dict) -> Any:
    if label.startswith("Text"):
        return [str(doc) for doc in stored]
    if label.startswith("NaiveBayes"):
        import pandas as pd

        frame = pd.DataFrame(stored, columns=columns["table"])
        for name in frame.columns:
            if name != "c":
                frame[name] = frame[name].astype(float)
        return frame
    return stored


def check(path: Path, X: Any) -> str:
    """``"refused: ..."`` (ModelFileError on load, or a NotEstimableError at prediction),
    ``"clean"`` (finite probabilities summing to 1), or ``"FAIL ..."`` naming what went
    wrong.

    A NotEstimableError at prediction is a refusal, not a failure: statistics with no
    estimate (a kernel-density feature constant within what was seen) are a state
    ``partial_fit`` can leave and a saved checkpoint must keep, and prediction then
    names the feature, as it does after training."""
    import nbayes
    from nbayes.errors import DomainError, NotEstimableError

    try:
        model = nbayes.load(path)
    except nbayes.ModelFileError as error:
        return f"refused: {error}"
    except Exception as error:
        return f"FAIL load {type(error).__name__}: {error}"
    try:
        with np.errstate(all="ignore"):
            proba = model.predict_proba(X)
    except NotEstimableError as error:
        return f"refused: {error}"
    except ValueError as error:
        # A pipeline whose steps were set to disagree (a hashing vectorizer's signs
        # alternating before a multinomial model): its model names the bad input.
        if isinstance(error, DomainError) or isinstance(error.__cause__, DomainError):
            return f"refused: {error}"
        return f"FAIL predict {type(error).__name__}: {error}"
    except Exception as error:
        return f"FAIL predict {type(error).__name__}: {error}"
    proba = np.asarray(proba, dtype=np.float64)
    if proba.shape != (len(X), len(model.classes_)):
        return f"FAIL shape {proba.shape}"
    if not np.all(np.isfinite(proba)):
        return "FAIL non-finite probabilities"
    if not (np.all(proba >= 0) and np.allclose(proba.sum(axis=1), 1.0, rtol=1e-9)):
        return "FAIL probabilities do not sum to 1"
    return "clean"


def main(directory: str) -> None:
    folder = Path(directory)
    with np.load(folder / "inputs.npz", allow_pickle=False) as stored:
        inputs = {key: stored[key] for key in stored.files}
    columns = json.loads((folder / "columns.json").read_text())
    for path in sorted(folder.glob("*.npz")):
        if path.name == "inputs.npz":
            continue
        label = path.name.split(".")[0]
        variant = path.with_suffix(".txt")
        name = variant.read_text() if variant.exists() else "clean"
        outcome = check(path, _as_input(label, inputs[label], columns))
        print(json.dumps({"file": path.name, "model": label, "variant": name, "outcome": outcome}))


def serve(directory: str, memory_limit: int) -> None:
    """Check files named on stdin, one ``PATH LABEL`` a line, printing one JSON outcome
    a line (:func:`check` on ``LABEL``'s inputs), in a process whose address space is
    limited to ``memory_limit`` bytes: the worker :class:`Loader` talks to."""
    import resource

    folder = Path(directory)
    with np.load(folder / "inputs.npz", allow_pickle=False) as stored:
        inputs = {key: stored[key] for key in stored.files}
    columns = json.loads((folder / "columns.json").read_text())
    import nbayes  # noqa: F401  (imported before the limit: its own start-up is not tested)

    resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    print("ready", flush=True)
    for line in sys.stdin:
        path, label = line.split()
        outcome = check(Path(path), _as_input(label, inputs[label], columns))
        print(json.dumps({"outcome": outcome}), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(sys.argv[2], int(sys.argv[3]))
    else:
        main(sys.argv[1])


# ---------------------------------------------------------------- a loader under limits
#: A process under an address-space limit runs few threads: each reserves its stack
#: and buffers, which on a machine of many cores would count against the limit.
FEW_THREADS = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "2",
}


class Loader:
    """A worker process (:func:`serve`) that loads model files and predicts with them
    under a memory limit, each file within ``timeout`` seconds: :meth:`check` returns
    the outcome, or ``"FAIL ..."`` when the worker runs out of time or dies (it is then
    started again for the next file)."""

    def __init__(self, directory: Path, memory_limit: int = 1 << 30, timeout: float = 60) -> None:
        self.directory, self.memory_limit, self.timeout = directory, memory_limit, timeout
        self.process = None

    def _start(self) -> None:
        import subprocess

        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(self.directory), str(self.memory_limit)],
            env={**os.environ, **FEW_THREADS},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        if self._line(120) != "ready":
            raise RuntimeError(f"the loader did not start: {self._stop()}")

    def _line(self, timeout: float) -> str | None:
        import select

        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        return self.process.stdout.readline().strip() if ready else None

    def _stop(self) -> str:
        """Stop the worker; the end of what it wrote to stderr."""
        self.process.kill()
        _, err = self.process.communicate()
        self.process = None
        return err[-1500:]

    def check(self, path: Path, label: str) -> str:
        if self.process is None:
            self._start()
        self.process.stdin.write(f"{path} {label}\n")
        self.process.stdin.flush()
        line = self._line(self.timeout)
        if line is None:
            self._stop()
            return f"FAIL: no answer within {self.timeout} s"
        if not line:
            return f"FAIL: the loader died: {self._stop()}"
        return json.loads(line)["outcome"]

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait(timeout=30)
            self.process = None


# ---------------------------------------------------------------- decompression bombs
def write_bomb(source: Path, target: Path, inflated: int = 1 << 31, name: str = "a999") -> None:
    """``source``'s members, stored, plus a deflated member ``name`` holding a ``.npy``
    array of zeros whose header and data come to ``inflated`` bytes (2 GiB by default):
    a file of about ``inflated / 1000`` bytes. The member's header and sizes are
    consistent, so only a bound on the total refuses it; its CRC is valid."""
    import struct
    import zlib

    with np.load(source, allow_pickle=False) as archive:
        members = {f"{key}.npy": _npy_bytes(archive[key]) for key in archive.files}
    header = _npy_header(np.dtype(np.float64), ((inflated - 128) // 8,))
    zeros = inflated - len(header)
    chunk = 1 << 24
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = compressor.compress(header) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    repeats, rest = divmod(zeros, chunk)
    tail = compressor.compress(bytes(rest)) + compressor.flush(zlib.Z_FINISH)
    crc = zlib.crc32(header)
    zero_chunk = bytes(chunk)
    for _ in range(repeats):
        crc = zlib.crc32(zero_chunk, crc)
    crc = zlib.crc32(bytes(rest), crc)

    entries = [(key, data, zlib.crc32(data), len(data), 0) for key, data in members.items()]
    with open(target, "wb") as out:
        central = []
        for key, data, crc_member, size, method in entries:
            central.append((key, out.tell(), crc_member, size, size, method))
            out.write(_local_header(key, crc_member, size, size, method))
            out.write(data)
        compressed = len(first) + repeats * len(block) + len(tail)
        central.append((f"{name}.npy", out.tell(), crc, compressed, inflated, 8))
        out.write(_local_header(f"{name}.npy", crc, compressed, inflated, 8))
        out.write(first)
        for _ in range(repeats):
            out.write(block)
        out.write(tail)
        start = out.tell()
        for key, offset, crc_member, csize, usize, method in central:
            raw = key.encode()
            out.write(
                struct.pack(
                    "<IHHHHHHIIIHHHHHII",
                    0x02014B50,
                    20,
                    20,
                    0,
                    method,
                    0,
                    0x21,
                    crc_member,
                    csize,
                    usize,
                    len(raw),
                    0,
                    0,
                    0,
                    0,
                    0,
                    offset,
                )
                + raw
            )
        end = out.tell()
        out.write(
            struct.pack(
                "<IHHHHIIH", 0x06054B50, 0, 0, len(central), len(central), end - start, start, 0
            )
        )


def write_prefixed(source: Path, target: Path, prefix_bytes: int) -> None:
    """``source`` behind a hole of ``prefix_bytes`` (a sparse file where the file system
    has them): zip readers skip a prefix (self-extracting archives), so the file's
    apparent size grows while the bytes its members occupy do not."""
    data = source.read_bytes()
    with open(target, "wb") as out:
        out.truncate(prefix_bytes)
        out.seek(prefix_bytes)
        out.write(data)


def _local_header(name: str, crc: int, csize: int, usize: int, method: int) -> bytes:
    import struct

    raw = name.encode()
    return (
        struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, csize, usize, len(raw), 0
        )
        + raw
    )


def _npy_header(dtype: np.dtype, shape: tuple) -> bytes:
    import io as _io

    buffer = _io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer,
        {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape},
    )
    return buffer.getvalue()


def _npy_bytes(array: np.ndarray) -> bytes:
    import io as _io

    buffer = _io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()
