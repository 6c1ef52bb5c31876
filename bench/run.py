"""Run the nbayes benchmark and write bench/RESULTS.md.

    python bench/run.py                   # every scenario, full size
    python bench/run.py --smoke           # tiny sizes: a smoke test of the bench code
    python bench/run.py --only D,F        # some scenarios only (also --scenario D F)
    python bench/run.py --repeat 3        # fewer timed calls (default 5)
    python bench/run.py --thread-env off  # skip the second, single-thread-env run
    python bench/run.py --only G --fresh  # write G alone (default: keep the others' tables)
    python bench/run.py --notes-only      # re-merge an edited bench/NOTES.md, run nothing

Each case times nbayes, its rival (scikit-learn, or bogofilter for spam) and the floor
in this one process (median of ``--repeat`` calls after a warm-up) and traces each
one's peak memory (tracemalloc; see ``bench/harness.py``). Ratios below 1 mean nbayes
is faster. Then, unless ``--thread-env off``, the scenarios that use BLAS threads (A, B,
C, E, F; ``--thread-env-only``) run again in a child process whose OPENBLAS/OMP/MKL
thread variables are set to 1 (or removed, if this process has them set), and a table
puts the two runs side by side. The first part of ``bench/NOTES.md``, the
hand-written notes on the results (which run, missed targets), is appended to the
results; the rest of that file (what was tried and chosen) stays there. A run of
some scenarios only keeps the other scenarios' sections of the ``--output`` file it
replaces, each marked as kept from that earlier run (``--fresh``: drop them).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.harness import (  # noqa: E402
    Measurement,
    load_average,
    machine_info,
    measure,
    measure_interleaved,
)
from bench.registry import Case, Dataset, Measured  # noqa: E402
from bench.results_file import kept_records, kept_sections, summary, with_notes  # noqa: E402
from bench.scenarios import SCENARIOS  # noqa: E402
from nbayes import _kernels  # noqa: E402

# The in-process scenarios time a long-running process's steady state: the compiled
# kernels from the first call on. A fresh process defers loading numba until its
# calls would have saved the cost (``nbayes._kernels.LOAD_COST_S``); scenarios H and
# J time fresh processes, which keep that default.
_kernels.LOAD_COST_S = 0.0

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
# Scenarios whose kernels use BLAS, or nbayes's row-block threads (as many as BLAS has):
# the thread variables change them. D's tokenizer (numba, NBAYES_TEXT_THREADS) and G's
# spam filter (processes, SQLite) do not read them, so the child run skips those.
THREAD_SENSITIVE = ("A", "B", "C", "E", "F")


def _ms(m: Measurement | None) -> str:
    return "" if m is None else f"{m.median_s * 1e3:,.1f}"


def _mb(m: Measurement | None) -> str:
    return "" if m is None else f"{m.peak_bytes / 2**20:,.1f}"


def _ratio(a: Measurement, b: Measurement | None) -> float | None:
    return None if b is None or b.median_s <= 0 else a.median_s / b.median_s


def _short(rival: str) -> str:
    return "sk" if rival.startswith("scikit-learn") else rival


def _duration(seconds: float) -> str:
    """A target's time: ``"30 ms"`` below a tenth of a second, else ``"0.5 s"``."""
    return f"{seconds * 1e3:g} ms" if seconds < 0.1 else f"{seconds:g} s"


