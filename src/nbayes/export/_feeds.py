"""The inputs of an exported graph, made from the data nbayes itself predicts on."""

from __future__ import annotations

from typing import Any

import numpy as np


def onnx_feeds(graph: Any, X: Any) -> dict[str, np.ndarray]:
    """``{input name: array}`` for an exported ``graph`` (:class:`onnx.ModelProto`) from
    X as nbayes's ``predict`` takes it: an array for a graph with the one input ``X``
    (cast to the graph's float type), else a table (pandas or polars DataFrame, or a
    dict of columns) whose columns are looked up by the inputs' names, each an
    (n, 1) array: floats with NaN where missing, or strings with "" where missing.

    Example
    -------
    >>> import numpy as np
    >>> from nbayes import GaussianNB, to_onnx
    >>> graph = to_onnx(GaussianNB().fit([[0.0], [1.0]], [0, 1]))
    >>> onnx_feeds(graph, np.array([[0.5]]))["X"].dtype
    dtype('float64')
    """
    from onnx import TensorProto, helper

    feeds = {}
    for given in graph.graph.input:
        elem = given.type.tensor_type.elem_type
        if given.name == "X" and len(graph.graph.input) == 1:  # the whole array
            rows = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=object)
            if elem == TensorProto.STRING:
                feeds["X"] = np.vectorize(_as_text, otypes=[object])(rows)
            else:
                dtype = helper.tensor_dtype_to_np_dtype(elem)
                feeds["X"] = np.vectorize(_as_float, otypes=[dtype])(rows)
            continue
        values = _column(X, given.name)
        if elem == TensorProto.STRING:
            feeds[given.name] = np.array([_as_text(v) for v in values], dtype=object)[:, None]
        else:
            dtype = helper.tensor_dtype_to_np_dtype(elem)
            feeds[given.name] = np.array(
                [_as_float(v) for v in values], dtype=dtype
            )[:, None]
    return feeds


def _column(X: Any, name: str) -> list:
    if isinstance(X, dict):
        return list(X[name])
    if hasattr(X, "iloc"):  # pandas: columns may be named by non-strings
        for key in X.columns:
            if str(key) == name:
                return X[key].tolist()
    return list(X[name])


def _missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, pandas NA
    except (TypeError, ValueError):
        return False


def _as_float(value: Any) -> float:
    return np.nan if _missing(value) else float(value)


def _as_text(value: Any) -> str:
    return "" if _missing(value) else str(value)
