"""Run the nbayes benchmark and write bench/RESULTS.md.

    python bench/run.py                 # every scenario, full size (several minutes)
    python bench/run.py --quick         # tiny sizes: a smoke test of the bench code
    python bench/run.py --scenario A C  # some scenarios only

Each case times nbayes, scikit-learn and the floor in this one process (median of
``--repeats`` calls after a warm-up) and traces each one's peak memory (tracemalloc;
see ``bench/harness.py``). Ratios below 1 mean nbayes is faster. ``bench/NOTES.md``,
the hand-written analysis of missed targets, is appended to the results.
"""

from __future__ import annotations

import argparse
import sys
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
from bench.scenarios import SCENARIOS, Case  # noqa: E402


def _ms(m: Measurement | None) -> str:
    return "" if m is None else f"{m.median_s * 1e3:,.1f}"


def _mb(m: Measurement | None) -> str:
    return "" if m is None else f"{m.peak_bytes / 2**20:,.1f}"


def _ratio(a: Measurement, b: Measurement | None) -> float | None:
    return None if b is None or b.median_s <= 0 else a.median_s / b.median_s


def _verdict(case: Case, vs_sk: float | None, vs_floor: float | None, ours, theirs) -> tuple:
    """(target text, outcome text) for one row."""
    wanted, misses = [], []
    if case.max_vs_sklearn is not None:
        wanted.append(f"≤{case.max_vs_sklearn:.2g}× sk")
        if vs_sk is not None and vs_sk > case.max_vs_sklearn:
            misses.append(f"{vs_sk / case.max_vs_sklearn:.2f}× over sk target")
    if case.max_vs_floor is not None:
        wanted.append(f"≤{case.max_vs_floor:.2g}× floor")
        if vs_floor is not None and vs_floor > case.max_vs_floor:
            misses.append(f"{vs_floor / case.max_vs_floor:.2f}× over floor target")
    if theirs is not None:
        wanted.append("mem ≤ sk")
        if ours.peak_bytes > theirs.peak_bytes:
            misses.append(f"memory {ours.peak_bytes / max(theirs.peak_bytes, 1):.2f}× sk")
    return ", ".join(wanted), ("missed: " + "; ".join(misses)) if misses else "met"


HEADER = (
    "| task | nbayes ms | sklearn ms | floor ms | floor | nbayes/sklearn | nbayes/floor "
    "| peak MB nbayes | peak MB sklearn | target | outcome |\n"
    "|---|---:|---:|---:|---|---:|---:|---:|---:|---|---|"
)


def _write(path: Path, text: str) -> None:
    """Replace ``path`` atomically."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text + "\n")
    tmp.replace(path)


def run(keys: list[str], quick: bool, repeats: int, output: Path | None = None) -> str:
    """Run the scenarios; the results so far are written to ``output`` after each
    data set (a long run on a busy machine leaves its finished tables behind)."""
    info = machine_info()
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    lines = [
        "# nbayes benchmark results",
        "",
        f"Written by `python bench/run.py{' --quick' if quick else ''}"
        f"{' --scenario ' + ' '.join(keys) if keys != sorted(SCENARIOS) else ''}` at {started}.",
        f"Times are medians of {repeats} calls after one warm-up, in one process; ratios",
        "below 1 mean nbayes is faster. Peak memory: tracemalloc, traced allocations above",
        "the inputs during one extra call (NumPy/SciPy buffers; not BLAS scratch).",
        "",
        *(f"- **{key}**: {value}" for key, value in info.items()),
        "",
    ]
    for key in keys:
        scenario = SCENARIOS[key]
        lines += [f"## {key}: {scenario.title}", ""]
        reason = scenario.missing() if scenario.build is None else None
        if scenario.build is None:
            lines += [f"Not run: {reason}", ""]
            continue
        for dataset in scenario.build(quick):
            print(f"[{key}] {dataset.label}", flush=True)
            read = measure(dataset.read_pass, repeats)
            lines += [f"### {dataset.label}", "", f"One read pass over X: {_ms(read)} ms.", ""]
            lines.append(HEADER)
            for case in dataset.cases:
                fns = {"nbayes": case.nbayes, "sklearn": case.sklearn, "floor": case.floor}
                got = measure_interleaved({k: f for k, f in fns.items() if f}, repeats)
                ours, theirs, floor = got["nbayes"], got.get("sklearn"), got.get("floor")
                vs_sk, vs_floor = _ratio(ours, theirs), _ratio(ours, floor)
                target, outcome = _verdict(case, vs_sk, vs_floor, ours, theirs)
                row = [
                    case.task,
                    _ms(ours),
                    _ms(theirs),
                    _ms(floor),
                    case.floor_name,
                    "" if vs_sk is None else f"{vs_sk:.3f}",
                    "" if vs_floor is None else f"{vs_floor:.2f}",
                    _mb(ours),
                    _mb(theirs),
                    target,
                    outcome,
                ]
                lines.append("| " + " | ".join(row) + " |")
                print("   ", " | ".join(row), flush=True)
            lines.append("")
            del dataset
            if output is not None:
                _write(output, "\n".join([*lines, "(run in progress)"]))
    lines.append(f"Load average at the end: {', '.join(f'{x:.2f}' for x in load_average())}.")
    lines.append("")
    notes = HERE / "NOTES.md"
    if notes.exists():
        lines += ["---", "", notes.read_text().rstrip(), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    parser.add_argument(
        "--scenario",
        nargs="+",
        choices=sorted(SCENARIOS),
        default=sorted(SCENARIOS),
        metavar="KEY",
        help=f"scenarios to run, of {', '.join(sorted(SCENARIOS))}",
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per measurement")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    keys = sorted(set(args.scenario))
    _write(args.output, run(keys, args.quick, args.repeats, args.output))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
