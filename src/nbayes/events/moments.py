"""Per class and feature weighted moments that skip missing values: the additive
statistics behind the kernel density bandwidth.

They are exactly the Gaussian model's statistics (:class:`nbayes.events.gaussian.
GaussianStats`: per-class ``count``, ``mean``, ``M2`` over the observed entries, the same
over all rows, pooled with Chan's formula), so this module only reads them as
variances. NaN in X marks a missing entry.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes.core.validation import ClassWeights
from nbayes.events import gaussian
from nbayes.events.sums import observed

MomentStats = gaussian.GaussianStats


def summarize(X: NDArray[np.float64], W: ClassWeights) -> MomentStats:
    """Weighted moments of X (n_samples, n_features), NaN = missing."""
    mask, filled = observed(X)
    return gaussian.summarize(filled, W, None if mask.all() else mask)


def variance(stats: MomentStats, ddof: float = 1.0) -> NDArray[np.float64]:
    """``M2_cj / (n_cj - ddof)``, NaN where ``n_cj <= ddof``: (n_classes, n_features)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(stats.count > ddof, stats.m2 / (stats.count - ddof), np.nan)


def total_variance(stats: MomentStats, ddof: float = 1.0) -> NDArray[np.float64]:
    """The same over all rows, shape (n_features,)."""
    count = stats.total_count
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > ddof, stats.total_m2 / (count - ddof), np.nan)
