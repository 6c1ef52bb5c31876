"""Safe model files: JSON metadata plus numeric arrays in one ``.npz``, never a pickle.

Layout of a file (a zip archive written by :func:`numpy.savez`, read back with
``allow_pickle=False``):

- ``__nbayes__``: the metadata, UTF-8 JSON as a ``uint8`` array::

      {"format": "nbayes-model", "version": 2, "nbayes_version": "...",
       "model": {"estimator": "GaussianNB",  # a name from the allow-list
                 "params": <tree>,            # get_params(deep=False)
                 "state": <tree>},            # the fitted state: classes_, ...,
                                              # "statistics"
       "metadata": {...},                     # the caller's JSON (e.g. the CLI's encoding)
       "sha256": "..."}                       # of everything else, arrays included

- ``a0``, ``a1``, ...: the numeric and unicode arrays the trees refer to.

A *tree* is JSON whose nodes are one-key objects: ``{"none": null}``, ``{"bool": b}``,
``{"int": i}``, ``{"float": f}``, ``{"str": s}``, ``{"dtype": "float32"}``,
``{"array": "a3"}`` (``{"array": "a3", "object": true}`` for an object array of strings,
stored as unicode), ``{"list": [...]}``, ``{"tuple": [...]}``, ``{"dict": {...}}`` and
``{"dataclass": "CountStats", "fields": {...}}`` and ``{"estimator": ..., "params":
..., "state": ...}`` (an estimator inside the parameters of another), whose names must
be in the allow-lists of :mod:`nbayes.core.registry`. So the statistics (frozen
dataclasses of arrays and floats) are stored field by field, ``partial_fit`` resumes
after a load and loaded models merge; parameters are re-estimated from them,
deterministically, so predictions are bitwise equal. A loaded model's statistics are
checked by its event model (shapes against ``classes_`` and the features, finite and
non-negative counts) before it is returned.

The SHA-256 guards against corruption and casual edits, not against an attacker, who
can recompute it; safety from strangers' files comes from never unpickling and from
building only allow-listed classes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from nbayes._npz import ArchiveError, read_npz
from nbayes.core.registry import DATACLASSES, ESTIMATORS, resolve
from nbayes.errors import ModelFileError, StatisticsError

__all__ = ["ModelFile", "ModelFileError", "load", "load_file", "save"]

FORMAT = "nbayes-model"
VERSION = 2
_META_KEY = "__nbayes__"


@dataclass
class ModelFile:
    """A loaded model file: the model and the caller's metadata stored with it."""

    model: Any
    metadata: dict[str, Any] = field(default_factory=dict)


def _estimator_name(model: Any) -> str:
    """The allow-listed name of ``model``'s class; TypeError if it has none."""
    name = type(model).__name__
    if resolve(ESTIMATORS, name) is not type(model):
        raise TypeError(f"{name} is not an nbayes estimator that can be saved.")
    return name


