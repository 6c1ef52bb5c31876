"""Stratified K-fold cross-validation of a classifier, and the metrics of its
out-of-fold predictions.

Every row is predicted once, by the model fitted on the other ``K - 1`` folds
(scikit-learn's ``StratifiedKFold``, shuffled with a fixed seed). On the
out-of-fold labels ``y`` (n,), predictions and probabilities ``P`` (n, k):

- accuracy, per-class precision, recall, F1 and support, the confusion matrix
  (scikit-learn's metric functions);
- log-loss ``-1/n sum_i log P_i(y_i)`` (scikit-learn's ``log_loss``, which clips
  probabilities to [eps, 1 - eps] with eps the float64 machine epsilon);
- Brier score ``1/n sum_i sum_c (P_ic - [y_i = c])^2`` for k > 2 classes, and half of
  it, ``1/n sum_i (P_i1 - [y_i = classes[1]])^2``, for two (as scikit-learn's
  ``brier_score_loss``);
- the top-label expected calibration error (:func:`nbayes.expected_calibration_error`);
- for two classes, the area under the ROC curve and under the precision-recall curve
  (average precision), ``classes[1]`` the positive class (scikit-learn's
  ``roc_auc_score`` and ``average_precision_score``).

A class that a fold's training part lacks gets probability 0 from that fold's model.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from numbers import Integral
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn import metrics
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import _safe_indexing

from nbayes.errors import NotSupportedError
from nbayes.inspection.calibration import expected_calibration_error


@dataclass(frozen=True)
class Evaluation:
    """Out-of-fold predictions of one model on one data set, and their metrics.

    ``y_true``, ``y_pred`` (n,); ``proba`` (n, n_classes) with columns following
    ``classes``. ``top_features`` maps a class to its most informative
    ``(feature, value, ratio, versus)`` entries (see :func:`top_features_by_class`).
    """

    name: str
    model: str
    classes: NDArray
    y_true: NDArray
    y_pred: NDArray
    proba: NDArray[np.float64]
    folds: int
    seed: int
    n_bins: int = 15
    notes: list[str] = field(default_factory=list)
    top_features: dict[Any, list[tuple]] | None = None

    @property
    def labels(self) -> list[str]:
        return [str(c) for c in self.classes.tolist()]

    @cached_property
    def accuracy(self) -> float:
        return float(metrics.accuracy_score(self.y_true, self.y_pred))

    @cached_property
    def per_class(self) -> dict[str, NDArray]:
        """``precision``, ``recall``, ``f1`` and ``support``, each (n_classes,)."""
        precision, recall, f1, support = metrics.precision_recall_fscore_support(
            self.y_true, self.y_pred, labels=self.classes, zero_division=0
        )
        return {"precision": precision, "recall": recall, "f1": f1, "support": support}

    @cached_property
    def log_loss(self) -> float:
        return float(metrics.log_loss(self.y_true, self.proba, labels=self.classes))

    @cached_property
    def brier(self) -> float:
        truth = self.y_true[:, None] == self.classes[None, :]
        total = float(np.mean(np.sum((self.proba - truth) ** 2, axis=1)))
        return total / 2 if len(self.classes) == 2 else total

    @cached_property
    def ece(self) -> float:
        return expected_calibration_error(
            self.y_true, self.proba, self.n_bins, classes=self.classes
        )

    @cached_property
    def roc_auc(self) -> float | None:
        """ROC AUC of ``classes[1]`` against ``classes[0]``; None unless two classes."""
        if len(self.classes) != 2:
            return None
        return float(metrics.roc_auc_score(self.y_true == self.classes[1], self.proba[:, 1]))

    @cached_property
    def pr_auc(self) -> float | None:
        """Area under the precision-recall curve (average precision) of ``classes[1]``;
        None unless two classes."""
        if len(self.classes) != 2:
            return None
        return float(
            metrics.average_precision_score(self.y_true == self.classes[1], self.proba[:, 1])
        )

    @cached_property
    def confusion(self) -> NDArray[np.int64]:
        """``C[i, j]``: rows of class ``classes[i]`` predicted ``classes[j]``."""
        return metrics.confusion_matrix(self.y_true, self.y_pred, labels=self.classes)

    def metrics(self) -> dict[str, Any]:
        """The metrics as a JSON-serialisable dict."""
        return {
            "name": self.name,
            "model": self.model,
            "rows": len(self.y_true),
            "folds": self.folds,
            "seed": self.seed,
            "classes": [_plain(c) for c in self.classes.tolist()],
            "accuracy": self.accuracy,
            "log_loss": self.log_loss,
            "brier": self.brier,
            "ece": self.ece,
            "ece_bins": self.n_bins,
            "roc_auc": self.roc_auc,
            "pr_auc": self.pr_auc,
            "positive_class": _plain(self.classes[1]) if len(self.classes) == 2 else None,
            "per_class": {
                label: {key: _plain(values[k]) for key, values in self.per_class.items()}
                for k, label in enumerate(self.labels)
            },
            "confusion_matrix": self.confusion.tolist(),
            "notes": list(self.notes),
        }

    def summary_rows(self) -> list[tuple[str, str]]:
        """``(metric, value)`` rows of the overall metrics, formatted."""
        folds = (
            f"{self.folds} (stratified, shuffled, seed {self.seed})"
            if self.folds
            else "none (the model as saved, on these rows)"
        )
        return [
            ("rows", f"{len(self.y_true)}"),
            ("folds", folds),
            ("accuracy", f"{self.accuracy:.4f}"),
            ("log-loss", f"{self.log_loss:.4f}"),
            ("Brier score", f"{self.brier:.4f}"),
            (f"ECE ({self.n_bins} bins)", f"{self.ece:.4f}"),
        ] + (
            [
                ("ROC AUC", f"{self.roc_auc:.4f} (positive class {self.labels[1]})"),
                ("PR AUC", f"{self.pr_auc:.4f} (positive class {self.labels[1]})"),
            ]
            if len(self.classes) == 2
            else []
        )

    def to_text(self, *, with_model: bool = True) -> str:
        """The metrics as plain-text tables (headed by the model's repr unless
        ``with_model`` is False)."""
        width = max(12, *(len(label) + 2 for label in self.labels))
        lines = [f"{self.name}: {self.model}" if with_model else self.name]
        lines += [f"  {metric:<16}{value}" for metric, value in self.summary_rows()]
        lines += ["", f"  {'class':<{width}}{'precision':>10}{'recall':>10}{'F1':>10}{'rows':>8}"]
        pc = self.per_class
        for k, label in enumerate(self.labels):
            lines.append(
                f"  {label:<{width}}{pc['precision'][k]:>10.4f}{pc['recall'][k]:>10.4f}"
                f"{pc['f1'][k]:>10.4f}{int(pc['support'][k]):>8}"
            )
        cell = max(6, *(len(label) + 1 for label in self.labels))
        cell = max(cell, len(str(int(self.confusion.max(initial=0)))) + 1)
        lines += ["", "  confusion matrix (rows: true class, columns: predicted)"]
        lines.append(
            f"  {'':<{width}}" + "".join(f"{label[:cell]:>{cell}}" for label in self.labels)
        )
        for label, counts in zip(self.labels, self.confusion, strict=True):
            lines.append(f"  {label:<{width}}" + "".join(f"{int(c):>{cell}}" for c in counts))
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def cross_validate(
    estimator,
    X,
    y: ArrayLike,
    *,
    folds: int = 5,
    seed: int = 0,
    name: str = "data",
    n_bins: int = 15,
) -> Evaluation:
    """Stratified ``folds``-fold cross-validation of ``estimator`` on ``(X, y)``.

    ``X`` is anything the estimator takes (array, sparse matrix, DataFrame),
    with n rows; ``y`` (n,) the labels. Each fold's model is a clone of
    ``estimator``.
    """
    if isinstance(folds, bool) or not isinstance(folds, Integral) or folds < 2:
        raise ValueError(f"folds must be an integer of at least 2; got {folds!r}.")
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != _n_rows(X):
        raise ValueError(f"y must have one label per row of X ({_n_rows(X)}); got {y.shape}.")
    classes, counts = np.unique(y, return_counts=True)
    if len(classes) < 2:
        raise ValueError(f"cross-validation needs at least two classes; y has {len(classes)}.")
    if folds > counts.max():
        raise ValueError(
            f"{folds} folds need at least {folds} rows of some class; the largest class "
            f"has {counts.max()}."
        )
    notes = [
        f"class {label!r} has {count} row(s), fewer than {folds} folds: "
        + (
            "the fold testing its row has a model that never saw the class"
            if count == 1
            else f"{folds - count} test fold(s) hold none of it"
        )
        for label, count in zip(classes.tolist(), counts.tolist(), strict=True)
        if count < folds
    ]
    proba = np.zeros((len(y), len(classes)))
    y_pred = np.empty_like(y)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        splits = list(splitter.split(np.zeros(len(y)), y))
    for train, test in splits:
        model = clone(estimator).fit(_safe_indexing(X, train), y[train])
        X_test = _safe_indexing(X, test)
        columns = np.searchsorted(classes, model.classes_)
        proba[np.ix_(test, columns)] = model.predict_proba(X_test)
        y_pred[test] = model.predict(X_test)
    return Evaluation(
        name=name,
        model=repr(estimator),
        classes=classes,
        y_true=y,
        y_pred=y_pred,
        proba=proba,
        folds=folds,
        seed=seed,
        n_bins=n_bins,
        notes=notes,
    )


def evaluate_predictions(
    y_true: ArrayLike,
    proba: ArrayLike,
    classes: ArrayLike,
    *,
    name: str = "data",
    model: str = "",
    n_bins: int = 15,
) -> Evaluation:
    """The metrics of a fitted model's probabilities on labelled rows it was not
    trained on (a held-out test file): ``proba`` (n, k), columns following
    ``classes`` (k,), the model's classes; ``y_true`` (n,). The prediction is the
    class of highest probability. A label of ``y_true`` that is not one of ``classes``
    becomes a class of probability 0 in every row (always predicted wrong), with a
    note. ``folds`` is 0: no cross-validation.

    >>> ev = evaluate_predictions(["a", "b"], [[0.9, 0.1], [0.4, 0.6]], ["a", "b"])
    >>> ev.accuracy
    1.0
    """
    y_true = np.asarray(y_true)
    proba = np.asarray(proba, dtype=np.float64)
    known = np.asarray(classes)
    if proba.ndim != 2 or proba.shape != (len(y_true), len(known)):
        raise ValueError(
            f"proba must be (n_rows, n_classes) = ({len(y_true)}, {len(known)}); "
            f"got {proba.shape}."
        )
    unseen = sorted(set(y_true.tolist()) - set(known.tolist()), key=str)
    all_classes = np.asarray([*known.tolist(), *unseen])
    order = np.argsort(all_classes, kind="stable")
    full = np.zeros((len(y_true), len(all_classes)))
    full[:, : len(known)] = proba
    notes = [
        f"class {label!r} is not one of the model's classes: its rows are predicted wrong"
        for label in unseen
    ]
    return Evaluation(
        name=name,
        model=model,
        classes=all_classes[order],
        y_true=y_true,
        y_pred=known[np.argmax(proba, axis=1)],
        proba=full[:, order],
        folds=0,
        seed=0,
        n_bins=n_bins,
        notes=notes,
    )


def top_features_by_class(
    model,
    n: int = 5,
    *,
    feature_names: Sequence[str] | None = None,
    decode: Callable[[str, Any], Any] | None = None,
    X=None,
) -> dict[Any, list[tuple]] | None:
    """Each class's ``n`` most informative ``(feature, value, ratio, versus)``:
    the (feature, value) pairs of :func:`nbayes.inspection.explain.most_informative_features`
    whose probability is highest under that class, ``ratio`` times its lowest (under
    class ``versus``). ``decode(feature, value)`` names a coded value; ``X``, the
    training data, bounds a continuous feature's intervals to its observed range.
    None for a model whose features cannot be enumerated."""
    from nbayes.inspection.explain import most_informative_features

    try:
        ranked = most_informative_features(model, n=2**62, feature_names=feature_names, X=X)
    except NotSupportedError:
        return None
    out: dict[Any, list[tuple]] = {label: [] for label in model.classes_.tolist()}
    for item in ranked:
        entries = out[item.top]
        if len(entries) < n:
            value = decode(item.feature, item.value) if decode else item.value
            entries.append((item.feature, value, item.ratio, item.bottom))
    return out


def _n_rows(X) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
