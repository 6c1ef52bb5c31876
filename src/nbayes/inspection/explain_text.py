"""Plain-text layout of an :class:`nbayes.inspection.explain.Explanation`, as the course notes
write the computation: a column per class, a line per step."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from nbayes.inspection.explain import Explanation

_NUMBER = "{:>13.4e}"
_LABEL_WIDTH = 34


def _cells(values) -> str:
    return "".join(_NUMBER.format(v) for v in np.asarray(values, dtype=float))


def _line(label: str, values) -> str:
    if len(label) > _LABEL_WIDTH:
        label = label[: _LABEL_WIDTH - 1] + "…"
    return f"{label:<{_LABEL_WIDTH}}{_cells(values)}"


def format_explanation(e: Explanation) -> str:
    """The worked computation of ``e`` as lines of text."""
    symbol = {"density": "p", "weight": "w"}.get(e.factor_kind, "P")
    row = ", ".join(f"{name} = {value}" for name, value in zip(e.features, e.values, strict=True))
    header = "".join(f"{str(c)[:12]:>13}" for c in e.classes)
    lines = [
        f"{e.model}, classes: {', '.join(map(str, e.classes))}",
        f"x: {row}",
        "",
        f"{'':<{_LABEL_WIDTH}}{header}",
        _line("prior P(y)", e.prior),
    ]
    for j, (name, value) in enumerate(zip(e.features, e.values, strict=True)):
        lines.append(_line(f"{symbol}({name}={value} | y)", e.factors[:, j]))
    lines += [
        _line(f"numerator P(y)·Π {symbol}(x_j|y)", e.numerator),
        _line("log numerator", e.log_joint),
        _line("evidence Σ numerators", [e.evidence]),
        _line("posterior P(y | x)", e.posterior),
        f"predicted: {e.predicted}",
    ]
    if e.factor_kind == "weight":
        lines.append("(complement NB: factors are complement weights, the prior is left out)")
    if e.contrast is not None:
        a, b = e.contrast
        lines += [
            "",
            f"log-likelihood ratios, {a} vs {b} (prior + Σ contributions = log-odds):",
            f"  {'prior log-odds':<40}{_signed(e.prior_log_odds)}",
        ]
        for c in e.contributions:
            lines.append(f"  {f'{c.feature} = {c.value}':<40}{_signed(c.log_ratio)}")
        lines.append(f"  {'log-odds':<40}{_signed(e.log_odds)}")
    return "\n".join(lines)


def _signed(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return f"{value!s:>10}"
    return f"{value:>+10.4f}"