# ---------------------------------------------------------------- encoding
class _Encoder:
    """Turns Python values into JSON trees, collecting their arrays."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def __call__(self, value: Any) -> dict[str, Any]:
        if value is None:
            return {"none": None}
        if isinstance(value, bool | np.bool_):
            return {"bool": bool(value)}
        if isinstance(value, int | np.integer):
            return {"int": int(value)}
        if isinstance(value, float | np.floating):
            return {"float": float(value)}
        if isinstance(value, str):
            return {"str": value}
        if isinstance(value, np.dtype):
            return {"dtype": value.str}
        if isinstance(value, np.ndarray):
            return self._array(value)
        if sp.issparse(value):
            csr = sp.csr_matrix(value)
            return {
                "csr": {
                    "data": self._array(csr.data),
                    "indices": self._array(csr.indices),
                    "indptr": self._array(csr.indptr),
                    "shape": self(list(csr.shape)),
                }
            }
        if isinstance(value, list | tuple):
            tag = "tuple" if isinstance(value, tuple) else "list"
            return {tag: [self(item) for item in value]}
        if isinstance(value, dict) and all(isinstance(key, str) for key in value):
            return {"dict": {key: self(item) for key, item in value.items()}}
        if dataclasses.is_dataclass(value) and resolve(DATACLASSES, type(value).__name__) is type(
            value
        ):
            return {
                "dataclass": type(value).__name__,
                "fields": {f.name: self(getattr(value, f.name)) for f in dataclasses.fields(value)},
            }
        if resolve(ESTIMATORS, type(value).__name__) is type(value):
            return self.estimator(value)
        raise TypeError(f"Cannot store a value of type {type(value).__name__} in a model file.")

    def estimator(self, model: Any) -> dict[str, Any]:
        """An allow-listed estimator: its parameters and, if fitted, its fitted state."""
        node: dict[str, Any] = {
            "estimator": _estimator_name(model),
            "params": self(model.get_params(deep=False)),
        }
        if _is_fitted(model):
            node["state"] = self(model._fitted_state())
        return node

    def _array(self, array: np.ndarray) -> dict[str, Any]:
        key = f"a{len(self.arrays)}"
        node: dict[str, Any] = {"array": key}
        if array.dtype == object:
            if not all(isinstance(item, str) for item in array.ravel()):
                raise TypeError(
                    "Only object arrays of strings can be stored in a model file "
                    "(class labels and feature names must be numbers or strings)."
                )
            array = array.astype(str) if array.size else np.zeros(array.shape, "<U1")
            node["object"] = True
        self.arrays[key] = np.ascontiguousarray(array)
        return node


class _Decoder:
    """Builds Python values back from JSON trees, only from allow-listed types."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.arrays = arrays

    def __call__(self, node: Any) -> Any:
        if not isinstance(node, dict) or len(node) not in (1, 2, 3):
            raise ModelFileError(f"Malformed model file: unexpected metadata entry {node!r:.80}.")
        tag = next(iter(node))
        value = node[tag]
        if tag == "none":
            return None
        if tag in ("bool", "int", "float", "str"):
            return self._scalar(tag, value)
        if tag == "dtype":
            try:
                dtype = np.dtype(self._scalar("str", value))
            except TypeError:
                dtype = None
            if dtype is None or dtype.kind not in "biuf":
                raise ModelFileError(f"Malformed model file: {value!r:.40} is not a numeric dtype.")
            return dtype
        if tag == "array":
            return self._array(value, node.get("object", False))
        if tag in ("list", "tuple") and isinstance(value, list):
            items = [self(item) for item in value]
            return items if tag == "list" else tuple(items)
        if tag == "dict" and isinstance(value, dict):
            return {key: self(item) for key, item in value.items()}
        if tag == "dataclass":
            return self._dataclass(value, node.get("fields"))
        if tag == "estimator":
            return self.estimator(node)
        if (
            tag == "csr"
            and isinstance(value, dict)
            and sorted(value) == ["data", "indices", "indptr", "shape"]
        ):
            parts = {key: self(item) for key, item in value.items()}
            try:
                matrix = sp.csr_matrix(
                    (parts["data"], parts["indices"], parts["indptr"]), shape=tuple(parts["shape"])
                )
                matrix.check_format(full_check=True)
            except (TypeError, ValueError) as exc:
                raise ModelFileError(f"Malformed model file: bad sparse matrix ({exc}).") from None
            return matrix
        raise ModelFileError(f"Malformed model file: unknown metadata entry {tag!r}.")

    @staticmethod
    def _scalar(tag: str, value: Any) -> Any:
        kinds = {"bool": (bool,), "int": (int,), "float": (float, int), "str": (str,)}
        if not isinstance(value, kinds[tag]) or (tag != "bool" and isinstance(value, bool)):
            raise ModelFileError(f"Malformed model file: {value!r:.40} is not a {tag}.")
        return float(value) if tag == "float" else value

    def _array(self, key: Any, as_object: Any) -> np.ndarray:
        if not isinstance(key, str) or key not in self.arrays:
            raise ModelFileError(f"Malformed model file: array {key!r:.40} is missing.")
        array = self.arrays[key]
        return array.astype(object) if as_object is True else array

    def estimator(self, node: dict[str, Any]) -> Any:
        """An estimator from ``{"estimator": name, "params": ..., "state": ...}``: built
        from its parameters, then its fitted state restored and checked."""
        name = node.get("estimator")
        cls = resolve(ESTIMATORS, name)
        if cls is None or set(node) - {"estimator", "params", "state"}:
            raise ModelFileError(f"Model file names an unknown estimator {name!r:.40}.")
        params = self(node.get("params"))
        if not isinstance(params, dict):
            raise ModelFileError(f"Malformed model file: the {name} parameters are missing.")
        try:
            model = cls(**params)
        except TypeError as exc:
            raise ModelFileError(f"Model file's parameters do not fit {name}: {exc}") from None
        if "state" not in node:
            return model
        state = self(node["state"])
        if not isinstance(state, dict) or "statistics" not in state:
            raise ModelFileError(f"Malformed model file: the {name} fitted state is missing.")
        unexpected = sorted(set(state) - set(cls._state_attributes) - {"statistics"})
        if unexpected:
            raise ModelFileError(
                f"Model file has an unexpected fitted attribute {unexpected[0]!r:.40}."
            )
        try:
            model._restore(state)
            model._check_restored()
        except (
            StatisticsError,
            ValueError,
            TypeError,
            AttributeError,
            LookupError,
            ArithmeticError,
        ) as exc:
            raise ModelFileError(f"Model file's {name} is not valid: {exc}") from None
        return model

    def _dataclass(self, name: Any, fields: Any) -> Any:
        cls = resolve(DATACLASSES, name)
        if cls is None:
            raise ModelFileError(f"Model file names statistics of unknown type {name!r:.40}.")
        expected = [f.name for f in dataclasses.fields(cls)]
        if not isinstance(fields, dict) or sorted(fields) != sorted(expected):
            raise ModelFileError(
                f"Model file's {name} statistics have fields {sorted(fields or [])}, "
                f"expected {sorted(expected)}."
            )
        return cls(**{key: self(fields[key]) for key in expected})


