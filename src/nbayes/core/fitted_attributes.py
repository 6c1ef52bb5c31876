"""Fitted attributes declared once, with their types: what a model file stores of a
fitted object, and what a restored value must be.

A :class:`FittedAttributes` lists an object's fitted attributes, each a :class:`Field`:
a ``check`` that takes the value as the file holds it and returns the value to set
(or raises ``ValueError``/``TypeError`` naming the problem), and a ``store`` that turns
the attribute into what the file holds (default: the value itself). So the types,
shapes and ranges of what a file may restore are written next to the list of what it
stores, for nbayes' composite models and text transformers and for the scikit-learn
classes of :mod:`nbayes.files.sklearn_codecs` alike.

Example
-------
>>> import numpy as np
>>> layout = FittedAttributes({"scale_": Field(array("f", finite=True)), "n_": Field(integer())})
>>> class Thing: ...
>>> thing = Thing()
>>> layout.restore(thing, {"scale_": np.ones(2), "n_": 3})
>>> layout.collect(thing)["n_"]
3
>>> layout.restore(thing, {"scale_": np.array([np.nan]), "n_": 3})
Traceback (most recent call last):
...
ValueError: scale_ must hold finite numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np

#: (value as the file holds it, attribute name) -> the value to set; raises on bad input.
Check = Callable[[Any, str], Any]


def _identity(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Field:
    """One fitted attribute: how a file holds it (``store``) and what it must be
    (``check``, which also turns the stored form back into the attribute)."""

    check: Check
    store: Callable[[Any], Any] = _identity


@dataclass(frozen=True)
class FittedAttributes:
    """The fitted attributes of a class: ``required`` ones (an object lacking any of
    them is not fitted) and ``optional`` ones (stored where present)."""

    required: Mapping[str, Field]
    optional: Mapping[str, Field] = field(default_factory=dict)

    def collect(self, obj: Any) -> dict[str, Any] | None:
        """The attributes as the file holds them; None if ``obj`` is not fitted."""
        if not all(_has(obj, name) for name in self.required):
            return None
        fields = {**self.required, **self.optional}
        return {
            name: spec.store(getattr(obj, name)) for name, spec in fields.items() if _has(obj, name)
        }

    def restore(self, obj: Any, state: Any) -> None:
        """Set the attributes of ``state`` (as :meth:`collect` made it) on ``obj``,
        each checked; ValueError for a missing, unexpected or ill-typed one."""
        if not isinstance(state, dict):
            raise TypeError("the fitted state must be a dict of attributes.")
        fields = {**self.required, **self.optional}
        unexpected = sorted(set(state) - set(fields))
        if unexpected:
            raise ValueError(f"unexpected fitted attribute {unexpected[0]!r:.40}.")
        missing = sorted(set(self.required) - set(state))
        if missing:
            raise ValueError(f"the fitted attribute {missing[0]!r} is missing.")
        for name, value in state.items():
            setattr(obj, name, fields[name].check(value, name))


class OwnState:
    """How a model file stores an nbayes object: through the object's own
    ``fitted_state()`` (raising AttributeError when not fitted), ``restore_state(state)``
    and ``check_restored()`` (raising ValueError or TypeError for a state no fit could
    have made). Its parameters need no check beyond what storing them allows."""

    def check_params(self, obj: Any) -> None:
        return None

    def fitted_state(self, obj: Any) -> dict[str, Any] | None:
        try:
            return obj.fitted_state()
        except AttributeError:
            return None

    def restore(self, obj: Any, state: Any) -> None:
        if not isinstance(state, dict):
            raise TypeError("the fitted state must be a dict of attributes.")
        obj.restore_state(state)
        obj.check_restored()


class StoresFittedAttributes:
    """Mixin giving :class:`OwnState`'s methods from a class's ``_fitted_attributes``;
    ``check_restored`` checks what depends on several attributes or the parameters."""

    _fitted_attributes: ClassVar[FittedAttributes]

    def fitted_state(self) -> dict[str, Any]:
        """The fitted state :meth:`restore_state` takes: what model files store."""
        state = self._fitted_attributes.collect(self)
        if state is None:
            raise AttributeError(f"This {type(self).__name__} is not fitted yet.")
        return state

    def restore_state(self, state: dict[str, Any]) -> Any:
        """Set the fitted state ``state``, each attribute checked."""
        self._fitted_attributes.restore(self, state)
        return self

    def check_restored(self) -> None:
        """Raise ValueError unless the restored attributes agree with each other."""


def _has(obj: Any, name: str) -> bool:
    """Whether ``obj`` has the attribute (a property that raises counts as absent)."""
    try:
        getattr(obj, name)
    except AttributeError:
        return False
    return True


# ---------------------------------------------------------------- checks
def array(
    kinds: str = "f",
    *,
    ndim: int | None = 1,
    finite: bool = False,
    nonnegative: bool = False,
) -> Check:
    """A numpy array whose dtype kind is one of ``kinds`` (``"f"`` float, ``"i"``
    signed int, ``"u"`` unsigned, ``"b"`` bool, ``"O"`` object), of ``ndim``
    dimensions (any if None); entries ``finite`` and/or ``nonnegative`` if asked."""

    def check(value: Any, name: str) -> np.ndarray:
        if not isinstance(value, np.ndarray) or value.dtype.kind not in kinds:
            raise TypeError(f"{name} must be an array of dtype kind {kinds!r}.")
        if ndim is not None and value.ndim != ndim:
            raise ValueError(f"{name} must have {ndim} dimension(s), not {value.ndim}.")
        if finite and not np.all(np.isfinite(value)):
            raise ValueError(f"{name} must hold finite numbers.")
        if nonnegative and np.any(value < 0):
            raise ValueError(f"{name} must hold non-negative numbers.")
        return value

    return check


def integer(low: int | None = 0, high: int | None = None) -> Check:
    """An integer (not a bool) in ``[low, high]`` (either bound None: unbounded)."""

    def check(value: Any, name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise TypeError(f"{name} must be an integer, not {type(value).__name__}.")
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(f"{name} must be in [{low}, {high}], got {value}.")
        return int(value)

    return check


def real(*, finite: bool = True, positive: bool = False) -> Check:
    """A real number (not a bool), finite and/or positive if asked."""

    def check(value: Any, name: str) -> float:
        if isinstance(value, bool) or not isinstance(value, Real):
            raise TypeError(f"{name} must be a number, not {type(value).__name__}.")
        if (finite and not np.isfinite(value)) or (positive and not value > 0):
            raise ValueError(f"{name} must be a {'positive ' if positive else ''}finite number.")
        return float(value)

    return check


def boolean(value: Any, name: str) -> bool:
    """A bool."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be a bool, not {type(value).__name__}.")
    return bool(value)


