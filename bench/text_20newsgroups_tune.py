"""Second round of model selection for 20 Newsgroups bydate: header fields as
prefixed tokens, document-frequency pruning, L2 or no length normalisation, an
alpha grid on a log scale; chosen on the validation split only (the latest 20 % of
each group's training posts, as in ``text_20newsgroups.py``), then the top
settings refitted on all of train and scored once on test.

Header tokens: the words of the ``Subject``, ``From`` and ``Organization`` lines
are added again, each prefixed with its field (``subject_gravity``), so that a word
in a subject counts apart from the same word in the body.

    .venv/bin/python bench/text_20newsgroups_tune.py --round N [--output FILE]
"""

from __future__ import annotations

import argparse
import itertools
import re
import time
from pathlib import Path

import numpy as np
from text_20newsgroups import load, temporal_split

from nbayes import ComplementNB, MultinomialNB
from nbayes.text import CountVectorizer, RennieTransformer, Tokenizer

FIELDS = (b"subject", b"from", b"organization")
_WORD = re.compile(rb"\w+")


def with_headers(doc: bytes, fields=FIELDS) -> bytes:
    """``doc`` plus a line of the field-prefixed words of its header fields in
    ``fields`` (a field named twice adds its words twice)."""
    head = doc.split(b"\n\n", 1)[0]
    extra = []
    for line in head.split(b"\n"):
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        extra += [name + b"_" + w.lower() for w in _WORD.findall(value)] * fields.count(name)
    return doc + b"\n" + b" ".join(extra)


ALL_FIELDS = (*FIELDS, b"keywords", b"summary", b"nntp-posting-host", b"distribution")
TOKENS = {
    "rich+stop": dict(tokenizer=Tokenizer(kind="rich", stop_words="english")),
    "words+stop": dict(stop_words="english"),
    "rich+stop, binary": dict(tokenizer=Tokenizer(kind="rich", stop_words="english"), binary=True),
}
HEADERS = {
    "plain": None,
    "+headers": FIELDS,
    "+all headers": ALL_FIELDS,
    "+subject": (b"subject",),
    "+subject x2": (b"subject", b"subject"),
    "+subject, organization": (b"subject", b"organization"),
}
# round 1: header fields, pruning and L2 on the previous best tokens and n-grams;
# round 2: more header fields, plain word tokens and trigrams, with L2, no pruning;
# round 3: presence (binary) instead of log-TF, and the subject line alone;
# round 4: the subject counted twice, subject and organization
ROUNDS = {
    1: dict(headers=["plain", "+headers"], tokens=["rich+stop"], ngrams=[(1, 2)],
            min_df=[1, 2], max_df=[1.0, 0.5], norms=["l2", None]),
    2: dict(headers=["plain", "+all headers"], tokens=["rich+stop", "words+stop"],
            ngrams=[(1, 2), (1, 3)], min_df=[1], max_df=[1.0], norms=["l2"]),
    3: dict(headers=["plain", "+subject"], tokens=["rich+stop", "rich+stop, binary"],
            ngrams=[(1, 2)],
            min_df=[1], max_df=[1.0], norms=["l2"]),
    4: dict(headers=["+subject x2", "+subject, organization"], tokens=["rich+stop, binary"],
            ngrams=[(1, 2)], min_df=[1], max_df=[1.0], norms=["l2"]),
}  # fmt: skip
MODELS = {
    "MNB": lambda a: MultinomialNB(alpha=a),
    "CNB": lambda a: ComplementNB(alpha=a),
    "CNB(norm)": lambda a: ComplementNB(alpha=a, norm=True),
}
ALPHAS = [0.01, 0.03, 0.1, 0.3, 1.0]


def prune(X_fit, min_df: int, max_df: float) -> np.ndarray:
    """Columns kept by CountVectorizer's min_df / max_df rules on the fitting rows."""
    df = np.diff(X_fit.tocsc().indptr)
    return np.flatnonzero((df >= min_df) & (df <= max_df * X_fit.shape[0]))


