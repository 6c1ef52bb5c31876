"""Weighted histograms on nested dyadic grids: the additive statistics behind the
binned kernel density and the discretisers.

Grid rule (exact, so statistics add, merge and stream)
------------------------------------------------------
Feature ``j`` is binned at width ``delta_j = 2 ** e_j``: bin ``i`` is
``[i delta_j, (i + 1) delta_j)``, so grids of different widths are nested (bin ``i``
at ``e`` lies in bin ``i >> s`` at ``e + s``) and coarsening is exact. ``e_j`` is the
**smallest** integer such that the bins occupied by the data span at most
``max_bins`` bins, and ``|x| / delta_j < 2 ** 53`` (so bin indices are exact).
Adding two grids takes the larger exponent and coarsens further while the union
does not fit. Any e that fits the union fits each part, so the result is the
smallest exponent that fits all the data seen: ``fit`` on all rows, ``partial_fit``
batch by batch in any order and ``merge`` of parts give the same grid, bin for bin.

Per bin we keep the weighted class counts and sums, and the smallest and largest value seen
(``low``/``high``), so cut points can sit between real values. Rows whose total
class weight is 0 are left out, and NaN entries (missing) add nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nbayes.core.validation import ClassWeights
from nbayes.errors import StatisticsError
from nbayes.events._stats import CLASS, FEATURE, Statistics, stat


@dataclass(frozen=True)
class GridStats(Statistics):
    """Additive per-class histograms, one grid per feature.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
    exponent, offset : int64 ndarrays of shape (n_features,)
        Bin ``b`` of feature ``j`` is grid bin ``offset_j + b`` at width ``2**exponent_j``.
    counts : ndarray of shape (n_classes, n_features, max_bins)
        Weighted class counts per bin.
    sums : ndarray of shape (n_classes, n_features, max_bins)
        Weighted sums of the values per class and bin (``sums / counts`` is the
        class's mean value in the bin).
    low, high : ndarrays of shape (n_features, max_bins)
        Smallest and largest value in each bin (``+inf``/``-inf`` where empty).
    """

    class_count: NDArray[np.float64] = stat(CLASS, nonnegative=True)
    exponent: NDArray[np.int64] = stat(FEATURE)
    offset: NDArray[np.int64] = stat(FEATURE)
    counts: NDArray[np.float64] = stat(CLASS, FEATURE, None, nonnegative=True)
    sums: NDArray[np.float64] = stat(CLASS, FEATURE, None)
    low: NDArray[np.float64] = stat(FEATURE, None, finite=False)
    high: NDArray[np.float64] = stat(FEATURE, None, finite=False)

    @classmethod
    def zero(cls, n_classes: int, n_features: int, max_bins: int = 1024) -> GridStats:
        return cls(
            np.zeros(n_classes),
            np.zeros(n_features, np.int64),
            np.zeros(n_features, np.int64),
            np.zeros((n_classes, n_features, max_bins)),
            np.zeros((n_classes, n_features, max_bins)),
            np.full((n_features, max_bins), np.inf),
            np.full((n_features, max_bins), -np.inf),
        )

    @property
    def max_bins(self) -> int:
        return self.counts.shape[2]

    def occupied(self, j: int) -> NDArray[np.bool_]:
        """Which bins of feature ``j`` hold data, shape (max_bins,)."""
        return self.low[j] <= self.high[j]

    def value_range(self, j: int) -> tuple[float, float] | None:
        """Smallest and largest value of feature ``j`` seen, or None."""
        bins = np.flatnonzero(self.occupied(j))
        if bins.size == 0:
            return None
        return float(self.low[j, bins[0]]), float(self.high[j, bins[-1]])

    def edges(self, j: int) -> NDArray[np.float64]:
        """Bin edges of feature ``j``, shape (max_bins + 1,)."""
        index = self.offset[j] + np.arange(self.max_bins + 1)
        return np.ldexp(index.astype(np.float64), int(self.exponent[j]))

    def __add__(self, other: GridStats) -> GridStats:
        if self.max_bins != other.max_bins:
            raise ValueError(f"Cannot add grids of {self.max_bins} and {other.max_bins} bins.")
        out = GridStats.zero(self.counts.shape[0], self.counts.shape[1], self.max_bins)
        for j in range(self.counts.shape[1]):
            ranges = [r for r in (self.value_range(j), other.value_range(j)) if r is not None]
            if not ranges:
                continue
            low = min(r[0] for r in ranges)
            high = max(r[1] for r in ranges)
            start = max(
                int(grid.exponent[j]) for grid in (self, other) if grid.value_range(j) is not None
            )
            exponent = smallest_exponent(low, high, start, self.max_bins)
            out.exponent[j] = exponent
            out.offset[j] = _bin_index(low, exponent)
            for grid in (self, other):
                grid._rebin_into(out, j)
        class_count = self.class_count + other.class_count
        return GridStats(
            class_count, out.exponent, out.offset, out.counts, out.sums, out.low, out.high
        )

    def _rebin_into(self, out: GridStats, j: int) -> None:
        """Add feature ``j``'s bins to ``out``'s (coarser or equal) grid of feature ``j``."""
        bins = np.flatnonzero(self.occupied(j))
        if bins.size == 0:
            return
        shift = int(out.exponent[j] - self.exponent[j])
        target = np.right_shift(self.offset[j] + bins, shift) - out.offset[j]
        np.add.at(out.counts[:, j, :], (slice(None), target), self.counts[:, j, bins])
        np.add.at(out.sums[:, j, :], (slice(None), target), self.sums[:, j, bins])
        np.minimum.at(out.low[j], target, self.low[j, bins])
        np.maximum.at(out.high[j], target, self.high[j, bins])

    def _validate_more(self, n_classes: int, n_features: int) -> None:
        bins = {self.counts.shape[2], self.sums.shape[2], self.low.shape[1], self.high.shape[1]}
        if len(bins) != 1:
            raise StatisticsError(f"GridStats fields disagree on the number of bins: {bins}.")
        if self.exponent.dtype.kind != "i" or self.offset.dtype.kind != "i":
            raise StatisticsError("GridStats.exponent and offset must be integer arrays.")
        if np.any(np.abs(self.exponent) > 1100):
            raise StatisticsError("GridStats.exponent is outside float64's range.")
        if np.any(np.abs(self.offset) > 2**53):
            raise StatisticsError("GridStats.offset is beyond the exact bin indices (2**53).")
        occupied = self.low <= self.high
        if not (np.isfinite(self.low[occupied]).all() and np.isfinite(self.high[occupied]).all()):
            raise StatisticsError("GridStats.low/high of an occupied bin are not finite.")
        if np.any(self.counts.any(axis=0) & ~occupied):
            raise StatisticsError("GridStats counts weight in a bin that holds no value.")
        for j in range(self.offset.shape[0]):
            bins = np.flatnonzero(occupied[j])
            if bins.size == 0:
                continue
            if not (self.low[j, bins] > -np.inf).all():
                raise StatisticsError("GridStats.low of an occupied bin is not finite.")
            index = self.offset[j] + bins
            if not (
                np.array_equal(_bin_index(self.low[j, bins], int(self.exponent[j])), index)
                and np.array_equal(_bin_index(self.high[j, bins], int(self.exponent[j])), index)
            ):
                raise StatisticsError(f"GridStats: values of feature {j} lie outside their bins.")


def _bin_index(x, exponent: int):
    """``floor(x / 2**exponent)``, exact (scaling by a power of two is exact)."""
    return np.floor(np.ldexp(x, -exponent)).astype(np.int64)


def smallest_exponent(low: float, high: float, start: int, max_bins: int) -> int:
    """The smallest ``e >= start`` whose grid spans ``[low, high]`` in at most
    ``max_bins`` bins, with ``|x| / 2**e < 2**53``.

    The span ``floor(high/d) - floor(low/d) + 1`` exceeds ``(high - low) / d``, so no
    ``e <= log2((high - low) / max_bins)`` fits: the search starts there.
    """
    magnitude = max(abs(low), abs(high))
    exponent = max(start, math.frexp(magnitude)[1] - 53)
    if high > low:
        exponent = max(exponent, math.floor(math.log2((high - low) / max_bins)))
    while _bin_index(high, exponent) - _bin_index(low, exponent) + 1 > max_bins:
        exponent += 1
    return int(exponent)


def summarize(X: NDArray[np.float64], W: ClassWeights, max_bins: int = 1024) -> GridStats:
    """The grid statistics of X (n_samples, n_features), NaN = missing, under W."""
    n_features = X.shape[1]
    out = GridStats.zero(W.n_classes, n_features, max_bins)
    active = W.row_totals() > 0
    dense = None if W.labels is not None else np.asarray(W.matrix)
    for j in range(n_features):
        keep = active & ~np.isnan(X[:, j])
        if not keep.any():
            continue
        x = X[keep, j]
        low, high = float(x.min()), float(x.max())
        exponent = smallest_exponent(low, high, -(2**62), max_bins)
        out.exponent[j] = exponent
        out.offset[j] = _bin_index(low, exponent)
        bins = _bin_index(x, exponent) - out.offset[j]
        if W.labels is not None:
            flat = W.labels[keep] * max_bins + bins
            weights = W.values[keep]
            size = W.n_classes * max_bins
            out.counts[:, j, :] = np.bincount(flat, weights, minlength=size).reshape(-1, max_bins)
            out.sums[:, j, :] = np.bincount(flat, weights * x, minlength=size).reshape(-1, max_bins)
        else:
            for c in range(W.n_classes):
                out.counts[c, j, :] = np.bincount(bins, dense[keep, c], minlength=max_bins)
                out.sums[c, j, :] = np.bincount(bins, dense[keep, c] * x, minlength=max_bins)
        np.minimum.at(out.low[j], bins, x)
        np.maximum.at(out.high[j], bins, x)
    return GridStats(
        W.class_totals(), out.exponent, out.offset, out.counts, out.sums, out.low, out.high
    )
