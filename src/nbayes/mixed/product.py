"""The event model of a whole table: the product of its blocks' event models.

``log P(x | c) = sum_b log P(x_b | c)``, each block's term counting only the columns
observed in that row; the statistics are the tuple of the blocks' statistics plus the
class counts, so they add, merge and stream like every other model's. This is itself
an :class:`~nbayes.events._contract.EventModel`, so :class:`nbayes.NaiveBayes` is a
:class:`~nbayes.core.base.BaseNB` like every estimator, and explanations, sampling, EM
and model files work on it unchanged; each contract method routes to the blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes.core.parallel import map_blocks
from nbayes.core.validation import ClassWeights
from nbayes.errors import StatisticsError, UnknownCategoryError
from nbayes.events._contract import EventModel
from nbayes.events._stats import CLASS, Statistics, stat
from nbayes.events.kde import ConstantColumnError
from nbayes.mixed.blocks import Block


@dataclass(frozen=True)
class MixedStats(Statistics):
    """Class counts ``N_c`` (n_classes,) and one statistics object per block."""

    class_count: NDArray[np.float64] = stat(CLASS, nonnegative=True)
    blocks: tuple = stat()

    def __add__(self, other: MixedStats) -> MixedStats:
        return MixedStats(
            self.class_count + other.class_count,
            tuple(a + b for a, b in zip(self.blocks, other.blocks, strict=True)),
        )

    def take_classes(self, index: NDArray[np.intp], n_classes: int) -> MixedStats:
        class_count = np.zeros(n_classes)
        class_count[index] = self.class_count
        return MixedStats(class_count, tuple(b.take_classes(index, n_classes) for b in self.blocks))

    def copy(self) -> MixedStats:
        return MixedStats(self.class_count.copy(), tuple(b.copy() for b in self.blocks))


@dataclass(frozen=True)
class BlockData:
    """A validated table: each block's data; ``shape`` is the table's."""

    shape: tuple[int, int]
    parts: tuple

    def take_rows(self, rows: slice, take: Callable[[Any, slice], Any]) -> BlockData:
        """The rows ``rows`` of every block, each taken by ``take(part, rows)`` (for
        encoded parts: arrays or CSR matrices)."""
        n_rows = len(range(*rows.indices(self.shape[0])))
        return BlockData((n_rows, self.shape[1]), tuple(take(part, rows) for part in self.parts))


@dataclass(frozen=True)
class ColumnModel(EventModel[MixedStats, tuple]):
    """The product of the event models ``events`` of the blocks ``layout`` of a table
    of ``n_features`` columns."""

    name: ClassVar[str] = "columns"
    adds_in_place: ClassVar[bool] = True
    column_kind: ClassVar[bool] = False

    layout: tuple[Block, ...] = ()
    events: tuple[EventModel, ...] = ()
    n_features: int = 0

    # ------------------------------------------------------------ input
    def read(self, table, params: tuple | None = None) -> BlockData:
        """A table's blocks, each read and checked by its own event model; ``params``
        (fitted, for prediction input) let a block code its values against the values
        its model knows (see ``EventModel.known_values``)."""
        return self.read_with(table, params)[0]

    def read_with(
        self, table, params: tuple | None = None, also: Callable[[], Any] | None = None
    ) -> tuple[BlockData, Any]:
        """:meth:`read`, and ``also()`` (e.g. the labels' encoding) run beside it: the
        columns of all blocks (``Block.read_tasks``: one task per column of values, one
        per block of numbers) and ``also`` are one queue of tasks on the block threads,
        so no thread waits on another's block. Returns ``(data, also())`` (None
        without ``also``)."""
        tasks: list[Callable[[], Any]] = [] if also is None else [also]
        spans = []
        for block, event, block_params in self._blocks(params or (None,) * len(self.layout)):
            block_tasks = block.read_tasks(table, event, block_params)
            spans.append((len(tasks), len(tasks) + len(block_tasks)))
            tasks.extend(block_tasks)
        results = map_blocks(lambda task: task(), tasks)
        parts = tuple(
            block.assemble(event, results[start:stop])
            for (block, event), (start, stop) in zip(self._blocks(), spans, strict=True)
        )
        return BlockData(table.shape, parts), (None if also is None else results[0])

    def missing(self, n_samples: int, n_features: int) -> BlockData:
        parts = tuple(
            e.missing(n_samples, len(b.keys)) for b, e in zip(self.layout, self.events, strict=True)
        )
        return BlockData((n_samples, n_features), parts)

    def _blocks(self, *rest):
        return zip(self.layout, self.events, *rest, strict=True)

    def _locate(self, j: int) -> tuple[int, int]:
        """The block holding column ``j`` and ``j``'s place in it."""
        for b, block in enumerate(self.layout):
            if j in block.positions:
                return b, block.positions.index(j)
        raise IndexError(f"Column {j} is in no block.")

    # ------------------------------------------------------------ statistics
    def zero(self, n_classes: int, n_features: int) -> MixedStats:
        return MixedStats(
            np.zeros(n_classes), tuple(e.zero(n_classes, len(b.keys)) for b, e in self._blocks())
        )

    def add_into(self, stats: MixedStats, X: BlockData, W: ClassWeights) -> MixedStats:
        blocks = tuple(e.add_into(s, d, W) for _, e, s, d in self._blocks(stats.blocks, X.parts))
        return MixedStats(stats.class_count + W.class_totals(), blocks)

    def domain(self, X: BlockData, W: ClassWeights) -> MixedStats:
        blocks = tuple(e.domain(d, W) for _, e, d in self._blocks(X.parts))
        return MixedStats(W.class_totals(), blocks)

    def estimate(self, stats: MixedStats) -> tuple:
        params = []
        for block, event, block_stats in self._blocks(stats.blocks):
            try:
                params.append(event.estimate(block_stats))
            except ConstantColumnError as error:
                raise ConstantColumnError(
                    block.positions[error.column],
                    f"Column {block.keys[error.column]!r} is {block.kind} but constant (or has "
                    "one value only): its kernel bandwidth would be 0. Drop it, declare it "
                    f"another kind, or give kind_options={{{block.kind!r}: {{'bandwidth': "
                    "<number>}}.",
                ) from None
        return tuple(params)

    def log_parameter_prior(self, params: tuple) -> float:
        return float(sum(e.log_parameter_prior(p) for _, e, p in self._blocks(params)))

    # ------------------------------------------------------------ likelihood
    def _named(self, block: Block, call):
        """``call()``, with an unknown category's error naming the column."""
        try:
            return call()
        except UnknownCategoryError as error:
            if error.feature is None:
                raise
            raise UnknownCategoryError(
                f"Column {block.keys[error.feature]!r} has the value {error.value!r}, never "
                "seen in training. Use handle_unknown='ignore' or 'smooth'.",
                feature=block.positions[error.feature],
                value=error.value,
            ) from None

    def encode(self, params: tuple, X: BlockData) -> BlockData:
        """Each block's data encoded by its model (e.g. values mapped to the fitted
        codes), once for all the row blocks of a prediction."""
        parts = tuple(
            self._named(block, lambda e=event, p=block_params, d=data: e.encode(p, d))
            for block, event, block_params, data in self._blocks(params, X.parts)
        )
        return BlockData(X.shape, parts)

    def log_likelihood(self, params: tuple, X: BlockData) -> NDArray[np.float64]:
        total = None
        for block, event, block_params, data in self._blocks(params, X.parts):
            ll = self._named(block, lambda e=event, p=block_params, d=data: e.log_likelihood(p, d))
            total = ll if total is None else total + ll
        return total

    def log_likelihood_terms(self, params: tuple, X: BlockData) -> NDArray[np.float64]:
        terms = None
        for block, event, block_params, data in self._blocks(params, X.parts):
            part = self._named(
                block, lambda e=event, p=block_params, d=data: e.log_likelihood_terms(p, d)
            )
            if terms is None:
                terms = np.zeros((X.shape[0], part.shape[1], self.n_features))
            terms[:, :, list(block.positions)] = part
        return terms

    def onnx_log_likelihood(self, params: tuple, x: list, graph) -> str:
        """The sum of the blocks' log-likelihoods in ONNX ops; ``x`` holds one (n, 1)
        tensor per column of the table, in order. A block that reads values takes its
        columns as they are, any other one float block of them."""
        total = None
        for block, event, block_params in self._blocks(params):
            columns = [x[p] for p in block.positions]
            data = columns if event.reads == "values" else graph.op("Concat", *columns, axis=1)
            ll = event.onnx_log_likelihood(block_params, data, graph)
            total = ll if total is None else graph.op("Add", total, ll)
        return total

    def onnx_column_kind(self, params: tuple, j: int) -> str:
        b, local = self._locate(j)
        return self.events[b].onnx_column_kind(params[b], local)

    def feature_log_likelihood(self, params, j, values, n_features) -> NDArray[np.float64]:
        b, local = self._locate(j)
        block, event = self.layout[b], self.events[b]
        return event.feature_log_likelihood(params[b], local, values, len(block.keys))

    def factor_parts(self, params, j, value, n_features):
        b, local = self._locate(j)
        block, event = self.layout[b], self.events[b]
        return event.factor_parts(params[b], local, value, len(block.keys))

    def unseen(self, params, j, values):
        b, local = self._locate(j)
        return self.events[b].unseen(params[b], local, values)

    def factor_kinds(self, n_features: int) -> list[str]:
        """What each column's factor ``P(x_j | y)`` is, in table order."""
        kinds = [""] * self.n_features
        for block, event in self._blocks():
            for position in block.positions:
                kinds[position] = event.factor_kind
        return kinds

    # ------------------------------------------------------------ generation, explanation
    def sample(self, params, stats, class_index, rng) -> NDArray:
        """Each block draws its own columns: (n, n_features), an object array unless
        every column is numeric."""
        columns: list[Any] = [None] * self.n_features
        for block, event, block_params, block_stats in self._blocks(params, stats.blocks):
            values = event.sample(block_params, block_stats, class_index, rng)
            for k, position in enumerate(block.positions):
                columns[position] = values[:, k]
        if not columns:
            return np.empty((class_index.shape[0], 0))
        numeric = all(np.asarray(c).dtype.kind in "fiub" for c in columns)
        return np.column_stack(columns).astype(float if numeric else object)

    def describe(self, params, stats, n_features, class_prior) -> list[dict]:
        """Each block's summaries, in table order."""
        out: list[dict] = [{} for _ in range(self.n_features)]
        for block, event, block_params, block_stats in self._blocks(params, stats.blocks):
            parts = event.describe(block_params, block_stats, len(block.keys), class_prior)
            for position, part in zip(block.positions, parts, strict=True):
                out[position] = part
        return out

    def value_grid(self, params, stats, j, class_prior) -> list:
        b, local = self._locate(j)
        return self.events[b].value_grid(params[b], stats.blocks[b], local, class_prior)

    def validate(self, stats: MixedStats, n_classes: int, n_features: int) -> None:
        """Each block's statistics checked against its own columns."""
        if not isinstance(stats, MixedStats) or len(stats.blocks) != len(self.layout):
            raise StatisticsError("The statistics do not match the column layout.")
        stats.validate(n_classes, n_features)
        for block, event, block_stats in self._blocks(stats.blocks):
            event.validate(block_stats, n_classes, len(block.keys))
