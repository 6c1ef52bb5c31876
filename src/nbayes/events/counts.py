"""Statistics shared by the count-based event models (multinomial, Bernoulli,
complement): per-class weighted counts and per-class feature totals."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils.extmath import safe_sparse_dot

from nbayes.core.namespace import namespace_of
from nbayes.core.validation import ClassWeights
from nbayes.events._stats import CLASS, EXACT_COUNTS, FEATURE, Statistics, stat, warn_inexact


@dataclass(frozen=True)
class CountStats(Statistics):
    """Additive statistics of a count-based event model.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
        ``N_c = sum_i W[i, c]``.
    feature_count : ndarray of shape (n_classes, n_features)
        ``N_cj = sum_i W[i, c] x_ij``.
    """

    class_count: NDArray[np.float64] = stat(CLASS, nonnegative=True)
    feature_count: NDArray[np.float64] = stat(CLASS, FEATURE, nonnegative=True)

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> CountStats:
        return cls(np.zeros(n_classes), np.zeros((n_classes, n_features)))

    def __add__(self, other: CountStats) -> CountStats:
        total = super().__add__(other)
        total.check_representable()
        return total

    def warn_inexact_cells(self) -> None:
        """:meth:`warn_inexact` for the cells, which (summing values, as multinomial
        counts do) can pass their class's count."""
        if self.feature_count.size and float(self.feature_count.max()) >= EXACT_COUNTS:
            warn_inexact(f"{type(self).__name__}.feature_count")

    def check_representable(self) -> None:
        """Raise ValueError if the counts, or the totals the estimates divide by
        (per class, per feature, overall), overflow float64 (or the dtype of counts
        on a device: checked there, worded on the host)."""
        xp = namespace_of(self.feature_count)
        if xp is not np:
            total = xp.sum(self.feature_count) + xp.sum(self.class_count)
            if not bool(xp.isfinite(total)):
                self.to_numpy().check_representable()
            return
        with np.errstate(over="ignore", invalid="ignore"):
            total = self.feature_count.sum()
            finite = np.isfinite(total) and np.isfinite(self.class_count.sum())
        if finite:
            # sum |N_cj| bounds every total the estimates take; known for counts >= 0
            bound = (
                float(total)
                if self.feature_count.size == 0 or self.feature_count.min() >= 0
                else None
            )
            object.__setattr__(self, "_magnitude_bound", bound)
        if not finite:
            with np.errstate(over="ignore", invalid="ignore"):
                per_feature = np.isfinite(self.feature_count.sum(axis=0))
            where = (
                f"feature(s) {np.flatnonzero(~per_feature).tolist()}"
                if not per_feature.all()
                else "all features together"
            )
            raise ValueError(
                f"The weighted counts of {where} cannot be represented in float64: their "
                "total overflows. Rescale X or sample_weight."
            )


def summarize(X, W: ClassWeights) -> CountStats:
    """``N_c = W.sum(0)`` and ``N_cj = W.T @ X`` for X (n_samples, n_features),
    dense or sparse: :func:`add_into` zero statistics."""
    return add_into(CountStats.zero(W.n_classes, X.shape[1]), X, W)


def add_into(stats: CountStats, X, W: ClassWeights) -> CountStats:
    """``N_c += W.sum(0)`` and ``N_cj += W.T @ X`` in place, for X (n_samples,
    n_features) dense or sparse; returns ``stats``, whose arrays the caller must own
    (nobody else may hold them). Hard labels with CSR X scatter-add every nonzero
    straight into ``feature_count``: no (n_classes, n_features) temporary per batch.
    Overflow raises ValueError (``check_representable``)."""
    batch_bound = _magnitude_bound(X, W, stats.feature_count.size)
    with np.errstate(over="ignore", invalid="ignore"):
        stats.class_count[...] += W.class_totals()
        W.add_transpose_dot(X, stats.feature_count)
    _check_added(stats, batch_bound)
    return stats


# Below this, a bound on sum |N_cj| (however rounded) proves every total finite.
_SAFE_MAGNITUDE = np.finfo(np.float64).max / 4


def _magnitude_bound(X, W: ClassWeights, budget: int) -> float | None:
    """An upper bound on ``sum_cj |(W.T @ X)_cj|``: ``max_i sum_c W_ic`` times
    ``max_ij |x_ij|`` times the number of stored values, when X has fewer stored
    values than ``budget`` (so it costs less than summing the statistics); else None.
    (Two reductions and no temporary: a loose bound is enough, see ``_check_added``.)"""
    values = X.data if sp.issparse(X) else X
    if values.size >= budget or values.size == 0:
        return None if values.size else 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        largest = max(float(values.max()), -float(values.min()))
        return largest * values.size * float(W.row_totals().max(initial=0.0))


def _check_added(stats: CountStats, batch_bound: float | None) -> None:
    """``stats.check_representable()`` after a batch was added, skipped while the
    running bound on ``sum |N_cj|`` (the previous bound plus ``batch_bound``) stays
    far below the float64 limit: then the statistics cannot have overflowed. The
    bound is kept on the statistics object (not a field: never saved or compared).
    Likewise the check that no cell has reached 2**53 (``warn_inexact_cells``), only
    made once the bound reaches it."""
    previous = stats.__dict__.get("_magnitude_bound")
    if previous is not None and batch_bound is not None:
        bound = previous + batch_bound
        if bound < _SAFE_MAGNITUDE and np.isfinite(stats.class_count.sum()):
            object.__setattr__(stats, "_magnitude_bound", bound)
            if bound >= EXACT_COUNTS:
                stats.warn_inexact_cells()
            return
    stats.check_representable()
    stats.warn_inexact_cells()


