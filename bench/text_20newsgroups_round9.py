"""Round 9 of model selection for 20 Newsgroups bydate: one change at a time from the
chosen pipeline of rounds 7-8 (``make_text_classifier(stop_words="english", alpha=0.3)``),
then from step 1's winner; on validation only.

Every block of raw counts is built **once** over the training posts and cached
(``scipy.sparse.save_npz``, no pickle) under ``--cache``: the body's word n-grams
(quoted lines kept; and, with the same vocabulary, without them), the Subject and
other header fields' words, character n-grams within word boundaries, and a few
re-tokenized bodies. A fold then takes its rows and the columns its fitting rows
hold (exactly the vocabulary a vectorizer fitted on those rows has), applies the
weights and the TF / IDF / norm transform, and scores every model and alpha from one
pass of class statistics (:func:`sweep`, checked against the nbayes estimators).

Folds (article numbers grow with time within each group): ``val`` fits on the
earlier 80 % of each group's training posts and validates on the latest 20 % (the
split of rounds 1-8, ``text_20newsgroups.temporal_split``); ``mid`` and ``early`` fit on
the earliest 60 % / 40 % and validate on the next 20 %: two further, time-ordered
views on which earlier rounds never chose. The test set is never read.

    .venv/bin/python bench/text_20newsgroups_select.py --round 9 [--cache DIR]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import norm as row_norms
from scipy.special import logsumexp
from sklearn.feature_extraction.text import CountVectorizer as SkCountVectorizer
from sklearn.feature_selection import chi2
from sklearn.preprocessing import normalize
from text_20newsgroups import windows

from nbayes import ComplementNB, MultinomialNB
from nbayes.text import CountVectorizer, PostVectorizer, Tokenizer
from nbayes.text.headers import split_post

FOLDS = {"val": (0.8, 1.0), "mid": (0.6, 0.8), "early": (0.4, 0.6)}
CNB_ALPHAS = [0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 1.0]
MNB_ALPHAS = [0.01, 0.03, 0.05, 0.1, 0.2, 0.3]
EXTRA_FIELDS = ("organization", "lines", "keywords", "summary")
BODIES = {  # body block name -> Tokenizer / n-gram settings (all: quotes kept, signature dropped)
    "body": dict(),
    "body, no stop-word list": dict(stop_words=None),
    "body, no case folding": dict(lowercase=False),
    "body, 1-character tokens": dict(min_len=1),
    "body, trigrams": dict(ngram_range=(1, 3)),
    "body, no stop-word list, 1-character tokens": dict(stop_words=None, min_len=1),
    "body, no stop-word list, trigrams": dict(stop_words=None, ngram_range=(1, 3)),
    "body, no stop-word list, no case folding": dict(stop_words=None, lowercase=False),
}
QUOTE_BODIES = ("body", "body, no stop-word list")


# ---------------------------------------------------------------- cached blocks
def block_makers(docs: list[bytes]) -> dict:
    """Block name -> a function computing its raw counts (one row per post)."""
    posts = [split_post(d) for d in docs]
    texts = [PostVectorizer(signature="drop")._body(p) for p in posts]
    bare = [PostVectorizer(signature="drop", quotes="drop")._body(p) for p in posts]
    makers = {}
    for name, settings in BODIES.items():
        makers[name] = lambda s=settings: _words(texts, texts, **s)
        if name in QUOTE_BODIES:  # the same vocabulary, counted without quoted lines
            makers[f"{name} without quotes"] = lambda s=settings: _words(texts, bare, **s)
    for name in ("subject", *EXTRA_FIELDS):
        makers[name] = lambda name=name: _field(posts, name)
    makers["char_wb 3-5"] = lambda: SkCountVectorizer(
        analyzer="char_wb", ngram_range=(3, 5), dtype=np.float64
    ).fit_transform(texts)
    return makers


def build_blocks(docs: list[bytes], cache: Path) -> dict[str, sp.csr_matrix]:
    """Raw count blocks (one row per training post), from ``cache`` when there."""
    cache.mkdir(parents=True, exist_ok=True)
    blocks = {}
    for name, make in block_makers(docs).items():
        path = cache / (name.replace(" ", "_").replace(",", "") + ".npz")
        if not path.exists():
            t = time.perf_counter()
            sp.save_npz(path, sp.csr_matrix(make(), dtype=np.float64))
            print(f"built {name!r}: {time.perf_counter() - t:.0f} s", flush=True)
        blocks[name] = sp.load_npz(path).tocsr()
    return blocks


def _words(texts, counted, ngram_range=(1, 2), **tokenizer) -> sp.csr_matrix:
    """Counts of ``counted`` in the word n-gram vocabulary of ``texts``."""
    tok = Tokenizer(**{"kind": "rich", "stop_words": "english", **tokenizer})
    # the vectorizer folds case when either it or its tokenizer says so
    vec = CountVectorizer(tokenizer=tok, ngram_range=ngram_range, lowercase=tok.lowercase)
    return vec.fit(texts).transform(counted)


def _field(posts, name: str) -> sp.csr_matrix:
    tok = Tokenizer(kind="rich", stop_words=None)  # PostVectorizer's header tokenizer
    texts = [p.field(name) for p in posts]
    if not any(texts):
        return sp.csr_matrix((len(posts), 0))
    return CountVectorizer(tokenizer=tok).fit_transform(texts)


# ---------------------------------------------------------------- one variant
@dataclass(frozen=True)
class Spec:
    """One pipeline: which blocks, their weights, the transform. Defaults: chosen."""

    body: str = "body"
    quote_weight: float = 1.0  # quoted-line counts times this (1 keep, 0 drop)
    header_weight: float = 3.0
    extra: tuple[str, ...] = ()  # more header fields, same weight as the Subject
    tf: tuple = ("log",)  # ("log",) or ("bm25", k1, b)
    norm_power: float = 1.0  # rows divided by ||x||_2 ** norm_power
    pivot: float | None = None  # rows divided by (1 - s) + s * ||x|| / mean ||x||
    char_weight: float | None = None  # char_wb block, separately normalised, times this
    max_df: float | None = None
    chi2_k: int | None = None
    header_alpha: float | None = None  # CNB alpha of the header columns (body keeps alpha)
    poe: tuple[float, ...] = field(default=())  # CNB(0.3) + lam * MNB(0.1) joint log lik.


def features(spec: Spec, blocks, fit: np.ndarray, val: np.ndarray):
    """(A, B, is_header): transformed fitting and validation rows, header columns."""
    body = blocks[spec.body]
    if spec.quote_weight != 1:
        bare = blocks[f"{spec.body} without quotes"]
        body = bare + spec.quote_weight * (body - bare)
        body.data = np.maximum(body.data, 0.0)  # bigrams across a dropped line
    heads = [blocks[name] for name in ("subject", *spec.extra)]
    X = sp.hstack([body, *(spec.header_weight * h for h in heads)], format="csr")
    X.eliminate_zeros()
    is_header = np.arange(X.shape[1]) >= body.shape[1]
    df = np.bincount(X[fit].indices, minlength=X.shape[1])
    keep = df > 0
    if spec.max_df is not None:
        keep &= df <= spec.max_df * len(fit)
    X, is_header = X[:, keep], is_header[keep]
    A, B = _transform(spec, X[fit], X[val])
    if spec.char_weight is not None:
        C = blocks["char_wb 3-5"]
        C = C[:, np.bincount(C[fit].indices, minlength=C.shape[1]) > 0]
        CA, CB = _transform(replace(spec, tf=("log",), norm_power=1.0, pivot=None),
                            C[fit], C[val])  # fmt: skip
        A = sp.hstack([A, spec.char_weight * CA], format="csr")
        B = sp.hstack([B, spec.char_weight * CB], format="csr")
        is_header = np.concatenate([is_header, np.zeros(C.shape[1], bool)])
    return A, B, is_header


def _transform(spec: Spec, A: sp.csr_matrix, B: sp.csr_matrix):
    """TF saturation, IDF (from A), then length normalisation, of both row sets."""
    A, B = A.copy(), B.copy()
    if spec.tf[0] == "bm25":
        _, k1, b = spec.tf
        mean_len = A.sum(1).mean()
        for M in (A, B):
            length = np.repeat(np.asarray(M.sum(1)).ravel(), np.diff(M.indptr))
            M.data = M.data * (k1 + 1) / (M.data + k1 * (1 - b + b * length / mean_len))
    else:
        A.data, B.data = np.log1p(A.data), np.log1p(B.data)
    idf = np.log(A.shape[0] / np.bincount(A.indices, minlength=A.shape[1]))
    A, B = A @ sp.diags(idf), B @ sp.diags(idf)
    if spec.pivot is not None:
        mean_norm = row_norms(A, axis=1).mean()
        scale = [1 / ((1 - spec.pivot) + spec.pivot * row_norms(M, axis=1) / mean_norm)
                 for M in (A, B)]  # fmt: skip
        return tuple(sp.csr_matrix(sp.diags(s) @ M) for s, M in zip(scale, (A, B), strict=True))
    if spec.norm_power == 1:
        return normalize(A), normalize(B)
    return tuple(
        sp.csr_matrix(sp.diags(row_norms(M, axis=1) ** -spec.norm_power) @ M) for M in (A, B)
    )


# ---------------------------------------------------------------- models
def complement_weights(F: np.ndarray, alpha, norm: bool) -> np.ndarray:
    """ComplementNB's (n_classes, n_features) weights from class feature totals F."""
    comp = F.sum(0) - F + alpha
    logged = np.log(comp / comp.sum(1, keepdims=True))
    return logged / logged.sum(1, keepdims=True) if norm else -logged


