"""Pairwise (one-dependence) statistics of categorical data: the counts of every
(class, x_i = v, x_j = w) triple, from which AODE, TAN and the conditional mutual
information of every pair of columns are all estimated.

Layout: every (feature, value) pair has one index ``u`` in a flat block of
``V = sum_j K_j`` entries (feature ``j`` starts at ``offset_j``). ``joint[c, u, u']``
counts the rows of class ``c`` holding both values; its diagonal
``joint[c, u, u]`` counts the rows holding ``u``. A missing value (code -1) adds
nothing to any pair it is part of, so every conditional below is estimated from the
rows where its own variables are observed.

Memory: ``n_classes * V^2`` floats (50 columns of 20 values, 3 classes: 24 MB).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp

from nbayes.core import vocabulary as _vocabulary
from nbayes.core.validation import ClassWeights
from nbayes.events.categorical import offsets_of

_CELLS_PER_CHUNK = 1 << 22  # bounds the rows x features^2 temporaries
MAX_TABLE_BYTES = 1 << 31  # refuse pair tables above 2 GiB with a clear error


def check_table_size(n_classes: int, vocabularies: tuple) -> None:
    """Raise a clear error before allocating an oversized (k, V, V) table."""
    sizes = [len(v) for v in vocabularies]
    width = sum(sizes)
    if n_classes * width * width * 8 > MAX_TABLE_BYTES:
        widest = int(np.argmax(sizes))
        raise ValueError(
            f"The pairwise table would need {n_classes * width * width * 8 / 2**30:.1f} GiB "
            f"({width} distinct values over all columns; column {widest} alone has "
            f"{sizes[widest]}). Bin continuous or high-cardinality columns first."
        )


@dataclass(frozen=True)
class PairStats:
    """Additive pairwise statistics.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
    vocabularies : tuple of n_features tuples
        The values of each feature, in code order (``K_j = len(vocabularies[j])``).
    joint : ndarray of shape (n_classes, V, V)
        Weighted co-occurrence counts in the flat layout.
    """

    class_count: NDArray[np.float64]
    vocabularies: tuple[tuple, ...]
    joint: NDArray[np.float64]

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> PairStats:
        return cls(np.zeros(n_classes), ((),) * n_features, np.zeros((n_classes, 0, 0)))

    @property
    def n_categories(self) -> NDArray[np.intp]:
        return np.array([len(v) for v in self.vocabularies], dtype=np.intp)

    def __add__(self, other: PairStats) -> PairStats:
        vocabularies, landings = [], []
        for mine, theirs in zip(self.vocabularies, other.vocabularies, strict=True):
            merged, landing = _vocabulary.union(mine, theirs)
            vocabularies.append(merged)
            landings.append(landing)
        n_categories = np.array([len(v) for v in vocabularies], dtype=np.intp)
        offsets = offsets_of(n_categories)
        width = int(n_categories.sum())
        joint = np.zeros((self.class_count.shape[0], width, width))
        mine = np.concatenate(
            [offsets[j] + np.arange(len(v)) for j, v in enumerate(self.vocabularies)]
            or [np.empty(0, np.intp)]
        )
        theirs = np.concatenate(
            [offsets[j] + landing for j, landing in enumerate(landings)] or [np.empty(0, np.intp)]
        )
        joint[:, mine[:, None], mine[None, :]] += self.joint
        joint[:, theirs[:, None], theirs[None, :]] += other.joint
        return PairStats(self.class_count + other.class_count, tuple(vocabularies), joint)

    def take_classes(self, index: NDArray[np.intp], n_classes: int) -> PairStats:
        """These statistics with class ``c`` moved to ``index[c]`` of ``n_classes``."""
        class_count = np.zeros(n_classes)
        class_count[index] = self.class_count
        joint = np.zeros((n_classes, *self.joint.shape[1:]))
        joint[index] = self.joint
        return PairStats(class_count, self.vocabularies, joint)


def summarize(codes: NDArray[np.intp], W: ClassWeights, vocabularies: tuple) -> PairStats:
    """Pair counts of integer codes (n_samples, n_features); -1 marks a missing value.

    ``vocabularies`` must already hold every code in ``codes``.
    """
    check_table_size(W.n_classes, vocabularies)
    n_categories = np.array([len(v) for v in vocabularies], dtype=np.intp)
    n_classes, (n_samples, n_features) = W.n_classes, codes.shape
    width = int(n_categories.sum())
    joint = np.zeros(n_classes * width * width)
    flat = np.where(codes >= 0, codes + offsets_of(n_categories), -1)
    rows_per_chunk = max(1, _CELLS_PER_CHUNK // max(1, n_features * n_features))
    dense_W = W.matrix.toarray() if W.labels is None and hasattr(W.matrix, "toarray") else None
    for start in range(0, n_samples, rows_per_chunk):
        block = flat[start : start + rows_per_chunk]
        observed = (block[:, :, None] >= 0) & (block[:, None, :] >= 0)
        pair = block[:, :, None] * width + block[:, None, :]
        rows = np.broadcast_to(np.arange(block.shape[0])[:, None, None], pair.shape)[observed]
        pair = pair[observed]
        if W.labels is not None:
            chunk_labels = W.labels[start : start + rows_per_chunk]
            weights = W.values[start : start + rows_per_chunk][rows]
            joint += np.bincount(
                chunk_labels[rows] * width * width + pair, weights, n_classes * width * width
            )
        else:
            soft = (dense_W if dense_W is not None else W.matrix)[start : start + rows_per_chunk]
            for c in range(n_classes):
                joint[c * width * width : (c + 1) * width * width] += np.bincount(
                    pair, soft[rows, c], width * width
                )
    return PairStats(W.class_totals(), tuple(vocabularies), joint.reshape(n_classes, width, width))


@dataclass(frozen=True)
class PairParams:
    """Smoothed log-probabilities in the flat layout.

    Attributes
    ----------
    log_joint_parent : ndarray (n_classes, V)
        ``log P(y=c, x_i=v)`` for each flat value ``u = (i, v)``.
    log_child : ndarray (n_classes, V, V)
        ``log P(x_j=w | y=c, x_i=v)`` at ``[c, (i, v), (j, w)]``.
    log_single : ndarray (n_classes, V)
        ``log P(x_j=w | y=c)``, the naive Bayes factors (the fallback).
    parent_count : ndarray (V,)
        ``F(x_i=v)``, the training count of each value.
    feature_of : ndarray (V,)
        The feature each flat index belongs to.
    """

    log_joint_parent: NDArray[np.float64]
    log_child: NDArray[np.float64]
    log_single: NDArray[np.float64]
    parent_count: NDArray[np.float64]
    feature_of: NDArray[np.intp]
    n_categories: NDArray[np.intp]


def _per_feature_sums(counts: NDArray, n_categories: NDArray[np.intp]) -> NDArray:
    """Sum the last axis over each feature's block and broadcast back: same shape."""
    if counts.shape[-1] == 0:
        return counts
    sums = np.add.reduceat(counts, offsets_of(n_categories), axis=-1)
    return np.repeat(sums, n_categories, axis=-1)


