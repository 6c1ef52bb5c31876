"""nbayes spam vs bogofilter: the same 10 folds, accuracy and throughput.

Installs Debian's ``bogofilter-sqlite`` (apt-get) if ``bogofilter`` is missing,
then for SpamAssassin (``cmds`` files skipped) and the SMS Spam Collection (one
header-less message file per SMS, the same bytes for both), for each of the same
10 stratified folds (seed 0):

- nbayes: a fresh SQLite store, trained on the fold's training files through the
  library path the CLI uses (read, parse, tokenize, one transaction per 1000
  messages or ``MAX_BATCH_TOKENS`` tokens), then the test files scored in batches of
  500 (or ``MAX_BATCH_TOKENS`` tokens, as ``nbayes spam score``; read, parse, tokenize,
  store lookup, Fisher combining), default settings; once with the CLI's default
  of one tokenizing worker process fewer than the CPUs (``nbayes spam train/score``,
  the pool started and stopped inside each fold's timing, as a command would) and
  once in a single process (``--jobs 0``);
- bogofilter: a fresh database, ``bogofilter -s -b`` / ``-n -b`` (file names on
  stdin) to train and ``bogofilter -T -b`` to score, its default settings.

Reports 1-ROCA % (lower is better), spam caught at 0.1 % and 1 % false-positive
rate, and training / scoring messages per second (wall clock, summed over folds;
same run, same machine), printed, with the CPU time per
message (user + system, worker and bogofilter processes included), which the
other jobs on a shared machine disturb less than the wall clock.
Scenario G of ``bench/run.py`` uses its folds and timings; run alone:
``.venv/bin/python bench/spam_vs_bogofilter.py`` (several minutes; ``--only sms`` for
the SMS Spam Collection alone, about a minute).
"""

from __future__ import annotations

import argparse
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
from nbayes.spam.learning import MODES
from nbayes.spam.parallel import available_cpus, resolve_jobs, tokenize_items
from nbayes.spam.parse import MailParseError
from nbayes.spam.score import ScoreSettings, score_tokens
from nbayes.spam.sources import MailItem
from nbayes.spam.store import TokenStore, Totals
from nbayes.spam.store_options import store_options
from nbayes.spam.tokens import TokenOptions
from nbayes.spam.train import batched, train

SETTINGS = ScoreSettings()
CPUS = available_cpus()
WORKERS = resolve_jobs(None)


class Clock:
    """Wall-clock and CPU seconds (this process and its waited-for children) of a block."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), _cpu()
        return self

    def __exit__(self, *_) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, _cpu() - self.cpu


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def ensure_bogofilter() -> str:
    if shutil.which("bogofilter") is None:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        prefix = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(
            [*prefix, "apt-get", "install", "-y", "-q", "bogofilter-sqlite"], check=True, env=env
        )
    out = subprocess.run(["bogofilter", "-V"], capture_output=True, text=True).stdout
    return out.splitlines()[0]


class NbayesFold:
    """A fold function (see :func:`nbayes_fold`) that also keeps the last store's
    :class:`~nbayes.spam.store.Totals` (messages, token-set sizes, vocabulary)."""

    def __init__(self, jobs: int, options: TokenOptions | None = None) -> None:
        self.jobs, self.options = jobs, options
        self.totals: Totals | None = None

    def __call__(self, tmp: Path, files, y, train_idx, test_idx) -> tuple[np.ndarray, Clock, Clock]:
        db = tmp / "nbayes.db"
        train_clock = train_nbayes(db, files, y, train_idx, self.jobs, self.options)
        scores = np.full(len(test_idx), 0.5)  # unparseable: 0.5, as Unsure
        with Clock() as score_clock, TokenStore(db) as store:
            items = (
                (j, MailItem(str(files[i]), files[i].read_bytes())) for j, i in enumerate(test_idx)
            )
            tokenized = tokenize_items(
                items, self.jobs, raw_of=lambda p: p[1].raw, options=store_options(store)
            )
            parsed = (
                (j, tokens)
                for (j, _), tokens in tokenized
                if not isinstance(tokens, MailParseError)
            )
            for batch in batched(parsed, 500, tokens_of=_token_count):
                where = [j for j, _ in batch]
                scores[where] = score_tokens(store, [t for _, t in batch], SETTINGS)
        with TokenStore(db) as store:
            self.totals = store.totals()
        db.unlink()
        for extra in ("-wal", "-shm"):
            Path(str(db) + extra).unlink(missing_ok=True)
        return scores, train_clock, score_clock


def nbayes_fold(jobs: int, options: TokenOptions | None = None) -> NbayesFold:
    """The fold function of nbayes with ``jobs`` tokenizing workers (0: one process) and
    the tokenizer's ``options`` (None: the defaults); the test messages are tokenized
    with the options the store records, as ``nbayes spam score`` does."""
    return NbayesFold(jobs, options)


def train_nbayes(
    db: Path, files, y, train_idx, jobs: int = 0, options: TokenOptions | None = None
) -> Clock:
    """Train a new SQLite store ``db`` on the training messages (the library path of
    ``nbayes spam train``); the clock of the whole training."""
    with Clock() as train_clock, TokenStore(db) as store:
        items = (
            (MailItem(str(files[i]), files[i].read_bytes()), ("ham", "spam")[y[i]])
            for i in train_idx
        )
        train(store, items, on_error=lambda *_: None, jobs=jobs, options=options)
    return train_clock


def _token_count(pair) -> int:
    return len(pair[1])


def bogofilter_fold(tmp: Path, files, y, train_idx, test_idx) -> tuple[np.ndarray, Clock, Clock]:
    directory = tmp / "bogo"
    train_clock = train_bogofilter(directory, files, y, train_idx)
    with Clock() as score_clock:
        out = _bogofilter(directory, ["-T", "-b"], files, test_idx)
    by_name = {}
    for line in out.splitlines():
        name, _, score = line.rsplit(" ", 2)
        by_name[name] = float(score)
    shutil.rmtree(directory)
    scores = np.array([by_name.get(str(files[i]), 0.5) for i in test_idx])
    return scores, train_clock, score_clock


def train_bogofilter(directory: Path, files, y, train_idx) -> Clock:
    """Train a new bogofilter database in ``directory`` on the training messages (``-s
    -b`` for the spam, then ``-n -b`` for the ham); the clock of the whole training."""
    directory.mkdir()
    with Clock() as train_clock:
        _bogofilter(directory, ["-s", "-b"], files, [i for i in train_idx if y[i] == 1])
        _bogofilter(directory, ["-n", "-b"], files, [i for i in train_idx if y[i] == 0])
    return train_clock


def _bogofilter(directory: Path, args: list[str], files, idx) -> str:
    """bogofilter's standard output for ``args``, the file names ``idx`` on its stdin."""
    names = "".join(f"{files[i]}\n" for i in idx)
    return subprocess.run(
        ["bogofilter", "-d", str(directory), *args],
        input=names,
        capture_output=True,
        text=True,
        check=False,
    ).stdout


