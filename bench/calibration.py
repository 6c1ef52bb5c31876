"""Calibration before and after, on real data: expected calibration error (top
label, 15 bins) and log-loss on a held-out test set, for the raw naive Bayes model
and for ``nbayes.CalibratedNB`` (temperature and isotonic, 5-fold cross-validation
on the training part).

- SMS spam: CountVectorizer + MultinomialNB; stratified 70/30 split, seed 0.
- 20 Newsgroups: the bydate train/test split, headers/signatures/quotes removed,
  CountVectorizer (English stop words, min_df=2) + MultinomialNB.
- UCI adult: adult.data / adult.test; CategoricalNB on an ordinal encoding (``?`` a
  category of its own; numeric columns in 10 quantile bins; categories unseen in
  training ignored).

Writes ``bench/RESULTS_calibration.md``. Run: ``.venv/bin/python bench/calibration.py``.
"""

from __future__ import annotations

import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import sklearn
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import KBinsDiscretizer, OrdinalEncoder

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _datasets

import nbayes

RESULTS = Path(__file__).resolve().parent / "RESULTS_calibration.md"
N_BINS = 15


def sms_spam():
    texts, labels = _datasets.sms_spam()
    train_text, test_text, y_train, y_test = train_test_split(
        texts, labels, test_size=0.3, stratify=labels, random_state=0
    )
    vectorizer = CountVectorizer()
    return (
        vectorizer.fit_transform(train_text),
        y_train,
        vectorizer.transform(test_text),
        y_test,
        nbayes.MultinomialNB(),
    )


def twenty_newsgroups():
    train_text, y_train = _datasets.twenty_newsgroups("train")
    test_text, y_test = _datasets.twenty_newsgroups("test")
    vectorizer = CountVectorizer(stop_words="english", min_df=2)
    return (
        vectorizer.fit_transform(train_text),
        y_train,
        vectorizer.transform(test_text),
        y_test,
        nbayes.MultinomialNB(),
    )


def adult():
    train, y_train = _datasets.adult("data")
    test, y_test = _datasets.adult("test")
    numeric = _datasets.ADULT_NUMERIC
    categorical = [c for c in train.columns if c not in numeric]
    encoder = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # bins merged on skewed columns
        binner = KBinsDiscretizer(
            n_bins=10,
            encode="ordinal",
            strategy="quantile",
            quantile_method="averaged_inverted_cdf",
        ).fit(train[numeric])

    def encode(frame, fit=False):
        codes = (
            encoder.fit_transform(frame[categorical])
            if fit
            else encoder.transform(frame[categorical])
        )
        codes[codes < 0] = 10_000  # unseen in training: left out by handle_unknown="ignore"
        return np.hstack([codes, binner.transform(frame[numeric])]).astype(np.int64)

    return (
        encode(train, fit=True),
        y_train,
        encode(test),
        y_test,
        nbayes.CategoricalNB(handle_unknown="ignore"),
    )


def evaluate(model, X_test, y_test) -> dict:
    proba = model.predict_proba(X_test)
    return {
        "accuracy": float(np.mean(model.classes_[proba.argmax(axis=1)] == y_test)),
        "ece": nbayes.expected_calibration_error(y_test, proba, N_BINS, classes=model.classes_),
        "log_loss": log_loss(y_test, proba, labels=model.classes_),
        "zero_proba": float(
            np.mean(proba[np.arange(len(y_test)), np.searchsorted(model.classes_, y_test)] == 0)
        ),
    }


def main() -> None:
    lines = [
        "# Calibration before and after",
        "",
        f"Written by `bench/calibration.py`; Python {platform.python_version()}, "
        f"scikit-learn {sklearn.__version__}, nbayes {nbayes.__version__}.",
        "",
        "Held-out test sets. ECE: top-label expected calibration error, 15 equal-width "
        "bins (`nbayes.expected_calibration_error`). Log-loss: scikit-learn's `log_loss` "
        "(which clips probabilities to [eps, 1 - eps], eps = 2.2e-16; 'P(true)=0' counts the test "
        "rows whose true class got probability exactly 0). Calibration: "
        "`nbayes.CalibratedNB(model, method=..., cv=5)` fitted on the training part only.",
        "",
        "| data | model | train / test rows | calibration | T | accuracy | ECE | log-loss "
        "| P(true)=0 | fit seconds |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, load in [
        ("SMS spam", sms_spam),
        ("20 Newsgroups", twenty_newsgroups),
        ("UCI adult", adult),
    ]:
        X_train, y_train, X_test, y_test, base = load()
        for method in (None, "temperature", "isotonic"):
            model = base if method is None else nbayes.CalibratedNB(base, method=method, cv=5)
            start = time.perf_counter()
            model.fit(X_train, y_train)
            seconds = time.perf_counter() - start
            scores = evaluate(model, X_test, y_test)
            temperature = f"{model.temperature_:.3f}" if method == "temperature" else ""
            lines.append(
                f"| {name} | {type(base).__name__} | {X_train.shape[0]} / {X_test.shape[0]} "
                f"| {method or 'none'} | {temperature} | {scores['accuracy']:.4f} "
                f"| {scores['ece']:.4f} | {scores['log_loss']:.4f} "
                f"| {scores['zero_proba']:.4f} | {seconds:.2f} |"
            )
            print(lines[-1], flush=True)
    lines.append("")
    RESULTS.write_text("\n".join(lines))
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
