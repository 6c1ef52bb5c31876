"""Which graph a fitted model becomes: its inputs, its scores and the posterior
(written once, :mod:`nbayes.export._posterior`).

- an nbayes estimator: its inputs (``onnx_input``) and its event model's
  ``log P(x | y)`` (``onnx_log_likelihood``), from the event-model contract;
- :class:`~nbayes.SemiSupervisedNB`: its final model;
- :class:`~nbayes.CalibratedNB`: the wrapped model's joint log-likelihood divided by
  ``T``, or its posterior mapped by the isotonic calibrators;
- a scikit-learn Pipeline: its transformers (:mod:`nbayes.export._steps`), then its
  final nbayes model on their output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nbayes.errors import NotSupportedError
from nbayes.export._graph import Graph
from nbayes.export._posterior import write_posterior


@dataclass(frozen=True)
class Scores:
    """A model's scores in the graph: ``log P(x | y)`` (a tensor (n, k)), the prior
    term added to it, ``log P(y)`` for degenerate rows, the classes, and the
    temperature the joint log-likelihood is divided by."""

    log_likelihood: str
    jll_prior: NDArray[np.float64]
    log_prior: NDArray[np.float64]
    classes: NDArray
    temperature: float = 1.0
    calibrate: Callable[[Graph, str], str] | None = None


def write_model(graph: Graph, model: Any) -> None:
    """Add ``model``'s inputs, scoring and the outputs ``label`` and ``probabilities``
    to ``graph``; :class:`NotSupportedError` for a model that cannot be written."""
    scores = model_scores(graph, model, None)
    write_posterior(graph, scores.log_likelihood, scores.jll_prior, scores.log_prior,
                    scores.classes, scores.temperature, scores.calibrate)  # fmt: skip


def model_scores(graph: Graph, model: Any, x: str | None) -> Scores:
    """The :class:`Scores` of fitted ``model`` on input ``x`` (None: its own graph
    inputs)."""
    if hasattr(model, "scoring") and hasattr(model, "onnx_input"):  # an nbayes estimator
        scoring = model.scoring()
        inputs = model.onnx_input(graph, x)
        log_likelihood = scoring.event.onnx_log_likelihood(scoring.params, inputs, graph)
        return Scores(log_likelihood, scoring.jll_prior, scoring.log_prior, model.classes_)
    from nbayes.core.registry import savable_name

    name = savable_name(type(model))
    if name == "SemiSupervisedNB":
        return model_scores(graph, model.estimator_, x)
    if name == "CalibratedNB":
        base = model_scores(graph, model.estimator_, x)
        if base.calibrate is not None:
            raise NotSupportedError("a CalibratedNB of a calibrated model cannot be exported.")
        if model.method == "temperature":
            return Scores(base.log_likelihood, base.jll_prior, base.log_prior, base.classes,
                          base.temperature * float(model.temperature_))  # fmt: skip
        calibrators = list(model.calibrators_)
        return Scores(base.log_likelihood, base.jll_prior, base.log_prior, base.classes,
                      base.temperature, lambda g, p: isotonic(g, p, calibrators))  # fmt: skip
    if name == "sklearn.Pipeline":
        from nbayes.export._steps import write_step

        steps = [step for _, step in model.steps if step not in (None, "passthrough")]
        for step in steps[:-1]:
            x = write_step(graph, step, x)
        return model_scores(graph, steps[-1], x)
    raise NotSupportedError(
        f"{type(model).__name__} cannot be exported to ONNX: only fitted nbayes estimators, "
        "SemiSupervisedNB, CalibratedNB and scikit-learn Pipelines of them can."
    )


def isotonic(graph: Graph, probabilities: str, calibrators: list) -> str:
    """:func:`nbayes.meta.calibration._apply_isotonic` as ONNX ops: each class's
    probability mapped by its IsotonicRegression (``np.interp`` over its thresholds,
    clipped at both ends); for two classes the second's map gives ``(1 - q, q)``, for
    more the maps are renormalised (uniform where they sum to 0)."""
    n_classes = len(calibrators) if len(calibrators) > 1 else 2

    def column(c: int) -> str:
        return graph.op("Slice", probabilities, graph.const([c]), graph.const([c + 1]),
                        graph.const([1]))  # fmt: skip

    if n_classes == 2 and len(calibrators) == 1:
        positive = _interpolate(graph, column(1), calibrators[0])
        return graph.op("Concat", graph.op("Sub", graph.const(1.0), positive), positive, axis=1)
    mapped = graph.op("Concat", *(_interpolate(graph, column(c), calibrator)
                                  for c, calibrator in enumerate(calibrators)), axis=1)  # fmt: skip
    total = graph.reduce("ReduceSum", mapped, axis=1, keepdims=True)
    positive = graph.op("Greater", total, graph.const(0.0))
    safe = graph.where(positive, total, graph.const(1.0))
    uniform = graph.const(np.full((1, len(calibrators)), 1.0 / len(calibrators)))
    return graph.where(positive, graph.op("Div", mapped, safe), uniform)


def _interpolate(graph: Graph, x: str, calibrator: Any) -> str:
    """``np.interp(x, X_thresholds_, y_thresholds_)`` for a column ``x`` (n, 1): the
    segment found by counting the inner thresholds at or below x, then
    ``slope * (x - x_j) + y_j`` (numpy's formula), x clipped to the thresholds."""
    xs = np.asarray(calibrator.X_thresholds_, dtype=np.float64)
    ys = np.asarray(calibrator.y_thresholds_, dtype=np.float64)
    if xs.size == 1:
        return graph.op("Add", graph.op("Mul", x, graph.const(0.0)), graph.const(float(ys[0])))
    clipped = graph.op("Clip", x, graph.const(float(xs[0])), graph.const(float(xs[-1])))
    segment = graph.reduce("ReduceSum", graph.op("Cast", graph.op(
        "GreaterOrEqual", clipped, graph.const(xs[None, 1:-1])), to=graph.int64_type),
        axis=1, keepdims=True)  # fmt: skip
    with np.errstate(divide="ignore", invalid="ignore"):
        slopes = np.where(np.diff(xs) > 0, np.diff(ys) / np.diff(xs), 0.0)
    start = graph.op("Gather", graph.const(xs[:-1]), segment, axis=0)
    value = graph.op("Gather", graph.const(ys[:-1]), segment, axis=0)
    slope = graph.op("Gather", graph.const(slopes), segment, axis=0)
    inner = graph.op("Add", graph.op("Mul", slope, graph.op("Sub", clipped, start)), value)
    at_end = graph.op("Equal", clipped, graph.const(float(xs[-1])))
    return graph.where(at_end, graph.const(float(ys[-1])), inner)
