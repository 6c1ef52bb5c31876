"""How model files store the scikit-learn classes they may hold: one codec per class.

A model file stores an object as its parameters (``get_params(deep=False)``) and its
fitted state. nbayes classes give their fitted state themselves (``fitted_state`` /
``restore_state`` / ``check_restored``); for the scikit-learn classes allow-listed in
:data:`nbayes.core.registry.SKLEARN` the same three steps are written here, as a
:class:`Codec`: the fitted attributes to store, each with the check a restored value
must pass (:mod:`nbayes.core.fitted_attributes`), the parameter values that cannot be
stored safely, and what to rebuild or cross-check once the attributes are set. Private
attributes scikit-learn derives deterministically from the public ones (a OneHotEncoder's
output widths, an IsotonicRegression's interpolator) are rebuilt by scikit-learn's own
code, never read from the file.

Kept out, on purpose: callables (``FunctionTransformer(func=...)``, a ``tokenizer=``
function; the encoder refuses any callable), a Pipeline ``memory`` (a cache directory
whose joblib files would be unpickled on the next fit), and OneHotEncoder's infrequent
categories (``min_frequency`` / ``max_categories``: their grouping needs the training
counts, which scikit-learn does not keep).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from nbayes.core.fitted_attributes import (
    Field,
    FittedAttributes,
    array,
    as_list,
    boolean,
    dict_of,
    integer,
    objects,
    optional,
    real,
    sequence_of,
    string_array,
    vocabulary,
    vocabulary_terms,
)


def _no_reason(obj: Any) -> str | None:
    return None


def _nothing(obj: Any) -> None:
    return None


@dataclass(frozen=True)
class Codec:
    """The fitted state of one scikit-learn class in a model file.

    attributes : the fitted attributes stored, with their checks.
    refuse : why ``obj``'s parameters cannot be stored (None: they can).
    fitted : whether ``obj`` is fitted (default: it has every required attribute).
    finish : after the attributes are set: rebuild what scikit-learn derives from them
        and check they agree with each other and with the parameters (raise ValueError).
    """

    attributes: FittedAttributes = field(default_factory=lambda: FittedAttributes({}))
    refuse: Callable[[Any], str | None] = _no_reason
    fitted: Callable[[Any], bool] | None = None
    finish: Callable[[Any], None] = _nothing

    def check_params(self, obj: Any) -> None:
        """ValueError unless ``obj``'s parameters are valid and can be stored."""
        reason = self.refuse(obj)
        if reason is not None:
            raise ValueError(reason)
        obj._validate_params()
        _check_n_jobs(obj)

    def fitted_state(self, obj: Any) -> dict[str, Any] | None:
        """The fitted attributes as a file holds them; None if ``obj`` is not fitted."""
        if self.fitted is not None and not self.fitted(obj):
            return None
        return self.attributes.collect(obj)

    def restore(self, obj: Any, state: Any) -> None:
        """Set and check the fitted state of ``obj`` (built from its parameters)."""
        self.attributes.restore(obj, state)
        self.finish(obj)
        n_features = getattr(obj, "n_features_in_", None)
        names = getattr(obj, "feature_names_in_", None)
        if names is not None and (n_features is None or len(names) != n_features):
            raise ValueError("feature_names_in_ does not match n_features_in_.")


#: The most parallel workers a file may ask for, as a multiple of this machine's CPUs: a
#: stranger's file must not make loading or prediction start thousands of processes.
N_JOBS_PER_CPU = 4


def _check_n_jobs(obj: Any) -> None:
    """ValueError for an ``n_jobs`` parameter far beyond this machine's CPUs."""
    n_jobs = obj.get_params(deep=False).get("n_jobs")
    most = N_JOBS_PER_CPU * (os.cpu_count() or 1)
    if n_jobs is not None and not (isinstance(n_jobs, int) and -most <= n_jobs <= most):
        raise ValueError(
            f"n_jobs={n_jobs!r:.20} asks for more workers than {most} (this machine's CPUs "
            f"times {N_JOBS_PER_CPU}); set n_jobs=None before saving."
        )


