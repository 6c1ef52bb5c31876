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
from numbers import Real
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree
from scipy.special import logsumexp
from sklearn.utils._param_validation import Interval

from nbayes.core import vocabulary as _vocabulary
from nbayes.core.posterior import class_log_prior
from nbayes.core.validation import ClassWeights
from nbayes.errors import StatisticsError
from nbayes.events._contract import EventModel, Reads, pseudocount_interval, setting
from nbayes.events._stats import CLASS, Statistics, stat
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
class PairStats(Statistics):
    """Additive pairwise statistics.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
    vocabularies : tuple of n_features tuples
        The values of each feature, in code order (``K_j = len(vocabularies[j])``).
    joint : ndarray of shape (n_classes, V, V)
        Weighted co-occurrence counts in the flat layout.
    """

    class_count: NDArray[np.float64] = stat(CLASS, nonnegative=True)
    vocabularies: tuple[tuple, ...] = stat()
    joint: NDArray[np.float64] = stat(CLASS, None, None, nonnegative=True)

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

    def _validate_more(self, n_classes: int, n_features: int) -> None:
        if not isinstance(self.vocabularies, tuple) or len(self.vocabularies) != n_features:
            raise StatisticsError(f"PairStats.vocabularies must hold {n_features} tuples.")
        if not all(isinstance(v, tuple) and len(set(v)) == len(v) for v in self.vocabularies):
            raise StatisticsError("PairStats: a vocabulary holds a value twice.")
        width = int(self.n_categories.sum())
        if self.joint.shape[1:] != (width, width):
            raise StatisticsError(
                f"PairStats.joint is {self.joint.shape[1:]} per class; the vocabularies "
                f"need ({width}, {width})."
            )


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


def _estimate(stats: PairStats, alpha: float) -> PairParams:
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


# ---------------------------------------------------------------- the event models
def _draw(log_weights: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.intp]:
    """One index per row from unnormalised log-weights (n, K): inverse-CDF sampling."""
    weights = np.exp(log_weights - log_weights.max(axis=1, keepdims=True))
    cdf = np.cumsum(weights, axis=1)
    draws = rng.random(weights.shape[0]) * cdf[:, -1]
    return np.minimum((cdf <= draws[:, None]).sum(axis=1), weights.shape[1] - 1)


def _block(params: PairParams, j: int) -> slice:
    start = int(offsets_of(params.n_categories)[j])
    return slice(start, start + int(params.n_categories[j]))


def _decode(stats: PairStats, codes: NDArray[np.intp]) -> NDArray:
    """Values (object array) of integer codes, column by column."""
    out = np.empty(codes.shape, dtype=object)
    for j, vocabulary in enumerate(stats.vocabularies):
        out[:, j] = np.asarray(vocabulary, dtype=object)[codes[:, j]]
    return out


def _check_categorical(X: NDArray) -> NDArray:
    """X as an object array; a non-integer float is a continuous value: an error."""
    X = np.asarray(X, dtype=object)
    for j in range(X.shape[1]):
        column = X[:, j]
        floats = np.array(
            [isinstance(v, float | np.floating) and not _vocabulary.is_missing(v) for v in column],
            dtype=bool,
        )
        if floats.any() and np.any(np.mod(column[floats].astype(float), 1) != 0):
            raise ValueError(
                f"Column {j} holds continuous values (non-integer floats); the pairwise "
                "models take categorical data: bin the column first "
                "(e.g. sklearn.preprocessing.KBinsDiscretizer)."
            )
    return X


