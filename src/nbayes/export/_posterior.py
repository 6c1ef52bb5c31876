"""The posterior as ONNX ops, written once for every exported model: the twin of
:mod:`nbayes.core.posterior`.

``jll = log P(x | y) + prior`` (n, K); rows whose maximum is finite are normalised
as ``exp(jll - max) / sum exp(jll - max)``; a degenerate row (see
:mod:`nbayes.core.posterior`) takes the class prior when every class is ``-inf``, or
splits its mass evenly between its ``+inf`` classes. The label is the ``argmax`` of
the same (repaired) row, the first class on ties, as ``numpy.argmax``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp

from nbayes.export._graph import Graph


def write_posterior(
    g: Graph,
    log_likelihood: str,
    jll_prior: NDArray[np.float64],
    log_prior: NDArray[np.float64],
    classes: NDArray,
    temperature: float = 1.0,
    calibrate: Callable[[Graph, str], str] | None = None,
) -> None:
    """Outputs ``label`` (n,) and ``probabilities`` (n, K) of ``log_likelihood`` (n, K).

    ``jll_prior`` is the prior term added to the log-likelihood (``log P(y)``, or 0
    for a model that leaves it out); ``log_prior`` the prior degenerate rows get;
    ``classes`` the labels in column order (numbers as int64, anything else as
    strings); ``temperature`` divides the joint log-likelihood (a calibration);
    ``calibrate`` maps the probabilities to calibrated ones, whose argmax is then the
    label.
    """
    jll_prior = np.asarray(jll_prior, dtype=np.float64)
    jll = log_likelihood
    if np.any(jll_prior != 0):
        jll = g.add_constant(jll, jll_prior[None, :])
    if temperature != 1.0:
        jll = g.op("Div", jll, g.const(float(temperature)))
    impossible = np.isneginf(np.asarray(log_prior, dtype=np.float64))
    if impossible.any():  # P(y) = 0: P(x, y) = 0 whatever P(x | y)
        jll = g.where(g.const(impossible[None, :]), g.const(-np.inf), jll)
    proba = normalised(g, jll, log_prior)
    repaired, probabilities = proba
    if calibrate is not None:
        probabilities = calibrate(g, probabilities)
        repaired = probabilities
    index = g.op("ArgMax", repaired, axis=1, keepdims=0)
    label_values = _label_values(classes)
    if label_values.dtype == object or not np.array_equal(label_values, np.arange(len(classes))):
        label = g.op("Gather", g.const(label_values), index, axis=0)
    else:  # the labels are the class indices themselves
        label = index
    kind = "string" if label_values.dtype == object else "int64"
    g.output("label", label, kind, [None])
    g.output("probabilities", probabilities, "float", [None, len(classes)])


def normalised(g: Graph, jll: str, log_prior: NDArray[np.float64]) -> tuple[str, str]:
    """``(shifted jll, P(y | x))``, both (n, K). ``+inf`` is first lowered to the
    largest float, so that a row's ``+inf`` classes tie at its maximum and share its
    mass (every other class is ``-inf`` below it, or finite and so far below that its
    exponential is 0); then ``jll - max`` row by row, which is NaN only in a row of
    ``-inf`` (``-inf - -inf``), given the normalised log prior instead; then ``exp``
    over its sum."""
    with np.errstate(divide="ignore", invalid="ignore"):
        prior = np.asarray(log_prior, dtype=np.float64)
        prior = prior - logsumexp(prior)
    jll = g.op("Min", jll, g.const(np.finfo(g.dtype).max))
    row_max = g.reduce("ReduceMax", jll, axis=1, keepdims=True)
    shifted = g.op("Sub", jll, row_max)
    shifted = g.where(g.op("IsNaN", shifted), g.const(prior[None, :]), shifted)
    exponentials = g.op("Exp", shifted)
    total = g.reduce("ReduceSum", exponentials, axis=1, keepdims=True)
    return shifted, g.op("Div", exponentials, total)


def _label_values(classes: NDArray) -> NDArray:
    """The labels as a graph constant: integers (and booleans) as int64, anything
    else as strings."""
    classes = np.asarray(classes)
    if classes.dtype.kind in "iub":
        return classes.astype(np.int64)
    if classes.dtype.kind == "f" and np.all(classes == np.round(classes)):
        return classes.astype(np.int64)
    return np.array([str(c) for c in classes], dtype=object)
