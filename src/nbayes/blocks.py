"""Block adapters: one small class per kind, wrapping ``nbayes.events.<kind>``.

A *block* is one or more columns of a table modelled by one event model. The
adapter reads its columns out of the table (checking them, naming the column in
every error), and passes statistics, estimates and log-likelihoods through to the
event module, adding only what mixed tables need: missing values and, for
categorical columns, a vocabulary of arbitrary hashable values.

Missing values (``NaN``, None, ``pd.NA``, polars null) are *skipped*: in
``summarize`` a missing value adds nothing to the statistics of its column, and in
``log_likelihood`` its column's term is left out of that row (the feature is
marginalised). Rows are grouped by their pattern of missing columns, so each group
is one call to the event module on the columns it has. In a multinomial block a
missing count adds nothing to that column's count, i.e. it reads as 0.

``KINDS`` maps each kind name to its adapter class; :func:`register_kind` adds one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes._validate import ClassWeights
from nbayes.columns import read_column
from nbayes.events import bernoulli, categorical, counts, gaussian, multinomial
from nbayes.events.categorical import CategoricalStats, UnknownCategoryError

KINDS: dict[str, type[Block]] = {}


def register_kind(adapter: type[Block]) -> type[Block]:
    """Class decorator: make ``adapter`` the block of kind ``adapter.kind``."""
    KINDS[adapter.kind] = adapter
    return adapter


@dataclass(frozen=True)
class Block:
    """Columns ``keys`` (at ``positions`` in the table) under one event model.

    Subclasses set ``kind`` and implement ``read``, ``zero``, ``summarize``,
    ``estimate`` and ``log_likelihood``; ``estimate`` receives every setting of the
    estimator (``alpha``, ``var_smoothing``, ``ddof``, ``handle_unknown``) and takes
    the ones its event model uses.
    """

    kind: ClassVar[str]
    keys: tuple[Hashable, ...]
    positions: tuple[int, ...]

    def read(self, X) -> Any:
        raise NotImplementedError

    def zero(self, n_classes: int) -> Any:
        raise NotImplementedError

    def summarize(self, data, W: ClassWeights) -> Any:
        raise NotImplementedError

    def estimate(self, stats, **settings) -> Any:
        raise NotImplementedError

    def log_likelihood(self, params, data) -> NDArray[np.float64]:
        raise NotImplementedError

    def log_likelihood_terms(self, params, data) -> NDArray[np.float64]:
        """Per-column terms (n_samples, n_classes, n_columns), 0 where left out;
        summed over columns they are :meth:`log_likelihood`."""
        raise NotImplementedError

    # ---------------------------------------------------------------- helpers
    def _read_numbers(self, X) -> NDArray[np.float64]:
        """The block's columns as floats (n_samples, n_columns), NaN where missing."""
        columns = [self._as_float(*read_column(X, j), key) for key, j in self._columns()]
        return np.column_stack(columns)

    def _columns(self):
        return zip(self.keys, self.positions, strict=True)

    def _as_float(self, values: NDArray, missing: NDArray, key) -> NDArray[np.float64]:
        if values.dtype.kind in "US" or (
            values.dtype.kind == "O" and any(isinstance(v, str | bytes) for v in values[~missing])
        ):
            bad = next(v for v in values[~missing] if isinstance(v, str | bytes | np.str_))
            raise ValueError(
                f"Column {key!r} is {self.kind} but holds strings such as {bad!r}; "
                f"declare it columns={{{key!r}: 'categorical'}} or convert it to numbers."
            )
        filled = np.array(values, dtype=object if values.dtype.kind == "O" else None)
        filled[missing] = np.nan if filled.dtype.kind in "fO" else 0
        try:
            out = filled.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"Column {key!r} is {self.kind} but holds non-numbers: {exc}"
            ) from None
        out[missing] = np.nan
        if np.isinf(out).any():
            raise ValueError(f"Column {key!r} holds infinite values.")
        return out


