"""Merging models fitted on disjoint data: their statistics add.

``merge(a, b)`` is the model a single ``fit`` on the union of a's and b's data
would give: counts are summed exactly; Gaussian moments are pooled with Chan's
formula. Models may have seen different subsets of the classes (a partition that
lacks a class), which are aligned on the union of their ``classes_``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from nbayes.core.base import BaseNB


def merge(*models: BaseNB) -> BaseNB:
    """A new model whose statistics are the sum of those of ``models``.

    All models must be of the same class, with the same parameters, the same columns
    (the same names, in the same order, where they were fitted on named columns) and
    labels of one type (numbers or text). The inputs are left unchanged.
    """
    if not models:
        raise ValueError("merge() needs at least one fitted model.")
    first = models[0]
    for model in models:
        if not isinstance(model, BaseNB):
            raise TypeError(f"merge() takes nbayes estimators, got {type(model).__name__}.")
        check_is_fitted(model)
        if type(model) is not type(first):
            raise TypeError(f"Cannot merge a {type(model).__name__} into a {type(first).__name__}.")
        if model.n_features_in_ != first.n_features_in_:
            raise ValueError(
                f"Cannot merge models with {model.n_features_in_} and "
                f"{first.n_features_in_} features."
            )
        if not _same_params(model.get_params(), first.get_params()):
            raise ValueError("Cannot merge models fitted with different parameters.")
        names, first_names = (getattr(m, "feature_names_in_", None) for m in (model, first))
        if (names is None) != (first_names is None) or (
            names is not None and not np.array_equal(names, first_names)
        ):
            raise ValueError(
                "Cannot merge models fitted on differently named columns: "
                f"{_names(first_names)} and {_names(names)} (the statistics are summed "
                "column by column)."
            )
        if _label_kind(model.classes_) != _label_kind(first.classes_):
            raise ValueError(
                "Cannot merge models whose labels are of different types: "
                f"{first.classes_.tolist()} and {model.classes_.tolist()}."
            )
        if getattr(model, "_layout", None) != getattr(first, "_layout", None):
            raise ValueError(
                "Cannot merge models whose columns have different kinds (a kind inferred "
                "from each part's values can differ: declare the kinds with columns=...)."
            )
    classes = np.unique(np.concatenate([model.classes_ for model in models]))
    state = first.fitted_state()
    stats = first.event.zero(len(classes), first.n_features_in_)
    for model in models:
        index = np.searchsorted(classes, model.classes_)
        stats = stats + model.statistics.take_classes(index, len(classes))
    return clone(first).restore_state({**state, "classes_": classes, "statistics": stats})


def _same_params(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    return all(
        np.array_equal(a[key], b[key])
        if isinstance(a[key], np.ndarray | list)
        else a[key] == b[key]
        for key in a
    )


def _names(names) -> str:
    return "unnamed columns" if names is None else str(list(names))


def _label_kind(classes: np.ndarray) -> str:
    """Numbers or text: labels 0, 1 and labels '0', '1' are not the same classes."""
    if classes.dtype.kind in "biuf":
        return "number"
    if classes.dtype.kind in "US":
        return "text"
    kinds = {"text" if isinstance(c, (str, bytes)) else "number" for c in classes.tolist()}
    return kinds.pop() if len(kinds) == 1 else "mixed"
