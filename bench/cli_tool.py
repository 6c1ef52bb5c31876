"""Scenario J: the ``nbayes`` command on a generated table, as users run it.

``nbayes train big.csv -t label -o m.nbm`` then ``nbayes predict m.nbm big.csv --proba
-o out.csv``, each a fresh process, against the I/O floor: a fresh Python that reads
the CSV with pyarrow, and one that reads it again and writes a predictions-shaped
table (a label and one probability per class) with pyarrow's CSV writer. Wall time of
each process from its start to its exit, and its peak resident memory (``ru_maxrss``
from ``wait4``); the pair's time is the sum, its memory the larger peak. The rounds
are interleaved (floor, CLI, floor, CLI, ...), so load from other processes falls on
both; medians.

The table (generated into a temporary folder, never committed): 1,000,000 rows, 4
numeric columns (one with 2 % missing), 3 text columns (5, 40 and 200 values) and 3
text labels, about 60 MB::

    python bench/cli_tool.py                  # 1,000,000 rows, 3 rounds
    python bench/cli_tool.py --rows 100000 --repeat 1
    python bench/run.py --only J              # the same, into bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))

from bench.harness import Measurement, load_average  # noqa: E402
from bench.registry import Case, Dataset, Measured, register  # noqa: E402

LABELS = ("alpha", "beta", "gamma")
ROWS = 1_000_000

#: The floor's two processes: read the CSV; read it again and write the predictions.
FLOOR_READ = """
import sys, pyarrow.csv as csv
csv.read_csv(sys.argv[1])
"""
FLOOR_WRITE = """
import sys, numpy as np, pyarrow as pa, pyarrow.csv as csv
table = csv.read_csv(sys.argv[1])
n = table.num_rows
proba = np.random.default_rng(0).dirichlet(np.ones(3), size=n)
labels = pa.array(["alpha", "beta", "gamma"]).take(pa.array(proba.argmax(axis=1)))
out = pa.table({"prediction": labels, **{f"proba_{c}": proba[:, k]
               for k, c in enumerate(["alpha", "beta", "gamma"])}})
csv.write_csv(out, sys.argv[2])
"""


def generate(path: Path, rows: int, seed: int = 0) -> None:
    """The benchmark table (see the module doc), written with pyarrow."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as csv

    rng = np.random.default_rng(seed)
    y = rng.integers(0, len(LABELS), rows)
    columns = {}
    for j in range(4):
        values = rng.normal(y * (j + 1) * 0.4, 1.0 + 0.2 * j)
        values = pa.array(np.round(values, 5))
        if j == 3:
            values = pa.array(values.to_numpy(), mask=rng.random(rows) < 0.02)
        columns[f"x{j}"] = values
    for j, (prefix, size) in enumerate((("colour_", 5), ("city_", 40), ("item_", 200))):
        vocabulary = np.array([f"{prefix}{i}" for i in range(size)])
        codes = (rng.integers(0, size, rows) + y * (j + 1)) % size
        columns[f"s{j}"] = pa.array(vocabulary[codes])
    columns["label"] = pa.array(np.array(LABELS)[y])
    options = csv.WriteOptions(quoting_style="none")
    csv.write_csv(pa.table(columns), path, write_options=options)


#: Runs a command from a small process and reports its wall time and peak memory: a
#: process forked from this big one would inherit its resident size as its peak.
LAUNCHER = """
import os, sys, time
report, args = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(args[0], args)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
with open(report, "w") as out:
    out.write(f"{wall} {usage.ru_maxrss * 1024} {os.waitstatus_to_exitcode(status)}")
"""


