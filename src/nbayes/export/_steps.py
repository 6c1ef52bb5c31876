"""The transformers a scikit-learn Pipeline may hold before an nbayes model, each
written as ONNX ops: text vectorizers (documents -> counts), nbayes's
:class:`~nbayes.text.RennieTransformer` and scikit-learn's allow-listed scalers and
normalisers. Keyed by the name the model-file registry stores the class under
(:mod:`nbayes.core.registry`), so the allow-list is the registry's; a transformer
not here is refused with :class:`NotSupportedError`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from nbayes.core.registry import savable_name
from nbayes.errors import NotSupportedError
from nbayes.export._graph import Graph
from nbayes.export.text import vectorizer_analyzer, write_counts


def write_step(graph: Graph, step: Any, x: str | None) -> str:
    """The output of the fitted transformer ``step`` for its input ``x`` (None: the
    pipeline's first step, which makes the graph input)."""
    name = savable_name(type(step))
    writer = STEPS.get(name) if name else None
    if writer is None:
        raise NotSupportedError(
            f"A pipeline step {type(step).__name__} cannot be exported to ONNX; exportable "
            f"steps: {', '.join(sorted(STEPS))}."
        )
    if x is None and name not in TAKES_DOCUMENTS:
        x = graph.input("X", "float", (None, int(step.n_features_in_)))
    return writer(graph, step, x)


def _counts(graph: Graph, vectorizer: Any, x: str | None) -> str:
    if x is not None:
        raise NotSupportedError("a text vectorizer must be a pipeline's first step to export.")
    documents = graph.input("X", "string", (None,))
    return write_counts(graph, documents, vectorizer_analyzer(vectorizer))


def _posts(graph: Graph, vectorizer: Any, x: str | None) -> str:
    from nbayes.export._posts import write_posts

    return write_posts(graph, vectorizer, x)


def normalize_rows(graph: Graph, x: str, norm: str | None) -> str:
    """Rows of ``x`` divided by their ``norm`` ("l2", "l1" or None), a zero row kept
    (as :func:`sklearn.preprocessing.normalize`)."""
    if norm is None:
        return x
    if norm == "l2":
        size = graph.op("Sqrt", graph.reduce("ReduceSum", graph.op("Mul", x, x), 1, True))
    elif norm == "l1":
        size = graph.reduce("ReduceSum", graph.op("Abs", x), 1, True)
    else:  # "max"
        size = graph.reduce("ReduceMax", graph.op("Abs", x), 1, True)
    zero = graph.op("Equal", size, graph.const(0.0))
    return graph.op("Div", x, graph.where(zero, graph.const(1.0), size))


def _rennie(graph: Graph, step: Any, x: str) -> str:
    if step.tf == "log":
        x = graph.op("Log", graph.op("Add", x, graph.const(1.0)))
    if step.idf:
        x = graph.op("Mul", x, graph.const(np.asarray(step.idf_)[None, :]))
    return normalize_rows(graph, x, step.norm)


def _tfidf(graph: Graph, step: Any, x: str) -> str:
    if step.sublinear_tf:  # 1 + log(x) where x > 0
        positive = graph.op("Greater", x, graph.const(0.0))
        logged = graph.op("Add", graph.op("Log", graph.where(positive, x, graph.const(1.0))),
                          graph.const(1.0))  # fmt: skip
        x = graph.where(positive, logged, x)
    if step.use_idf:
        x = graph.op("Mul", x, graph.const(np.asarray(step.idf_)[None, :]))
    return normalize_rows(graph, x, step.norm)


def _standard(graph: Graph, step: Any, x: str) -> str:
    if step.with_mean:
        x = graph.op("Sub", x, graph.const(np.asarray(step.mean_)[None, :]))
    if step.with_std:
        x = graph.op("Div", x, graph.const(np.asarray(step.scale_)[None, :]))
    return x


def _min_max(graph: Graph, step: Any, x: str) -> str:
    x = graph.op("Add", graph.op("Mul", x, graph.const(np.asarray(step.scale_)[None, :])),
                 graph.const(np.asarray(step.min_)[None, :]))  # fmt: skip
    if step.clip:
        low, high = step.feature_range
        x = graph.op("Clip", x, graph.const(float(low)), graph.const(float(high)))
    return x


def _max_abs(graph: Graph, step: Any, x: str) -> str:
    return graph.op("Div", x, graph.const(np.asarray(step.scale_)[None, :]))


def _binarizer(graph: Graph, step: Any, x: str) -> str:
    above = graph.op("Greater", x, graph.const(float(step.threshold)))
    return graph.op("Cast", above, to=graph.float_type)


def _normalizer(graph: Graph, step: Any, x: str) -> str:
    return normalize_rows(graph, x, step.norm)


#: Registry name -> writer ``(graph, fitted step, input) -> output``.
STEPS: dict[str, Callable[[Graph, Any, Any], str]] = {
    "CountVectorizer": _counts,
    "PostVectorizer": _posts,
    "sklearn.CountVectorizer": _counts,
    "RennieTransformer": _rennie,
    "sklearn.TfidfTransformer": _tfidf,
    "sklearn.StandardScaler": _standard,
    "sklearn.MinMaxScaler": _min_max,
    "sklearn.MaxAbsScaler": _max_abs,
    "sklearn.Binarizer": _binarizer,
    "sklearn.Normalizer": _normalizer,
}
#: The steps that read documents: the pipeline's input is then a string tensor (n,).
TAKES_DOCUMENTS = frozenset({"CountVectorizer", "sklearn.CountVectorizer", "PostVectorizer"})
