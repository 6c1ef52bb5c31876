"""One SpamAssassin fold: another git revision, the working tree and bogofilter, interleaved.

For fold ``--fold`` of the 10 folds of ``bench/spam_vs_bogofilter.py`` (605 messages
scored, 5,443 trained), each filter trains a fresh store and scores the test messages
as that script's fold functions do (nbayes: one tokenizing worker fewer than the CPUs,
and ``--jobs 0`` rows if asked), ``--repeats`` rounds, the filters in a rotating order
within each round, so a busy machine disturbs them alike. Reports the median wall-clock
messages per second, with the median CPU milliseconds per message of the calling
process and of its children (workers, bogofilter) apart: on a machine shared with
other jobs the wall clock says little, while the caller's CPU is the critical path
that a second, idle CPU would leave. Scores are checked equal across nbayes versions.
Run: ``.venv/bin/python bench/spam_parallel_vs.py main --repeats 7``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.revisions import export_revision
from bench.spam_data import spamassassin
from bench.spam_revisions import spam_modules
from bench.spam_vs_bogofilter import bogofilter_fold, ensure_bogofilter


class Clock:
    """Wall seconds, this process's CPU seconds and its reaped children's, of a block."""

    def __enter__(self) -> Clock:
        self.start = (time.perf_counter(), *_cpu())
        return self

    def __exit__(self, *_) -> None:
        now = (time.perf_counter(), *_cpu())
        self.wall, self.cpu, self.children_cpu = (
            b - a for a, b in zip(self.start, now, strict=True)
        )


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@contextlib.contextmanager
def in_sys_modules(spam: SimpleNamespace) -> Iterator[None]:
    """The version's modules as ``nbayes.spam.*`` in ``sys.modules`` meanwhile, so that
    a process pool pickles its functions by name (and its workers find them)."""
    names = {f"nbayes.spam.{name}": module for name, module in vars(spam).items()}
    saved = {name: sys.modules.get(name) for name in names}
    sys.modules.update(names)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def nbayes_fold(spam: SimpleNamespace, jobs: int):
    """bench/spam_vs_bogofilter.py's nbayes fold, on the modules of one nbayes version."""

    def fold(tmp: Path, files, y, train_idx, test_idx):
        with in_sys_modules(spam):
            return run(tmp, files, y, train_idx, test_idx)

    def run(tmp: Path, files, y, train_idx, test_idx):
        db = tmp / "nbayes.db"
        with Clock() as train_clock, spam.store.TokenStore(db) as store:
            items = (
                (spam.sources.MailItem(str(files[i]), files[i].read_bytes()), ("ham", "spam")[y[i]])
                for i in train_idx
            )
            spam.train.train(store, items, on_error=lambda *_: None, jobs=jobs)
        scores = np.full(len(test_idx), 0.5)
        settings = spam.score.ScoreSettings()
        with Clock() as score_clock, spam.store.TokenStore(db) as store:
            items = (
                (j, spam.sources.MailItem(str(files[i]), files[i].read_bytes()))
                for j, i in enumerate(test_idx)
            )
            parsed = (
                (j, tokens)
                for (j, _), tokens in spam.parallel.tokenize_items(
                    items, jobs, raw_of=lambda p: p[1].raw
                )
                if not isinstance(tokens, spam.parse.MailParseError)
            )
            for batch in spam.train.batched(parsed, 500):
                where = [j for j, _ in batch]
                scores[where] = spam.score.score_tokens(store, [t for _, t in batch], settings)
        return scores, train_clock, score_clock

    return fold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--fold", type=int, default=0)
    parser.add_argument("--one-process", action="store_true", help="add --jobs 0 rows")
    args = parser.parse_args()
    from nbayes.spam.evaluate import fold_indices
    from nbayes.spam.parallel import resolve_jobs

    workers = resolve_jobs(None)
    versions = {
        args.revision: spam_modules(str(export_revision(args.revision))),
        "working tree": spam_modules(None),
    }
    folds = {}
    for name, spam in versions.items():
        folds[f"{name}, {workers} worker(s)"] = nbayes_fold(spam, workers)
        if args.one_process:
            folds[f"{name}, 1 process"] = nbayes_fold(spam, 0)
    version = ensure_bogofilter()
    folds["bogofilter"] = bogofilter_fold_timed
    files, y = spamassassin()
    test_idx = fold_indices(y, 10, seed=0)[args.fold]
    train_idx = np.setdiff1d(np.arange(len(y)), test_idx)
    names = list(folds)
    got: dict[str, list] = {name: [] for name in names}
    scores: dict[str, np.ndarray] = {}
    for repeat in range(args.repeats):
        shift = repeat % len(names)
        for name in names[shift:] + names[:shift]:
            with tempfile.TemporaryDirectory() as tmp:
                scores[name], t_train, t_score = folds[name](
                    Path(tmp), files, y, train_idx, test_idx
                )
            got[name].append((t_train, t_score))
    ours = [scores[name] for name in names if name != "bogofilter"]
    same = all(np.array_equal(ours[0], s) for s in ours[1:])
    print(f"{version}; fold {args.fold}: train {len(train_idx)}, score {len(test_idx)} messages;")
    print(f"medians of {args.repeats} interleaved rounds; nbayes scores equal: {same}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print(
        "| filter | phase | msg/s (wall) | x bogofilter | caller CPU ms/msg | children CPU ms/msg "
        + "|"
    )
    print("|---|---|---:|---:|---:|---:|")
    for phase, column, n in (("train", 0, len(train_idx)), ("score", 1, len(test_idx))):
        rival = n / statistics.median(c[column].wall for c in got["bogofilter"])
        for name in names:
            clocks = [c[column] for c in got[name]]
            rate = n / statistics.median(c.wall for c in clocks)
            own = 1000 * statistics.median(c.cpu for c in clocks) / n
            kids = 1000 * statistics.median(c.children_cpu for c in clocks) / n
            print(
                f"| {name} | {phase} | {rate:,.0f} | {rate / rival:.2f} | {own:.3f} | {kids:.3f} |"
            )


def bogofilter_fold_timed(tmp: Path, files, y, train_idx, test_idx):
    """bogofilter's fold, its CPU (bogofilter's processes, and the little this process
    spends starting them) counted as children's CPU."""
    scores, t_train, t_score = bogofilter_fold(tmp, files, y, train_idx, test_idx)
    return scores, _as_clock(t_train), _as_clock(t_score)


def _as_clock(clock) -> SimpleNamespace:
    return SimpleNamespace(wall=clock.wall, cpu=0.0, children_cpu=clock.cpu)


if __name__ == "__main__":
    main()
