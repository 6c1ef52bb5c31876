"""Time nbayes training at two git revisions interleaved in one process.

    python bench/compare_revisions.py OLD_REV [--cases E-gauss E-sparse ...] [--small]

The old revision's ``src/`` is exported with ``git archive`` and imported under its
own module names, next to the working tree's ``nbayes``; each case is then timed for
old, new and scikit-learn round-robin (``bench.harness.measure_interleaved``: medians
after a warm-up, traced peak memory), so load from other processes on a shared
machine falls on all alike. The cases are scenarios A, B and E of ``bench/run.py``:
fit, and ``partial_fit`` over 100 chunks against one fit.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
from sklearn import naive_bayes as sk  # noqa: E402

from bench import data  # noqa: E402
from bench.harness import load_average, measure_interleaved  # noqa: E402
from bench.revisions import import_revision  # noqa: E402


def chunked(cls, X, y, parts):
    classes = np.unique(y)

    def run():
        model = cls()
        for part in parts:
            model.partial_fit(X[part], y[part], classes=classes)
        return model

    return run


def cases(small: bool):
    """(name, data builder, class attribute name, sklearn class, chunks or None)."""
    s = 10 if small else 1
    return {
        "A-gauss-10": (lambda: data.gaussian(1_000_000 // s, 50, 10), "GaussianNB", None),
        "A-gauss-100": (lambda: data.gaussian(100_000 // s, 50, 100), "GaussianNB", None),
        "B-multinomial": (
            lambda: data.sparse_counts(200_000 // s, 100_000, 100, 20),
            "MultinomialNB",
            None,
        ),
        "B-complement": (
            lambda: data.sparse_counts(200_000 // s, 100_000, 100, 20),
            "ComplementNB",
            None,
        ),
        "B-bernoulli": (
            lambda: data.sparse_counts(200_000 // s, 100_000, 100, 20),
            "BernoulliNB",
            None,
        ),
        "E-gauss": (lambda: data.gaussian(1_000_000 // s, 50, 10), "GaussianNB", 100),
        "E-sparse": (
            lambda: data.sparse_counts(200_000 // s, 100_000 // s, 100, 20),
            "MultinomialNB",
            100,
        ),
        "E-categorical": (
            lambda: data.categorical(500_000 // s, 200, 5)[:2],
            "CategoricalNB",
            100,
        ),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="git revision to compare the working tree against")
    parser.add_argument("--cases", nargs="+", default=None)
    parser.add_argument("--small", action="store_true", help="a tenth of the rows")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    old = import_revision(args.old)
    import nbayes as new

    table = cases(args.small)
    print(f"load average at start: {load_average()}")
    print("| case | old ms | new ms | sklearn ms | new/old | new/sk | peak MB old | new | sk |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.cases or list(table):
        build, cls_name, n_chunks = table[name]
        X, y = build()
        old_cls, new_cls = getattr(old, cls_name), getattr(new, cls_name)
        sk_cls = getattr(sk, cls_name)
        if n_chunks:
            bounds = np.linspace(0, X.shape[0], n_chunks + 1).astype(int)
            parts = [slice(a, b) for a, b in itertools.pairwise(bounds)]
            fns = {
                "old": chunked(old_cls, X, y, parts),
                "new": chunked(new_cls, X, y, parts),
                "sk": chunked(sk_cls, X, y, parts),
                "old fit": lambda c=old_cls, X=X, y=y: c().fit(X, y),
                "new fit": lambda c=new_cls, X=X, y=y: c().fit(X, y),
            }
        else:
            fns = {
                k: (lambda c=c, X=X, y=y: c().fit(X, y))
                for k, c in (("old", old_cls), ("new", new_cls), ("sk", sk_cls))
            }
        got = measure_interleaved(fns, args.repeats)
        ms = {k: m.median_s * 1e3 for k, m in got.items()}
        mb = {k: m.peak_bytes / 2**20 for k, m in got.items()}
        print(
            f"| {name} | {ms['old']:,.1f} | {ms['new']:,.1f} | {ms['sk']:,.1f} | "
            f"{ms['new'] / ms['old']:.2f} | {ms['new'] / ms['sk']:.2f} | "
            f"{mb['old']:.1f} | {mb['new']:.1f} | {mb['sk']:.1f} |",
            flush=True,
        )
        if n_chunks:
            print(
                f"|  {name} one fit | {ms['old fit']:,.1f} | {ms['new fit']:,.1f} | | "
                f"chunks/fit old {ms['old'] / ms['old fit']:.2f} | "
                f"new {ms['new'] / ms['new fit']:.2f} | {mb['old fit']:.1f} | "
                f"{mb['new fit']:.1f} | |",
                flush=True,
            )
    print(f"load average at end: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
