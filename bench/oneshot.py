"""One-shot commands: a fresh process per message, as a mail delivery agent runs a filter.

Each command reads one message file on its standard input (its standard output goes
to ``/dev/null``); :func:`interleaved_runs` runs every command once per message, the
order rotating from message to message so that load from other jobs on a shared
machine falls on all of them alike. Per process: the wall time from start to exit
(``time.perf_counter``) and the CPU time of the child (user + system, from
``os.wait4``). Its largest resident set is taken in one more run under GNU ``time``
(:func:`bench.harness.peak_rss`), not from ``wait4``: a child started from this process
(vfork and exec) is charged this process's resident set as its own ``ru_maxrss``.

The children's environment is this process's without ``PYTHONDONTWRITEBYTECODE``
(an installed package has its byte-compiled modules, and the warm-up run writes any
that are missing) and without ``NBAYES_SPAM_DB`` / ``NBAYES_SPAM_REDIS`` (the
commands name their store).

>>> got = interleaved_runs({"true": OneShot(["true"])}, [Path("/dev/null")] * 2)
>>> got["true"].statuses()
[0, 0]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.harness import Measurement, peak_rss


@dataclass(frozen=True)
class OneShot:
    """A command line and the exit statuses that mean it worked (a filter's verdicts:
    0 spam, 1 ham, 2 unsure for nbayes and bogofilter alike)."""

    argv: list[str]
    ok_status: frozenset[int] = frozenset({0})


@dataclass(frozen=True)
class Run:
    """One child process: wall and CPU seconds, exit status."""

    wall_s: float
    cpu_s: float
    status: int


def child_env() -> dict[str, str]:
    """The environment of the children (see the module docstring)."""
    drop = {"PYTHONDONTWRITEBYTECODE", "NBAYES_SPAM_DB", "NBAYES_SPAM_REDIS"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def run_once(command: OneShot, message: Path, env: dict[str, str] | None = None) -> Run:
    """Run ``command`` with ``message`` on its stdin; RuntimeError (with the end of its
    stderr) if its exit status is not one of ``command.ok_status``."""
    with open(message, "rb") as stdin, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(
            command.argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=err, env=env
        )
        _, wait_status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = status = os.waitstatus_to_exitcode(wait_status)
        if status not in command.ok_status:
            err.seek(0)
            tail = err.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"{command.argv} < {message} failed ({status}):\n{tail}")
    return Run(wall, usage.ru_utime + usage.ru_stime, status)


def interleaved_runs(
    commands: dict[str, OneShot], messages: Sequence[Path], warmup: int = 1
) -> dict[str, Measured]:
    """Each command run once per message (after ``warmup`` untimed runs each on the
    first message), round-robin in an order rotating by one per message; then its peak
    resident set in one more run on the first message."""
    env = child_env()
    names = list(commands)
    for name in names:
        for _ in range(warmup):
            run_once(commands[name], messages[0], env)
    runs: dict[str, list[Run]] = {name: [] for name in names}
    for k, message in enumerate(messages):
        shift = k % len(names)
        for name in names[shift:] + names[:shift]:
            runs[name].append(run_once(commands[name], message, env))
    peaks = {
        name: peak_rss(commands[name].argv, messages[0], env, commands[name].ok_status)
        for name in names
    }
    return {name: Measured(runs[name], peaks[name]) for name in names}


@dataclass(frozen=True)
class Measured:
    """A command's timed runs, one a message, and its peak resident bytes."""

    runs: list[Run]
    peak_bytes: int

    def wall(self) -> Measurement:
        """Median and minimum wall seconds of the runs, with the peak resident set."""
        walls = [r.wall_s for r in self.runs]
        return Measurement(statistics.median(walls), min(walls), self.peak_bytes, walls)

    def median_cpu_ms(self) -> float:
        return 1e3 * statistics.median(r.cpu_s for r in self.runs)

    def median_wall_ms(self) -> float:
        return 1e3 * statistics.median(r.wall_s for r in self.runs)

    def statuses(self) -> list[int]:
        return [r.status for r in self.runs]


def nbayes_command() -> list[str]:
    """The ``nbayes`` console script of the running environment (beside
    ``sys.executable``, as a ``pip install`` puts it); ``python -m nbayes`` if absent."""
    script = Path(sys.executable).parent / "nbayes"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "nbayes"]