def child(args: list[str]) -> tuple[float, int]:
    """Run one process: (wall seconds, peak resident bytes)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report"
        done = subprocess.run(
            [sys.executable, "-c", LAUNCHER, str(report), *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            check=False,
        )
        wall, peak, status = report.read_text().split() if report.exists() else (0, 0, -1)
    if done.returncode != 0 or int(status) != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.decode().strip()}")
    return float(wall), int(peak)


def nbayes_command() -> list[str]:
    return [sys.executable, "-m", "nbayes"]  # what the console script runs: nbayes.cli.run


def rounds(
    csv_path: Path, folder: Path, repeats: int, warmup: int = 1
) -> dict[str, list[tuple[float, int]]]:
    """``repeats`` interleaved rounds of the floor's and the CLI's two processes, after
    ``warmup`` untimed ones (file and compile caches)."""
    py = sys.executable
    steps = {
        "floor read": [py, "-c", FLOOR_READ, str(csv_path)],
        "floor read + write": [py, "-c", FLOOR_WRITE, str(csv_path), str(folder / "f.csv")],
        "train": [*nbayes_command(), "train", str(csv_path), "-t", "label",
                  "-o", str(folder / "m.nbm")],
        "predict --proba": [*nbayes_command(), "predict", str(folder / "m.nbm"),
                            str(csv_path), "--proba", "-o", str(folder / "p.csv")],
    }  # fmt: skip
    got: dict[str, list[tuple[float, int]]] = {name: [] for name in steps}
    order = [["floor read", "floor read + write"], ["train", "predict --proba"]]
    for repeat in range(warmup + repeats):
        for pair in order if repeat % 2 == 0 else order[::-1]:
            for name in pair:
                result = child(steps[name])
                if repeat >= warmup:
                    got[name].append(result)
    return got


def _measurement(times: list[float], peak: int) -> Measurement:
    return Measurement(statistics.median(times), min(times), peak, times)


def measured(got: dict[str, list[tuple[float, int]]]) -> Measured:
    """Rows: train against the floor's read, predict against read + write, and the
    pair against the whole floor (judged: ≤ 3× its time, ≤ 1.5× its peak memory)."""

    def m(names: list[str]) -> Measurement:
        runs = zip(*(got[name] for name in names), strict=True)
        pairs = [(sum(t for t, _ in run), max(p for _, p in run)) for run in runs]
        return _measurement([t for t, _ in pairs], max(p for _, p in pairs))

    floors = ["floor read", "floor read + write"]
    rows = [
        (["train"], ["floor read"], "start Python, read the CSV (pyarrow)", None),
        (["predict --proba"], ["floor read + write"],
         "start Python, read the CSV, write predictions (pyarrow)", None),
        (["train", "predict --proba"], floors, "both floor processes", 3.0),
    ]  # fmt: skip
    out: Measured = []
    for ours, floor, floor_name, target in rows:
        case = Case(
            " + ".join(ours),
            lambda: None,
            None,
            lambda: None,
            floor_name,
            max_vs_floor=target,
            max_memory_vs_floor=1.5 if target else None,
            same_result=False,
        )
        out.append((case, {"nbayes": m(ours), "floor": m(floor)}))
    return out


@register("J", "The command line: train + predict --proba on a 1,000,000-row CSV")
def cli(quick: bool) -> Iterator[Dataset]:
    rows = 2_000 if quick else ROWS
    folder = Path(tempfile.mkdtemp(prefix="nbayes-cli-bench-"))
    path = folder / "big.csv"
    generate(path, rows)
    size = path.stat().st_size
    notes = [
        f"The table: {rows:,} rows, {size / 1e6:.0f} MB (4 numeric columns, one with 2 % "
        "missing; 3 text columns; 3 labels). Each step a fresh process; peak MB is the "
        "process's peak resident memory (ru_maxrss), not traced allocations.",
    ]

    def measure(repeats: int) -> Measured:
        before = load_average()
        try:
            out = measured(rounds(path, folder, repeats, warmup=0 if quick else 1))
        finally:
            for file in folder.iterdir():
                file.unlink()
            folder.rmdir()
        loads = [", ".join(f"{x:.2f}" for x in load) for load in (before, load_average())]
        notes.append(f"Load average (1, 5, 15 min) before / after: {loads[0]} / {loads[1]}.")
        notes.append(
            "Peak MB of the floor: "
            + "; ".join(f"{case.task}: {got['floor'].peak_bytes / 2**20:,.1f}" for case, got in out)
            + "."
        )
        return out

    yield Dataset(
        f"{rows:,}-row CSV, {size / 1e6:.0f} MB: nbayes train, then predict --proba",
        None,
        [],
        rival="—",
        notes=notes,
        measure=measure,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="nbayes-cli-bench-") as tmp:
        folder = Path(tmp)
        path = folder / "big.csv"
        generate(path, args.rows)
        print(f"{args.rows:,} rows, {path.stat().st_size / 1e6:.1f} MB; load {load_average()}")
        got = rounds(path, folder, args.repeat)
        for name, runs in got.items():
            times = ", ".join(f"{t:.2f}" for t, _ in runs)
            print(f"{name:<20} median {statistics.median(t for t, _ in runs):6.2f} s "
                  f"({times}); peak {max(p for _, p in runs) / 2**20:7.1f} MB")  # fmt: skip
        for case, got_case in measured(got):
            ours, floor = got_case["nbayes"], got_case["floor"]
            print(f"{case.task:<26} {ours.median_s / floor.median_s:5.2f}x floor time, "
                  f"{ours.peak_bytes / floor.peak_bytes:5.2f}x floor memory")  # fmt: skip
        print(f"load after: {load_average()}")


if __name__ == "__main__":
    main()
