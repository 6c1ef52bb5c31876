"""Blocks: the columns of a table modelled by one event model.

A block is a kind (an event model's name, :data:`nbayes.events.EVENT_MODELS`), the
columns it holds and the kind options the user gave. It reads its columns out of a
table, as the event model reads them (``reads``): numbers (floats, NaN where missing;
strings are an error naming the column) or values (each column factorized, for models
that read category codes, through :class:`~nbayes.mixed.vocabulary.Vocabulary`). The
event model itself is built from the block at each training call
(:meth:`Block.event_model`): defaults, then :class:`nbayes.NaiveBayes`'s shared
settings (``alpha``, ``var_smoothing``, ``ddof``, ``handle_unknown``), then
:data:`COLUMN_SETTINGS`, then the kind's options. Nothing here depends on the kind.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.utils._param_validation import validate_parameter_constraints

from nbayes.core.parallel import map_blocks
from nbayes.errors import DomainError
from nbayes.events import EVENT_MODELS, event_model
from nbayes.events._contract import EventModel
from nbayes.mixed.columns import float_values, read_codes, read_column
from nbayes.mixed.vocabulary import Vocabulary

#: Settings every block gets, where its event model has them: missing values are
#: skipped, and each Gaussian column has its own variance floor (a table's columns
#: have unrelated scales).
COLUMN_SETTINGS = {"skip_missing": True, "floor": "per_feature"}


def column_kinds() -> list[str]:
    """The event models a column can have (those with ``column_kind``)."""
    return [name for name in EVENT_MODELS if event_model(name).column_kind]


def kind_options(kind: str) -> list[str]:
    """The options a kind takes in ``kind_options``: its model's settings that are
    neither shared nor fixed for columns."""
    model = event_model(kind)
    return [
        name
        for name in model.settings()
        if name not in model.shared_settings() and name not in COLUMN_SETTINGS
    ]


def check_kind_options(kind: str, options: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """``options`` for ``kind`` as sorted pairs, each checked against the model's
    constraints; an unknown name or a bad value is an error naming the kind."""
    allowed = kind_options(kind)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"Unknown option(s) {unknown} for kind {kind!r}; its options: "
            f"{', '.join(sorted(allowed)) or 'none'}."
        )
    validate_parameter_constraints(
        event_model(kind).parameter_constraints(), dict(options), caller_name=f"kind {kind!r}"
    )
    return tuple(sorted(options.items()))


def column_settings(kind: str, settings: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """The settings an event-model instance gave a column of ``kind``, checked against
    the model's constraints; those a column fixes (:data:`COLUMN_SETTINGS`) may only
    keep the column's value."""
    out = {}
    for name, value in settings:
        if name in COLUMN_SETTINGS:
            if value != COLUMN_SETTINGS[name]:
                raise ValueError(
                    f"kind {kind!r}: a table column always has {name}="
                    f"{COLUMN_SETTINGS[name]!r}; leave it at its default."
                )
            continue
        out[name] = value
    validate_parameter_constraints(
        event_model(kind).parameter_constraints(), dict(out), caller_name=f"kind {kind!r}"
    )
    return out


