"""The one-shot harness of scenario G (``bench/oneshot.py``): a fresh process per message
and command, in a rotating order, each command's own resident set.

No timing is asserted (timings live in ``bench/RESULTS.md``); what is checked is what
the figures are made of: which process ran on which message, in which order, and whose
memory the peak is.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench import oneshot, run  # noqa: E402
from bench.harness import gnu_time_available, peak_rss  # noqa: E402
from bench.registry import Case  # noqa: E402

requires_gnu_time = pytest.mark.skipif(
    not gnu_time_available(), reason="no /usr/bin/time (GNU time)"
)


def _logging(log: Path, name: str) -> oneshot.OneShot:
    """A command appending its name and the message it read on stdin to ``log``."""
    code = f"import sys; open({str(log)!r}, 'a').write({name!r} + ' ' + sys.stdin.read() + '\\n')"
    return oneshot.OneShot([sys.executable, "-c", code])


def test_each_command_reads_each_message_once_in_a_rotating_order(tmp_path):
    messages = []
    for k in range(4):
        messages.append(tmp_path / f"m{k}")
        messages[-1].write_text(f"m{k}")
    log = tmp_path / "log"
    commands = {name: _logging(log, name) for name in ("a", "b", "c")}
    got = oneshot.interleaved_runs(commands, messages, warmup=1)
    lines = log.read_text().splitlines()
    warmups, timed, peaks = lines[:3], lines[3:15], lines[15:]
    assert warmups == ["a m0", "b m0", "c m0"]
    assert timed == [
        "a m0", "b m0", "c m0",
        "b m1", "c m1", "a m1",
        "c m2", "a m2", "b m2",
        "a m3", "b m3", "c m3",
    ]  # fmt: skip
    assert len(peaks) == (3 if gnu_time_available() else 0)
    for measured in got.values():
        assert measured.statuses() == [0, 0, 0, 0]
        assert all(r.wall_s > 0 and r.cpu_s >= 0 for r in measured.runs)
        wall = measured.wall()
        assert wall.times_s == [r.wall_s for r in measured.runs]
        assert wall.min_s <= wall.median_s


def test_a_status_outside_the_commands_verdicts_is_an_error_naming_it(tmp_path):
    message = tmp_path / "m"
    message.write_text("x")
    fails = [sys.executable, "-c", "import sys; sys.stderr.write('broken store'); sys.exit(3)"]
    with pytest.raises(RuntimeError, match=r"failed \(3\):\nbroken store"):
        oneshot.run_once(oneshot.OneShot(fails, frozenset({0, 1, 2})), message)
    verdict = [sys.executable, "-c", "raise SystemExit(2)"]
    assert oneshot.run_once(oneshot.OneShot(verdict, frozenset({0, 1, 2})), message).status == 2


@requires_gnu_time
def test_peak_resident_set_is_the_commands_own_not_this_process(tmp_path):
    """ru_maxrss of a child started from a large process is that process's resident
    set (vfork, exec); the peak comes from GNU time, whose parent is small."""
    message = tmp_path / "m"
    message.write_text("x")
    ballast = bytearray(300 * 2**20)  # this process: at least 300 MB resident
    ballast[::4096] = b"x" * len(ballast[::4096])
    small = peak_rss(["true"], message)
    code = "b = bytearray(200 * 2**20); b[::4096] = b'x' * len(b[::4096])"
    large = peak_rss([sys.executable, "-c", code], message)
    del ballast
    assert 0 < small < 100 * 2**20
    assert 200 * 2**20 <= large < 300 * 2**20


@requires_gnu_time
def test_peak_of_a_verdict_status_is_read_and_another_status_is_an_error(tmp_path):
    """GNU time writes "Command exited with non-zero status 2" before the figure for a
    filter's spam/ham/unsure verdicts; a status outside them names the command."""
    message = tmp_path / "m"
    message.write_text("x")
    verdicts = frozenset({0, 1, 2})
    unsure = [sys.executable, "-c", "raise SystemExit(2)"]
    assert 0 < peak_rss(unsure, message, ok_status=verdicts) < 100 * 2**20
    broken = [sys.executable, "-c", "import sys; sys.stderr.write('broken'); sys.exit(3)"]
    with pytest.raises(RuntimeError, match=r"< .*m failed \(3\):\n(.|\n)*broken"):
        peak_rss(broken, message, ok_status=verdicts)


def test_child_environment_keeps_bytecode_and_names_no_store(monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("NBAYES_SPAM_REDIS", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("NBAYES_SPAM_DB", "/elsewhere.db")
    env = oneshot.child_env()
    assert not {"PYTHONDONTWRITEBYTECODE", "NBAYES_SPAM_REDIS", "NBAYES_SPAM_DB"} & set(env)
    assert env["PATH"] == os.environ["PATH"]


def test_nbayes_command_is_this_environments_console_script():
    command = oneshot.nbayes_command()
    script = Path(sys.executable).parent / "nbayes"
    assert command == ([str(script)] if script.exists() else [sys.executable, "-m", "nbayes"])


def test_a_target_under_a_tenth_of_a_second_reads_in_milliseconds():
    case = Case("one-shot", lambda: None, None, max_s=0.030)
    fast, slow = (run.Measurement(s, s, 0) for s in (0.025, 0.060))
    assert run._verdict(case, "bogofilter", None, None, fast, None) == ("≤30 ms", "met")
    target, outcome = run._verdict(case, "bogofilter", None, None, slow, None)
    assert target == "≤30 ms" and outcome == "missed: 2.00× over the 30 ms target"
    case.max_s = 0.5
    assert run._verdict(case, "bogofilter", None, None, fast, None)[0] == "≤0.5 s"
