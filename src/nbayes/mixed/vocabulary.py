"""Any hashable values as category codes: a wrapper that puts a vocabulary (value ↔
code, per column) in front of an event model that reads codes, so a table's string,
bool or object columns feed the categorical model.

Each column's vocabulary is part of the statistics (values in order of first
appearance), so it grows as data arrive, and statistics with different vocabularies
add by aligning them (the left operand's codes first, then the right's new values in
order): ``fit`` == ``partial_fit`` == ``merge``, up to the numbering of the codes.

Input is each column factorized, ``[(uniques, codes), ...]`` with code -1 where the
value is missing (:func:`nbayes.mixed.columns.read_codes`). A value never seen in
training is mapped to one past the vocabulary, which the inner model treats by its
``handle_unknown``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes.core.validation import ClassWeights
from nbayes.errors import StatisticsError, UnknownCategoryError
from nbayes.events._contract import EventModel, Reads
from nbayes.events._stats import Statistics, stat
from nbayes.events.categorical import CategoricalStats, add_codes, offsets_of

#: Factorized columns: ``(uniques, codes)`` each.
Factorized = list[tuple[list, NDArray[np.intp]]]


@dataclass(frozen=True)
class VocabularyStats(Statistics):
    """Categorical counts with each column's vocabulary: ``vocabulary[j][t]`` is the
    value of code ``t`` of column ``j``. ``+`` aligns the vocabularies."""

    vocabulary: tuple[tuple, ...] = stat()
    counts: CategoricalStats = stat()

    @property
    def class_count(self) -> NDArray[np.float64]:
        return self.counts.class_count

    def __add__(self, other: VocabularyStats) -> VocabularyStats:
        vocabulary, destination = [], []
        for mine, theirs in zip(self.vocabulary, other.vocabulary, strict=True):
            index = {value: code for code, value in enumerate(mine)}
            for value in theirs:
                index.setdefault(value, len(index))
            vocabulary.append(tuple(index))
            destination.append(np.fromiter((index[v] for v in theirs), np.intp, len(theirs)))
        n_categories = np.array([len(v) for v in vocabulary], dtype=np.intp)
        offsets = offsets_of(n_categories)
        columns = np.concatenate(
            [offset + d for offset, d in zip(offsets, destination, strict=True)]
            or [np.empty(0, np.intp)]
        )
        aligned = np.zeros((other.counts.counts.shape[0], int(n_categories.sum())))
        aligned[:, columns] = other.counts.counts
        merged = CategoricalStats(
            self.counts.class_count + other.counts.class_count,
            n_categories,
            self.counts.widened(n_categories) + aligned,
        )
        return VocabularyStats(tuple(vocabulary), merged)

    def _validate_more(self, n_classes: int, n_features: int) -> None:
        if not isinstance(self.vocabulary, tuple) or len(self.vocabulary) != n_features:
            raise StatisticsError(f"VocabularyStats.vocabulary must hold {n_features} tuples.")
        if not all(isinstance(v, tuple) and len(set(v)) == len(v) for v in self.vocabulary):
            raise StatisticsError("VocabularyStats: a vocabulary holds a value twice.")
        sizes = np.array([len(v) for v in self.vocabulary])
        if not np.array_equal(sizes, self.counts.n_categories):
            raise StatisticsError("VocabularyStats: vocabulary sizes and category counts differ.")


@dataclass(frozen=True)
class VocabularyParams:
    """The inner model's parameters and each column's value -> code map."""

    params: Any
    codes: tuple[dict, ...]


@dataclass(frozen=True)
class Vocabulary(EventModel[VocabularyStats, VocabularyParams]):
    """``inner`` (an event model that reads codes) over any hashable values."""

    name: ClassVar[str] = "vocabulary"
    reads: ClassVar[Reads] = "values"
    adds_in_place: ClassVar[bool] = True

    inner: EventModel = None  # type: ignore[assignment]

    @property
    def factor_kind(self) -> str:  # type: ignore[override]
        return self.inner.factor_kind

    def missing(self, n_samples: int, n_features: int) -> Factorized:
        return [([], np.full(n_samples, -1, dtype=np.intp)) for _ in range(n_features)]

    def zero(self, n_classes: int, n_features: int) -> VocabularyStats:
        return VocabularyStats(((),) * n_features, self.inner.zero(n_classes, n_features))

    def add_into(self, stats: VocabularyStats, X: Factorized, W: ClassWeights) -> VocabularyStats:
        """Every value of a counted row joins its column's vocabulary; rows of zero
        weight add no value (EM's ``domain`` adds them all, counting nothing)."""
        return self._add(stats, X, W, domain_only=False)

    def domain(self, X: Factorized, W: ClassWeights) -> VocabularyStats:
        return self._add(self.zero(W.n_classes, len(X)), X, W, domain_only=True)

    def _add(self, stats, X: Factorized, W: ClassWeights, domain_only: bool) -> VocabularyStats:
        weightless = W.row_totals() <= 0
        vocabulary, columns = [], []
        for mine, (uniques, column) in zip(stats.vocabulary, X, strict=True):
            if not domain_only and weightless.any():
                counted = (column >= 0) & ~weightless
                present = np.zeros(len(uniques), dtype=bool)
                present[column[counted]] = True
                column = np.where(counted, column, -1)
            else:
                present = np.ones(len(uniques), dtype=bool)
            index = {value: code for code, value in enumerate(mine)}
            mapped = np.full(len(uniques), -1, dtype=np.intp)
            for u, value in enumerate(uniques):
                if present[u]:
                    mapped[u] = index.setdefault(_plain(value), len(index))
            vocabulary.append(tuple(index))
            columns.append(_recode(column, mapped))
        codes = stack_columns(columns, weightless.shape[0])
        n_categories = np.array([len(v) for v in vocabulary], dtype=np.intp)
        return VocabularyStats(tuple(vocabulary), add_codes(stats.counts, codes, W, n_categories))

    def estimate(self, stats: VocabularyStats) -> VocabularyParams:
        codes = tuple({value: code for code, value in enumerate(v)} for v in stats.vocabulary)
        return VocabularyParams(self.inner.estimate(stats.counts), codes)

    def log_parameter_prior(self, params: VocabularyParams) -> float:
        return self.inner.log_parameter_prior(params.params)

    def codes(self, params: VocabularyParams, X: Factorized) -> NDArray[np.intp]:
        """Codes of the values (n_samples, n_columns): -1 where missing, ``K_j`` for a
        value never seen (an :class:`UnknownCategoryError` under ``"error"``)."""
        n_samples = X[0][1].shape[0] if X else 0
        error = getattr(self.inner, "handle_unknown", "ignore") == "error"
        columns = []
        for j, (uniques, column) in enumerate(X):
            index = params.codes[j]
            unseen = len(index)
            mapped = np.array([index.get(_plain(u), unseen) for u in uniques], dtype=np.intp)
            if error and np.any(mapped == unseen):
                found = np.zeros(len(uniques), dtype=bool)  # only values present count
                found[column[column >= 0]] = True
                if np.any(found & (mapped == unseen)):
                    value = uniques[int(np.argmax(found & (mapped == unseen)))]
                    raise UnknownCategoryError(
                        f"Feature {j} has the value {value!r}, never seen in training. Use "
                        "handle_unknown='ignore' or 'smooth'.",
                        feature=j,
                        value=value,
                    )
            columns.append(_recode(column, mapped))
        return stack_columns(columns, n_samples)

    def known_values(self, params: VocabularyParams, j: int) -> list | None:
        """Column ``j``'s vocabulary, unless an unknown value must be named
        (``handle_unknown="error"``)."""
        if getattr(self.inner, "handle_unknown", "ignore") == "error":
            return None
        return list(params.codes[j])

    def encode(self, params: VocabularyParams, X: Factorized) -> NDArray[np.intp]:
        """The fitted codes of the values (see :meth:`codes`)."""
        return self.codes(params, X)

    def _coded(self, params: VocabularyParams, X) -> NDArray[np.intp]:
        """Factorized values, or codes from :meth:`encode`, as codes."""
        return X if isinstance(X, np.ndarray) else self.codes(params, X)

    def log_likelihood(self, params: VocabularyParams, X) -> NDArray[np.float64]:
        return self.inner.log_likelihood(params.params, self._coded(params, X))

    def log_likelihood_terms(self, params: VocabularyParams, X) -> NDArray[np.float64]:
        return self.inner.log_likelihood_terms(params.params, self._coded(params, X))

    def onnx_column_kind(self, params: VocabularyParams, j: int) -> str:
        """Values are read as strings (``str`` of each value: ``"3"``, ``"True"``)."""
        return "string"

    def onnx_log_likelihood(self, params: VocabularyParams, x: list, graph) -> str:
        """Each string column looked up in its vocabulary: the code of a known value,
        ``K_j`` for one never seen, -1 for a missing value (the empty string, or the
        graph's missing strings); then the inner model."""
        columns = []
        for j, column in enumerate(x):
            index = params.codes[j]  # value -> code, codes in order
            columns.append(graph.value_codes(column, list(index), unseen=len(index)))
        codes = columns[0] if len(columns) == 1 else graph.op("Concat", *columns, axis=1)
        return self.inner.onnx_log_likelihood(params.params, codes, graph)

    def feature_log_likelihood(self, params, j, values, n_features) -> NDArray[np.float64]:
        X = self.missing(len(values), n_features)
        X[j] = (list(values), np.arange(len(values), dtype=np.intp))
        return self.log_likelihood_terms(params, X)[:, :, j]

    def sample(self, params, stats, class_index, rng) -> NDArray:
        """Values drawn per column; an extra, empty category (``"smooth"``: an unseen
        value) comes out as None."""
        codes = self.inner.sample(params.params, stats.counts, class_index, rng)
        out = np.empty(codes.shape, dtype=object)
        for j, vocabulary in enumerate(stats.vocabulary):
            values = np.array([*vocabulary, None], dtype=object)
            out[:, j] = values[np.minimum(codes[:, j], len(vocabulary))]
        return out

    def unseen(self, params: VocabularyParams, j: int, values) -> NDArray[np.bool_]:
        """Values outside column ``j``'s vocabulary."""
        index = params.codes[j]
        return np.array([_plain(value) not in index for value in values], dtype=bool)

    def value_grid(self, params, stats, j, class_prior) -> list:
        """Every value of column ``j`` seen in training."""
        return list(stats.vocabulary[j])


def stack_columns(columns: list[NDArray[np.intp]], n_samples: int) -> NDArray[np.intp]:
    """The codes of the columns as one (n_samples, n_columns) array: the array they
    are the columns of, in order, where they are (a block's columns are read into
    one, :meth:`nbayes.mixed.blocks.Block.read_tasks`), else a stacked copy."""
    if not columns:
        return np.empty((n_samples, 0), np.intp)
    base = columns[0].base
    if (
        isinstance(base, np.ndarray)
        and base.shape == (n_samples, len(columns))
        and base.dtype == np.intp
        and base.flags.c_contiguous
        and all(
            column.base is base
            and column.strides == (base.strides[0],)
            and column.ctypes.data == base.ctypes.data + k * base.itemsize
            for k, column in enumerate(columns)
        )
    ):
        return base
    return np.column_stack(columns)


def _recode(column: NDArray[np.intp], mapped: NDArray[np.intp]) -> NDArray[np.intp]:
    """``mapped[column]``, with -1 (missing) kept: ``column`` itself where ``mapped`` is
    the identity (codes already numbered as the vocabulary)."""
    if mapped.size == 0:  # nothing observed in this column
        return np.full(column.shape[0], -1, dtype=np.intp)
    if np.array_equal(mapped, np.arange(mapped.size)):
        return column
    return np.append(mapped, -1)[column]  # code -1 takes the last entry: -1


def _plain(value: Any) -> Any:
    """A NumPy scalar as the plain Python value (so 1 and np.int64(1) are one value)."""
    return value.item() if isinstance(value, np.generic) else value