def instance(*types: type) -> Check:
    """An instance of one of ``types`` (exactly: subclasses are other classes)."""

    def check(value: Any, name: str) -> Any:
        if type(value) not in types:
            allowed = " or ".join(t.__name__ for t in types)
            raise TypeError(f"{name} must be a {allowed}, not {type(value).__name__}.")
        return value

    return check


def subclass_of(base: type) -> Check:
    """An instance of ``base`` or of a subclass (a model file only builds allow-listed
    classes, so this says which of them may stand here)."""

    def check(value: Any, name: str) -> Any:
        if not isinstance(value, base):
            raise TypeError(f"{name} must be a {base.__name__}, not {type(value).__name__}.")
        return value

    return check


def with_methods(*methods: str) -> Check:
    """An object having these methods."""

    def check(value: Any, name: str) -> Any:
        missing = [m for m in methods if not callable(getattr(value, m, None))]
        if missing:
            raise TypeError(f"{name} ({type(value).__name__}) has no {missing[0]} method.")
        return value

    return check


def optional(inner: Check) -> Check:
    """None, or what ``inner`` accepts."""

    def check(value: Any, name: str) -> Any:
        return None if value is None else inner(value, name)

    return check


def sequence_of(inner: Check, *, container: type = list) -> Check:
    """A list (or tuple) of what ``inner`` accepts, rebuilt as ``container``."""

    def check(value: Any, name: str) -> Any:
        if not isinstance(value, list | tuple):
            raise TypeError(f"{name} must be a list, not {type(value).__name__}.")
        return container(inner(item, f"{name}[{i}]") for i, item in enumerate(value))

    return check


def dict_of(inner: Check) -> Check:
    """A dict of str keys to what ``inner`` accepts."""

    def check(value: Any, name: str) -> dict[str, Any]:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise TypeError(f"{name} must be a dict with str keys.")
        return {key: inner(item, f"{name}[{key!r}]") for key, item in value.items()}

    return check


def string_array(value: Any, name: str) -> np.ndarray:
    """A 1-D array of strings (repeats allowed, as in ``feature_names_in_``)."""
    if (
        not isinstance(value, np.ndarray)
        or value.ndim != 1
        or not all(isinstance(item, str) for item in value)
    ):
        raise TypeError(f"{name} must be a 1-D array of strings.")
    return value


def strings(value: Any, name: str) -> np.ndarray:
    """A 1-D object array of distinct strings."""
    string_array(value, name)
    if len(set(value)) != len(value):
        raise ValueError(f"{name} holds repeated strings.")
    return value


def objects(value: Any) -> np.ndarray:
    """``value`` (a list, as :func:`as_list` stores an object array) as a 1-D object
    array, item by item (``np.array`` would make a list of arrays 2-D)."""
    out = np.empty(len(value), dtype=object)
    out[:] = list(value)
    return out


def as_list(value: np.ndarray) -> list:
    """An object array's items as a list (what a file can hold of them)."""
    return list(value)


# ---------------------------------------------------------------- vocabularies
def vocabulary_terms(vocabulary: Mapping[str, int]) -> np.ndarray:
    """A vocabulary (term -> column, columns 0..n-1 each once) as its terms in column
    order: a 1-D object array of str, what a file holds of it."""
    columns = [int(j) for j in vocabulary.values()]
    if sorted(columns) != list(range(len(columns))):
        raise ValueError("a vocabulary's columns must be 0 .. n - 1, each once.")
    terms = np.empty(len(vocabulary), dtype=object)
    terms[columns] = list(vocabulary)
    return terms


def vocabulary(value: Any, name: str) -> dict[str, int]:
    """The terms stored by :func:`vocabulary_terms` back as term -> column: distinct
    strings, so the columns are 0..n-1, each once."""
    return {term: j for j, term in enumerate(strings(value, name))}
