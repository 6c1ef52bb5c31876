"""Figures (matplotlib, the optional extra ``nbayes[plot]``). Each function returns a
``matplotlib.figure.Figure`` (no pyplot state; nothing is shown): save it with
``figure.savefig(path)``.

- :func:`nomogram`: each feature value's log-odds contribution (Možina et al., 2004);
- :func:`feature_contributions`: one row's contributions, from ``model.explain(x)``;
- :func:`confusion_matrix`, :func:`reliability_diagram`, :func:`roc_curve`,
  :func:`precision_recall_curve`: held-out predictions;
- :func:`independence_heatmap`: pairwise conditional dependence of the features;
- :mod:`nbayes.plot.report`: cross-validated evaluations (tables and figures) in one
  self-contained HTML file.
"""

from nbayes.plot._figure import to_png
from nbayes.plot.diagnostics import independence_heatmap
from nbayes.plot.evaluation import (
    confusion_matrix,
    precision_recall_curve,
    reliability_diagram,
    roc_curve,
)
from nbayes.plot.explanation import feature_contributions, nomogram

__all__ = [
    "confusion_matrix",
    "feature_contributions",
    "independence_heatmap",
    "nomogram",
    "precision_recall_curve",
    "reliability_diagram",
    "roc_curve",
    "to_png",
]
