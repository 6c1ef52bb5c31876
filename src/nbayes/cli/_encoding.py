"""From a table to a model's input: the CLI's small, replaceable column encoding.

Each feature column has a kind. Numeric kinds (``gaussian``, ``multinomial``,
``bernoulli``) are parsed as numbers; ``categorical`` columns are coded
``0 .. K-1`` by their sorted training values (as text), and a value never seen in
training gets code ``K`` (which ``CategoricalNB(handle_unknown="ignore")`` leaves out).
The categories are stored in the model file's metadata, so ``predict`` encodes
exactly as ``train`` did. Once :class:`nbayes.NaiveBayes` (mixed columns, strings,
missing values) is available, it takes the table as it is and this encoding only
selects the columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import nbayes
from nbayes.cli._tables import CLIError, pandas

#: Single-event models the CLI trains: model name -> (class, the kind of every column).
MODELS = {
    "gaussian": (nbayes.GaussianNB, "gaussian"),
    "multinomial": (nbayes.MultinomialNB, "multinomial"),
    "bernoulli": (nbayes.BernoulliNB, "bernoulli"),
    "categorical": (nbayes.CategoricalNB, "categorical"),
    "complement": (nbayes.ComplementNB, "multinomial"),
    "aode": (nbayes.AODE, "categorical"),
    "tan": (nbayes.TAN, "categorical"),
}
MODEL_NAMES = ("auto", *MODELS, "mixed")
#: Column kinds of the mixed model (nbayes.NaiveBayes), plus "ignore" (drop the column).
MIXED_KINDS = (
    "gaussian",
    "categorical",
    "bernoulli",
    "multinomial",
    "poisson",
    "exponential",
    "kde",
    "binned",
)
COLUMN_KINDS = (*MIXED_KINDS, "ignore")


def mixed_model_class():
    """``nbayes.NaiveBayes`` where this nbayes has it, else None."""
    return getattr(nbayes, "NaiveBayes", None)


def infer_kind(series) -> str:
    """``gaussian`` for a column whose values all read as numbers (booleans excepted),
    else ``categorical``."""
    pd = pandas()
    values = series.dropna()
    if pd.api.types.is_bool_dtype(values) or pd.api.types.is_numeric_dtype(values):
        return "categorical" if pd.api.types.is_bool_dtype(values) else "gaussian"
    if values.empty:
        return "categorical"
    parsed = pd.to_numeric(values, errors="coerce")
    return "gaussian" if parsed.notna().all() else "categorical"


def as_labels(series) -> np.ndarray:
    """Target labels: integers if every value is an integer, else strings."""
    pd = pandas()
    missing = series.isna()
    if missing.any():
        raise CLIError(
            f"target column {series.name!r} has {int(missing.sum())} missing value(s), "
            f"first at row {int(np.flatnonzero(missing.to_numpy())[0])}"
        )
    parsed = pd.to_numeric(series, errors="coerce")
    if parsed.notna().all() and np.all(np.mod(parsed.to_numpy(dtype=float), 1) == 0):
        return parsed.to_numpy().astype(np.int64)
    return series.astype(str).to_numpy().astype(str)


@dataclass
class TableEncoder:
    """Feature columns, their kinds, and the categories of ordinal-coded columns."""

    features: list[str]
    kinds: dict[str, str]
    categories: dict[str, list[str]] = field(default_factory=dict)
    ordinal: bool = True

    @classmethod
    def fit(cls, frame, kinds: dict[str, str], ordinal: bool = True) -> TableEncoder:
        """Learn the categories of the ``categorical`` columns of ``frame``
        (``ordinal=False``: leave them to the model, e.g. NaiveBayes)."""
        features = [name for name, kind in kinds.items() if kind != "ignore"]
        categories = {}
        if ordinal:
            for name in features:
                if kinds[name] == "categorical":
                    values = _text(frame[name], name)
                    categories[name] = sorted(set(values.tolist()))
        return cls(features, {name: kinds[name] for name in features}, categories, ordinal)

    def transform(self, frame):
        """The model input for ``frame``: an array (n_rows, n_features), or for a
        non-ordinal encoder the feature columns with numeric ones parsed."""
        pd = pandas()
        missing = [name for name in self.features if name not in frame.columns]
        if missing:
            raise CLIError(f"the data has no column(s) {', '.join(map(repr, missing))}")
        if not self.ordinal:
            out = frame[self.features].copy()
            for name in self.features:
                if self.kinds[name] != "categorical":
                    out[name] = _numbers(frame[name], name, pd, allow_missing=True)
            return out
        columns = []
        for name in self.features:
            if name in self.categories:
                lookup = {value: code for code, value in enumerate(self.categories[name])}
                text = _text(frame[name], name)
                columns.append(text.map(lookup).fillna(len(lookup)).to_numpy(np.int64))
            else:
                columns.append(_numbers(frame[name], name, pd))
        if not columns:
            return np.empty((len(frame), 0))
        dtype = np.int64 if all(c.dtype == np.int64 for c in columns) else np.float64
        return np.column_stack(columns).astype(dtype, copy=False)

    def decode(self, feature: str, value: Any) -> Any:
        """The category name behind a code (the value itself for numeric columns)."""
        names = self.categories.get(feature)
        if names is None:
            return value
        return names[int(value)] if int(value) < len(names) else "<unseen>"

    def to_json(self) -> dict[str, Any]:
        return {
            "features": self.features,
            "kinds": self.kinds,
            "categories": self.categories,
            "ordinal": self.ordinal,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableEncoder:
        try:
            return cls(
                list(data["features"]),
                dict(data["kinds"]),
                dict(data["categories"]),
                bool(data.get("ordinal", True)),
            )
        except (KeyError, TypeError, AttributeError):
            raise CLIError("the model file's column encoding is malformed") from None

    @classmethod
    def for_model(cls, model) -> TableEncoder:
        """The columns of a model saved from Python: its feature names, as numbers."""
        names = getattr(model, "feature_names_in_", None)
        named = names is not None  # then the model takes a DataFrame with those columns
        if not named:
            names = [f"x{j}" for j in range(model.n_features_in_)]
        return cls([str(n) for n in names], {str(n): "numeric" for n in names}, {}, not named)


def _text(series, name: str):
    missing = series.isna()
    if missing.any():
        raise CLIError(
            f"column {name!r} has {int(missing.sum())} missing value(s); the single-event "
            "models need complete data (drop it with --column NAME=ignore)"
        )
    return series.astype(str)


def _numbers(series, name: str, pd, allow_missing: bool = False) -> np.ndarray:
    parsed = pd.to_numeric(series, errors="coerce")
    bad = parsed.isna() & (series.notna() if allow_missing else True)
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        value = series.iloc[row]
        what = "missing" if pd.isna(value) else f"not a number: {value!r}"
        raise CLIError(f"column {name!r}, row {row}: {what}")
    values = parsed.to_numpy()
    return values.astype(np.int64) if np.issubdtype(values.dtype, np.integer) else values


def load_cli_model(path: str):
    """``(model, encoder, target)`` from a model file (target None if not CLI-trained)."""
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
        return loaded.model, TableEncoder.from_json(cli["encoder"]), cli.get("target")
    return loaded.model, TableEncoder.for_model(loaded.model), None
