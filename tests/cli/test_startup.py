"""Start-up of the ``nbayes`` command: ``--help`` imports none of the heavy libraries
(how long it takes is measured in ``bench/scenario_startup.py``, not asserted here),
and the listing it prints without importing the subcommands is the one they give."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "scipy", "sklearn", "pandas", "numba", "llvmlite", "matplotlib", "pyarrow")


def imported_by(*args: str) -> set[str]:
    """Top-level packages a fresh ``nbayes ARGS`` process imports (``-X importtime``),
    and its output."""
    code = "import sys; from nbayes.cli import main; sys.argv[0] = 'nbayes'; main()"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, *args],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert lines, "no -X importtime output"
    names = {line.rsplit("|", 1)[-1].strip() for line in lines}
    return {name.split(".")[0] for name in names}, done.stdout


@pytest.mark.parametrize("args", [["--help"], ["spam", "--help"], ["--version"]])
def test_help_imports_no_heavy_library(args):
    packages, out = imported_by(*args)
    assert "click" in packages and "nbayes" in packages  # the listing is complete
    assert not packages & set(HEAVY), sorted(packages & set(HEAVY))
    assert out.strip()


_LISTINGS = """
import contextlib, io, json, sys
from nbayes.cli import main

def render(args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(args, prog_name="nbayes")
    return out.getvalue()

lazy = [render(["--help"]), render(["spam", "--help"])]
assert "sklearn" not in sys.modules
for group in (main, main.get_command(None, "spam")):
    for name in group.list_commands(None):
        assert group.get_command(None, name) is not None, name
assert "sklearn" in sys.modules  # the commands are imported now
print(json.dumps([lazy, [render(["--help"]), render(["spam", "--help"])]]))
"""


def test_help_lists_what_the_imported_commands_say():
    """The listing read from the sources equals click's own once every subcommand is
    imported (help texts, hidden commands, shortening), so it cannot drift."""
    done = subprocess.run([sys.executable, "-c", _LISTINGS], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    lazy, eager = json.loads(done.stdout)
    assert "Commands:" in lazy[0] and "classify" in lazy[1]
    assert lazy == eager