def _digest(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of the metadata (sorted JSON, without the digest) and every array."""
    digest = hashlib.sha256(json.dumps(meta, sort_keys=True).encode())
    for key in sorted(arrays):
        array = arrays[key]
        digest.update(f"{key}:{array.dtype.str}:{array.shape}".encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


# ---------------------------------------------------------------- saving
def save(model: Any, path: str | os.PathLike, *, metadata: dict | None = None) -> None:
    """Write a fitted nbayes ``model`` to ``path``, atomically.

    The file is written to a temporary file in the same directory, flushed to disk
    and renamed over ``path``, so a crash never leaves a broken file under that name.
    ``metadata`` is any JSON-serialisable dict stored alongside (see :func:`load_file`).
    """
    name = _estimator_name(model)
    if not _is_fitted(model):
        raise ValueError(f"This {name} is not fitted yet; fit it before saving.")
    encode = _Encoder()
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "nbayes_version": _nbayes_version(),
        "model": encode.estimator(model),
        "metadata": json.loads(json.dumps(metadata or {})),
    }
    meta["sha256"] = _digest(meta, encode.arrays)
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    _atomic_write(Path(path), {_META_KEY: blob, **encode.arrays})


def _atomic_write(path: Path, arrays: dict[str, np.ndarray]) -> None:
    directory = path.parent if str(path.parent) else Path(".")
    handle = tempfile.NamedTemporaryFile(
        dir=directory, prefix=f".{path.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            np.savez(handle, **arrays)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable (POSIX)
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _is_fitted(model: Any) -> bool:
    """Whether ``model`` holds a fitted state (its statistics)."""
    try:
        model._fitted_state()
    except AttributeError:
        return False
    return True


def _nbayes_version() -> str:
    from nbayes import __version__

    return __version__


# ---------------------------------------------------------------- loading
def load(path: str | os.PathLike, *, expected: type | None = None) -> Any:
    """Read a model written by :func:`save`; never executes code from the file.

    Raises :class:`ModelFileError` for a file that is missing, truncated, corrupted,
    tampered with, of another version, not an nbayes model file, holding statistics that
    cannot be right, or (with ``expected``) a model of another class.
    """
    model = load_file(path).model
    if expected is not None and not isinstance(model, expected):
        raise ModelFileError(f"{path} holds a {type(model).__name__}, not a {expected.__name__}.")
    return model


def load_file(path: str | os.PathLike) -> ModelFile:
    """Read a model file: the model and the metadata stored with it."""
    meta, arrays = _read(Path(path))
    node = meta.get("model")
    if not isinstance(node, dict) or "estimator" not in node or "state" not in node:
        raise ModelFileError(f"{path}: malformed model file (no fitted model in it).")
    try:
        model = _Decoder(arrays).estimator(node)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    except RecursionError:
        raise ModelFileError(f"{path}: malformed model file (nested too deeply).") from None
    metadata = meta.get("metadata", {})
    return ModelFile(model, metadata if isinstance(metadata, dict) else {})


def _read(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The checked metadata and the arrays of the file at ``path``, read within bounds
    set by the file's size (:mod:`nbayes._npz`: nothing is inflated before every
    member's declared size and shape agree)."""
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file.")
    if not zipfile.is_zipfile(path):
        raise ModelFileError(f"{path} is not an nbayes model file (not an npz archive).")
    try:
        arrays = read_npz(path)
    except ArchiveError as exc:
        if "pickle" in str(exc):
            raise ModelFileError(
                f"{path} holds pickled objects, which nbayes never loads (it is not an "
                "nbayes model file, or it was tampered with)."
            ) from None
        raise ModelFileError(f"{path} is not a valid nbayes model file: {exc}") from None
    blob = arrays.pop(_META_KEY, None)
    if blob is None:
        raise ModelFileError(f"{path} is not an nbayes model file (no nbayes metadata).")
    if blob.dtype != np.uint8 or blob.ndim != 1:
        raise ModelFileError(f"{path}: the nbayes metadata is malformed.")
    try:
        meta = json.loads(blob.tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ModelFileError(f"{path}: the nbayes metadata is not valid JSON.") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not an nbayes model file (format is not {FORMAT!r}).")
    version = meta.get("version")
    if type(version) is not int or version != VERSION:  # not 2.0, true or "2"
        raise ModelFileError(
            f"{path} is a version {version!r:.20} nbayes model file; this nbayes "
            f"({_nbayes_version()}) reads version {VERSION} only."
        )
    stored = meta.pop("sha256", None)
    if stored != _digest(meta, arrays):
        raise ModelFileError(
            f"{path} failed its SHA-256 check: the file was altered or damaged after saving."
        )
    return meta, arrays