def by_missing_pattern(
    missing: NDArray[np.bool_],
    n_classes: int,
    columns_ll: Callable[[NDArray, NDArray[np.bool_]], NDArray[np.float64]],
) -> NDArray[np.float64]:
    """``log P(x | c)`` summed over each row's observed columns only.

    ``columns_ll(rows, keep)`` gives the log-likelihood (len(rows), n_classes) of
    ``rows`` on the columns ``keep``; it is called once per missingness pattern.
    """
    n_samples = missing.shape[0]
    if not missing.any():
        return columns_ll(np.arange(n_samples), np.ones(missing.shape[1], dtype=bool))
    out = np.zeros((n_samples, n_classes))
    patterns, inverse = np.unique(missing, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(patterns) + 1))
    for p, pattern in enumerate(patterns):
        if pattern.all():
            continue
        rows = order[bounds[p] : bounds[p + 1]]
        out[rows] = columns_ll(rows, ~pattern)
    return out


@register_kind
@dataclass(frozen=True)
class GaussianBlock(Block):
    """Normal per class and column (:mod:`nbayes.events.gaussian`).

    Variance floor: ``var_smoothing`` times the column's own overall variance, not the
    largest column's as in ``GaussianNB``: a table's columns have unrelated scales
    (adult's fnlwgt varies ~1e10, education-num ~7), and a floor set by one column
    would swamp another; per column, the floor is scale-invariant and a column's
    parameters do not depend on which other columns are in the table.
    """

    kind: ClassVar[str] = "gaussian"

    def read(self, X) -> NDArray[np.float64]:
        return self._read_numbers(X)

    def zero(self, n_classes: int) -> gaussian.GaussianStats:
        return gaussian.GaussianStats.zero(n_classes, len(self.keys))

    def summarize(self, data, W):
        observed = ~np.isnan(data)
        return gaussian.summarize(data, W, None if observed.all() else observed)

    def estimate(self, stats, *, var_smoothing, ddof, **_):
        """Per-class means and variances; each column's variance floor is
        ``var_smoothing`` times that column's own overall variance
        (:func:`nbayes.events.gaussian.variance_floor` applied column by column)."""
        params = gaussian.estimate(stats, var_smoothing=0.0, ddof=ddof)
        floors = np.array(
            [
                gaussian.variance_floor(_column(stats, j), var_smoothing)
                for j in range(len(self.keys))
            ]
        )
        params = gaussian.GaussianParams(params.theta, params.var + floors, floors)
        return GaussianBlockParams(params, stats.total_count > 0)

    def log_likelihood(self, block_params, data):
        params = block_params.params

        def on_columns(rows, keep):
            kept = gaussian.GaussianParams(
                params.theta[:, keep], params.var[:, keep], params.epsilon[keep]
            )
            return gaussian.log_likelihood(kept, data[np.ix_(rows, keep)])

        unknown = np.isnan(data) | ~block_params.seen  # a column never seen says nothing
        return by_missing_pattern(unknown, params.theta.shape[0], on_columns)

    def log_likelihood_terms(self, block_params, data):
        terms = gaussian.log_likelihood_terms(block_params.params, data)
        unknown = np.isnan(data) | ~block_params.seen
        return np.where(unknown[:, None, :], 0.0, terms)


@dataclass(frozen=True)
class GaussianBlockParams:
    """Gaussian parameters, and which columns training ever observed (n_columns,)."""

    params: gaussian.GaussianParams
    seen: NDArray[np.bool_]


def _column(stats: gaussian.GaussianStats, j: int) -> gaussian.GaussianStats:
    """The statistics of column ``j`` alone."""
    part = slice(j, j + 1)
    return gaussian.GaussianStats(
        stats.class_count,
        stats.count[:, part],
        stats.mean[:, part],
        stats.m2[:, part],
        stats.total_count[part],
        stats.total_mean[part],
        stats.total_m2[part],
    )


@dataclass(frozen=True)
class BernoulliBlockStats:
    """Presence counts and observed counts (rows where the column is not missing)."""

    present: counts.CountStats
    observed: counts.CountStats

    def __add__(self, other: BernoulliBlockStats) -> BernoulliBlockStats:
        return BernoulliBlockStats(self.present + other.present, self.observed + other.observed)

    def take_classes(self, index, n_classes) -> BernoulliBlockStats:
        return BernoulliBlockStats(
            self.present.take_classes(index, n_classes),
            self.observed.take_classes(index, n_classes),
        )


