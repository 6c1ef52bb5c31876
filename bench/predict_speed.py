"""Prediction speed: this checkout against an older commit and scikit-learn, one process.

    python bench/predict_speed.py --old 7cee522               # scenarios A, B, C predict
    python bench/predict_speed.py --old 7cee522 --only C --quick
    python bench/predict_speed.py --old 7cee522 --only A1M    # Gaussian 1M x 50 too

The old commit's ``src/`` is exported (``git archive``) to a temporary folder and
imported first; its estimator classes are kept and ``nbayes`` is re-imported from this
checkout, so old, new, scikit-learn and the floor are timed interleaved (``bench.harness``) in
one process, on the same data, with the same load. Also checked: new and old give
the same predictions. Writes a markdown table to stdout (and ``--out``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench import data  # noqa: E402
from bench.harness import load_average, measure_interleaved  # noqa: E402
from bench.revisions import import_revision  # noqa: E402

NAMES = ("GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB")


def old_classes(commit: str) -> dict[str, type]:
    """The estimator classes of ``commit``."""
    old = import_revision(commit)
    return {name: getattr(old, name) for name in NAMES}


def cases(quick: bool, only: set[str]):
    """(label, X, y, class name, method) for the predict-side scenarios ("A1M": also
    Gaussian 1M x 50, 10 classes, minutes of scikit-learn time)."""
    if "A" in only or "A1M" in only:
        shapes = [(100_000, 50, 100)] + ([(1_000_000, 50, 10)] if "A1M" in only else [])
        for n, d, k in [(20_000, 20, 10)] if quick else shapes:
            X, y = data.gaussian(n, d, k)
            for method in ("predict", "predict_proba"):
                yield f"A {n:,}x{d} k={k}", X, y, "GaussianNB", method
    if "B" in only:
        n, d, per_row, k = (20_000, 20_000, 50, 20) if quick else (200_000, 100_000, 100, 20)
        X, y = data.sparse_counts(n, d, per_row, k)
        for name in ("MultinomialNB", "ComplementNB", "BernoulliNB"):
            yield f"B CSR {n:,}x{d:,} nnz={X.nnz:,}", X, y, name, "predict"
    if "C" in only:
        n, d, k = (20_000, 200, 5) if quick else (500_000, 200, 5)
        X, y, _ = data.categorical(n, d, k)
        yield f"C {n:,}x{d} k={k}", X, y, "CategoricalNB", "predict"


def floor(X, k: int):
    """The floor of bench/scenarios.py: two GEMMs (X*X)@A + X@B for dense float X,
    one sparse product X@M for CSR, one one-hot sparse product for codes."""
    rng = np.random.default_rng(4)
    if sp.issparse(X):
        M = rng.random((X.shape[1], k))
        return lambda: X @ M
    if np.issubdtype(X.dtype, np.integer):
        width = X.max(axis=0) + 1
        codes = X + np.concatenate(([0], np.cumsum(width)[:-1]))
        n, d = X.shape
        onehot = sp.csr_matrix(
            (np.ones(codes.size), codes.ravel().astype(np.int32), np.arange(0, n * d + 1, d)),
            shape=(n, int(width.sum())),
        )
        M = rng.random((onehot.shape[1], k))
        return lambda: onehot @ M
    A, B = rng.random((X.shape[1], k)), rng.random((X.shape[1], k))
    return lambda: (X * X) @ A + X @ B


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="commit to compare against")
    parser.add_argument("--only", nargs="*", default=["A", "B", "C"])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)

    old = old_classes(args.old)
    import sklearn.naive_bayes as sk

    import nbayes

    lines = [
        f"old = {args.old}, load average at start: {load_average()}",
        "",
        "| data | model.method | new ms | old ms | sklearn ms | floor ms | new/floor | new/old "
        "| new/sklearn | peak MB new | old | sklearn |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    print("\n".join(lines), flush=True)
    for label, X, y, name, method in cases(args.quick, set(args.only)):
        models = {
            "new": getattr(nbayes, name)().fit(X, y),
            "old": old[name]().fit(X, y),
            "sklearn": getattr(sk, name)().fit(X, y),
        }
        results = {key: getattr(m, method)(X) for key, m in models.items()}
        if method == "predict":
            assert np.array_equal(results["new"], results["old"]), "new != old predictions"
        else:
            np.testing.assert_allclose(results["new"], results["old"], rtol=1e-9, atol=1e-12)
        del results
        fns = {key: (lambda mm=mm, f=method, Z=X: getattr(mm, f)(Z)) for key, mm in models.items()}
        fns["floor"] = floor(X, len(np.unique(y)))
        m = measure_interleaved(fns, repeats=args.repeats)
        new, oldm, skm = m["new"], m["old"], m["sklearn"]
        row = (
            f"| {label} | {name}.{method} | {new.median_s * 1e3:,.1f} | "
            f"{oldm.median_s * 1e3:,.1f} | {skm.median_s * 1e3:,.1f} | "
            f"{m['floor'].median_s * 1e3:,.1f} | {new.median_s / m['floor'].median_s:.2f} | "
            f"{new.median_s / oldm.median_s:.3f} | {new.median_s / skm.median_s:.3f} | "
            f"{new.peak_bytes / 2**20:,.1f} | {oldm.peak_bytes / 2**20:,.1f} | "
            f"{skm.peak_bytes / 2**20:,.1f} |"
        )
        lines.append(row)
        print(row, flush=True)
    lines.append(f"\nload average at end: {load_average()}")
    print(lines[-1])
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
