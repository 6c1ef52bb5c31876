"""Explanations: the worked computation of a posterior, as the course notes lay it out,
and the most informative features of a discrete model (as NLTK's
``show_most_informative_features``).

For one row ``x`` with features ``x_1 .. x_d`` and classes ``y``:

- the prior ``P(y)``;
- each feature's factor ``P(x_j | y)`` (a density ``p(x_j | y)`` for Gaussian features);
- their product, the posterior numerator ``P(y) prod_j P(x_j | y) = P(x, y)``;
- the evidence ``P(x) = sum_y P(x, y)``;
- the posterior ``P(y | x) = P(x, y) / P(x)``;
- each feature's log-likelihood-ratio contribution
  ``log P(x_j | a) - log P(x_j | b)``, sorted by size, where ``(a, b)`` is
  ``(classes_[1], classes_[0])`` for two classes and (predicted, runner-up) otherwise;
  the prior log-odds plus the contributions is the log-odds ``log P(a | x) / P(b | x)``.

Everything is computed in log space; the products are also given as plain numbers,
which may underflow to 0 for long rows (their logs never do). For ComplementNB the
factors are complement weights ``exp(x_j w_cj)``, not probabilities, and the prior is
left out, as the model does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.special import logsumexp
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from nbayes.errors import NotSupportedError
from nbayes.inspection.explanation import (
    Contribution,
    Explanation,
    Folded,
    Part,
    _plain,
)
from nbayes.inspection.features import (
    DENSITY,
    factor_kind,
    feature_names,
    interval_log_probabilities,
    value_grids,
    value_log_likelihoods,
)


def explain(
    model,
    x,
    *,
    feature_names: Sequence[str] | None = None,
    display_values: Sequence[Any] | None = None,
) -> Explanation:
    """Explain the posterior of one row ``x`` (n_features,) under a fitted nbayes model.

    ``x`` is a sequence in feature order, a mapping from feature name to value, or a
    sparse (1, n_features) matrix. A model that leaves missing values out
    (``NaiveBayes``, AODE, ...) takes a row with missing values (None, NaN) or, as a
    mapping, without some features: those are marginalised (a factor of 1 in every
    class), as ``predict_proba`` does, and listed in ``left_out``. Values training
    never gave the model (unknown categories) are listed in ``unseen``.
    ``feature_names`` and ``display_values`` (what to show for each value, e.g. the
    category names behind codes) only change how the row is labelled.

    A sparse row, or a row of more than :data:`LISTED_FEATURES` features for a model
    of sparse input (word counts), lists only its non-zero features: the others are
    folded into one factor (``folded``), the product of their factors.

    ``model`` may also be a fitted scikit-learn Pipeline ending in an nbayes model
    (:func:`nbayes.text.make_text_classifier`): ``x`` is then one raw input (a
    document), run through the pipeline's transforms, and the features are named by
    their ``get_feature_names_out`` (words) where they have one.

    >>> import nbayes, pandas as pd
    >>> table = pd.DataFrame({"age": [25, 61, 33, 52], "job": ["a", "b", "a", "b"]})
    >>> model = nbayes.NaiveBayes().fit(table, ["no", "yes", "no", "yes"])
    >>> model.explain({"job": "c"}).left_out, model.explain({"job": "c"}).unseen
    (['age'], {'job': 'c'})
    """
    if isinstance(model, Pipeline):
        return _explain_pipeline(model, x, display_values)
    check_is_fitted(model)
    names = _names(model, feature_names)
    row, not_given = _as_row(model, x, names)
    X = model.check_X(row)
    fitted = model.fitted_parameters
    all_factors = model.log_likelihood_terms(X)[0]
    log_prior = model.prior_term(fitted.log_prior)
    log_joint = model.predict_joint_log_proba(row)[0]
    posterior = model.predict_proba(row)[0]
    classes = model.classes_.tolist()
    predicted_index = int(np.flatnonzero(model.classes_ == model.predict(row)[0])[0])
    all_values = list(display_values) if display_values is not None else None
    raw = _raw_values(row)
    listed = _listed(model, row, raw)
    folded = None
    if listed is None:
        listed = np.arange(len(names))
    else:
        rest = np.ones(len(names), dtype=bool)
        rest[listed] = False
        folded = Folded(int(rest.sum()), all_factors[:, rest].sum(axis=1))
    names = [names[j] for j in listed]
    log_factors = all_factors[:, listed]
    raw = [raw[j] for j in listed]
    plain = [_plain(value) for value in raw]
    values = plain if all_values is None else [all_values[j] for j in listed]
    contrast, prior_log_odds, contributions = None, None, []
    if len(classes) >= 2:
        if len(classes) == 2:
            a, b = 1, 0
        else:
            order = [c for c in np.argsort(-posterior, kind="stable") if c != predicted_index]
            a, b = predicted_index, int(order[0])
        contrast = (classes[a], classes[b])
        prior_log_odds = float(log_prior[a] - log_prior[b])
        with np.errstate(invalid="ignore"):
            ratios = log_factors[a] - log_factors[b]
            rows = list(zip(names, values, ratios, strict=True))
            if folded is not None:
                rows.append((folded.label, 0, folded.log_factor[a] - folded.log_factor[b]))
        contributions = sorted(
            (Contribution(name, value, float(r)) for name, value, r in rows),
            key=lambda c: -abs(c.log_ratio) if not math.isnan(c.log_ratio) else math.inf,
        )
    parts, left_out, unseen = {}, [], {}
    for k, (j, name, value) in enumerate(zip(listed, names, plain, strict=True)):
        if _is_missing(raw[k]):
            left_out.append(name)
            continue
        if model.unseen(int(j), value):
            unseen[name] = values[k]
        found = model.factor_parts(int(j), value)
        if found:
            parts[name] = _ranked_parts(found, None if contrast is None else (a, b))
    return Explanation(
        model=type(model).__name__,
        classes=classes,
        features=names,
        values=values,
        log_prior=log_prior,
        log_factors=log_factors,
        log_joint=log_joint,
        log_evidence=float(logsumexp(log_joint)),
        posterior=posterior,
        predicted=classes[predicted_index],
        contrast=contrast,
        prior_log_odds=prior_log_odds,
        contributions=contributions,
        factor_kind=factor_kind(model),
        parts=parts,
        left_out=left_out,
        not_given=[name for name in names if name in not_given],
        unseen=unseen,
        folded=folded,
    )


#: A row of a model of sparse input (word counts) with more features than this lists
#: only its non-zero ones (a text model has one per word of its vocabulary).
LISTED_FEATURES = 100


def _listed(model, row, raw: NDArray) -> NDArray[np.intp] | None:
    """The features an explanation lists one by one: the non-zero ones of a sparse
    row, or of a wide row of a model of sparse input (zero is then an absent word);
    None for all."""
    sparse_input = model.__sklearn_tags__().input_tags.sparse
    if not (sp.issparse(row) or (sparse_input and len(raw) > LISTED_FEATURES)):
        return None
    with np.errstate(invalid="ignore"):
        return np.flatnonzero(np.asarray(raw, dtype=float) != 0)


def _raw_values(row) -> NDArray:
    """The values of a one-row input, (n_features,)."""
    if sp.issparse(row):
        return row.toarray()[0]
    return row.to_numpy()[0] if hasattr(row, "to_numpy") else row[0]


def _explain_pipeline(pipeline: Pipeline, x, display_values) -> Explanation:
    """The explanation of the pipeline's model for one raw input ``x``, transformed
    by the steps before it; features named by their ``get_feature_names_out``."""
    check_is_fitted(pipeline)
    transforms, model = pipeline[:-1], pipeline[-1]
    if isinstance(x, Mapping):
        import pandas as pd

        batch = pd.DataFrame([x])
    else:
        batch = [x]
    row = transforms.transform(batch)
    try:
        names = list(transforms.get_feature_names_out())
    except (AttributeError, ValueError, TypeError):  # a step that cannot name its output
        names = None
    return explain(model, row, feature_names=names, display_values=display_values)


def _ranked_parts(found, contrast: tuple[int, int] | None) -> list[Part]:
    """The parts, the largest log ratio between the contrasted classes first (without
    a contrast, the largest spread between classes)."""
    out = []
    for part, count, log_terms in found:
        ratio = None
        if contrast is not None:
            with np.errstate(invalid="ignore"):
                ratio = float(log_terms[contrast[0]] - log_terms[contrast[1]])
        out.append(Part(str(part), float(count), np.asarray(log_terms, dtype=float), ratio))

    def weight(part: Part) -> float:
        if part.log_ratio is not None:
            return abs(part.log_ratio) if not math.isnan(part.log_ratio) else -1.0
        return float(np.ptp(part.log_terms))

    return sorted(out, key=weight, reverse=True)


# ---------------------------------------------------------------- informative features
class InformativeFeature(NamedTuple):
    """A feature value (or interval of a continuous feature) whose probability differs
    most between two classes.

    ``ratio = P(feature = value | top) / P(feature = value | bottom)``, the largest
    over the smallest across classes; for an interval, ``value`` is its label
    (``"17 to 24.3"``) and ``interval`` its bounds, and the probabilities are those of
    the interval.
    """

    feature: str
    index: int
    value: Any
    ratio: float
    top: Any
    bottom: Any
    interval: tuple[float, float] | None = None


def most_informative_features(
    model, n: int = 10, *, feature_names: Sequence[str] | None = None, X=None
) -> list[InformativeFeature]:
    """The ``n`` (feature, value) pairs with the largest ratio
    ``max_y P(x_j = v | y) / min_y P(x_j = v | y)``, largest first.

    Values: each feature's value grid from its event model: every category of a
    categorical feature (or column of a table), present (1) and absent (0) for a
    Bernoulli feature, one occurrence (1) of a count of the multinomial and complement
    models (whose "probabilities" are then the exponentiated complement weights), each
    interval of a binned feature. A continuous feature (a density) is ranked by
    intervals between its grid values (quantiles of the class mixture), with their
    probabilities per class, not by densities at points (whose ratios can be
    anything); ``X``, the training data, bounds them to the observed range (see
    :func:`nbayes.inspection.features.interval_log_probabilities`).
    """
    check_is_fitted(model)
    names = _names(model, feature_names)
    grids = value_grids(model)
    continuous = [j for j, kind in enumerate(model.factor_kinds()) if kind == DENSITY]
    try:
        intervals = interval_log_probabilities(model, grids, continuous, X)
    except NotSupportedError:  # a model that cannot be sampled: its densities at points
        intervals = {}
    point_grids = [[] if j in intervals else grid for j, grid in enumerate(grids)]
    pairs: list[tuple[int, Any, tuple[float, float] | None]] = [
        (j, value, None) for j, grid in enumerate(point_grids) for value in grid
    ]
    blocks = [log_p for log_p in value_log_likelihoods(model, point_grids) if len(log_p)]
    for j, found in intervals.items():
        pairs += [(j, label, b) for label, b in zip(found.labels, found.bounds, strict=True)]
        blocks.append(found.log_p)
    if not pairs:
        return []
    log_p = np.concatenate(blocks)  # (n_pairs, n_classes)
    rows = np.arange(len(pairs))
    top, bottom = log_p.argmax(axis=1), log_p.argmin(axis=1)
    with np.errstate(invalid="ignore", over="ignore"):
        ratios = np.exp(log_p[rows, top] - log_p[rows, bottom])
    order = np.argsort(-np.nan_to_num(ratios, nan=-1.0), kind="stable")[:n]
    classes = model.classes_.tolist()
    return [
        InformativeFeature(
            names[pairs[r][0]],
            pairs[r][0],
            _plain(pairs[r][1]),
            float(ratios[r]),
            classes[top[r]],
            classes[bottom[r]],
            pairs[r][2],
        )
        for r in order
    ]


def _names(model, names: Sequence[str] | None) -> list[str]:
    return feature_names(model, names)


def _as_row(model, x, names: list[str]):
    """``x`` as a one-row input for the model: a DataFrame if it was fitted on one
    (each value keeps its own type), else a (1, n_features) array; and the features
    a mapping ``x`` does not name (missing values, where the model takes them)."""
    if sp.issparse(x):
        if x.shape != (1, model.n_features_in_):
            raise ValueError(
                f"explain() takes one row of {model.n_features_in_} values; got a sparse "
                f"matrix of shape {x.shape}."
            )
        return sp.csr_matrix(x), []
    if hasattr(x, "iloc") and getattr(x, "ndim", 1) == 2:  # a one-row DataFrame
        x = x.iloc[0]
    not_given: list[str] = []
    if isinstance(x, Mapping):
        not_given = [name for name in names if name not in x]
        if not_given and not model.__sklearn_tags__().input_tags.allow_nan:
            raise ValueError(
                f"The row has no value for feature(s) {not_given}; a "
                f"{type(model).__name__} needs every feature (NaiveBayes leaves missing "
                "values out)."
            )
        x = [x.get(name) for name in names]
    if hasattr(x, "to_numpy"):  # a Series
        x = list(x.to_numpy(dtype=object))
    values = list(np.asarray(x, dtype=object).reshape(-1)) if np.ndim(x) > 1 else list(x)
    if len(values) != model.n_features_in_:
        raise ValueError(f"explain() takes one row of {model.n_features_in_} values.")
    if hasattr(model, "feature_names_in_"):
        import pandas as pd

        return pd.DataFrame([values], columns=model.feature_names_in_), not_given
    if any(isinstance(v, str) or v is None for v in values):
        return np.asarray([values], dtype=object), not_given
    return np.asarray([values]), not_given


def _is_missing(value: Any) -> bool:
    """A missing value: None or NaN (what models that leave missing values out read
    as missing)."""
    return value is None or (isinstance(value, float | np.floating) and math.isnan(value))
