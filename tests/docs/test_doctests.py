"""Every ``>>>`` example in the docstrings of ``src/nbayes`` runs and prints what it
shows (``doctest``, with ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE``), module by module.

A module that needs an optional extra which is not installed is skipped, naming the
missing module; under ``CI=true`` that is a failure, since the test extra installs
every optional dependency.
"""

from __future__ import annotations

import doctest
import importlib
import os
import pkgutil

import pytest

import nbayes

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(nbayes.__path__, "nbayes.")
    if not info.name.endswith("__main__")
)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_the_docstrings_hold_examples():
    """The walk sees the package (a walk that finds nothing would pass every test)."""
    assert len(MODULES) > 100
    finder = doctest.DocTestFinder(exclude_empty=True)
    module = importlib.import_module("nbayes.core.protocol")
    assert sum(len(t.examples) for t in finder.find(module, module.__name__)) >= 3


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        if os.environ.get("CI") == "true":
            raise  # the test extra provides every optional module
        pytest.skip(f"{name} needs {error.name or error}, an optional extra not installed")
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    for test in finder.find(module, name):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
