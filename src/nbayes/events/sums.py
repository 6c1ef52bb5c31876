"""Statistics shared by the Poisson and exponential event models: per class and
feature, the weighted number of observed values and their weighted sum.

Missing values: the functions here take a block of columns that may hold NaN for a
missing entry. A missing entry adds nothing to the statistics of its column (so
``count`` is per class *and* feature), and :func:`observed` gives the mask that the
models' ``log_likelihood`` uses to leave its term out (marginalised).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nbayes.core.validation import ClassWeights


@dataclass(frozen=True)
class SumStats:
    """Additive statistics ``(N_c, n_cj, S_cj)``.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
        ``N_c = sum_i W[i, c]``, the weighted number of rows of class ``c``.
    count : ndarray of shape (n_classes, n_features)
        ``n_cj = sum_i W[i, c] [x_ij observed]``.
    total : ndarray of shape (n_classes, n_features)
        ``S_cj = sum_i W[i, c] x_ij`` over observed entries.
    """

    class_count: NDArray[np.float64]
    count: NDArray[np.float64]
    total: NDArray[np.float64]

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> SumStats:
        return cls(
            np.zeros(n_classes),
            np.zeros((n_classes, n_features)),
            np.zeros((n_classes, n_features)),
        )

    def __add__(self, other: SumStats) -> SumStats:
        return SumStats(
            self.class_count + other.class_count,
            self.count + other.count,
            self.total + other.total,
        )

    def take_classes(self, index: NDArray[np.intp], n_classes: int) -> SumStats:
        """These statistics with class ``c`` moved to ``index[c]`` of ``n_classes``."""
        out = SumStats.zero(n_classes, self.count.shape[1])
        out.class_count[index] = self.class_count
        out.count[index] = self.count
        out.total[index] = self.total
        return out


def observed(X: NDArray[np.float64]) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """``(mask, filled)``: where X (n_samples, n_features) is not NaN, and X with its
    NaN entries replaced by 0."""
    mask = ~np.isnan(X)
    if mask.all():
        return mask, X
    return mask, np.where(mask, X, 0.0)


def summarize(X: NDArray[np.float64], W: ClassWeights) -> SumStats:
    """``n_cj = W.T @ [X observed]`` and ``S_cj = W.T @ X`` (NaN counted as 0) for X
    of shape (n_samples, n_features)."""
    mask, filled = observed(X)
    return SumStats(
        W.class_totals(),
        W.transpose_dot(mask.astype(np.float64)),
        W.transpose_dot(filled),
    )
