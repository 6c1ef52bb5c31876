"""Categorical event model: feature ``j`` takes one of ``K_j`` values, coded
``0 .. K_j - 1``, with its own categorical distribution per class.

``P(x_j = t | c) = (N_cjt + alpha) / (N_cj. + K_j alpha)`` (Lidstone; Laplace for
``alpha = 1``), ``N_cjt`` the weighted count of rows of class ``c`` with
``x_j = t``.

Layout: every (feature, category) pair has one column in a flat block of
``sum_j K_j`` columns, feature ``j`` starting at ``offset_j``; counting is one
``bincount`` over that block and prediction one sparse one-hot product.

A negative code is a missing value: it adds nothing (so ``N_cj.`` counts only the
observed values) and its term is left out. A code ``>= K_j`` at predict time was never
seen in training: by ``handle_unknown`` an :class:`~nbayes.errors.UnknownCategoryError`
(``"error"``), left out of the row's likelihood (``"ignore"``), or given the mass of one
extra, empty category, so ``K_j + 1`` categories share the pseudocounts (``"smooth"``).

Example
-------
>>> import numpy as np
>>> from nbayes.core.validation import hard_class_weights
>>> model = Categorical(alpha=1.0)
>>> X = np.array([[0, 2], [1, 2], [0, 0]])
>>> stats = model.summarize(X, hard_class_weights(np.array([0, 0, 1]), 2, None))
>>> stats.n_categories
array([2, 3])
>>> np.exp(model.estimate(stats).per_feature()[0])
array([[0.5       , 0.5       ],
       [0.66666667, 0.33333333]])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils._param_validation import Interval, StrOptions

from nbayes import _kernels
from nbayes._kernels import categorical as categorical_kernels
from nbayes.core import validation as _validate
from nbayes.core.namespace import device_of, namespace_of, to_numpy
from nbayes.core.parallel import Scratch
from nbayes.core.validation import ClassWeights
from nbayes.errors import UnknownCategoryError
from nbayes.events import _domain
from nbayes.events._contract import EventModel, Reads, pseudocount_interval, setting
from nbayes.events._stats import CLASS, FEATURE, Statistics, StatisticsError, stat
from nbayes.events.counts import dirichlet_log_density, dot_with_infinities

__all__ = ["Categorical", "CategoricalParams", "CategoricalStats", "UnknownCategoryError"]


_BLOCK_BYTES = 1 << 19  # cell indices of a block of rows: 512 KiB
_CELLS = Scratch(keep_bytes=_BLOCK_BYTES)  # their buffer, kept between calls


def offsets_of(n_categories: NDArray[np.intp]) -> NDArray[np.intp]:
    """Start column of each feature in the flat block: shape (n_features,)."""
    return np.concatenate(([0], np.cumsum(n_categories)[:-1])).astype(np.intp)


@dataclass(frozen=True)
class CategoricalStats(Statistics):
    """Additive statistics of the categorical model.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
    n_categories : ndarray of shape (n_features,)
        ``K_j``, the number of category codes seen (or required) per feature.
    counts : ndarray of shape (n_classes, sum(n_categories))
        ``N_cjt`` in the flat layout.
    """

    class_count: NDArray[np.float64] = stat(CLASS, nonnegative=True)
    n_categories: NDArray[np.intp] = stat(FEATURE, nonnegative=True)
    counts: NDArray[np.float64] = stat(CLASS, None, nonnegative=True)

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> CategoricalStats:
        return cls(np.zeros(n_classes), np.zeros(n_features, np.intp), np.zeros((n_classes, 0)))

    def widened(self, n_categories: NDArray[np.intp]) -> NDArray[np.float64]:
        """``counts`` laid out for at least ``n_categories`` per feature."""
        n_categories = np.maximum(n_categories, self.n_categories)
        if np.array_equal(n_categories, self.n_categories):
            return self.counts
        xp = namespace_of(self.counts)
        if xp is not np:  # on a device: each feature's columns, then its new empty ones
            old = offsets_of(self.n_categories)
            shape = (self.counts.shape[0], 1)
            empty = xp.zeros(shape, dtype=self.counts.dtype, device=device_of(self.counts))
            parts = []
            for j, (width, wider) in enumerate(zip(self.n_categories, n_categories, strict=True)):
                parts.append(self.counts[:, int(old[j]) : int(old[j] + width)])
                parts.extend([empty] * int(wider - width))
            return xp.concat(parts, axis=1) if parts else self.counts
        out = np.zeros((self.counts.shape[0], int(n_categories.sum())))
        old, new = offsets_of(self.n_categories), offsets_of(n_categories)
        for j, width in enumerate(self.n_categories):
            out[:, new[j] : new[j] + width] = self.counts[:, old[j] : old[j] + width]
        return out

    def __add__(self, other: CategoricalStats) -> CategoricalStats:
        n_categories = np.maximum(self.n_categories, other.n_categories)
        return CategoricalStats(
            self.class_count + other.class_count,
            n_categories,
            self.widened(n_categories) + other.widened(n_categories),
        )

    def _validate_more(self, n_classes: int, n_features: int) -> None:
        if self.n_categories.dtype.kind not in "iu":
            raise StatisticsError("CategoricalStats.n_categories is not an integer array.")
        if self.counts.shape[1] != int(self.n_categories.sum()):
            raise StatisticsError(
                f"CategoricalStats.counts has {self.counts.shape[1]} columns, but "
                f"n_categories sums to {int(self.n_categories.sum())}."
            )

    def per_feature(self) -> list[NDArray[np.float64]]:
        """``counts`` split into one (n_classes, K_j) array per feature."""
        return _split(self.counts, self.n_categories)


def _split(flat, n_categories: NDArray[np.intp]) -> list:
    """``flat`` (n_classes, sum K_j) split into one (n_classes, K_j) array per feature."""
    if isinstance(flat, np.ndarray):
        return np.split(flat, np.cumsum(n_categories)[:-1], axis=1)
    starts = offsets_of(n_categories)
    return [flat[:, int(a) : int(a + k)] for a, k in zip(starts, n_categories, strict=True)]


def add_codes(
    stats: CategoricalStats, X: NDArray[np.intp], W: ClassWeights, n_categories: NDArray[np.intp]
) -> CategoricalStats:
    """``stats`` plus the counts ``N_cjt`` of integer codes X (n_samples, n_features).

    ``n_categories`` (K_j) must cover every code in X; the counts are widened to it
    first if it exceeds ``stats.n_categories`` (then a new counts array), else added in
    place: the caller must own ``stats`` (nobody else may hold its arrays). A negative
    code marks a missing value: it adds nothing, so ``N_cj.`` counts only the observed
    values. Hard labels: one compiled pass adding each row's weight into its cells
    (:func:`nbayes._kernels.categorical.count_codes`); where the kernel is not worth
    loading (:func:`nbayes._kernels.available`), ``np.add.at`` over the cells
    ``c * sum_j K_j + offset_j + x_ij`` of each block of rows, the kernel's additions
    in its order; with the kernels switched off, one ``bincount`` per cache-sized block of
    rows over those cells (unweighted, in integers, when every sample weight is 1),
    added into the counts.
    """
    n_categories = np.maximum(np.asarray(n_categories, dtype=np.intp), stats.n_categories)
    if not np.array_equal(n_categories, stats.n_categories):
        stats = CategoricalStats(stats.class_count, n_categories, stats.widened(n_categories))
    n_classes, n_features = W.n_classes, X.shape[1]
    offsets = offsets_of(n_categories)
    width = int(n_categories.sum())
    size = n_classes * width
    counts = stats.counts
    # small blocks (the cell indices are the only temporary), but at least as many codes
    # per block as cells, so each bincount's output is amortised
    rows_per_block = max(_BLOCK_BYTES // (8 * max(n_features, 1)), -(-size // max(n_features, 1)))
    blocks = _validate.row_blocks(X.shape[0], n_features, 8 * n_features * rows_per_block)
    stats.class_count[...] += W.class_totals()
    if W.labels is None:
        for rows in blocks:
            columns = (X[rows] + offsets).ravel()
            observed = (X[rows] >= 0).ravel()
            for c in range(n_classes):
                weights = np.repeat(W.matrix[rows, c], n_features)
                counts[c] += np.bincount(columns[observed], weights[observed], minlength=width)
        return stats
    row_weights = np.asarray(W.values, dtype=np.float64)
    if counts.flags.c_contiguous and categorical_kernels.count_codes(
        X, W.labels, row_weights, offsets, n_categories, counts
    ):
        return stats
    if counts.flags.c_contiguous and _kernels.ENABLED:  # the kernel's additions, in order
        for rows in blocks:  # (a small X, or numba not worth loading yet: a large one)
            block = X[rows]
            observed = block >= 0
            cells = (block + offsets + (W.labels[rows] * width)[:, None])[observed]
            weights = np.broadcast_to(row_weights[rows, None], block.shape)[observed]
            np.add.at(counts.reshape(-1), cells, weights)
        return stats
    unit = bool(np.all(row_weights == 1.0))
    flat = counts.reshape(-1) if counts.flags.c_contiguous else np.zeros(size)
    for rows in blocks:
        block = X[rows]
        cells = _CELLS.get(0, block.shape, np.intp)  # one block's worth, kept per thread
        np.add(block, offsets, out=cells)
        cells += (W.labels[rows] * width)[:, None]
        cells = cells.ravel()
        weights = None if unit else np.repeat(row_weights[rows], n_features)
        if block.size and block.min() < 0:  # missing values add nothing
            observed = block.ravel() >= 0
            cells = cells[observed]
            weights = None if weights is None else weights[observed]
        flat += np.bincount(cells, weights, minlength=size)
    if not counts.flags.c_contiguous:
        counts += flat.reshape(n_classes, width)
    return stats


@dataclass(frozen=True)
class CategoricalParams:
    """``log P(x_j = t | c)`` in the flat layout, shape (n_classes, sum K_j)."""

    log_prob: NDArray[np.float64]
    n_categories: NDArray[np.intp]

    def per_feature(self) -> list[NDArray[np.float64]]:
        return _split(self.log_prob, self.n_categories)

    @cached_property
    def gather_table(self) -> NDArray[np.float64] | None:
        """``log_prob`` as the compiled gather's table
        (:func:`nbayes._kernels.categorical.gather_table`):
        one row of class values per (feature, category). NaN (0/0 of an unsmoothed,
        unseen feature) counts 0, as in the one-hot product. None if ``+inf`` occurs."""
        if np.isposinf(self.log_prob).any():
            return None
        finite = np.where(np.isnan(self.log_prob), 0.0, self.log_prob)
        return categorical_kernels.gather_table(finite)

    @cached_property
    def offsets(self) -> NDArray[np.intp]:
        return offsets_of(self.n_categories)


def _estimate(stats: CategoricalStats, alpha: float) -> CategoricalParams:
    """Lidstone-smoothed category log-probabilities, feature by feature."""
    smoothed = stats.counts + alpha
    xp = namespace_of(smoothed)
    if xp is not np:  # on a device: the same sums, one feature's block at a time
        blocks = [
            smoothed[:, int(start) : int(start + k)]
            for start, k in zip(offsets_of(stats.n_categories), stats.n_categories, strict=True)
        ]
        parts = [xp.log(b) - xp.log(xp.sum(b, axis=1, keepdims=True)) for b in blocks]
        log_prob = xp.concat(parts, axis=1) if parts else smoothed
        return CategoricalParams(log_prob, stats.n_categories)
    n_categories = np.asarray(stats.n_categories)
    # per-feature sums; a feature with no category (every value missing) has no column
    # and its own total is never used (np.add.reduceat rejects its start, the width)
    totals = np.zeros((smoothed.shape[0], n_categories.shape[0]))
    seen = n_categories > 0
    if seen.any():
        starts = offsets_of(n_categories)[seen]
        totals[:, seen] = np.add.reduceat(smoothed, starts, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_prob = np.log(smoothed) - np.repeat(np.log(totals), stats.n_categories, axis=1)
    return CategoricalParams(log_prob, stats.n_categories)


def one_hot(
    X: NDArray[np.intp], n_categories: NDArray[np.intp], handle_unknown: str
) -> sp.csr_matrix:
    """The one-hot encoding of codes X in the flat layout: (n_samples, sum K_j).

    Codes ``>= K_j`` raise :class:`UnknownCategoryError` (``handle_unknown='error'``)
    or get no column, which leaves their feature out of the likelihood (``'ignore'``).
    Negative codes (missing values) get no column either way.
    """
    n_samples, n_features = X.shape
    known = (X < n_categories) & (X >= 0)
    if not known.all():
        if handle_unknown == "error" and np.any(X >= n_categories):
            row, col = np.argwhere(X >= n_categories)[0]
            raise UnknownCategoryError(
                f"Feature {col} has category {X[row, col]} at row {row}, but only "
                f"categories 0..{n_categories[col] - 1} were seen in training. Use "
                "handle_unknown='ignore' to leave such features out of the prediction."
            )
        columns = (X + offsets_of(n_categories))[known]
        indptr = np.concatenate(([0], np.cumsum(known.sum(axis=1))))
    else:
        columns = (X + offsets_of(n_categories)).ravel()
        indptr = np.arange(0, n_samples * n_features + 1, n_features)
    data = np.ones(columns.shape[0])
    return sp.csr_matrix((data, columns, indptr), shape=(n_samples, int(n_categories.sum())))


def _log_likelihood(
    params: CategoricalParams, X: NDArray[np.intp], handle_unknown: str = "error"
) -> NDArray[np.float64]:
    """``sum_j log P(x_j | c)`` for codes X (n_samples, n_features).

    A compiled gather from :attr:`CategoricalParams.gather_table` where numba is
    installed, else the one-hot product; the same sums in the same order.
    """
    n_classes = params.log_prob.shape[0]
    if _kernels.ENABLED and params.gather_table is not None and X.shape[1]:  # gather_sum decides
        n_categories = params.n_categories.astype(np.intp, copy=False)
        gathered = categorical_kernels.gather_sum(
            X, params.offsets, n_categories, params.gather_table, n_classes
        )
        if gathered is not None:
            out, unknown = gathered
            if unknown and handle_unknown == "error":
                one_hot(X, params.n_categories, handle_unknown)  # raises, naming the code
            return out
    return dot_with_infinities(one_hot(X, params.n_categories, handle_unknown), params.log_prob)


def _log_likelihood_terms(
    params: CategoricalParams, X: NDArray[np.intp], handle_unknown: str = "error"
) -> NDArray[np.float64]:
    """``log P(x_j | c)`` per feature: shape (n_samples, n_classes, n_features).

    An unseen code raises (``handle_unknown='error'``) or gives the term 0, its
    feature left out (``'ignore'``). Summed over features it is :func:`_log_likelihood`.
    """
    X = np.asarray(X)
    one_hot(X, params.n_categories, handle_unknown)  # the same check for unseen codes
    n_samples, n_features = X.shape
    out = np.zeros((n_samples, params.log_prob.shape[0], n_features))
    for j, log_prob in enumerate(params.per_feature()):
        known = (X[:, j] >= 0) & (X[:, j] < params.n_categories[j])  # negative: missing
        out[known, :, j] = log_prob[:, X[known, j]].T
    return out


def _sample(
    params: CategoricalParams, class_index: NDArray[np.intp], rng: np.random.Generator
) -> NDArray[np.intp]:
    """Codes ``x_j ~ Categorical(P(x_j | c))`` feature by feature: (n, n_features)."""
    columns = []
    for log_prob in params.per_feature():
        cdf = np.cumsum(np.exp(log_prob), axis=1)
        cdf /= cdf[:, -1:]
        draws = rng.random(class_index.shape[0]) * 1.0
        codes = (cdf[class_index] <= draws[:, None]).sum(axis=1)
        columns.append(np.minimum(codes, log_prob.shape[1] - 1))
    return np.stack(columns, axis=1) if columns else np.empty((class_index.shape[0], 0), np.intp)


@dataclass(frozen=True)
class Categorical(EventModel[CategoricalStats, CategoricalParams]):
    """The categorical event model: integer codes ``0 .. K_j - 1`` per feature, ``K_j``
    growing with the codes seen (at least ``min_categories``)."""

    name: ClassVar[str] = "categorical"
    reads: ClassVar[Reads] = "codes"
    adds_in_place: ClassVar[bool] = True

    alpha: float = setting(1.0, pseudocount_interval(), shared="alpha")
    handle_unknown: str = setting(
        "error", StrOptions({"error", "ignore", "smooth"}), shared="handle_unknown"
    )
    min_categories: Any = setting(
        None, None, "array-like", Interval(Integral, 1, None, closed="left")
    )

    def check(self, X):
        return _domain.nonnegative(X, "non-negative integer category codes")

    def zero(self, n_classes: int, n_features: int) -> CategoricalStats:
        return CategoricalStats.zero(n_classes, n_features)

    def n_categories(self, X: NDArray[np.intp]) -> NDArray[np.intp]:
        """``K_j`` the codes of X need: their largest plus one, at least
        ``min_categories``: shape (n_features,)."""
        seen = X.max(axis=0) + 1 if X.shape[0] else np.zeros(X.shape[1], np.intp)
        return self.n_categories_of(seen)

    def n_categories_of(self, seen: NDArray[np.intp]) -> NDArray[np.intp]:
        """``K_j`` for codes whose largest plus one is ``seen`` (n_features,)."""
        if self.min_categories is None:
            return np.maximum(seen, 0)
        minimum = np.array(self.min_categories)
        if not np.issubdtype(minimum.dtype, np.signedinteger):
            raise ValueError(
                f"'min_categories' should have integral type. Got {minimum.dtype} instead."
            )
        n_categories = np.maximum(seen, minimum, dtype=np.int64)
        if n_categories.shape != seen.shape:
            raise ValueError(
                f"'min_categories' should have shape ({seen.shape[0]},"
                f") when an array-like is provided. Got {minimum.shape} instead."
            )
        return n_categories

    def add_into(self, stats: CategoricalStats, X, W: ClassWeights) -> CategoricalStats:
        return add_codes(stats, X, W, self.n_categories(X))

    def summarize_array(self, X, W) -> CategoricalStats:
        """``N_cjt = W.T @ [x_j == t]`` feature by feature on X's device (codes as
        floats; a negative code, missing, matches no category)."""
        xp = namespace_of(X)
        largest = to_numpy(xp.max(X, axis=0)) if X.shape[0] else np.full(X.shape[1], -1)
        n_categories = self.n_categories_of(np.asarray(largest, dtype=np.int64) + 1)
        codes = [xp.arange(int(k), dtype=X.dtype, device=device_of(X)) for k in n_categories]
        parts = [W.T @ xp.astype(X[:, j : j + 1] == code, X.dtype) for j, code in enumerate(codes)]
        counts = xp.concat(parts, axis=1) if parts else xp.zeros_like(W[:0, :].T)
        return CategoricalStats(xp.sum(W, axis=0), n_categories.astype(np.intp), counts)

    def estimate(self, stats: CategoricalStats) -> CategoricalParams:
        """Lidstone-smoothed category log-probabilities; under ``"smooth"`` each feature
        has one more, empty category for the values never seen."""
        if self.handle_unknown == "smooth":
            slots = stats.n_categories + 1
            stats = CategoricalStats(stats.class_count, slots, stats.widened(slots))
        return _estimate(stats, self.alpha)

    def log_parameter_prior(self, params: CategoricalParams) -> float:
        """Lidstone's ``alpha`` is the mode of a Dirichlet(``alpha + 1``) prior."""
        return dirichlet_log_density(self.alpha, params.log_prob)

    def _known(self, params: CategoricalParams, X: NDArray[np.intp]) -> tuple:
        """Codes and the handling of unseen ones: under ``"smooth"`` an unseen code is
        the extra category (the last of each feature)."""
        if self.handle_unknown == "smooth":
            return np.minimum(X, params.n_categories - 1), "error"
        return X, self.handle_unknown

    def linear_terms(self, params: CategoricalParams) -> tuple[NDArray, NDArray]:
        """``log P(x | c) = one_hot(x) @ coef[c] + intercept[c]``, the one-hot columns
        being the (feature, category) pairs in order."""
        return params.log_prob, np.zeros(params.log_prob.shape[0])

    def log_likelihood(self, params: CategoricalParams, X) -> NDArray[np.float64]:
        return _log_likelihood(params, *self._known(params, X))

    def onnx_log_likelihood(self, params: CategoricalParams, x: str, graph) -> str:
        """A gather of each code's log-probabilities from the flat table, summed over
        features; a missing code adds nothing, an unseen one the extra category under
        ``"smooth"`` and nothing otherwise (a graph cannot raise: ``"error"`` reads as
        ``"ignore"``)."""
        if self.handle_unknown == "smooth":
            x = graph.op("Min", x, graph.const((params.n_categories - 1)[None, :]))
        return graph.lookup_sum(x, params.per_feature())

    def log_likelihood_array(self, params: CategoricalParams, X):
        """``sum_j log P(x_j | c)`` on X's device: each feature's table gathered by its
        codes (unseen codes raise, or count 0 under ``"ignore"``; under ``"smooth"``
        they take the extra category); NaN (0/0 of an unsmoothed, unseen feature)
        counts 0, as in the NumPy path."""
        xp = namespace_of(X)
        n_categories = params.n_categories
        out = xp.zeros((X.shape[0], params.log_prob.shape[0]), dtype=X.dtype, device=device_of(X))
        starts = offsets_of(n_categories)
        for j, k in enumerate(n_categories.tolist()):
            codes = X[:, j]
            if self.handle_unknown == "smooth":
                codes = xp.clip(codes, None, float(k - 1))
            elif self.handle_unknown == "error" and bool(xp.any(codes >= k)):
                one_hot(to_numpy(X).astype(np.intp), n_categories, "error")  # names the code
            known = (codes >= 0) & (codes < k)
            table = params.log_prob[:, int(starts[j]) : int(starts[j] + k)].T  # (K_j, classes)
            table = xp.where(xp.isnan(table), xp.zeros_like(table), table)
            if int(k) == 0:
                continue
            index = xp.astype(xp.where(known, codes, xp.zeros_like(codes)), xp.int64)
            gathered = xp.take(table, index, axis=0)
            out = out + xp.where(known[:, None], gathered, xp.zeros_like(gathered))
        return out

    def log_likelihood_terms(self, params: CategoricalParams, X) -> NDArray[np.float64]:
        return _log_likelihood_terms(params, *self._known(params, np.asarray(X)))

    def sample(self, params, stats, class_index, rng) -> NDArray[np.intp]:
        """Codes ``x_j ~ Categorical(P(x_j | c))`` feature by feature: (n, n_features);
        under ``"smooth"`` the extra category (an unseen value) is ``K_j``."""
        return _sample(params, class_index, rng)

    def unseen(self, params: CategoricalParams, j: int, values: NDArray) -> NDArray[np.bool_]:
        """Codes at or past feature ``j``'s ``K_j`` (its categories seen in training)."""
        return np.asarray(values, dtype=float) >= params.n_categories[j]

    def value_grid(self, params, stats, j, class_prior) -> list:
        """Every category code of feature ``j``."""
        return list(range(int(stats.n_categories[j])))
