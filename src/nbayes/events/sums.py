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

from nbayes.core.namespace import errstate, namespace_of
from nbayes.core.validation import ClassWeights
from nbayes.events._stats import CLASS, FEATURE, Statistics, stat


@dataclass(frozen=True)
class SumStats(Statistics):
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

    class_count: NDArray[np.float64] = stat(CLASS, nonnegative=True)
    count: NDArray[np.float64] = stat(CLASS, FEATURE, nonnegative=True)
    total: NDArray[np.float64] = stat(CLASS, FEATURE, nonnegative=True)

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> SumStats:
        return cls(
            np.zeros(n_classes),
            np.zeros((n_classes, n_features)),
            np.zeros((n_classes, n_features)),
        )


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


def observed_array(X):
    """:func:`observed` for X of any array-API namespace, in it: ``(mask, filled)``
    with the mask as X's floating dtype (what the products take)."""
    xp = namespace_of(X)
    missing = xp.isnan(X)
    return xp.astype(~missing, X.dtype), xp.where(missing, xp.zeros_like(X), X)


def summarize_array(X, W) -> SumStats:
    """:func:`summarize` for X (n_samples, n_features) and dense W (n_samples,
    n_classes) of one array-API namespace and device, computed there."""
    xp = namespace_of(X)
    mask, filled = observed_array(X)
    return SumStats(xp.sum(W, axis=0), W.T @ mask, W.T @ filled)


def gamma_map_rates(
    events, exposure, observed_count, alpha: float, beta: float, *, infinite_rates: bool
) -> tuple:
    """``(rate, log_rate)``, each of shape (n_classes, n_features): the Gamma(a, b)-MAP
    rates ``max(e_cj + a - 1, 0) / (t_cj + b)`` from ``events`` e and ``exposure`` t
    (both (n_classes, n_features)), in their array namespace.

    A rate is defined where ``t_cj + b > 0`` (and, with ``infinite_rates``, also where
    ``e_cj + a - 1 > 0``: a point mass, rate ``inf``). A class with no observed value of
    a feature (``observed_count <= 0``) whose rate is not defined backs off to the pooled
    rate ``max(sum_c e_cj + a - 1, 0) / (sum_c t_cj + b)``: no evidence about the
    feature, so the population's. Where that is not defined either, the term is left
    out: ``rate = 0``, ``log_rate = 0``.

    >>> import numpy as np
    >>> rate, _ = gamma_map_rates(np.array([[4.0], [0.0]]), np.array([[2.0], [0.0]]),
    ...                           np.array([[2.0], [0.0]]), 1.0, 0.0, infinite_rates=False)
    >>> rate
    array([[2.],
           [2.]])
    """
    xp = namespace_of(events)
    zero = xp.zeros_like(events)

    def defined(numerator, denominator):
        return ((numerator > 0) | (denominator > 0)) if infinite_rates else denominator > 0

    numerator = xp.maximum(events + alpha - 1.0, zero)
    denominator = exposure + beta
    unobserved = (observed_count <= 0) & ~defined(numerator, denominator)
    if bool(xp.any(unobserved)):
        pooled_events = xp.sum(events, axis=0) + zero  # broadcast to (k, d)
        numerator = xp.where(unobserved, xp.maximum(pooled_events + alpha - 1.0, zero),
                             numerator)  # fmt: skip
        denominator = xp.where(unobserved, xp.sum(exposure, axis=0) + beta + zero,
                               denominator)  # fmt: skip
    rated = defined(numerator, denominator)
    with errstate(xp, divide="ignore", invalid="ignore"):
        rate = xp.where(rated, numerator / denominator, zero)
        log_rate = xp.where(rated, xp.log(rate), zero)
    return rate, log_rate


def mixture_quantiles(
    cdf, probabilities: NDArray[np.float64], low: float, high: float
) -> NDArray[np.float64]:
    """The quantiles of a distribution on ``[low, high]`` with increasing ``cdf``
    (vectorised over x), by bisection to float precision: shape (len(probabilities),)."""
    lo = np.full(len(probabilities), float(low))
    hi = np.full(len(probabilities), float(high))
    for _ in range(80):
        middle = 0.5 * (lo + hi)
        below = cdf(middle) < probabilities
        lo, hi = np.where(below, middle, lo), np.where(below, hi, middle)
    return 0.5 * (lo + hi)


#: The probabilities at which a continuous feature's value grid is taken.
GRID_PROBABILITIES = np.array([0.05, 0.25, 0.5, 0.75, 0.95])
