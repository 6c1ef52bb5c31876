"""Spam filter accuracy on every corpus at hand, nbayes against bogofilter in one run.

For each corpus of :mod:`spam_corpora` (and any TREC Spam Track index given with
``--index NAME=PATH``, read in place for measuring only), both filters see the same
messages (the same files) in the same protocol:

- **folds**: 10 stratified folds (seed 0), each fold scored by a filter trained on
  the other nine (a train/test split where the corpus has one), nbayes learning them
  in arrival order by its training mode; pooled 1-ROCA %;
- **incremental** (the TREC Spam Track's protocol): messages in the corpus's order, each
  scored by the filter trained on the messages before it, then trained on with its
  true label (bogofilter: ``-t`` then ``-s``/``-n`` per message); nbayes also with
  train-on-or-near-error (TONE).

nbayes runs in memory (:func:`nbayes.spam.evaluate.cross_val_scores_matrix` and
:func:`~nbayes.spam.evaluate.incremental_scores_matrix`: the store's counts without the
database, the same scoring function), ranking messages by the exact log-odds of their
scores; bogofilter (``bogofilter -d DIR``, default settings, a fresh database per fold
and per run) prints its spamicity with 17 decimals (``-T`` prints 6, which ties many
scores at 0 and 1). Reports 1-ROCA % and the spam caught at 0.1 % false positives.

Without ``--ablation``: nbayes's defaults (learning unless sure), full training, TONE
(in the incremental run), its defaults before issue 19's work, and bogofilter, per
corpus. With ``--ablation``:
the nbayes variants of :data:`ABLATION`, each changing one choice of the defaults,
compared with bogofilter's rows of ``--bogofilter-cache`` (which the per-corpus run
writes). ``--write`` puts each into its own section of ``bench/RESULTS_spam.md``,
between this script's markers. Run::

    nice .venv/bin/python bench/spam_accuracy.py --bogofilter-cache /tmp/bogo.json --write
    nice .venv/bin/python bench/spam_accuracy.py --ablation --bogofilter-cache /tmp/bogo.json \\
        --write

(with ``--index NAME=PATH`` for each further corpus; about an hour each on 2 CPUs,
bogofilter's incremental runs, one process pair a message, the longest part).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from unittest import mock

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).parent))

from spam_corpora import Corpus, indexed_corpus, shared_corpora
from spam_data import write_section

from nbayes.spam.evaluate import (
    cross_val_scores_matrix,
    evaluate_scores,
    fold_indices,
    incremental_scores_matrix,
)
from nbayes.spam.learning import DEFAULT_CERTAINTY
from nbayes.spam.parse import MailParseError
from nbayes.spam.score import ScoreSettings, token_matrix
from nbayes.spam.tokens import TokenOptions, tokenize

FOLDS = 10
BOGOFILTER_FORMAT = ["-t", "--terse-format=%1.1c %p", "--spamicity-formats=%.17f,%.17f,%.17f"]


@dataclass(frozen=True)
class Variant:
    """One nbayes configuration: tokenizer options, scoring settings, the training mode
    (:mod:`nbayes.spam.learning`: ``unless-sure`` with its certainty, ``everything``;
    TONE with its thick threshold in the incremental run only), and whether mail
    without a blank line after its headers is read as such (``separatorless``; False:
    as the ``email`` package reads it, every header-like line a header)."""

    tokens: TokenOptions = field(default_factory=TokenOptions)
    settings: ScoreSettings = field(default_factory=ScoreSettings)
    mode: str = "unless-sure"
    certainty: float = DEFAULT_CERTAINTY
    tone: bool = False
    thick: float = 0.0
    separatorless: bool = True

    @property
    def learning(self) -> dict:
        return {"mode": self.mode, "certainty": self.certainty}


EARLIER = Variant(
    TokenOptions(osb=0, headers="named"),
    replace(ScoreSettings(), min_dev=0.45, maturity=0),
    mode="everything",
    separatorless=False,
)
_S = ScoreSettings()
#: The per-corpus table: the defaults, untempered, full training, TONE, and the
#: defaults before the work of issue 19.
MAIN = {
    "nbayes": Variant(),
    "nbayes, untempered": Variant(settings=replace(_S, maturity=0)),
    "nbayes, full training": Variant(mode="everything"),
    "nbayes, TONE": Variant(tone=True),
    "nbayes before": EARLIER,
}
#: The ablation: each choice of the defaults changed alone.
ABLATION = {
    "default": Variant(),
    "full training (mode everything)": Variant(mode="everything"),
    "certainty 50": Variant(certainty=50.0),
    "certainty 200": Variant(certainty=200.0),
    "maturity 0 (untempered)": Variant(settings=replace(_S, maturity=0)),
    "maturity 30": Variant(settings=replace(_S, maturity=30)),
    "maturity 100": Variant(settings=replace(_S, maturity=100)),
    "words only (osb 0)": Variant(TokenOptions(osb=0)),
    "osb 3": Variant(TokenOptions(osb=3)),
    "osb 5": Variant(TokenOptions(osb=5)),
    "headers named": Variant(TokenOptions(headers="named")),
    "headers plain": Variant(TokenOptions(headers="plain")),
    "no separator-less reading": Variant(separatorless=False),
    "TONE": Variant(tone=True),
    "TONE, thick 0.1": Variant(tone=True, thick=0.1),
    "s 0.0178 (bogofilter's)": Variant(settings=replace(_S, strength=0.0178)),
    "s 0.45": Variant(settings=replace(_S, strength=0.45)),
    "x 0.5": Variant(settings=replace(_S, background=0.5)),
    "min_dev 0.3": Variant(settings=replace(_S, min_dev=0.3)),
    "min_dev 0.45 (before)": Variant(settings=replace(_S, min_dev=0.45)),
    "before (osb 0, named, min_dev 0.45)": EARLIER,
}


@dataclass
class Row:
    corpus: str
    filter: str
    protocol: str
    one_minus_roca: float
    caught: float


def token_matrix_of(corpus: Corpus, variant: Variant, cache: dict) -> sp.csr_matrix:
    """The corpus's binary token matrix under the variant's tokenizer (cached per tokenizer)."""
    key = (variant.tokens, variant.separatorless)
    if key not in cache:
        reading = contextlib.nullcontext()
        if not variant.separatorless:
            reading = mock.patch("nbayes.spam.parse.with_separator", lambda raw: raw)
        sets = []
        with reading:
            for path in corpus.files:
                try:
                    sets.append(tokenize(path.read_bytes(), variant.tokens))
                except MailParseError:
                    sets.append(set())
        cache[key] = token_matrix(sets)[0]
    return cache[key]


def nbayes_rows(corpus: Corpus, name: str, variant: Variant, cache: dict) -> list[Row]:
    X = token_matrix_of(corpus, variant, cache)
    y, settings = corpus.y, variant.settings
    if corpus.test is not None:  # a split; incremental runs are on the whole corpus
        if variant.tone:
            return []
        scores = _split_scores(X, y, corpus.order, corpus.test, settings, variant)
        return [_row(corpus, name, "split", y[corpus.test], scores)]
    rows = []
    # every protocol learns in arrival order, the folds' training messages too; the
    # folds are bogofilter's (drawn on the corpus's own order), their rows renumbered
    folds = fold_indices(y, FOLDS, seed=0)
    X, y = sp.csr_matrix(X)[corpus.order], y[corpus.order]
    position = np.empty(len(y), dtype=np.intp)
    position[corpus.order] = np.arange(len(y))
    if not variant.tone:
        folds = [np.sort(position[test]) for test in folds]
        scores = cross_val_scores_matrix(X, y, settings, folds, log_odds=True, **variant.learning)
        rows.append(_row(corpus, name, "folds", y, scores))
    scores, _ = incremental_scores_matrix(
        X, y, settings, tone=variant.tone, thick=variant.thick, log_odds=True,
        **variant.learning,
    )  # fmt: skip
    rows.append(_row(corpus, name, "incremental", y, scores))
    return rows


def _split_scores(
    X, y, order: np.ndarray, test: np.ndarray, settings: ScoreSettings, variant: Variant
) -> np.ndarray:
    """Scores of the ``test`` messages by a filter trained on the others, in arrival
    ``order``: the folds' code with one fold."""
    X, y = sp.csr_matrix(X)[order], y[order]
    position = np.empty(len(order), dtype=np.intp)
    position[order] = np.arange(len(order))
    held_out = np.sort(position[test])
    scores = cross_val_scores_matrix(X, y, settings, [held_out], log_odds=True, **variant.learning)
    out = np.empty(len(order))
    out[order] = scores
    return out[test]


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
PROTOCOLS = (
    ("folds", "10 stratified folds, pooled"),
    (
        "split",
        "learnt on earlier mail (spam, easy_ham), tested on later (spam_2, easy_ham_2, hard_ham)",
    ),
    ("incremental", "incremental, in arrival order (TREC): each message scored, then learnt"),
)


