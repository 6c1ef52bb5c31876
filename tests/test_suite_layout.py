"""The test suite's own layout: pytest imports test modules by their basename (the
test directories are not packages), so two files of one name in different folders make
collection stop with "import file mismatch" before a single test runs."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).parent


def test_no_two_test_modules_share_a_basename():
    places: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        places[path.name].append(str(path.relative_to(TESTS)))
    shared = {name: where for name, where in places.items() if len(where) > 1}
    assert not shared, f"test modules sharing a basename (rename one): {shared}"


def test_one_conftest_only():
    """Test modules import helpers with ``from conftest import ...``: a second conftest.py
    in a subfolder is put ahead of tests/ on sys.path and hides the shared one."""
    nested = [str(p.relative_to(TESTS)) for p in TESTS.rglob("conftest.py") if p.parent != TESTS]
    assert not nested, f"conftest.py below tests/ (put fixtures in tests/conftest.py): {nested}"
