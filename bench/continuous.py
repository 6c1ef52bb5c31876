"""Timing of the continuous-feature models, as ratios measured in the same run.

For each model: fit and predict_proba time over the physical floor (one read pass,
``X.sum()``) and over scikit-learn's GaussianNB on the same data (the nearest
scikit-learn model: it has no Poisson, exponential, KDE or discretising NB). Then the
kernel density: exact vs binned prediction time as the training set grows, and the
binned model's largest log-likelihood error. Medians of ``--repeats`` runs.

    .venv/bin/python bench/continuous.py [--n 100000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB

from nbayes import BinnedNB, ExponentialNB, KernelDensityNB, PoissonNB


def median_seconds(action, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def data(kind: str, n: int, d: int, rng):
    y = rng.integers(0, 3, n)
    shift = 1.0 + y[:, None] * np.linspace(0.2, 1.0, d)
    if kind == "counts":
        return rng.poisson(shift, (n, d)).astype(float), y
    if kind == "durations":
        return rng.exponential(shift, (n, d)), y
    return rng.normal(shift, 1.0, (n, d)), y


def model_table(n: int, d: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    rows = [
        ("PoissonNB", PoissonNB(), "counts"),
        ("ExponentialNB", ExponentialNB(), "durations"),
        ("KernelDensityNB(binned)", KernelDensityNB(algorithm="binned"), "normal"),
        ("BinnedNB(mdl)", BinnedNB(), "normal"),
        ("BinnedNB(quantile)", BinnedNB(strategy="quantile"), "normal"),
    ]
    print(f"n={n}, d={d}, 3 classes; medians of {repeats}")
    print(
        f"{'model':26s} {'fit s':>8s} {'fit/floor':>10s} {'fit/skGNB':>10s} "
        f"{'proba s':>8s} {'proba/skGNB':>11s}"
    )
    for name, model, kind in rows:
        X, y = data(kind, n, d, rng)
        floor = median_seconds(lambda X=X: X.sum(), repeats)
        sk = SklearnGaussianNB()
        sk_fit = median_seconds(lambda X=X, y=y, sk=sk: sk.fit(X, y), repeats)
        sk_proba = median_seconds(lambda X=X, sk=sk: sk.predict_proba(X), repeats)
        fit = median_seconds(lambda X=X, y=y, model=model: model.fit(X, y), repeats)
        model.predict_proba(X[:10])  # estimate once (lazy), outside the timing
        proba = median_seconds(lambda X=X, model=model: model.predict_proba(X), repeats)
        print(
            f"{name:26s} {fit:8.4f} {fit / floor:10.1f} {fit / sk_fit:10.2f} "
            f"{proba:8.4f} {proba / sk_proba:11.2f}"
        )


def kde_scaling(repeats: int) -> None:
    rng = np.random.default_rng(1)
    queries = rng.normal(0.5, 1.2, (2000, 2))
    print("\nKernelDensityNB predict_proba on 2000 rows, 2 features, 2 classes")
    print(f"{'n_train':>8s} {'exact s':>9s} {'binned s':>9s} {'max |dlogL|':>12s}")
    for n in (1_000, 10_000, 100_000):
        y = rng.integers(0, 2, n)
        X = rng.normal(y[:, None] * [1.0, -0.5], 1.0, (n, 2))
        exact = KernelDensityNB(algorithm="exact").fit(X, y)
        binned = KernelDensityNB(algorithm="binned").fit(X, y)
        error = np.max(
            np.abs(exact.predict_joint_log_proba(queries) - binned.predict_joint_log_proba(queries))
        )
        t_exact = median_seconds(lambda m=exact: m.predict_proba(queries), repeats)
        t_binned = median_seconds(lambda m=binned: m.predict_proba(queries), repeats)
        print(f"{n:8d} {t_exact:9.4f} {t_binned:9.4f} {error:12.2e}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    model_table(args.n, args.d, args.repeats)
    kde_scaling(max(1, args.repeats // 2))