def estimate(stats: PairStats, alpha: float) -> PairParams:
    """Lidstone estimates (Webb, Boughton & Wang, 2005, with pseudocount alpha):

    ``P(y, x_i) = (F(y, x_i) + alpha) / (F_i + k K_i alpha)``,
    ``P(x_j | y, x_i) = (F(y, x_i, x_j) + alpha) / (F(y, x_i, x_j observed) + K_j alpha)``,
    where ``F_i`` counts the rows with ``x_i`` observed.
    """
    n_categories = stats.n_categories
    n_classes = stats.class_count.shape[0]
    feature_of = np.repeat(np.arange(n_categories.shape[0]), n_categories)
    single = np.diagonal(stats.joint, axis1=1, axis2=2)  # F(y, x_i): (k, V)
    observed_i = _per_feature_sums(single.sum(axis=0, keepdims=True), n_categories)[0]
    with np.errstate(divide="ignore"):
        log_joint_parent = np.log(single + alpha) - np.log(
            observed_i + n_classes * n_categories[feature_of] * alpha
        )
        log_child = np.log(stats.joint + alpha) - np.log(
            _per_feature_sums(stats.joint, n_categories) + n_categories[feature_of] * alpha
        )
        log_single = np.log(single + alpha) - np.log(
            _per_feature_sums(single, n_categories) + n_categories[feature_of] * alpha
        )
    return PairParams(
        log_joint_parent, log_child, log_single, single.sum(axis=0), feature_of, n_categories
    )


def _flat_codes(params: PairParams, codes: NDArray[np.intp]) -> NDArray[np.intp]:
    """Flat indices of codes; -1 for missing or unknown values (left out)."""
    known = (codes >= 0) & (codes < params.n_categories)
    return np.where(known, codes + offsets_of(params.n_categories), -1)


