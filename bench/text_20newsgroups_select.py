"""Third round of model selection for 20 Newsgroups bydate, on the library's
``nbayes.text.PostVectorizer``: quoted reply lines and signatures kept or dropped,
presence vs log-TF counts, the Subject block's weight, min_df, model and alpha
(rounds 5 and 7); then transductive EM (Nigam et al., 2000) with the validation posts as
unlabelled rows (round 6); then one change at a time from the chosen pipeline (round 8:
From addresses as features, header lines out of the body, Snowball stemming of body
words, training posts weighted by recency). Validation only: the latest 20 % of each
group's training posts (``text_20newsgroups.temporal_split``); this script never reads the test set.
The chosen pipeline is scored on test once by ``text_20newsgroups.py``.

    .venv/bin/python bench/text_20newsgroups_select.py --round 5|6|7|8|9 [--output FILE]

Round 9 (``text_20newsgroups_round9.py``): more one-at-a-time changes, a finer alpha
grid, and two further time-ordered validation folds; its count blocks are cached.

Round 8's stemming needs the ``snowballstemmer`` package (not an nbayes dependency).
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import text_20newsgroups_round9 as round9
from text_20newsgroups import load, temporal_split

from nbayes import ComplementNB, MultinomialNB, SemiSupervisedNB
from nbayes.text import PostVectorizer, RennieTransformer

MODELS = {
    "MNB": lambda a: MultinomialNB(alpha=a),
    "CNB": lambda a: ComplementNB(alpha=a),
    "CNB(norm)": lambda a: ComplementNB(alpha=a, norm=True),
}
ALPHAS = [0.03, 0.1, 0.3, 1.0]
GRIDS = {
    5: dict(
        cleaning=[("keep", "keep"), ("drop", "keep"), ("keep", "drop"), ("drop", "drop")],
        binary=[True, False],
        header_weight=[1, 2, 3],
        min_df=[1, 2],
    ),
    # round 5's best subject weight (3) was the largest tried: larger ones
    7: dict(cleaning=[("keep", "drop")], binary=[True, False], header_weight=[3, 4, 6, 10],
            min_df=[1]),
}  # fmt: skip
#: round 6 (EM) starts from round 7's best vectorizer settings
EM_VECTORIZER = dict(signature="drop", binary=False, header_weight=3)


def weighted(X: sp.csr_matrix, n_body: int, weight: float) -> sp.csr_matrix:
    """X with the header columns (from ``n_body`` on) times ``weight``: the same
    matrix as ``PostVectorizer(header_weight=weight)`` gives."""
    scale = np.ones(X.shape[1])
    scale[n_body:] = weight
    return sp.csr_matrix(X.astype(np.float64) @ sp.diags(scale))


def prune(X_fit, min_df: int) -> np.ndarray:
    return np.flatnonzero(np.diff(X_fit.tocsc().indptr) >= min_df)


def grid_round(grid, fit_docs, y_fit, val_docs, y_val) -> list[tuple]:
    results = []
    for (quotes, signature), binary in itertools.product(grid["cleaning"], grid["binary"]):
        t = time.perf_counter()
        vec = PostVectorizer(quotes=quotes, signature=signature, binary=binary)
        X_fit, X_val = vec.fit_transform(fit_docs), vec.transform(val_docs)
        n_body = vec.n_body_features_
        for weight, min_df in itertools.product(grid["header_weight"], grid["min_df"]):
            keep = prune(X_fit, min_df)
            A = weighted(X_fit, n_body, weight)[:, keep]
            B = weighted(X_val, n_body, weight)[:, keep]
            rennie = RennieTransformer().fit(A)
            A, B = rennie.transform(A), rennie.transform(B)
            for model, alpha in itertools.product(MODELS, ALPHAS):
                acc = float(np.mean(MODELS[model](alpha).fit(A, y_fit).predict(B) == y_val))
                results.append((acc, quotes, signature, binary, weight, min_df, model, alpha))
        here = max(r for r in results if r[1:4] == (quotes, signature, binary))
        print(f"{quotes=} {signature=} {binary=}: best {here} "
              f"({time.perf_counter() - t:.0f} s)", flush=True)  # fmt: skip
    return results


def round6(fit_docs, y_fit, val_docs, y_val) -> list[tuple]:
    """Transductive EM around the round-5 winners: vocabulary and IDF from the fitting
    and validation texts together (no labels), validation rows unlabelled."""
    settings = [("CNB", 0.3), ("MNB", 0.03), ("MNB", 0.1)]
    weights = [0.1, 0.3, 1.0]
    vec = PostVectorizer(**EM_VECTORIZER)
    X = vec.fit_transform(list(fit_docs) + list(val_docs))
    X = RennieTransformer().fit_transform(X)
    n = len(fit_docs)
    y = np.array([*y_fit, *[-1] * len(val_docs)], dtype=object)  # -1: unlabelled
    results = []
    for (model, alpha), lam in itertools.product(settings, [0.0, *weights]):
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            em = SemiSupervisedNB(MODELS[model](alpha), unlabeled_weight=lam, max_iter=30)
            em.fit(X, y)
        acc = float(np.mean(em.predict(X[n:]) == y_val))
        results.append((acc, model, alpha, lam, em.n_iter_))
        print(results[-1], f"{time.perf_counter() - t:.0f} s", flush=True)
    return results


def stem_columns(names) -> sp.csr_matrix:
    """(n_features, n_stems) 0/1 matrix summing body columns whose n-grams have the same
    Snowball stems: ``X @ stem_columns(names)`` counts stems instead of words."""
    import snowballstemmer

    words = sorted({w for name in names for w in name.split(" ")})
    stem = dict(zip(words, snowballstemmer.stemmer("english").stemWords(words), strict=True))
    keys = np.array([" ".join(stem[w] for w in name.split(" ")) for name in names], dtype=object)
    _, column = np.unique(keys, return_inverse=True)
    shape = (len(names), column.max() + 1)
    return sp.csr_matrix((np.ones(len(names)), (np.arange(len(names)), column)), shape=shape)


def recency(paths) -> np.ndarray:
    """Each post's rank by article number within its group, scaled to [0, 1]."""
    rank = np.zeros(len(paths))
    groups: dict[str, list[int]] = {}
    for i, path in enumerate(paths):
        groups.setdefault(path.parent.name, []).append(i)
    for members in groups.values():
        members.sort(key=lambda i: int(paths[i].name))
        rank[members] = np.linspace(0.0, 1.0, len(members))
    return rank


