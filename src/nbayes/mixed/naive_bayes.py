"""``NaiveBayes``: one estimator, one event model per column.

The columns of a table are split into *blocks* (one or more columns under one event
model, see :mod:`nbayes.mixed.blocks`); the model of the whole table is the product of
the blocks' models (:class:`nbayes.mixed.product.ColumnModel`), so the statistics add
and merge like every other model's, and the per-class log-likelihood is the sum of the
blocks':

``log P(x | c) = sum_b log P(x_b | c)``,

each block's term counting only the columns observed in that row. The posterior is
:mod:`nbayes.core.posterior`'s, as for every estimator.
"""

from __future__ import annotations

from collections.abc import Hashable
from numbers import Real

import numpy as np
from numpy.typing import NDArray
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from nbayes.core.validation import encode_targets, label_index, row_blocks
from nbayes.errors import NotSupportedError
from nbayes.events._contract import EventModel, pseudocount_interval
from nbayes.mixed.blocks import Block, check_kind_options, column_kinds, column_settings
from nbayes.mixed.columns import (
    ResolvedColumn,
    as_inferred_dtype,
    as_labels,
    as_table,
    resolve_spec,
)
from nbayes.mixed.product import BlockData, ColumnModel
from nbayes.models.base import EstimatorNB

#: NaiveBayes's settings that set every block's model where it has them.
SHARED_SETTINGS = ("alpha", "var_smoothing", "ddof", "handle_unknown")


def make_layout(
    resolved: list[ResolvedColumn], kind_options: dict | None = None
) -> tuple[Block, ...]:
    """Blocks from resolved columns: a given group of columns is one block; the other
    columns form one block per kind, in order of first appearance. ``kind_options``
    maps a kind name to that kind's options (see :func:`nbayes.mixed.blocks.kind_options`)."""
    kind_options = kind_options or {}
    kinds = column_kinds()
    for kind in kind_options:
        if kind not in kinds:
            raise ValueError(
                f"kind_options names unknown kind {kind!r}; known kinds: "
                f"{', '.join(sorted(kinds))}."
            )
    checked = {kind: check_kind_options(kind, dict(o)) for kind, o in kind_options.items()}
    groups: dict[tuple, list[ResolvedColumn]] = {}
    for column in resolved:
        key = (
            ("group", column.group)
            if column.group >= 0
            else ("kind", column.kind, column.settings)
        )
        groups.setdefault(key, []).append(column)
    blocks = []
    for members in groups.values():
        member_kinds = {(m.kind, m.settings) for m in members}
        if len(member_kinds) != 1:
            raise ValueError(
                f"A column group must have one kind, got {sorted(m.kind for m in members)}."
            )
        kind = members[0].kind
        options = {**dict(checked.get(kind, ())), **column_settings(kind, members[0].settings)}
        keys, positions = tuple(m.key for m in members), tuple(m.position for m in members)
        blocks.append(Block(kind, keys, positions, tuple(sorted(options.items()))))
    return tuple(blocks)