def aode_log_joint(
    params: PairParams,
    codes: NDArray[np.intp],
    min_parent_count: float,
    log_prior: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``log P(y, x)`` under AODE, shape (n_samples, n_classes):

    ``log [ (1/|P|) sum_{i in P} P(y, x_i) prod_{j != i} P(x_j | y, x_i) ]`` over the
    parents ``P = {i : x_i observed, F(x_i) >= min_parent_count}``; rows with no such
    parent get naive Bayes, ``log P(y) + sum_j log P(x_j | y)``.
    Cost: O(n_classes * n_features^2) per row.
    """
    flat = _flat_codes(params, codes)
    n_samples, n_features = flat.shape
    n_classes = params.log_child.shape[0]
    out = np.empty((n_samples, n_classes))
    rows_per_chunk = max(1, _CELLS_PER_CHUNK // max(1, n_classes * n_features * n_features))
    not_self = ~np.eye(n_features, dtype=bool)
    for start in range(0, n_samples, rows_per_chunk):
        block = flat[start : start + rows_per_chunk]
        present = block >= 0
        safe = np.where(present, block, 0)
        children = params.log_child[:, safe[:, :, None], safe[:, None, :]]  # (k, r, d, d)
        counted = present[:, None, :] & not_self
        spode = np.where(counted, children, 0.0).sum(axis=3) + params.log_joint_parent[:, safe]
        parent = present & (params.parent_count[safe] >= min_parent_count)
        spode = np.where(parent, spode, -np.inf)  # (k, r, d)
        n_parents = parent.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):  # rows without parents
            averaged = logsumexp(spode, axis=2) - np.log(n_parents)
        out[start : start + rows_per_chunk] = averaged.T
        fallback = n_parents == 0
        if fallback.any():
            out[start : start + rows_per_chunk][fallback] = naive_bayes_log_joint(
                params, block[fallback], log_prior
            )
    return out


def naive_bayes_log_joint(
    params: PairParams, flat: NDArray[np.intp], log_prior: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``log P(y) + sum_j log P(x_j | y)`` for flat indices (-1 = left out)."""
    present = flat >= 0
    terms = params.log_single[:, np.where(present, flat, 0)]  # (k, r, d)
    return (np.where(present, terms, 0.0).sum(axis=2) + log_prior[:, None]).T


def conditional_mutual_information(stats: PairStats) -> NDArray[np.float64]:
    """``I(X_i; X_j | Y)`` in nats for every pair of features: (n_features, n_features).

    ``sum_{y,v,w} p(y,v,w) log[p(y,v,w) p(y) / (p(y,v) p(y,w))]`` with the empirical
    probabilities of the rows where both features are observed. Diagonal: 0.
    """
    n_categories = stats.n_categories
    offsets = offsets_of(n_categories)
    d = n_categories.shape[0]
    cmi = np.zeros((d, d))
    for i in range(d):
        for j in range(i + 1, d):
            block = stats.joint[
                :,
                offsets[i] : offsets[i] + n_categories[i],
                offsets[j] : offsets[j] + n_categories[j],
            ]
            total = block.sum()
            if total <= 0:
                continue
            p = block / total
            p_y = p.sum(axis=(1, 2))[:, None, None]
            p_yv = p.sum(axis=2)[:, :, None]
            p_yw = p.sum(axis=1)[:, None, :]
            nonzero = p > 0
            ratio = (p * p_y)[nonzero] / (p_yv * p_yw)[nonzero]
            cmi[i, j] = cmi[j, i] = max(0.0, float((p[nonzero] * np.log(ratio)).sum()))
    return cmi


def conditional_entropy(stats: PairStats) -> NDArray[np.float64]:
    """``H(X_j | Y)`` in nats for each feature, from the diagonal counts: (n_features,)."""
    single = np.diagonal(stats.joint, axis1=1, axis2=2)
    offsets = offsets_of(stats.n_categories)
    out = np.zeros(stats.n_categories.shape[0])
    for j, (start, width) in enumerate(zip(offsets, stats.n_categories, strict=True)):
        block = single[:, start : start + width]
        total = block.sum()
        if total <= 0:
            continue
        p = block / total
        p_y = p.sum(axis=1, keepdims=True)
        nonzero = p > 0
        out[j] = -float((p[nonzero] * np.log((p / np.where(p_y > 0, p_y, 1))[nonzero])).sum())
    return out
