"""What an explanation is: the worked computation of the posterior of one row
(:class:`Explanation`, which :func:`nbayes.inspection.explain.explain` computes), and its
layouts: a JSON-friendly dict, and plain text as the course notes write the computation,
a column per class, a line per step."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray


class Contribution(NamedTuple):
    """One feature's log-likelihood ratio ``log P(x_j | a) - log P(x_j | b)``."""

    feature: str
    value: Any
    log_ratio: float


class Folded(NamedTuple):
    """The features of a wide row at 0 (absent words), folded into one factor: how
    many, and the sum of their log factors, (n_classes,)."""

    n_features: int
    log_factor: NDArray[np.float64]

    @property
    def label(self) -> str:
        return f"{self.n_features:,} others"


class Part(NamedTuple):
    """One part of a factor that is a sum (a token of a text column): how often it
    occurs, its log terms per class, and its log ratio between the contrasted classes
    (None without two classes)."""

    part: str
    count: float
    log_terms: NDArray[np.float64]
    log_ratio: float | None


@dataclass(frozen=True)
class Explanation:
    """The worked computation of the posterior of one row.

    Arrays follow ``classes``: ``log_prior`` (n_classes,), ``log_factors``
    (n_classes, n_features), ``log_joint`` and ``posterior`` (n_classes,).
    """

    model: str
    classes: list
    features: list[str]
    values: list
    log_prior: NDArray[np.float64]
    log_factors: NDArray[np.float64]
    log_joint: NDArray[np.float64]
    log_evidence: float
    posterior: NDArray[np.float64]
    predicted: Any
    contrast: tuple[Any, Any] | None
    prior_log_odds: float | None
    contributions: list[Contribution]
    factor_kind: str  # "probability", "density" or "weight"
    #: The parts of the factors that are sums, by feature name (a text column's tokens),
    #: the most telling first.
    parts: dict[str, list[Part]] = field(default_factory=dict)
    #: Features the row has no value for (missing, or not given), in feature order:
    #: marginalised, a factor of 1 in every class.
    left_out: list[str] = field(default_factory=list)
    #: Those of ``left_out`` the row did not name at all (a mapping without them).
    not_given: list[str] = field(default_factory=list)
    #: Feature -> value, for values training never gave the model (an unknown
    #: category): their factor is the model's rule for the unknown.
    unseen: dict[str, Any] = field(default_factory=dict)
    #: The features at 0 not listed (a wide row's absent words), or None: the prior,
    #: the listed factors and this one make the numerator.
    folded: Folded | None = None

    @property
    def prior(self) -> NDArray[np.float64]:
        """``P(y)``, shape (n_classes,)."""
        return np.exp(self.log_prior)

    @property
    def factors(self) -> NDArray[np.float64]:
        """``P(x_j | y)``, shape (n_classes, n_features)."""
        return np.exp(self.log_factors)

    @property
    def numerator(self) -> NDArray[np.float64]:
        """``P(y) prod_j P(x_j | y)``, shape (n_classes,)."""
        return np.exp(self.log_joint)

    @property
    def evidence(self) -> float:
        """``sum_y P(y) prod_j P(x_j | y)``."""
        return math.exp(self.log_evidence)

    @property
    def log_odds(self) -> float | None:
        """``log P(a | x) - log P(b | x)`` for the contrasted classes ``(a, b)``."""
        if self.contrast is None:
            return None
        a, b = (self.classes.index(label) for label in self.contrast)
        if np.isneginf(self.log_joint[a]) and np.isneginf(self.log_joint[b]):
            # no class can have made x (a value no class was seen with, alpha=0): the
            # model's posterior then falls back as predict_proba says; its log-odds
            with np.errstate(divide="ignore"):
                return float(np.log(self.posterior[a]) - np.log(self.posterior[b]))
        return float(self.log_joint[a] - self.log_joint[b])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict; non-finite numbers become "inf", "-inf", "nan"."""
        rows = {
            "prior": self.prior,
            "log_prior": self.log_prior,
            "numerator": self.numerator,
            "log_numerator": self.log_joint,
            "posterior": self.posterior,
        }
        return {
            "model": self.model,
            "classes": [_plain(c) for c in self.classes],
            "features": [
                {
                    "feature": name,
                    "value": _plain(value),
                    "factor": _numbers(self.factors[:, j]),
                    "log_factor": _numbers(self.log_factors[:, j]),
                }
                for j, (name, value) in enumerate(zip(self.features, self.values, strict=True))
            ],
            "factor_kind": self.factor_kind,
            **{key: _numbers(value) for key, value in rows.items()},
            "evidence": _number(self.evidence),
            "log_evidence": _number(self.log_evidence),
            "predicted": _plain(self.predicted),
            "contrast": None if self.contrast is None else [_plain(c) for c in self.contrast],
            "prior_log_odds": _number(self.prior_log_odds),
            "log_odds": _number(self.log_odds),
            "contributions": [
                {"feature": c.feature, "value": _plain(c.value), "log_ratio": _number(c.log_ratio)}
                for c in self.contributions
            ],
            "parts": {
                name: [
                    {
                        "part": part.part,
                        "count": _number(part.count),
                        "log_terms": _numbers(part.log_terms),
                        "log_ratio": _number(part.log_ratio),
                    }
                    for part in parts
                ]
                for name, parts in self.parts.items()
            },
            "folded": None
            if self.folded is None
            else {
                "features": self.folded.n_features,
                "factor": _numbers(np.exp(self.folded.log_factor)),
                "log_factor": _numbers(self.folded.log_factor),
            },
            "left_out": list(self.left_out),
            "unseen": {name: _plain(value) for name, value in self.unseen.items()},
        }

    def to_text(self) -> str:
        """The computation laid out as the course notes do, one line per step."""
        return format_explanation(self)

    def __str__(self) -> str:
        return self.to_text()


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


def _plain(value: Any) -> Any:
    """A JSON-friendly Python scalar."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return _number(value)
    return value


def _number(value: float | None) -> float | str | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else str(value)


def _numbers(values) -> list:
    return [_number(v) for v in np.asarray(values, dtype=float).ravel()]
