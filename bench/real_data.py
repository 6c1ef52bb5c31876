"""NaiveBayes on real mixed and categorical tables, next to scikit-learn's closest
pipelines; writes ``bench/RESULTS_real_data.md``.

Stratified 10-fold cross-validation (shuffled, seed 0), the same folds for every
model; accuracy and log-loss, mean ± standard deviation over the folds.

- nbayes ``NaiveBayes()``: kinds inferred from the dtypes (numbers → gaussian,
  strings → categorical), ``?`` read as missing and skipped.
- scikit-learn ``CategoricalNB`` on an ``OrdinalEncoder`` encoding of the
  categorical columns, ``?`` kept as a category of its own (the encoder sees the
  whole table, so no fold meets an unknown code; ``min_categories`` likewise).
- scikit-learn ``GaussianNB`` on the numeric columns only (adult).
- where ``?`` occurs, nbayes again with ``?`` as a category, to separate the effect
  of skipping missing values from the rest.
- where there are numeric columns (adult), nbayes with them as "binned" (supervised
  MDL discretisation, Fayyad & Irani) and as "kde" (kernel densities, Scott's rule;
  binned beyond 10,000 rows), instead of gaussian.

Run: ``.venv/bin/python bench/real_data.py`` (about a minute).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import CategoricalNB, GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uci

from nbayes import NaiveBayes

OUT = Path(__file__).resolve().parent / "RESULTS_real_data.md"
N_SPLITS = 10


def categorical_nb(X_with_question_marks):
    """CategoricalNB on the ordinal codes of the string columns (``?`` a category)."""
    columns = [
        c for c in X_with_question_marks.columns if X_with_question_marks[c].dtype != "int64"
    ]
    categories = OrdinalEncoder().fit(X_with_question_marks[columns]).categories_
    n_categories = [len(c) for c in categories]
    encode = ColumnTransformer([("codes", OrdinalEncoder(categories=categories), columns)])
    return make_pipeline(encode, CategoricalNB(min_categories=n_categories))


def gaussian_nb(X):
    numeric = [c for c in X.columns if X[c].dtype == "int64"]
    return make_pipeline(ColumnTransformer([("numbers", "passthrough", numeric)]), GaussianNB())


def cross_validate(model_for, X, y) -> dict[str, float]:
    folds = StratifiedKFold(N_SPLITS, shuffle=True, random_state=0)
    accuracy, loss, seconds = [], [], []
    labels = np.unique(y)
    for train, test in folds.split(X, y):
        model = model_for()
        start = time.perf_counter()
        model.fit(X.iloc[train], y[train])
        proba = model.predict_proba(X.iloc[test])
        seconds.append(time.perf_counter() - start)
        full = np.zeros((len(test), len(labels)))
        full[:, np.searchsorted(labels, model.classes_)] = proba
        accuracy.append(accuracy_score(y[test], labels[np.argmax(full, axis=1)]))
        loss.append(log_loss(y[test], np.clip(full, 1e-15, 1), labels=labels))
    return {
        "accuracy": np.mean(accuracy),
        "accuracy_sd": np.std(accuracy),
        "log_loss": np.mean(loss),
        "log_loss_sd": np.std(loss),
        "seconds": np.median(seconds),
    }


def datasets():
    yield "adult (train)", uci.adult(), uci.adult(missing_as_category=True)
    yield "mushroom", uci.mushroom(), uci.mushroom(missing_as_category=True)
    yield "car", uci.car(), uci.car()
    yield "nursery", uci.nursery(), uci.nursery()


def main() -> None:
    rows = []
    for name, frame, with_marks in datasets():
        X, y = uci.split_xy(frame)
        X_marks, _ = uci.split_xy(with_marks)
        y = y.to_numpy()
        models = {
            "nbayes NaiveBayes (inferred kinds, ? missing)": (lambda: NaiveBayes(), X),
            "sklearn CategoricalNB (ordinal, ? a category)": (
                lambda marks=X_marks: categorical_nb(marks),
                X_marks,
            ),
        }
        if X.isna().any().any():
            models["nbayes NaiveBayes (inferred kinds, ? a category)"] = (NaiveBayes, X_marks)
        numeric = list(X.columns[X.dtypes == "int64"])
        for kind in ("binned", "kde") if numeric else ():
            label = f"nbayes NaiveBayes (numeric columns {kind}, ? missing)"
            models[label] = (lambda k=kind, c=numeric: NaiveBayes(columns=dict.fromkeys(c, k)), X)
        if (X.dtypes == "int64").any():
            models["sklearn GaussianNB (numeric columns only)"] = (lambda X=X: gaussian_nb(X), X)
        for model_name, (factory, data) in models.items():
            result = cross_validate(factory, data, y)
            rows.append((name, len(y), model_name, result))
            print(name, model_name, {k: round(v, 4) for k, v in result.items()}, flush=True)
    lines = [
        "# NaiveBayes on real data",
        "",
        f"Stratified {N_SPLITS}-fold CV (shuffled, seed 0; same folds for every model), "
        "mean ± sd over folds. Produced by `bench/real_data.py`; fit+predict seconds "
        "are the median per fold on the machine that ran it.",
        "",
        "| data set | rows | model | accuracy | log-loss | fit+predict s |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for name, n, model_name, r in rows:
        lines.append(
            f"| {name} | {n} | {model_name} | {r['accuracy']:.4f} ± {r['accuracy_sd']:.4f} "
            f"| {r['log_loss']:.4f} ± {r['log_loss_sd']:.4f} | {r['seconds']:.3f} |"
        )
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