class NaiveBayes(EstimatorNB):
    """Naive Bayes for tables of mixed columns: one event model per column.

    ``log P(y | x) ∝ log P(y) + sum_j log P(x_j | y)`` over the observed columns j
    (missing values are skipped in training and marginalised in prediction).

    Parameters
    ----------
    columns : None, str, EventModel, sequence or dict of them, default=None
        The kind of each column, among :func:`nbayes.mixed.blocks.column_kinds`: "gaussian",
        "categorical", "bernoulli", "multinomial", "poisson", "exponential", "kde",
        "binned", "text" (free text as a bag of words). None infers every column of a
        pandas or polars DataFrame from its dtype (float and integer → gaussian,
        bool → bernoulli, category → categorical, string/object → text if its values
        look like free text, else categorical; see :mod:`nbayes.mixed.columns`);
        a dict names some columns (by name, or by index for
        arrays) and infers the rest; a tuple of columns as a key makes them one block
        (e.g. ``{("w1", "w2", "w3"): "multinomial"}``); a list gives one kind per
        column; one kind name applies to all. NumPy arrays need every column given.
        A kind may also be an event-model instance, composed as it is configured
        (``{"age": Gaussian(ddof=1), "city": Categorical(alpha=0.5)}``, from
        :mod:`nbayes.events`): its settings that differ from the defaults are that
        column's, over ``kind_options`` and the shared ``alpha``/``var_smoothing``.
    alpha : float, default=1.0
        Lidstone pseudocount of the discrete kinds (1 = Laplace, 0 = MLE).
    var_smoothing : float, default=1e-9
        Variance floor of the gaussian columns: this fraction of each column's own
        overall variance is added to its variances (``GaussianNB`` uses the largest
        column's: a table's columns have unrelated scales).
    ddof : float, default=0
        Gaussian variance denominator ``N_cj - ddof`` (1: Bessel's correction).
    handle_unknown : {"ignore", "smooth", "error"}, default="ignore"
        A categorical value never seen in training: left out of the row's
        likelihood; given one extra category's pseudocount mass; or an error.
    kind_options : dict, default=None
        Settings of the kinds that have their own, read when the column layout is made
        (``fit``, or the first ``partial_fit``), e.g. ``{"kde": {"bandwidth":
        "silverman"}, "binned": {"strategy": "quantile", "n_bins": 10}, "poisson":
        {"alpha": 1.0, "beta": 0.0}}``; defaults as in ``PoissonNB``, ``ExponentialNB``
        (``alpha``, ``beta``: the Gamma prior), ``KernelDensityNB`` (``bandwidth``,
        ``algorithm``, ``max_exact_samples``, ``max_bins``) and ``BinnedNB``
        (``strategy``, ``n_bins``, ``max_bins``); the tokenizer of "text" takes
        :class:`nbayes.text.Tokenizer`'s (``kind``, ``lowercase``, ``min_len``,
        ``max_len``, ``numbers``, ``stop_words``, ``ngram_range``).
    fit_prior : bool, default=True
        Learn the class prior from the data; if False, uniform.
    class_prior : array-like of shape (n_classes,), default=None
        A fixed class prior.
    prior_alpha : float, default=0.0
        Pseudocount added to each class count for the fitted prior.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    columns_ : dict
        Column key → kind, as resolved at the first fit.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,), for DataFrames

    Notes
    -----
    ``partial_fit`` is open-world: labels and categorical values may appear in any
    batch without being declared; the model after any sequence of batches is the
    model ``fit`` gives on their union (categorical codes may be numbered in another
    order; the probabilities are the same). ``nbayes.merge`` sums fitted models.
    """

    _event_type = ColumnModel
    kind = "mixed"
    reads = "table"
    _state_attributes = (*EstimatorNB._state_attributes, "_layout", "_resolved")
    _parameter_constraints: dict = {
        "columns": [None, str, EventModel, dict, list, tuple],
        "alpha": [pseudocount_interval()],
        "var_smoothing": [Interval(Real, 0, None, closed="left")],
        "ddof": [Interval(Real, 0, None, closed="left")],
        "handle_unknown": [StrOptions({"ignore", "smooth", "error"})],
        "kind_options": [None, dict],
        "fit_prior": ["boolean"],
        "class_prior": ["array-like", None],
        "prior_alpha": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        columns=None,
        *,
        alpha=1.0,
        var_smoothing=1e-9,
        ddof=0,
        handle_unknown="ignore",
        kind_options=None,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
    ):
        self.columns = columns
        self.alpha = alpha
        self.var_smoothing = var_smoothing
        self.ddof = ddof
        self.handle_unknown = handle_unknown
        self.kind_options = kind_options
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha

    def _event_model(self) -> ColumnModel:
        """The product of the blocks' event models under the current settings."""
        shared = {name: getattr(self, name) for name in SHARED_SETTINGS}
        layout = self._layout
        return ColumnModel(
            layout, tuple(b.event_model(shared) for b in layout), self.n_features_in_
        )

    def fit(self, X, y, sample_weight=None):
        """Fit the model; the parameters are estimated here, so a column no model
        can be estimated on (e.g. a constant kde column) is an error now."""
        super().fit(X, y, sample_weight)
        self._fitted  # noqa: B018 - estimate now, raising errors that name the column
        return self

    # ------------------------------------------------------------ open-world training
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add one batch to the statistics.

        ``classes`` may declare labels in advance; it is never required: a label
        first seen in a later batch is added then, and so is a categorical value.
        """
        self._validate_params()
        first_call = not hasattr(self, "classes_")
        X, y = self._validated_X_y(X, y, reset=first_call)
        event = self._event_model()
        X = self._input_for(event, X)
        present, index = encode_targets(y)
        labels = present if classes is None else np.union1d(present, classes)
        if first_call:
            self.classes_ = labels
            self._own_stats(event.zero(len(labels), X.shape[1]))
        else:
            self._add_classes(labels)
        index = label_index(present, self.classes_)[index]
        return self._learn(event, X, y, sample_weight, index)

    def _add_classes(self, labels: NDArray) -> None:
        """Widen ``classes_`` and the statistics to cover ``labels``."""
        classes = np.union1d(self.classes_, labels)
        if len(classes) == len(self.classes_):
            return
        index = np.searchsorted(classes, self.classes_)
        stats = self._stats.take_classes(index, len(classes))
        self.classes_ = classes
        self.replace_statistics(stats)

    # ------------------------------------------------------------ input
    def _validated_X_y(self, X, y, reset: bool):
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        table = as_table(X)
        y = as_labels(y)
        if y.shape[0] != table.shape[0]:
            raise ValueError(
                f"X has {table.shape[0]} rows but y has {y.shape[0]} labels; they must match."
            )
        validate_data(self, table, skip_check_array=True, reset=reset)
        if reset:
            self._resolved = resolve_spec(self.columns, table, column_kinds())
            self._layout = make_layout(self._resolved, self.kind_options)
        return table, y

    def _validate_X(self, X):
        table = as_table(X)
        validate_data(self, table, skip_check_array=True, reset=False)
        return table

    def _input_for(self, event: ColumnModel, table) -> BlockData:
        """The table's blocks, each read and checked by its own event model (a row
        block of prediction input is read already)."""
        return table if isinstance(table, BlockData) else event.read(table)

    def _training_input(self, event: ColumnModel, table, y):
        """The table read and the labels encoded at the same time, on the block
        threads: the labels are one more column to hash, queued with the table's
        columns (``ColumnModel.read_with``)."""
        if isinstance(table, BlockData):
            return table, encode_targets(y)
        return event.read_with(table, also=lambda: encode_targets(y))

    def _prediction_input(self, table, fitted) -> BlockData:
        """The table read and encoded whole, once (each column of values coded once
        against the fitted vocabulary); prediction then scores it in row blocks on the
        block threads."""
        return fitted.event.encode(fitted.params, fitted.event.read(table, fitted.params))

    def _row_blocks(self, X: BlockData) -> list[slice]:
        return row_blocks(X.shape[0], max(X.shape[1], len(self.classes_)))

    def _take_rows(self, X: BlockData, rows: slice) -> BlockData:
        return X.take_rows(rows, super()._take_rows)

    def _sample_features(self, params, class_index, rng):
        """Each block draws its own columns; a DataFrame (pandas) when the model was
        fitted on one, else an array."""
        X = super()._sample_features(params, class_index, rng)
        if hasattr(self, "feature_names_in_"):
            import pandas as pd

            columns = {}
            for column, name in zip(self._resolved, self.feature_names_in_, strict=True):
                values = X[:, column.position]
                columns[name] = (
                    as_inferred_dtype(values, column.kind) if column.inferred else values
                )
            return pd.DataFrame(columns).infer_objects()
        return X

    # ------------------------------------------------------------ fitted state
    def check_restored(self) -> None:
        """Also the column layout: one resolved column per feature, in order, of a
        known kind, named as the feature names say, and blocks exactly those
        :func:`make_layout` makes of them under ``kind_options``."""
        self._validate_params()
        self._check_restored_shape()
        resolved, layout = self._resolved, self._layout
        n_features = self.n_features_in_
        if not isinstance(resolved, list) or len(resolved) != n_features:
            raise ValueError(f"the column layout must describe {n_features} columns.")
        kinds = column_kinds()
        names = getattr(self, "feature_names_in_", None)
        for position, column in enumerate(resolved):
            if not isinstance(column, ResolvedColumn) or column.position != position:
                raise ValueError(f"column {position} of the layout is malformed.")
            if column.kind not in kinds:
                raise ValueError(f"column {position} has unknown kind {column.kind!r:.40}.")
            if names is not None and column.key != names[position]:
                raise ValueError(f"column {position} of the layout is named {column.key!r:.40}.")
            if not isinstance(column.key, Hashable):
                raise ValueError(f"column {position} of the layout has a malformed name.")
            if isinstance(column.group, bool) or not isinstance(column.group, int):
                raise ValueError(f"column {position} of the layout has a malformed group.")
        if len({column.key for column in resolved}) != n_features:
            raise ValueError("the column layout names a column twice.")
        expected = make_layout(resolved, self.kind_options)
        if not isinstance(layout, tuple) or not _same_layout(layout, expected):
            raise ValueError("the column blocks do not match the columns' kinds.")
        super().check_restored()

    def onnx_input(self, graph, x: str | None = None) -> list[str]:
        """One ONNX input per column, named as the column: float (NaN where missing)
        for a column of numbers, string for a column of values or text. (A table
        cannot follow another step: ``x`` must be None.)"""
        check_is_fitted(self)
        if x is not None:
            raise NotSupportedError("NaiveBayes reads a table: it cannot follow another step.")
        fitted = self._fitted
        inputs = []
        for j, column in enumerate(self._resolved):
            kind = fitted.event.onnx_column_kind(fitted.params, j)
            inputs.append(graph.input(str(column.key), kind, (None, 1)))
        return inputs

    @property
    def columns_(self) -> dict[Hashable, str]:
        """Column key → kind."""
        check_is_fitted(self)
        return {column.key: column.kind for column in self._resolved}

    def feature_kinds(self) -> list[str]:
        """Each column's kind, in the order of the columns: (n_features_in_,)."""
        check_is_fitted(self)
        return [column.kind for column in self._resolved]

    @property
    def class_log_prior_(self) -> NDArray[np.float64]:
        """``log P(y)``, shape (n_classes,)."""
        return self._fitted.log_prior

    def describe(self, X=None) -> ColumnKinds:
        """Each column's kind and where it came from (given, or inferred from its
        dtype and values), for the fitted model or, if given, for table X: a table
        as text (a ``str`` whose repr is itself, so a REPL shows it once, as a
        table; ``print(model.describe())`` in a script).

        >>> import pandas as pd
        >>> model = NaiveBayes().fit(pd.DataFrame({"age": [25.0, 61.0], "job": ["a", "b"]}), [0, 1])
        >>> model.describe()
        column  kind          block  source
        age     gaussian          0  inferred from dtype
        job     categorical       1  inferred from dtype
        """
        if X is not None:
            resolved = resolve_spec(self.columns, as_table(X), column_kinds())
        else:
            check_is_fitted(self)
            resolved = self._resolved
        layout = make_layout(resolved, self.kind_options)
        block_of = {key: b for b, block in enumerate(layout) for key in block.keys}
        width = max(len("column"), *(len(str(column.key)) for column in resolved))
        lines = [f"{'column':<{width}}  {'kind':<12}  {'block':>5}  source"]
        for column in resolved:
            source = "given"
            if column.inferred:
                source = "inferred from values" if column.kind == "text" else "inferred from dtype"
            lines.append(
                f"{column.key!s:<{width}}  {column.kind:<12}  {block_of[column.key]:>5}  {source}"
            )
        return ColumnKinds("\n".join(lines))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.sparse = False
        return tags


