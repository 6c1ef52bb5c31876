"""The "gaussian" kind: :mod:`nbayes.events.gaussian`, column by column floors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes.events import gaussian
from nbayes.mixed.blocks.base import Block, by_missing_pattern, register_kind


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

    def sample(self, block_params, stats, class_index, rng):
        return gaussian.sample(block_params.params, class_index, rng)

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
