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

The values shown: every category of a categorical feature, 0 and 1 of a Bernoulli
feature, one occurrence of a multinomial count (its contribution grows linearly
with the count), and for a Gaussian feature a grid over the classes' means ± 2.5
standard deviations. Any feature's values can be given instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

_GAUSSIAN_Z = (-1.645, -1.0, 0.0, 1.0, 1.645)  # about its 5, 16, 50, 84 and 95 % points


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
    from nbayes.inspection.explain import _FACTOR_KIND, _event_name, _feature_names

    check_is_fitted(model)
    kind = _event_name(model)
    if _FACTOR_KIND.get(kind) == "weight":
        raise TypeError(
            f"A nomogram needs class-conditional probabilities; {type(model).__name__}'s "
            "complement weights are not."
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
    names = _feature_names(model, feature_names)
    values, labels = dict(values or {}), dict(labels or {})
    unknown = sorted((set(values) | set(labels)) - set(names))
    if unknown:
        raise ValueError(f"No feature(s) {unknown}; the features are {names}.")
    grid = [
        list(values[n]) if n in values else _default_values(model, kind, j)
        for j, n in enumerate(names)
    ]
    if any(len(g) == 0 for g in grid):
        raise ValueError("Every feature needs at least one value to show.")
    log_p = _value_log_likelihoods(model, kind, grid)  # per feature: (n_values, n_classes)
    log_prior = np.asarray(model._jll_prior(model._fitted.log_prior), dtype=float)
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
        continuous = kind == "gaussian" and name not in values
        rows.append(NomogramRow(name, grid[j], text, points, continuous))
    rows.sort(key=lambda row: -row.span)
    return Nomogram(
        target, [classes[k] for k in others], float(log_prior[c] - rest_log_prior), rows
    )


def _default_values(model, kind: str, j: int) -> list:
    if kind == "categorical":
        return list(range(int(model._stats.n_categories[j])))
    if kind == "bernoulli":
        return [0, 1]
    if kind == "multinomial":
        return [1]
    if kind == "gaussian":  # the prior-weighted mixture's mean ± 1 and 1.645 sd
        params = model._fitted.params
        prior = np.exp(model._fitted.log_prior)
        mean = float(prior @ params.theta[:, j])
        second = float(prior @ (params.var[:, j] + params.theta[:, j] ** 2))
        sd = np.sqrt(max(second - mean**2, 0.0))
        return (mean + sd * np.array(_GAUSSIAN_Z)).tolist()
    raise TypeError(
        f"Give the values to show for each feature of {type(model).__name__} (values=...)."
    )


def _value_log_likelihoods(model, kind: str, grid: list[list]) -> list[NDArray[np.float64]]:
    """``log P(x_j = v | y)`` for each feature's values: (n_values_j, n_classes) each.

    One input row per value position (a feature with fewer values repeats its last),
    so the work is (max n_values, n_classes, n_features), not per (feature, value).
    """
    depth = max(len(g) for g in grid)
    table = [[g[min(r, len(g) - 1)] for g in grid] for r in range(depth)]
    dtype = np.intp if kind == "categorical" else np.float64
    X = np.asarray(table, dtype=dtype)
    terms = model._log_likelihood_terms(model._fitted.params, model._prepare_X(X))
    return [terms[: len(g), :, j] for j, g in enumerate(grid)]


def _label(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)