def multinomial_jll(F, prior, alpha, B) -> np.ndarray:
    """MultinomialNB's joint log likelihood of rows B (empirical class prior)."""
    theta = np.log(F + alpha) - np.log(F.sum(1, keepdims=True) + alpha * F.shape[1])
    return np.asarray(B @ theta.T) + np.log(prior)


def sweep(A, y_fit, B, y_val, classes, is_header, spec: Spec) -> list[tuple[float, str, object]]:
    """(accuracy, model, alpha) for every model and alpha (and Spec's extras)."""
    Y = (y_fit[:, None] == classes[None, :]).astype(np.float64)
    F = np.asarray((sp.csr_matrix(Y.T) @ A).todense())
    prior = Y.mean(0)
    truth = np.searchsorted(classes, y_val)
    out = []

    def score(jll, model, alpha):
        out.append((float(np.mean(np.argmax(jll, 1) == truth)), model, alpha))

    if spec.header_alpha is not None:
        alpha = np.where(is_header, spec.header_alpha, 0.3)
        for norm in (False, True):
            score(B @ complement_weights(F, alpha, norm).T, "CNB(norm)" if norm else "CNB", 0.3)
        return out
    for alpha in CNB_ALPHAS:
        for norm in (False, True):
            score(B @ complement_weights(F, alpha, norm).T, "CNB(norm)" if norm else "CNB", alpha)
    for alpha in MNB_ALPHAS:
        score(multinomial_jll(F, prior, alpha, B), "MNB", alpha)
    if spec.poe:
        cnb = np.asarray(B @ complement_weights(F, 0.3, False).T)
        cnb = cnb - logsumexp(cnb, 1, keepdims=True)
        mnb = multinomial_jll(F, prior, 0.1, B)
        mnb = mnb - logsumexp(mnb, 1, keepdims=True)
        for lam in spec.poe:
            score(cnb + lam * mnb, "CNB(0.3)+lam*MNB(0.1)", lam)
    return out


