"""CountVectorizer.fit_transform now against nbayes at another git revision, interleaved
in one process: median wall and CPU seconds of --repeat runs each, and the peak traced
memory (tracemalloc) of one more run, on 20 Newsgroups and BBC news.

"calling-thread CPU" is the CPU time of the thread that calls fit_transform alone: on a
machine too busy for the second thread to get a core (wall ~ process CPU), it is the
best guide to the two-thread wall time on an idle machine (it leaves out only the time
spent waiting for the second thread).

With ``--sklearn`` scikit-learn's fit_transform runs before each nbayes run, as scenario D
does (its freed memory goes back to the system, so nbayes's buffers fault in afresh).

    .venv/bin/python bench/text_before_after.py [--baseline main] [--repeat 7] [--sklearn]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.feature_extraction import text as sk

from bench import text_vectorize
from nbayes.text import CountVectorizer


def peak_mb(function) -> float:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sklearn", action="store_true")
    args = parser.parse_args()
    old_run = _old_count_vectorizer(args.baseline)  # numba compiles its kernels afresh
    corpora = {"20 Newsgroups": text_vectorize.twenty_newsgroups(), "BBC news": None}
    corpora["BBC news"] = text_vectorize.bbc_news()
    print("| corpus | code | wall ms | CPU ms | calling-thread CPU ms | peak MB |")
    print("|---|---|---|---|---|---|")
    for name, docs in corpora.items():
        if docs is None:
            continue
        runs = {
            "before": lambda d=docs: old_run(d),
            "after": lambda d=docs: CountVectorizer(encoding="latin-1").fit_transform(d),
        }
        if args.sklearn:
            runs["scikit-learn"] = lambda d=docs: sk.CountVectorizer(
                encoding="latin-1"
            ).fit_transform(d)
        for run in runs.values():
            run()
        times = {label: ([], [], []) for label in runs}
        for _ in range(args.repeat):
            for label, run in runs.items():
                wall, cpu, own = time.perf_counter(), time.process_time(), time.thread_time()
                run()
                times[label][2].append(time.thread_time() - own)
                times[label][1].append(time.process_time() - cpu)
                times[label][0].append(time.perf_counter() - wall)
        for label, run in runs.items():
            wall, cpu, own = (statistics.median(v) * 1e3 for v in times[label])
            print(
                f"| {name} | {label} | {wall:.0f} | {cpu:.0f} | {own:.0f} | {peak_mb(run):.1f} |",
                flush=True,
            )


def _old_count_vectorizer(rev: str):
    """A call ``docs -> nbayes.text.CountVectorizer(encoding="latin-1").fit_transform(docs)``
    with nbayes as of git revision ``rev``; its modules are put back in ``sys.modules`` for
    each call, since the engine imports some of them lazily."""
    import importlib

    from bench.revisions import export_revision

    src = str(export_revision(rev))
    ours = _swap({})
    sys.path.insert(0, src)
    try:
        cls = importlib.import_module("nbayes.text").CountVectorizer
        for name in ("_parallel", "_kernels", "_engine"):
            importlib.import_module(f"nbayes.text.{name}")
    finally:
        sys.path.remove(src)
        old = _swap(ours)

    def run(docs):
        current = _swap(old)
        try:
            return cls(encoding="latin-1").fit_transform(docs)
        finally:
            _swap(current)

    return run


def _swap(modules: dict) -> dict:
    """Replace the ``nbayes`` modules in ``sys.modules`` by ``modules``; returns the old."""
    out = {k: v for k, v in sys.modules.items() if k == "nbayes" or k.startswith("nbayes.")}
    for key in out:
        del sys.modules[key]
    sys.modules.update(modules)
    return out


if __name__ == "__main__":
    main()
