"""From a table to a model's input, derived from the registry and the event-model
contract: nothing here asks which model it is.

``--model`` names every estimator of :data:`nbayes.core.registry.ESTIMATORS` by its
event model's name (``gaussian``, ``kde``, ``aode``, ...), plus ``mixed``
(:class:`nbayes.NaiveBayes`, a model per column) and ``auto``. What the CLI hands the
model follows how its event model reads (``_event_type.reads``):

``numbers``  an array of floats; a missing value is an error (these models need
             complete rows: ``mixed`` leaves missing values out)
``codes``    integer codes ``0 .. K-1`` of each column's sorted training values (as
             text), stored in the model file; a value never seen in training gets
             ``K``, which ``handle_unknown="ignore"`` leaves out
``values``   the values as written (missing ones as None)
``table``    (``mixed``) a DataFrame of parsed columns: numbers, booleans,
             categories and free text (strings), whose kinds
             :func:`nbayes.mixed.columns.infer_kind` infers (free text told apart
             from categories on the Arrow column, before it is dictionary-encoded)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from nbayes.cli._columns import convert, first_missing
from nbayes.cli._tables import CLIError, Source, pandas, pyarrow
from nbayes.core.registry import ESTIMATORS, resolve
from nbayes.errors import DomainError

MIXED, AUTO = "mixed", "auto"
#: How each event model's ``reads`` is parsed from a file.
READ_OF = {"numbers": "number", "codes": "text", "values": "text"}


@cache
def estimators() -> dict[str, type]:
    """``--model`` name -> estimator class: each registry estimator by its ``kind``
    (its event model's name; ``mixed`` for a table of mixed columns)."""
    classes = (resolve(ESTIMATORS, name) for name in ESTIMATORS)
    return {cls.kind: cls for cls in classes}


def model_names() -> tuple[str, ...]:
    return (AUTO, *(name for name in estimators() if name != MIXED), MIXED)


def mode_of(cls: type) -> str:
    """How the CLI hands a table to an estimator of class ``cls`` (its ``reads``)."""
    return cls.reads


@dataclass
class TableEncoder:
    """The feature columns, how each is parsed (``read``), how the table goes to the
    model (``mode``), the categories of ``codes`` columns and each column's kind."""

    features: list[str]
    read: dict[str, str]
    mode: str
    categories: dict[str, list[str]] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)

    @contextmanager
    def naming_bad_values(self, source: Source, offset: int = 0) -> Iterator[None]:
        """A value outside the model's domain met inside (a negative count, a
        fraction where counts are needed) comes out as one line naming its file, line
        and column, for models handed the columns as numbers (the mixed model names
        its columns itself)."""
        try:
            yield
        except ValueError as error:
            domain = error.__cause__
            if self.mode != "numbers" or not isinstance(domain, DomainError):
                raise
            raise CLIError(
                f"{source.where(offset + domain.row)}: column "
                f"{self.features[domain.feature]!r} holds {domain.value!r}: the model "
                f"needs {domain.requirement}"
            ) from None

    @property
    def missing_ok(self) -> bool:
        """Whether the model leaves missing values out (else they are an error)."""
        return self.mode in ("table", "values")

    def parsed(self, table, source: Source, offset: int = 0, absent_ok: bool = False) -> dict:
        """Each feature column of ``table`` parsed as its ``read`` (pyarrow arrays);
        columns the table lacks are all missing where ``absent_ok``, else an error."""
        pa = pyarrow()
        present = set(table.column_names)  # a list built per call: O(d) a lookup
        absent = [name for name in self.features if name not in present]
        if absent and not absent_ok:
            raise CLIError(
                f"{source.name} has no column(s) {', '.join(map(repr, absent))} "
                f"(the model reads {', '.join(map(repr, self.features))}; a model that "
                "leaves missing values out, --model mixed, leaves such columns out)"
            )
        types = {"number": pa.float64(), "bool": pa.bool_(), "text": pa.string()}
        return {
            name: pa.nulls(table.num_rows, types[self.read[name]])
            if name in absent
            else convert(table.column(name), self.read[name], name, source, offset)
            for name in self.features
        }

    def transform(self, table, source: Source, offset: int = 0, absent_ok: bool = False):
        """The model's input for the rows of ``table`` (a pyarrow Table)."""
        columns = self.parsed(table, source, offset, absent_ok)
        if not self.missing_ok:
            for name, column in columns.items():
                row = first_missing(column)
                if row is not None:
                    raise CLIError(
                        f"{source.where(offset + row)}: column {name!r} is missing; this "
                        "model needs complete rows (--model mixed or auto leaves missing "
                        "values out)"
                    )
        n_rows = table.num_rows
        if self.mode == "table":
            return frame(columns, n_rows, self.text_columns)
        if not columns:
            return np.empty((n_rows, 0))
        if self.mode == "codes":
            return np.column_stack([self._codes(name, column) for name, column in columns.items()])
        if self.mode == "values":
            return np.column_stack(
                [
                    np.asarray(c.to_numpy(zero_copy_only=False), dtype=object)
                    for c in columns.values()
                ]
            )
        return np.column_stack([c.to_numpy(zero_copy_only=False) for c in columns.values()])

    def _codes(self, name: str, column) -> np.ndarray:
        pa = pyarrow()
        known = self.categories[name]
        codes = pa.compute.index_in(column, value_set=pa.array(known, type=pa.string()))
        return (
            pa.compute.fill_null(codes, len(known)).to_numpy(zero_copy_only=False).astype(np.int64)
        )

    @property
    def text_columns(self) -> set[str]:
        """The columns modelled as free text (handed to the model as strings)."""
        return {name for name, kind in self.kinds.items() if kind == "text"}

    def learn_categories(self, columns: dict) -> None:
        """The sorted distinct values of each column, for ``codes``."""
        pa = pyarrow()
        self.categories = {
            name: sorted(pa.compute.unique(column).drop_null().to_pylist())
            for name, column in columns.items()
        }

    def decode(self, feature: str, value: Any) -> Any:
        """The category name behind a code (the value itself elsewhere)."""
        names = self.categories.get(feature)
        if names is None:
            return value
        return names[int(value)] if int(value) < len(names) else "<unseen>"

    def to_json(self) -> dict[str, Any]:
        return {
            "features": self.features,
            "read": self.read,
            "mode": self.mode,
            "categories": self.categories,
            "kinds": self.kinds,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableEncoder:
        try:
            features = [str(f) for f in data["features"]]
            kinds = dict(data["kinds"])
            categories = dict(data["categories"])
            if "mode" in data:
                return cls(features, dict(data["read"]), str(data["mode"]), categories, kinds)
            # written before the read was stored: categorical columns were text
            mode = ("codes" if categories else "numbers") if data.get("ordinal", True) else "table"
            read = {f: "text" if kinds.get(f) == "categorical" else "number" for f in features}
            return cls(features, read, mode, categories, kinds)
        except (KeyError, TypeError, AttributeError, ValueError):
            raise CLIError("the model file's column encoding is malformed") from None

    @classmethod
    def for_model(cls, model) -> TableEncoder:
        """The columns of a model saved from Python: its feature names (without: ``x0,
        x1, ...``, or a mixed table's column numbers), each of its kind, read as the
        model reads a table (integer codes as numbers) or, a table, as each kind
        reads."""
        mode = mode_of(type(model))
        if mode == "codes":  # integer codes from Python: read them as numbers
            mode = "numbers"
        names = getattr(model, "feature_names_in_", None)
        if names is None:
            positions = range(model.n_features_in_)
            names = positions if mode == "table" else [f"x{j}" for j in positions]
        kinds = dict(zip(map(str, names), model.feature_kinds(), strict=True))
        if mode == "table":
            from nbayes.events import event_model

            read = {name: READ_OF[event_model(kind).reads] for name, kind in kinds.items()}
        else:
            read = dict.fromkeys(kinds, READ_OF[mode])
        return cls(list(kinds), read, mode, {}, kinds)


def frame(columns: dict, n_rows: int, text: set[str] | frozenset[str] = frozenset()):
    """A pandas DataFrame of parsed columns: float64 numbers, nullable booleans,
    categories (pandas factorizes them without a Python object per row) and the
    free-text columns ``text`` as strings, converted by pyarrow column by column (no
    copy into a consolidated block)."""
    pd = pandas()
    pa = pyarrow()
    if not columns:
        return pd.DataFrame(index=pd.RangeIndex(n_rows))
    arrays = {
        name: column.dictionary_encode() if _is_text(column.type) and name not in text else column
        for name, column in columns.items()
    }
    return pa.table(arrays).to_pandas(
        split_blocks=True, types_mapper={pa.bool_(): pd.BooleanDtype()}.get
    )


def _is_text(kind) -> bool:
    pa = pyarrow()
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def load_cli_model(path: str):
    """``(model, encoder, target, read spec)`` from a model file (target None and a
    default read spec if not trained by the CLI)."""
    from nbayes.cli._tables import ReadSpec
    from nbayes.core.base import BaseNB
    from nbayes.io import load_file

    loaded = load_file(path)
    if not isinstance(loaded.model, BaseNB):
        raise CLIError(
            f"{path} holds a {type(loaded.model).__name__}; the command line works on "
            "nbayes estimators (load composite models in Python with nbayes.load)"
        )
    cli = loaded.metadata.get("cli")
    if isinstance(cli, dict) and "encoder" in cli:
        encoder = TableEncoder.from_json(cli["encoder"])
        try:
            read = ReadSpec.from_json(cli.get("read"))
        except CLIError as error:
            raise CLIError(f"{path}: {error.message}") from None
        return loaded.model, encoder, cli.get("target"), read
    return loaded.model, TableEncoder.for_model(loaded.model), None, ReadSpec()
