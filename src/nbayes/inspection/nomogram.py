"""The numbers behind a naive Bayes nomogram (Možina, Demšar, Kattan & Zupan, 2004,
"Nomograms for visualization of naive Bayesian classifier", PKDD).

For a target class ``c`` against the rest ``¬c``, naive Bayes' log-odds is a sum:

``log P(c | x) / P(¬c | x) = log P(c) / P(¬c) + sum_j log P(x_j | c) / P(x_j | ¬c)``.

Each feature value ``v`` of feature ``j`` gets one point on a common axis, its
log-odds contribution ``log P(x_j = v | c) - log P(x_j = v | ¬c)``; a row's
log-odds is the prior log-odds plus the points of its values, and ``P(c | x)`` is
its logistic sigmoid. With two classes this is exact. With more, ``¬c`` is the
prior-weighted mixture of the other classes,
``P(x_j | ¬c) = sum_{c' != c} P(c') P(x_j | c') / sum_{c' != c} P(c')``, and the sum
is Možina et al.'s one-vs-rest approximation (the features are not independent
given ``¬c``).

The values shown are each feature's value grid from its event model: every category
of a categorical feature, 0 and 1 of a Bernoulli feature, one occurrence of a
multinomial count (its contribution grows linearly with the count), each interval of
a binned feature, and for a continuous feature a few representative values of the
class mixture. Any feature's values can be given instead. The points need per-feature
class-conditional probabilities that multiply: complement weights and models that are
not naive (AODE, TAN) have none (:class:`nbayes.errors.NotSupportedError`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

from nbayes.errors import NotSupportedError
from nbayes.inspection.features import DENSITY, feature_names, value_log_likelihoods

#: The factor kinds whose log-odds points add up to a row's log-odds.
_ADDITIVE = {"probability", DENSITY}


@dataclass(frozen=True)
class NomogramRow:
    """One feature: its values (model input), their labels and log-odds points
    (n_values,)."""

    feature: str
    values: list
    labels: list[str]
    log_odds: NDArray[np.float64]
    continuous: bool

    @property
    def span(self) -> float:
        """``max - min`` of the finite points: how much the feature can move the odds."""
        finite = self.log_odds[np.isfinite(self.log_odds)]
        return float(finite.max() - finite.min()) if finite.size else 0.0


@dataclass(frozen=True)
class Nomogram:
    """``target`` against ``rest``: the prior log-odds and one row per feature,
    the features sorted by span, largest first."""

    target: Any
    rest: list
    prior_log_odds: float
    rows: list[NomogramRow]

    def log_odds(self, values: Mapping[str, Any]) -> float:
        """The prior log-odds plus the points of the given ``{feature: value}``."""
        total = self.prior_log_odds
        for row in self.rows:
            if row.feature in values:
                total += float(row.log_odds[row.values.index(values[row.feature])])
        return total


def nomogram_data(
    model,
    target: Any = None,
    *,
    feature_names: Sequence[str] | None = None,
    values: Mapping[str, Sequence] | None = None,
    labels: Mapping[str, Sequence[str]] | None = None,
) -> Nomogram:
    """The nomogram of a fitted nbayes model for class ``target`` (default: the
    second of two classes; required with more).

    ``values`` maps a feature name to the model-input values to show; ``labels``
    maps a feature name to how to print them (e.g. the category names behind codes).
    """
    check_is_fitted(model)
    kinds = model.factor_kinds()
    if not set(kinds) <= _ADDITIVE:
        raise NotSupportedError(
            f"A nomogram needs per-feature class-conditional probabilities; "
            f"{type(model).__name__}'s factors are "
            f"{' and '.join(_plural(kind) for kind in sorted(set(kinds)))}, whose points do "
            "not add up to the log-odds."
        )
    classes = model.classes_.tolist()
    if len(classes) < 2:
        raise ValueError("A nomogram needs at least two classes.")
    if target is None:
        if len(classes) > 2:
            raise ValueError(f"Choose the target class (one of {classes}) for a multiclass model.")
        target = classes[1]
    if target not in classes:
        raise ValueError(f"Unknown target class {target!r}; the classes are {classes}.")
    c = classes.index(target)
    names = _names(model, feature_names)
    values, labels = dict(values or {}), dict(labels or {})
    unknown = sorted((set(values) | set(labels)) - set(names))
    if unknown:
        raise ValueError(f"No feature(s) {unknown}; the features are {names}.")
    grid = [list(values[n]) if n in values else model.value_grid(j) for j, n in enumerate(names)]
    if any(len(g) == 0 for g in grid):
        raise ValueError("Every feature needs at least one value to show.")
    log_p = value_log_likelihoods(model, grid)  # per feature: (n_values, n_classes)
    log_prior = np.asarray(model.prior_term(model.fitted_parameters.log_prior), dtype=float)
    others = [k for k in range(len(classes)) if k != c]
    rest_log_prior = logsumexp(log_prior[others])
    rows = []
    for j, name in enumerate(names):
        rest = logsumexp(log_p[j][:, others] + log_prior[others], axis=1) - rest_log_prior
        with np.errstate(invalid="ignore"):
            points = log_p[j][:, c] - rest
        shown = labels.get(name)
        if shown is not None and len(shown) != len(grid[j]):
            raise ValueError(f"{len(shown)} labels for {len(grid[j])} values of {name!r}.")
        text = [str(s) for s in shown] if shown is not None else [_label(v) for v in grid[j]]
        continuous = kinds[j] == DENSITY and name not in values
        rows.append(NomogramRow(name, grid[j], text, points, continuous))
    rows.sort(key=lambda row: -row.span)
    return Nomogram(
        target, [classes[k] for k in others], float(log_prior[c] - rest_log_prior), rows
    )


def _names(model, names: Sequence[str] | None) -> list[str]:
    return feature_names(model, names)


def _label(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _plural(noun: str) -> str:
    """``weight`` -> ``weights``, ``conditional probability`` -> ``... probabilities``."""
    return noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
