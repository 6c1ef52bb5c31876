"""``nbayes inspect``: what a model file holds."""

from __future__ import annotations

import json

import click
import numpy as np

from nbayes.cli._encoding import CLIError, load_cli_model
from nbayes.errors import NotSupportedError
from nbayes.events.pairwise import PairStats
from nbayes.inspection.diagnostics import report_from_stats
from nbayes.inspection.explain import most_informative_features


def describe(model, encoder, target, top: int) -> dict:
    """A JSON-friendly summary: kind, classes, priors, columns, informative features."""
    classes = model.classes_.tolist()
    prior = np.exp(model._fitted.log_prior)
    columns = []
    for j, name in enumerate(encoder.features):
        column = {"name": name, "event_model": encoder.kinds.get(name, "numeric")}
        if name in encoder.categories:
            column["values"] = encoder.categories[name]
        if hasattr(model, "theta_"):
            column["mean"] = model.theta_[:, j].tolist()
            column["sd"] = np.sqrt(model.var_[:, j]).tolist()
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
                    "value": encoder.decode(item.feature, item.value),
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


def _text(info: dict) -> str:
    params = ", ".join(f"{k}={v}" for k, v in info["params"].items())
    lines = [f"kind: {info['kind']}({params})"]
    if info["target"] is not None:
        lines.append(f"target: {info['target']}")
    lines.append(f"classes ({len(info['classes'])}):")
    for c in info["classes"]:
        lines.append(f"  {c['label']!s:<20} count {c['count']:<10g} prior {c['prior']:.4f}")
    lines.append(f"columns ({len(info['columns'])}):")
    for col in info["columns"]:
        detail = ""
        if "values" in col:
            values = col["values"]
            detail = f", {len(values)} values: " + ", ".join(values[:8])
            detail += ", …" if len(values) > 8 else ""
        if "mean" in col:
            detail = ", mean ± sd per class: " + "; ".join(
                f"{m:.4g} ± {s:.4g}" for m, s in zip(col["mean"], col["sd"], strict=True)
            )
        lines.append(f"  {col['name']}: {col['event_model']}{detail}")
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
@click.option("--top", default=5, show_default=True, help="Informative features per class.")
@click.option("--format", "out_fmt", type=click.Choice(["text", "json"]), default="text")
@click.option(
    "--diagnostics",
    is_flag=True,
    help="Also rank the column pairs that most violate the naive assumption "
    "(models with pair statistics: --model aode or tan).",
)
def inspect(model_file, top, out_fmt, diagnostics) -> None:
    """Show MODEL's kind, classes, priors, columns and most informative features."""
    model, encoder, target = load_cli_model(model_file)
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
    if not isinstance(getattr(model, "_stats", None), PairStats):
        raise CLIError(
            f"--diagnostics needs pair statistics, which a {type(model).__name__} does not "
            "keep; train with --model aode or --model tan"
        )
    report = report_from_stats(model._stats, list(features))
    return {
        "verdict": report.verdict,
        "pairs": [
            {"a": a, "b": b, "cmi": cmi, "strength": strength, "p_value": p}
            for a, b, cmi, strength, p in report.top(top)
        ],
        "text": str(report),
    }
