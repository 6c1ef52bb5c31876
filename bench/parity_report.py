"""Print the largest absolute difference between nbayes and scikit-learn, per model
and data set, over every parity case of tests/test_parity.py (all variants).

Run from the project root: ``.venv/bin/python bench/parity_report.py``.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests")]

import test_parity as parity  # noqa: E402


def main() -> None:
    worst: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for case in parity.CASES:
        model_name, data, variant = case.values
        ours, theirs, X = parity.fit_both(model_name, data, variant)
        for output, value in parity.compare(ours, theirs, X, model_name).items():
            key = "attributes" if output.endswith("_") else output
            row = worst[model_name, data]
            row[key] = max(row.get(key, 0.0), value)
    columns = [
        "attributes",
        "predict_joint_log_proba",
        "predict_log_proba",
        "predict_proba",
    ]
    print(f"{'model':14} {'data':14} " + " ".join(f"{c:>24}" for c in columns))
    for (model_name, data), row in worst.items():
        cells = " ".join(f"{row.get(c, 0.0):24.3e}" for c in columns)
        print(f"{model_name:14} {data:14} {cells}")


if __name__ == "__main__":
    main()