@dataclass(frozen=True)
class AODEParams:
    """The pairwise estimates, ``log P(y)`` (n_classes,), with which the models' joint
    ``log P(x, y)`` becomes the conditional ``log P(x | y)``, and the vocabularies that
    turn values into codes."""

    pairs: PairParams
    log_prior: NDArray[np.float64]
    vocabularies: tuple[tuple, ...]

    def codes(self, X) -> NDArray[np.intp]:
        """Codes of X's values (unknown values one past each vocabulary, missing -1)."""
        codes, _ = _vocabulary.encode(np.asarray(X, dtype=object), self.vocabularies, grow=False)
        return codes


    def onnx_codes(self, x: list, graph) -> tuple[str, str]:
        """``(present, flat)`` for the string columns ``x`` (each (n, 1)) as ONNX ops:
        where each value is known (seen in training, not "" = missing), and its flat
        index (0 where not present, so it can be gathered): both (n, n_features)."""
        codes = [
            graph.value_codes(column, self.vocabularies[j], unseen=-1)
            for j, column in enumerate(x)
        ]
        codes = codes[0] if len(codes) == 1 else graph.op("Concat", *codes, axis=1)
        present = graph.op("GreaterOrEqual", codes, graph.const(np.zeros(1, dtype=np.int64)))
        offsets = offsets_of(self.pairs.n_categories).astype(np.int64)
        flat = graph.op("Add", codes, graph.const(offsets[None, :]))
        return present, graph.where(present, flat, graph.const(np.zeros(1, dtype=np.int64)))


def _onnx_pair_index(graph, parent: str, child: str, width: int) -> str:
    """The row of ``log_child`` laid out as (V * V, n_classes) for flat indices
    ``parent`` and ``child``: ``parent * V + child``."""
    return graph.op("Add", graph.op("Mul", parent, graph.const(np.array(width, dtype=np.int64))),
                    child)  # fmt: skip


def _onnx_tables(pairs: PairParams) -> tuple[NDArray, NDArray, NDArray]:
    """``log_joint_parent``, ``log_child`` and ``log_single`` with the classes last,
    for gathers: (V, k), (V * V, k), (V, k)."""
    n_classes, width = pairs.log_joint_parent.shape
    child = np.moveaxis(pairs.log_child, 0, -1).reshape(width * width, n_classes)
    return pairs.log_joint_parent.T, child, pairs.log_single.T


@dataclass(frozen=True)
class TreeParams(AODEParams):
    """TAN's parameters: also each feature's tree parent (-1 for the root)."""

    tree_parent: NDArray[np.intp]


@dataclass(frozen=True)
class _Pairwise(EventModel[PairStats, AODEParams]):
    """Shared by AODE and TAN: categorical data of any hashable values (a vocabulary
    per feature, grown as data arrive; None/NaN missing), pairwise statistics."""

    column_kind: ClassVar[bool] = False
    factor_kind: ClassVar[str] = "conditional probability"
    reads: ClassVar[Reads] = "values"

    alpha: float = setting(1.0, pseudocount_interval())
    prior_alpha: float = setting(0.0, Interval(Real, 0, None, closed="left"))

    def check(self, X):
        return _check_categorical(X)

    def missing(self, n_samples: int, n_features: int) -> NDArray:
        return np.full((n_samples, n_features), None, dtype=object)

    def zero(self, n_classes: int, n_features: int) -> PairStats:
        return PairStats.zero(n_classes, n_features)

    def add_into(self, stats: PairStats, X, W: ClassWeights) -> PairStats:
        codes, vocabularies = _vocabulary.encode(X, stats.vocabularies, grow=True)
        return stats + summarize(codes, W, vocabularies)

    def summarize(self, X, W: ClassWeights) -> PairStats:
        return self.add_into(PairStats.zero(W.n_classes, X.shape[1]), X, W)

    def log_prior(self, stats: PairStats) -> NDArray[np.float64]:
        """``log P(y)`` (n_classes,) from the class counts, Lidstone-smoothed by
        ``prior_alpha``."""
        return class_log_prior(stats.class_count, pseudocount=self.prior_alpha)

    def log_parameter_prior(self, params: AODEParams) -> float:
        return 0.0

    def value_grid(self, params, stats, j, class_prior) -> list:
        """Every value of feature ``j`` seen in training."""
        return list(stats.vocabularies[j])

    def unseen(self, params: AODEParams, j: int, values) -> NDArray[np.bool_]:
        """Values outside feature ``j``'s vocabulary."""
        X = self.missing(len(values), len(params.vocabularies))
        X[:, j] = values
        return params.codes(X)[:, j] >= len(params.vocabularies[j])

    def log_likelihood_terms(self, params: AODEParams, X) -> NDArray[np.float64]:
        """The chain rule ``log P(x_j | y, x_1 .. x_{j-1})`` under the model, each from
        the model's likelihood of the row's first features with the rest left out
        (missing): they sum to :meth:`log_likelihood`."""
        X = np.asarray(X, dtype=object)
        n_samples, n_features = X.shape
        terms = np.zeros((n_samples, params.log_prior.shape[0], n_features))
        previous = np.zeros((n_samples, params.log_prior.shape[0]))
        partial = self.missing(n_samples, n_features)
        for j in range(n_features):
            partial[:, j] = X[:, j]
            current = self.log_likelihood(params, partial)
            with np.errstate(invalid="ignore"):
                terms[:, :, j] = current - previous
            previous = current
        return terms