@register_kind
@dataclass(frozen=True)
class BernoulliBlock(Block):
    """Present/absent per column (:mod:`nbayes.events.bernoulli`): values 0/1 or
    False/True; ``p_cj = (N_cj + alpha) / (observed_cj + 2 alpha)``."""

    kind: ClassVar[str] = "bernoulli"

    def read(self, X) -> NDArray[np.float64]:
        data = self._read_numbers(X)
        bad = ~np.isnan(data) & (data != 0) & (data != 1)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise ValueError(
                f"Column {self.keys[col]!r} is bernoulli but holds {data[row, col]!r}; "
                "bernoulli columns hold 0/1 or False/True."
            )
        return data

    def zero(self, n_classes):
        width = len(self.keys)
        return BernoulliBlockStats(
            counts.CountStats.zero(n_classes, width), counts.CountStats.zero(n_classes, width)
        )

    def summarize(self, data, W):
        observed = ~np.isnan(data)
        return BernoulliBlockStats(
            counts.summarize(np.where(observed, data, 0.0), W),
            counts.summarize(observed.astype(np.float64), W),
        )

    def estimate(self, stats, *, alpha, **_):
        return bernoulli.estimate(stats.present, alpha, observed=stats.observed.feature_count)

    def log_likelihood(self, params, data):
        def on_columns(rows, keep):
            kept = bernoulli.BernoulliParams(
                params.feature_log_prob[:, keep], params.absent_log_prob[:, keep]
            )
            return bernoulli.log_likelihood(kept, data[np.ix_(rows, keep)])

        return by_missing_pattern(np.isnan(data), params.feature_log_prob.shape[0], on_columns)

    def log_likelihood_terms(self, params, data):
        missing = np.isnan(data)
        terms = bernoulli.log_likelihood_terms(params, np.where(missing, 0.0, data))
        return np.where(missing[:, None, :], 0.0, terms)


@register_kind
@dataclass(frozen=True)
class MultinomialBlock(Block):
    """Count columns sharing one multinomial (:mod:`nbayes.events.multinomial`);
    a missing count adds nothing (reads as 0)."""

    kind: ClassVar[str] = "multinomial"

    def read(self, X) -> NDArray[np.float64]:
        data = np.nan_to_num(self._read_numbers(X), nan=0.0)
        negative = data < 0
        if negative.any():
            col = int(np.argwhere(negative)[0, 1])
            raise ValueError(f"Column {self.keys[col]!r} is multinomial but holds negative counts.")
        return data

    def zero(self, n_classes):
        return counts.CountStats.zero(n_classes, len(self.keys))

    def summarize(self, data, W):
        return counts.summarize(data, W)

    def estimate(self, stats, *, alpha, **_):
        return multinomial.estimate(stats, alpha)

    def log_likelihood(self, params, data):
        return multinomial.log_likelihood(params, data)

    def log_likelihood_terms(self, params, data):
        return multinomial.log_likelihood_terms(params, data)


# --------------------------------------------------------------------- categorical
def factorize(values: NDArray) -> tuple[list, NDArray[np.intp]]:
    """Distinct values and each value's index among them, shape (n,).

    Hash-based (``pandas.factorize``, first-appearance order) when the program has
    imported pandas; else ``np.unique`` for non-object arrays, and a dict otherwise.
    """
    pandas = sys.modules.get("pandas")
    if pandas is not None:
        codes, uniques = pandas.factorize(values, use_na_sentinel=False)
        return list(uniques), np.asarray(codes, dtype=np.intp)
    if values.dtype.kind != "O":
        uniques, inverse = np.unique(values, return_inverse=True)
        return list(uniques), inverse.ravel().astype(np.intp)
    index: dict = {}
    codes = np.fromiter(
        (index.setdefault(v, len(index)) for v in values), dtype=np.intp, count=len(values)
    )
    return list(index), codes


@dataclass(frozen=True)
class CategoricalBlockStats:
    """Categorical counts with each column's vocabulary: ``vocabulary[j][t]`` is the
    value of code ``t`` of column ``j``. ``+`` aligns the vocabularies (the left
    operand's codes first, then new values in the right operand's order)."""

    vocabulary: tuple[tuple, ...]
    counts: CategoricalStats

    def __add__(self, other: CategoricalBlockStats) -> CategoricalBlockStats:
        vocabulary, destination = [], []
        for mine, theirs in zip(self.vocabulary, other.vocabulary, strict=True):
            index = {value: code for code, value in enumerate(mine)}
            for value in theirs:
                index.setdefault(value, len(index))
            vocabulary.append(tuple(index))
            destination.append(np.fromiter((index[v] for v in theirs), np.intp, len(theirs)))
        n_categories = np.array([len(v) for v in vocabulary], dtype=np.intp)
        offsets = categorical.offsets_of(n_categories)
        columns = np.concatenate(
            [offset + d for offset, d in zip(offsets, destination, strict=True)]
        )
        aligned = np.zeros((other.counts.counts.shape[0], int(n_categories.sum())))
        aligned[:, columns] = other.counts.counts
        merged = CategoricalStats(
            self.counts.class_count + other.counts.class_count,
            n_categories,
            self.counts.widened(n_categories) + aligned,
        )
        return CategoricalBlockStats(tuple(vocabulary), merged)

    def take_classes(self, index, n_classes) -> CategoricalBlockStats:
        return CategoricalBlockStats(self.vocabulary, self.counts.take_classes(index, n_classes))


