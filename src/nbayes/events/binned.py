"""Binned (discretised) event model: each feature is cut into intervals, and the
interval codes follow the categorical model (:mod:`nbayes.events.categorical`).

Statistics: the per-class grid histograms of :mod:`nbayes.events.grid` (additive,
mergeable, streamable; the grid does not depend on the order of the batches). The
intervals are chosen at estimate time from the summed grid, among the **gaps**
between consecutive occupied grid bins; a cut sits in the middle of its gap,
``(largest value left + smallest value right) / 2``, as Weka places it. When every
grid bin holds one distinct value (small data; ``max_bins`` fine) these are exactly
the gaps between distinct training values.

Strategies, ``n_bins`` intervals at most:

- ``"uniform"``: equal width: the gap holding ``min + q (max - min) / n_bins`` (a
  grid bin straddling that point is not split: it goes right), so the training rows
  fall in the same intervals as under exact equal-width cuts when no bin straddles;
- ``"quantile"``: equal frequency, the gap where the cumulative (weighted) count is
  nearest to ``q N / n_bins``;
- ``"mdl"``: supervised, Fayyad & Irani (1993) as Weka's ``Discretize -D``
  (``n_bins`` unused): recursively take the gap of least class entropy
  ``|S1|/|S| Ent(S1) + |S2|/|S| Ent(S2)`` (the first on ties) and keep it only if
  its gain exceeds ``(log2(N - 1) + Delta) / N`` with
  ``Delta = log2(3^k - 2) - [k Ent(S) - k1 Ent(S1) - k2 Ent(S2)]``, ``k`` the classes
  present; entropies in bits, counts weighted. ``log2(N - 1)`` is the paper's and
  Weka's default encoding (Weka counts rows there; we use the weighted ``N`` so that
  integer weights equal repeated rows).

Codes: ``x <= cut_1`` is interval 0, ``cut_1 < x <= cut_2`` interval 1, ... (Weka's
convention); then ``P(code = v | c)`` is the Lidstone estimate of the categorical
model. Missing values (NaN) add nothing and leave their term out.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from numbers import Integral
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray
from sklearn.utils._param_validation import Interval, StrOptions

from nbayes.core.validation import ClassWeights
from nbayes.events import categorical
from nbayes.events._contract import EventModel, pseudocount_interval, setting
from nbayes.events.grid import GridStats, summarize

__all__ = ["Binned", "BinnedParams", "GridStats", "mdl_cuts"]

STRATEGIES = ("uniform", "quantile", "mdl")


@dataclass(frozen=True)
class BinnedParams:
    """``cuts``: one increasing array of cut points per feature; ``categorical``: the
    interval model (``n_categories = len(cuts_j) + 1``)."""

    cuts: list[NDArray[np.float64]]
    categorical: categorical.CategoricalParams


def _entropy(counts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Entropy in bits of each column of class counts (n_classes, m) → (m,)."""
    total = counts.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = counts / total
        terms = np.where(counts > 0, -p * np.log2(np.where(counts > 0, p, 1.0)), 0.0)
    return terms.sum(axis=0)


def mdl_cuts(counts: NDArray[np.float64]) -> list[int]:
    """Fayyad–Irani MDL cuts for class counts (n_classes, m) of ``m`` ordered groups
    of values: the sorted gaps ``g`` (a cut between group ``g`` and ``g + 1``)."""
    cuts: list[int] = []
    _split(counts, 0, cuts)
    return sorted(cuts)


def _split(counts: NDArray[np.float64], first: int, cuts: list[int]) -> None:
    m = counts.shape[1]
    if m < 2:
        return
    prior = counts.sum(axis=1)
    n = prior.sum()
    left = np.cumsum(counts, axis=1)[:, :-1]  # gap g: groups 0..g left
    right = prior[:, None] - left
    n_left, n_right = left.sum(axis=0), right.sum(axis=0)
    conditional = (n_left * _entropy(left) + n_right * _entropy(right)) / n
    best = int(np.argmin(conditional))
    prior_entropy = float(_entropy(prior[:, None])[0])
    gain = prior_entropy - conditional[best]
    if not gain > 0 or n <= 1:
        return
    k = np.count_nonzero(prior)
    k1 = np.count_nonzero(left[:, best])
    k2 = np.count_nonzero(right[:, best])
    e1 = float(_entropy(left[:, best : best + 1])[0])
    e2 = float(_entropy(right[:, best : best + 1])[0])
    delta = np.log2(3.0**k - 2) - (k * prior_entropy - k1 * e1 - k2 * e2)
    if not gain > (np.log2(n - 1) + delta) / n:
        return
    cuts.append(first + best)
    _split(counts[:, : best + 1], first, cuts)
    _split(counts[:, best + 1 :], first + best + 1, cuts)


