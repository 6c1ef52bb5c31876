"""Independence diagnostics as a figure."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nbayes.plot._figure import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from nbayes.inspection.diagnostics import IndependenceReport


def independence_heatmap(report: IndependenceReport, *, value: str = "strength") -> Figure:
    """Heatmap of the pairwise conditional dependence (``"strength"`` or ``"cmi"``)."""
    matrix = getattr(report, value)
    names = report.feature_names
    size = max(4.0, 0.45 * len(names) + 2)
    figure = new_figure(figsize=(size + 1, size))
    axes = figure.add_subplot()
    image = axes.imshow(matrix, cmap="viridis", vmin=0)
    axes.set_xticks(range(len(names)), names, rotation=90)
    axes.set_yticks(range(len(names)), names)
    axes.set_title("I(X_i; X_j | Y)" + (" / min H(X|Y)" if value == "strength" else " (nats)"))
    figure.colorbar(image, ax=axes)
    figure.tight_layout()
    return figure
