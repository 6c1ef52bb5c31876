"""Missing values in the likelihood: each row's log-likelihood summed over its
observed features only (the missing ones marginalised)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray


def by_missing_pattern(
    missing: NDArray[np.bool_],
    n_classes: int,
    columns_ll: Callable[[NDArray[np.intp], NDArray[np.bool_]], NDArray[np.float64]],
) -> NDArray[np.float64]:
    """``log P(x | c)`` summed over each row's observed features, (n_samples, n_classes).

    ``missing`` (n_samples, n_features) marks what is left out; ``columns_ll(rows, keep)``
    gives the log-likelihood (len(rows), n_classes) of ``rows`` on the features ``keep``.
    It is called once per pattern of missing features (once in all without any).
    """
    n_samples = missing.shape[0]
    if not missing.any():
        return columns_ll(np.arange(n_samples), np.ones(missing.shape[1], dtype=bool))
    out = np.zeros((n_samples, n_classes))
    patterns, inverse = np.unique(missing, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(patterns) + 1))
    for p, pattern in enumerate(patterns):
        if pattern.all():
            continue
        rows = order[bounds[p] : bounds[p + 1]]
        out[rows] = columns_ll(rows, ~pattern)
    return out
