"""Scenario G: spam training and scoring throughput against bogofilter.

The machinery is ``bench/spam_vs_bogofilter.py``'s: its fold functions train a fresh
store on the training messages and score the test messages, each phase on its own
clock (reading, parsing, tokenizing and the database included), nbayes through the
library path the CLI uses and bogofilter through its command line (``-s -b`` / ``-n
-b`` to train, ``-T -b`` to score). Here one fold (the first of 5 stratified folds,
seed 0) of a SpamAssassin subset (every second message; ``--smoke``: every 80th) is
run ``1 + repeats`` times per filter, round-robin, the first call a warm-up; the
medians of the training and scoring clocks give messages per second. The floor is one
read of the same message files. The garbage collector stays on (a real run has it).

Peak memory: nbayes, traced allocations during one extra fold (tracemalloc, as every
scenario; SQLite's page cache and the tokenizing workers are not traced); bogofilter,
the largest peak resident set of its processes during one extra fold
(:func:`bogofilter_peak_rss`: GNU ``time``'s ``%M``; 0 where ``/usr/bin/time`` is
missing). The two are not the same measure, so no memory target is judged here. The
issue gives no throughput target; the one stated, "as fast as bogofilter", is this
benchmark's.

If bogofilter is missing and cannot be installed (``apt-get install bogofilter-sqlite``,
as root or with password-less sudo; never in a ``--smoke`` run), nbayes is measured
alone and the table says so.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from bench.harness import Measurement, in_fork, peak_memory
from bench.registry import Case, Dataset, Measured, register


def bogofilter_version(install: bool = True) -> tuple[str | None, str]:
    """(version line, "") where bogofilter runs or was installed; (None, reason) if not."""
    from bench import spam_vs_bogofilter

    if shutil.which("bogofilter") is None and not install:
        return None, "bogofilter is not installed (a --smoke run does not install it)"
    if shutil.which("bogofilter") is None and os.geteuid() != 0:
        sudo = shutil.which("sudo")
        if sudo is None or subprocess.run([sudo, "-n", "true"], capture_output=True).returncode:
            return None, "bogofilter is not installed, and there is no root or sudo to install it"
    try:
        return spam_vs_bogofilter.ensure_bogofilter(), ""
    except (OSError, subprocess.CalledProcessError, IndexError) as error:
        return None, f"bogofilter could not be installed ({error})"


def bogofilter_peak_rss(fn: Callable[[], object]) -> int:
    """Bytes: the largest peak resident set of the bogofilter processes ``fn`` runs, each
    run under ``/usr/bin/time -f %M`` by a wrapper first on PATH (set in a forked copy of
    this process, so nothing here changes); 0 if ``/usr/bin/time`` is missing."""
    real = shutil.which("bogofilter")
    if real is None or not os.access(GNU_TIME, os.X_OK):
        return 0

    def run() -> int:
        with tempfile.TemporaryDirectory() as tmp:
            log, shim = Path(tmp) / "rss.log", Path(tmp) / "bogofilter"
            shim.write_text(f'#!/bin/sh\nexec {GNU_TIME} -a -o "{log}" -f %M "{real}" "$@"\n')
            shim.chmod(0o755)
            os.environ["PATH"] = f"{tmp}{os.pathsep}{os.environ.get('PATH', '')}"
            fn()
            lines = log.read_text().splitlines()  # "Command exited with ..." lines too
            return 1024 * max(int(line) for line in lines if line.strip().isdigit())

    return in_fork(run)


GNU_TIME = "/usr/bin/time"


def _read_fold(tmp, files, y, train_idx, test_idx):
    """The floor as a fold: read the training, then the test message files once."""
    from bench.spam_vs_bogofilter import Clock

    with Clock() as train_clock:
        sum(len(files[i].read_bytes()) for i in train_idx)
    with Clock() as score_clock:
        sum(len(files[i].read_bytes()) for i in test_idx)
    return None, train_clock, score_clock


def timed_folds(
    folds: dict[str, Callable], files, y, train_idx, test_idx, repeats: int, warmup: int = 1
) -> dict[str, tuple[list[float], list[float], np.ndarray | None]]:
    """Each fold function run ``warmup + repeats`` times, round-robin in a rotating order,
    each in a fresh temporary directory: (training seconds, scoring seconds, last scores)."""
    names = list(folds)
    out: dict[str, tuple[list[float], list[float], np.ndarray | None]] = {
        name: ([], [], None) for name in names
    }
    for repeat in range(warmup + repeats):
        shift = repeat % len(names)
        for name in names[shift:] + names[:shift]:
            with tempfile.TemporaryDirectory() as tmp:
                scores, train_clock, score_clock = folds[name](
                    Path(tmp), files, y, train_idx, test_idx
                )
            if repeat >= warmup:
                out[name][0].append(train_clock.wall)
                out[name][1].append(score_clock.wall)
            out[name] = (out[name][0], out[name][1], scores)
    return out


def _measurement(times: list[float], peak: int) -> Measurement:
    return Measurement(statistics.median(times), min(times), peak, times)


def _in_tmp(fold: Callable, files, y, train_idx, test_idx) -> Callable[[], object]:
    def run():
        with tempfile.TemporaryDirectory() as tmp:
            return fold(Path(tmp), files, y, train_idx, test_idx)

    return run


@register("G", "Spam training and scoring throughput against bogofilter")
def spam(quick: bool) -> Iterator[Dataset]:
    from bench import spam_data, spam_vs_bogofilter
    from nbayes.spam.evaluate import evaluate_scores, fold_indices

    if not (spam_data.DATA / "spamassassin").is_dir():
        yield Dataset("SpamAssassin", None, [], notes=["Not run: SpamAssassin not found."])
        return
    files, y = spam_data.spamassassin()
    step = 80 if quick else 2
    files, y = files[::step], y[::step]
    test_idx = fold_indices(y, 5, seed=0)[0]
    train_idx = np.setdiff1d(np.arange(len(y)), test_idx)
    version, reason = bogofilter_version(install=not quick)
    workers = spam_vs_bogofilter.WORKERS
    ours = {
        f"nbayes, {workers} worker(s)": spam_vs_bogofilter.nbayes_fold(workers),
        "nbayes, 1 process": spam_vs_bogofilter.nbayes_fold(0),
    }
    folds = dict(ours, floor=_read_fold)
    if version is not None:
        folds["bogofilter"] = spam_vs_bogofilter.bogofilter_fold
    args = (files, y, train_idx, test_idx)

    def measure(repeats: int) -> Measured:
        got = timed_folds(folds, *args, repeats=repeats)
        rival_peak = (
            bogofilter_peak_rss(_in_tmp(spam_vs_bogofilter.bogofilter_fold, *args))
            if version
            else 0
        )
        rows: Measured = []
        for name, fold in ours.items():
            peak = peak_memory(_in_tmp(fold, *args))
            for phase, n in (("train", len(train_idx)), ("score", len(test_idx))):
                column = 0 if phase == "train" else 1
                case = Case(
                    f"{phase}: {name}",
                    fold,
                    None,
                    _read_fold,
                    "one read of the files",
                    1.0,
                    None,
                    items=n,
                    compare_memory=False,
                    same_result=False,
                )
                measured = {
                    "nbayes": _measurement(got[name][column], peak),
                    "floor": _measurement(got["floor"][column], 0),
                }
                if version is not None:
                    measured["sklearn"] = _measurement(got["bogofilter"][column], rival_peak)
                rows.append((case, measured))
        quality = [
            f"{name} {evaluate_scores(y[test_idx], got[name][2], spam_vs_bogofilter.SETTINGS).one_minus_roca:.3f}"  # noqa: E501
            for name in [*ours, *(["bogofilter"] if version else [])]
        ]
        notes.append(f"1-ROCA % on this fold (lower is better): {', '.join(quality)}.")
        return rows

    notes = [
        f"Rival: {version}, its default settings."
        if version
        else f"**bogofilter not measured**: {reason}. nbayes alone.",
        "Peak MB: nbayes traced (tracemalloc) allocations; bogofilter the peak resident "
        "set of its processes; not the same measure, so memory is not judged.",
    ]
    yield Dataset(
        f"SpamAssassin subset (1 message in {step}): train {len(train_idx):,}, "
        f"score {len(test_idx):,} messages",
        None,
        [],
        rival="bogofilter",
        notes=notes,
        unit="msg",
        measure=measure,
    )
