"""CPU milliseconds per message of each stage of the spam filter, in one process.

On SpamAssassin's fold 0 (the folds of ``bench/spam_vs_bogofilter.py``): the store
trained on the other nine folds, then for the 605 test messages, each stage timed
with the process CPU clock (``time.process_time``, which other jobs on a shared
machine disturb less than the wall clock), the best of ``--repeats`` runs: read
(file bytes), parse (``parse_mail``), tokenize (``mail_tokens``), matrix (token
sets to the binary matrix), lookup (the store's counts), combine (Fisher), output
(the ``score`` command's lines). Run: ``.venv/bin/python bench/spam_stages.py``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from spam_data import spamassassin

from nbayes.spam.evaluate import fold_indices
from nbayes.spam.parse import MailParseError, parse_mail
from nbayes.spam.score import ScoreSettings, score_matrix, token_matrix
from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import mail_tokens, tokenize

SETTINGS = ScoreSettings()


def best(fn, repeats: int) -> tuple[float, object]:
    """Smallest CPU seconds of ``repeats`` calls of fn, and its result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    files, y = spamassassin()
    test = fold_indices(y, 10, seed=0)[0]
    train = np.setdiff1d(np.arange(len(y)), test)
    with tempfile.TemporaryDirectory() as tmp, TokenStore(Path(tmp) / "s.db") as store:
        learnt = []
        for i in train:
            raw = files[i].read_bytes()
            try:
                learnt.append((tokenize(raw), raw, ("ham", "spam")[y[i]]))
            except MailParseError:
                pass
        store.learn(learnt)
        names = [str(files[i]) for i in test]
        stages: dict[str, float] = {}
        stages["read"], raws = best(lambda: [files[i].read_bytes() for i in test], repeats)

        def parse_all():
            mails = []
            for raw in raws:
                try:
                    mails.append(parse_mail(raw))
                except MailParseError:
                    pass
            return mails

        stages["parse"], mails = best(parse_all, repeats)
        stages["tokenize"], sets = best(lambda: [mail_tokens(m) for m in mails], repeats)
        stages["matrix"], (X, columns) = best(lambda: token_matrix(sets), repeats)

        def lookup():
            with store.snapshot():
                return store.lookup(columns), store.totals()

        stages["lookup"], (counts, totals) = best(lookup, repeats)
        stages["combine"], scores = best(lambda: score_matrix(X, counts, totals, SETTINGS), repeats)
        stages["output"], _ = best(
            lambda: "".join(
                f"{name}\t{value:.6f}\t{SETTINGS.verdict(value)}\n"
                for name, value in zip(names, scores.tolist(), strict=False)
            ),
            repeats,
        )
    n = len(test)
    print(f"CPU ms per message, SpamAssassin fold 0 ({n} messages, best of {repeats}):")
    for stage, seconds in stages.items():
        print(f"  {stage:9s} {1000 * seconds / n:.3f}")
    print(f"  {'total':9s} {1000 * sum(stages.values()) / n:.3f}")


if __name__ == "__main__":
    main()
