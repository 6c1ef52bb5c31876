"""nbayes as of another git revision, to time old and new code in one run."""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def export_revision(rev: str) -> Path:
    """The ``src`` folder of git revision ``rev`` (only ``src/nbayes``), exported to a
    temporary folder: put it on ``PYTHONPATH`` (or ``sys.path``) to import that nbayes."""
    archive = subprocess.run(
        ["git", "archive", rev, "src/nbayes"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="nbayes-rev-"))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder / "src"


def import_revision(rev: str) -> ModuleType:
    """The ``nbayes`` package as of git revision ``rev``, imported in this process from
    an export and then moved out of the way (its modules keep their own references;
    the current ``nbayes`` stays what ``import nbayes`` gives)."""
    src = str(export_revision(rev))
    saved = {k: v for k, v in sys.modules.items() if k == "nbayes" or k.startswith("nbayes.")}
    for key in saved:
        del sys.modules[key]
    sys.path.insert(0, src)
    try:
        package = importlib.import_module("nbayes")
        importlib.import_module("nbayes.models.gaussian")
        importlib.import_module("nbayes.models.discrete")
        # A revision whose package exports its names lazily (on first access) must
        # resolve them now, while its own modules are the ones in sys.modules; later
        # they would be imported from the current nbayes (old would time new).
        for name in getattr(package, "__all__", ()):
            try:
                getattr(package, name)
            except ImportError:  # an optional extra not installed: not timed here
                pass
    finally:
        sys.path.remove(src)
        for key in [k for k in sys.modules if k == "nbayes" or k.startswith("nbayes.")]:
            del sys.modules[key]
        sys.modules.update(saved)
    return package
