"""Per class and feature weighted moments ``(count, mean, M2)`` that skip missing
values: the additive statistics of the Gaussian model and of the kernel density
bandwidth, pooled exactly with the pairwise formula of Chan, Golub & LeVeque (1979).

References
----------
Chan, Golub & LeVeque (1979), "Updating formulae and a pairwise algorithm for
computing sample variances", Stanford CS tech report STAN-CS-79-773.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nbayes.events._stats import CLASS, FEATURE, Statistics, stat


def chan_merge(
    count_a: NDArray,
    mean_a: NDArray,
    m2_a: NDArray,
    count_b: NDArray,
    mean_b: NDArray,
    m2_b: NDArray,
) -> tuple[NDArray, NDArray, NDArray]:
    """Pool two (count, mean, M2) summaries; counts broadcast against the means.

    ``mean = mean_a + delta N_b / N`` and
    ``M2 = M2_a + M2_b + delta^2 N_a N_b / N`` with ``delta = mean_b - mean_a``.
    """
    count = np.add(count_a, count_b)
    share_b = np.divide(count_b, count, out=np.zeros(np.shape(count)), where=count > 0)
    with np.errstate(over="ignore", invalid="ignore"):
        delta = mean_b - mean_a
        mean = mean_a + delta * share_b
        # delta * (delta * N_a N_b / N): exactly 0 when one side is empty, however
        # large delta is, and no intermediate overflow where the result fits.
        m2 = m2_a + m2_b + delta * (delta * (count_a * share_b))
    return count, mean, m2


@dataclass(frozen=True)
class GaussianStats(Statistics):
    """Additive statistics of the Gaussian model.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
        Weighted row count per class (the class prior's statistic).
    count, mean, m2 : ndarray of shape (n_classes, n_features)
        Per-class weighted count of observed values, mean and sum of squared
        deviations.
    total_count, total_mean, total_m2 : ndarray of shape (n_features,)
        The same over all rows (each weighted by its total class weight).
    """

    class_count: NDArray[np.float64] = stat(CLASS, nonnegative=True)
    count: NDArray[np.float64] = stat(CLASS, FEATURE, nonnegative=True)
    mean: NDArray[np.float64] = stat(CLASS, FEATURE)
    m2: NDArray[np.float64] = stat(CLASS, FEATURE, nonnegative=True)
    total_count: NDArray[np.float64] = stat(FEATURE, nonnegative=True)
    total_mean: NDArray[np.float64] = stat(FEATURE)
    total_m2: NDArray[np.float64] = stat(FEATURE, nonnegative=True)

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> GaussianStats:
        return cls(
            np.zeros(n_classes),
            np.zeros((n_classes, n_features)),
            np.zeros((n_classes, n_features)),
            np.zeros((n_classes, n_features)),
            np.zeros(n_features),
            np.zeros(n_features),
            np.zeros(n_features),
        )

    def __add__(self, other: GaussianStats) -> GaussianStats:
        count, mean, m2 = chan_merge(
            self.count,
            self.mean,
            self.m2,
            other.count,
            other.mean,
            other.m2,
        )
        total, total_mean, total_m2 = chan_merge(
            self.total_count,
            self.total_mean,
            self.total_m2,
            other.total_count,
            other.total_mean,
            other.total_m2,
        )
        class_count = self.class_count + other.class_count
        merged = GaussianStats(class_count, count, mean, m2, total, total_mean, total_m2)
        merged.check_representable()
        return merged

    def finite_features(self) -> NDArray[np.bool_]:
        """Whether each feature's class and overall means and M2 are all finite,
        shape (n_features,)."""
        finite = np.isfinite(self.mean).all(axis=0) & np.isfinite(self.m2).all(axis=0)
        finite &= np.isfinite(self.total_mean) & np.isfinite(self.total_m2)
        return finite

    def check_representable(self) -> None:
        """Raise ValueError naming the features whose moments overflow float64."""
        finite = self.finite_features()
        if not finite.all():
            raise ValueError(
                f"The variance of feature(s) {np.flatnonzero(~finite).tolist()} cannot be "
                "represented in float64: the values are too far apart (their squared "
                "deviations overflow). Rescale X, e.g. with sklearn.preprocessing.StandardScaler."
            )

    def column(self, j: int) -> GaussianStats:
        """The statistics of feature ``j`` alone."""
        part = slice(j, j + 1)
        return GaussianStats(
            self.class_count,
            self.count[:, part],
            self.mean[:, part],
            self.m2[:, part],
            self.total_count[part],
            self.total_mean[part],
            self.total_m2[part],
        )


#: The statistics of the kernel density bandwidth are the Gaussian model's.
MomentStats = GaussianStats


def variance(stats: GaussianStats, ddof: float = 1.0) -> NDArray[np.float64]:
    """``M2_cj / (n_cj - ddof)``, NaN where ``n_cj <= ddof``: (n_classes, n_features)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(stats.count > ddof, stats.m2 / (stats.count - ddof), np.nan)


def total_variance(stats: GaussianStats, ddof: float = 1.0) -> NDArray[np.float64]:
    """The same over all rows, shape (n_features,)."""
    count = stats.total_count
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > ddof, stats.total_m2 / (count - ddof), np.nan)
