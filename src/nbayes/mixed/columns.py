"""Tables in, columns out: the column spec of :class:`nbayes.NaiveBayes`.

A *table* is a pandas or polars DataFrame, or anything NumPy makes a 2-D array of.
This module reads one column at a time as ``(values, missing)``: a 1-D array of
length n_samples and a boolean mask of its missing entries (NaN, None, ``pd.NA``,
``pd.NaT`` or a polars null). It also resolves the user's ``columns`` spec, with
the kinds of unspecified DataFrame columns inferred from their dtypes:

========================================  ==============================================
dtype                                     inferred kind
========================================  ==============================================
float                                     ``"gaussian"``
integer (signed or unsigned)              ``"gaussian"``
bool (also pandas' nullable ``boolean``)  ``"bernoulli"``
category (pandas), Categorical or Enum    ``"categorical"``
string, object                            ``"text"`` if its values look like free text
                                          (:func:`looks_like_text`), else
                                          ``"categorical"``
========================================  ==============================================

Integers are read as numbers, not codes: ages, incomes and counts are far more
common in tables than integer-coded categories, and a category per distinct value
would scatter them. Say ``{"col": "categorical"}`` for integer codes (or
``"poisson"`` for counts).

Free text: a string column is ``"text"`` (a bag of words, :mod:`nbayes.events.text`)
when both hold:

- its values have words: the median number of whitespace-separated words is at least
  :data:`TEXT_MIN_WORDS` (3), over up to :data:`TEXT_SAMPLE` (200) non-missing
  values spread evenly over the column;
- most values are distinct: at least :data:`TEXT_MIN_DISTINCT` (half) of the
  column's non-missing values are different from each other.

Categories have one or two words and repeat (adult's ``workclass``: ``Self-emp-inc``;
a city: ``New York``); messages, reviews and descriptions have many words and rarely
repeat (the SMS collection: 15 words a message, 93 % distinct). Every string column of
the UCI tables (adult, car, mushroom, nursery) is categorical by this rule; the SMS
collection's message column is text. A column of a pandas ``category`` dtype is always
categorical: its categories are declared. Declare a kind to override the rule
(``columns={"notes": "text"}``). The kinds are inferred at the first ``fit`` or
``partial_fit`` and kept for every later batch.

pandas and polars are optional: they are imported only when given a table of theirs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.validation import check_array, column_or_1d

from nbayes.core.arrow_strings import arrow_strings, factorize_arrow_strings
from nbayes.core.tables import check_table
from nbayes.events import event_model
from nbayes.events._contract import EventModel


def _is_pandas(X) -> bool:
    return type(X).__module__.startswith("pandas") and hasattr(X, "iloc")


def _is_polars(X) -> bool:
    return type(X).__module__.startswith("polars") and hasattr(X, "to_series")


def is_dataframe(X) -> bool:
    """Whether X is a pandas or polars DataFrame."""
    return _is_pandas(X) or _is_polars(X)


def as_table(X):
    """X as a DataFrame (unchanged) or a 2-D NumPy array of any dtype.

    Arrays go through scikit-learn's ``check_array`` (2-D, at least one row, no
    complex numbers or infinities; NaN allowed: it is a missing value); a Series, a
    list of unequal rows or a 3-D array is an error naming the problem.
    """
    check_table(X, "NaiveBayes")
    if is_dataframe(X):
        if X.shape[0] < 1:
            raise ValueError(
                f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required."
            )
        return X
    if hasattr(X, "tocsr") or hasattr(X, "toarray"):
        raise TypeError(
            "NaiveBayes does not accept sparse input: pass a dense array or a DataFrame."
        )
    if not isinstance(X, np.ndarray):
        array = np.asarray(X)
        # a list mixing numbers and strings would become all strings: keep the values
        X = np.asarray(X, dtype=object) if array.dtype.kind in "US" else array
    return check_array(X, dtype=None, ensure_all_finite="allow-nan")


def as_labels(y):
    """Labels as a 1-D array (scikit-learn's checks), except a pandas Series of
    strings, categories or objects, which is kept as it is: the labels are hashed
    straight from its Arrow or categorical array
    (:func:`nbayes.core.validation.encode_targets`), where an array would hold one
    Python string per row."""
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(y, pandas.Series) and y.dtype.kind not in "biufcmM":
        return y
    return column_or_1d(check_array(y, ensure_2d=False, dtype=None, input_name="y"), warn=True)


def column_names(X) -> list[Hashable]:
    """The column keys of a table: names for DataFrames, indices 0..d-1 for arrays."""
    if is_dataframe(X):
        return list(X.columns)
    return list(range(X.shape[1]))


def read_column(X, j: int) -> tuple[NDArray, NDArray[np.bool_]]:
    """Column ``j`` of a table as ``(values, missing)``, both of shape (n_samples,)."""
    if _is_pandas(X):
        series = X.iloc[:, j]
        missing = series.isna().to_numpy(dtype=bool)
        if series.dtype.kind in "fiub":
            return series.to_numpy(), missing
        return series.to_numpy(dtype=object), missing
    if _is_polars(X):
        series = X.to_series(j)
        missing = series.is_null().to_numpy()
        if series.dtype.is_float():
            missing = missing | series.is_nan().fill_null(True).to_numpy()
        return series.to_numpy(), np.asarray(missing, dtype=bool)
    values = X[:, j]
    return values, missing_mask(values)


def float_values(X, j: int) -> NDArray[np.float64] | None:
    """Column ``j`` of a pandas DataFrame as its own float64 array (NaN where missing,
    as :func:`read_column` would give), when it is one; else None. Such a column needs
    no missing-value mask: NaN is its only missing value."""
    if not _is_pandas(X):
        return None
    series = X.iloc[:, j]
    if series.dtype != np.float64:  # numpy-backed float64 only, not an extension array
        return None
    values = series.to_numpy()
    return values if values.dtype == np.float64 else None


class _Unseen:
    """The value that stands for every value not among those a model knows."""

    def __repr__(self) -> str:
        return "<a value never seen in training>"


#: See :func:`read_codes`.
UNSEEN = _Unseen()


def read_codes(
    X, j: int, known: Sequence | None = None, out: NDArray[np.intp] | None = None, k: int = 0
) -> tuple[list, NDArray[np.intp]]:
    """Column ``j`` of a table factorized: ``(uniques, codes)``, ``codes`` (n_samples,)
    indexing ``uniques``, -1 where the value is missing; with ``out`` (n_samples, m),
    C-contiguous intp, the codes are written into its column ``k`` and ``codes`` is
    that column (a block's columns then need no stacking).

    A pandas column is factorized without one Python object per row: an Arrow-backed
    string column by one compiled pass over its buffers
    (:func:`nbayes._kernels.strings.factorize_strings`), any other by pandas itself.
    With ``known`` (the values a fitted model knows), an Arrow-backed string column is
    instead looked up in them (one hash probe per value): then ``uniques`` is
    ``known`` followed by :data:`UNSEEN`, the code of every other value."""
    if _is_pandas(X):
        import pandas as pd

        series = X.iloc[:, j]
        if known is not None:
            codes = _arrow_codes_in(series, known, out, k)
            if codes is not None:
                return [*known, UNSEEN], codes
        factorized = factorize_arrow_strings(series, out, k)
        if factorized is not None:
            return factorized[1], factorized[0]
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
        return list(uniques), _into(np.asarray(codes, dtype=np.intp), out, k)
    values, missing = read_column(X, j)
    codes = np.full(values.shape[0], -1, dtype=np.intp)
    uniques, codes[~missing] = factorize(values[~missing])
    return uniques, _into(codes, out, k)


def _into(codes: NDArray[np.intp], out: NDArray[np.intp] | None, k: int) -> NDArray[np.intp]:
    """``codes``, copied into column ``k`` of ``out`` (and then that column) if given."""
    if out is None:
        return codes
    out[:, k] = codes
    return out[:, k]


def _arrow_codes_in(
    series, known: Sequence, out: NDArray[np.intp] | None = None, k: int = 0
) -> NDArray[np.intp] | None:
    """The index of each value of an Arrow-backed string Series in ``known`` (strings),
    ``len(known)`` for a value not there, -1 where missing (in column ``k`` of ``out``
    if given); None for other columns."""
    chunked = arrow_strings(series)
    if chunked is None or not all(isinstance(value, str) for value in known):
        return None
    from nbayes._kernels.strings import lookup_strings

    codes = lookup_strings(chunked, list(known), out, k)
    if codes is not None:
        return codes
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.index_in(chunked, value_set=pa.array(list(known), type=chunked.type))
    codes = pc.fill_null(found, len(known)).to_numpy().astype(np.intp)
    if chunked.null_count:
        codes[chunked.is_null().to_numpy()] = -1
    return _into(codes, out, k)


def factorize(values: NDArray) -> tuple[list, NDArray[np.intp]]:
    """Distinct values and each value's index among them, shape (n,).

    Hash-based (``pandas.factorize``, first-appearance order) when the program has
    imported pandas; else ``np.unique`` for non-object arrays, and a dict otherwise.
    """
    pandas = sys.modules.get("pandas")
    if pandas is not None:
        codes, uniques = pandas.factorize(values, use_na_sentinel=False)
        return list(uniques), np.asarray(codes, dtype=np.intp)
    if values.dtype.kind != "O":
        uniques, inverse = np.unique(values, return_inverse=True)
        return list(uniques), inverse.ravel().astype(np.intp)
    index: dict = {}
    codes = np.fromiter(
        (index.setdefault(v, len(index)) for v in values), dtype=np.intp, count=len(values)
    )
    return list(index), codes


def missing_mask(values: NDArray) -> NDArray[np.bool_]:
    """Missing entries of a 1-D array: NaN; for object arrays also None and pandas'
    NA/NaT (pandas is consulted only if the program has already imported it)."""
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind != "O":
        return np.zeros(values.shape[0], dtype=bool)
    pandas = sys.modules.get("pandas")
    if pandas is not None:
        return np.asarray(pandas.isna(values), dtype=bool)
    return np.fromiter(
        (v is None or (isinstance(v, float) and v != v) for v in values),
        dtype=bool,
        count=values.shape[0],
    )


def infer_kind(X, j: int) -> str:
    """The kind of DataFrame column ``j`` from its dtype (see the module table)."""
    name = X.columns[j] if is_dataframe(X) else j  # not column_names(X): O(d) a column
    if _is_pandas(X):
        import pandas as pd

        dtype = X.dtypes.iloc[j]
        if pd.api.types.is_bool_dtype(dtype):
            return "bernoulli"
        if pd.api.types.is_float_dtype(dtype) or pd.api.types.is_integer_dtype(dtype):
            return "gaussian"
        if isinstance(dtype, pd.CategoricalDtype):
            return "categorical"
        if pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype):
            series = X.iloc[:, j]
            chunked = arrow_strings(series)
            if chunked is not None:  # pandas' take and count cost ~1 ms each here
                sample = _arrow_sample(chunked, sample_step(len(chunked)))
                n_values = len(chunked) - chunked.null_count
            else:
                sample = series.iloc[:: sample_step(len(series))].dropna().tolist()
                n_values = int(series.count())
            text = looks_like_text(sample, n_values, series.nunique)
            return "text" if text else "categorical"
    else:
        import polars as pl

        dtype = X.schema[name]
        if dtype == pl.Boolean:
            return "bernoulli"
        if dtype.is_float() or dtype.is_integer():
            return "gaussian"
        if dtype == pl.String:
            series = X.to_series(j)
            sample = series.gather_every(sample_step(len(series))).drop_nulls().to_list()
            n_values = len(series) - series.null_count()
            text = looks_like_text(sample, n_values, lambda: series.drop_nulls().n_unique())
            return "text" if text else "categorical"
        if dtype in (pl.Categorical, pl.Object) or isinstance(dtype, pl.Enum):
            return "categorical"
    raise TypeError(
        f"Cannot infer the kind of column {name!r} from its dtype {dtype}; name it in "
        f"columns={{{name!r}: kind}}."
    )


def _arrow_sample(chunked, step: int) -> list:
    """The non-missing values at rows 0, step, 2 step, ... of a pyarrow ChunkedArray,
    taken chunk by chunk (a take from the whole array joins its chunks first)."""
    import pyarrow as pa

    rows = np.arange(0, len(chunked), step)
    sample: list = []
    start = 0
    for chunk in chunked.chunks:
        stop = start + len(chunk)
        low, high = np.searchsorted(rows, [start, stop])
        if high > low:
            sample.extend(chunk.take(pa.array(rows[low:high] - start)).to_pylist())
        start = stop
    return [value for value in sample if value is not None]


#: Free text: at least this median number of words a value (see the module docstring)
TEXT_MIN_WORDS = 3
#: ... and at least this share of distinct values among the non-missing ones
TEXT_MIN_DISTINCT = 0.5
#: ... the words counted in this many values at most, spread evenly over the column.
TEXT_SAMPLE = 200


def sample_step(n_rows: int) -> int:
    """Every how many rows a value is sampled: about :data:`TEXT_SAMPLE` in all."""
    return max(1, n_rows // TEXT_SAMPLE)


def looks_like_text(sample: list, n_values: int, count_distinct: Callable[[], int]) -> bool:
    """Whether a string column of ``n_values`` non-missing values looks like free text
    (see the module docstring), from ``sample`` (non-missing values spread evenly over
    it: a median of at least :data:`TEXT_MIN_WORDS` words) and, asked only then (it
    takes a pass over the column), ``count_distinct()`` (at least
    :data:`TEXT_MIN_DISTINCT` of ``n_values``). Values that are not all strings are
    not text."""
    sample = sample[:TEXT_SAMPLE]
    if not sample or not all(isinstance(value, str) for value in sample):
        return False
    words = sorted(len(value.split()) for value in sample)
    if words[len(words) // 2] < TEXT_MIN_WORDS:
        return False
    return count_distinct() >= TEXT_MIN_DISTINCT * n_values


#: The dtype a column inferred as each kind came from, for values drawn by ``sample``
#: (the kinds not listed keep the dtype their model draws).
INFERRED_FROM = {"bernoulli": bool}


def as_inferred_dtype(values: NDArray, kind: str) -> NDArray:
    """Drawn values of a column inferred as ``kind``, in the dtype it was inferred from."""
    dtype = INFERRED_FROM.get(kind)
    return values if dtype is None else np.asarray(values).astype(dtype)


@dataclass(frozen=True)
class ResolvedColumn:
    """One column of the layout: its key, position, kind, whether inferred, and the
    settings an event-model instance gave it (sorted ``(name, value)`` pairs; none for
    a kind named by a string)."""

    key: Hashable
    position: int
    kind: str
    inferred: bool
    group: int  # columns with the same group share one block
    settings: tuple[tuple[str, Any], ...] = ()


def _kind_and_settings(
    given: Any, key: Hashable, known_kinds: Sequence[str]
) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """A column's kind and settings from the spec's value: a kind name, or an instance
    of a registered event model, whose settings that differ from the defaults become
    the column's (its block's) settings, as ``kind_options`` would give them."""
    if isinstance(given, EventModel):
        kind = given.name
        if kind not in known_kinds or type(given) is not event_model(kind):
            raise ValueError(
                f"column {key!r}: {type(given).__name__} is not a registered column kind; "
                f"known kinds: {', '.join(sorted(known_kinds))}."
            )
        defaults = type(given).settings()
        settings = tuple(
            (name, getattr(given, name))
            for name in sorted(defaults)
            if _differs(getattr(given, name), defaults[name])
        )
        return kind, settings
    if not isinstance(given, str) or given not in known_kinds:
        raise ValueError(
            f"Unknown kind {given!r} for column {key!r}; known kinds: "
            f"{', '.join(sorted(known_kinds))}."
        )
    return given, ()


def _differs(value: Any, default: Any) -> bool:
    """Whether a setting's value is not its default (arrays compared by value)."""
    if value is default:
        return False
    try:
        same = np.shape(value) == np.shape(default) and bool(
            np.all(np.asarray(value) == np.asarray(default))
        )
    except (TypeError, ValueError):
        return True
    return not same


def resolve_spec(spec: Any, X, known_kinds: Sequence[str]) -> list[ResolvedColumn]:
    """The kind of every column of table X under the user's ``columns`` spec.

    ``spec`` is None (infer all from DataFrame dtypes), one kind (every column), a
    sequence of kinds (one per column), or a mapping from column key (a name for
    DataFrames, an index for arrays) to kind; a tuple of keys as a mapping key puts
    those columns in one block of their own (e.g. one multinomial). A kind is a name
    (``"gaussian"``) or an event-model instance (``Gaussian(ddof=1)``), whose settings
    the column takes. Columns a mapping leaves out are inferred (DataFrames) or an
    error (arrays).
    """
    keys = column_names(X)
    given: dict[Hashable, tuple[str, int | None]] = {}
    if isinstance(spec, (str, EventModel)):
        given = {key: (spec, None) for key in keys}
    elif isinstance(spec, Mapping):
        for group, (key, kind) in enumerate(spec.items()):
            members = key if isinstance(key, tuple) else (key,)
            for member in members:
                if member not in keys:
                    raise ValueError(
                        f"columns names {member!r}, which is not a column of X "
                        f"(its columns are {_shorten(keys)})."
                    )
                given[member] = (kind, group if isinstance(key, tuple) else None)
    elif spec is not None:
        kinds = list(spec)
        if len(kinds) != len(keys):
            raise ValueError(f"columns lists {len(kinds)} kinds but X has {len(keys)} columns.")
        given = {key: (kind, None) for key, kind in zip(keys, kinds, strict=True)}
    frame = is_dataframe(X)
    missing = [key for key in keys if key not in given]
    if missing and not frame:
        raise ValueError(
            f"NumPy arrays need an explicit kind for every column; columns {_shorten(missing)} "
            "have none. Pass columns={index: kind, ...}, a list of kinds, or one kind name."
        )
    resolved = []
    for position, key in enumerate(keys):
        settings: tuple[tuple[str, Any], ...] = ()
        if key in given:
            spec_kind, group = given[key]
            kind, settings = _kind_and_settings(spec_kind, key, known_kinds)
            inferred = False
        else:
            kind, group, inferred = infer_kind(X, position), None, True
        group_index = -1 if group is None else group
        resolved.append(ResolvedColumn(key, position, kind, inferred, group_index, settings))
    return resolved


def _shorten(items: Sequence, limit: int = 10) -> str:
    shown = ", ".join(repr(item) for item in items[:limit])
    return f"[{shown}{', ...' if len(items) > limit else ''}]"
