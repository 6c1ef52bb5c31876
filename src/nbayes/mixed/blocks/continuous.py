"""The "poisson", "exponential", "kde" and "binned" kinds: :mod:`nbayes.events.poisson`,
:mod:`~nbayes.events.exponential`, :mod:`~nbayes.events.kde` and
:mod:`~nbayes.events.binned`. These event models read NaN as missing themselves, so
the adapters pass the block's columns through as floats (NaN where missing).

Options (``NaiveBayes(kind_options={kind: {...}})``) and their defaults are those of
the standalone classes :class:`~nbayes.PoissonNB`, :class:`~nbayes.ExponentialNB`,
:class:`~nbayes.KernelDensityNB` and :class:`~nbayes.BinnedNB`; the binned kind's
Lidstone pseudocount is ``NaiveBayes.alpha``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes.events import binned, exponential, grid, kde, poisson, sums
from nbayes.mixed.blocks.base import Block, register_kind


class _NumericBlock(Block):
    """Float columns, NaN where missing, for event models that skip NaN."""

    event: ClassVar

    def sample(self, params, stats, class_index, rng):
        return self.event.sample(params, class_index, rng)

    def read(self, X) -> NDArray[np.float64]:
        return self._read_numbers(X)

    def log_likelihood_terms(self, params, data) -> NDArray[np.float64]:
        """Column ``j``'s term is the log-likelihood of the row with every other
        column missing (these models leave out a missing column's term)."""
        terms = []
        for j in range(data.shape[1]):
            alone = np.full_like(data, np.nan)
            alone[:, j] = data[:, j]
            terms.append(self.log_likelihood(params, alone))
        return np.stack(terms, axis=2)


class _RateBlock(_NumericBlock):
    """Non-negative columns with statistics ``(n_cj, S_cj)`` and a Gamma(alpha, beta)
    prior on each rate."""

    def read(self, X) -> NDArray[np.float64]:
        data = self._read_numbers(X)
        negative = data < 0  # NaN compares False
        if negative.any():
            row, col = np.argwhere(negative)[0]
            raise ValueError(
                f"Column {self.keys[col]!r} is {self.kind} but holds the negative value "
                f"{data[row, col]!r} (row {row}); {self.kind} columns must be non-negative."
            )
        return data

    def zero(self, n_classes):
        return sums.SumStats.zero(n_classes, len(self.keys))

    def summarize(self, data, W):
        return sums.summarize(data, W)

    def estimate(self, stats, **_):
        return self.event.estimate(stats, self.option("alpha"), self.option("beta"))

    def log_likelihood(self, params, data):
        return self.event.log_likelihood(params, data)


@register_kind
class PoissonBlock(_RateBlock):
    """Counts, Poisson per class and column; Gamma(2, 1)-MAP rates by default."""

    kind: ClassVar[str] = "poisson"
    OPTIONS: ClassVar[dict] = {"alpha": 2.0, "beta": 1.0}
    event = poisson


@register_kind
class ExponentialBlock(_RateBlock):
    """Non-negative values, exponential per class and column; the MLE rate
    ``n_cj / S_cj`` by default (Gamma(1, 0))."""

    kind: ClassVar[str] = "exponential"
    OPTIONS: ClassVar[dict] = {"alpha": 1.0, "beta": 0.0}
    event = exponential


@register_kind
class KDEBlock(_NumericBlock):
    """Gaussian kernel density per class and column (John & Langley, 1995), exact or
    binned; a column constant over all rows has no bandwidth and is an error."""

    kind: ClassVar[str] = "kde"
    event = kde
    OPTIONS: ClassVar[dict] = {
        "bandwidth": "scott",
        "algorithm": "auto",
        "max_exact_samples": 10000,
        "max_bins": 512,
    }

    def _max_exact(self) -> int | None:
        algorithm = self.option("algorithm")
        return {"exact": None, "binned": 0}.get(algorithm, self.option("max_exact_samples"))

    def zero(self, n_classes):
        return kde.KDEStats.zero(
            n_classes, len(self.keys), self._max_exact(), self.option("max_bins")
        )

    def summarize(self, data, W):
        return kde.summarize(data, W, self._max_exact(), self.option("max_bins"))

    def estimate(self, stats, **_):
        try:
            return kde.estimate(stats, self.option("bandwidth"))
        except kde.ConstantColumnError as error:
            raise ValueError(
                f"Column {self.keys[error.column]!r} is kde but constant (or has one value "
                "only): its kernel bandwidth would be 0. Drop it, declare it another kind, or "
                "give kind_options={'kde': {'bandwidth': <number>}}."
            ) from None

    def log_likelihood(self, params, data):
        return kde.log_likelihood(params, data)


@register_kind
class BinnedBlock(_NumericBlock):
    """Discretised columns (equal width, equal frequency, or supervised MDL as Weka's
    ``-D``), categorical per class over the intervals, Lidstone ``alpha``."""

    kind: ClassVar[str] = "binned"
    event = binned
    OPTIONS: ClassVar[dict] = {"strategy": "mdl", "n_bins": 5, "max_bins": 1024}

    def zero(self, n_classes):
        return grid.GridStats.zero(n_classes, len(self.keys), self.option("max_bins"))

    def summarize(self, data, W):
        return grid.summarize(data, W, self.option("max_bins"))

    def estimate(self, stats, *, alpha, **_):
        return binned.estimate(stats, self.option("strategy"), self.option("n_bins"), alpha)

    def log_likelihood(self, params, data):
        return binned.log_likelihood(params, data)
