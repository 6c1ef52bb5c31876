"""A bare ``matplotlib.figure.Figure`` (no pyplot state) and PNG bytes of one."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def new_figure(**kwargs) -> Figure:
    """``matplotlib.figure.Figure(**kwargs)``; a clear ImportError without matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("nbayes.plot needs matplotlib: pip install 'nbayes[plot]'") from exc
    return Figure(**kwargs)


def to_png(figure: Figure, *, dpi: int = 100) -> bytes:
    """The figure as PNG bytes, without the ``Software`` metadata entry."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()