@dataclass(frozen=True)
class OneDependence(_Pairwise):
    """Averaged one-dependence estimators (Webb, Boughton & Wang, 2005):
    ``P(y, x) ∝ sum_{i in P(x)} P(y, x_i) prod_{j != i} P(x_j | y, x_i)`` over the
    super-parents ``P(x)``, the observed values seen at least ``min_parent_count``
    times; naive Bayes where there is none."""

    name: ClassVar[str] = "aode"

    min_parent_count: float = setting(1, Interval(Real, 0, None, closed="left"))

    def estimate(self, stats: PairStats) -> AODEParams:
        return AODEParams(_estimate(stats, self.alpha), self.log_prior(stats), stats.vocabularies)

    def log_likelihood(self, params: AODEParams, X) -> NDArray[np.float64]:
        """``log P(x, y) - log P(y)`` under AODE (see :func:`aode_log_joint`)."""
        codes = params.codes(X)
        joint = aode_log_joint(params.pairs, codes, self.min_parent_count, params.log_prior)
        return joint - params.log_prior

    def onnx_log_likelihood(self, params: AODEParams, x: list, graph) -> str:
        """:func:`aode_log_joint` minus ``log P(y)`` as ONNX ops: every (parent, child)
        pair's ``log P(x_j | y, x_i)`` gathered at once (n, d, d, k), summed over the
        observed children, plus ``log P(y, x_i)``; log-sum-exp over the parents seen
        at least ``min_parent_count`` times, less ``log |P|``; naive Bayes for rows
        without a parent."""
        pairs = params.pairs
        joint_parent, child, single = _onnx_tables(pairs)
        present, flat = params.onnx_codes(x, graph)
        n_features = len(x)
        width = joint_parent.shape[0]
        parents = graph.op("Unsqueeze", flat, graph.const([2]))  # (n, d, 1)
        children = graph.op("Unsqueeze", flat, graph.const([1]))  # (n, 1, d)
        gathered = graph.op("Gather", graph.const(child),
                            _onnx_pair_index(graph, parents, children, width), axis=0)
        not_self = ~np.eye(n_features, dtype=bool)
        counted = graph.op("And", graph.op("Unsqueeze", present, graph.const([1])),
                           graph.const(not_self[None]))  # (n, d, d)
        counted = graph.op("Unsqueeze", counted, graph.const([3]))
        spode = graph.reduce("ReduceSum", graph.zero_where(graph.op("Not", counted), gathered),
                             axis=2)  # (n, d, k)
        spode = graph.op("Add", spode, graph.op("Gather", graph.const(joint_parent), flat, axis=0))
        frequent = graph.op("GreaterOrEqual",
                            graph.op("Gather", graph.const(pairs.parent_count), flat, axis=0),
                            graph.const(float(self.min_parent_count)))
        is_parent = graph.op("And", present, frequent)  # (n, d)
        spode = graph.where(graph.op("Unsqueeze", is_parent, graph.const([2])), spode,
                            graph.const(-np.inf))
        n_parents = graph.reduce("ReduceSum", graph.op("Cast", is_parent, to=graph.float_type),
                                 axis=1, keepdims=True)  # (n, 1)
        averaged = graph.op("Sub", graph.reduce("ReduceLogSumExp", spode, axis=1),
                            graph.op("Log", n_parents))
        averaged = graph.op("Sub", averaged, graph.const(params.log_prior[None, :]))
        naive = graph.reduce("ReduceSum", graph.zero_where(
            graph.op("Not", graph.op("Unsqueeze", present, graph.const([2]))),
            graph.op("Gather", graph.const(single), flat, axis=0)), axis=1)
        none = graph.op("Equal", n_parents, graph.const(0.0))
        return graph.where(none, naive, averaged)  # fmt: skip

    def sample(self, params, stats, class_index, rng) -> NDArray:
        """Rows given the classes: the super-parent i with weight ``sum_v P(y, x_i = v)``,
        ``x_i ~ P(x_i | y)``, then each other ``x_j ~ P(x_j | y, x_i)``."""
        pairs = params.pairs
        d = pairs.n_categories.shape[0]
        parent_weight = np.stack(
            [logsumexp(pairs.log_joint_parent[:, _block(pairs, i)], axis=1) for i in range(d)],
            axis=1,
        )  # (k, d)
        parent = _draw(parent_weight[class_index], rng)
        codes = np.empty((class_index.shape[0], d), dtype=np.intp)
        for i in range(d):
            rows = np.flatnonzero(parent == i)
            codes[rows, i] = _draw(pairs.log_joint_parent[class_index[rows], _block(pairs, i)], rng)
            self._draw_children(pairs, codes, rows, class_index[rows], i, rng)
        return _decode(stats, codes)

    def sample_joint(self, params, stats, n_samples: int, rng) -> tuple[NDArray, NDArray]:
        """``(X, class_index)`` from AODE's joint, a uniform mixture of one-dependence
        models (``min_parent_count`` not applied): the super-parent i uniformly, then
        ``(y, x_i) ~ P(y, x_i)``, then each other ``x_j ~ P(x_j | y, x_i)``."""
        pairs = params.pairs
        d = pairs.n_categories.shape[0]
        parent = rng.integers(0, d, size=n_samples)
        class_index = np.zeros(n_samples, dtype=np.intp)
        codes = np.empty((n_samples, d), dtype=np.intp)
        for i in range(d):
            rows = np.flatnonzero(parent == i)
            table = pairs.log_joint_parent[:, _block(pairs, i)].reshape(1, -1)
            cell = _draw(np.repeat(table, rows.shape[0], axis=0), rng)
            class_index[rows], codes[rows, i] = np.divmod(cell, pairs.n_categories[i])
            self._draw_children(pairs, codes, rows, class_index[rows], i, rng)
        return _decode(stats, codes), class_index

    @staticmethod
    def _draw_children(pairs, codes, rows, classes, i, rng) -> None:
        offsets = offsets_of(pairs.n_categories)
        for j in range(pairs.n_categories.shape[0]):
            if j != i:
                given = offsets[i] + codes[rows, i]
                codes[rows, j] = _draw(pairs.log_child[classes, given, _block(pairs, j)], rng)