@dataclass(frozen=True)
class Block:
    """Columns ``keys`` (at ``positions`` in the table) under the event model ``kind``,
    with the kind options ``options`` (sorted pairs)."""

    kind: str
    keys: tuple[Hashable, ...]
    positions: tuple[int, ...]
    options: tuple[tuple[str, Any], ...] = ()

    def event_model(self, shared: dict[str, Any]) -> EventModel:
        """The block's event model under NaiveBayes's ``shared`` settings."""
        model = event_model(self.kind)
        names = {f.name for f in dataclasses.fields(model)}
        settings = {
            name: shared[key] for name, key in model.shared_settings().items() if key in shared
        }
        settings.update({k: v for k, v in COLUMN_SETTINGS.items() if k in names})
        settings.update(dict(self.options))
        inner = model(**settings)
        return Vocabulary(inner) if inner.reads == "codes" else inner

    def read(self, table, event: EventModel, params: Any = None) -> Any:
        """The block's columns of ``table`` as ``event`` reads them, checked; values
        coded against those ``event`` knows under fitted ``params``, if given."""
        tasks = self.read_tasks(table, event, params)
        return self.assemble(event, map_blocks(lambda task: task(), tasks))

    def read_tasks(self, table, event: EventModel, params: Any = None) -> list[Callable[[], Any]]:
        """The reading of the block's columns as independent tasks, for the block
        threads (:meth:`assemble` makes their results the block's data): one per
        column where ``event`` reads values (each factorized, or coded against the
        values the model knows under ``params``; Arrow hashes without the GIL), one
        for the whole block where it reads numbers (an (n_samples, n_columns) float
        array, NaN where missing, filled row-major by one thread)."""
        if event.reads == "values":
            # every column's codes in one (n_samples, n_columns) array: the codes the
            # model reads, with no stacking of the columns afterwards
            out = np.empty((_n_rows(table), len(self.positions)), dtype=np.intp)

            def read_one(k: int) -> tuple[list, NDArray[np.intp]]:
                known = None if params is None else event.known_values(params, k)
                return read_codes(table, self.positions[k], known, out, k)

            return [functools.partial(read_one, k) for k in range(len(self.positions))]
        return [functools.partial(self._read_numbers, table)]

    def assemble(self, event: EventModel, results: list) -> Any:
        """The block's data from the results of its :meth:`read_tasks`, in their
        order, checked by ``event`` (a domain error names the column)."""
        data = results if event.reads == "values" else results[0]
        try:
            return event.check(data)
        except DomainError as error:
            raise ValueError(self.domain_message(error)) from None

    def _read_numbers(self, table) -> NDArray[np.float64]:
        """The block's columns as floats (n_samples, n_columns), NaN where missing."""
        data = np.empty((_n_rows(table), len(self.keys)))
        for k, (key, j) in enumerate(self._columns()):
            floats = float_values(table, j)
            if floats is None:
                data[:, k] = _as_float(*read_column(table, j), key, self.kind)
                continue
            if np.isinf(floats).any():
                raise ValueError(f"Column {key!r} holds infinite values.")
            data[:, k] = floats
        return data

    def domain_message(self, error: DomainError) -> str:
        key = self.keys[error.feature]
        return (
            f"Column {key!r} is {self.kind} but holds {error.value!r} in row {error.row} "
            f"({error.problem.lower()}); the {self.kind} model needs {error.requirement}."
        )

    def _columns(self):
        return zip(self.keys, self.positions, strict=True)


def _n_rows(table) -> int:
    return table.shape[0]


def _as_float(values: NDArray, missing: NDArray, key, kind: str) -> NDArray[np.float64]:
    """A column as floats, NaN where missing; strings or infinities are an error."""
    if values.dtype.kind in "fiub":  # numbers already: no copy for float64
        out = values.astype(np.float64, copy=False)
        if missing.any() and not np.isnan(out[missing]).all():
            out = out.copy()
            out[missing] = np.nan
        if values.dtype.kind == "f" and np.isinf(out).any():
            raise ValueError(f"Column {key!r} holds infinite values.")
        return out
    if values.dtype.kind in "US" or (
        values.dtype.kind == "O" and any(isinstance(v, str | bytes) for v in values[~missing])
    ):
        bad = next(v for v in values[~missing] if isinstance(v, str | bytes | np.str_))
        raise ValueError(
            f"Column {key!r} is {kind} but holds strings such as {bad!r}; "
            f"declare it columns={{{key!r}: 'categorical'}} or convert it to numbers."
        )
    filled = np.array(values, dtype=object if values.dtype.kind == "O" else None)
    filled[missing] = np.nan if filled.dtype.kind in "fO" else 0
    try:
        out = filled.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"Column {key!r} is {kind} but holds non-numbers: {exc}") from None
    out[missing] = np.nan
    if np.isinf(out).any():
        raise ValueError(f"Column {key!r} holds infinite values.")
    return out
