"""Figures of a classifier's held-out predictions: confusion matrix, reliability
diagram, ROC and precision-recall curves.

``proba`` is always (n_samples, n_classes) with columns following ``classes``
(a model's ``classes_``); ``y_true`` holds labels from ``classes``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn import metrics

from nbayes.inspection.calibration import reliability_table
from nbayes.plot._figure import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def confusion_matrix(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    normalize: str | None = None,
    title: str = "Confusion matrix",
) -> Figure:
    """Counts ``C[i, j]`` of rows of true class ``labels[i]`` predicted ``labels[j]``
    (scikit-learn's ``confusion_matrix``; ``normalize`` "true", "pred" or "all"
    divides by row, column or grand totals), each cell written in."""
    matrix = metrics.confusion_matrix(y_true, y_pred, labels=labels, normalize=normalize)
    names = [str(v) for v in (np.unique(np.r_[y_true, y_pred]) if labels is None else labels)]
    size = max(3.5, 0.55 * len(names) + 2.0)
    figure = new_figure(figsize=(size + 1.0, size))
    axes = figure.add_subplot()
    image = axes.imshow(matrix, cmap="Blues", vmin=0)
    threshold = matrix.max() / 2 if matrix.size else 0
    for (i, j), value in np.ndenumerate(matrix):
        text = f"{value:.2f}" if normalize else f"{int(value)}"
        colour = "white" if value > threshold else "black"
        axes.text(j, i, text, ha="center", va="center", color=colour, fontsize=8)
    ticks = range(len(names))
    axes.set_xticks(ticks, names, rotation=45 if len(names) > 3 else 0, ha="right")
    axes.set_yticks(ticks, names)
    axes.set_xlabel("predicted class")
    axes.set_ylabel("true class")
    axes.set_title(title)
    figure.colorbar(image, ax=axes)
    figure.tight_layout()
    return figure


def reliability_diagram(
    y_true: ArrayLike,
    proba: ArrayLike,
    *,
    classes: ArrayLike | None = None,
    n_bins: int = 15,
    title: str = "Reliability diagram",
) -> Figure:
    """Accuracy against mean confidence ``max_y P(y | x)`` in equal-width bins
    (:func:`nbayes.reliability_table`), the diagonal of perfect calibration, and the
    rows per bin below; the title gives the expected calibration error."""
    table = reliability_table(y_true, proba, n_bins, classes=classes)
    used = table.count > 0
    figure = new_figure(figsize=(5.0, 5.5))
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    top.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    top.bar(
        table.lower[used],
        table.accuracy[used],
        width=(table.upper - table.lower)[used],
        align="edge",
        edgecolor="black",
        alpha=0.7,
        label="accuracy per bin",
    )
    top.plot(
        table.mean_confidence[used],
        table.accuracy[used],
        "o-",
        color="C3",
        label="at mean confidence",
    )
    top.set_ylim(0, 1)
    top.set_ylabel("accuracy")
    top.set_title(f"{title} (ECE {table.ece:.4f})")
    top.legend(loc="upper left", fontsize=8)
    bottom.bar(table.lower, table.count, width=table.upper - table.lower, align="edge")
    bottom.set_xlim(0, 1)
    bottom.set_xlabel("confidence max P(y | x)")
    bottom.set_ylabel("rows")
    figure.tight_layout()
    return figure


def roc_curve(
    y_true: ArrayLike,
    proba: ArrayLike,
    *,
    classes: ArrayLike,
    title: str = "ROC curve",
) -> Figure:
    """True- against false-positive rate as the threshold on ``P(c | x)`` falls: for
    two classes the second class against the first, else each class against the
    rest; the legend gives each curve's area (scikit-learn's ``roc_curve``, ``auc``)."""
    figure = new_figure(figsize=(5.0, 5.0))
    axes = figure.add_subplot()
    for label, truth, score in _one_vs_rest(y_true, proba, classes):
        fpr, tpr, _ = metrics.roc_curve(truth, score)
        axes.plot(fpr, tpr, label=f"{label} (AUC {metrics.auc(fpr, tpr):.4f})")
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey")
    axes.set_xlabel("false-positive rate")
    axes.set_ylabel("true-positive rate")
    axes.set_title(title)
    axes.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    return figure


def precision_recall_curve(
    y_true: ArrayLike,
    proba: ArrayLike,
    *,
    classes: ArrayLike,
    title: str = "Precision-recall curve",
) -> Figure:
    """Precision against recall as the threshold on ``P(c | x)`` falls, one curve per
    class as in :func:`roc_curve`; the legend gives the average precision and the
    dotted line each class's base rate."""
    figure = new_figure(figsize=(5.0, 5.0))
    axes = figure.add_subplot()
    for index, (label, truth, score) in enumerate(_one_vs_rest(y_true, proba, classes)):
        precision, recall, _ = metrics.precision_recall_curve(truth, score)
        ap = metrics.average_precision_score(truth, score)
        axes.step(recall, precision, where="post", label=f"{label} (AP {ap:.4f})")
        axes.axhline(truth.mean(), linestyle=":", color=f"C{index % 10}", linewidth=0.8)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1.02)
    axes.set_xlabel("recall")
    axes.set_ylabel("precision")
    axes.set_title(title)
    axes.legend(loc="lower left", fontsize=8)
    figure.tight_layout()
    return figure


def _one_vs_rest(y_true: ArrayLike, proba: ArrayLike, classes: ArrayLike):
    """``(label, is_label (n,), P(label | x) (n,))`` per curve to draw."""
    y_true, proba, classes = np.asarray(y_true), np.asarray(proba, float), np.asarray(classes)
    if proba.ndim != 2 or proba.shape != (len(y_true), len(classes)):
        raise ValueError(
            f"proba must have shape (n_samples, n_classes) = ({len(y_true)}, {len(classes)}); "
            f"got {proba.shape}."
        )
    if len(classes) < 2:
        raise ValueError("ROC and precision-recall curves need at least two classes.")
    chosen = [1] if len(classes) == 2 else range(len(classes))
    for k in chosen:
        yield classes[k], y_true == classes[k], proba[:, k]
