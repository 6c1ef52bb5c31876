"""A NaiveBayes model trained on a mixed table in Python, exported to ONNX and served
by onnxruntime, which needs neither nbayes nor scikit-learn."""

import tempfile
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pandas as pd

import nbayes

rng = np.random.default_rng(0)
n = 400
plan = rng.choice(["basic", "gold"], n)
table = pd.DataFrame(
    {
        "age": rng.normal(35, 8, n) + 8 * (plan == "gold"),
        "city": rng.choice(["Oslo", "Lima", "Pune"], n),
        "visits": rng.poisson(np.where(plan == "gold", 4, 1)).astype(float),
    }
)
table.loc[::10, "age"] = np.nan  # missing values are skipped, in Python and in ONNX
model = nbayes.NaiveBayes(columns={"visits": "poisson"}).fit(table, plan)

graph = nbayes.to_onnx(model)  # an onnx.ModelProto
with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "plans.onnx"
    path.write_bytes(graph.SerializeToString())
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])

# One input per column, named as the column: (n, 1) float, or (n, 1) string.
for given in session.get_inputs():
    print(f"input {given.name}: {given.type} {given.shape}")

rows = {
    "age": np.array([[29.0], [np.nan], [51.0]]),  # NaN: missing
    "city": np.array([["Oslo"], [""], ["Quito"]], dtype=object),  # "": missing; Quito unseen
    "visits": np.array([[0.0], [5.0], [3.0]]),
}
label, probabilities = session.run(["label", "probabilities"], rows)
print("labels:", label.tolist())
print("P(plan | row), columns", model.classes_.tolist())
print(probabilities.round(4))

same = pd.DataFrame({"age": [29.0, np.nan, 51.0], "city": ["Oslo", None, "Quito"],
                     "visits": [0.0, 5.0, 3.0]})  # fmt: skip
difference = np.abs(probabilities - model.predict_proba(same)).max()
print(f"largest difference from nbayes: {difference:.0e}")
