"""The block adapter interface, the registry of kinds, and shared helpers.

A *block* is one or more columns of a table modelled by one event model. Its adapter
reads its columns out of the table (checking them, naming the column in every
error) and passes statistics, estimates and log-likelihoods through to the event
module in :mod:`nbayes.events`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes.core.validation import ClassWeights
from nbayes.mixed.columns import read_column

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
    the ones its event model uses. A kind with settings of its own lists them, with
    their defaults, in ``OPTIONS``; ``options`` holds the ones the user gave
    (``NaiveBayes(kind_options={kind: {...}})``), fixed when the layout is made.
    """

    kind: ClassVar[str]
    OPTIONS: ClassVar[dict[str, Any]] = {}
    keys: tuple[Hashable, ...]
    positions: tuple[int, ...]
    options: tuple[tuple[str, Any], ...] = ()

    def option(self, name: str) -> Any:
        """The value of option ``name``: the user's, else the default."""
        return dict(self.options).get(name, self.OPTIONS[name])

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
        """``options`` as sorted pairs; an unknown name is an error naming the kind."""
        unknown = sorted(set(options) - set(cls.OPTIONS))
        if unknown:
            allowed = ", ".join(sorted(cls.OPTIONS)) or "none"
            raise ValueError(
                f"Unknown option(s) {unknown} for kind {cls.kind!r}; its options: {allowed}."
            )
        return tuple(sorted(options.items()))

    def read(self, X) -> Any:
        raise NotImplementedError

    def zero(self, n_classes: int) -> Any:
        raise NotImplementedError

    def summarize(self, data, W: ClassWeights) -> Any:
        raise NotImplementedError

    def domain(self, data, W: ClassWeights) -> Any:
        """Statistics that count nothing but span the values of ``data`` (W all zero);
        kinds whose parameter space grows with the data (categorical) override it."""
        return self.summarize(data, W)

    def estimate(self, stats, **settings) -> Any:
        raise NotImplementedError

    def log_likelihood(self, params, data) -> NDArray[np.float64]:
        raise NotImplementedError

    def sample(self, params, stats, class_index, rng) -> NDArray:
        """Values of the block's columns drawn from ``P(x | y)`` for each class index:
        shape (n, n_columns)."""
        raise NotImplementedError(f"Kind {self.kind!r} cannot generate data.")

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
