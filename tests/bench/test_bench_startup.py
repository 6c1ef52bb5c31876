"""Scenario H's fresh processes (``bench/scenario_startup.py``): whose memory its
"peak MB" column is.

No timing is asserted (timings live in ``bench/RESULTS.md``). The peak of a child must
be the child's own: ``wait4``'s ``ru_maxrss`` charged every small child with the bench
process's resident set (193.9 MB for ``nbayes --help`` and ``python -c pass`` alike).
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench import harness, scenario_startup  # noqa: E402

requires_gnu_time = pytest.mark.skipif(
    not harness.gnu_time_available(), reason="no /usr/bin/time (GNU time)"
)

MB = 2**20
_ALLOCATE_200_MB = "b = bytearray(200 * 2**20); b[::4096] = b'x' * len(b[::4096])"


def _own_peak_bytes() -> int:
    """This process's largest resident set so far (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@requires_gnu_time
def test_a_tiny_commands_peak_is_its_own_not_the_large_bench_process(tmp_path):
    ballast = bytearray(400 * MB)  # the bench process: at least 400 MB resident
    ballast[::4096] = b"x" * len(ballast[::4096])
    own = _own_peak_bytes()
    assert own >= 400 * MB
    argvs = {
        "pass": [sys.executable, "-c", "pass"],
        "true": ["true"],
        "allocates": [sys.executable, "-c", _ALLOCATE_200_MB],
    }
    runs, got = scenario_startup.whole_processes(argvs, repeats=2, cache_dir=str(tmp_path))
    del ballast
    assert {name: len(r) for name, r in runs.items()} == {name: 2 for name in argvs}
    assert all(m.times_s == [r.wall_s for r in runs[n]] for n, m in got.items())
    for name in ("pass", "true"):
        assert 0 < got[name].peak_bytes < 100 * MB
        assert got[name].peak_bytes < own / 4  # wait4 said about `own` here
    assert 200 * MB <= got["allocates"].peak_bytes < 400 * MB  # the child's, measured


@requires_gnu_time
def test_a_cold_rows_peak_run_uses_the_cache_folder_it_is_given(tmp_path):
    """peak_child runs the command with its caches where the row says (the cold rows'
    peak run has empty caches again), and the command's own peak."""
    code = "import os; open(os.path.join(os.environ['NUMBA_CACHE_DIR'], 'seen'), 'w')"
    peak = scenario_startup.peak_child([sys.executable, "-c", code], str(tmp_path))
    assert (tmp_path / "seen").exists()
    assert 0 < peak < 100 * MB


def test_without_gnu_time_the_peak_is_0_and_the_notes_say_not_measured(monkeypatch, tmp_path):
    monkeypatch.setattr(harness, "GNU_TIME", str(tmp_path / "no-such-time"))
    argvs = {"pass": [sys.executable, "-c", "pass"]}
    runs, got = scenario_startup.whole_processes(argvs, repeats=1, cache_dir=str(tmp_path))
    assert len(runs["pass"]) == 1 and got["pass"].peak_bytes == 0
    assert "not measured" in scenario_startup._peak_note()


def test_a_failing_child_is_an_error_naming_it(tmp_path):
    fails = [sys.executable, "-c", "import sys; sys.stderr.write('no module'); sys.exit(3)"]
    with pytest.raises(RuntimeError, match=r"failed \(3\):\n.*no module"):
        scenario_startup.whole_processes({"fails": fails}, repeats=1, cache_dir=str(tmp_path))
