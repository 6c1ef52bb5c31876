"""How long the caller of the forked workers waits for them, on one SpamAssassin scoring fold.

Fold ``--fold`` of the 10 folds of ``bench/spam_vs_bogofilter.py``: a store trained on
the other nine (one worker), then the 605 test messages scored as that script does
(read, tokenize with one forked worker, batches of 500 looked up and combined),
``--repeats`` times. Reports the medians of the caller's wall clock, its CPU time, and
the wall time it spent blocked waiting for a child's results
(:meth:`nbayes.spam.forked._Window.wait`), against the same fold in one process.
Where the caller never waits, its wall clock on an idle machine (the child on the other
CPU) is its CPU time; on a loaded one the difference is time other jobs held the CPU.
Run: ``.venv/bin/python bench/spam_caller_waits.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.spam_data import spamassassin
from nbayes.spam import forked
from nbayes.spam.evaluate import fold_indices
from nbayes.spam.parallel import tokenize_items
from nbayes.spam.parse import MailParseError
from nbayes.spam.score import ScoreSettings, score_tokens
from nbayes.spam.sources import MailItem
from nbayes.spam.store import TokenStore
from nbayes.spam.train import batched, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--fold", type=int, default=0)
    args = parser.parse_args()
    files, y = spamassassin()
    test = fold_indices(y, 10, seed=0)[args.fold]
    blocked = [0.0]
    wait = forked._Window.wait

    def timed_wait(window, k: int) -> None:
        start = time.perf_counter()
        wait(window, k)
        blocked[0] += time.perf_counter() - start

    forked._Window.wait = timed_wait
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "s.db"
        with TokenStore(db) as store:
            labelled = (
                (MailItem(str(files[i]), files[i].read_bytes()), ("ham", "spam")[y[i]])
                for i in np.setdiff1d(np.arange(len(y)), test)
            )
            train(store, labelled, on_error=lambda *_: None, jobs=1)
        rows: dict[int, list[tuple[float, float, float]]] = {1: [], 0: []}
        for _ in range(args.repeats):
            for jobs in rows:
                blocked[0] = 0.0
                wall, cpu = time.perf_counter(), time.process_time()
                with TokenStore(db) as store:
                    items = ((j, MailItem(str(files[i]), files[i].read_bytes()))
                             for j, i in enumerate(test))  # fmt: skip
                    parsed = (
                        (j, tokens)
                        for (j, _), tokens in tokenize_items(items, jobs, raw_of=lambda p: p[1].raw)
                        if not isinstance(tokens, MailParseError)
                    )
                    for batch in batched(parsed, 500):
                        score_tokens(store, [t for _, t in batch], ScoreSettings())
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                rows[jobs].append((wall, cpu, blocked[0]))
    print(f"fold {args.fold}: {len(test)} messages scored, medians of {args.repeats}, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    for jobs, label in ((1, "1 forked worker"), (0, "one process")):
        wall, cpu, waited = (1000 * statistics.median(r[i] for r in rows[jobs]) for i in range(3))
        print(f"  {label:16s} caller wall {wall:6.0f} ms, CPU {cpu:6.0f} ms, "
              f"blocked waiting {waited:5.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
