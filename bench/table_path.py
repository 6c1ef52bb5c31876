"""Scenario I: the table path. ``NaiveBayes`` on a generated 1,000,000-row CSV against
one ``pandas.read_csv`` of the file and scikit-learn's closest pipeline.

The table (issue 18): 4 numeric columns, the last with 2 % missing values, 3 string
columns (5, 50 and 1,000 distinct values) and 3 string labels, written to a temporary
CSV (never kept) and read back with ``pandas.read_csv``, as a user would. It is made
twice, with and without the missing values (the same rows otherwise).

nbayes: ``NaiveBayes().fit(X, y)`` with the kinds inferred (numbers gaussian, strings
categorical) and ``y`` the label column as read (a pandas Series); ``predict_proba(X)``
on the same rows. The floor is one ``pandas.read_csv`` of the file: the issue's target
is fit + predict_proba at most that, with missing values as cheap as none. The fit and
predict_proba rows split the first row's nbayes time (scikit-learn is timed in the
first row only: its pipeline takes tens of seconds a call).

scikit-learn has no mixed naive Bayes, so its closest pipeline is built from its parts
(``bench/scenario_mixed.py: sklearn_mixed``): ``OrdinalEncoder`` on the string columns,
the numbers passed through (missing values imputed by their column mean first, since
GaussianNB refuses NaN), then ``CategoricalNB`` + ``GaussianNB`` with their joint
log-likelihoods summed, one GaussianNB per numeric column so that each has its own
variance floor, as in nbayes: on the table without missing values it is the same model
(the smoke test checks the probabilities agree).

Times are wall-clock medians of interleaved calls (``bench/harness.py``); the process
CPU time of the same calls (all threads) is given beneath each table, as on a shared
machine it tells the work done apart from the waiting.

    python bench/run.py --only I                # writes the I section of bench/RESULTS.md
    python -m bench.table_path [--rows N]       # prints the timings, writes nothing
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from bench.harness import Measurement, measure_interleaved
from bench.registry import Case, Dataset, Measured, register
from bench.scenario_mixed import SummedNB

FULL_ROWS, SMOKE_ROWS = 1_000_000, 20_000
LABELS = np.array(["alpha", "beta", "gamma"])
CARDINALITIES = (5, 50, 1_000)
MISSING_RATE = 0.02


def make_table(n_rows: int, missing: bool, seed: int = 0) -> pd.DataFrame:
    """The issue's table: ``num0..num3`` (``num3`` with 2 % NaN if ``missing``),
    ``str0..str2`` and ``label``; each column depends on the label."""
    rng = np.random.default_rng(seed)
    k = rng.choice(len(LABELS), size=n_rows, p=[0.5, 0.3, 0.2])
    columns: dict[str, np.ndarray] = {}
    for j in range(4):
        values = np.round(rng.normal(0.5 * k * (j + 1), 1.0 + j, n_rows) * 10.0**j, 3)
        if j == 3:
            gaps = rng.random(n_rows) < MISSING_RATE
            if missing:
                values[gaps] = np.nan
        columns[f"num{j}"] = values
    for j, size in enumerate(CARDINALITIES):
        codes = (rng.integers(0, size, n_rows) + k * (size // 7 + 1)) % size
        columns[f"str{j}"] = np.array([f"s{j}_v{c}" for c in range(size)])[codes]
    columns["label"] = LABELS[k]
    return pd.DataFrame(columns)


def sklearn_pipeline(frame: pd.DataFrame) -> Pipeline:
    """OrdinalEncoder on the strings, mean-imputed numbers, CategoricalNB + one
    GaussianNB per numeric column."""
    strings = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    numbers = [c for c in frame.columns if c not in strings]
    encode = ColumnTransformer(
        [
            ("codes", OrdinalEncoder(), strings),
            ("numbers", SimpleImputer(strategy="mean"), numbers),
        ]
    )
    sizes = [frame[c].nunique() for c in strings]
    return make_pipeline(encode, SummedNB(len(strings), sizes, per_column_gaussian=True))


def _cpu_timed(fn: Callable[[], object], cpu: list[float]) -> Callable[[], object]:
    """``fn`` that also appends the process CPU time of each call to ``cpu``."""

    def call():
        start = time.process_time()
        result = fn()
        cpu.append(time.process_time() - start)
        return result

    return call


def _measure(cases: list[Case], notes: list[str], repeats: int) -> Measured:
    """Each case timed interleaved (nbayes, scikit-learn, read_csv), with the median
    process CPU time of its timed calls added to ``notes``."""
    out: Measured = []
    for case in cases:
        cpu: dict[str, list[float]] = {"nbayes": [], "sklearn": [], "floor": []}
        fns = {"nbayes": case.nbayes, "sklearn": case.sklearn, "floor": case.floor}
        timed = {name: _cpu_timed(fn, cpu[name]) for name, fn in fns.items() if fn}
        got: dict[str, Measurement] = measure_interleaved(timed, repeats)
        medians = {
            name: statistics.median(times[1 : 1 + repeats])  # the timed calls only
            for name, times in cpu.items()
            if len(times) > 1
        }
        rival = (
            f"scikit-learn {medians['sklearn'] * 1e3:,.0f} ms, " if "sklearn" in medians else ""
        )
        notes.append(
            f"{case.task}: process CPU time (median) nbayes {medians['nbayes'] * 1e3:,.0f} ms, "
            f"{rival}read_csv {medians['floor'] * 1e3:,.0f} ms; nbayes/read_csv "
            f"{medians['nbayes'] / medians['floor']:.2f} in CPU time."
        )
        out.append((case, got))
    return out


def _dataset(n_rows: int, missing: bool, folder: Path, with_sklearn: bool = True) -> Dataset:
    path = folder / f"table_{'missing' if missing else 'complete'}.csv"
    make_table(n_rows, missing).to_csv(path, index=False)
    size_mb = path.stat().st_size / 1e6
    X = pd.read_csv(path)
    y = X.pop("label")

    import nbayes

    fitted = nbayes.NaiveBayes().fit(X, y)
    theirs = sklearn_pipeline(X).fit(X, y)
    agree = float(np.mean(fitted.predict(X) == theirs.predict(X)))
    del theirs

    def read():
        return pd.read_csv(path)

    def ours_both():
        return nbayes.NaiveBayes().fit(X, y).predict_proba(X)

    def theirs_both():
        return sklearn_pipeline(X).fit(X, y).predict_proba(X)

    floor = "one pandas.read_csv of the file"
    cases = [
        Case("fit + predict_proba", ours_both, theirs_both, read, floor, None, 1.0),
        Case("fit", lambda: nbayes.NaiveBayes().fit(X, y), None, read, floor),
        Case("predict_proba", lambda: fitted.predict_proba(X), None, read, floor),
    ]
    if not with_sklearn:
        cases[0].sklearn = None
    for case in cases:
        case.compare_memory = False  # scikit-learn's pipeline holds object arrays
        # the same probabilities, but for the missing values: imputed there, skipped here
        case.same_result = not missing and case.sklearn is not None
    notes: list[str] = [
        f"Table: {n_rows:,} rows, {size_mb:.0f} MB of CSV; "
        + ("`num3` 2 % missing. " if missing else "no missing values. ")
        + "scikit-learn: OrdinalEncoder on the 3 string columns, "
        + ("mean-imputed " if missing else "")
        + "numbers, CategoricalNB + one GaussianNB per numeric column "
        + "(`bench/table_path.py`). Predictions agree with nbayes's on "
        + f"{agree:.2%} of the rows."
    ]
    label = f"{n_rows:,} rows, " + ("2 % missing in one column" if missing else "no missing")
    return Dataset(
        label,
        None,
        cases,
        rival="scikit-learn pipeline",
        notes=notes,
        measure=lambda repeats: _measure(cases, notes, repeats),
    )


@register("I", "The table path: NaiveBayes on a 1,000,000-row CSV against read_csv")
def table_path(quick: bool) -> Iterator[Dataset]:
    n_rows = SMOKE_ROWS if quick else FULL_ROWS
    with tempfile.TemporaryDirectory() as folder:
        for missing in (True, False):
            yield _dataset(n_rows, missing, Path(folder))


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Scenario H alone, printed.")
    parser.add_argument("--rows", type=int, default=FULL_ROWS)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-sklearn", action="store_true", help="time nbayes and read_csv")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for missing in (True, False):
            dataset = _dataset(args.rows, missing, Path(folder), not args.no_sklearn)
            print(f"## {dataset.label}")
            for case, got in dataset.measure(args.repeat):
                row = {name: f"{m.median_s * 1e3:,.0f} ms" for name, m in got.items()}
                print(f"{case.task}: {row}")
            print("\n".join(dataset.notes), flush=True)


if __name__ == "__main__":
    main()
