"""Per class and feature weighted moments that skip missing values: the additive
statistics behind the kernel density bandwidth (and usable by a Gaussian column
block with missing entries).

For X (n_samples, n_features) with NaN marking a missing entry and class weights
``W``: ``n_cj = sum_i W_ic [x_ij observed]``, the weighted mean ``mean_cj`` and sum
of squared deviations ``M2_cj`` over the observed entries, plus the same three over
all rows (each weighted by its total class weight). Pooled exactly with Chan's
formula (:func:`nbayes.events.gaussian.chan_merge`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nbayes._validate import ClassWeights
from nbayes.events.gaussian import chan_merge
from nbayes.events.sums import observed


@dataclass(frozen=True)
class MomentStats:
    """``class_count`` (n_classes,); ``count``, ``mean``, ``m2`` (n_classes,
    n_features); ``total_count``, ``total_mean``, ``total_m2`` (n_features,)."""

    class_count: NDArray[np.float64]
    count: NDArray[np.float64]
    mean: NDArray[np.float64]
    m2: NDArray[np.float64]
    total_count: NDArray[np.float64]
    total_mean: NDArray[np.float64]
    total_m2: NDArray[np.float64]

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> MomentStats:
        per_class = [np.zeros((n_classes, n_features)) for _ in range(3)]
        return cls(np.zeros(n_classes), *per_class, *[np.zeros(n_features) for _ in range(3)])

    def __add__(self, other: MomentStats) -> MomentStats:
        count, mean, m2 = chan_merge(
            self.count, self.mean, self.m2, other.count, other.mean, other.m2
        )
        total = chan_merge(
            self.total_count,
            self.total_mean,
            self.total_m2,
            other.total_count,
            other.total_mean,
            other.total_m2,
        )
        return MomentStats(self.class_count + other.class_count, count, mean, m2, *total)

    def take_classes(self, index: NDArray[np.intp], n_classes: int) -> MomentStats:
        """These statistics with class ``c`` moved to ``index[c]`` of ``n_classes``."""
        out = MomentStats.zero(n_classes, self.count.shape[1])
        out.class_count[index] = self.class_count
        for name in ("count", "mean", "m2"):
            getattr(out, name)[index] = getattr(self, name)
        return MomentStats(
            out.class_count,
            out.count,
            out.mean,
            out.m2,
            self.total_count.copy(),
            self.total_mean.copy(),
            self.total_m2.copy(),
        )

    def variance(self, ddof: float = 1.0) -> NDArray[np.float64]:
        """``M2_cj / (n_cj - ddof)``, NaN where ``n_cj <= ddof``: (n_classes, n_features)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.count > ddof, self.m2 / (self.count - ddof), np.nan)

    def total_variance(self, ddof: float = 1.0) -> NDArray[np.float64]:
        """The same over all rows, shape (n_features,)."""
        count = self.total_count
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > ddof, self.total_m2 / (count - ddof), np.nan)


def summarize(X: NDArray[np.float64], W: ClassWeights) -> MomentStats:
    """Two-pass weighted moments of X (n_samples, n_features), NaN = missing."""
    mask, filled = observed(X)
    present = mask.astype(np.float64)
    count = W.transpose_dot(present)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(count > 0, W.transpose_dot(filled) / count, 0.0)
    if W.labels is not None:
        deviation = np.where(mask, filled - mean[W.labels], 0.0)
        m2 = W.transpose_dot(deviation * deviation)
    else:
        m2 = np.empty_like(mean)
        for c in range(mean.shape[0]):
            deviation = np.where(mask, filled - mean[c], 0.0)
            m2[c] = W.matrix[:, c] @ (deviation * deviation)
    rows = W.row_totals()
    total_count = rows @ present
    with np.errstate(divide="ignore", invalid="ignore"):
        total_mean = np.where(total_count > 0, (rows @ filled) / total_count, 0.0)
    deviation = np.where(mask, filled - total_mean, 0.0)
    total_m2 = rows @ (deviation * deviation)
    return MomentStats(W.class_totals(), count, mean, m2, total_count, total_mean, total_m2)
