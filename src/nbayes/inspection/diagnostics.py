"""How far are the data from the naive assumption?

The assumption is that features are independent given the class. Its violation for a
pair of columns is the conditional mutual information

``I(X_i; X_j | Y) = sum_{y,v,w} p(y,v,w) log[p(y,v,w) p(y) / (p(y,v) p(y,w))]``,

computed here from the pairwise counts that AODE and TAN are estimated from. Each
pair also gets the G-test of conditional independence: under independence
``2 N I`` is asymptotically chi-squared with ``k (K_i - 1)(K_j - 1)`` degrees of
freedom, and the normalised strength ``I / min(H(X_i|Y), H(X_j|Y))`` in [0, 1]
(1: one column determines the other within each class).

Numeric columns that look continuous (non-integer values, or more than
``max_categories`` distinct values) are cut into ``n_bins`` equal-frequency bins first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import chi2

from nbayes.core import vocabulary as _vocabulary
from nbayes.core.validation import hard_class_weights
from nbayes.errors import NotSupportedError
from nbayes.events import pairwise

# Verdict thresholds on the largest normalised strength (documented in the verdict).
MILD_DEPENDENCE = 0.05
STRONG_DEPENDENCE = 0.25


@dataclass(frozen=True)
class IndependenceReport:
    """Conditional dependence of every pair of columns given the class.

    Attributes
    ----------
    feature_names : list of str, length n_features
    cmi : ndarray (n_features, n_features)
        ``I(X_i; X_j | Y)`` in nats; diagonal 0.
    strength : ndarray (n_features, n_features)
        ``I / min(H(X_i|Y), H(X_j|Y))``; diagonal 0.
    p_value : ndarray (n_features, n_features)
        G-test p-values of conditional independence; diagonal 1.
    n_samples : int
    """

    feature_names: list[str]
    cmi: NDArray[np.float64]
    strength: NDArray[np.float64]
    p_value: NDArray[np.float64]
    n_samples: int
    pairs: list[tuple[str, str, float, float, float]] = field(init=False)

    def __post_init__(self) -> None:
        d = len(self.feature_names)
        rows = [
            (
                self.feature_names[i],
                self.feature_names[j],
                float(self.cmi[i, j]),
                float(self.strength[i, j]),
                float(self.p_value[i, j]),
            )
            for i in range(d)
            for j in range(i + 1, d)
        ]
        rows.sort(key=lambda row: -row[3])
        object.__setattr__(self, "pairs", rows)

    def top(self, n: int = 10) -> list[tuple[str, str, float, float, float]]:
        """The ``n`` pairs that most violate the assumption: (a, b, cmi, strength, p)."""
        return self.pairs[:n]

    @property
    def verdict(self) -> str:
        """One line: how far the data are from the assumption, and what follows."""
        if not self.pairs:
            return "One column: the naive assumption holds trivially."
        a, b, _, worst, _ = self.pairs[0]
        mean = float(np.mean([row[3] for row in self.pairs]))
        if worst < MILD_DEPENDENCE:
            advice = "close to conditionally independent; the probabilities can be trusted"
        elif worst < STRONG_DEPENDENCE:
            advice = "mild dependence; rankings are sound, probabilities somewhat overconfident"
        else:
            advice = (
                "strong dependence; expect overconfident probabilities (calibrate, or use AODE/TAN)"
            )
        return (
            f"Largest dependence {a} ~ {b} (strength {worst:.2f}, mean {mean:.3f} over "
            f"{len(self.pairs)} pairs): {advice}."
        )

    def __str__(self) -> str:
        lines = [self.verdict, f"{'pair':<40}{'CMI (nats)':>12}{'strength':>10}{'p':>10}"]
        for a, b, cmi, strength, p in self.top():
            lines.append(f"{a + ' ~ ' + b:<40}{cmi:>12.4f}{strength:>10.3f}{p:>10.2g}")
        return "\n".join(lines)


def _categorical_columns(X: NDArray, n_bins: int, max_categories: int) -> NDArray:
    """Object array with continuous columns replaced by equal-frequency bin labels."""
    out = np.asarray(X, dtype=object).copy()
    for j in range(out.shape[1]):
        column = out[:, j]
        missing = np.array([_vocabulary.is_missing(v) for v in column])
        try:
            values = column[~missing].astype(float)
        except (TypeError, ValueError):
            continue
        continuous = np.any(np.mod(values, 1) != 0) or np.unique(values).size > max_categories
        if values.size and continuous:
            edges = np.unique(np.quantile(values, np.linspace(0, 1, n_bins + 1)[1:-1]))
            column[~missing] = np.searchsorted(edges, values, side="right")
    return out


def independence_report(
    X: ArrayLike,
    y: ArrayLike,
    *,
    feature_names=None,
    n_bins: int = 10,
    max_categories: int = 50,
) -> IndependenceReport:
    """Rank every pair of columns of X (n_samples, n_features) by ``I(X_i; X_j | Y)``."""
    if feature_names is None and hasattr(X, "columns"):
        feature_names = [str(c) for c in X.columns]
    X = _categorical_columns(np.asarray(X, dtype=object), n_bins, max_categories)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(
            f"X must be 2-D and y have one label per row; got X {X.shape}, y {y.shape}."
        )
    classes, label_index = np.unique(y, return_inverse=True)
    codes, vocabularies = _vocabulary.encode(X, ((),) * X.shape[1], grow=True)
    stats = pairwise.summarize(
        codes, hard_class_weights(label_index, len(classes), None), vocabularies
    )
    return report_from_stats(stats, feature_names or [f"x{j}" for j in range(X.shape[1])])


def report_from_stats(stats: pairwise.PairStats, feature_names: list[str]) -> IndependenceReport:
    """The report from pairwise statistics (a fitted AODE's or TAN's ``statistics``);
    NotSupportedError for statistics that keep no pairs."""
    if not isinstance(stats, pairwise.PairStats):
        raise NotSupportedError(
            f"independence diagnostics need pair statistics, which {type(stats).__name__} "
            "does not keep (AODE and TAN keep them)."
        )
    cmi = pairwise.conditional_mutual_information(stats)
    entropy = pairwise.conditional_entropy(stats)
    smaller = np.minimum.outer(entropy, entropy)
    with np.errstate(divide="ignore", invalid="ignore"):
        strength = np.where(smaller > 0, cmi / smaller, 0.0)
    np.fill_diagonal(strength, 0.0)
    n_samples = round(float(stats.class_count.sum()))
    k = int(np.count_nonzero(stats.class_count))
    levels = stats.n_categories - 1
    dof = np.maximum(k * np.multiply.outer(levels, levels), 1)
    p_value = chi2.sf(2.0 * n_samples * cmi, dof)
    np.fill_diagonal(p_value, 1.0)
    return IndependenceReport(list(feature_names), cmi, np.clip(strength, 0, 1), p_value, n_samples)