def _nearest_gaps(positions: NDArray, targets: NDArray) -> list[int]:
    """For each target, the index of the nearest position (unique, sorted)."""
    if positions.size == 0:
        return []
    index = np.searchsorted(positions, targets)
    below = np.clip(index - 1, 0, positions.size - 1)
    above = np.clip(index, 0, positions.size - 1)
    nearer_below = np.abs(positions[below] - targets) <= np.abs(positions[above] - targets)
    pick = np.where(nearer_below, below, above)
    return sorted(set(pick.tolist()))


def choose_gaps(
    counts: NDArray, low: NDArray, high: NDArray, strategy: str, n_bins: int
) -> list[int]:
    """The gaps to cut for the occupied bins of one feature: counts (n_classes, m),
    low/high (m,) the smallest/largest value per bin."""
    m = counts.shape[1]
    if m < 2:
        return []
    if strategy == "mdl":
        return mdl_cuts(counts)
    steps = np.arange(1, n_bins) / n_bins
    if strategy == "uniform":
        targets = low[0] + steps * (high[-1] - low[0])
        below = np.searchsorted(high, targets, "left")  # bins wholly below each target
        return sorted(set((below[(below >= 1) & (below <= m - 1)] - 1).tolist()))
    if strategy == "quantile":
        cumulative = np.cumsum(counts.sum(axis=0))[:-1]
        return _nearest_gaps(cumulative, steps * counts.sum())
    raise ValueError(f"Unknown strategy {strategy!r}; expected one of {STRATEGIES}.")


def _estimate(stats: GridStats, strategy: str, n_bins: int, alpha: float) -> BinnedParams:
    """Cut points from the summed grid, then the Lidstone categorical model of the
    interval codes."""
    n_classes, n_features = stats.counts.shape[:2]
    cuts, blocks = [], []
    for j in range(n_features):
        bins = np.flatnonzero(stats.occupied(j))
        counts = stats.counts[:, j, bins]
        low, high = stats.low[j, bins], stats.high[j, bins]
        gaps = choose_gaps(counts, low, high, strategy, n_bins)
        cuts.append(np.array([0.5 * (high[g] + low[g + 1]) for g in gaps], dtype=np.float64))
        code = np.searchsorted(np.asarray(gaps, dtype=np.intp), np.arange(bins.size), "left")
        block = np.zeros((n_classes, len(gaps) + 1))
        for c in range(n_classes):
            block[c] = np.bincount(code, counts[c], minlength=len(gaps) + 1)
        blocks.append(block)
    n_categories = np.array([len(c) + 1 for c in cuts], dtype=np.intp)
    flat = np.hstack(blocks) if blocks else np.zeros((n_classes, 0))
    interval_stats = categorical.CategoricalStats(stats.class_count, n_categories, flat)
    return BinnedParams(cuts, categorical.Categorical(alpha=alpha).estimate(interval_stats))


def codes(cuts: list[NDArray[np.float64]], X: NDArray[np.float64]) -> NDArray[np.intp]:
    """Interval codes of X (n_samples, n_features); NaN gets ``len(cuts_j) + 1``, an
    unknown code (so the categorical model leaves its term out)."""
    out = np.empty(X.shape, dtype=np.intp)
    for j, cut in enumerate(cuts):
        column = X[:, j]
        out[:, j] = np.where(np.isnan(column), cut.size + 1, np.searchsorted(cut, column))
    return out