def check(results, A, y_fit, B, y_val) -> None:
    """:func:`sweep`'s accuracies equal the nbayes estimators' on the same matrices."""
    for model, alpha, nb in (("CNB", 0.3, ComplementNB(alpha=0.3)),
                             ("CNB(norm)", 0.3, ComplementNB(alpha=0.3, norm=True)),
                             ("MNB", 0.1, MultinomialNB(alpha=0.1))):  # fmt: skip
        expected = float(np.mean(nb.fit(A, y_fit).predict(B) == y_val))
        got = next(r[0] for r in results if r[1:] == (model, alpha))
        if got != expected:
            raise AssertionError(f"sweep {model} {alpha}: {got} != nbayes {expected}")
    print("sweep == nbayes estimators (CNB, CNB(norm) 0.3, MNB 0.1)", flush=True)


def chi2_select(A, B, y_fit, k: int):
    """The k columns of highest chi-square score on the fitting rows."""
    scores = np.nan_to_num(chi2(A, y_fit)[0])
    top = np.sort(np.argsort(-scores, kind="stable")[:k])
    return A[:, top], B[:, top]


VARIANTS: dict[str, Spec] = {
    "chosen": Spec(poe=(0.25, 0.5, 1.0, 2.0)),
    **{f"quotes x{w}": Spec(quote_weight=w) for w in (0.0, 0.25, 0.5, 0.75, 1.5, 2.0)},
    **{f"BM25 k1={k1} b={b}": Spec(tf=("bm25", k1, b))
       for k1, b in ((0.5, 0.75), (1.2, 0.75), (2.0, 0.75), (1.2, 0.3), (1.2, 1.0))},
    **{f"L2 norm ** {p}": Spec(norm_power=p) for p in (0.5, 0.75)},
    **{f"pivoted norm, s={s}": Spec(pivot=s) for s in (0.5, 0.8)},
    **{f"+char_wb 3-5 x{w}": Spec(char_weight=w) for w in (0.25, 0.5, 1.0)},
    **{name: Spec(body=name) for name in list(BODIES)[1:5]},
    **{f"max_df {d}": Spec(max_df=d) for d in (0.5, 0.2)},
    **{f"chi2 top {k // 1000}k": Spec(chi2_k=k) for k in (100_000, 300_000)},
    **{f"header alpha {a}": Spec(header_alpha=a) for a in (0.1, 1.0, 3.0)},
    **{f"+{f.title()}": Spec(extra=(f,)) for f in EXTRA_FIELDS},
}  # fmt: skip


