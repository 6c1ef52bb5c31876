"""Safe model files: JSON metadata plus numeric arrays in one ``.npz``, never a pickle.

Layout of a file (a zip archive written by :func:`numpy.savez`, read back with
``allow_pickle=False``):

- ``__nbayes__``: the metadata, UTF-8 JSON as a ``uint8`` array::

      {"format": "nbayes-model", "version": 2, "nbayes_version": "...",
       "model": {"estimator": "GaussianNB",  # a name from the allow-lists
                 "params": <tree>,            # get_params(deep=False)
                 "state": <tree>},            # the fitted state: classes_, ...,
                                              # "statistics"
       "metadata": {...},                     # the caller's JSON (e.g. the CLI's encoding)
       "sha256": "..."}                       # of everything else, arrays included

- ``a0``, ``a1``, ...: the numeric and unicode arrays the trees refer to.

A *tree* is JSON whose nodes are one-key objects: ``{"none": null}``, ``{"bool": b}``,
``{"int": i}``, ``{"float": f}``, ``{"str": s}``, ``{"dtype": "<f8"}``,
``{"scalar_type": "<i8"}`` (a numpy type such as ``np.int64`` given as a parameter),
``{"builtin_type": "float"}``, ``{"array": "a3"}`` (``{"array": "a3", "object": true}``
for an object array of strings, stored as unicode), ``{"strings": {"utf8": ...,
"offsets": ...}}`` (a 1-D object array of strings, e.g. class labels or a vocabulary's
terms: their UTF-8 text and code-point offsets, compact and exact), ``{"csr": ...}``,
``{"slice": [start, stop, step]}``, ``{"list": [...]}``, ``{"tuple": [...]}``,
``{"set": [...]}`` and ``{"frozenset": [...]}`` (of strings), ``{"dict": {...}}``,
``{"dataclass": "CountStats", "fields": {...}}``, ``{"event_model": "gaussian",
"settings": {...}}`` (a column kind given as an instance; names from
:data:`nbayes.events.EVENT_MODELS`) and ``{"estimator": name, "params": ..., "state":
...}``. The names must be in the allow-lists of
:mod:`nbayes.core.registry`: the estimators, the other nbayes objects (SemiSupervisedNB,
CalibratedNB, the text vectorizers and transformers), a few scikit-learn classes
(Pipeline, ColumnTransformer, scalers, imputers, encoders, TF-IDF, vectorizers; see
``registry.SKLEARN``) and the dataclasses (statistics, column layouts, ``Tokenizer``).

Every object is stored the same way, through one interface: its parameters, then its
fitted state as ``fitted_state()`` gives it (nbayes classes), or as its codec in
:mod:`nbayes.files.sklearn_codecs` lists it (scikit-learn classes); objects inside the
parameters or the state (a Pipeline's steps, a wrapped model) are nodes of their own.
Loading builds each object from its parameters (checked: scikit-learn's parameter
constraints, and no Pipeline ``memory``), then restores its fitted state and checks it:
the type, shape and range of every attribute, and that they agree with each other and
with the parameters (e.g. a vocabulary's terms distinct strings, a scaler's arrays one
entry per feature, a wrapped model of the class the parameters name). What scikit-learn
or nbayes derives from the stored state (a vectorizer's compiled tables, an encoder's
output widths, an isotonic interpolator) is rebuilt by their own code, never read.

So an estimator's statistics (frozen dataclasses of arrays and floats) are stored field
by field, ``partial_fit`` resumes after a load and loaded models merge; parameters are
re-estimated from them, deterministically, so predictions are bitwise equal. A loaded
model's statistics are checked by its event model (shapes against ``classes_`` and the
features, finite and non-negative counts) before it is returned.

What cannot be stored is refused when saving, with a TypeError naming where it sits
(``Pipeline.steps['clf']``): any class not allow-listed, and any callable (a
``tokenizer=`` function, ``FunctionTransformer(func=...)``): code is never stored.

The SHA-256 guards against corruption and casual edits, not against an attacker, who
can recompute it; safety from strangers' files comes from never unpickling and from
building only allow-listed classes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from nbayes._version import __version__
from nbayes.core.atomic import atomic_file
from nbayes.core.fitted_attributes import OwnState
from nbayes.core.registry import DATACLASSES, SKLEARN, resolve, savable, savable_name
from nbayes.errors import ModelFileError, StatisticsError
from nbayes.events import EVENT_MODELS, event_model
from nbayes.events._contract import EventModel
from nbayes.files.npz import ArchiveError, read_npz
from nbayes.files.settings import check_file_settings, use_linear_time_patterns
from nbayes.files.sklearn_codecs import CODECS

__all__ = ["ModelFile", "ModelFileError", "load", "load_file", "save"]

FORMAT = "nbayes-model"
VERSION = 2
_META_KEY = "__nbayes__"

#: The dtypes a parameter read from a file may name (``CountVectorizer(dtype=...)``), in
#: native byte order: those scipy.sparse holds and a count cannot wrap in.
PARAMETER_DTYPES = tuple(
    np.dtype(name) for name in ("bool", "int32", "int64", "uint32", "uint64", "float32", "float64")
)


@dataclass
class ModelFile:
    """A loaded model file: the model and the caller's metadata stored with it."""

    model: Any
    metadata: dict[str, Any] = field(default_factory=dict)


