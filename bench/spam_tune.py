"""Choose the spam filter's default scoring settings by 10-fold cross-validation.

Grid over the combining method, Robinson's strength s and background x, and the
minimum deviation, on SpamAssassin and the SMS Spam Collection (the folds of
``bench/spam_vs_bogofilter.py``); then the confusion counts for a few cutoff pairs.
Run: ``.venv/bin/python bench/spam_tune.py`` (about a minute or two).
"""

from __future__ import annotations

import itertools
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from spam_data import sms_as_files, spamassassin

from nbayes.spam.evaluate import cross_val_scores_matrix, evaluate_scores, fold_indices
from nbayes.spam.score import ScoreSettings, token_matrix
from nbayes.spam.tokens import tokenize

GRID = {
    "method": ["fisher", "graham"],
    "strength": [0.0178, 0.1, 0.45, 1.0],
    "background": [0.5, 0.52],
    "min_dev": [0.0, 0.1, 0.2, 0.3, 0.375, 0.45],
}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        sets = {"spamassassin": spamassassin(), "sms": sms_as_files(Path(tmp) / "sms")}
        data = {}
        for name, (files, y) in sets.items():
            X, _ = token_matrix([tokenize(f.read_bytes()) for f in files])
            data[name] = (X, y, fold_indices(y, 10, seed=0))
    rows = []
    for values in itertools.product(*GRID.values()):
        settings = ScoreSettings(**dict(zip(GRID, values, strict=True)))
        result = []
        for X, y, folds in data.values():
            e = evaluate_scores(y, cross_val_scores_matrix(X, y, settings, folds), settings)
            result += [e.one_minus_roca, e.caught_at_01]
        rows.append((values, result))
    for name, (X, y, folds) in data.items():
        settings = ScoreSettings(method="naive-bayes")
        e = evaluate_scores(y, cross_val_scores_matrix(X, y, settings, folds), settings)
        print(
            f"naive-bayes on {name}: 1-ROCA {e.one_minus_roca:.4f} %, "
            f"caught@0.1% {100 * e.caught_at_01:.2f} %"
        )
    # rank by 1-ROCA relative to each set's best, summed over the sets
    best_sa = min(r[1][0] for r in rows)
    best_sms = min(r[1][2] for r in rows)
    rows.sort(key=lambda r: r[1][0] / best_sa + r[1][2] / best_sms)
    print("method  s  x  min_dev | SA 1-ROCA% SA caught@0.1% | SMS 1-ROCA% SMS caught@0.1%")
    for values, r in rows[:20]:
        print(*values, "|", f"{r[0]:.4f} {100 * r[1]:.2f} | {r[2]:.4f} {100 * r[3]:.2f}")
    best = dict(zip(GRID, rows[0][0], strict=True))
    print("best:", best)
    X, y, folds = data["spamassassin"]
    scores = cross_val_scores_matrix(X, y, ScoreSettings(**best), folds)
    for ham_cut, spam_cut in [(0.1, 0.9), (0.2, 0.9), (0.2, 0.95), (0.3, 0.95), (0.45, 0.99)]:
        e = evaluate_scores(
            y, scores, ScoreSettings(**best, ham_cutoff=ham_cut, spam_cutoff=spam_cut)
        )
        c = e.confusion
        print(
            f"cutoffs {ham_cut}/{spam_cut}: ham->Spam {c[('ham', 'Spam')]} "
            f"ham->Unsure {c[('ham', 'Unsure')]} spam->Ham {c[('spam', 'Ham')]} "
            f"spam->Unsure {c[('spam', 'Unsure')]}"
        )


if __name__ == "__main__":
    main()
