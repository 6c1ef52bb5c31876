"""``nbayes`` as a process leaves without the interpreter's teardown
(:func:`nbayes.cli.run`): what the teardown would have done must still happen, and
every exit status must be the one ``sys.exit`` would have given."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

EXE = str(Path(sys.executable).with_name("nbayes"))


#: A module-level object whose ``__del__`` runs only in the interpreter's teardown.
TEARDOWN_WITNESS = """
import sys
class Witness:
    def __del__(self):
        sys.stderr.write("teardown ran")
witness = Witness()
"""


def python(code: str, *args: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", TEARDOWN_WITNESS + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=300,
        **options,
    )


@pytest.fixture
def table(tmp_path) -> Path:
    rng = np.random.default_rng(0)
    rows = ["x,y,label"] + [
        f"{a:.6f},{b:.6f},{'ab'[int(a > 0)]}" for a, b in rng.normal(size=(3000, 2))
    ]
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_long_output_to_a_pipe_arrives_whole(table, tmp_path):
    """Nothing left in stdout's buffer is lost by leaving early: the predictions read
    from the pipe equal those written to a file."""
    model = tmp_path / "m.nbm"
    subprocess.run([EXE, "train", table, "-t", "label", "-o", model], check=True)
    to_file = tmp_path / "p.csv"
    subprocess.run([EXE, "predict", model, table, "--proba", "-o", to_file], check=True)
    piped = subprocess.run(
        [EXE, "predict", model, table, "--proba"], capture_output=True, check=True
    )
    assert piped.stdout == to_file.read_bytes()
    assert piped.stdout.count(b"\n") == 3001


def test_python_dash_m_nbayes(table, tmp_path):
    model = tmp_path / "m.nbm"
    done = subprocess.run(
        [sys.executable, "-m", "nbayes", "train", table, "-t", "label", "-o", model],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert model.stat().st_size > 0


@pytest.mark.parametrize(
    "status, code, stderr",
    [(None, 0, ""), (0, 0, ""), (2, 2, ""), (-1, 255, ""), (256 + 3, 3, ""), ("bad", 1, "bad")],
)
def test_exit_status_is_what_sys_exit_gives(status, code, stderr):
    done = python(
        f"""
        from nbayes.cli import _leave
        _leave({status!r})
        """
    )
    assert done.returncode == code
    assert done.stderr.strip() == stderr


def test_atexit_functions_and_buffered_output_still_happen():
    done = python(
        """
        import atexit, sys
        from nbayes.cli import _leave
        atexit.register(lambda: print("atexit ran"))
        sys.stdout.write("buffered, no newline")
        _leave(0)
        """
    )
    assert done.returncode == 0
    assert done.stdout == "buffered, no newlineatexit ran\n"


def test_a_running_thread_gets_the_ordinary_shutdown(tmp_path):
    """A thread still at work (not one of nbayes's idle pools) is waited for, as
    Python's own shutdown waits for it: its file is written before the process ends."""
    done = python(
        """
        import sys, threading, time
        from pathlib import Path
        from nbayes.cli import _leave
        from nbayes.core.parallel import kept_executor
        kept_executor("test", 2).submit(sum, [1, 2]).result()
        def work():
            time.sleep(0.5)
            Path(sys.argv[1]).write_text("done")
        threading.Thread(target=work).start()
        _leave(4)
        """,
        str(tmp_path / "out.txt"),
    )
    assert done.returncode == 4
    assert (tmp_path / "out.txt").read_text() == "done"
    assert done.stderr == "teardown ran"


def test_idle_pool_threads_do_not_keep_the_process():
    done = python(
        """
        from nbayes.cli import _leave
        from nbayes.core.parallel import kept_executor
        kept_executor("test", 2).submit(sum, [1, 2]).result()
        _leave(5)
        """,
    )
    assert done.returncode == 5
    assert done.stderr == ""  # the teardown was skipped


def test_gone_reader_exits_quietly(table, tmp_path):
    """``nbayes predict ... | head -1``: status 141 (128 + SIGPIPE), no error text."""
    model = tmp_path / "m.nbm"
    subprocess.run([EXE, "train", table, "-t", "label", "-o", model], check=True)
    done = subprocess.run(
        f"'{EXE}' predict '{model}' '{table}' --proba | head -1; echo status ${{PIPESTATUS[0]}}",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
    )
    assert done.stdout.splitlines()[-1] == "status 141"
    assert done.stderr == ""