def run_set(name: str, files, y) -> list[tuple[str, str, dict]]:
    folds = fold_indices(y, 10, seed=0)
    out = []
    filters = (
        (f"nbayes, {WORKERS} worker(s)", nbayes_fold(WORKERS)),
        ("nbayes, 1 process", nbayes_fold(0)),
        ("bogofilter", bogofilter_fold),
    )
    for filt, fold_fn in filters:
        scores = np.empty(len(y))
        train_time = score_time = train_cpu = score_cpu = 0.0
        n_train = n_test = 0
        with tempfile.TemporaryDirectory() as tmp:
            for k, test_idx in enumerate(folds):
                train_idx = np.setdiff1d(np.arange(len(y)), test_idx)
                s, t_train, t_score = fold_fn(Path(tmp), files, y, train_idx, test_idx)
                scores[test_idx] = s
                train_time += t_train.wall
                score_time += t_score.wall
                train_cpu += t_train.cpu
                score_cpu += t_score.cpu
                n_train += len(train_idx)
                n_test += len(test_idx)
                print(
                    f"  {name} {filt} fold {k}: train {t_train.wall:.1f}s "
                    f"score {t_score.wall:.1f}s (load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
        e = evaluate_scores(y, scores, SETTINGS)
        row = {
            "1-ROCA %": e.one_minus_roca,
            "caught@0.1%": 100 * e.caught_at_01,
            "caught@1%": 100 * e.caught_at_1,
            "train msg/s": n_train / train_time,
            "score msg/s": n_test / score_time,
            "train cpu ms": 1000 * train_cpu / n_train,
            "score cpu ms": 1000 * score_cpu / n_test,
        }
        print(name, filt, row, flush=True)
        out.append((name, filt, row))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        choices=("spamassassin", "sms"),
        help="one data set",
    )
    only = parser.parse_args().only
    version = ensure_bogofilter()
    load_start = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if only in (None, "spamassassin"):
            rows += run_set("SpamAssassin", *spamassassin())
        if only in (None, "sms"):
            rows += run_set("SMS Spam Collection", *sms_as_files(Path(tmp) / "sms"))
    lines = [
        f"`bench/spam_vs_bogofilter.py`, {time.strftime('%Y-%m-%d %H:%M')}, {version}, "
        f"Python {platform.python_version()}, {CPUS} CPUs (load average {load_start:.1f} at "
        f"the start, {os.getloadavg()[0]:.1f} at the end).",
        "Same 10 stratified folds (seed 0) for all, each fold learnt in file order; each "
        f"filter's default settings (nbayes: {SETTINGS}, training mode {MODES[0]}). "
        "Throughput is wall clock summed over the folds, reading, parsing, tokenizing and "
        "the database included; CPU ms per message is user + system time of every "
        "process involved (nbayes's workers, bogofilter).",
        "",
        "| data set | filter | 1-ROCA % | spam caught at 0.1 % FPR | at 1 % FPR "
        "| training msg/s | scoring msg/s | training CPU ms/msg | scoring CPU ms/msg |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, filt, r in rows:
        lines.append(
            f"| {name} | {filt} | {r['1-ROCA %']:.4f} | {r['caught@0.1%']:.2f} % | "
            f"{r['caught@1%']:.2f} % | {r['train msg/s']:.0f} | {r['score msg/s']:.0f} | "
            f"{r['train cpu ms']:.2f} | {r['score cpu ms']:.2f} |"
        )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
