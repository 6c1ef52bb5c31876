"""Which graph a fitted model becomes: an estimator is its inputs, its event model's
log-likelihood and the posterior (written once, :mod:`nbayes.export._posterior`)."""

from __future__ import annotations

from typing import Any

from nbayes.errors import NotSupportedError
from nbayes.export._graph import Graph
from nbayes.export._posterior import write_posterior


def write_model(graph: Graph, model: Any) -> None:
    """Add ``model``'s inputs, scoring and the outputs ``label`` and ``probabilities``
    to ``graph``; :class:`NotSupportedError` for a model that cannot be written."""
    if not (hasattr(model, "scoring") and hasattr(model, "onnx_input")):
        raise NotSupportedError(
            f"{type(model).__name__} cannot be exported to ONNX: only fitted nbayes "
            "estimators (and the composites built from them) can."
        )
    scoring = model.scoring()
    x = model.onnx_input(graph)
    log_likelihood = scoring.event.onnx_log_likelihood(scoring.params, x, graph)
    write_posterior(graph, log_likelihood, scoring.jll_prior, scoring.log_prior, model.classes_)