ROUND8 = {  # one change at a time from the chosen pipeline (EM_VECTORIZER)
    "chosen": dict(),
    "+From addresses": dict(header_fields=("subject", "from")),
    "header lines out of the body": dict(header_text="drop"),
    "stemmed body": dict(stem=True),
    "recency weights, tau 1": dict(tau=1.0),
    "recency weights, tau 0.5": dict(tau=0.5),
    "recency weights, tau 0.25": dict(tau=0.25),
}


def round8(fit_docs, y_fit, val_docs, y_val, fit_paths) -> list[tuple]:
    """Validation accuracy of each ROUND8 variant; a recency weight is
    exp((rank - 1) / tau), so the latest post of a group weighs 1."""
    results = []
    for name, change in ROUND8.items():
        change = dict(change)
        stem, tau = change.pop("stem", False), change.pop("tau", None)
        vec = PostVectorizer(**{**EM_VECTORIZER, "header_weight": 1.0, **change})
        A, B = vec.fit_transform(fit_docs), vec.transform(val_docs)
        n_body = vec.n_body_features_
        if stem:
            S = stem_columns(vec.body_vectorizer_.get_feature_names_out())
            n_body = S.shape[1]
            S = sp.block_diag([S, sp.identity(A.shape[1] - S.shape[0])], format="csr")
            A, B = (A @ S).tocsr(), (B @ S).tocsr()
        A, B = (weighted(M, n_body, EM_VECTORIZER["header_weight"]) for M in (A, B))
        rennie = RennieTransformer().fit(A)
        A, B = rennie.transform(A), rennie.transform(B)
        weight = None if tau is None else np.exp((recency(fit_paths) - 1.0) / tau)
        for model, alpha in itertools.product(MODELS, ALPHAS):
            nb = MODELS[model](alpha).fit(A, y_fit, sample_weight=weight)
            results.append((float(np.mean(nb.predict(B) == y_val)), name, model, alpha))
        print(max(r for r in results if r[1] == name), flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round", type=int, choices=[5, 6, 7, 8, 9], default=5)
    parser.add_argument("--output", type=Path)
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path("/tmp/nbayes-20news-round9"),
        help="round 9: where the raw count blocks are cached",
    )
    parser.add_argument(
        "--step",
        type=int,
        nargs="*",
        default=[1, 2],
        help="round 9: step 1 (from the chosen pipeline), 2 (from step 1's winner)",
    )
    args = parser.parse_args()
    start = time.perf_counter()
    train_docs, y_train, paths = load("train")
    idx_fit, idx_val = temporal_split(paths, 0.2)
    fit_docs = [train_docs[i] for i in idx_fit]
    val_docs = [train_docs[i] for i in idx_val]
    y_fit, y_val = y_train[idx_fit], y_train[idx_val]
    if args.round in GRIDS:
        results = grid_round(GRIDS[args.round], fit_docs, y_fit, val_docs, y_val)
        results.sort(key=lambda r: -r[0])
        header = (
            "| validation | quotes | signature | binary | subject weight | min_df | model | alpha |"
        )
    elif args.round == 9:
        text = "\n".join(
            round9.report(round9.run(train_docs, y_train, paths, args.cache, round9.STEPS[step]),
                          step)
            for step in args.step
        ) + f"\nTotal run time {time.perf_counter() - start:.0f} s.\n"  # fmt: skip
        print(text)
        if args.output:
            args.output.write_text(text)
        return
    elif args.round == 8:
        fit_paths = [paths[i] for i in idx_fit]
        results = sorted(round8(fit_docs, y_fit, val_docs, y_val, fit_paths), key=lambda r: -r[0])
        header = "| validation | change from the chosen pipeline | model | alpha |"
    else:
        results = sorted(round6(fit_docs, y_fit, val_docs, y_val), key=lambda r: -r[0])
        header = "| validation | model | alpha | unlabelled weight | EM iterations |"
    lines = [
        f"Round {args.round}: validation (latest 20 % of each group's training posts), "
        f"top 20 of {len(results)} settings:",
        "",
        header,
        "|" + "---|" * (header.count("|") - 1),
    ]
    for r in results[:20]:
        lines.append("| " + f"{r[0]:.4f} | " + " | ".join(map(str, r[1:])) + " |")
    lines += ["", f"Total run time {time.perf_counter() - start:.0f} s."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        args.output.write_text(text)


if __name__ == "__main__":
    main()
