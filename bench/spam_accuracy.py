"""Spam filter accuracy on every corpus at hand, nbayes against bogofilter in one run.

For each corpus of :mod:`spam_corpora` (and any TREC Spam Track index given with
``--index NAME=PATH``, read in place for measuring only), both filters see the same
messages (the same files) in the same protocol:

- **folds**: 10 stratified folds (seed 0), each fold scored by a filter trained on
  the other nine (a train/test split where the corpus has one); pooled 1-ROCA %;
- **incremental** (the TREC Spam Track's protocol): messages in the corpus's order, each
  scored by the filter trained on the messages before it, then trained on with its
  true label (bogofilter: ``-t`` then ``-s``/``-n`` per message); nbayes also with
  train-on-or-near-error (TONE).

nbayes runs in memory (:func:`nbayes.spam.evaluate.cross_val_scores_matrix` and
:func:`~nbayes.spam.evaluate.incremental_scores`: the store's counts without the
database, the same scoring function); bogofilter (``bogofilter -d DIR``, default
settings, a fresh database per fold and per run) prints its spamicity with 17 decimals
(``-T`` prints 6, which ties many scores at 0 and 1). Reports 1-ROCA % and the spam
caught at 0.1 % false positives.

``--variant NAME`` (repeatable) picks nbayes configurations of :data:`VARIANTS` (the
ablation); ``--write`` puts the tables into ``bench/RESULTS_spam.md`` between this
script's markers. Run: ``nice .venv/bin/python bench/spam_accuracy.py --write``
(about half an hour with bogofilter's incremental runs; ``--no-bogofilter`` for the
nbayes rows alone).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from spam_corpora import Corpus, indexed_corpus, shared_corpora

from nbayes.spam.evaluate import (
    cross_val_scores_matrix,
    evaluate_scores,
    fold_indices,
    incremental_scores,
)
from nbayes.spam.parse import MailParseError
from nbayes.spam.score import ScoreSettings, score_matrix, token_matrix
from nbayes.spam.store import Totals
from nbayes.spam.tokens import TokenOptions, tokenize

RESULTS = Path(__file__).parent / "RESULTS_spam.md"
BEGIN, END = "<!-- spam_accuracy.py: begin -->", "<!-- spam_accuracy.py: end -->"
FOLDS = 10
BOGOFILTER_FORMAT = ["-t", "--terse-format=%1.1c %p", "--spamicity-formats=%.17f,%.17f,%.17f"]


@dataclass(frozen=True)
class Variant:
    """One nbayes configuration: tokenizer options and scoring settings."""

    tokens: TokenOptions = field(default_factory=TokenOptions)
    settings: ScoreSettings = field(default_factory=ScoreSettings)
    thick: float = 0.0


VARIANTS: dict[str, Variant] = {
    "default": Variant(),
}


@dataclass
class Row:
    corpus: str
    filter: str
    protocol: str
    one_minus_roca: float
    caught: float


def token_sets(corpus: Corpus, options: TokenOptions) -> list[frozenset[str]]:
    out = []
    for path in corpus.files:
        try:
            out.append(frozenset(tokenize(path.read_bytes(), options)))
        except MailParseError:
            out.append(frozenset())
    return out


def nbayes_rows(corpus: Corpus, name: str, variant: Variant, cache: dict) -> list[Row]:
    key = variant.tokens
    if key not in cache:
        cache[key] = token_sets(corpus, variant.tokens)
    sets = cache[key]
    y, settings = corpus.y, variant.settings
    rows = []
    X, _ = token_matrix(sets)
    if corpus.test is None:
        scores = cross_val_scores_matrix(
            X, y, settings, fold_indices(y, FOLDS, seed=0), log_odds=True
        )
        rows.append(_row(corpus, name, "folds", y, scores))
    else:
        rows.append(
            _row(corpus, name, "split", y[corpus.test], _split_scores(X, y, corpus.test, settings))
        )
    if corpus.test is not None:  # the same messages as the whole corpus: incremental there
        return rows
    ordered = [sets[i] for i in corpus.order]
    y_ordered = y[corpus.order]
    for tone in (False, True):
        scores, _ = incremental_scores(
            ordered, y_ordered, settings, tone=tone, thick=variant.thick, log_odds=True
        )
        label = f"{name}, TONE" if tone else name
        rows.append(_row(corpus, label, "incremental", y_ordered, scores))
    return rows


def _split_scores(X, y, test: np.ndarray, settings: ScoreSettings) -> np.ndarray:
    train = np.ones(len(y), dtype=bool)
    train[test] = False
    onehot = np.column_stack([y == 0, y == 1]).astype(np.float64)
    counts = np.asarray(X[train].T @ onehot[train]).astype(np.int64)
    sizes = np.asarray(X.sum(axis=1)).ravel()
    totals = Totals(
        tuple(int(n) for n in onehot[train].sum(axis=0)),
        tuple(int(n) for n in onehot[train].T @ sizes[train]),
        int(np.count_nonzero(counts.sum(axis=1))),
    )
    return score_matrix(X[test], counts, totals, settings, log_odds=True)


def _row(corpus: Corpus, name: str, protocol: str, y, scores) -> Row:
    e = evaluate_scores(y, scores, ScoreSettings())
    return Row(corpus.name, name, protocol, e.one_minus_roca, 100 * e.caught_at_01)


# ---------------------------------------------------------------- bogofilter
def bogofilter(directory: Path, args: list[str], stdin: str = "") -> str:
    return subprocess.run(
        ["bogofilter", "-d", str(directory), *args],
        input=stdin, capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip


def _bogo_train(directory: Path, files: list[Path], y: np.ndarray, idx) -> None:
    for flag, label in (("-s", 1), ("-n", 0)):
        names = "".join(f"{files[i]}\n" for i in idx if y[i] == label)
        bogofilter(directory, [flag, "-b"], names)


def _bogo_score(directory: Path, files: list[Path], idx) -> np.ndarray:
    """Spamicities in input order (``-t`` prints one line a message, without its name)."""
    out = bogofilter(directory, [*BOGOFILTER_FORMAT, "-b"], "".join(f"{files[i]}\n" for i in idx))
    scores = [float(line.split()[1]) for line in out.splitlines()]
    if len(scores) != len(idx):
        raise RuntimeError(f"bogofilter scored {len(scores)} of {len(idx)} messages")
    return np.array(scores)


def bogofilter_rows(corpus: Corpus, tmp: Path) -> list[Row]:
    files, y = corpus.files, corpus.y
    rows = []
    n = len(y)
    if corpus.test is None:
        scores = np.empty(n)
        for k, test in enumerate(fold_indices(y, FOLDS, seed=0)):
            directory = tmp / f"bogo-fold{k}"
            directory.mkdir()
            _bogo_train(directory, files, y, np.setdiff1d(np.arange(n), test))
            scores[test] = _bogo_score(directory, files, test)
            shutil.rmtree(directory)
        rows.append(_row(corpus, "bogofilter", "folds", y, scores))
    else:
        directory = tmp / "bogo-split"
        directory.mkdir()
        _bogo_train(directory, files, y, np.setdiff1d(np.arange(n), corpus.test))
        scores = _bogo_score(directory, files, corpus.test)
        shutil.rmtree(directory)
        rows.append(_row(corpus, "bogofilter", "split", y[corpus.test], scores))
        return rows
    directory = tmp / "bogo-incremental"
    directory.mkdir()
    scores = np.empty(n)
    for j, i in enumerate(corpus.order):
        out = bogofilter(directory, [*BOGOFILTER_FORMAT, "-I", str(files[i])])
        scores[j] = float(out.split()[1]) if out.strip() else 0.5
        bogofilter(directory, ["-s" if y[i] else "-n", "-I", str(files[i])])
    shutil.rmtree(directory)
    rows.append(_row(corpus, "bogofilter", "incremental", y[corpus.order], scores))
    return rows


# ---------------------------------------------------------------- tables
def table(rows: list[Row], protocol: str) -> list[str]:
    filters = list(dict.fromkeys(r.filter for r in rows if r.protocol == protocol))
    corpora = list(dict.fromkeys(r.corpus for r in rows if r.protocol == protocol))
    by = {(r.corpus, r.filter): r for r in rows if r.protocol == protocol}
    head = "| corpus | " + " | ".join(filters) + " |"
    lines = [head, "|---|" + "---:|" * len(filters)]
    for corpus in corpora:
        cells = []
        for f in filters:
            r = by.get((corpus, f))
            cells.append("" if r is None else f"{r.one_minus_roca:.4f} ({r.caught:.1f})")
        lines.append(f"| {corpus} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--variant", action="append", choices=list(VARIANTS))
    parser.add_argument("--only", action="append", help="corpus names to run (substring)")
    parser.add_argument("--no-bogofilter", action="store_true")
    parser.add_argument("--write", action="store_true", help="write bench/RESULTS_spam.md")
    parser.add_argument(
        "--bogofilter-cache",
        type=Path,
        help="JSON file of bogofilter's rows: read where it has the corpus, else written "
        "(for trying nbayes variants; a --write run should start without one)",
    )
    args = parser.parse_args()
    variants = args.variant or ["default"]
    started = time.strftime("%Y-%m-%d %H:%M")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        corpora = shared_corpora(tmp)
        for spec in args.index:
            name, _, path = spec.partition("=")
            corpora.append(indexed_corpus(name, Path(path)))
        if args.only:
            corpora = [c for c in corpora if any(o in c.name for o in args.only)]
        for corpus in corpora:
            cache: dict = {}
            for name in variants:
                new = nbayes_rows(corpus, name, VARIANTS[name], cache)
                _print(new)
                rows += new
            if not args.no_bogofilter:
                new = _cached_bogofilter_rows(corpus, tmp, args.bogofilter_cache)
                _print(new)
                rows += new
    lines = [
        f"`bench/spam_accuracy.py`, {started}, Python {platform.python_version()}, "
        f"{_bogofilter_version()}; cells: 1-ROCA % (spam caught at 0.1 % FPR, %).",
        "",
    ]
    for protocol, title in (
        ("folds", "10 stratified folds, pooled"),
        ("split", "trained on earlier mail, tested on later mail"),
        ("incremental", "incremental, in order (TREC)"),
    ):
        if any(r.protocol == protocol for r in rows):
            lines += [f"**{title}**", "", *table(rows, protocol), ""]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(text)


def _cached_bogofilter_rows(corpus: Corpus, tmp: Path, cache: Path | None) -> list[Row]:
    known = json.loads(cache.read_text()) if cache is not None and cache.exists() else {}
    if corpus.name in known:
        return [Row(**r) for r in known[corpus.name]]
    rows = bogofilter_rows(corpus, tmp)
    if cache is not None:
        known[corpus.name] = [asdict(r) for r in rows]
        cache.write_text(json.dumps(known, indent=1))
    return rows


def _print(rows: list[Row]) -> None:
    for r in rows:
        print(f"{r.corpus:32s} {r.protocol:12s} {r.filter:28s} {r.one_minus_roca:8.4f} "
              f"{r.caught:6.1f} (load {os.getloadavg()[0]:.1f})", flush=True)  # fmt: skip


def _bogofilter_version() -> str:
    try:
        return subprocess.run(["bogofilter", "-V"], capture_output=True, text=True).stdout.split(
            "\n"
        )[0]
    except OSError:
        return "no bogofilter"


def write_section(text: str) -> None:
    """Replace the text between this script's markers in RESULTS_spam.md."""
    results = RESULTS.read_text()
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in results:
        results = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, results,
                         flags=re.S)  # fmt: skip
    else:
        results = results.rstrip("\n") + "\n\n" + block + "\n"
    RESULTS.write_text(results)


if __name__ == "__main__":
    main()
