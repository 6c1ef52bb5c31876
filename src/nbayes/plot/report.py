"""One self-contained HTML report of cross-validated evaluations.

The file opens offline: inline CSS, no scripts, no links, every figure a PNG
embedded as a ``data:image/png;base64`` URI. For each evaluation
(:class:`nbayes.inspection.evaluation.Evaluation`): the metrics tables, the confusion matrix,
the reliability diagram, ROC and precision-recall curves for a binary target, and
each class's most informative features. Extra figures (e.g. a nomogram or one
row's explanation) can be appended with captions. matplotlib is needed
(``nbayes[plot]``).
"""

from __future__ import annotations

import base64
import html
import math
import os
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from nbayes.core.atomic import atomic_file
from nbayes.inspection.evaluation import Evaluation
from nbayes.plot._figure import to_png
from nbayes.plot.evaluation import (
    confusion_matrix,
    precision_recall_curve,
    reliability_diagram,
    roc_curve,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #f0f0f0; }
figure { display: inline-block; margin: 0.5em 1em 0.5em 0; vertical-align: top; }
figcaption { font-size: 0.9em; color: #555; }
img { max-width: 100%; }
.note { color: #a50; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; }
"""


def render_report(
    evaluations: Sequence[Evaluation],
    *,
    title: str = "nbayes evaluation report",
    figures: Iterable[tuple[str, Figure]] = (),
    texts: Iterable[tuple[str, str]] = (),
) -> str:
    """The HTML text of the report: one section per evaluation, then ``texts``
    (``(heading, preformatted text)``) and ``figures`` (``(caption, Figure)``)."""
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>Written by nbayes on {stamp}. Every figure is embedded in this file.</p>",
    ]
    for evaluation in evaluations:
        parts.append(_evaluation_section(evaluation))
    for heading, text in texts:
        parts.append(f"<h2>{_e(heading)}</h2><pre>{_e(text)}</pre>")
    extra = list(figures)
    if extra:
        parts.append("<h2>More figures</h2>")
        parts += [_figure(figure, caption) for caption, figure in extra]
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(path: str | os.PathLike, evaluations: Sequence[Evaluation], **options) -> Path:
    """Write :func:`render_report` to ``path`` atomically (temporary file + rename)."""
    text = render_report(evaluations, **options)
    target = Path(path)
    with atomic_file(target, "w", encoding="utf-8") as handle:
        handle.write(text)
    return target


def _evaluation_section(ev: Evaluation) -> str:
    out = [f"<h2>{_e(ev.name)}</h2>", f"<p>Model: <code>{_e(ev.model)}</code></p>"]
    out.append(_table(["metric", "value"], ev.summary_rows()))
    out += [f'<p class="note">{_e(note)}</p>' for note in ev.notes]
    pc = ev.per_class
    rows = [
        (label, *(f"{pc[key][k]:.4f}" for key in ("precision", "recall", "f1")), pc["support"][k])
        for k, label in enumerate(ev.labels)
    ]
    out.append(_table(["class", "precision", "recall", "F1", "rows"], rows))
    out.append("<p>Confusion matrix (rows: true class, columns: predicted)</p>")
    out.append(
        _table(
            ["", *ev.labels],
            [(label, *c) for label, c in zip(ev.labels, ev.confusion, strict=True)],
        )
    )
    figures = [
        ("Confusion matrix", confusion_matrix(ev.y_true, ev.y_pred, labels=ev.classes)),
        (
            "Reliability diagram",
            reliability_diagram(ev.y_true, ev.proba, classes=ev.classes, n_bins=ev.n_bins),
        ),
    ]
    if len(ev.classes) == 2:
        figures += [
            ("ROC curve", roc_curve(ev.y_true, ev.proba, classes=ev.classes)),
            (
                "Precision-recall curve",
                precision_recall_curve(ev.y_true, ev.proba, classes=ev.classes),
            ),
        ]
    out += [_figure(figure, caption) for caption, figure in figures]
    out.append(_top_features(ev))
    return "\n".join(out)


def _top_features(ev: Evaluation) -> str:
    if ev.top_features is None:
        return (
            "<p>Most informative features: not available for this model (they need one "
            "discrete event model for every feature).</p>"
        )
    rows = [
        (label, feature, value, _ratio(ratio), versus)
        for label, entries in ev.top_features.items()
        for feature, value, ratio, versus in entries
    ]
    heading = "<h3>Most informative features per class (model fitted on all rows)</h3>"
    columns = ["class", "feature", "value", "P(value | class) / P(value | versus)", "versus"]
    return heading + _table(columns, rows)


def _table(header: Sequence[str], rows: Iterable[Sequence]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figure(figure: Figure, caption: str) -> str:
    data = base64.b64encode(to_png(figure)).decode("ascii")
    return (
        f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def _ratio(ratio: float) -> str:
    return "∞" if math.isinf(ratio) else f"{ratio:.2f}"


def _e(value) -> str:
    return html.escape(str(value), quote=True)