# ---------------------------------------------------------------- shared pieces
def _scalar(value: Any, name: str) -> Any:
    """A plain value a fitted object-dtype array may hold (a category, a statistic)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, str | int | float)):
        raise TypeError(f"{name} holds a {type(value).__name__}, not a number or string.")
    return value


def _values(value: Any, name: str) -> np.ndarray:
    """A 1-D array of numbers, or (an object array, stored as a list) of plain values."""
    if isinstance(value, list):
        return objects([_scalar(item, f"{name}[{i}]") for i, item in enumerate(value)])
    return array("fiub")(value, name)


def _store_values(value: np.ndarray) -> Any:
    return as_list(value) if value.dtype == object else value


VALUES = Field(_values, _store_values)

#: Every fitted transformer's input description.
_INPUT = {"n_features_in_": Field(integer(1))}
_INPUT_NAMES = {"feature_names_in_": Field(string_array)}


def _per_feature(*names: str) -> Callable[[Any], None]:
    """A ``finish`` checking that these 1-D attributes (where set) have one entry per
    input feature."""

    def finish(obj: Any) -> None:
        for name in names:
            value = getattr(obj, name, None)
            if value is not None and len(value) != obj.n_features_in_:
                raise ValueError(f"{name} has {len(value)} entries, not one per feature.")

    return finish


def _count(value: Any, name: str) -> Any:
    """A number of samples: a non-negative number, or one per feature."""
    if isinstance(value, np.ndarray):
        return array("iuf", finite=True, nonnegative=True)(value, name)
    number = real()(value, name)
    if number < 0:
        raise ValueError(f"{name} must be non-negative.")
    return int(value) if isinstance(value, int) else number


def _floats(**options: Any) -> Field:
    return Field(array("f", **options))


def _optional_floats(**options: Any) -> Field:
    return Field(optional(array("f", **options)))


# ---------------------------------------------------------------- scalers
STANDARD_SCALER = Codec(
    FittedAttributes(
        {**_INPUT, "n_samples_seen_": Field(_count)},
        {
            **_INPUT_NAMES,
            "mean_": _optional_floats(),
            "var_": _optional_floats(),
            "scale_": _optional_floats(),
        },
    ),
    finish=_per_feature("mean_", "var_", "scale_"),
)

MIN_MAX_SCALER = Codec(
    FittedAttributes(
        {
            **_INPUT,
            "n_samples_seen_": Field(_count),
            "scale_": _floats(),
            "min_": _floats(),
            "data_min_": _floats(),
            "data_max_": _floats(),
            "data_range_": _floats(),
        },
        _INPUT_NAMES,
    ),
    finish=_per_feature("scale_", "min_", "data_min_", "data_max_", "data_range_"),
)

MAX_ABS_SCALER = Codec(
    FittedAttributes(
        {
            **_INPUT,
            "n_samples_seen_": Field(_count),
            "max_abs_": _floats(),
            "scale_": _floats(),
        },
        _INPUT_NAMES,
    ),
    finish=_per_feature("max_abs_", "scale_"),
)

#: Normalizer, Binarizer: nothing learnt but the input's width.
STATELESS = Codec(FittedAttributes(_INPUT, _INPUT_NAMES))


# ---------------------------------------------------------------- imputation
def _missing_indicator(value: Any, name: str) -> Any:
    from sklearn.impute import MissingIndicator

    if type(value) is not MissingIndicator:
        raise TypeError(f"{name} must be a MissingIndicator, not {type(value).__name__}.")
    return value


def _dtype(value: Any, name: str) -> np.dtype:
    """A dtype stored as its string (``"<f8"``): numbers, or objects (strings)."""
    try:
        dtype = np.dtype(value) if isinstance(value, str) else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in "biufO":
        raise TypeError(f"{name} must be a numeric or object dtype, not {value!r:.40}.")
    return dtype


DTYPE = Field(_dtype, lambda dtype: np.dtype(dtype).str)


def _finish_imputer(obj: Any) -> None:
    _per_feature("statistics_")(obj)
    indicator = obj.indicator_
    if (indicator is not None) != bool(obj.add_indicator):
        raise ValueError("indicator_ does not match add_indicator.")
    if indicator is not None and indicator.n_features_in_ != obj.n_features_in_:
        raise ValueError("indicator_ was fitted on another number of features.")


SIMPLE_IMPUTER = Codec(
    FittedAttributes(
        {
            **_INPUT,
            "statistics_": VALUES,
            "indicator_": Field(optional(_missing_indicator)),
            "_fit_dtype": DTYPE,
            "_fill_dtype": DTYPE,
        },
        _INPUT_NAMES,
    ),
    finish=_finish_imputer,
)


def _finish_indicator(obj: Any) -> None:
    features = obj.features_
    if obj._n_features != obj.n_features_in_:
        raise ValueError("_n_features does not match n_features_in_.")
    if len(np.unique(features)) != len(features) or np.any(
        (features < 0) | (features >= obj.n_features_in_)
    ):
        raise ValueError("features_ must be distinct feature indices.")


MISSING_INDICATOR = Codec(
    FittedAttributes(
        {
            **_INPUT,
            "features_": Field(array("iu")),
            "_n_features": Field(integer(1)),
            "_precomputed": Field(boolean),
        },
        _INPUT_NAMES,
    ),
    finish=_finish_indicator,
)


# ---------------------------------------------------------------- discretising, encoding
def _edges(value: Any, name: str) -> np.ndarray:
    """KBinsDiscretizer's bin edges (stored as a list): one non-decreasing float array
    of at least two edges per feature (a constant feature gets ``[-inf, inf]``)."""
    edges = sequence_of(array("f"))(value, name)
    for j, e in enumerate(edges):
        if e.size < 2 or np.any(np.isnan(e)) or np.any(np.diff(e) < 0):
            raise ValueError(f"{name}[{j}] must be at least two non-decreasing edges.")
    return objects(edges)


def _one_hot_encoder(value: Any, name: str) -> Any:
    from sklearn.preprocessing import OneHotEncoder

    if type(value) is not OneHotEncoder:
        raise TypeError(f"{name} must be a OneHotEncoder, not {type(value).__name__}.")
    return value


def _finish_bins(obj: Any) -> None:
    _per_feature("bin_edges_", "n_bins_")(obj)
    widths = [len(edges) - 1 for edges in obj.bin_edges_]
    if list(obj.n_bins_) != widths:
        raise ValueError("n_bins_ does not match bin_edges_.")
    encoder = getattr(obj, "_encoder", None)
    if (encoder is None) != (obj.encode == "ordinal"):
        raise ValueError("the one-hot encoder does not match encode.")
    if encoder is not None and [len(c) for c in encoder.categories_] != widths:
        raise ValueError("the one-hot encoder's categories do not match the bins.")


K_BINS_DISCRETIZER = Codec(
    FittedAttributes(
        {
            **_INPUT,
            "bin_edges_": Field(_edges, as_list),
            "n_bins_": Field(array("iu")),
        },
        {**_INPUT_NAMES, "_encoder": Field(_one_hot_encoder)},
    ),
    finish=_finish_bins,
)


def _categories(value: Any, name: str) -> list[np.ndarray]:
    """An encoder's categories (each feature's as a list if of object dtype): one
    non-empty 1-D array of distinct values per feature."""
    categories = sequence_of(_values)(value, name)
    for j, values in enumerate(categories):
        if values.size == 0:
            raise ValueError(f"{name}[{j}] is empty.")
        if values.dtype != object and len(np.unique(values)) != values.size:
            raise ValueError(f"{name}[{j}] holds repeated categories.")
        if values.dtype == object and len({repr(v) for v in values}) != values.size:
            raise ValueError(f"{name}[{j}] holds repeated categories.")
    return categories


CATEGORIES = Field(_categories, lambda value: [_store_values(v) for v in value])


def _refuse_infrequent(obj: Any) -> str | None:
    if obj.min_frequency is not None or obj.max_categories is not None:
        return (
            f"{type(obj).__name__} with min_frequency or max_categories (infrequent "
            "categories) cannot be stored: their grouping needs the training counts."
        )
    return None


def _finish_one_hot(obj: Any) -> None:
    """What ``OneHotEncoder.fit`` derives from the categories, by its own code."""
    _per_feature("categories_")(obj)
    obj._check_infrequent_enabled()
    obj._set_drop_idx()
    obj._n_features_outs = obj._compute_n_features_outs()


def _is_nan(value: Any) -> bool:
    return isinstance(value, float | np.floating) and bool(np.isnan(value))


def _finish_ordinal(obj: Any) -> None:
    """What ``OrdinalEncoder.fit`` derives from the categories (a missing-value
    category, NaN, is always the last)."""
    _per_feature("categories_")(obj)
    obj._check_infrequent_enabled()
    obj._missing_indices = {
        j: len(values) - 1 for j, values in enumerate(obj.categories_) if _is_nan(values[-1])
    }


_ENCODER = FittedAttributes({**_INPUT, "categories_": CATEGORIES}, _INPUT_NAMES)
ONE_HOT_ENCODER = Codec(_ENCODER, refuse=_refuse_infrequent, finish=_finish_one_hot)
ORDINAL_ENCODER = Codec(_ENCODER, refuse=_refuse_infrequent, finish=_finish_ordinal)


# ---------------------------------------------------------------- text
def _finish_tfidf(obj: Any) -> None:
    idf = getattr(obj, "idf_", None)
    if (idf is not None) != bool(obj.use_idf):
        raise ValueError("idf_ does not match use_idf.")
    _per_feature("idf_")(obj)


TFIDF_TRANSFORMER = Codec(
    FittedAttributes(_INPUT, {"idf_": _floats(finite=True, nonnegative=True)}),
    finish=_finish_tfidf,
)

_VOCABULARY = {
    "vocabulary_": Field(vocabulary, vocabulary_terms),
    "fixed_vocabulary_": Field(boolean),
}
COUNT_VECTORIZER = Codec(FittedAttributes(_VOCABULARY))


def _tfidf(value: Any, name: str) -> Any:
    from sklearn.feature_extraction.text import TfidfTransformer

    if type(value) is not TfidfTransformer:
        raise TypeError(f"{name} must be a TfidfTransformer, not {type(value).__name__}.")
    return value


def _finish_tfidf_vectorizer(obj: Any) -> None:
    inner = obj._tfidf
    for name in ("norm", "use_idf", "smooth_idf", "sublinear_tf"):
        if getattr(inner, name) != getattr(obj, name):
            raise ValueError(f"the TF-IDF weighting's {name} does not match the vectorizer's.")
    check_is_fitted(inner)
    if inner.n_features_in_ != len(obj.vocabulary_):
        raise ValueError("the TF-IDF weighting does not match the vocabulary.")


TFIDF_VECTORIZER = Codec(
    FittedAttributes({**_VOCABULARY, "_tfidf": Field(_tfidf)}),
    finish=_finish_tfidf_vectorizer,
)


def _always(obj: Any) -> bool:
    return True


#: HashingVectorizer: nothing learnt at all.
HASHING_VECTORIZER = Codec(fitted=_always)


def _refuse_functions(obj: Any) -> str | None:
    if obj.func is not None or obj.inverse_func is not None:
        return "a FunctionTransformer holding a function cannot be stored (code is never saved)."
    return None


#: FunctionTransformer without functions: the identity (a ColumnTransformer's
#: ``remainder="passthrough"``).
FUNCTION_TRANSFORMER = Codec(
    FittedAttributes({}, {**_INPUT, **_INPUT_NAMES}), refuse=_refuse_functions, fitted=_always
)


# ---------------------------------------------------------------- calibration maps
def _finish_isotonic(obj: Any) -> None:
    x, y = obj.X_thresholds_, obj.y_thresholds_
    if x.shape != y.shape or x.size == 0 or np.any(np.diff(x) < 0):
        raise ValueError("X_thresholds_ and y_thresholds_ must be as long, X sorted.")
    obj._build_f(x, y)  # the interpolator, as scikit-learn rebuilds it when unpickling


ISOTONIC_REGRESSION = Codec(
    FittedAttributes(
        {
            "X_min_": Field(real()),
            "X_max_": Field(real()),
            "X_thresholds_": _floats(finite=True),
            "y_thresholds_": _floats(finite=True),
            "increasing_": Field(boolean),
        },
        {**_INPUT, **_INPUT_NAMES},
    ),
    finish=_finish_isotonic,
)


# ---------------------------------------------------------------- composition
def _refuse_memory(obj: Any) -> str | None:
    if obj.memory is not None:
        return "a Pipeline with memory= (a cache of pickled steps) cannot be stored."
    return None


def _finish_pipeline(obj: Any) -> None:
    obj._validate_steps()
    for _, step in obj.steps:
        if step is not None and step != "passthrough":
            check_is_fitted(step)


PIPELINE = Codec(
    refuse=_refuse_memory,
    fitted=lambda obj: obj.__sklearn_is_fitted__(),
    finish=_finish_pipeline,
)


def _transformer_list(value: Any, name: str) -> list[tuple]:
    """``transformers_``: (name, fitted transformer or "drop"/"passthrough", columns)."""
    items = sequence_of(lambda item, label: item)(value, name)
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 3 and isinstance(item[0], str)):
            raise TypeError(f"{name} must hold (name, transformer, columns) triples.")
        if isinstance(item[1], str) and item[1] not in ("drop", "passthrough"):
            raise ValueError(f"{name} names an unknown transformer {item[1]!r:.40}.")
    return items


def _slice(value: Any, name: str) -> slice:
    if not (
        isinstance(value, slice)
        and isinstance(value.start, int)
        and isinstance(value.stop, int)
        and value.step is None
        and 0 <= value.start <= value.stop
    ):
        raise ValueError(f"{name} must be a slice of output columns.")
    return value


def _same_columns(a: Any, b: Any) -> bool:
    if isinstance(a, slice) or isinstance(b, slice):
        return a == b
    return np.asarray(a).tolist() == np.asarray(b).tolist()


def _finish_columns(obj: Any) -> None:
    """Check the fitted transformers against the parameters and the input width, then
    rebuild the column bookkeeping ``ColumnTransformer.fit`` derives."""
    obj._validate_transformers()
    names = [name for name, _, _ in obj.transformers]
    fitted = obj.transformers_
    if [name for name, _, _ in fitted][: len(names)] != names or len(fitted) > len(names) + 1:
        raise ValueError("transformers_ do not match the transformers.")
    for (_, _, given), (_, _, stored) in zip(obj.transformers, fitted, strict=False):
        if callable(given) or not _same_columns(given, stored):
            raise ValueError("transformers_ select other columns than the transformers.")
    for name, transformer, _ in fitted:
        if not isinstance(transformer, str):
            if not callable(getattr(transformer, "transform", None)):
                raise ValueError(f"{name!r:.40} is not a transformer.")
            check_is_fitted(transformer)
    indices = obj._transformer_to_input_indices
    if set(indices) != {*names, "remainder"}:
        raise ValueError("the column indices do not match the transformers.")
    for name, index in indices.items():
        if any(i < 0 or i >= obj.n_features_in_ for i in index):
            raise ValueError(f"the columns of {name!r:.40} are out of range.")
    if set(obj.output_indices_) != {*names, "remainder"}:
        raise ValueError("output_indices_ do not match the transformers.")
    obj._columns = [columns for _, _, columns in obj.transformers]
    stored = indices.pop("remainder")
    obj._validate_remainder(None)  # the columns no transformer takes, as fit finds them
    if list(stored) != list(indices["remainder"]):
        raise ValueError("the remainder's columns are not the ones no transformer takes.")
    if len(fitted) > len(names) and not _same_columns(fitted[-1][2], obj._remainder[2]):
        raise ValueError("transformers_ select other remainder columns.")


COLUMN_TRANSFORMER = Codec(
    FittedAttributes(
        {
            **_INPUT,
            "transformers_": Field(_transformer_list),
            "sparse_output_": Field(boolean),
            "output_indices_": Field(dict_of(_slice)),
            "_transformer_to_input_indices": Field(dict_of(sequence_of(integer(0)))),
        },
        _INPUT_NAMES,
    ),
    finish=_finish_columns,
)

#: Registry name -> codec (the names of :data:`nbayes.core.registry.SKLEARN`).
CODECS: dict[str, Codec] = {
    "sklearn.Pipeline": PIPELINE,
    "sklearn.ColumnTransformer": COLUMN_TRANSFORMER,
    "sklearn.FunctionTransformer": FUNCTION_TRANSFORMER,
    "sklearn.StandardScaler": STANDARD_SCALER,
    "sklearn.MinMaxScaler": MIN_MAX_SCALER,
    "sklearn.MaxAbsScaler": MAX_ABS_SCALER,
    "sklearn.Normalizer": STATELESS,
    "sklearn.Binarizer": STATELESS,
    "sklearn.SimpleImputer": SIMPLE_IMPUTER,
    "sklearn.MissingIndicator": MISSING_INDICATOR,
    "sklearn.KBinsDiscretizer": K_BINS_DISCRETIZER,
    "sklearn.OneHotEncoder": ONE_HOT_ENCODER,
    "sklearn.OrdinalEncoder": ORDINAL_ENCODER,
    "sklearn.TfidfTransformer": TFIDF_TRANSFORMER,
    "sklearn.CountVectorizer": COUNT_VECTORIZER,
    "sklearn.TfidfVectorizer": TFIDF_VECTORIZER,
    "sklearn.HashingVectorizer": HASHING_VECTORIZER,
    "sklearn.IsotonicRegression": ISOTONIC_REGRESSION,
}
