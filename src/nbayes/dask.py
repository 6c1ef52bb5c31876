"""Naive Bayes on Dask: statistics where the data lives, parameters on the client.

Training is ``estimate(sum_p summarize(partition_p))``. Each partition ``p`` of
(X, y, sample_weight) is summarised on a worker by the estimator's own ``fit`` (or
``partial_fit``) on a fresh, unfitted clone: the same validation, label encoding,
class-weight matrix ``W`` and ``_summarize`` as in memory. What comes back is a
small model that holds only its statistics, O(n_classes × n_features) numbers
whatever the partition's length. The partition models are tree-reduced with
:func:`nbayes.merge`, the core's merge (classes aligned on their union with
``take_classes``, then added with the statistics' ``+``): the classes are found
in the same single pass over the data, and only the merged statistics reach the
client, where the parameters are estimated (lazily, as always).

Prediction maps the fitted estimator over the partitions and returns lazy
collections: a dask array for an array, a Series/DataFrame for a DataFrame, a
bag for a bag of documents.

Text: a bag (or Series) of documents is turned into a sparse count matrix per
partition by a stateless ``vectorizer`` (by default a hashing vectorizer, see
:func:`hashing_vectorizer`), then summarised like any other X.

Requires the optional extra ``nbayes[dask]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from numbers import Real
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from nbayes.merge import merge

try:
    import dask
    import dask.array as da
    import dask.bag as db
    import dask.dataframe as dd
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "nbayes.dask needs Dask: pip install 'nbayes[dask]' "
        "(dask[array,dataframe] and distributed)."
    ) from exc

__all__ = [
    "fit",
    "hashing_vectorizer",
    "partial_fit",
    "predict",
    "predict_log_proba",
    "predict_proba",
]

Transform = Callable[[Any], Any]

DEFAULT_HASHING_FEATURES = 1 << 18


# ------------------------------------------------------------------ training
def fit(estimator, X, y, sample_weight=None, *, vectorizer=None, split_every: int = 8):
    """Fit ``estimator`` on dask collections; return it, fitted and in memory.

    Parameters
    ----------
    estimator : an nbayes estimator
        Its parameters are used; any previous fit is replaced (as ``fit`` does).
    X : dask array (n_samples, n_features), dask DataFrame, or a dask bag / Series
        of documents (then ``vectorizer`` turns each partition into counts).
    y : dask array (n_samples,), dask Series or bag, partitioned like X.
    sample_weight : dask array / Series partitioned like X, a number, or None.
    vectorizer : object with a stateless ``transform(documents)``, optional
        Defaults to :func:`hashing_vectorizer` when X is a bag or a Series.
    split_every : int
        Fan-in of the tree reduction of the partition statistics.

    Notes
    -----
    The result equals ``estimator.fit`` on the concatenated data: counts exactly,
    Gaussian moments to rounding (pooled with Chan's formula). Each non-empty
    partition is one batch, so its sample weights must not all be zero. Only the
    statistics move to the client; on any error the estimator is left unchanged.
    """
    estimator._validate_params()
    model = _reduce(estimator, X, y, sample_weight, vectorizer, split_every, "fit", None)
    _adopt(estimator, model)
    return estimator


def partial_fit(
    estimator,
    X,
    y,
    classes=None,
    sample_weight=None,
    *,
    vectorizer=None,
    split_every: int = 8,
):
    """Add the statistics of dask collections X, y to ``estimator``; return it.

    As ``estimator.partial_fit``: ``classes`` is required on the first call (for
    estimators that require it) and must agree with ``classes_`` afterwards. The
    other arguments are those of :func:`fit`.
    """
    estimator._validate_params()
    fitted = hasattr(estimator, "classes_")
    if classes is not None:
        declared = np.unique(classes)
        if fitted and not np.array_equal(declared, estimator.classes_):
            raise ValueError(
                f"`classes={classes!r}` is not the same as on last call to "
                f"partial_fit, was: {estimator.classes_!r}"
            )
    else:
        declared = estimator.classes_ if fitted else None
    if fitted and vectorizer is None and not _is_documents(X):
        _check_n_features(estimator, X)
    batch = _reduce(
        estimator, X, y, sample_weight, vectorizer, split_every, "partial_fit", declared
    )
    _adopt(estimator, merge(estimator, batch) if fitted else batch)
    return estimator


def _reduce(estimator, X, y, sample_weight, vectorizer, split_every, method: str, classes):
    """The merge of the models ``method`` gives on each partition, computed."""
    if split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every}.")
    transform = _transform_of(X, vectorizer)
    parts = _aligned_partitions(X, y, sample_weight)
    template = clone(estimator)
    summaries = [
        dask.delayed(_summarize_partition, pure=True)(
            template, index, *part, method, classes, transform
        )
        for index, part in enumerate(parts)
    ]
    try:
        merged = _tree_reduce(summaries, split_every).compute()
    except _killed_worker_errors() as exc:
        raise RuntimeError(
            f"A Dask worker died while summarising the data, more often than the "
            f"scheduler retries a task (distributed.scheduler.allowed-failures): {exc}. "
            "Nothing was fitted; the estimator is unchanged. A worker that runs out of "
            "memory dies this way: use smaller partitions or give workers more memory."
        ) from exc
    if merged is None:
        raise ValueError("Cannot fit on no data: every partition of X is empty.")
    return merged


def _killed_worker_errors() -> tuple[type[BaseException], ...]:
    """The error a distributed cluster raises when a task's workers keep dying."""
    try:
        from distributed import KilledWorker
    except ImportError:  # pragma: no cover - the local schedulers cannot lose a worker
        return ()
    return (KilledWorker,)


def _tree_reduce(nodes: list, split_every: int):
    """Merge delayed models ``split_every`` at a time, level by level, to one."""
    while len(nodes) > 1:
        nodes = [
            dask.delayed(_merge_models, pure=True)(nodes[start : start + split_every])
            for start in range(0, len(nodes), split_every)
        ]
    return nodes[0] if nodes else dask.delayed(None)


def _summarize_partition(
    template, index: int, X, y, sample_weight, method: str, classes, transform
):
    """One partition's statistics: a clone of ``template`` fitted on it alone (``fit``,
    or ``partial_fit`` with ``classes``); None for an empty partition."""
    if transform is not None:
        X = transform(X)
    if _n_rows(X) == 0:
        return None
    model = clone(template)
    try:
        if method == "fit":
            model.fit(X, y, sample_weight=sample_weight)
        else:
            model.partial_fit(X, y, classes=classes, sample_weight=sample_weight)
    except (ValueError, TypeError) as exc:
        error = ValueError if isinstance(exc, ValueError) else TypeError
        raise error(f"In partition {index} of the data: {exc}") from exc
    return model


def _merge_models(models: Iterable):
    """The :func:`nbayes.merge` of ``models`` (None entries skipped), or None."""
    found = [model for model in models if model is not None]
    if not found:
        return None
    return found[0] if len(found) == 1 else merge(*found)


def _adopt(estimator, model) -> None:
    """Replace the fitted state of ``estimator`` by that of ``model``."""
    params = estimator.get_params(deep=False)
    for name in [name for name in vars(estimator) if name not in params]:
        delattr(estimator, name)
    for name, value in vars(model).items():
        if name not in params:
            setattr(estimator, name, value)


def _check_n_features(estimator, X) -> None:
    n_features = X.shape[1] if isinstance(X, da.Array) and X.ndim == 2 else None
    if isinstance(X, dd.DataFrame):
        n_features = len(X.columns)
    if n_features is not None and n_features != estimator.n_features_in_:
        raise ValueError(
            f"X has {n_features} features, but {type(estimator).__name__} is "
            f"expecting {estimator.n_features_in_} features as input."
        )


# ------------------------------------------------------------------ partitions
def _aligned_partitions(X, y, sample_weight) -> list[tuple]:
    """(X_p, y_p, w_p) delayed partitions; y and weights partitioned like X."""
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional (n_samples, n_features); got {X.ndim}-D.")
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
    x_parts = _partitions(X, "X")
    y_parts = _partitions(_align_like(y, X, "y"), "y")
    if sample_weight is None or isinstance(sample_weight, Real):
        w_parts = [sample_weight] * len(x_parts)
    else:
        w_parts = _partitions(_align_like(sample_weight, X, "sample_weight"), "sample_weight")
    for name, parts in (("y", y_parts), ("sample_weight", w_parts)):
        if len(parts) != len(x_parts):
            raise ValueError(
                f"X has {len(x_parts)} partitions but {name} has {len(parts)}; "
                f"partition {name} like X (e.g. take both from one DataFrame, or "
                "rechunk the arrays alike)."
            )
    return list(zip(x_parts, y_parts, w_parts, strict=True))


def _align_like(vector, X, name: str):
    """A 1-d dask array rechunked to X's row chunks where both are known."""
    if isinstance(vector, da.Array):
        if vector.ndim != 1:
            raise ValueError(f"{name} must be 1-dimensional; got shape {vector.shape}.")
        if isinstance(X, da.Array) and not np.isnan(X.shape[0]) and not np.isnan(vector.shape[0]):
            if vector.shape[0] != X.shape[0]:
                raise ValueError(
                    f"X has {X.shape[0]} rows but {name} has {vector.shape[0]}; they must match."
                )
            if vector.chunks[0] != X.chunks[0]:
                vector = vector.rechunk((X.chunks[0],))
    return vector


def _partitions(collection, name: str) -> list:
    """The delayed partitions of a dask array (row blocks), DataFrame, Series or bag."""
    if isinstance(collection, da.Array):
        return list(collection.to_delayed().ravel())
    if isinstance(collection, dd.DataFrame | dd.Series | db.Bag):
        return list(collection.to_delayed())
    raise TypeError(
        f"{name} must be a dask array, DataFrame, Series or bag; got "
        f"{type(collection).__name__}. Wrap in-memory data with dask.array.from_array."
    )


def _n_rows(X) -> int:
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None else len(X)


# ------------------------------------------------------------------ text
def hashing_vectorizer(n_features: int = DEFAULT_HASHING_FEATURES):
    """A stateless documents → token counts transform (sparse, n_docs × n_features).

    The seam for text on Dask: scikit-learn's ``HashingVectorizer`` with raw counts
    (``alternate_sign=False, norm=None``), what multinomial statistics need. It has
    no vocabulary to fit, so every worker hashes its partition independently.
    """
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(n_features=n_features, alternate_sign=False, norm=None)


def _is_documents(X) -> bool:
    return isinstance(X, db.Bag | dd.Series)


def _transform_of(X, vectorizer) -> Transform | None:
    if vectorizer is None and _is_documents(X):
        vectorizer = hashing_vectorizer()
    if vectorizer is None:
        return None
    if not hasattr(vectorizer, "transform"):
        raise TypeError(f"vectorizer must have a transform method; got {vectorizer!r}.")
    return vectorizer.transform


# ------------------------------------------------------------------ prediction
def predict(estimator, X, *, vectorizer=None):
    """Lazy MAP classes of X, partition by partition: shape (n_samples,)."""
    return _map(estimator, X, "predict", vectorizer)


def predict_proba(estimator, X, *, vectorizer=None):
    """Lazy ``P(y | x)``, shape (n_samples, n_classes), columns ``classes_``."""
    return _map(estimator, X, "predict_proba", vectorizer)


def predict_log_proba(estimator, X, *, vectorizer=None):
    """Lazy ``log P(y | x)``, shape (n_samples, n_classes), columns ``classes_``."""
    return _map(estimator, X, "predict_log_proba", vectorizer)


def _map(estimator, X, method: str, vectorizer):
    """``estimator.<method>`` mapped over the partitions of X, lazily.

    The fitted estimator (parameters estimated once, here) enters the graph once,
    as one delayed object that every partition's task reads.
    """
    check_is_fitted(estimator)
    getattr(estimator, "_fitted", None)  # estimate the parameters once, on the client
    transform = _transform_of(X, vectorizer)
    shared = dask.delayed(estimator, pure=True)
    classes = estimator.classes_
    labels = method == "predict"
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional (n_samples, n_features); got {X.ndim}-D.")
        X = X.rechunk({1: -1}) if X.numblocks[1] > 1 else X
        if labels:
            return X.map_blocks(_apply, shared, method, transform, drop_axis=1, dtype=classes.dtype)
        chunks = (X.chunks[0], (len(classes),))
        return X.map_blocks(_apply, shared, method, transform, chunks=chunks, dtype=np.float64)
    if isinstance(X, dd.DataFrame | dd.Series):
        import pandas as pd

        if labels:
            meta = pd.Series(np.empty(0, dtype=classes.dtype))
        else:
            meta = pd.DataFrame(np.empty((0, len(classes))), columns=list(classes))
        return X.map_partitions(_apply_frame, shared, method, transform, meta=meta)
    if isinstance(X, db.Bag):
        return X.map_partitions(_apply_bag, shared, method, transform)
    raise TypeError(f"X must be a dask array, DataFrame, Series or bag; got {type(X).__name__}.")


def _apply(X, estimator, method: str, transform):
    """``estimator.<method>(transform(X))``; an empty partition gives an empty result."""
    if transform is not None:
        X = transform(X)
    if _n_rows(X) == 0:
        if method == "predict":
            return np.empty(0, dtype=estimator.classes_.dtype)
        return np.empty((0, len(estimator.classes_)))
    return getattr(estimator, method)(X)


def _apply_frame(X, estimator, method: str, transform):
    import pandas as pd

    result = _apply(X, estimator, method, transform)
    if method == "predict":
        return pd.Series(result, index=X.index)
    return pd.DataFrame(result, index=X.index, columns=list(estimator.classes_))


def _apply_bag(documents, estimator, method: str, transform):
    return list(_apply(list(documents), estimator, method, transform))