def summarize_array(X, W):
    """``(N_c, N_cj) = (W.sum(0), W.T @ X)`` for X (n_samples, n_features) and dense W
    (n_samples, n_classes) of one array-API namespace and device: :func:`add_into`'s
    statistics, computed there."""
    xp = namespace_of(X)
    return xp.sum(W, axis=0), W.T @ X


def product_array(X, weights):
    """:func:`dot_with_infinities` for X (n_samples, n_features) and weights (n_classes,
    n_features) of one array-API namespace and device: ``X @ weights.T`` where an
    infinite weight counts only in rows where its feature is present (never ``0 * inf
    = NaN``), shape (n_samples, n_classes)."""
    xp = namespace_of(X)
    finite = xp.isfinite(weights)
    if bool(xp.all(finite)):
        return X @ weights.T
    out = X @ xp.where(finite, weights, xp.zeros_like(weights)).T
    for infinity in (-np.inf, np.inf):
        hits = X @ xp.astype(weights == infinity, X.dtype).T
        out = xp.where(hits > 0, xp.full_like(out, infinity), out)
    return out


def dot_with_infinities(X, weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """``X @ weights.T`` for non-negative X (n_samples, n_features), dense or sparse,
    and weights (n_classes, n_features) that may hold ``±inf``.

    A plain product turns ``0 * inf`` into NaN; here an infinite weight counts only
    in rows where its feature is present: shape (n_samples, n_classes).
    """
    finite = np.isfinite(weights)
    if finite.all():
        return product(X, weights)
    out = product(X, np.where(finite, weights, 0.0))
    for infinity in (-np.inf, np.inf):
        hits = product(X, (weights == infinity).astype(np.float64))
        out[hits > 0] = infinity
    return out


_PRODUCT_BLOCK_BYTES = 1 << 22  # 4 MiB of weights per sparse product: stays in cache


def product(X, weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """``X @ weights.T``, shape (n_samples, n_classes), for X dense or sparse.

    A sparse product reads a random row of ``weights.T`` for every nonzero of X; with
    many features those reads miss the cache. So the classes are taken a few at a
    time, each block of ``weights.T`` (n_features, block) small enough to stay in
    cache: more passes over X, far fewer cache misses.
    """
    if not sp.issparse(X):
        return np.asarray(safe_sparse_dot(X, weights.T), dtype=np.float64)
    n_classes, n_features = weights.shape
    step = max(1, _PRODUCT_BLOCK_BYTES // (8 * max(n_features, 1)))
    if step >= n_classes:
        return np.asarray(X @ np.ascontiguousarray(weights.T), dtype=np.float64)
    out = np.empty((X.shape[0], n_classes))
    for start in range(0, n_classes, step):
        block = np.ascontiguousarray(weights[start : start + step].T)
        out[:, start : start + step] = X @ block
    return out


@dataclass(frozen=True)
class LinearScorer:
    """``X @ weights.T + intercept`` prepared once per fitted model, applied to many
    row blocks of X: the finiteness check and the cache-sized, contiguous class blocks
    of ``weights.T`` (see :func:`product`) are computed here, not per block.

    weights : (n_classes, n_features), may hold ``±inf`` (then
        :func:`dot_with_infinities` semantics); intercept : (n_classes,) or None.
    """

    weights: NDArray[np.float64]
    intercept: NDArray[np.float64] | None
    finite: bool
    column_blocks: tuple[tuple[slice, NDArray[np.float64]], ...]

    @classmethod
    def of(cls, weights: NDArray[np.float64], intercept=None) -> LinearScorer:
        finite = bool(np.isfinite(weights).all())
        n_classes, n_features = weights.shape
        step = max(1, _PRODUCT_BLOCK_BYTES // (8 * max(n_features, 1)))
        blocks = tuple(
            (slice(start, start + step), np.ascontiguousarray(weights[start : start + step].T))
            for start in range(0, n_classes, step)
        )
        return cls(weights, intercept, finite, blocks if finite else ())

    def __call__(self, X) -> NDArray[np.float64]:
        """The scores of X (n_samples, n_features), dense or CSR: (n_samples, n_classes).

        float32 X is read as is; the scores are float64.
        """
        if not self.finite:
            out = dot_with_infinities(X, self.weights)
        elif not sp.issparse(X):
            out = np.asarray(safe_sparse_dot(X, self.weights.T), dtype=np.float64)
        elif len(self.column_blocks) == 1:
            out = np.asarray(X @ self.column_blocks[0][1], dtype=np.float64)
        else:
            out = np.empty((X.shape[0], self.weights.shape[0]))
            for columns, block in self.column_blocks:
                out[:, columns] = X @ block
        if self.intercept is not None:
            out += self.intercept
        return out


def dense_rows(X) -> NDArray[np.float64]:
    """X (n_samples, n_features) as a dense float array (for per-feature terms)."""
    if hasattr(X, "toarray"):
        X = X.toarray()
    return np.asarray(X, dtype=np.float64)


def weighted_terms(X, weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x_ij * weights[c, j]`` with ``0 * inf = 0``: shape (n_samples, n_classes, n_features).

    The per-feature terms whose sum over features is :func:`dot_with_infinities`.
    """
    X = dense_rows(X)[:, None, :]
    with np.errstate(invalid="ignore"):
        return np.where(X != 0, X * weights[None, :, :], 0.0)


def dirichlet_log_density(alpha, log_prob: NDArray[np.float64]) -> float:
    """``sum alpha * log theta``: the log density of a Dirichlet(alpha + 1) prior, up to
    its constant, with ``0 * log 0`` taken as 0 (Lidstone's estimate is its mode)."""
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), log_prob.shape)
    used = alpha > 0
    return float(np.sum(alpha[used] * log_prob[used]))