def _codec(name: str) -> Any:
    """How a model file stores the object called ``name``: the scikit-learn codec of
    that name (:data:`nbayes.files.sklearn_codecs.CODECS`), else the object's own
    methods (:class:`nbayes.core.fitted_attributes.OwnState`)."""
    return CODECS[name] if name in SKLEARN else OwnState()


def _estimator_name(model: Any) -> str:
    """The allow-listed name of ``model``'s class; TypeError if it has none."""
    name = savable_name(type(model))
    if name is None:
        raise TypeError(f"{type(model).__name__} is not an nbayes estimator that can be saved.")
    return name


#: What restoring a fitted state raises for a state no fit could have made.
_INVALID = (StatisticsError, ValueError, TypeError, AttributeError, LookupError, ArithmeticError)

#: Python types a parameter may name (``dtype=float``), by name.
_BUILTIN_TYPES: dict[str, type] = {t.__name__: t for t in (bool, int, float, complex, str)}


# ---------------------------------------------------------------- encoding
class _Encoder:
    """Turns Python values into JSON trees, collecting their arrays.

    ``path`` is where the value being encoded sits (``Pipeline.steps['nb'].alpha``), so
    a value that cannot be stored is named in the TypeError.
    """

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.path: list[str] = []

    def at(self, label: str, value: Any) -> dict[str, Any]:
        """``value`` encoded, with ``label`` added to the path while it is."""
        self.path.append(label)
        try:
            return self(value)
        finally:
            self.path.pop()

    def refuse(self, problem: str) -> TypeError:
        where = "".join(self.path) or "the model"
        return TypeError(f"Cannot save {where}: {problem}")

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
        if isinstance(value, type) and issubclass(value, np.generic):
            return {"scalar_type": np.dtype(value).str}
        if isinstance(value, type) and _BUILTIN_TYPES.get(value.__name__) is value:
            return {"builtin_type": value.__name__}
        if isinstance(value, np.ndarray):
            if value.dtype == object and value.ndim == 1:
                return self._strings(value)
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
        if isinstance(value, slice):
            return {"slice": [self(value.start), self(value.stop), self(value.step)]}
        if isinstance(value, list | tuple):
            tag = "tuple" if isinstance(value, tuple) else "list"
            labels = _item_labels(value)
            return {tag: [self.at(label, item) for label, item in zip(labels, value, strict=True)]}
        if isinstance(value, set | frozenset):
            tag = "frozenset" if isinstance(value, frozenset) else "set"
            if not all(isinstance(item, str) for item in value):
                raise self.refuse("only sets of strings can be stored in a model file.")
            return {tag: [self(item) for item in sorted(value)]}
        if isinstance(value, dict) and all(isinstance(key, str) for key in value):
            return {"dict": {key: self.at(f"[{key!r}]", item) for key, item in value.items()}}
        if isinstance(value, EventModel) and event_model(value.name) is type(value):
            settings = {name: getattr(value, name) for name in type(value).settings()}
            return {
                "event_model": value.name,
                "settings": {name: self.at(f".{name}", v) for name, v in settings.items()},
            }
        if dataclasses.is_dataclass(value) and resolve(DATACLASSES, type(value).__name__) is type(
            value
        ):
            return {
                "dataclass": type(value).__name__,
                "fields": {
                    f.name: self.at(f".{f.name}", getattr(value, f.name))
                    for f in dataclasses.fields(value)
                },
            }
        if savable_name(type(value)) is not None:
            return self.estimator(value)
        if hasattr(value, "get_params"):
            raise self.refuse(
                f"{type(value).__name__} ({type(value).__module__}) is not a class nbayes "
                "model files can hold: they hold nbayes estimators and transformers and "
                "these scikit-learn classes: "
                + ", ".join(name.removeprefix("sklearn.") for name in SKLEARN)
                + "."
            )
        if callable(value):
            raise self.refuse(
                f"it is a callable ({getattr(value, '__qualname__', type(value).__name__)}); "
                "model files never store code, so a function cannot be saved safely."
            )
        raise self.refuse(f"a {type(value).__name__} cannot be stored in a model file.")

    def estimator(self, model: Any) -> dict[str, Any]:
        """An allow-listed object: its parameters and, if fitted, its fitted state."""
        name = _estimator_name(model)
        if not self.path:
            self.path.append(type(model).__name__)
        params = {
            key: self.at(f".{key}", value) for key, value in model.get_params(deep=False).items()
        }
        codec = _codec(name)
        try:
            codec.check_params(model)
        except ValueError as exc:
            raise self.refuse(str(exc)) from None
        node: dict[str, Any] = {"estimator": name, "params": {"dict": params}}
        state = codec.fitted_state(model)
        if state is not None:
            node["state"] = {
                "dict": {key: self.at(f".{key}", value) for key, value in state.items()}
            }
        return node

    def _array(self, array: np.ndarray) -> dict[str, Any]:
        key = f"a{len(self.arrays)}"
        node: dict[str, Any] = {"array": key}
        if array.dtype == object:
            if not all(isinstance(item, str) for item in array.ravel()):
                raise self.refuse(
                    "only object arrays of strings can be stored in a model file "
                    "(class labels and feature names must be numbers or strings)."
                )
            array = array.astype(str) if array.size else np.zeros(array.shape, "<U1")
            node["object"] = True
        self.arrays[key] = np.ascontiguousarray(array)
        return node

    def _strings(self, array: np.ndarray) -> dict[str, Any]:
        """A 1-D object array of strings as their UTF-8 text and code-point offsets,
        shape (n + 1,): compact for large vocabularies, and exact (a numpy unicode
        array would drop trailing NUL characters)."""
        items = list(array)
        if not all(isinstance(item, str) for item in items):
            return self._array(array)  # refused there, with the message for arrays
        offsets = np.zeros(len(items) + 1, dtype=np.int64)
        np.cumsum([len(item) for item in items], out=offsets[1:])
        text = "".join(items).encode("utf-8", "surrogatepass")
        return {
            "strings": {
                "utf8": self._array(np.frombuffer(text, dtype=np.uint8)),
                "offsets": self._array(offsets),
            }
        }


