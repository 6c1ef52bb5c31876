"""The spam filter at another git revision against the working tree, in one process.

CPU time (``time.process_time``) per message, the two versions run alternately
``--repeats`` times, medians: tokenizing (parse + tokens) SpamAssassin (every second
message) and the SMS Spam Collection, and one fold of scenario G (SpamAssassin, every
second message, first of 5 folds) trained into a fresh store and scored in one process
(``jobs=0``), as ``bench/spam_vs_bogofilter.py`` does. The token sets of both versions
are compared (``same tokens``). Run:
``.venv/bin/python bench/spam_revisions.py main`` (any git revision).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.revisions import export_revision
from bench.spam_data import DATA, spamassassin

MODULES = ("parse", "tokens", "store", "score", "train", "parallel", "sources")


def spam_modules(src: str | None) -> SimpleNamespace:
    """nbayes.spam's modules from ``src`` (an exported revision) or the working tree."""
    saved = {k: v for k, v in sys.modules.items() if k == "nbayes" or k.startswith("nbayes.")}
    if src is not None:
        for key in saved:
            del sys.modules[key]
        sys.path.insert(0, src)
    try:
        return SimpleNamespace(**{m: importlib.import_module(f"nbayes.spam.{m}") for m in MODULES})
    finally:
        if src is not None:
            sys.path.remove(src)
            for key in [k for k in sys.modules if k == "nbayes" or k.startswith("nbayes.")]:
                del sys.modules[key]
            sys.modules.update(saved)


def token_sets(spam: SimpleNamespace, raws: list[bytes]) -> list[set[str] | None]:
    out = []
    for raw in raws:
        try:
            out.append(spam.tokens.tokenize(raw))
        except spam.parse.MailParseError:
            out.append(None)
    return out


def fold(spam: SimpleNamespace, train_items, test_raws) -> tuple[float, float, np.ndarray]:
    """CPU seconds to train a fresh store and to score, and the scores."""
    settings = spam.score.ScoreSettings()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.process_time()
        with spam.store.TokenStore(Path(tmp) / "s.db") as store:
            items = ((spam.sources.MailItem(str(i), raw), label) for i, raw, label in train_items)
            spam.train.train(store, items, on_error=lambda *_: None, jobs=0)
        trained = time.process_time()
        with spam.store.TokenStore(Path(tmp) / "s.db") as store:
            sets = [t for t in token_sets(spam, test_raws) if t is not None]
            scores = np.concatenate(
                [
                    spam.score.score_tokens(store, sets[i : i + 500], settings)
                    for i in range(0, len(sets), 500)
                ]
            )
        return trained - start, time.process_time() - trained, scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    versions = {
        args.revision: spam_modules(str(export_revision(args.revision))),
        "working tree": spam_modules(None),
    }
    from nbayes.spam.evaluate import fold_indices

    files, y = spamassassin()
    files, y = files[::2], y[::2]
    sa = [f.read_bytes() for f in files]
    lines = (DATA / "sms_spam_collection" / "SMSSpamCollection").read_bytes().splitlines()
    sms = [b"\n" + line.partition(b"\t")[2] + b"\n" for line in lines]
    test = fold_indices(y, 5, seed=0)[0]
    train_items = [(i, sa[i], ("ham", "spam")[y[i]]) for i in np.setdiff1d(np.arange(len(y)), test)]
    test_raws = [sa[i] for i in test]
    sets = {name: token_sets(spam, sa) + token_sets(spam, sms) for name, spam in versions.items()}
    first, second = sets.values()
    print(f"same tokens: {first == second} ({len(first)} messages)")
    times: dict[str, dict[str, list[float]]] = {name: {} for name in versions}
    scores = {}
    for _ in range(args.repeats):
        for name, spam in versions.items():
            got = times[name]
            for label, raws in (("tokenize SpamAssassin", sa), ("tokenize SMS", sms)):
                start = time.process_time()
                token_sets(spam, raws)
                got.setdefault(label, []).append((time.process_time() - start) / len(raws))
            t_train, t_score, scores[name] = fold(spam, train_items, test_raws)
            got.setdefault("G fold: train", []).append(t_train / len(train_items))
            got.setdefault("G fold: score", []).append(t_score / len(test_raws))
    a, b = scores.values()
    print(f"same scores: {np.allclose(a, b, rtol=0, atol=1e-12)}")
    print(f"CPU ms per message, median of {args.repeats} (alternating):")
    for label in times[args.revision]:
        old = statistics.median(times[args.revision][label]) * 1000
        new = statistics.median(times["working tree"][label]) * 1000
        print(
            f"  {label:24s} {args.revision}: {old:.4f}  working tree: {new:.4f}  ({new / old:.2f}x)"
        )


if __name__ == "__main__":
    main()