#: step 2: one change at a time from step 1's winner (the body without a stop-word list)
BASE = Spec(body="body, no stop-word list")
STEP2: dict[str, Spec] = {
    "no stop-word list": replace(BASE, poe=(0.25, 0.5, 1.0)),
    **{f"no stop-word list, quotes x{w}": replace(BASE, quote_weight=w) for w in (0.75, 1.5)},
    **{f"no stop-word list, Subject x{w}": replace(BASE, header_weight=w) for w in (2.0, 4.0)},
    **{f"no stop-word list, +char_wb 3-5 x{w}": replace(BASE, char_weight=w)
       for w in (0.25, 0.5)},
    **{name.replace("body, ", ""): replace(BASE, body=name) for name in list(BODIES)[5:]},
    "no stop-word list, BM25 k1=1.2 b=0.3": replace(BASE, tf=("bm25", 1.2, 0.3)),
    "no stop-word list, BM25 k1=2.0 b=0.75": replace(BASE, tf=("bm25", 2.0, 0.75)),
    "no stop-word list, L2 norm ** 0.75": replace(BASE, norm_power=0.75),
    "no stop-word list, header alpha 1.0": replace(BASE, header_alpha=1.0),
    "no stop-word list, +Keywords": replace(BASE, extra=("keywords",)),
}  # fmt: skip
STEPS = {1: VARIANTS, 2: STEP2}


def run(docs, y, paths, cache: Path, variants: dict[str, Spec]) -> list[tuple]:
    """Rows (val, mean of folds, variant, model, alpha, per-fold accuracies)."""
    blocks = build_blocks(docs, cache)
    classes = np.unique(y)
    folds = {name: windows(paths, *bounds) for name, bounds in FOLDS.items()}
    rows = []
    for name, spec in variants.items():
        t, per_fold = time.perf_counter(), []
        if spec.extra and blocks[spec.extra[0]].shape[1] == 0:
            print(f"{name}: no post has the field", flush=True)
            continue
        for fit, val in folds.values():
            A, B, is_header = features(spec, blocks, fit, val)
            if spec.chi2_k is not None:
                A, B = chi2_select(A, B, y[fit], spec.chi2_k)
            per_fold.append(sweep(A, y[fit], B, y[val], classes, is_header, spec))
            if name == "chosen" and len(per_fold) == 1:
                check(per_fold[0], A, y[fit], B, y[val])
        for results in zip(*per_fold, strict=True):
            accs = [r[0] for r in results]
            rows.append((accs[0], float(np.mean(accs)), name, *results[0][1:], accs))
        best = max(r for r in rows if r[2] == name)
        print(f"{name}: best {best[0]:.4f} (mean {best[1]:.4f}, {best[3]} {best[4]}) "
              f"{time.perf_counter() - t:.0f} s", flush=True)  # fmt: skip
    return rows


def report(rows: list[tuple], step: int) -> str:
    """Markdown: the top 20 settings on validation, the top 10 on the mean of the three
    folds, and each variant's best setting on validation."""
    head = (
        "| validation | mean of 3 folds | val / mid / early | change from the chosen "
        "pipeline | model | alpha |\n|---|---|---|---|---|---|"
    )

    def line(r):
        folds = " / ".join(f"{a:.4f}" for a in r[5])
        return f"| {r[0]:.4f} | {r[1]:.4f} | {folds} | {r[2]} | {r[3]} | {r[4]} |"

    by_val = sorted(rows, key=lambda r: (-r[0], -r[1]))
    by_mean = sorted(rows, key=lambda r: (-r[1], -r[0]))
    best: dict[str, tuple] = {}
    for r in by_val:
        best.setdefault(r[2], r)
    parts = [
        f"Round 9, step {step}: validation (latest 20 % of each group's training posts), top 20 of "
        f"{len(rows)} settings:", "", head, *map(line, by_val[:20]), "",
        f"Round 9, step {step}: mean over the three time-ordered folds, top 10:", "", head,
        *map(line, by_mean[:10]), "",
        f"Round 9, step {step}: each change's best setting on validation:", "", head,
        *map(line, best.values()),
    ]  # fmt: skip
    return "\n".join(parts) + "\n"