@dataclass(frozen=True)
class TreeAugmented(_Pairwise):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt, 1997): each feature
    has one feature parent besides the class, along the maximum spanning tree of the
    conditional mutual information (rooted at feature 0); a missing or unseen parent
    value falls back to ``P(x_j | y)``."""

    name: ClassVar[str] = "tan"

    def estimate(self, stats: PairStats) -> TreeParams:
        parents = spanning_tree_parents(conditional_mutual_information(stats))
        pairs = _estimate(stats, self.alpha)
        return TreeParams(pairs, self.log_prior(stats), stats.vocabularies, parents)

    def log_likelihood_terms(self, params: TreeParams, X) -> NDArray[np.float64]:
        """``log P(x_j | y, x_parent(j))`` per feature (the root's ``log P(x_r | y)``),
        0 where ``x_j`` is missing or unknown: (n_samples, n_classes, n_features)."""
        pairs, parents = params.pairs, params.tree_parent
        flat = _flat_codes(pairs, params.codes(X))
        present = flat >= 0
        safe = np.where(present, flat, 0)
        root = int(np.flatnonzero(parents < 0)[0]) if parents.size else 0
        terms = np.zeros((flat.shape[0], pairs.log_child.shape[0], flat.shape[1]))
        for j in range(flat.shape[1]):
            if j == root:
                term = np.where(
                    present[:, j],
                    pairs.log_joint_parent[:, safe[:, j]],
                    params.log_prior[:, None],
                )
                term = term - params.log_prior[:, None]
            else:
                p = parents[j]
                with_parent = pairs.log_child[:, safe[:, p], safe[:, j]]
                alone = pairs.log_single[:, safe[:, j]]
                term = np.where(present[:, p], with_parent, alone)
                term = np.where(present[:, j], term, 0.0)
            terms[:, :, j] = term.T
        return terms

    def onnx_log_likelihood(self, params: TreeParams, x: list, graph) -> str:
        """:meth:`log_likelihood_terms` summed, as ONNX gathers: the root's
        ``log P(y, x_r) - log P(y)``, each other feature's ``log P(x_j | y, x_p)``
        (``log P(x_j | y)`` where the parent is not present), 0 where x_j is not."""
        pairs, parents = params.pairs, params.tree_parent
        joint_parent, child, single = _onnx_tables(pairs)
        present, flat = params.onnx_codes(x, graph)
        width = joint_parent.shape[0]
        root = int(np.flatnonzero(parents < 0)[0]) if parents.size else 0

        def column(tensor: str, j: int) -> str:
            return graph.op("Slice", tensor, graph.const([j]), graph.const([j + 1]),
                            graph.const([1]))

        total = None
        for j in range(len(x)):
            here, index = column(present, j), column(flat, j)
            if j == root:
                term = graph.op("Sub", graph.op("Gather", graph.const(joint_parent), index, axis=0),
                                graph.const(params.log_prior[None, None, :]))
            else:
                parent, parent_index = column(present, parents[j]), column(flat, parents[j])
                with_parent = graph.op("Gather", graph.const(child),
                                       _onnx_pair_index(graph, parent_index, index, width), axis=0)
                alone = graph.op("Gather", graph.const(single), index, axis=0)
                term = graph.where(graph.op("Unsqueeze", parent, graph.const([2])), with_parent,
                                   alone)
            term = graph.zero_where(graph.op("Not", graph.op("Unsqueeze", here, graph.const([2]))),
                                    term)  # (n, 1, k)
            term = graph.op("Squeeze", term, graph.const([1]))
            total = term if total is None else graph.op("Add", total, term)
        return total  # fmt: skip

    def log_likelihood(self, params: TreeParams, X) -> NDArray[np.float64]:
        terms = self.log_likelihood_terms(params, X)
        out = np.zeros(terms.shape[:2])
        for j in range(terms.shape[2]):
            out += terms[:, :, j]
        return out

    def sample(self, params, stats, class_index, rng) -> NDArray:
        """Ancestral sampling down the tree: the root from ``P(x_r | y)``, then each
        feature from ``P(x_j | y, x_parent(j))``, parents first."""
        pairs, parents = params.pairs, params.tree_parent
        d = parents.shape[0]
        codes = np.empty((class_index.shape[0], d), dtype=np.intp)
        offsets = offsets_of(pairs.n_categories)
        for j in parents_first(parents):
            if parents[j] < 0:
                log_weights = pairs.log_joint_parent[class_index, _block(pairs, j)]
            else:
                given = offsets[parents[j]] + codes[:, parents[j]]
                log_weights = pairs.log_child[class_index, given, _block(pairs, j)]
            codes[:, j] = _draw(log_weights, rng)
        return _decode(stats, codes)


def parents_first(parents: NDArray[np.intp]) -> list[int]:
    """The features in an order where every parent precedes its children."""
    order, placed = [], set()
    while len(order) < parents.shape[0]:
        for j, p in enumerate(parents):
            if j not in placed and (p < 0 or p in placed):
                order.append(j)
                placed.add(j)
    return order


def spanning_tree_parents(weights: NDArray[np.float64]) -> NDArray[np.intp]:
    """Parent of each node in the maximum spanning tree of ``weights``, rooted at 0."""
    d = weights.shape[0]
    if d == 0:
        return np.empty(0, np.intp)
    # Maximum tree = minimum tree of (max + 1 - w); the shift keeps every edge positive.
    cost = np.where(~np.eye(d, dtype=bool), weights.max() + 1.0 - weights, 0.0)
    tree = minimum_spanning_tree(cost)
    tree = tree + tree.T
    _, predecessors = breadth_first_order(tree, 0, directed=False)
    parents = np.asarray(predecessors, dtype=np.intp)
    parents[parents < 0] = -1
    parents[0] = -1
    return parents
