"""Shared fixtures: scikit-learn's test fixtures, the compiled/NumPy kernel paths, and
the paths to shared data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# scikit-learn's array API dispatch (nbayes on PyTorch, CuPy, array-api-strict arrays)
# needs SciPy's own array API support, switched on before SciPy is first imported;
# NumPy input behaves the same with it (tests/test_array_api.py, the sklearn suite).
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np
import pytest
from hypothesis import settings

# Property tests: under CI the examples are derived from each test (derandomize), so a
# run is reproducible and cannot turn red on a new draw; elsewhere ("dev", the README's
# test command) every run draws afresh and keeps exploring (a failure found there
# becomes a plain regression test). No per-example deadline in either: on a slower or
# busier machine (or at a first call that compiles) an example over 200 ms would fail,
# or pass on replay and be reported as Flaky; the tests assert results, and the
# benchmarks measure speed.
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = SHARED / "data"
WORKED_EXAMPLES = SHARED / "worked_examples"


#: The installed ``nbayes`` command beside the Python running the tests.
NBAYES = str(Path(sys.executable).with_name("nbayes"))


def nbayes(
    *args, input: str | bytes | None = None, cwd: Path | None = None,
    env: dict[str, str] | None = None, text: bool = True, quiet: bool = True,
    timeout: float = 300, stdin=subprocess.DEVNULL, preexec_fn=None, check: bool = False,
) -> subprocess.CompletedProcess:  # fmt: skip
    """``nbayes ARGS...`` as a user runs it: the installed command in a subprocess, its
    output captured (str with ``text``, else bytes), stdin closed unless ``input`` (or
    another ``stdin``) is given, ``env`` set over this process's environment, and with
    ``quiet`` Python's warnings off (``PYTHONWARNINGS=ignore``). The exit status is
    left to the test; with ``check`` it must be 0."""
    done = subprocess.run(
        [NBAYES, *map(str, args)], input=input, stdin=None if input is not None else stdin,
        capture_output=True, text=text, cwd=cwd, timeout=timeout, preexec_fn=preexec_fn,
        env={**os.environ, **({"PYTHONWARNINGS": "ignore"} if quiet else {}), **(env or {})},
        check=False,
    )  # fmt: skip
    if check:
        assert done.returncode == 0, (args, done.stderr)
    return done


def nbayes_spam(*args, **options) -> subprocess.CompletedProcess:
    """``nbayes spam ARGS...`` as :func:`nbayes` runs it, its output bytes (mail is
    bytes) and Python's warnings shown (a mail server's log gets them too)."""
    return nbayes("spam", *args, text=False, quiet=False, **options)


def _seeds() -> list[int]:
    """scikit-learn's convention: SKLEARN_TESTS_GLOBAL_RANDOM_SEED = N, A-B or 'all'."""
    value = os.environ.get("SKLEARN_TESTS_GLOBAL_RANDOM_SEED", "42")
    if value == "all":
        return list(range(100))
    if "-" in value:
        low, high = map(int, value.split("-"))
        return list(range(low, high + 1))
    return [int(value)]


def pytest_generate_tests(metafunc):
    if "global_random_seed" in metafunc.fixturenames:
        metafunc.parametrize("global_random_seed", _seeds())


@pytest.fixture(autouse=True)
def kernels_at_any_size(monkeypatch):
    """The compiled kernels for calls of any size (``SMALL_WORK = 0``, loaded at the
    first call: ``LOAD_COST_S = 0``, and no text for the Python path of small
    vectorizer inputs): the tests' small data run them as large data would, and
    compare them with the NumPy paths. Tests of the small-call paths themselves set
    the thresholds back."""
    from nbayes import _kernels
    from nbayes.tokens import _small

    monkeypatch.setattr(_kernels, "SMALL_WORK", 0)
    monkeypatch.setattr(_kernels, "LOAD_COST_S", 0.0)
    monkeypatch.setattr(_small, "SMALL_CHARS", -1)


@pytest.fixture(params=["compiled", "numpy"])
def kernel_path(request, monkeypatch):
    """Runs the test on the compiled kernels (numba) and on the NumPy fallback."""
    from nbayes import _kernels

    if request.param == "compiled":
        pytest.importorskip("numba")
    monkeypatch.setattr(_kernels, "ENABLED", request.param == "compiled")
    return request.param


@pytest.fixture(params=[np.float32, np.float64], ids=["float32", "float64"])
def global_dtype(request):
    return request.param


def require_path(path: Path) -> Path:
    """The path of a shared data set; skipped where missing, but a failure under CI."""
    if not path.exists():
        message = f"missing shared data: {path}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture
def redis_server(tmp_path_factory):
    """A real ``redis-server`` on a free loopback port (:mod:`redis_server`), its
    databases empty, killed after the test."""
    from redis_server import RedisServer

    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def db(tmp_path):
    """A SQLite spam token store trained on 40 synthetic spam and 40 ham messages (the
    spam tests' common store; a test module may define its own ``db`` instead)."""
    from spam_mail import corpus

    from nbayes.spam.store import TokenStore
    from nbayes.spam.tokens import tokenize

    messages, labels = corpus(40, 40)
    path = tmp_path / "t.db"
    with TokenStore(path) as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
    return path
