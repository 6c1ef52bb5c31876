"""What explanations need of a fitted model, asked through the event-model contract
only: feature names, the values of a feature worth showing (the model's value grid),
``log P(x_j = v | y)`` for them, the probability of intervals of a continuous feature
(:func:`interval_log_probabilities`), and what a factor ``P(x_j | y)`` is."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

#: Factor kinds whose numbers are densities.
DENSITY = "density"


def feature_names(model, names: Sequence[str] | None = None) -> list[str]:
    """``names``, else the model's ``feature_names_in_``, else ``x0, x1, ...``."""
    if names is None:
        names = getattr(model, "feature_names_in_", None)
    if names is None:
        return [f"x{j}" for j in range(model.n_features_in_)]
    names = [str(name) for name in names]
    if len(names) != model.n_features_in_:
        raise ValueError(f"{len(names)} feature names for {model.n_features_in_} features.")
    return names


def value_grids(model) -> list[list]:
    """Each feature's values worth showing (model input values), from its event model:
    every category of a discrete feature, representative values of a continuous one."""
    return [model.value_grid(j) for j in range(model.n_features_in_)]


def value_log_likelihoods(model, grids: list[list]) -> list[NDArray[np.float64]]:
    """``log P(x_j = v | y)`` for each feature's values: (n_values_j, n_classes) each."""
    return [model.feature_log_likelihood(j, values) for j, values in enumerate(grids)]


def factor_kind(model) -> str:
    """What the factors ``P(x_j | y)`` of ``model`` are: one kind, or, for a table whose
    columns hold probabilities and densities, "probability or density"."""
    kinds = set(model.factor_kinds())
    if len(kinds) == 1:
        return kinds.pop()
    if kinds <= {"probability", DENSITY}:
        return "probability or density"
    return " or ".join(sorted(kinds))


#: Rows drawn from each class's ``P(x | y)`` to estimate the probability of an interval.
INTERVAL_SAMPLES = 4000


class Intervals(NamedTuple):
    """A continuous feature cut into intervals at its value grid: each interval's
    ``label`` and ``bounds`` (low, high; +-inf for an open end), and
    ``log P(x_j in interval | y)``, (n_intervals, n_classes)."""

    labels: list[str]
    bounds: list[tuple[float, float]]
    log_p: NDArray[np.float64]


def interval_log_probabilities(
    model, grids: list[list], features: Sequence[int], X=None, seed: int = 0
) -> dict[int, Intervals]:
    """The intervals of each of ``features`` (continuous, read as numbers) between
    consecutive values of its grid, and their probability per class.

    A density is not a probability: its ratio between classes at a point can be
    anything (1e38 where one class's variance is small), so a continuous feature is
    ranked by intervals. The grid (quantiles of the class mixture, from the event
    model) cuts the line; with ``X`` (the training data) the outer intervals end at
    the observed minimum and maximum, grid values outside them are dropped, and the
    probabilities are those given the value is in that range. ``P(x_j in I | y)`` is
    estimated from :data:`INTERVAL_SAMPLES` rows drawn from each class (``sample``,
    from every model alike; seeded, so the same model gives the same numbers), with
    half a count added to each interval (Jeffreys), so no ratio is infinite.
    """
    ranges = {}
    for j in features:
        grid = np.unique(np.asarray(grids[j], dtype=float))
        grid = grid[np.isfinite(grid)]
        low, high = -np.inf, np.inf
        if X is not None:
            column = _column(X, j)
            if column.size:
                low, high = float(column.min()), float(column.max())
                grid = grid[(grid > low) & (grid < high)]
        ranges[j] = (low, high, grid)
    counts = {j: [] for j in features}
    for c, label in enumerate(model.classes_):
        drawn, _ = model.sample(INTERVAL_SAMPLES, y=label, random_state=seed + c)
        for j in features:
            low, high, grid = ranges[j]
            column = drawn.iloc[:, j] if hasattr(drawn, "iloc") else drawn[:, j]
            values = np.asarray(column, dtype=float)
            values = values[(values >= low) & (values <= high)]  # NaN dropped too
            index = np.searchsorted(grid, values, side="right")
            counts[j].append(np.bincount(index, minlength=grid.size + 1))
    out = {}
    for j in features:
        low, high, grid = ranges[j]
        edges = [low, *grid.tolist(), high]
        bounds = list(itertools.pairwise(edges))
        table = np.column_stack(counts[j]).astype(float) + 0.5
        log_p = np.log(table) - np.log(table.sum(axis=0, keepdims=True))
        out[j] = Intervals([_interval_label(a, b) for a, b in bounds], bounds, log_p)
    return out


def _interval_label(low: float, high: float) -> str:
    """``"17 to 24.3"``, ``"< 24.3"`` or ``">= 57.2"`` (4 significant digits)."""
    if np.isneginf(low) and np.isposinf(high):
        return "any"
    if np.isneginf(low):
        return f"< {_number(high)}"
    if np.isposinf(high):
        return f">= {_number(low)}"
    return f"{_number(low)} to {_number(high)}"


def _number(value: float) -> str:
    """4 significant digits, without an exponent in everyday magnitudes (13230, not
    1.323e+04)."""
    if value != 0 and not 1e-4 <= abs(value) < 1e12:
        return f"{value:.4g}"
    return np.format_float_positional(value, precision=4, unique=False, fractional=False, trim="-")


def _column(X, j: int) -> NDArray[np.float64]:
    """The finite values of column ``j`` of X (an array or a DataFrame) as floats."""
    column = X.iloc[:, j] if hasattr(X, "iloc") else np.asarray(X, dtype=object)[:, j]
    values = np.asarray(column, dtype=object)
    numbers = np.array(
        [float(v) if isinstance(v, int | float | np.number) and not isinstance(v, bool) else np.nan
         for v in values], dtype=float,
    )  # fmt: skip
    return numbers[np.isfinite(numbers)]
