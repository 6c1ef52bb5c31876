"""Figures (matplotlib, the optional extra ``nbayes[plot]``). Each function returns a
``matplotlib.figure.Figure`` and never calls ``plt.show``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from nbayes.diagnostics import IndependenceReport


def _figure(**kwargs) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("nbayes.plot needs matplotlib: pip install 'nbayes[plot]'") from exc
    return Figure(**kwargs)


def independence_heatmap(report: IndependenceReport, *, value: str = "strength") -> Figure:
    """Heatmap of the pairwise conditional dependence (``"strength"`` or ``"cmi"``)."""
    matrix = getattr(report, value)
    names = report.feature_names
    size = max(4.0, 0.45 * len(names) + 2)
    figure = _figure(figsize=(size + 1, size))
    axes = figure.add_subplot()
    image = axes.imshow(matrix, cmap="viridis", vmin=0)
    axes.set_xticks(range(len(names)), names, rotation=90)
    axes.set_yticks(range(len(names)), names)
    axes.set_title("I(X_i; X_j | Y)" + (" / min H(X|Y)" if value == "strength" else " (nats)"))
    figure.colorbar(image, ax=axes)
    figure.tight_layout()
    return figure
