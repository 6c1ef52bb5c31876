"""Out-of-core GaussianNB on Dask: rows generated lazily, never held whole.

    .venv/bin/python bench/dask_outofcore.py                       # the full run
    .venv/bin/python bench/dask_outofcore.py --rows 2_000_000      # a quick check

X (rows × features, float64) and y are generated block by block on the workers
(each block seeded by its position, so every pass sees the same data); by default
100 million rows × 34 features = 27.2 GB = 25.3 GiB, more than this machine's
memory. For 1 and then 2 worker processes (one thread each, a memory limit each)
it times, in the same run:

- floor: one read pass, ``X.sum(axis=0)`` and ``y.sum()`` (generation + one
  reduction: what any fit must pay at least);
- nbayes: ``nbayes.dask.fit(GaussianNB(), X, y)``;
- dask-ml: ``dask_ml.naive_bayes.GaussianNB().fit(X, y)`` and computing its
  ``theta_`` and ``sigma_`` (its fit is lazy), where dask-ml is installed
  (``pip install dask-ml``; not an nbayes dependency).

Each worker's peak resident memory (VmHWM, reset before each measurement) is
reported, with rows/s and ratios to the floor. Medians over ``--repeats``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import dask
import dask.array as da
import distributed
import numpy as np

import nbayes
import nbayes.dask as nbd

GiB = 1 << 30


def lazy_data(rows: int, features: int, classes: int, chunk_rows: int, seed: int):
    """y (rows,) uniform over ``classes``; X | y = c ~ N(mu_c, sigma_c^2) per feature."""
    rng = np.random.default_rng(seed)
    means = rng.normal(scale=2.0, size=(classes, features))
    scales = rng.uniform(0.5, 2.0, size=(classes, features))
    y = da.random.default_rng(seed).integers(0, classes, size=rows, chunks=chunk_rows)
    X = y.map_blocks(
        _features_of,
        means,
        scales,
        seed,
        new_axis=1,
        chunks=(y.chunks[0], (features,)),
        dtype=np.float64,
        meta=np.empty((0, 0)),
    )
    return X, y


def _features_of(labels, means, scales, seed, block_info=None):
    block = block_info[0]["chunk-location"][0] if block_info else 0
    rng = np.random.default_rng([seed, block])
    noise = rng.standard_normal((labels.shape[0], means.shape[1]))
    return noise * scales[labels] + means[labels]


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as handle:  # "5": reset the peak RSS
        handle.write("5")


def _peak_rss() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def floor(X, y):
    return dask.compute(X.sum(axis=0), y.sum())


def fit_nbayes(X, y):
    return nbd.fit(nbayes.GaussianNB(), X, y)


def fit_dask_ml(X, y):
    from dask_ml.naive_bayes import GaussianNB

    model = GaussianNB().fit(X, y)
    theta, sigma = dask.compute(model.theta_, model.sigma_)
    return theta, sigma


def measure(client, method, X, y, repeats: int) -> dict:
    seconds, peaks, result = [], [], None
    for _ in range(repeats):
        client.run(_reset_peak)
        start = time.perf_counter()
        result = method(X, y)
        seconds.append(time.perf_counter() - start)
        peaks.append(max(client.run(_peak_rss).values()))
    return {"seconds": statistics.median(seconds), "peak": max(peaks), "result": result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--features", type=int, default=34)
    parser.add_argument("--classes", type=int, default=4)
    parser.add_argument("--chunk-rows", type=int, default=500_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--memory-limit", default="3GiB", help="per worker")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--dask-ml-workers", type=int, nargs="*", default=[2])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    X, y = lazy_data(args.rows, args.features, args.classes, args.chunk_rows, seed=0)
    size = args.rows * args.features * 8
    print(
        f"X: {args.rows:,} rows × {args.features} float64 = {size / GiB:.1f} GiB "
        f"in {X.numblocks[0]} blocks of {args.chunk_rows:,} rows "
        f"({args.chunk_rows * args.features * 8 / 2**20:.0f} MiB); "
        f"{args.classes} classes; cpu count {os.cpu_count()}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    try:
        import dask_ml  # noqa: F401

        has_dask_ml = True
    except ImportError:
        has_dask_ml = False
        print("dask-ml not installed: its column is left out")

    rows = []
    for n_workers in args.workers:
        with (
            distributed.LocalCluster(
                n_workers=n_workers,
                threads_per_worker=1,
                processes=True,
                memory_limit=args.memory_limit,
                dashboard_address=None,
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            small_X, small_y = lazy_data(10_000, args.features, args.classes, 5_000, seed=1)
            fit_nbayes(small_X, small_y)  # warm the workers' imports
            methods = {"floor": floor, "nbayes": fit_nbayes}
            if has_dask_ml and n_workers in args.dask_ml_workers:
                methods["dask-ml"] = fit_dask_ml
            measured = {}
            for name, method in methods.items():
                measured[name] = measure(client, method, X, y, args.repeats)
                m = measured[name]
                print(
                    f"{n_workers} worker(s) {name:8s} {m['seconds']:8.1f} s "
                    f"{args.rows / m['seconds'] / 1e6:6.2f} M rows/s "
                    f"peak/worker {m['peak'] / GiB:.2f} GiB",
                    flush=True,
                )
            if "dask-ml" in measured:
                model = measured["nbayes"]["result"]
                theta, sigma = measured["dask-ml"]["result"]
                print(
                    "nbayes vs dask-ml: max |theta diff| "
                    f"{np.max(np.abs(model.theta_ - theta)):.2e}, max |var diff| "
                    f"{np.max(np.abs(model.var_ - model.epsilon_ - sigma)):.2e}"
                )
            for name, m in measured.items():
                rows.append(
                    {
                        "workers": n_workers,
                        "method": name,
                        "seconds": round(m["seconds"], 2),
                        "rows_per_s": round(args.rows / m["seconds"]),
                        "vs_floor": round(m["seconds"] / measured["floor"]["seconds"], 2),
                        "peak_worker_GiB": round(m["peak"] / GiB, 2),
                    }
                )
    print("\n| workers | method | seconds | rows/s | × floor | peak memory per worker |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['workers']} | {row['method']} | {row['seconds']:.1f} | "
            f"{row['rows_per_s'] / 1e6:.2f} M | {row['vs_floor']:.2f} | "
            f"{row['peak_worker_GiB']:.2f} GiB |"
        )
    by_key = {(row["workers"], row["method"]): row["seconds"] for row in rows}
    for name in ("floor", "nbayes"):
        if (1, name) in by_key and (2, name) in by_key:
            print(f"scaling 1 → 2 workers ({name}): {by_key[(1, name)] / by_key[(2, name)]:.2f}×")
    if args.json:
        args.json.write_text(json.dumps({"args": vars(args) | {"json": None}, "rows": rows}))


if __name__ == "__main__":
    main()
