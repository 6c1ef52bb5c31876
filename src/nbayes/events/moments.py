"""Per class and feature weighted moments ``(count, mean, M2)`` that skip missing
values: the additive statistics of the Gaussian model and of the kernel density
bandwidth, pooled exactly with the pairwise formula of Chan, Golub & LeVeque (1979).

Scaled domain
-------------
Values near 1e300 have squared deviations beyond float64, values near 1e-300 squared
deviations below it. So the moments of feature ``j`` are kept of ``x / 2**s_j``, with
``s_j`` set by the magnitude of the feature's values (:func:`magnitude_exponent` of the
largest ``|x|`` counted): 0 for values within ``2**-400 .. 2**400`` (every ordinary
data set: the moments are then exactly the unscaled ones), else the binary exponent of
the largest ``|x|``, so the scaled values lie within 1. Dividing by a power of two is
exact, and the exponent of several batches is the largest of theirs (the function is
monotone in the magnitude, so the largest of the batches' exponents is the exponent of
their union): moments at a smaller exponent are rescaled to the larger one, exactly,
so ``fit`` == ``partial_fit`` == ``merge`` still hold. A feature whose counted values
are all 0 has exponent :data:`NO_VALUES` (any scale fits it), below every other.

References
----------
Chan, Golub & LeVeque (1979), "Updating formulae and a pairwise algorithm for
computing sample variances", Stanford CS tech report STAN-CS-79-773.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nbayes.core.namespace import errstate, namespace_of
from nbayes.errors import StatisticsError
from nbayes.events._stats import CLASS, FEATURE, Statistics, stat

#: The exponent of a feature with no nonzero value counted: below every other, so the
#: largest exponent of several statistics ignores it; read as scale 0.
NO_VALUES = -4096
#: Magnitudes ``2**LOW_EXPONENT <= |x| < 2**HIGH_EXPONENT`` are ordinary (exponent 0:
#: moments unscaled). Squares of values within them, summed over up to 2**200 rows and
#: weights, stay normal floats.
LOW_EXPONENT, HIGH_EXPONENT = -400, 400
#: The largest ``|exponent|`` a stored exponent may have (beyond float64's range).
MAX_EXPONENT = 1100


def magnitude_exponent(largest: NDArray[np.float64]) -> NDArray[np.int64]:
    """The exponent ``s`` of features whose largest counted ``|x|`` is ``largest``
    (n_features,): :data:`NO_VALUES` for 0, 0 within the ordinary magnitudes, else
    ``e`` with ``largest = m * 2**e``, ``0.5 <= m < 1``. Monotone in ``largest``; a NaN
    or infinite magnitude (input the caller rejects) counts as ordinary."""
    largest = np.asarray(largest, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        _, exponent = np.frexp(np.where(np.isfinite(largest), largest, 1.0))
    exponent = exponent.astype(np.int64)
    exponent[(exponent > LOW_EXPONENT) & (exponent <= HIGH_EXPONENT)] = 0
    exponent[largest == 0] = NO_VALUES
    return exponent


def scale_of(exponent: NDArray[np.int64]) -> NDArray[np.int64]:
    """The power of two the moments are divided by: the exponent, 0 for NO_VALUES."""
    return np.where(exponent == NO_VALUES, 0, exponent)


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
    xp = namespace_of(mean_a, mean_b)
    count = count_a + count_b if xp is not np else np.add(count_a, count_b)
    if xp is np:
        share_b = np.divide(count_b, count, out=np.zeros(np.shape(count)), where=count > 0)
    else:  # arrays of one namespace (statistics on a device)
        nonempty = count > 0
        share_b = xp.where(nonempty, count_b / xp.where(nonempty, count, 1.0), 0.0)
    with errstate(xp, over="ignore", invalid="ignore"):
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
    exponent : int64 ndarray of shape (n_features,)
        The moments of feature ``j`` are those of ``x / 2**scale_of(exponent)[j]``
        (see the module doc; 0 or :data:`NO_VALUES` on ordinary data: unscaled).
    """

    class_count: NDArray[np.float64] = stat(CLASS, nonnegative=True)
    count: NDArray[np.float64] = stat(CLASS, FEATURE, nonnegative=True)
    mean: NDArray[np.float64] = stat(CLASS, FEATURE)
    m2: NDArray[np.float64] = stat(CLASS, FEATURE, nonnegative=True)
    total_count: NDArray[np.float64] = stat(FEATURE, nonnegative=True)
    total_mean: NDArray[np.float64] = stat(FEATURE)
    total_m2: NDArray[np.float64] = stat(FEATURE, nonnegative=True)
    exponent: NDArray[np.int64] = stat(FEATURE)

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
            np.full(n_features, NO_VALUES, dtype=np.int64),
        )

    @property
    def scaled(self) -> bool:
        """Whether some feature's moments are scaled (extreme magnitudes)."""
        exponent = self.exponent
        return bool(((exponent != 0) & (exponent != NO_VALUES)).any())

    def at_exponent(self, exponent: NDArray[np.int64]) -> GaussianStats:
        """These moments rescaled (exactly, by powers of two) to ``exponent``, which is
        at least ``self.exponent`` feature by feature; ``self`` if the scales agree."""
        shift = scale_of(self.exponent) - scale_of(exponent)
        if not shift.any():
            return GaussianStats(*self._moments(), np.asarray(exponent, dtype=np.int64))
        return GaussianStats(
            self.class_count,
            self.count,
            np.ldexp(self.mean, shift),
            np.ldexp(self.m2, 2 * shift),
            self.total_count,
            np.ldexp(self.total_mean, shift),
            np.ldexp(self.total_m2, 2 * shift),
            np.asarray(exponent, dtype=np.int64),
        )

    def rescale_into(self, exponent: NDArray[np.int64]) -> None:
        """:meth:`at_exponent`, written into these statistics' arrays (owned by the
        caller)."""
        shift = scale_of(self.exponent) - scale_of(exponent)
        if shift.any():
            for target in (self.mean, self.total_mean):
                target[...] = np.ldexp(target, shift)
            for target in (self.m2, self.total_m2):
                target[...] = np.ldexp(target, 2 * shift)
        self.exponent[...] = exponent

    def _moments(self) -> tuple:
        return (
            self.class_count,
            self.count,
            self.mean,
            self.m2,
            self.total_count,
            self.total_mean,
            self.total_m2,
        )

    def __add__(self, other: GaussianStats) -> GaussianStats:
        exponent = np.maximum(self.exponent, other.exponent)
        mine, theirs = self.at_exponent(exponent), other.at_exponent(exponent)
        count, mean, m2 = chan_merge(
            mine.count,
            mine.mean,
            mine.m2,
            theirs.count,
            theirs.mean,
            theirs.m2,
        )
        total, total_mean, total_m2 = chan_merge(
            mine.total_count,
            mine.total_mean,
            mine.total_m2,
            theirs.total_count,
            theirs.total_mean,
            theirs.total_m2,
        )
        class_count = self.class_count + other.class_count
        merged = GaussianStats(class_count, count, mean, m2, total, total_mean, total_m2, exponent)
        merged.check_representable()
        return merged

    def _validate_more(self, n_classes: int, n_features: int) -> None:
        if self.exponent.dtype.kind != "i":
            raise StatisticsError("GaussianStats.exponent must be an integer array.")
        # not np.abs: the smallest int64 is its own absolute value
        within = (self.exponent >= -MAX_EXPONENT) & (self.exponent <= MAX_EXPONENT)
        ordinary = (self.exponent == NO_VALUES) | within
        if not ordinary.all():
            raise StatisticsError("GaussianStats.exponent is outside float64's range.")

    def finite_features(self) -> NDArray[np.bool_]:
        """Whether each feature's class and overall means and M2 are all finite,
        shape (n_features,)."""
        xp = namespace_of(self.mean)
        finite = xp.all(xp.isfinite(self.mean), axis=0) & xp.all(xp.isfinite(self.m2), axis=0)
        return finite & xp.isfinite(self.total_mean) & xp.isfinite(self.total_m2)

    def check_representable(self) -> None:
        """Raise ValueError naming the features whose moments overflow float64."""
        finite = self.finite_features()
        if not isinstance(finite, np.ndarray):  # on a device: checked there, worded here
            if bool(namespace_of(finite).all(finite)):
                return
            finite = self.to_numpy().finite_features()
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
            self.exponent[part],
        )


#: The statistics of the kernel density bandwidth are the Gaussian model's.
MomentStats = GaussianStats


def variance(stats: GaussianStats, ddof: float = 1.0) -> NDArray[np.float64]:
    """``M2_cj / (n_cj - ddof)``, NaN where ``n_cj <= ddof``: (n_classes, n_features),
    in the statistics' scaled units (``4**scale_of(exponent)``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(stats.count > ddof, stats.m2 / (stats.count - ddof), np.nan)


def total_variance(stats: GaussianStats, ddof: float = 1.0) -> NDArray[np.float64]:
    """The same over all rows, shape (n_features,), in scaled units."""
    count = stats.total_count
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > ddof, stats.total_m2 / (count - ddof), np.nan)
