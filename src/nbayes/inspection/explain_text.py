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
#: Characters of a value shown (a text column's value may be a whole message).
_VALUE_WIDTH = 60
#: A text's words listed under its contribution, the most telling first.
_PARTS_SHOWN = 8


def _from_log(log_value: float) -> str:
    """``exp(log_value)`` in the layout of ``_NUMBER``, also where it is below the
    smallest float64 (a long text's likelihood, 1e-2000): the decimal exponent is then
    taken from the logarithm, so the printed product still reads true."""
    if not math.isfinite(log_value) or log_value > -700.0:
        return _NUMBER.format(math.exp(log_value) if log_value < 710.0 else math.inf)
    decimal = log_value / math.log(10.0)
    exponent = math.floor(decimal)
    mantissa = 10.0 ** (decimal - exponent)
    if mantissa >= 9.99995:  # rounds up to 10.0000 at 4 decimals
        mantissa, exponent = 1.0, exponent + 1
    return f"{mantissa:.4f}e{exponent:+03d}".rjust(13)


#: The narrowest column of a class: a number of :data:`_NUMBER`.
_CELL_WIDTH = 13


def _cells(log_values, width: int = _CELL_WIDTH) -> str:
    return "".join(_from_log(v).rjust(width) for v in np.asarray(log_values, dtype=float))


def _line(label: str, log_values, width: int = _CELL_WIDTH) -> str:
    """A step: its label, then ``exp`` of each class's log value, in columns ``width``
    wide."""
    return f"{_shortened(label, _LABEL_WIDTH):<{_LABEL_WIDTH}}{_cells(log_values, width)}"


def _plain_line(label: str, values, width: int = _CELL_WIDTH) -> str:
    """A step whose values are printed as they are (log numerators, the posterior)."""
    cells = "".join(_NUMBER.format(v).rjust(width) for v in np.asarray(values, dtype=float))
    return f"{label:<{_LABEL_WIDTH}}{cells}"


def _shown(value) -> str:
    """A value on one line, shortened to :data:`_VALUE_WIDTH` characters."""
    if isinstance(value, float) and not value.is_integer():
        text = f"{value:.6g}"  # a weight (TF-IDF), not a digit string to read in full
    else:
        text = " ".join(str(value).split()) if isinstance(value, str) else str(value)
    return _shortened(text, _VALUE_WIDTH)


def _shortened(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, an ellipsis ending it where cut."""
    return text if len(text) <= width else text[: width - 1] + "…"


def format_explanation(e: Explanation) -> str:
    """The worked computation of ``e`` as lines of text."""
    symbol = {"density": "p", "weight": "w"}.get(e.factor_kind, "P")
    row = ", ".join(
        f"{name} = {_shown(value)}" for name, value in zip(e.features, e.values, strict=True)
    )
    # a column per class, wide enough for its whole name
    width = max(_CELL_WIDTH, *(len(str(c)) + 2 for c in e.classes))
    header = "".join(f"{c!s:>{width}}" for c in e.classes)
    lines = [
        f"{e.model}, classes: {', '.join(map(str, e.classes))}",
        f"x: {row}",
        "",
        f"{'':<{_LABEL_WIDTH}}{header}",
        _line("prior P(y)", e.log_prior, width),
    ]
    for j, (name, value) in enumerate(zip(e.features, e.values, strict=True)):
        lines.append(_line(f"{symbol}({name}={_shown(value)} | y)", e.log_factors[:, j], width))
    if e.folded is not None:
        lines.append(_line(f"{symbol}({e.folded.label} = 0 | y)", e.folded.log_factor, width))
    lines += [
        _line(f"numerator P(y)·Π {symbol}(x_j|y)", e.log_joint, width),
        _plain_line("log numerator", e.log_joint, width),
        _line("evidence Σ numerators", [e.log_evidence], width),
        _plain_line("posterior P(y | x)", e.posterior, width),
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
            label = _shortened(f"{c.feature} = {_shown(c.value)}", 40)
            lines.append(f"  {label:<40}{_signed(c.log_ratio)}")
            parts = e.parts.get(c.feature, [])
            for part in parts[:_PARTS_SHOWN]:  # a text's words, the most telling first
                times = f" ×{part.count:g}" if part.count != 1 else ""
                word = _shown(part.part)[: 36 - len(times)]
                lines.append(f"    {word + times:<38}{_signed(part.log_ratio)}")
            if len(parts) > _PARTS_SHOWN:
                lines.append(f"    (and {len(parts) - _PARTS_SHOWN} more)")
        lines.append(f"  {'log-odds':<40}{_signed(e.log_odds)}")
    if e.left_out:
        kind = {len(e.left_out): "not given", 0: "missing"}.get(
            len(e.not_given), "missing or not given"
        )
        lines += ["", f"left out ({kind}; marginalised, a factor of 1 in every class): "
                  + ", ".join(e.left_out)]  # fmt: skip
    if e.unseen:
        lines += ["", "never seen in training" + _unseen_factor(e) + ": "
                  + ", ".join(f"{name}={value!r}" for name, value in e.unseen.items())]  # fmt: skip
    return "\n".join(lines)


def _unseen_factor(e: Explanation) -> str:
    """What the factor of the unseen values is: 1 where the model leaves them out."""
    columns = [e.features.index(name) for name in e.unseen]
    if np.all(e.log_factors[:, columns] == 0):
        return " (a factor of 1 in every class)"
    return " (the model's factor for an unknown value)"


def _signed(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return f"{value!s:>10}"
    text = f"{value:>+10.4f}"
    return text if text.startswith(" ") else " " + text  # wide: still apart from its label
