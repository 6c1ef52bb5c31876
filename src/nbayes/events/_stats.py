"""Additive sufficient statistics, written once: the operations every event model's
statistics share, generic over their fields.

A statistics type is a frozen dataclass deriving from :class:`Statistics` whose fields
say what they hold (:func:`stat`): the axes of an array (``"class"``, ``"feature"``
or None for an axis of its own, such as categories or bins), whether its entries are
counts or weights (never negative) and whether they must be finite. From that,

- ``zero`` (per type: the statistics of no data),
- ``a + b`` (default: field by field; types whose statistics do not simply add, such
  as pooled moments or grown vocabularies, override it),
- ``take_classes`` (class ``c`` moved to ``index[c]``: the class axis of every field),
- ``copy`` (every array copied),
- ``validate`` (shapes agree with ``n_classes`` and ``n_features`` and with each other;
  counts finite and non-negative; nothing NaN),
- ``to_space`` / ``to_numpy`` (the floating fields moved to an array-API namespace and
  device, such as a GPU's, or back to NumPy: the same statistics wherever they live),

so ``fit`` == ``partial_fit`` == ``merge``, and model files are checked, by the same code
for every model.

Example
-------
>>> import numpy as np
>>> from nbayes.events.counts import CountStats
>>> a = CountStats(np.array([1.0, 2.0]), np.array([[1.0, 0.0], [0.0, 3.0]]))
>>> (a + a).class_count
array([2., 4.])
>>> a.take_classes(np.array([0, 2]), 3).class_count
array([1., 0., 2.])
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterator
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from nbayes.core.namespace import Space, is_numpy, namespace_of, to_numpy, to_space
from nbayes.errors import InexactCountWarning, StatisticsError

#: What an axis of a statistics array runs over.
CLASS, FEATURE = "class", "feature"

#: The largest count float64 holds exactly in ones: ``2**53 + 1`` rounds to ``2**53``.
EXACT_COUNTS = 2.0**53

S = TypeVar("S", bound="Statistics")


def stat(
    *axes: str | None, nonnegative: bool = False, finite: bool = True, optional: bool = False
) -> Any:
    """A statistics field: an array with the given ``axes`` (``"class"``, ``"feature"``
    or None each), counts or weights if ``nonnegative``, ``finite`` unless infinities
    are legitimate (e.g. the empty bins of a grid), possibly None if ``optional``. A
    field declared with no axes is not an array (a setting carried with the
    statistics, or nested statistics)."""
    metadata = {"axes": axes, "nonnegative": nonnegative, "finite": finite, "optional": optional}
    return dataclasses.field(metadata=metadata)


class Statistics:
    """Base class of additive sufficient statistics (frozen dataclasses).

    Subclasses define ``zero(cls, n_classes, n_features, ...)`` and may override
    ``__add__`` where their statistics are not summed field by field. Every subclass has
    a ``class_count`` (n_classes,): the weighted number of rows of each class.
    """

    class_count: NDArray[np.float64]

    # ------------------------------------------------------------ fields
    @classmethod
    def _array_fields(cls) -> Iterator[tuple[str, tuple]]:
        for field in dataclasses.fields(cls):  # type: ignore[arg-type]
            axes = field.metadata.get("axes", ())
            if axes:
                yield field.name, axes

    def _replace(self: S, **changes: Any) -> S:
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    # ------------------------------------------------------------ algebra
    def __add__(self: S, other: S) -> S:
        """Field-by-field sum (fields without axes must be equal and are kept)."""
        if type(other) is not type(self):
            return NotImplemented
        changes = {}
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            mine, theirs = getattr(self, field.name), getattr(other, field.name)
            if field.metadata.get("axes") and mine is not None:
                changes[field.name] = mine + theirs
            elif isinstance(mine, Statistics):
                changes[field.name] = mine + theirs
            elif not _same(mine, theirs):
                raise ValueError(
                    f"Cannot add {type(self).__name__} with different {field.name} "
                    f"({mine!r} and {theirs!r})."
                )
        return self._replace(**changes)

    def take_classes(self: S, index: NDArray[np.intp], n_classes: int) -> S:
        """These statistics with class ``c`` moved to ``index[c]`` of ``n_classes`` (the
        other classes empty): how models that saw different classes are aligned."""
        changes = {}
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            axes = field.metadata.get("axes", ())
            if CLASS in axes and value is not None:
                axis = axes.index(CLASS)
                shape = list(value.shape)
                shape[axis] = n_classes
                moved = np.zeros(shape, dtype=value.dtype)
                target = [slice(None)] * value.ndim
                target[axis] = index
                moved[tuple(target)] = value
                changes[field.name] = moved
            elif isinstance(value, Statistics):
                changes[field.name] = value.take_classes(index, n_classes)
            elif isinstance(value, np.ndarray):
                changes[field.name] = value.copy()
        return self._replace(**changes)

    def copy(self: S) -> S:
        """A copy whose arrays (and nested statistics) are copied too."""
        changes = {}
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            if isinstance(value, np.ndarray):
                changes[field.name] = value.copy()
            elif isinstance(value, Statistics):
                changes[field.name] = value.copy()
        return self._replace(**changes)

    # ------------------------------------------------------------ namespaces
    def to_space(self: S, space: Space) -> S:
        """These statistics with every floating array field in ``space`` (an array-API
        namespace, device and dtype: see :mod:`nbayes.core.namespace`); integer
        fields (layouts: categories per feature, scale exponents) stay NumPy, read on
        the host. ``self`` where nothing moves."""
        changes = {}
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            if isinstance(value, Statistics):
                changes[field.name] = value.to_space(space)
            elif field.metadata.get("axes") and value is not None:
                if not (isinstance(value, np.ndarray) and value.dtype.kind in "iub"):
                    changes[field.name] = to_space(value, space)
        return self._replace(**changes) if changes else self

    def to_numpy(self: S) -> S:
        """These statistics with every array field a NumPy array (copied from its
        device); ``self`` where all are NumPy already."""
        changes = {}
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            if isinstance(value, Statistics):
                moved = value.to_numpy()
                if moved is not value:
                    changes[field.name] = moved
            elif not is_numpy(value):
                changes[field.name] = to_numpy(value)
        return self._replace(**changes) if changes else self

    @property
    def namespace(self) -> Any:
        """The array namespace the statistics live in (NumPy itself on the host)."""
        return namespace_of(self.class_count)

    # ------------------------------------------------------------ checks
    def warn_inexact(self) -> None:
        """Warn (:class:`nbayes.errors.InexactCountWarning`) if a class count has reached
        :data:`EXACT_COUNTS`, beyond which adding a row no longer changes it. Every
        per-cell count of a row-counting model is at most its class's count; models
        whose cells sum values (multinomial counts) check their cells too."""
        counts = self.class_count
        if isinstance(counts, np.ndarray):
            reached = counts.max(initial=0.0) >= EXACT_COUNTS
        else:
            reached = counts.shape[0] and float(namespace_of(counts).max(counts)) >= EXACT_COUNTS
        if reached:
            warn_inexact(f"{type(self).__name__}.class_count")

    def validate(self, n_classes: int, n_features: int) -> None:
        """Raise :class:`StatisticsError` unless every array field has the declared
        axes (``n_classes`` classes, ``n_features`` features, other axes agreeing
        between fields), a float or integer dtype, no NaN, no infinity where the field
        must be finite, and no negative entry where it holds counts or weights."""
        name = type(self).__name__
        sizes: dict[str, int] = {CLASS: n_classes, FEATURE: n_features}
        for field, axes in self._array_fields():
            value = getattr(self, field)
            meta = next(f for f in dataclasses.fields(self) if f.name == field).metadata  # type: ignore[arg-type]
            if value is None and meta["optional"]:
                continue
            if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu":
                raise StatisticsError(f"{name}.{field} is not a numeric array.")
            if value.ndim != len(axes):
                raise StatisticsError(
                    f"{name}.{field} has {value.ndim} dimension(s), expected {len(axes)}."
                )
            for axis, length in zip(axes, value.shape, strict=True):
                if axis is None:
                    continue
                if length != sizes[axis]:
                    raise StatisticsError(
                        f"{name}.{field} has {length} entries along its {axis} axis, "
                        f"expected {sizes[axis]}."
                    )
            if value.dtype.kind == "f":
                if np.isnan(value).any():
                    raise StatisticsError(f"{name}.{field} holds NaN.")
                if meta["finite"] and np.isinf(value).any():
                    raise StatisticsError(f"{name}.{field} holds infinite values.")
            if meta["nonnegative"] and value.size and value.min() < 0:
                raise StatisticsError(f"{name}.{field} holds negative counts or weights.")
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            if isinstance(value, Statistics):
                value.validate(n_classes, n_features)
        self._validate_more(n_classes, n_features)

    def _validate_more(self, n_classes: int, n_features: int) -> None:
        """Checks beyond the declared axes (e.g. that the layouts of two fields agree);
        subclasses raise :class:`StatisticsError`."""


def warn_inexact(where: str) -> None:
    """The warning of :meth:`Statistics.warn_inexact`, naming the counts ``where``."""
    warnings.warn(
        f"{where} has reached 2**53 = {EXACT_COUNTS:.0f}: float64 counts no longer "
        "count in ones beyond it, so further increments are rounded (a count of 2**53 "
        "plus one row stays 2**53). Rescale sample_weight, or split the data.",
        InexactCountWarning,
        stacklevel=4,
    )


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return a == b
