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


_DEFERRED = """
import sys
from nbayes.cli._lazy import defer_import

defer_import("scipy.stats")
stand_in = sys.modules["scipy.stats"]
import sklearn.utils.fixes  # imports scipy.stats: the stand-in, not loaded
assert sys.modules["scipy.stats"] is stand_in and "norm" not in stand_in.__dict__
import scipy.stats
from scipy.stats import chi2  # the first read loads the real module
real = sys.modules["scipy.stats"]
assert real is not stand_in and chi2 is real.chi2 and stand_in.norm is real.norm
assert scipy.stats.norm is real.norm and sklearn.utils.fixes.scipy.stats.mode is real.mode
print(round(float(chi2.sf(3.0, 2)), 6))
"""


def test_deferred_import_loads_on_first_read():
    """``defer_import`` (the CLI's for ``scipy.stats``, which scikit-learn imports and
    train/predict never use): importing is free, the first attribute read loads the
    real module, and names bound to the stand-in or the module see the same objects."""
    done = subprocess.run(
        [sys.executable, "-c", _DEFERRED], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "0.22313"  # exp(-3/2)


@pytest.mark.parametrize("command", ["train", "predict"])
def test_train_and_predict_never_load_scipy_stats(tmp_path, command):
    """The deferral pays: ``nbayes train`` and ``predict`` run without loading it."""
    table = tmp_path / "t.csv"
    rows = [f"{i % 7 * 0.5},{'ab'[i % 2]},{'xyz'[i % 3]}" for i in range(60)]
    table.write_text("x,s,label\n" + "\n".join(rows) + "\n")
    model = tmp_path / "m.nbm"
    args = {
        "train": ["train", str(table), "--target", "label", "-o", str(model)],
        "predict": ["predict", str(model), str(table), "--proba", "-o", str(tmp_path / "o.csv")],
    }
    if command == "predict":
        _run(args["train"])
    code = (
        "import sys; from nbayes.cli import main\n"
        "try:\n    main(sys.argv[1:], prog_name='nbayes')\nexcept SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "print('mode' in sys.modules['scipy.stats'].__dict__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *args[command]], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "False"


def _run(args: list[str]) -> None:
    code = "import sys; from nbayes.cli import main; main(sys.argv[1:], prog_name='nbayes')"
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
