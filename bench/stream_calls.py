"""What one ``partial_fit`` call costs beyond its share of one fit: an old git revision
against the working tree, in one process.

    python bench/stream_calls.py [OLD_REV] [--cases gauss sparse categorical]
                                 [--repeats 7] [--small] [--fixed]

The streams are scenario E's (``bench/scenarios.py``): 100 chunks cut before timing,
one fresh model fed all of them, against one ``fit`` on the same data. The four runs
(old and new, chunked and one fit) are timed round-robin in a rotating order, after a
warm-up, so load from other processes on a shared machine falls on all alike; each
run records wall time (``time.perf_counter``) and this process's CPU time
(``time.process_time``, which counts the block threads too). Printed per case, as
medians: ms per ``partial_fit`` call, the overhead per call over one fit's share
(``(chunks - fit) / 100``), the chunks / fit ratio (scenario E's target: at most
1.2), also of the minimum wall times (the least disturbed runs on a busy machine),
and the traced peak memory of the chunked run.

``--fixed`` measures instead the fixed cost of a call: CPU microseconds per
``partial_fit`` call on a 16-row batch (the models of the cases, 10 classes),
old and new alternating, median of ``repeats`` runs of 200 calls.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from bench import data  # noqa: E402
from bench.harness import load_average, partial_fits, peak_memory  # noqa: E402
from bench.revisions import import_revision  # noqa: E402

N_CHUNKS = 100


def cases(small: bool) -> dict:
    """name -> (data builder, class name); the shapes of scenario E."""
    s = 10 if small else 1
    return {
        "gauss": (lambda: data.gaussian(1_000_000 // s, 50, 10), "GaussianNB"),
        "sparse": (
            lambda: data.sparse_counts(200_000 // s, 100_000 // s, 100, 20),
            "MultinomialNB",
        ),
        "categorical": (lambda: data.categorical(500_000 // s, 200, 5)[:2], "CategoricalNB"),
    }


def timed_round_robin(fns: dict, repeats: int) -> dict[str, tuple[float, float, float]]:
    """Median wall s, median CPU s and minimum wall s of each function, called
    round-robin after one warm-up."""
    for fn in fns.values():
        fn()
    names = list(fns)
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    gc.collect()
    gc.disable()
    try:
        for repeat in range(repeats):
            shift = repeat % len(names)
            for name in names[shift:] + names[:shift]:
                start_wall, start_cpu = time.perf_counter(), time.process_time()
                fns[name]()
                cpu[name].append(time.process_time() - start_cpu)
                wall[name].append(time.perf_counter() - start_wall)
    finally:
        gc.enable()
    return {n: (statistics.median(wall[n]), statistics.median(cpu[n]), min(wall[n])) for n in names}


def fixed_cost(old, new, repeats: int) -> None:
    """CPU us per partial_fit call on a 16-row batch, old against new (see module doc)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, 16)
    batches = {
        "GaussianNB": rng.normal(size=(16, 50)),
        "MultinomialNB": sp.csr_matrix(rng.poisson(0.05, size=(16, 1000)).astype(float)),
        "CategoricalNB": rng.integers(0, 5, size=(16, 200)),
    }
    classes = np.arange(10)
    print("| model | old us/call CPU | new us/call CPU |\n|---|---:|---:|")
    for name, X in batches.items():
        models = {}
        for code, package in (("old", old), ("new", new)):
            models[code] = getattr(package, name)().partial_fit(X, y, classes=classes)
        times: dict[str, list[float]] = {code: [] for code in models}
        for _ in range(repeats):
            for code, model in models.items():
                start = time.process_time()
                for _ in range(200):
                    model.partial_fit(X, y, classes=classes)
                times[code].append((time.process_time() - start) / 200 * 1e6)
        old_us, new_us = (statistics.median(times[code]) for code in ("old", "new"))
        print(f"| {name} | {old_us:.0f} | {new_us:.0f} |", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", nargs="?", default="main", help="git revision (default main)")
    parser.add_argument("--cases", nargs="+", default=None)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--small", action="store_true", help="a tenth of the rows")
    parser.add_argument("--fixed", action="store_true", help="per-call cost, 16-row batches")
    args = parser.parse_args(argv)
    old = import_revision(args.old)
    import nbayes as new

    if args.fixed:
        print(f"old = {args.old}; load average at start: {load_average()}")
        fixed_cost(old, new, args.repeats)
        print(f"load average at end: {load_average()}")
        return 0

    table = cases(args.small)
    print(f"old = {args.old}; load average at start: {load_average()}")
    print(
        "| case | code | ms/call wall | CPU | overhead ms/call wall | CPU "
        "| chunks/fit wall | CPU | min wall | one fit ms wall | peak MB chunks |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.cases or list(table):
        build, cls_name = table[name]
        X, y = build()
        bounds = np.linspace(0, X.shape[0], N_CHUNKS + 1).astype(int)
        batches = [(X[a:b], y[a:b]) for a, b in itertools.pairwise(bounds)]
        classes = np.unique(y)
        fns = {}
        for code, package in (("old", old), ("new", new)):
            cls = getattr(package, cls_name)
            fns[f"{code} chunks"] = partial_fits(cls, batches, classes)
            fns[f"{code} fit"] = lambda cls=cls, X=X, y=y: cls().fit(X, y)
        got = timed_round_robin(fns, args.repeats)
        for code in ("old", "new"):
            chunks, fit = got[f"{code} chunks"], got[f"{code} fit"]
            peak = peak_memory(fns[f"{code} chunks"]) / 2**20
            print(
                f"| {name} | {code} | {1e3 * chunks[0] / N_CHUNKS:.3f} | "
                f"{1e3 * chunks[1] / N_CHUNKS:.3f} | "
                f"{1e3 * (chunks[0] - fit[0]) / N_CHUNKS:.3f} | "
                f"{1e3 * (chunks[1] - fit[1]) / N_CHUNKS:.3f} | "
                f"{chunks[0] / fit[0]:.2f} | {chunks[1] / fit[1]:.2f} | {chunks[2] / fit[2]:.2f} | "
                f"{1e3 * fit[0]:,.1f} | {peak:.2f} |",
                flush=True,
            )
    print(f"load average at end: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