def _verdict(case: Case, rival: str, vs_sk, vs_floor, ours, theirs, floor=None) -> tuple[str, str]:
    """(target text, outcome text) for one row."""
    wanted, misses = [], []
    if case.max_vs_sklearn is not None:
        wanted.append(f"≤{case.max_vs_sklearn:.2g}× {_short(rival)}")
        if theirs is None:
            misses.append(f"not judged: no {rival} measurement")
        elif vs_sk is not None and vs_sk > case.max_vs_sklearn:
            misses.append(f"{vs_sk / case.max_vs_sklearn:.2f}× over {_short(rival)} target")
    if case.max_vs_floor is not None:
        wanted.append(f"≤{case.max_vs_floor:.2g}× floor")
        if vs_floor is not None and vs_floor > case.max_vs_floor:
            misses.append(f"{vs_floor / case.max_vs_floor:.2f}× over floor target")
    if case.max_s is not None:
        wanted.append(f"≤{_duration(case.max_s)}")
        if ours.median_s > case.max_s:
            over = ours.median_s / case.max_s
            misses.append(f"{over:.2f}× over the {_duration(case.max_s)} target")
    if case.max_over_rival_s is not None:
        wanted.append(f"≤{_short(rival)} + {case.max_over_rival_s:g} s")
        if theirs is None:
            misses.append(f"not judged: no {rival} measurement")
        elif ours.median_s - theirs.median_s > case.max_over_rival_s:
            over = ours.median_s - theirs.median_s
            misses.append(f"{over:.2f} s over {_short(rival)}, target {case.max_over_rival_s:g} s")
    if case.max_memory_vs_floor is not None and floor is not None:
        wanted.append(f"mem ≤{case.max_memory_vs_floor:.2g}× floor")
        ratio = ours.peak_bytes / max(floor.peak_bytes, 1)
        if ratio > case.max_memory_vs_floor:
            misses.append(f"memory {ratio / case.max_memory_vs_floor:.2f}× over floor target")
    if theirs is not None and case.compare_memory:
        wanted.append(f"mem ≤ {_short(rival)}")
        if ours.peak_bytes > theirs.peak_bytes:
            ratio = ours.peak_bytes / max(theirs.peak_bytes, 1)
            misses.append(f"memory {ratio:.2f}× {_short(rival)}")
    if any(m.startswith("not judged") for m in misses):
        return ", ".join(wanted), "; ".join(misses)
    return ", ".join(wanted) or "none", ("missed: " + "; ".join(misses)) if misses else "met"


def _header(dataset: Dataset) -> str:
    rival, unit = dataset.rival, dataset.unit
    columns = [
        "task",
        "nbayes ms",
        f"{rival} ms",
        "floor ms",
        "floor",
        f"nbayes/{_short(rival)}",
        "nbayes/floor",
        *([f"nbayes {unit}/s", f"{rival} {unit}/s"] if unit else []),
        "peak MB nbayes",
        f"peak MB {rival}",
        "target",
        "outcome",
    ]
    text = {"task", "floor", "target", "outcome"}
    align = ["---" if c in text else "---:" for c in columns]
    return f"| {' | '.join(columns)} |\n|{'|'.join(align)}|"


def _rate(items: int, m: Measurement | None) -> str:
    return "" if m is None or not items or m.median_s <= 0 else f"{items / m.median_s:,.0f}"


def _measure_cases(dataset: Dataset, repeats: int) -> Measured:
    if dataset.measure is not None:
        return dataset.measure(repeats)
    out = []
    for case in dataset.cases:
        fns = {"nbayes": case.nbayes, "sklearn": case.sklearn, "floor": case.floor}
        out.append((case, measure_interleaved({k: f for k, f in fns.items() if f}, repeats)))
    return out


def _table(key: str, dataset: Dataset, repeats: int, records: list[dict]) -> list[str]:
    lines = [f"### {dataset.label}", ""]
    if dataset.read_pass is not None:
        lines += [
            f"One read pass over the data: {_ms(measure(dataset.read_pass, repeats))} ms.",
            "",
        ]
    measured = _measure_cases(dataset, repeats)
    if measured:
        lines.append(_header(dataset))
    for case, got in measured:
        ours, theirs, floor = got["nbayes"], got.get("sklearn"), got.get("floor")
        vs_sk, vs_floor = _ratio(ours, theirs), _ratio(ours, floor)
        target, outcome = _verdict(case, dataset.rival, vs_sk, vs_floor, ours, theirs, floor)
        rates = [_rate(case.items, ours), _rate(case.items, theirs)] if dataset.unit else []
        row = [
            case.task,
            _ms(ours),
            _ms(theirs) or "not measured",
            _ms(floor),
            case.floor_name,
            "" if vs_sk is None else f"{vs_sk:.3f}",
            "" if vs_floor is None else f"{vs_floor:.2f}",
            *rates,
            _mb(ours),
            _mb(theirs),
            target,
            outcome,
        ]
        lines.append("| " + " | ".join(row) + " |")
        print("   ", " | ".join(row), flush=True)
        records.append(
            {
                "scenario": key,
                "dataset": dataset.label,
                "task": case.task,
                "rival": dataset.rival,
                "nbayes_s": ours.median_s,
                "rival_s": None if theirs is None else theirs.median_s,
                "floor_s": None if floor is None else floor.median_s,
                "outcome": outcome,
            }
        )
    lines += ["", *(f"{note}  " for note in dataset.notes)]
    return [*lines, ""] if dataset.notes else lines


