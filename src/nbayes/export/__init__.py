"""Export fitted nbayes models to ONNX, to serve them from any ONNX runtime.

:func:`to_onnx` writes one graph per model, derived from the event-model contract:
the estimator names its inputs (:meth:`nbayes.core.base.BaseNB.onnx_input`), its event
model writes ``log P(x | y)`` as ONNX ops (``EventModel.onnx_log_likelihood``), and
:mod:`nbayes.export._posterior` adds the prior, the log-sum-exp normalisation and the
argmax, written once. Every graph has the outputs ``label`` (n,) and
``probabilities`` (n, n_classes), columns in ``classes_`` order.

Requires the ``onnx`` package (``pip install 'nbayes[onnx]'``).

Example
-------
>>> import numpy as np
>>> from nbayes import GaussianNB, to_onnx
>>> X, y = np.array([[0.0], [0.2], [3.0], [3.3]]), np.array([0, 0, 1, 1])
>>> graph = to_onnx(GaussianNB().fit(X, y))
>>> [o.name for o in graph.graph.output]
['label', 'probabilities']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nbayes.errors import NotSupportedError
from nbayes.export._feeds import onnx_feeds
from nbayes.export._graph import DEFAULT_OPSET, MIN_OPSET, Graph

__all__ = ["DEFAULT_OPSET", "Graph", "NotSupportedError", "onnx_feeds", "to_onnx"]


def to_onnx(
    model: Any,
    *,
    dtype: Any = np.float64,
    opset: int | None = None,
    missing_strings: Sequence[str] = ("",),
) -> Any:
    """The fitted ``model`` as an :class:`onnx.ModelProto`.

    Parameters
    ----------
    model : a fitted nbayes estimator
    dtype : np.float64 (default) or np.float32
        The type of the float inputs, parameters and probabilities (a model whose
        inputs are all strings, a text model, computes in float64 and gives float32
        probabilities).
    opset : int, default 18 (20 for rich tokens and posts)
        The ``ai.onnx`` opset to write (13 or later; 20 or later for a text model
        of rich tokens, :class:`~nbayes.text.PostVectorizer`, or token rules only
        the string operators of opset 20 express).
    missing_strings : sequence of str, default ("",)
        The strings a string input holds for a missing value (a value seen in
        training stays that value).

    Raises
    ------
    NotSupportedError
        The model (or a part of it) cannot be written in ONNX operators; the message
        says which part and why.
    ImportError
        The ``onnx`` package is not installed.
    """
    try:
        import onnx  # noqa: F401
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Exporting to ONNX needs the onnx package: pip install 'nbayes[onnx]'."
        ) from error
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}.")
    given = opset is not None
    opset = DEFAULT_OPSET if opset is None else int(opset)
    if opset < MIN_OPSET:
        raise ValueError(f"opset must be {MIN_OPSET} or later, got {opset}.")
    from nbayes.export._models import write_model

    graph = Graph(dtype, opset, missing_strings, opset_given=given)
    write_model(graph, model)
    if dtype == np.float32 and graph.takes_strings_only():
        # nothing is read as float32: the sums over a vocabulary's columns run in
        # float64 (in float32 they moved 20 Newsgroups' posteriors by 3e-5), and only
        # the probabilities are float32
        graph = Graph(np.float64, opset, missing_strings, opset_given=given,
                      output_dtype=np.float32)  # fmt: skip
        write_model(graph, model)
    return graph.model()