def table(rows: list[Row], protocol: str, caught: bool = True) -> list[str]:
    """Corpora as rows, filters as columns: 1-ROCA % (and spam caught at 0.1 % FPR)."""
    filters = list(dict.fromkeys(r.filter for r in rows if r.protocol == protocol))
    corpora = list(dict.fromkeys(r.corpus for r in rows if r.protocol == protocol))
    by = {(r.corpus, r.filter): r for r in rows if r.protocol == protocol}
    lines = ["| corpus | " + " | ".join(filters) + " |", "|---|" + "---:|" * len(filters)]
    for corpus in corpora:
        cells = []
        for f in filters:
            r = by.get((corpus, f))
            cell = "" if r is None else f"{r.one_minus_roca:.4f}"
            if r is not None and caught:
                cell += f" ({r.caught:.1f})"
            cells.append(cell)
        lines.append(f"| {corpus} | " + " | ".join(cells) + " |")
    return lines


def against_bogofilter(rows: list[Row], protocols=("folds", "split", "incremental")) -> list[str]:
    """Per filter: on how many corpora its 1-ROCA is at or below bogofilter's (per
    protocol), and the geometric mean of its 1-ROCA over bogofilter's."""
    bogo = {(r.corpus, r.protocol): r.one_minus_roca for r in rows if r.filter == "bogofilter"}
    filters = [f for f in dict.fromkeys(r.filter for r in rows) if f != "bogofilter"]
    head = " | ".join(
        f"{p}: at or below bogofilter | {p}: ratio (geometric mean)" for p in protocols
    )
    lines = [f"| nbayes | {head} |", "|---|" + "---:|---:|" * len(protocols)]
    for f in filters:
        cells = []
        for p in protocols:
            pairs = [(r.one_minus_roca, bogo[(r.corpus, p)]) for r in rows
                     if r.filter == f and r.protocol == p and (r.corpus, p) in bogo]  # fmt: skip
            if not pairs:
                cells += ["", ""]
                continue
            wins = sum(ours <= theirs for ours, theirs in pairs)
            ratio = np.exp(np.mean([np.log(ours / theirs) for ours, theirs in pairs]))
            cells += [f"{wins} of {len(pairs)}", f"{ratio:.2f}"]
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument(
        "--ablation", action="store_true", help="the ablation's nbayes variants (no bogofilter "
        "run: its rows from --bogofilter-cache where given, for the comparison)",
    )  # fmt: skip
    parser.add_argument("--only", action="append", help="corpus names to run (substring)")
    parser.add_argument("--no-bogofilter", action="store_true")
    parser.add_argument("--write", action="store_true", help="write bench/RESULTS_spam.md")
    parser.add_argument(
        "--bogofilter-cache",
        type=Path,
        help="JSON file of bogofilter's rows: read where it has the corpus, else written",
    )
    args = parser.parse_args()
    variants = ABLATION if args.ablation else MAIN
    started = time.strftime("%Y-%m-%d %H:%M")
    load = os.getloadavg()[0]
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
            for name, variant in variants.items():
                new = nbayes_rows(corpus, name, variant, cache)
                _print(new)
                rows += new
            if args.ablation and args.bogofilter_cache is not None:
                known = json.loads(args.bogofilter_cache.read_text())
                rows += [Row(**r) for r in known.get(corpus.name, [])]
            elif not args.no_bogofilter and not args.ablation:
                new = _cached_bogofilter_rows(corpus, tmp, args.bogofilter_cache)
                _print(new)
                rows += new
    command = " ".join(["nice .venv/bin/python bench/spam_accuracy.py", *sys.argv[1:]])
    lines = [
        f"`{_anonymous(command)}`: {started}, Python {platform.python_version()}, "
        f"{_bogofilter_version()}, load average {load:.1f} at the start.",
        "",
    ]
    if args.ablation:
        intro = "Each row changes one choice of the defaults; 1-ROCA % against bogofilter's"
        lines += [f"{intro} (its rows of the per-corpus run):", "", *against_bogofilter(rows), ""]
        shown = [r for r in rows if r.filter != "bogofilter"]
        for protocol, title in PROTOCOLS:
            if any(r.protocol == protocol for r in shown):
                lines += [f"**{title}**, 1-ROCA %", "", *_transposed(shown, protocol), ""]
    else:
        lines += ["Cells: 1-ROCA % (spam caught at 0.1 % false positives, %).", ""]
        for protocol, title in PROTOCOLS:
            if any(r.protocol == protocol for r in rows):
                lines += [f"**{title}**", "", *table(rows, protocol), ""]
        lines += ["At or below bogofilter's 1-ROCA:", "", *against_bogofilter(rows), ""]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(f"spam_accuracy.py {'ablation' if args.ablation else 'corpora'}", text)


def _anonymous(command: str) -> str:
    """The command with the local paths of --index corpora left out (NAME=PATH -> NAME=...)."""
    return re.sub(r"(--index \S+?)=\S+", r"\1=...", command)


def _transposed(rows: list[Row], protocol: str) -> list[str]:
    """Variants as rows, corpora as columns (short names), 1-ROCA % only."""
    corpora = list(dict.fromkeys(r.corpus for r in rows if r.protocol == protocol))
    filters = list(dict.fromkeys(r.filter for r in rows if r.protocol == protocol))
    by = {(r.corpus, r.filter): r.one_minus_roca for r in rows if r.protocol == protocol}
    short = [SHORT.get(c, c) for c in corpora]
    lines = ["| variant | " + " | ".join(short) + " |", "|---|" + "---:|" * len(corpora)]
    for f in filters:
        cells = [f"{by[(c, f)]:.4f}" if (c, f) in by else "" for c in corpora]
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    return lines


SHORT = {
    "SpamAssassin": "SA",
    "SpamAssassin, later mail": "SA later",
    "SpamAssassin, preprocessed": "SA prep.",
    "SpamAssassin, body only": "SA body",
}


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


if __name__ == "__main__":
    main()