def _item_labels(items: list | tuple) -> list[str]:
    """The path labels of a list's or tuple's items: ``['name']`` for a named step or
    transformer (a tuple starting with its name) in a list, whose object is then
    labelled by that name alone; ``[index]`` for the rest."""
    if _is_named(items):  # ("name", object[, columns]) itself: the name says it all
        return [f"[{i}]" if i != 1 else "" for i in range(len(items))]
    return [f"[{item[0]!r}]" if _is_named(item) else f"[{i}]" for i, item in enumerate(items)]


def _is_named(item: Any) -> bool:
    return isinstance(item, tuple) and len(item) in (2, 3) and isinstance(item[0], str)


class _Decoder:
    """Builds Python values back from JSON trees, only from allow-listed types."""

    def __init__(self, arrays: dict[str, np.ndarray], *, trust_patterns: bool = False) -> None:
        self.arrays = arrays
        self.trust_patterns = trust_patterns

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
            return self._dtype(value)
        if tag == "scalar_type":
            return self._dtype(value).type
        if tag == "builtin_type" and value in _BUILTIN_TYPES:
            return _BUILTIN_TYPES[value]
        if tag == "array":
            return self._array(value, node.get("object", False))
        if tag == "strings":
            return self._strings(value)
        if tag in ("list", "tuple") and isinstance(value, list):
            items = [self(item) for item in value]
            return items if tag == "list" else tuple(items)
        if tag in ("set", "frozenset") and isinstance(value, list):
            items = [self(item) for item in value]
            if not all(isinstance(item, str) for item in items):
                raise ModelFileError("Malformed model file: a set holds other than strings.")
            return set(items) if tag == "set" else frozenset(items)
        if tag == "slice" and isinstance(value, list) and len(value) == 3:
            parts = [self(item) for item in value]
            if not all(part is None or type(part) is int for part in parts):
                raise ModelFileError("Malformed model file: a slice of other than integers.")
            return slice(*parts)
        if tag == "dict" and isinstance(value, dict):
            return {key: self(item) for key, item in value.items()}
        if tag == "dataclass":
            return self._dataclass(value, node.get("fields"))
        if tag == "event_model":
            return self._event_model(value, node.get("settings"))
        if tag == "estimator":
            return self.estimator(node)
        if (
            tag == "csr"
            and isinstance(value, dict)
            and sorted(value) == ["data", "indices", "indptr", "shape"]
        ):
            parts = {key: self(item) for key, item in value.items()}
            shape = parts["shape"]
            if not (
                isinstance(shape, list)
                and len(shape) == 2
                and all(type(n) is int and 0 <= n < 2**63 for n in shape)
            ):
                raise ModelFileError(
                    f"Malformed model file: a sparse matrix's shape {shape!r:.60} is not "
                    "two counts."
                )
            try:
                matrix = sp.csr_matrix(
                    (parts["data"], parts["indices"], parts["indptr"]), shape=tuple(shape)
                )
                matrix.check_format(full_check=True)
            except (TypeError, ValueError, OverflowError) as exc:
                raise ModelFileError(f"Malformed model file: bad sparse matrix ({exc}).") from None
            return matrix
        raise ModelFileError(f"Malformed model file: unknown metadata entry {tag!r:.40}.")

    @staticmethod
    def _scalar(tag: str, value: Any) -> Any:
        kinds = {"bool": (bool,), "int": (int,), "float": (float, int), "str": (str,)}
        if not isinstance(value, kinds[tag]) or (tag != "bool" and isinstance(value, bool)):
            raise ModelFileError(f"Malformed model file: {value!r:.40} is not a {tag}.")
        return float(value) if tag == "float" else value

    def _dtype(self, value: Any) -> np.dtype:
        """A numeric dtype (a parameter such as ``dtype=np.float32``) among
        :data:`PARAMETER_DTYPES`: a float16 is one scipy.sparse cannot hold, and an int8
        or int16 count wraps to a negative number past 127 or 32,767 tokens."""
        try:
            dtype = np.dtype(self._scalar("str", value))
        except TypeError:
            dtype = None
        if dtype is None or dtype.kind not in "biuf":
            raise ModelFileError(f"Malformed model file: {value!r:.40} is not a numeric dtype.")
        if dtype not in PARAMETER_DTYPES:
            raise ModelFileError(
                f"Malformed model file: dtype {value!r:.40} is not one a parameter may name "
                f"({', '.join(sorted(np.dtype(d).name for d in PARAMETER_DTYPES))})."
            )
        return dtype

    def _array(self, key: Any, as_object: Any) -> np.ndarray:
        if not isinstance(key, str) or key not in self.arrays:
            raise ModelFileError(f"Malformed model file: array {key!r:.40} is missing.")
        array = self.arrays[key]
        return array.astype(object) if as_object is True else array

    def _strings(self, value: Any) -> np.ndarray:
        """A 1-D object array of strings from ``{"utf8": ..., "offsets": ...}``."""
        if not isinstance(value, dict) or sorted(value) != ["offsets", "utf8"]:
            raise ModelFileError("Malformed model file: bad list of strings.")
        data, offsets = self(value["utf8"]), self(value["offsets"])
        try:
            if data.dtype != np.uint8 or data.ndim != 1:
                raise ValueError("text is not UTF-8 bytes")
            text = data.tobytes().decode("utf-8", "surrogatepass")
            if (
                offsets.dtype.kind != "i"
                or offsets.ndim != 1
                or offsets.size == 0
                or offsets[0] != 0
                or offsets[-1] != len(text)
                or np.any(np.diff(offsets) < 0)
            ):
                raise ValueError("offsets do not cut the text")
        except (ValueError, AttributeError) as exc:
            raise ModelFileError(f"Malformed model file: bad list of strings ({exc}).") from None
        out = np.empty(offsets.size - 1, dtype=object)
        bounds = offsets.tolist()
        out[:] = [text[a:b] for a, b in itertools.pairwise(bounds)]
        return out

    def estimator(self, node: dict[str, Any]) -> Any:
        """An object from ``{"estimator": name, "params": ..., "state": ...}``: built
        from its parameters (checked), then its fitted state restored and checked."""
        name = node.get("estimator")
        cls = savable(name)
        if cls is None or set(node) - {"estimator", "params", "state"}:
            raise ModelFileError(f"Model file names an unknown estimator {name!r:.40}.")
        params = self(node.get("params"))
        if not isinstance(params, dict):
            raise ModelFileError(f"Malformed model file: the {name} parameters are missing.")
        codec = _codec(name)
        try:
            check_file_settings(params)
            model = cls(**params)
            codec.check_params(model)
            use_linear_time_patterns(model, trust_patterns=self.trust_patterns)
        except (TypeError, ValueError) as exc:
            raise ModelFileError(f"Model file's parameters do not fit {name}: {exc}") from None
        if "state" not in node:
            return model
        state = self(node["state"])
        try:
            codec.restore(model, state)
        except _INVALID as exc:
            raise ModelFileError(f"Model file's {name} is not valid: {exc}") from None
        return model

    def _event_model(self, name: Any, settings: Any) -> Any:
        """An event model named in :data:`nbayes.events.EVENT_MODELS`, with exactly its
        settings (their values are checked where it is used, as a column's kind)."""
        if not isinstance(name, str) or name not in EVENT_MODELS:
            raise ModelFileError(f"Model file names an unknown event model {name!r:.40}.")
        cls = event_model(name)
        if not isinstance(settings, dict) or sorted(settings) != sorted(cls.settings()):
            raise ModelFileError(
                f"Model file's {name} event model has settings {sorted(settings or [])}, "
                f"expected {sorted(cls.settings())}."
            )
        try:
            return cls(**{key: self(item) for key, item in settings.items()})
        except (TypeError, ValueError) as exc:
            raise ModelFileError(f"Model file's {name} event model is not valid: {exc}") from None

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
        values = {key: self(fields[key]) for key in expected}
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise ModelFileError(f"Model file's {name} is not valid: {exc}") from None