def _write(path: Path, text: str) -> None:
    """Replace ``path`` atomically."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text + "\n")
    tmp.replace(path)


def _command(keys: list[str], quick: bool, repeats: int) -> str:
    parts = ["python bench/run.py"]
    if quick:
        parts.append("--smoke")
    if keys != sorted(SCENARIOS):
        parts.append("--only " + ",".join(keys))
    if repeats != 5:
        parts.append(f"--repeat {repeats}")
    return " ".join(parts)


def run(
    keys: list[str],
    quick: bool,
    repeats: int,
    output: Path | None = None,
    records: list[dict] | None = None,
    kept: dict[str, list[str]] | None = None,
) -> tuple[list[str], list[dict]]:
    """Run the scenarios: the markdown lines (header and tables) and one record per row.
    ``kept`` sections (of scenarios not run) are placed in order among the new ones.
    The results so far are written to ``output`` after each data set (a long run on a
    busy machine leaves its finished tables behind)."""
    info = machine_info()
    records = [] if records is None else records
    kept = kept or {}
    lines = [
        "# nbayes benchmark results",
        "",
        f"Written by `{_command(keys, quick, repeats)}` at {time.strftime('%Y-%m-%d %H:%M %Z')}.",
        f"Times are medians of {repeats} calls after one warm-up, in one process, nbayes, "
        "its rival and the floor interleaved; ratios below 1 mean nbayes is faster. Peak "
        "memory: tracemalloc, traced allocations above the inputs during one extra call "
        "(NumPy/SciPy buffers; not BLAS scratch) unless a table says otherwise.",
        "",
        *(f"- **{key}**: {value}" for key, value in info.items()),
        "",
    ]
    for key in sorted(set(keys) | set(kept)):
        if key not in keys:
            lines += [*kept[key], ""] if kept[key][-1] else kept[key]
            continue
        scenario = SCENARIOS[key]
        lines += [f"## {key}: {scenario.title}", ""]
        reason = scenario.missing() if scenario.build is not None else None
        if scenario.build is None or reason:  # not built yet, or not here (e.g. no GPU)
            lines += [f"Not run: {reason or scenario.missing()}", ""]
            print(f"[{key}] not run: {reason or scenario.missing()}", flush=True)
            continue
        for dataset in scenario.build(quick):
            print(f"[{key}] {dataset.label}", flush=True)
            lines += _table(key, dataset, repeats, records)
            del dataset
            if output is not None:
                _write(output, "\n".join([*lines, "(run in progress)"]))
    load = ", ".join(f"{x:.2f}" for x in load_average())
    lines += [f"Load average (1, 5, 15 min) at the end: {load}.", ""]
    return lines, records


def _env_label(env: dict[str, str]) -> str:
    set_ = [f"{k}={env[k]}" for k in THREAD_VARIABLES if k in env]
    return ", ".join(set_) if set_ else "thread variables unset"


def child_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the thread variables set to 1 where none is set, else removed."""
    there = {k: v for k, v in env.items() if k not in THREAD_VARIABLES}
    if not any(k in env for k in THREAD_VARIABLES):
        there.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    return there


