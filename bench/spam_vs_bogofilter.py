"""nbayes spam vs bogofilter: the same 10 folds, accuracy and throughput.

Installs Debian's ``bogofilter-sqlite`` (apt-get) if ``bogofilter`` is missing,
then for SpamAssassin (``cmds`` files skipped) and the SMS Spam Collection (one
header-less message file per SMS, the same bytes for both), for each of the same
10 stratified folds (seed 0):

- nbayes: a fresh SQLite store, trained on the fold's training files through the
  library path the CLI uses (read, parse, tokenize, one transaction per 1000
  messages), then the test files scored in batches of 500 (read, parse, tokenize,
  store lookup, Fisher combining), default settings;
- bogofilter: a fresh database, ``bogofilter -s -b`` / ``-n -b`` (file names on
  stdin) to train and ``bogofilter -T -b`` to score, its default settings.

Reports 1-ROCA % (lower is better), spam caught at 0.1 % and 1 % false-positive
rate, and training / scoring messages per second (wall clock, summed over folds,
one process each; same run, same machine) → ``bench/RESULTS_spam.md``.
Run: ``.venv/bin/python bench/spam_vs_bogofilter.py`` (several minutes).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from spam_data import sms_as_files, spamassassin

from nbayes.spam.evaluate import evaluate_scores, fold_indices
from nbayes.spam.parse import MailParseError
from nbayes.spam.score import ScoreSettings, score_tokens
from nbayes.spam.sources import MailItem
from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import tokenize
from nbayes.spam.train import train

RESULTS = Path(__file__).parent / "RESULTS_spam.md"
SETTINGS = ScoreSettings()


def ensure_bogofilter() -> str:
    if shutil.which("bogofilter") is None:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        prefix = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(
            [*prefix, "apt-get", "install", "-y", "-q", "bogofilter-sqlite"], check=True, env=env
        )
    out = subprocess.run(["bogofilter", "-V"], capture_output=True, text=True).stdout
    return out.splitlines()[0]


def nbayes_fold(tmp: Path, files, y, train_idx, test_idx) -> tuple[np.ndarray, float, float]:
    db = tmp / "nbayes.db"
    start = time.perf_counter()
    with TokenStore(db) as store:
        items = (
            (MailItem(str(files[i]), files[i].read_bytes()), ("ham", "spam")[y[i]])
            for i in train_idx
        )
        train(store, items, on_error=lambda *_: None)
    train_time = time.perf_counter() - start
    start = time.perf_counter()
    scores = np.full(len(test_idx), 0.5)
    with TokenStore(db) as store:
        for lo in range(0, len(test_idx), 500):
            chunk = test_idx[lo : lo + 500]
            token_sets, where = [], []
            for j, i in enumerate(chunk):
                try:
                    token_sets.append(tokenize(files[i].read_bytes()))
                    where.append(lo + j)
                except MailParseError:
                    pass  # scored 0.5, as an unparseable message would be Unsure
            scores[where] = score_tokens(store, token_sets, SETTINGS)
    score_time = time.perf_counter() - start
    db.unlink()
    for extra in ("-wal", "-shm"):
        Path(str(db) + extra).unlink(missing_ok=True)
    return scores, train_time, score_time


def bogofilter_fold(tmp: Path, files, y, train_idx, test_idx) -> tuple[np.ndarray, float, float]:
    directory = tmp / "bogo"
    directory.mkdir()

    def run(args, idx):
        names = "".join(f"{files[i]}\n" for i in idx)
        return subprocess.run(
            ["bogofilter", "-d", str(directory), *args],
            input=names,
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    start = time.perf_counter()
    run(["-s", "-b"], [i for i in train_idx if y[i] == 1])
    run(["-n", "-b"], [i for i in train_idx if y[i] == 0])
    train_time = time.perf_counter() - start
    start = time.perf_counter()
    out = run(["-T", "-b"], test_idx)
    score_time = time.perf_counter() - start
    by_name = {}
    for line in out.splitlines():
        name, _, score = line.rsplit(" ", 2)
        by_name[name] = float(score)
    shutil.rmtree(directory)
    return np.array([by_name.get(str(files[i]), 0.5) for i in test_idx]), train_time, score_time


def run_set(name: str, files, y) -> list[tuple[str, str, dict]]:
    folds = fold_indices(y, 10, seed=0)
    out = []
    for filt, fold_fn in (("nbayes", nbayes_fold), ("bogofilter", bogofilter_fold)):
        scores = np.empty(len(y))
        train_time = score_time = 0.0
        n_train = n_test = 0
        with tempfile.TemporaryDirectory() as tmp:
            for k, test_idx in enumerate(folds):
                train_idx = np.setdiff1d(np.arange(len(y)), test_idx)
                s, t_train, t_score = fold_fn(Path(tmp), files, y, train_idx, test_idx)
                scores[test_idx] = s
                train_time += t_train
                score_time += t_score
                n_train += len(train_idx)
                n_test += len(test_idx)
                print(
                    f"  {name} {filt} fold {k}: train {t_train:.1f}s score {t_score:.1f}s",
                    flush=True,
                )
        e = evaluate_scores(y, scores, SETTINGS)
        row = {
            "1-ROCA %": e.one_minus_roca,
            "caught@0.1%": 100 * e.caught_at_01,
            "caught@1%": 100 * e.caught_at_1,
            "train msg/s": n_train / train_time,
            "score msg/s": n_test / score_time,
        }
        print(name, filt, row, flush=True)
        out.append((name, filt, row))
    return out


def main() -> None:
    version = ensure_bogofilter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows += run_set("SpamAssassin", *spamassassin())
        rows += run_set("SMS Spam Collection", *sms_as_files(Path(tmp) / "sms"))
    lines = [
        "# Spam filter: nbayes vs bogofilter",
        "",
        f"`bench/spam_vs_bogofilter.py`, {time.strftime('%Y-%m-%d')}, {version}, "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs (shared with other jobs; "
        f"load average at the end {os.getloadavg()[0]:.1f}).",
        "Same 10 stratified folds (seed 0) for both; each filter's default settings "
        f"(nbayes: {SETTINGS}). Throughput is wall clock summed over the folds, one process, "
        "reading, parsing, tokenizing and the database included.",
        "",
        "| data set | filter | 1-ROCA % | spam caught at 0.1 % FPR | at 1 % FPR "
        "| training msg/s | scoring msg/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, filt, r in rows:
        lines.append(
            f"| {name} | {filt} | {r['1-ROCA %']:.4f} | {r['caught@0.1%']:.2f} % | "
            f"{r['caught@1%']:.2f} % | {r['train msg/s']:.0f} | {r['score msg/s']:.0f} |"
        )
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