class ColumnKinds(str):
    """The text of :meth:`NaiveBayes.describe`: a ``str`` whose repr is the text itself."""

    def __repr__(self) -> str:
        return str(self)


def _types(items) -> list[type] | None:
    return [type(item) for item in items] if isinstance(items, tuple | list) else None


def _same_layout(layout: tuple, expected: tuple[Block, ...]) -> bool:
    """Whether ``layout`` is ``expected``: the same blocks (kind, keys, positions) with
    the same options (compared as arrays, which a bandwidth per column may be)."""
    if len(layout) != len(expected):
        return False
    for block, want in zip(layout, expected, strict=True):
        if not isinstance(block, Block) or (block.kind, block.keys, block.positions) != (
            want.kind,
            want.keys,
            want.positions,
        ):
            return False
        if _types(block.keys) != _types(want.keys) or _types(block.positions) != _types(
            want.positions
        ):  # True == 1: a position True indexed nothing
            return False
        if len(block.options) != len(want.options):
            return False
        for pair, wanted in zip(block.options, want.options, strict=True):
            if not isinstance(pair, tuple) or len(pair) != 2 or pair[0] != wanted[0]:
                return False
            mine, theirs = np.asarray(pair[1], dtype=object), np.asarray(wanted[1], dtype=object)
            if not np.array_equal(mine, theirs):
                return False
    return True