def thread_env_table(keys: list[str], quick: bool, repeats: int, records: list[dict]) -> list[str]:
    """Run the same scenarios in a child process with the BLAS/OpenMP thread variables
    set to 1 (or removed where this process has them) and tabulate both runs."""
    here = dict(os.environ)
    there = child_env(here)
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, str(HERE / "run.py"), "--only", ",".join(keys)]
        command += ["--repeat", str(repeats), "--thread-env", "off"]
        command += ["--output", f"{tmp}/RESULTS.md", "--json", f"{tmp}/rows.json"]
        started = time.perf_counter()
        done = subprocess.run([*command, *(["--smoke"] if quick else [])], env=there, check=False)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            return [
                "## Thread environment",
                "",
                f"The child run with {_env_label(there)} failed (exit status "
                f"{done.returncode}); see its output above.",
                "",
            ]
        theirs = json.loads(Path(f"{tmp}/rows.json").read_text())
    by_key = {(r["scenario"], r["dataset"], r["task"]): r for r in theirs}
    a, b = _env_label(here), _env_label(there)
    lines = [
        f"## Thread environment: {a} (main: the tables above) vs {b} (child)",
        "",
        f"The child is a second process run after the main one ({seconds:.0f} s), not "
        "interleaved with it, so load from other jobs may differ between the two; compare "
        "within a column first.",
        "",
        "| scenario | data set | task | nbayes ms main | nbayes ms child | rival ms main "
        "| rival ms child | nbayes/rival main | nbayes/rival child | nbayes child/main |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def ms(x):
        return "" if x is None else f"{x * 1e3:,.1f}"

    def ratio(x, y):
        return "" if x is None or not y else f"{x / y:.3f}"

    for r in records:
        o = by_key.get((r["scenario"], r["dataset"], r["task"]), {})
        lines.append(
            f"| {r['scenario']} | {r['dataset']} | {r['task']} | {ms(r['nbayes_s'])} "
            f"| {ms(o.get('nbayes_s'))} | {ms(r['rival_s'])} | {ms(o.get('rival_s'))} "
            f"| {ratio(r['nbayes_s'], r['rival_s'])} "
            f"| {ratio(o.get('nbayes_s'), o.get('rival_s'))} "
            f"| {ratio(o.get('nbayes_s'), r['nbayes_s'])} |"
        )
    return [*lines, ""]


def _keys(text: str) -> list[str]:
    keys = [k.strip().upper() for k in text.split(",") if k.strip()]
    unknown = sorted(set(keys) - set(SCENARIOS))
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(sorted(SCENARIOS))}"
        )
    return keys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--smoke",
        "--quick",
        dest="quick",
        action="store_true",
        help="tiny sizes (smoke test; CI runs this)",
    )
    parser.add_argument(
        "--only",
        type=_keys,
        metavar="KEYS",
        help=f"comma-separated scenarios, of {','.join(sorted(SCENARIOS))}",
    )
    parser.add_argument(
        "--scenario",
        nargs="+",
        choices=sorted(SCENARIOS),
        metavar="KEY",
        help="scenarios to run (space-separated; as --only)",
    )
    parser.add_argument(
        "--repeat",
        "--repeats",
        dest="repeats",
        type=int,
        default=5,
        help="timed calls per measurement (default 5)",
    )
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument(
        "--thread-env-only",
        type=_keys,
        metavar="KEYS",
        help="scenarios the child run repeats (default "
        f"{','.join(THREAD_SENSITIVE)}: those using BLAS or nbayes's block threads)",
    )
    parser.add_argument(
        "--notes-only",
        action="store_true",
        help="run nothing: merge the current bench/NOTES.md into --output again",
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="drop the sections of scenarios not run (kept from --output by default)",
    )
    parser.add_argument(
        "--thread-env",
        choices=("compare", "off"),
        default="compare",
        help="re-run in a child with the thread variables at 1 (or unset)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeat must be at least 1")
    if args.notes_only:
        if not args.output.exists():
            parser.error(f"--notes-only: {args.output} does not exist")
        _write(args.output, with_notes(args.output.read_text()))
        print(f"merged bench/NOTES.md into {args.output}")
        return 0
    keys = sorted(set((args.only or []) + (args.scenario or [])) or SCENARIOS)
    started = time.perf_counter()
    kept = {} if args.fresh else kept_sections(args.output, keys)
    lines, records = run(keys, args.quick, args.repeats, args.output, kept=kept)
    env_keys = [k for k in keys if k in (args.thread_env_only or THREAD_SENSITIVE)]
    if args.thread_env == "compare" and env_keys:
        lines += thread_env_table(env_keys, args.quick, args.repeats, records)
    first = next(i for i, line in enumerate(lines) if line.startswith("## "))
    old_rows = [r for key, section in kept.items() for r in kept_records(key, section)]
    lines[first:first] = summary(sorted(records + old_rows, key=lambda r: r["scenario"]))
    lines.append(f"Whole run: {time.perf_counter() - started:,.0f} s.")
    _write(args.output, with_notes("\n".join(lines)))
    if args.json is not None:
        args.json.write_text(json.dumps(records, indent=1, allow_nan=True))
    bad = [r for r in records if not math.isfinite(r["nbayes_s"])]
    print(f"wrote {args.output}" + (f"; {len(bad)} rows without a time" if bad else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