def _sample(
    params: BinnedParams, class_index: NDArray[np.intp], rng: np.random.Generator
) -> NDArray[np.float64]:
    """Draw each feature's interval from the categorical model and return the
    interval's midpoint; an open end interval is given the width of its neighbour
    (the model has no density within an interval): (n, n_features)."""
    interval = _INTERVALS.sample(params.categorical, None, class_index, rng)
    out = np.empty(interval.shape)
    for j, cuts in enumerate(params.cuts):
        if cuts.size == 0:
            out[:, j] = 0.0
            continue
        width = np.diff(cuts).mean() if cuts.size > 1 else 1.0
        edges = np.concatenate(([cuts[0] - width], cuts, [cuts[-1] + width]))
        out[:, j] = (edges[interval[:, j]] + edges[interval[:, j] + 1]) / 2
    return out


#: The interval codes' model: unknown codes (missing values) left out.
_INTERVALS = categorical.Categorical(handle_unknown="ignore")


@dataclass(frozen=True)
class Binned(EventModel[GridStats, BinnedParams]):
    """The binned event model: continuous features cut into intervals (equal width,
    equal frequency, or Fayyad & Irani's MDL as Weka's ``-D``), categorical per class
    over the intervals, with Lidstone ``alpha``."""

    name: ClassVar[str] = "binned"

    strategy: str = setting("mdl", StrOptions(set(STRATEGIES)))
    n_bins: int = setting(5, Interval(Integral, 2, None, closed="left"))
    alpha: float = setting(1.0, pseudocount_interval(), shared="alpha")
    max_bins: int = setting(1024, Interval(Integral, 2, None, closed="left"))

    def zero(self, n_classes: int, n_features: int) -> GridStats:
        return GridStats.zero(n_classes, n_features, self.max_bins)

    def summarize(self, X, W: ClassWeights) -> GridStats:
        return summarize(X, W, self.max_bins)

    def estimate(self, stats: GridStats) -> BinnedParams:
        """Cut points from the summed grid, then the Lidstone categorical model of the
        interval codes."""
        return _estimate(stats, self.strategy, self.n_bins, self.alpha)

    def log_parameter_prior(self, params: BinnedParams) -> float:
        return categorical.Categorical(alpha=self.alpha).log_parameter_prior(params.categorical)

    def log_likelihood(self, params: BinnedParams, X) -> NDArray[np.float64]:
        """``sum_j log P(code(x_j) | c)`` for X (n_samples, n_features), NaN = missing →
        (n_samples, n_classes)."""
        return _INTERVALS.log_likelihood(params.categorical, codes(params.cuts, X))

    def onnx_log_likelihood(self, params: BinnedParams, x: str, graph) -> str:
        """Each value's interval (a comparison with the cut points), then the
        interval model's gather (NaN: an unknown interval, left out)."""
        codes = graph.interval_codes(x, params.cuts)
        return _INTERVALS.onnx_log_likelihood(params.categorical, codes, graph)

    def log_likelihood_terms(self, params: BinnedParams, X) -> NDArray[np.float64]:
        return _INTERVALS.log_likelihood_terms(params.categorical, codes(params.cuts, X))

    def sample(self, params, stats, class_index, rng) -> NDArray[np.float64]:
        return _sample(params, class_index, rng)

    def describe(self, params, stats, n_features, class_prior) -> list[dict]:
        """Each feature's intervals and their probability per class."""
        out = []
        for j, log_p in enumerate(params.categorical.per_feature()):
            cuts = [f"{c:.6g}" for c in params.cuts[j]]
            bounds = ["-inf", *cuts, "inf"]
            intervals = [f"({a}, {b}]" for a, b in itertools.pairwise(bounds)]
            out.append({"values": intervals, "probability": np.exp(log_p).tolist()})
        return out

    def value_grid(self, params, stats, j, class_prior) -> list:
        """One value per interval: its midpoint (an open end interval gets the width of
        its neighbour)."""
        cuts = params.cuts[j]
        if cuts.size == 0:
            return [0.0]
        width = float(np.diff(cuts).mean()) if cuts.size > 1 else 1.0
        edges = np.concatenate(([cuts[0] - width], cuts, [cuts[-1] + width]))
        return ((edges[:-1] + edges[1:]) / 2).tolist()
