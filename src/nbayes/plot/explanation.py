"""Figures that explain a model: one row's feature contributions, and the nomogram."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from nbayes.plot._figure import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from nbayes.inspection.explanation import Explanation

_PROBABILITY_TICKS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999)


def feature_contributions(explanation: Explanation, *, top: int = 20) -> Figure:
    """Bars of one row's log-likelihood-ratio contributions
    ``log P(x_j | a) - log P(x_j | b)`` (from ``model.explain(x)``), largest first,
    under the prior log-odds ``log P(a) / P(b)``; their sum is the log-odds
    ``log P(a | x) / P(b | x)``, given in the title. Infinite contributions (a
    factor of 0) are drawn at the edge and marked ∞."""
    if explanation.contrast is None:
        raise ValueError("The explanation has one class: there are no contributions to draw.")
    a, b = explanation.contrast
    shown = explanation.contributions[:top]
    names = ["prior log-odds"] + [f"{c.feature} = {c.value}" for c in shown]
    values = np.array([explanation.prior_log_odds] + [c.log_ratio for c in shown], dtype=float)
    finite = values[np.isfinite(values)]
    edge = 1.1 * max(float(np.abs(finite).max()) if finite.size else 1.0, 1e-12)
    drawn = np.where(np.isfinite(values), values, np.sign(np.nan_to_num(values)) * edge)
    figure = new_figure(figsize=(7.0, 1.2 + 0.35 * len(names)))
    axes = figure.add_subplot()
    rows = np.arange(len(names))[::-1]
    colours = ["grey"] + ["C2" if v > 0 else "C3" for v in drawn[1:]]
    axes.barh(rows, drawn, color=colours)
    for row, value, position in zip(rows, values, drawn, strict=True):
        text = _signed(value)
        axes.text(position, row, f" {text} ", va="center", ha="left" if position >= 0 else "right")
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_yticks(rows, names)
    axes.set_xlim(-1.35 * edge, 1.35 * edge)
    axes.set_xlabel(f"log P(· | {a}) - log P(· | {b})   (> 0 favours {a})")
    axes.set_title(
        f"{explanation.model}: predicted {explanation.predicted}, "
        f"log-odds {a} vs {b} = {_signed(explanation.log_odds)}"
    )
    figure.tight_layout()
    return figure


def nomogram(
    model,
    target: Any = None,
    *,
    max_features: int = 15,
    feature_names=None,
    values=None,
    labels=None,
) -> Figure:
    """Možina et al.'s (2004) nomogram of a naive Bayes model for class ``target``
    against the rest (see :func:`nbayes.inspection.nomogram.nomogram_data` for the maths and
    the options): one line per feature (the ``max_features`` of widest span, widest
    on top) with a point for each value at its log-odds contribution, and below, the
    scale that turns the prior log-odds plus the points of a row into ``P(target | x)``.
    """
    from nbayes.inspection.nomogram import nomogram_data

    data = nomogram_data(model, target, feature_names=feature_names, values=values, labels=labels)
    rows = data.rows[:max_features]
    figure = new_figure(figsize=(8.0, 1.8 + 0.55 * len(rows)))
    axes, scale = figure.subplots(2, 1, height_ratios=[max(len(rows), 1), 1.2])
    finite = np.concatenate([row.log_odds[np.isfinite(row.log_odds)] for row in rows] or [[0.0]])
    low, high = min(float(finite.min()), 0.0), max(float(finite.max()), 0.0)
    pad = 0.05 * (high - low or 1.0)
    for i, row in enumerate(rows):
        y = len(rows) - 1 - i
        points = np.clip(row.log_odds, low - pad, high + pad)  # ±inf drawn at the edge
        order = np.argsort(points, kind="stable")
        axes.plot(points[order], np.full(len(points), y), "-", color="lightgrey", zorder=1)
        axes.scatter(points, np.full(len(points), y), s=18, color="C0", zorder=2)
        for k, (x, label) in enumerate(zip(points, row.labels, strict=True)):
            infinite = "" if math.isfinite(row.log_odds[k]) else " (∞)"
            axes.annotate(
                label + infinite,
                (x, y),
                xytext=(0, 6 + 8 * (k % 2)),
                textcoords="offset points",
                ha="center",
                fontsize=7,
            )
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_yticks(range(len(rows)), [row.feature for row in rows][::-1])
    axes.set_ylim(-0.6, len(rows) - 0.2)
    axes.set_xlim(low - 2 * pad, high + 2 * pad)
    axes.set_xlabel(f"log-odds contribution: log P(x_j | {data.target}) / P(x_j | rest)")
    rest = ", ".join(map(str, data.rest))
    axes.set_title(f"Nomogram: {data.target} vs {rest}", fontsize=10)
    _probability_scale(scale, data, rows)
    figure.tight_layout()
    return figure


def _probability_scale(axes, data, rows) -> None:
    """The total log-odds (prior + points) axis with the probabilities
    ``P(target | x) = 1 / (1 + exp(-total))`` marked on it, from 0.001 to 0.999."""
    top = _PROBABILITY_TICKS[-1]
    edge = math.log(top / (1 - top)) + 0.5
    lowest, highest = min(-edge, data.prior_log_odds - 1), max(edge, data.prior_log_odds + 1)
    axes.axhline(0, color="black", linewidth=0.8)
    for p in _PROBABILITY_TICKS:
        x = math.log(p / (1 - p))
        if lowest <= x <= highest:
            axes.plot([x, x], [-0.15, 0.15], color="black", linewidth=0.8)
            axes.annotate(
                f"{p:g}",
                (x, 0.15),
                xytext=(0, 2),
                textcoords="offset points",
                ha="center",
                fontsize=7,
            )
    axes.plot([data.prior_log_odds], [0], "v", color="C3")
    axes.annotate(
        "prior",
        (data.prior_log_odds, 0),
        xytext=(0, -12),
        textcoords="offset points",
        ha="center",
        fontsize=7,
        color="C3",
    )
    axes.set_xlim(lowest, highest)
    axes.set_ylim(-0.6, 0.8)
    axes.set_yticks([])
    axes.set_xlabel(f"prior log-odds + Σ points  →  P({data.target} | x) marked above")


def _signed(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "+∞" if value > 0 else "-∞"
    return f"{value:+.3f}"