def _digest(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of the metadata (sorted JSON, without the digest) and every array."""
    digest = hashlib.sha256(json.dumps(meta, sort_keys=True).encode())
    for key in sorted(arrays):
        array = arrays[key]
        digest.update(f"{key}:{array.dtype.str}:{array.shape}".encode())
        _hash_bytes(digest, array)
    return digest.hexdigest()


#: Most bytes copied at a time to hash an array that is not C-contiguous.
_HASH_BLOCK_BYTES = 1 << 24


def _hash_bytes(digest: Any, array: np.ndarray) -> None:
    """Feed ``array``'s bytes in C order to ``digest``: read in place when the array is
    C-contiguous (every array nbayes writes), else copied a block of rows at a time, so
    the check never holds a second copy of a large array."""
    if array.flags.c_contiguous:
        digest.update(array.reshape(-1).view(np.uint8))
        return
    rows = max(1, _HASH_BLOCK_BYTES // max(1, array[:1].nbytes))
    for start in range(0, array.shape[0], rows):
        digest.update(np.ascontiguousarray(array[start : start + rows]).reshape(-1).view(np.uint8))


# ---------------------------------------------------------------- saving
def save(model: Any, path: str | os.PathLike, *, metadata: dict | None = None) -> None:
    """Write a fitted ``model`` to ``path``, atomically.

    ``model`` is an nbayes estimator, a SemiSupervisedNB or CalibratedNB, an nbayes text
    transformer, or a scikit-learn Pipeline / ColumnTransformer built from these and the
    allow-listed scikit-learn transformers (``nbayes.core.registry.SKLEARN``), such as
    the pipeline :func:`nbayes.text.make_text_classifier` returns. Anything else, and
    any callable among the parameters, raises a TypeError naming where it sits.

    The file is written to a temporary file in the same directory, flushed to disk
    and renamed over ``path``, so a crash never leaves a broken file under that name.
    ``metadata`` is any JSON-serialisable dict stored alongside (see :func:`load_file`).
    """
    name = _estimator_name(model)
    if _codec(name).fitted_state(model) is None:
        raise ValueError(f"This {type(model).__name__} is not fitted yet; fit it before saving.")
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
    with atomic_file(path) as handle:
        np.savez(handle, **{_META_KEY: blob, **encode.arrays})


def _nbayes_version() -> str:
    return __version__


# ---------------------------------------------------------------- loading
def load(
    path: str | os.PathLike, *, expected: type | None = None, trust_patterns: bool = False
) -> Any:
    """Read a model written by :func:`save`; never executes code from the file.

    Raises :class:`ModelFileError` for a file that is missing, truncated, corrupted,
    tampered with, of another version, not an nbayes model file, holding statistics that
    cannot be right, settings that select behaviour rather than data
    (:mod:`nbayes.files.settings`), or (with ``expected``) a model of another class.

    A regular expression in the file (a vectorizer's ``token_pattern`` other than the
    ones nbayes ships) runs on the linear-time engine (RE2, ``pip install
    'nbayes[re2]'``) or is refused; ``trust_patterns=True`` runs it on Python's ``re``
    as it was saved: only for files you trust, since a pattern can take exponential
    time there.
    """
    model = load_file(path, trust_patterns=trust_patterns).model
    if expected is not None and not isinstance(model, expected):
        raise ModelFileError(f"{path} holds a {type(model).__name__}, not a {expected.__name__}.")
    return model


def load_file(path: str | os.PathLike, *, trust_patterns: bool = False) -> ModelFile:
    """Read a model file: the model and the metadata stored with it (``trust_patterns``
    as in :func:`load`)."""
    meta, arrays = _read(Path(path))
    node = meta.get("model")
    if not isinstance(node, dict) or "estimator" not in node or "state" not in node:
        raise ModelFileError(f"{path}: malformed model file (no fitted model in it).")
    try:
        model = _Decoder(arrays, trust_patterns=trust_patterns).estimator(node)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    except RecursionError:
        raise ModelFileError(f"{path}: malformed model file (nested too deeply).") from None
    metadata = meta.get("metadata", {})
    return ModelFile(model, metadata if isinstance(metadata, dict) else {})


def _read(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The checked metadata and the arrays of the file at ``path``, read within bounds
    set by the file's size (:mod:`nbayes.files.npz`: nothing is inflated before every
    member's declared size and shape agree)."""
    if path.is_dir():
        raise ModelFileError(f"{path} is a directory, not a model file.")
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file.")
    try:
        is_zip = zipfile.is_zipfile(path)
    except (OSError, ValueError, NotImplementedError):
        is_zip = False
    if not is_zip:
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
    except (ValueError, RecursionError) as error:  # ValueError: a number of 4,300+ digits
        raise ModelFileError(
            f"{path}: the nbayes metadata is not valid JSON ({str(error)[:120]})."
        ) from None
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