@dataclass(frozen=True)
class CategoricalBlockParams:
    """Estimated log-probabilities, the value -> code maps, and what to do with
    values outside them."""

    params: categorical.CategoricalParams
    codes: tuple[dict, ...]
    handle_unknown: str


@register_kind
@dataclass(frozen=True)
class CategoricalBlock(Block):
    """One categorical distribution per class and column
    (:mod:`nbayes.events.categorical`) over any hashable values, strings included.

    ``P(x_j = t | c) = (N_cjt + alpha) / (N_cj. + K_j alpha)``, ``N_cj.`` counting the
    rows where column j is observed. A value never seen in training is, by
    ``handle_unknown``: left out of the row's likelihood (``"ignore"``); given the
    mass of one extra, empty category, so ``K_j + 1`` categories share the
    pseudocounts (``"smooth"``); or an :class:`UnknownCategoryError` (``"error"``).
    """

    kind: ClassVar[str] = "categorical"

    def read(self, X) -> list[tuple[NDArray, NDArray[np.bool_]]]:
        return [read_column(X, j) for _, j in self._columns()]

    def zero(self, n_classes):
        width = len(self.keys)
        return CategoricalBlockStats(((),) * width, CategoricalStats.zero(n_classes, width))

    def summarize(self, data, W):
        n_samples = W.matrix.shape[0]
        weightless = W.row_totals() <= 0  # such rows add no value to the vocabulary
        codes = np.full((n_samples, len(data)), -1, dtype=np.intp)
        vocabulary = []
        for j, (values, missing) in enumerate(data):
            counted = ~(missing | weightless)
            uniques, inverse = factorize(values[counted])
            codes[counted, j] = inverse
            vocabulary.append(tuple(uniques))
        n_categories = np.array([len(v) for v in vocabulary], dtype=np.intp)
        stats = categorical.summarize(codes, W, n_categories)
        return CategoricalBlockStats(tuple(vocabulary), stats)

    def estimate(self, stats, *, alpha, handle_unknown, **_):
        table = stats.counts
        if handle_unknown == "smooth":
            slots = table.n_categories + 1
            table = CategoricalStats(table.class_count, slots, table.widened(slots))
        codes = tuple({value: code for code, value in enumerate(v)} for v in stats.vocabulary)
        return CategoricalBlockParams(categorical.estimate(table, alpha), codes, handle_unknown)

    def log_likelihood(self, params, data):
        mode = "error" if params.handle_unknown == "smooth" else "ignore"
        return categorical.log_likelihood(params.params, self._codes(params, data), mode)

    def log_likelihood_terms(self, params, data):
        mode = "error" if params.handle_unknown == "smooth" else "ignore"
        return categorical.log_likelihood_terms(params.params, self._codes(params, data), mode)

    def _codes(self, params, data) -> NDArray[np.intp]:
        """Codes of the values (n_samples, n_columns): -1 where missing, ``K_j`` for a
        value never seen (the extra slot under ``"smooth"``; left out otherwise)."""
        n_samples = data[0][0].shape[0]
        codes = np.full((n_samples, len(data)), -1, dtype=np.intp)
        for j, (values, missing) in enumerate(data):
            index = params.codes[j]
            uniques, inverse = factorize(values[~missing])
            unseen = len(index)
            mapped = np.array([index.get(u, unseen) for u in uniques], dtype=np.intp)
            if params.handle_unknown == "error" and np.any(mapped == unseen):
                value = uniques[int(np.argmax(mapped == unseen))]
                raise UnknownCategoryError(
                    f"Column {self.keys[j]!r} has the value {value!r}, never seen in "
                    "training. Use handle_unknown='ignore' or 'smooth'."
                )
            codes[~missing, j] = mapped[inverse]
        return codes
