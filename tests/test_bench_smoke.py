"""The benchmark at smoke size: it runs, covers its scenarios and writes its tables.

No timing is asserted here; timing lives in ``bench/`` (see ``bench/RESULTS.md``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench import run  # noqa: E402
from bench.harness import measure_interleaved, peak_memory  # noqa: E402
from bench.scenarios import SCENARIOS  # noqa: E402

RUNNABLE = sorted(key for key, scenario in SCENARIOS.items() if scenario.build is not None)


def test_peak_memory_sees_the_arrays_a_call_allocates():
    size = 1 << 20
    peak = peak_memory(lambda: np.ones(size))
    assert 8 * size <= peak < 16 * size
    assert peak_memory(lambda: None) < 8 * size


def test_interleaved_timing_calls_each_function_warmup_plus_repeats_plus_one():
    calls = {"a": 0, "b": 0}

    def counter(name):
        def call():
            calls[name] += 1

        return call

    got = measure_interleaved({name: counter(name) for name in calls}, repeats=5, warmup=1)
    assert calls == {"a": 7, "b": 7}  # warm-up, 5 timed, 1 traced
    assert all(len(m.times_s) == 5 and m.min_s <= m.median_s for m in got.values())


@pytest.mark.parametrize("key", RUNNABLE)
def test_quick_cases_agree_with_scikit_learn(key):
    """The smoke-sized cases return what scikit-learn returns, so the bench times the
    same work on both sides."""
    for dataset in SCENARIOS[key].build(True):
        for case in dataset.cases:
            ours, theirs = case.nbayes(), case.sklearn()
            if isinstance(ours, np.ndarray):
                np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
            else:
                assert type(ours).__name__ == type(theirs).__name__
                np.testing.assert_array_equal(ours.classes_, theirs.classes_)


def test_bench_command_writes_every_table(tmp_path):
    out = tmp_path / "RESULTS.md"
    status = run.main(
        ["--quick", "--repeats", "1", "--scenario", *RUNNABLE, "D", "--output", str(out)]
    )
    assert status == 0
    text = out.read_text()
    for key in [*RUNNABLE, "D"]:
        assert f"## {key}:" in text
    assert "Not run:" in text  # D is a hook until the text feature lands
    assert "threadpools" in text and "scikit-learn" in text
    rows = [
        line.split(" | ")
        for line in text.splitlines()
        if line.startswith("| ") and not line.startswith("| task")
    ]
    n_cases = sum(len(dataset.cases) for key in RUNNABLE for dataset in SCENARIOS[key].build(True))
    assert len(rows) == n_cases
    for row in rows:
        nbayes_ms, sklearn_ms = float(row[1].replace(",", "")), float(row[2].replace(",", ""))
        assert nbayes_ms > 0 and sklearn_ms > 0
        assert row[-1].rstrip(" |").startswith(("met", "missed"))
