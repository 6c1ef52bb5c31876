"""``nbayes inspect``: what a model file holds."""

from __future__ import annotations

import json

import click
import numpy as np

from nbayes.cli._encoding import load_cli_model
from nbayes.cli._tables import CLIError
from nbayes.errors import NotSupportedError
from nbayes.inspection.diagnostics import report_from_stats
from nbayes.inspection.explain import most_informative_features


def describe(model, encoder, target, top: int) -> dict:
    """A JSON-friendly summary: kind, classes, priors, each column's kind and fitted
    distribution per class (the event model's ``describe``), informative features."""
    classes = model.classes_.tolist()
    prior = np.exp(model.fitted_parameters.log_prior)
    kinds = model.feature_kinds()
    summaries = model.describe_features()
    columns = []
    for j, name in enumerate(encoder.features):
        column = {"name": name, "event_model": kinds[j]}
        summary = dict(summaries[j])
        if "values" in summary:
            summary["values"] = [_plain(encoder.decode(name, v)) for v in summary["values"]]
        column["per_class"] = summary
        columns.append(column)
    informative = {str(label): [] for label in classes}
    try:
        ranked = most_informative_features(model, n=10**9, feature_names=encoder.features)
    except NotSupportedError:
        ranked = []
    for item in ranked:
        entries = informative[str(item.top)]
        if len(entries) < top:
            entries.append(
                {
                    "feature": item.feature,
                    "value": _plain(encoder.decode(item.feature, item.value)),
                    "ratio": item.ratio if np.isfinite(item.ratio) else str(item.ratio),
                    "versus": item.bottom,
                }
            )
    return {
        "kind": type(model).__name__,
        "params": {k: repr(v) for k, v in model.get_params().items()},
        "target": target,
        "classes": [
            {"label": label, "count": float(count), "prior": float(p)}
            for label, count, p in zip(classes, model.class_count_, prior, strict=True)
        ],
        "columns": columns,
        "most_informative": informative if ranked else None,
    }


def _heading(label: str) -> str:
    """A class's column heading, 12 wide: a longer name shortened, so that headings
    never run together (20 Newsgroups' alt.atheismcomp.graphics...)."""
    return f"{label:>12}" if len(label) < 12 else f" {label[:10]}…"


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _column_lines(column: dict, labels: list[str]) -> list[str]:
    """A column's kind and its summaries per class, for people."""
    summary = column["per_class"]
    values = summary.get("values")
    lines = [f"  {column['name']}: {column['event_model']}"
             + (f", {len(values)} values" if values is not None else "")]  # fmt: skip
    width = max(len(label) for label in labels) if labels else 0
    scalars = {k: v for k, v in summary.items() if k != "values" and values is None}
    if scalars:
        names = list(scalars)
        lines.append(f"      {'class':<{width}}  " + "  ".join(f"{n:>12}" for n in names))
        for c, label in enumerate(labels):
            lines.append(
                f"      {label:<{width}}  " + "  ".join(f"{scalars[n][c]:>12.6g}" for n in names)
            )
    elif values is not None:
        (factor, table), *_ = [(k, v) for k, v in summary.items() if k != "values"]
        shown = values[:_MAX_VALUES]
        lines.append(f"      {factor} of each value per class:")
        lines.append(f"      {'value':<16}" + "".join(_heading(label) for label in labels))
        for v, value in enumerate(shown):
            lines.append(
                f"      {str(value)[:16]:<16}"
                + "".join(f"{table[c][v]:>12.4g}" for c in range(len(labels)))
            )
        if len(values) > len(shown):
            lines.append(f"      ... ({len(values) - len(shown)} more values; --format json)")
    return lines


#: Values of a discrete column shown in the text output.
_MAX_VALUES = 8


def _text(info: dict) -> str:
    params = ", ".join(f"{k}={v}" for k, v in info["params"].items())
    lines = [f"kind: {info['kind']}({params})"]
    if info["target"] is not None:
        lines.append(f"target: {info['target']}")
    lines.append(f"classes ({len(info['classes'])}):")
    for c in info["classes"]:
        lines.append(f"  {c['label']!s:<20} count {c['count']:<10g} prior {c['prior']:.4f}")
    lines.append(f"columns ({len(info['columns'])}):")
    labels = [str(c["label"]) for c in info["classes"]]
    for col in info["columns"]:
        lines.extend(_column_lines(col, labels))
    if info["most_informative"]:
        lines.append("most informative features (P(value | class) / P(value | other)):")
        for label, entries in info["most_informative"].items():
            for e in entries:
                ratio = e["ratio"] if isinstance(e["ratio"], str) else f"{e['ratio']:.2f}"
                lines.append(
                    f"  {label!s:>12} : {e['versus']!s:<12} {e['feature']} = {e['value']}"
                    f"   {ratio} : 1"
                )
    return "\n".join(lines)


@click.command()
@click.argument("model_file", metavar="MODEL")
@click.option(
    "--top",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="Informative features per class.",
)
@click.option(
    "--to",
    "out_fmt",
    type=click.Choice(["text", "json"]),
    default=None,
    help="Output format: text (the default) or json.",
)
@click.option("--format", "old_fmt", type=click.Choice(["text", "json"]), hidden=True)
@click.option(
    "--diagnostics",
    is_flag=True,
    help="Also rank the column pairs that most violate the naive assumption "
    "(models with pair statistics: --model aode or tan).",
)
def inspect(model_file, top, out_fmt, old_fmt, diagnostics) -> None:
    """Show MODEL's kind, classes, priors, each column's distribution per class and
    the most informative features."""
    if out_fmt is not None and old_fmt not in (None, out_fmt):
        raise CLIError(f"--format {old_fmt} and --to {out_fmt}: give one")
    out_fmt = out_fmt or old_fmt or "text"  # --format: the name before --to
    model, encoder, target, _ = load_cli_model(model_file)
    info = describe(model, encoder, target, top)
    if diagnostics:
        info["diagnostics"] = _diagnostics(model, encoder.features, top)
    if out_fmt == "json":
        click.echo(json.dumps(info, indent=2, default=str))
    else:
        click.echo(_text(info))
        if diagnostics:
            click.echo("\nIndependence diagnostics\n" + info["diagnostics"]["text"])


def _diagnostics(model, features: list[str], top: int) -> dict:
    """The independence report of a model that keeps pairwise statistics."""
    try:
        report = report_from_stats(model.statistics, list(features))
    except NotSupportedError:
        raise CLIError(
            f"--diagnostics needs pair statistics, which a {type(model).__name__} does not "
            "keep; train with --model aode or --model tan"
        ) from None
    return {
        "verdict": report.verdict,
        "pairs": [
            {"a": a, "b": b, "cmi": cmi, "strength": strength, "p_value": p}
            for a, b, cmi, strength, p in report.top(top)
        ],
        "text": str(report),
    }
