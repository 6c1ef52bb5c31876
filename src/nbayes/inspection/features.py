"""What explanations need of a fitted model, asked through the event-model contract
only: feature names, the values of a feature worth showing (the model's value grid),
``log P(x_j = v | y)`` for them, and what a factor ``P(x_j | y)`` is."""

from __future__ import annotations

from collections.abc import Sequence

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
