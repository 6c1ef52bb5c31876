"""The "categorical" kind: :mod:`nbayes.events.categorical` over any hashable values,
each column with its own vocabulary (value -> code), which grows as data arrive."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes.events import categorical
from nbayes.events.categorical import CategoricalStats, UnknownCategoryError
from nbayes.mixed.blocks.base import Block, register_kind
from nbayes.mixed.columns import read_codes


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

    def read(self, X) -> list[tuple[list, NDArray[np.intp]]]:
        """Each column factorized: ``(uniques, codes)``, codes -1 where missing."""
        return [read_codes(X, j) for _, j in self._columns()]

    def zero(self, n_classes):
        width = len(self.keys)
        return CategoricalBlockStats(((),) * width, CategoricalStats.zero(n_classes, width))

    def summarize(self, data, W, *, domain_only: bool = False):
        """Counts under W. Rows of zero weight add no value to the vocabulary, unless
        ``domain_only`` (every observed value joins the vocabulary, nothing is counted:
        how EM fixes the parameter space before its first M-step)."""
        n_samples = W.matrix.shape[0]
        weightless = W.row_totals() <= 0
        if domain_only or not weightless.any():
            vocabulary = [tuple(uniques) for uniques, _ in data]
            columns = [column for _, column in data]
            codes = np.column_stack(columns) if columns else np.empty((n_samples, 0), np.intp)
        else:
            codes = np.full((n_samples, len(data)), -1, dtype=np.intp)
            vocabulary = []
            for j, (uniques, column) in enumerate(data):
                counted = (column >= 0) & ~weightless
                present = np.unique(column[counted])
                renumber = np.empty(len(uniques), dtype=np.intp)
                renumber[present] = np.arange(len(present))
                codes[counted, j] = renumber[column[counted]]
                vocabulary.append(tuple(uniques[k] for k in present))
        n_categories = np.array([len(v) for v in vocabulary], dtype=np.intp)
        stats = categorical.summarize(codes, W, n_categories)
        return CategoricalBlockStats(tuple(vocabulary), stats)

    def domain(self, data, W):
        return self.summarize(data, W, domain_only=True)

    def estimate(self, stats, *, alpha, handle_unknown, **_):
        table = stats.counts
        if handle_unknown == "smooth":
            slots = table.n_categories + 1
            table = CategoricalStats(table.class_count, slots, table.widened(slots))
        codes = tuple({value: code for code, value in enumerate(v)} for v in stats.vocabulary)
        return CategoricalBlockParams(categorical.estimate(table, alpha), codes, handle_unknown)

    def sample(self, params, stats, class_index, rng):
        """Values drawn per column; under ``"smooth"`` the extra, empty category (an
        unseen value) comes out as None."""
        codes = categorical.sample(params.params, class_index, rng)
        out = np.empty(codes.shape, dtype=object)
        for j, index in enumerate(params.codes):
            values = np.array([*index, None], dtype=object)
            out[:, j] = values[np.minimum(codes[:, j], len(index))]
        return out

    def log_likelihood(self, params, data):
        mode = "error" if params.handle_unknown == "smooth" else "ignore"
        return categorical.log_likelihood(params.params, self._codes(params, data), mode)

    def log_likelihood_terms(self, params, data):
        mode = "error" if params.handle_unknown == "smooth" else "ignore"
        return categorical.log_likelihood_terms(params.params, self._codes(params, data), mode)

    def _codes(self, params, data) -> NDArray[np.intp]:
        """Codes of the values (n_samples, n_columns): -1 where missing, ``K_j`` for a
        value never seen (the extra slot under ``"smooth"``; left out otherwise)."""
        n_samples = data[0][1].shape[0]
        codes = np.full((n_samples, len(data)), -1, dtype=np.intp)
        for j, (uniques, column) in enumerate(data):
            index = params.codes[j]
            unseen = len(index)
            mapped = np.array([index.get(u, unseen) for u in uniques], dtype=np.intp)
            if params.handle_unknown == "error" and np.any(mapped == unseen):
                value = uniques[int(np.argmax(mapped == unseen))]
                raise UnknownCategoryError(
                    f"Column {self.keys[j]!r} has the value {value!r}, never seen in "
                    "training. Use handle_unknown='ignore' or 'smooth'."
                )
            observed = column >= 0
            codes[observed, j] = mapped[column[observed]]
        return codes
