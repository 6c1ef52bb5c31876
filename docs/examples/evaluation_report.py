"""Cross-validation with every metric, and the self-contained HTML report."""

import tempfile
from pathlib import Path

from sklearn.datasets import load_breast_cancer

import nbayes
from nbayes.inspection.evaluation import cross_validate
from nbayes.plot.report import write_report

data = load_breast_cancer()
labels = data.target_names[data.target]  # "malignant" / "benign"
evaluation = cross_validate(nbayes.GaussianNB(), data.data, labels, folds=5, name="cancer")
print(evaluation.to_text())

with tempfile.TemporaryDirectory() as folder:  # needs matplotlib (nbayes[plot])
    path = write_report(Path(folder) / "report.html", [evaluation], title="Breast cancer")
    html = path.read_text()
    print(f"report: {len(html):,} characters, {html.count('<img')} embedded figures")