def matrices(docs_fit, docs_other, headers, tokens, ngrams):
    if headers is not None:
        docs_fit = [with_headers(d, headers) for d in docs_fit]
        docs_other = [with_headers(d, headers) for d in docs_other]
    vec = CountVectorizer(encoding="latin-1", ngram_range=ngrams, **TOKENS[tokens])
    return vec.fit_transform(docs_fit).tocsr(), vec.transform(docs_other).tocsr()


def transformed(X_fit, X_val, min_df: int, max_df: float, norm):
    """Pruned columns, then log-TF, IDF (from the fitting rows) and ``norm``."""
    keep = prune(X_fit, min_df, max_df)
    rennie = RennieTransformer(tf="log", idf=True, norm=norm).fit(X_fit[:, keep])
    return rennie.transform(X_fit[:, keep]), rennie.transform(X_val[:, keep])


def score(setting, X_fit, y_fit, X_val, y_val) -> float:
    min_df, max_df, norm, model, alpha = setting
    A, B = transformed(X_fit, X_val, min_df, max_df, norm)
    return float(np.mean(MODELS[model](alpha).fit(A, y_fit).predict(B) == y_val))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path)
    parser.add_argument("--round", type=int, choices=sorted(ROUNDS), default=1)
    args = parser.parse_args()
    grid = ROUNDS[args.round]
    start = time.perf_counter()
    train_docs, y_train, paths = load("train")
    idx_fit, idx_val = temporal_split(paths, 0.2)
    fit_docs = [train_docs[i] for i in idx_fit]
    val_docs = [train_docs[i] for i in idx_val]
    results = []
    for headers, tokens, ngrams in itertools.product(
        grid["headers"], grid["tokens"], grid["ngrams"]
    ):
        X_fit, X_val = matrices(fit_docs, val_docs, HEADERS[headers], tokens, ngrams)
        for min_df, max_df, norm in itertools.product(
            grid["min_df"], grid["max_df"], grid["norms"]
        ):
            A, B = transformed(X_fit, X_val, min_df, max_df, norm)
            for model, alpha in itertools.product(MODELS, ALPHAS):
                pred = MODELS[model](alpha).fit(A, y_train[idx_fit]).predict(B)
                acc = float(np.mean(pred == y_train[idx_val]))
                results.append((acc, headers, tokens, ngrams, min_df, max_df, norm, model, alpha))
        here = max(r for r in results if r[1:4] == (headers, tokens, ngrams))
        print(f"{headers} {tokens} {ngrams}: best {here}", flush=True)
    results.sort(key=lambda r: -r[0])
    lines = [
        f"Round {args.round}. Validation (latest 20 % of each group's training posts), top 15 of "
        f"{len(results)} settings:",
        "",
        "| validation | headers | tokens | n-grams | min_df | max_df | L2 | model | alpha |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for acc, headers, tokens, ngrams, min_df, max_df, norm, model, alpha in results[:15]:
        lines.append(
            f"| {acc:.4f} | {headers} | {tokens} | {ngrams} | {min_df} | {max_df} "
            f"| {norm == 'l2'} | {model} | {alpha} |"
        )
    # the best setting of each model, then scored once on test
    test_docs, y_test, _ = load("test")
    best = {}
    for r in results:
        best.setdefault(r[7], r)
    lines += [
        "",
        "Best validation setting per model, refitted on all of train, scored on test:",
        "",
        "| model | headers | tokens | n-grams | min_df | max_df | L2 | alpha | validation | test |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    cache = {}
    for model, (val, headers, tokens, ngrams, min_df, max_df, norm, _, alpha) in best.items():
        key = (headers, tokens, ngrams)
        if key not in cache:
            cache[key] = matrices(train_docs, test_docs, HEADERS[headers], tokens, ngrams)
        acc = score((min_df, max_df, norm, model, alpha), *cache[key][:1], y_train,
                    cache[key][1], y_test)  # fmt: skip
        lines.append(
            f"| {model} | {headers} | {tokens} | {ngrams} | {min_df} | {max_df} "
            f"| {norm == 'l2'} | {alpha} "
            f"| {val:.4f} | {acc:.4f} |"
        )
        print(lines[-1], flush=True)
    lines += ["", f"Total run time {time.perf_counter() - start:.0f} s."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        args.output.write_text(text)


if __name__ == "__main__":
    main()
