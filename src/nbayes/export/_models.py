"""Which graph a fitted model becomes: its inputs, its scores and the posterior
(written once, :mod:`nbayes.export._posterior`).

- an nbayes estimator: its inputs (``onnx_input``) and its event model's
  ``log P(x | y)`` (``onnx_log_likelihood``), from the event-model contract;
- :class:`~nbayes.SemiSupervisedNB`: its final model;
- :class:`~nbayes.CalibratedNB` with a temperature: the wrapped model's joint
  log-likelihood divided by ``T``;
- a scikit-learn Pipeline: its transformers (:mod:`nbayes.export._steps`), then its
  final nbayes model on their output.
"""

from __future__ import annotations

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


def write_model(graph: Graph, model: Any) -> None:
    """Add ``model``'s inputs, scoring and the outputs ``label`` and ``probabilities``
    to ``graph``; :class:`NotSupportedError` for a model that cannot be written."""
    scores = model_scores(graph, model, None)
    write_posterior(graph, scores.log_likelihood, scores.jll_prior, scores.log_prior,
                    scores.classes, scores.temperature)  # fmt: skip


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
        if model.method != "temperature":
            raise NotSupportedError(
                "CalibratedNB(method='isotonic') cannot be exported to ONNX yet: only the "
                "temperature calibration is."
            )
        base = model_scores(graph, model.estimator_, x)
        return Scores(base.log_likelihood, base.jll_prior, base.log_prior, base.classes,
                      base.temperature * float(model.temperature_))  # fmt: skip
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
