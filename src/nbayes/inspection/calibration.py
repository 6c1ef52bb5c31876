"""How calibrated predicted probabilities are: :func:`reliability_table` and
:func:`expected_calibration_error` (the top-label ECE of Guo, Pleiss, Sun & Weinberger,
2017). Fixing calibration: :class:`nbayes.meta.calibration.CalibratedNB`, which also
offers these names.

>>> round(expected_calibration_error([1, 0], [[0.2, 0.8], [0.6, 0.4]]), 2)
0.3
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.validation import column_or_1d

from nbayes.core.validation import label_index


@dataclass(frozen=True)
class ReliabilityTable:
    """Top-label reliability diagram data over equal-width confidence bins.

    Bin ``b`` holds the rows whose confidence ``max_y P(y | x)`` lies in
    ``(lower[b], upper[b]]`` (the first bin also takes 0). All arrays have shape
    (n_bins,); ``mean_confidence`` and ``accuracy`` are NaN in empty bins.
    """

    lower: NDArray[np.float64]
    upper: NDArray[np.float64]
    count: NDArray[np.intp]
    mean_confidence: NDArray[np.float64]
    accuracy: NDArray[np.float64]

    @property
    def ece(self) -> float:
        """``sum_b |B_b| / n * |accuracy_b - mean_confidence_b|``."""
        used = self.count > 0
        gaps = np.abs(self.accuracy[used] - self.mean_confidence[used])
        return float(np.sum(self.count[used] * gaps) / self.count.sum())

    def to_markdown(self) -> str:
        """The table as GitHub markdown, one row per non-empty bin."""
        lines = ["| confidence | rows | mean confidence | accuracy |", "|---|---|---|---|"]
        for b in np.flatnonzero(self.count):
            lines.append(
                f"| ({self.lower[b]:.3f}, {self.upper[b]:.3f}] | {self.count[b]} | "
                f"{self.mean_confidence[b]:.4f} | {self.accuracy[b]:.4f} |"
            )
        return "\n".join(lines)


def reliability_table(
    y_true: ArrayLike, proba: ArrayLike, n_bins: int = 15, *, classes: ArrayLike | None = None
) -> ReliabilityTable:
    """Bin rows by confidence and compare it with accuracy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels: entries of ``classes``, or column indices of ``proba`` when
        ``classes`` is None.
    proba : array-like of shape (n_samples, n_classes), or (n_samples,)
        Predicted probabilities; a 1-d array is ``P(classes[1] | x)`` of a binary
        problem.
    n_bins : int, default=15
        Number of equal-width bins on [0, 1].
    classes : array-like of shape (n_classes,), default=None
        The label of each column of ``proba`` (e.g. a model's ``classes_``).
    """
    if not isinstance(n_bins, Integral) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer; got {n_bins!r}.")
    proba = _check_proba(proba)
    truth = _true_index(y_true, proba.shape, classes)
    confidence = proba.max(axis=1)
    correct = np.argmax(proba, axis=1) == truth
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bins = np.searchsorted(edges[1:-1], confidence, side="left")
    count = np.bincount(bins, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_confidence = np.bincount(bins, confidence, minlength=n_bins) / count
        accuracy = np.bincount(bins, correct.astype(float), minlength=n_bins) / count
    return ReliabilityTable(edges[:-1], edges[1:], count, mean_confidence, accuracy)


def expected_calibration_error(
    y_true: ArrayLike, proba: ArrayLike, n_bins: int = 15, *, classes: ArrayLike | None = None
) -> float:
    """Top-label expected calibration error (Guo et al., 2017).

    ``ECE = sum_b |B_b| / n * |accuracy(B_b) - mean confidence(B_b)|`` over
    ``n_bins`` equal-width bins of the confidence ``max_y P(y | x)``; see
    :func:`reliability_table` for the arguments.
    """
    return reliability_table(y_true, proba, n_bins, classes=classes).ece


def _check_proba(proba: ArrayLike) -> NDArray[np.float64]:
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim == 1:
        proba = np.column_stack([1.0 - proba, proba])
    if proba.ndim != 2 or proba.shape[1] < 1:
        raise ValueError(f"proba must have shape (n_samples, n_classes); got {proba.shape}.")
    if proba.shape[0] == 0:
        raise ValueError("proba has no rows.")
    if not np.all(np.isfinite(proba)) or np.any(proba < 0) or np.any(proba > 1):
        raise ValueError("proba must hold probabilities: finite values in [0, 1].")
    return proba


def _true_index(y_true: ArrayLike, shape: tuple[int, int], classes) -> NDArray[np.intp]:
    y_true = column_or_1d(y_true)
    if y_true.shape[0] != shape[0]:
        raise ValueError(f"y_true has {y_true.shape[0]} labels but proba has {shape[0]} rows.")
    if classes is not None:
        classes = np.asarray(classes)
        if classes.shape != (shape[1],):
            raise ValueError(f"classes has shape {classes.shape}; proba has {shape[1]} columns.")
        order = np.argsort(classes)
        return order[label_index(y_true, classes[order])]
    if y_true.dtype.kind not in "iu" or np.any((y_true < 0) | (y_true >= shape[1])):
        raise ValueError(
            "y_true must hold column indices of proba (0 .. n_classes - 1); for other "
            "labels pass classes=model.classes_."
        )
    return y_true.astype(np.intp)
