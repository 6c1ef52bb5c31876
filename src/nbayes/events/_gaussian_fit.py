"""Accumulating weighted moments (:class:`nbayes.events.moments.GaussianStats`) from
rows of data: :func:`summarize` and :func:`add_into`, over cache-sized row blocks, and
their block kernels:
per-class and overall weighted moments of one block of rows (two passes), and the
one-pass update of running moments by a later batch (:func:`shifted_update`).

The block kernels return the moments of ``GaussianStats`` in order: ``class_count``
(n_classes,), ``count``, ``mean``, ``m2`` (n_classes, n_features), ``total_count``,
``total_mean``, ``total_m2`` (n_features,), of the values as given.

Scale (see :mod:`nbayes.events.moments`): the exponent of a batch is that of its
largest ``|x|``, found without a pass of its own: the block's moments bound it
(:func:`batch_exponent`: ``|x| <= |mean| + sqrt(M2 / min w)`` and ``max x^2 >=`` the
second moment), which settles ordinary features; only the others (all zero, extreme,
or not finite) are read again. On ordinary data the moments as computed are the
statistics; on extreme magnitudes the batch is computed again, scaled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from nbayes._kernels import gaussian as gaussian_kernels
from nbayes._kernels import gaussian_observed
from nbayes.core.parallel import SCRATCH, Scratch, map_blocks
from nbayes.core.validation import ClassWeights, row_blocks
from nbayes.events.moments import (
    HIGH_EXPONENT,
    LOW_EXPONENT,
    NO_VALUES,
    GaussianStats,
    chan_merge,
    magnitude_exponent,
    scale_of,
)

#: Bytes of X per block of ``add_into`` (each read twice, the second time from cache);
#: 4 MiB measured best (bench/NOTES.md): fewer blocks, fewer per-block costs.
FIT_BLOCK_BYTES = 1 << 22

Moments = tuple[NDArray, NDArray, NDArray, NDArray, NDArray, NDArray, NDArray]
Sums = tuple[NDArray, NDArray, NDArray, NDArray, NDArray]  # (n, S1, S2, min w, largest)

#: :func:`shifted_update` is taken where its one subtraction loses at most one bit of
#: the new M2: the shifted sum of squares at most twice the new M2.
SHIFTED_SQUARES_MOST = 2.0


def block_moments(
    X: NDArray[np.float64], W: ClassWeights, observed: NDArray[np.bool_] | None = None
) -> Moments:
    """Per-class and overall weighted moments of X (n_samples, n_features).

    Two passes, so no sum of squares cancels: the means first, then the squared
    deviations from each row's own class mean (hard labels: one sparse product each;
    soft labels: one pass per class). Each class's values of each feature are first
    shifted by one of them (:func:`_reference_values`), so a feature constant within a
    class gets exactly that value as its mean and ``M2 = 0``, however large the value
    (rounding noise would otherwise make its variance, and the variance floor, depend
    on the order of the rows). Rows of zero weight are left out, so their values cannot
    overflow the sums. ``observed`` (n_samples, n_features), if given, marks the values
    present: a missing value (where ``observed`` is False) adds nothing to its feature's
    count, mean or M2 (X is never read there: it may hold NaN). The overall moments are
    pooled from the class moments (:func:`pooled_totals`); nothing here checks overflow
    (``add_into`` does).
    """
    if W.labels is not None and observed is None:
        return hard_block_moments(X, W.labels, W.values, W.n_classes, SCRATCH)
    class_count = W.class_totals()
    if W.labels is not None:  # the same passes compiled, where numba is installed
        compiled = gaussian_observed.observed_class_moments(
            X, observed, W.labels, W.values, W.n_classes
        )
        if compiled is not None:
            count, reference, offset, m2 = compiled
            with np.errstate(over="ignore"):
                mean = reference + offset
            return (class_count, count, mean, m2, *pooled_totals(count, mean, m2))
    if observed is not None:  # whatever X holds where nothing is observed counts 0
        X = np.where(observed, X, 0.0)
    weights = W.row_totals()
    usable = (weights > 0)[:, None] if observed is None else (weights > 0)[:, None] & observed
    if observed is None:
        count = np.repeat(class_count[:, None], X.shape[1], axis=1)
    else:
        count = W.transpose_dot(observed.astype(np.float64))
    reference = _reference_values(X, W, usable)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if W.labels is not None:
            shifted = np.where(usable, X - reference[W.labels], 0.0)
            offset = np.where(count > 0, W.transpose_dot(shifted) / count, 0.0)
            deviation = np.where(usable, shifted - offset[W.labels], 0.0)
            m2 = W.transpose_dot(deviation * deviation)
        else:
            offset, m2 = np.zeros_like(reference), np.zeros_like(reference)
            for c in np.flatnonzero(class_count > 0):
                class_weights = W.matrix[:, c]
                rows = usable & (class_weights > 0)[:, None]
                shifted = np.where(rows, X - reference[c], 0.0)
                offset[c] = np.where(count[c] > 0, (class_weights @ shifted) / count[c], 0.0)
                deviation = np.where(rows, shifted - offset[c], 0.0)
                m2[c] = class_weights @ (deviation * deviation)
        mean = reference + offset
    return (class_count, count, mean, m2, *pooled_totals(count, mean, m2))


def hard_block_moments(
    X: NDArray[np.float64],
    labels: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
    scratch: Scratch,
) -> Moments:
    """``block_moments`` for hard labels (class ``labels``, weights ``weights``, each
    (n_rows,)) and no missing values: the same two passes, with the class sums
    ``sum_i w_i v_i`` as one sparse product ``S @ v`` (``S`` the (n_classes, n_rows)
    transpose of W: each row added once into its class) and the (n_rows, n_features)
    temporaries in two reused ``scratch`` buffers; or, where numba is installed, the
    same passes compiled (:func:`nbayes._kernels.gaussian.class_moments`: same rounding)."""
    class_count = np.bincount(labels, weights, minlength=n_classes)
    count = np.repeat(class_count[:, None], X.shape[1], axis=1)
    compiled = gaussian_kernels.class_moments(X, labels, weights, class_count)
    if compiled is not None:  # the same passes, row by row: no temporaries
        reference, offset, m2 = compiled
        with np.errstate(over="ignore"):
            mean = offset + reference
        return (class_count, count, mean, m2, *pooled_totals(count, mean, m2))
    if not np.all(weights > 0):  # rows of zero weight are left out
        kept = weights > 0
        X, labels, weights = X[kept], labels[kept], weights[kept]
    rows, n_features = X.shape
    if rows == 0:
        zero, zeros = np.zeros((n_classes, n_features)), np.zeros(n_features)
        return (class_count, zero, zero.copy(), zero.copy(), zeros, zeros.copy(), zeros.copy())
    pick = np.zeros(n_classes, dtype=np.intp)
    pick[labels] = np.arange(rows)  # one row of each class present (any one will do)
    reference = np.where(np.bincount(labels, minlength=n_classes)[:, None] > 0, X[pick], 0.0)
    by_class = sp.csc_matrix((weights, labels, np.arange(rows + 1)), shape=(n_classes, rows))
    deviation, gathered = scratch.get(0, X.shape), scratch.get(1, X.shape)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        np.take(reference, labels, axis=0, out=deviation, mode="clip")  # "raise" would copy
        np.subtract(X, deviation, out=deviation)  # x - reference
        offset = by_class @ deviation
        offset /= np.where(count > 0, count, 1.0)
        np.take(offset, labels, axis=0, out=gathered, mode="clip")
        deviation -= gathered  # x - mean
        np.multiply(deviation, deviation, out=deviation)
        m2 = by_class @ deviation
        mean = offset + reference
    return (class_count, count, mean, m2, *pooled_totals(count, mean, m2))


def shifted_update(
    stats: GaussianStats,
    X: NDArray[np.float64],
    labels: NDArray[np.intp],
    weights: NDArray[np.float64],
    blocks: Sequence[slice],
) -> bool:
    """Pool rows X (n_rows, n_features) of classes ``labels`` and weights ``weights``
    (n_rows,) into ``stats`` in place, in one pass over X, when every class with rows
    here already has running moments; False (``stats`` untouched) otherwise, or where
    the checks below fail: the caller then takes the two passes of
    :func:`hard_block_moments`.

    Each value is shifted by its class's running mean ``m`` (close to the batch's
    mean, so little cancels): ``S1 = sum_i w_i (x_i - m)``, ``S2 = sum_i w_i (x_i -
    m)^2`` and the batch weight ``n`` over the rows of the class with ``w_i > 0``,
    each row block's sums on the block threads, added in order of the ``blocks``.
    With the running count ``N`` (the rows before have ``sum (x - m) = 0`` and
    ``sum (x - m)^2 = M2``), the pooled moments are exactly
    ``mean = m + S1 / (N + n)`` and ``M2' = M2 + (S2 - S1 * S1 / (N + n))``. Taken
    only where ``N > 0`` and the results are finite (so a NaN, an infinity or an
    overflow in X goes the two-pass way, which reports it) and
    ``S2 <= SHIFTED_SQUARES_MOST * M2'``: the subtraction then loses at most one bit
    (it always holds when ``n <= N``). A feature constant within a class keeps its
    value and ``M2 = 0`` (every ``x - m`` is 0). The overall moments are then
    :func:`pooled_totals` of the new class moments.

    Taken only while the statistics are unscaled and the batch keeps them so: every
    ``|x| <= |m| + sqrt(S2 / min w)`` below the ordinary magnitudes' top, and the
    largest ``|x|`` of each feature with no nonzero value yet (tracked in the pass,
    for those features only) 0 or ordinary; their exponents then become the batch's.

    Where numba is installed, :func:`nbayes._kernels.gaussian.shifted_update` makes
    the same operations in the same order (bitwise the same); here ``S1`` and ``S2``
    are sparse products ``S @ v``, as in :func:`hard_block_moments`.
    """
    track = _NO_TRACK
    if stats.exponent.any():  # scaled, or features with no nonzero value yet
        if stats.scaled:
            return False
        track = np.flatnonzero(stats.exponent == NO_VALUES)
    n_classes, n_features = stats.mean.shape
    if len(blocks) == 1:  # the whole batch in one compiled call (where numba is installed)
        sums = _no_sums(n_classes, n_features, track.shape[0])
        args = (X, labels, weights, stats, sums, track, SHIFTED_SQUARES_MOST)
        done = gaussian_kernels.shifted_update(*args, commit=True)
        if done is not None:
            return done and _raise_exponents(stats, track, sums[4])
    if not stats.class_count.any():  # no running moments (fit, a first batch)
        return False

    def block_sums(rows: slice) -> Sums | None:
        return _shifted_sums(X[rows], labels[rows], weights[rows], stats, track)

    parts = map_blocks(block_sums, blocks)
    if any(part is None for part in parts):
        return False
    new_weight, s1, s2, lightest, largest = parts[0]
    for part in parts[1:]:
        new_weight += part[0]
        s1 += part[1]
        s2 += part[2]
        np.minimum(lightest, part[3], out=lightest)
        np.maximum(largest, part[4], out=largest)
    sums = (new_weight, s1, s2, lightest, largest)
    no_rows = (X[:0], labels[:0], weights[:0], stats, sums, track, SHIFTED_SQUARES_MOST)
    done = gaussian_kernels.shifted_update(*no_rows, commit=True)
    if done is None:
        done = _shifted_commit(sums, stats)
    return done and _raise_exponents(stats, track, largest)


#: The ordinary magnitudes, less a factor of two for the rounding of the bounds that
#: prove a batch within them (the compiled kernel's too).
ORDINARY_LOW, ORDINARY_HIGH = np.ldexp(1.0, LOW_EXPONENT + 1), np.ldexp(1.0, HIGH_EXPONENT - 1)
assert (ORDINARY_LOW, ORDINARY_HIGH) == (
    gaussian_kernels.ORDINARY_LOW,
    gaussian_kernels.ORDINARY_HIGH,
)
_NO_TRACK = np.zeros(0, dtype=np.intp)
_NOTHING = np.zeros(0)


def _no_sums(n_classes: int, n_features: int, n_tracked: int) -> Sums:
    shape = (n_classes, n_features)
    return (
        np.zeros(n_classes),
        np.zeros(shape),
        np.zeros(shape),
        np.array([np.inf]),
        np.zeros(n_tracked) if n_tracked else _NOTHING,
    )


def _raise_exponents(stats: GaussianStats, track: NDArray[np.intp], largest: NDArray) -> bool:
    """Record the magnitudes of the tracked features (those with no nonzero value
    before: the others stay ordinary, exponent 0); True."""
    if track.size:
        stats.exponent[track] = np.maximum(stats.exponent[track], magnitude_exponent(largest))
    return True


def _shifted_sums(
    X: NDArray[np.float64],
    labels: NDArray[np.intp],
    weights: NDArray[np.float64],
    stats: GaussianStats,
    track: NDArray[np.intp],
) -> Sums | None:
    """``(n, S1, S2, min w, largest)`` of one block (see :func:`shifted_update`),
    shapes (n_classes,), (n_classes, n_features) twice, (1,) and (len(track),); None
    if a class with rows here has no running count."""
    n_classes, n_features = stats.mean.shape
    sums = _no_sums(n_classes, n_features, track.shape[0])
    args = (X, labels, weights, stats, sums, track, SHIFTED_SQUARES_MOST)
    compiled = gaussian_kernels.shifted_update(*args, commit=False)
    if compiled is not None:
        return sums if compiled else None
    if not np.all(weights > 0):  # rows of zero weight are left out
        kept = weights > 0
        X, labels, weights = X[kept], labels[kept], weights[kept]
    new_weight = np.bincount(labels, weights, minlength=n_classes)
    if not np.all(stats.class_count[new_weight > 0] > 0):
        return None
    rows = X.shape[0]
    by_class = sp.csc_matrix((weights, labels, np.arange(rows + 1)), shape=(n_classes, rows))
    deviation = SCRATCH.get(0, X.shape)
    lightest = np.full(1, weights.min(initial=np.inf))
    largest = np.abs(X[:, track]).max(axis=0, initial=0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        np.take(stats.mean, labels, axis=0, out=deviation, mode="clip")
        np.subtract(X, deviation, out=deviation)  # x - m
        s1 = by_class @ deviation
        np.multiply(deviation, deviation, out=deviation)
        return new_weight, s1, by_class @ deviation, lightest, largest


def _shifted_commit(sums: Sums, stats: GaussianStats) -> bool:
    """The new moments from the sums of :func:`shifted_update`, checked, written into
    ``stats``; False (``stats`` untouched) where a check fails."""
    new_weight, s1, s2, lightest, largest = sums
    low, high = ORDINARY_LOW, ORDINARY_HIGH
    present = new_weight > 0
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        bound = np.abs(stats.mean) + np.sqrt(s2 / lightest[0])
    if not (bound[present] <= high).all():
        return False
    if not ((largest == 0) | ((low <= largest) & (largest <= high))).all():
        return False
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        count = stats.count + new_weight[:, None]
        shift = s1 / count
        m2 = stats.m2 + (s2 - s1 * shift)
        mean = stats.mean + shift
        usable = (stats.count > 0) & np.isfinite(mean) & np.isfinite(m2)
        usable &= s2 <= SHIFTED_SQUARES_MOST * m2
        if not usable[present].all():
            return False
        mean = np.where(present[:, None], mean, stats.mean)
        m2 = np.where(present[:, None], m2, stats.m2)
        totals = pooled_totals(count, mean, m2)
    if not (np.isfinite(totals[1]).all() and np.isfinite(totals[2]).all()):
        return False
    stats.class_count[...] += new_weight
    for target, value in zip(
        (stats.count, stats.mean, stats.m2, stats.total_count, stats.total_mean, stats.total_m2),
        (count, mean, m2, *totals),
        strict=True,
    ):
        target[...] = value
    return True


def pooled_totals(count: NDArray, mean: NDArray, m2: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """The overall (count, mean, M2) of each feature, shape (n_features,), pooled from
    the class moments (n_classes, n_features):
    ``N = sum_c N_c``, ``mean = r + sum_c N_c (mean_c - r) / N`` and
    ``M2 = sum_c M2_c + sum_c N_c (mean_c - mean)^2``, with ``r`` the mean of the first
    class that observed the feature (so a feature with the same mean in every class
    keeps it exactly, and ``M2`` gains exactly 0). The sums over classes are added in
    order of the classes (``np.sum`` may add them pairwise), as the compiled
    :func:`nbayes._kernels.gaussian.shifted_update` does."""
    total = _sum_over_classes(count)
    seen = count > 0
    has = seen.any(axis=0)
    reference = np.where(has, mean[np.argmax(seen, axis=0), np.arange(mean.shape[1])], 0.0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        delta = np.where(seen, mean - reference, 0.0)
        moment = _sum_over_classes(count * delta)
        offset = np.where(has, moment / np.where(has, total, 1.0), 0.0)
        delta -= offset
        spread = _sum_over_classes(np.where(seen, count * delta * delta, 0.0))
        return total, reference + offset, _sum_over_classes(np.where(seen, m2, 0.0)) + spread


def _sum_over_classes(values: NDArray) -> NDArray:
    """``values.sum(axis=0)`` for (n_classes, n_features), added class after class.
    ``np.sum`` does so where its inner loop runs over the features (C order, several
    features: one row added after another); with one feature it would add the
    classes pairwise, so there a running sum (``np.cumsum``, slower) is taken."""
    if values.shape[0] == 0 or (values.shape[1] > 1 and values.flags.c_contiguous):
        return values.sum(axis=0)
    return np.cumsum(values, axis=0)[-1]


def _reference_values(X: NDArray, W: ClassWeights, usable: NDArray[np.bool_]) -> NDArray:
    """For each class and feature, one usable value of X that class gives positive
    weight (0 where none): shape (n_classes, n_features)."""
    reference = np.zeros((W.n_classes, X.shape[1]))
    if W.labels is not None:
        if usable.shape[1] == 1:  # no missing values: one row per class
            rows = np.flatnonzero(usable[:, 0])
            classes, first = np.unique(W.labels[rows], return_index=True)
            reference[classes] = X[rows[first]]
            return reference
        for j in range(X.shape[1]):
            rows = np.flatnonzero(usable[:, j])
            classes, first = np.unique(W.labels[rows], return_index=True)
            reference[classes, j] = X[rows[first], j]
        return reference
    usable = np.broadcast_to(usable, X.shape)
    for c in range(W.n_classes):
        rows = usable & (W.matrix[:, c] > 0)[:, None]
        has = rows.any(axis=0)
        reference[c, has] = X[np.argmax(rows, axis=0)[has], np.flatnonzero(has)]
    return reference


def weighted_moments(
    weights: NDArray, X: NDArray, usable: NDArray[np.bool_] | None = None
) -> tuple[NDArray, NDArray, NDArray]:
    """Weighted (count, mean, M2) of each feature over the usable entries of X, each of
    shape (n_features,); values are shifted by a usable one first (see ``summarize``)."""
    if usable is None:
        usable = (weights > 0)[:, None]
    usable = np.broadcast_to(usable, X.shape)
    count = weights @ usable
    has = usable.any(axis=0)
    reference = np.zeros(X.shape[1])
    reference[has] = X[np.argmax(usable, axis=0)[has], np.flatnonzero(has)]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        shifted = np.where(usable, X - reference, 0.0)
        offset = np.where(count > 0, (weights @ shifted) / count, 0.0)
        deviation = np.where(usable, shifted - offset, 0.0)
        return count, reference + offset, weights @ (deviation * deviation)


def summarize(
    X: NDArray[np.float64],
    W: ClassWeights,
    observed: NDArray[np.bool_] | None = None,
    on_non_finite: Callable[[], None] | None = None,
) -> GaussianStats:
    """Per-class and overall weighted moments of X (n_samples, n_features):
    :func:`add_into` zero statistics."""
    return add_into(GaussianStats.zero(W.n_classes, X.shape[1]), X, W, observed, on_non_finite)


def add_into(
    stats: GaussianStats,
    X: NDArray[np.float64],
    W: ClassWeights,
    observed: NDArray[np.bool_] | None = None,
    on_non_finite: Callable[[], None] | None = None,
) -> GaussianStats:
    """``stats`` pooled with the moments of X (n_samples, n_features) under W, in place
    (the caller must own ``stats``: nobody else may hold its arrays); returns ``stats``.

    The moments of cache-sized row blocks (:func:`summarize_block`, spread over
    threads) are pooled into ``stats`` one by one with :func:`chan_merge`, so X is read
    from memory once, the temporaries stay small and pooling stays exact: a feature
    constant within a class keeps its value as mean and ``M2 = 0`` (every block gives
    that value and ``M2 = 0``; pooling adds ``delta = 0``). Moments that overflow
    float64 raise ValueError (see ``GaussianStats.check_representable``). A later
    batch of hard labels goes in one pass where it can (``shifted_update``).

    Scale: the blocks also give the largest ``|x|`` of each feature; where that, or the
    statistics, call for a scaled domain (:mod:`nbayes.events.moments`), the blocks
    are computed again on ``X / 2**s`` (exact) and the statistics rescaled to the
    larger exponent before pooling. Ordinary data never take this second pass.

    ``on_non_finite``, if given, is called before anything is pooled when some block's
    moments are not finite: a NaN or infinity in a counted row of X always makes them
    so, which lets the caller check X's finiteness here, on the moments, instead of in
    a pass of its own (it raises its input error; if it returns, the moments overflow).
    """
    blocks = row_blocks(X.shape[0], X.shape[1], FIT_BLOCK_BYTES)
    hard = W.labels is not None and observed is None
    if hard and shifted_update(stats, X, W.labels, W.values, blocks):
        return stats
    unscaled = np.zeros(X.shape[1], dtype=np.int64)

    def block_stats(rows: slice, scale: NDArray[np.int64] = unscaled) -> GaussianStats:
        if not scale.any():
            values = X[rows]
        else:  # the scale is the counted rows': a row of weight 0 may overflow, unused
            with np.errstate(over="ignore"):
                values = np.ldexp(X[rows], -scale)
        if hard:
            labels, weights = W.labels[rows], W.values[rows]
            moments = hard_block_moments(values, labels, weights, W.n_classes, SCRATCH)
        else:
            part = None if observed is None else observed[rows]
            moments = block_moments(values, W.rows(rows), part)
        return GaussianStats(*moments, scale)

    parts = list(map_blocks(block_stats, blocks))
    row_weights = W.values if hard else W.row_totals()
    exponent = np.maximum(stats.exponent, batch_exponent(parts, X, row_weights, observed))
    scale = scale_of(exponent)
    if scale.any():  # extreme magnitudes: the blocks again, scaled (exactly)
        parts = list(map_blocks(lambda rows: block_stats(rows, scale), blocks))
    if on_non_finite is not None and not all(part.finite_features().all() for part in parts):
        on_non_finite()
    stats.rescale_into(exponent)
    for part in parts:
        _pool_into(stats, part)
    stats.check_representable()
    return stats


def batch_exponent(
    blocks: Sequence[GaussianStats],
    X: NDArray[np.float64],
    weights: NDArray[np.float64],
    observed: NDArray[np.bool_] | None = None,
) -> NDArray[np.int64]:
    """The exponent (:func:`nbayes.events.moments.magnitude_exponent`) of the largest
    ``|x|`` counted in X (n_rows, n_features), rows of weight ``weights`` (n_rows,),
    from the unscaled moments of its row ``blocks``: 0 for a feature that every block
    proves ordinary (``|x| <= |mean| + sqrt(M2 / min w)`` at most
    :data:`ORDINARY_HIGH`, and the second moment ``mean^2 + M2 / N``, at most
    ``max x^2``, at least ``ORDINARY_LOW**2``, wherever the block counts a value);
    :data:`NO_VALUES` for one no block counts; the others (all zero, extreme, not
    finite: unsettled by the bounds) read their largest ``|x|`` off X."""
    lightest = weights.min(initial=np.inf)
    if not lightest > 0:  # rows of weight 0 (left out of the moments)
        lightest = weights[weights > 0].min(initial=np.inf)
    mean = np.array([block.total_mean for block in blocks]).reshape(len(blocks), X.shape[1])
    m2 = np.array([block.total_m2 for block in blocks]).reshape(mean.shape)
    count = np.array([block.total_count for block in blocks]).reshape(mean.shape)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        bound = np.abs(mean) + np.sqrt(m2 / lightest)
        second = mean * mean + m2 / np.where(count > 0, count, 1.0)
    settled = (bound <= ORDINARY_HIGH) & (second >= ORDINARY_LOW**2)
    exponent = np.where((count > 0).any(axis=0), 0, NO_VALUES).astype(np.int64)
    unsettled = np.flatnonzero(((count > 0) & ~settled).any(axis=0))
    if unsettled.size:
        counted = weights > 0
        values = np.abs(X[np.ix_(counted, unsettled)])
        if observed is not None:
            values[~observed[np.ix_(counted, unsettled)]] = 0.0
        exponent[unsettled] = magnitude_exponent(values.max(axis=0, initial=0.0))
    return exponent


def _pool_into(stats: GaussianStats, part: GaussianStats) -> None:
    """``stats`` pooled with ``part`` (Chan et al.), written into ``stats``'s arrays."""
    with np.errstate(over="ignore", invalid="ignore"):
        pooled = chan_merge(stats.count, stats.mean, stats.m2, part.count, part.mean, part.m2)
        for target, value in zip((stats.count, stats.mean, stats.m2), pooled, strict=True):
            target[...] = value
        pooled = chan_merge(
            stats.total_count,
            stats.total_mean,
            stats.total_m2,
            part.total_count,
            part.total_mean,
            part.total_m2,
        )
        for target, value in zip(
            (stats.total_count, stats.total_mean, stats.total_m2), pooled, strict=True
        ):
            target[...] = value
    stats.class_count[...] += part.class_count


def summarize_block(
    X: NDArray[np.float64], W: ClassWeights, observed: NDArray[np.bool_] | None = None
) -> GaussianStats:
    """Per-class and overall weighted moments of X (n_samples, n_features), in one
    block (:func:`nbayes.events._gaussian_fit.block_moments`, which states the maths),
    scaled as :func:`add_into` scales them; overflow is not checked here."""
    block = GaussianStats(*block_moments(X, W, observed), np.zeros(X.shape[1], dtype=np.int64))
    exponent = batch_exponent([block], X, W.row_totals(), observed)
    scale = scale_of(exponent)
    if scale.any():
        block = GaussianStats(*block_moments(np.ldexp(X, -scale), W, observed), scale)
    block.exponent[...] = exponent
    return block
