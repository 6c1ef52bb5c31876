"""The "bernoulli" and "multinomial" kinds: :mod:`nbayes.events.bernoulli` and
:mod:`nbayes.events.multinomial` over count statistics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from nbayes.events import bernoulli, counts, multinomial
from nbayes.mixed.blocks.base import Block, by_missing_pattern, register_kind


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

    def sample(self, params, stats, class_index, rng):
        return bernoulli.sample(params, class_index, rng).astype(bool)

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

    def sample(self, params, stats, class_index, rng):
        """Counts with Poisson lengths of each class's mean training total."""
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(
                stats.class_count > 0, stats.feature_count.sum(axis=1) / stats.class_count, 0.0
            )
        return multinomial.sample(params, class_index, rng, rng.poisson(mean[class_index]))


# --------------------------------------------------------------------- categorical
