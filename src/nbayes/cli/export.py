"""``nbayes export``: a model file as an ONNX graph, to serve it without nbayes."""

from __future__ import annotations

import json

import click

from nbayes.cli.paths import guard_outputs


@guard_outputs(outputs=["output"], inputs=["model_file"], parent_must_exist=True)
@click.command()
@click.argument("model_file", metavar="MODEL")
@click.option("--output", "-o", required=True, help="The ONNX file to write.")
@click.option(
    "--float32", is_flag=True, help="Float inputs and probabilities in float32 (default float64)."
)
@click.option("--opset", type=int, default=None, help="The ONNX opset to write (default 18).")
def export(model_file, output, float32, opset) -> None:
    """Write MODEL as an ONNX graph to --output, for onnxruntime and other runtimes.

    The graph's outputs are 'label' and 'probabilities' (one column per class). A
    model trained on a table takes one input per column, named as the column (float
    numbers, NaN where missing; strings, with the model's missing-value markers read
    as missing); an array model takes one input 'X'. See the ONNX guide.
    """
    import numpy as np

    from nbayes.cli._encoding import load_cli_model
    from nbayes.core.atomic import atomic_file
    from nbayes.export import to_onnx

    model, encoder, target, spec = load_cli_model(model_file)
    graph = to_onnx(
        model,
        dtype=np.float32 if float32 else np.float64,
        opset=opset,
        missing_strings=spec.missing_markers(),
    )
    described = {"features": encoder.features, "target": target}
    if encoder.mode == "codes":  # the input holds codes of these sorted values
        described["categories"] = encoder.categories
    entry = graph.metadata_props.add()
    entry.key, entry.value = "nbayes", json.dumps(described)
    with atomic_file(output) as handle:
        handle.write(graph.SerializeToString())
    click.echo(
        f"wrote {output}: inputs {', '.join(i.name for i in graph.graph.input)}; "
        "outputs label, probabilities",
        err=True,
    )

