"""Scenario H: start-up and compile, each measured in fresh Python processes.

    python bench/run.py --only H           # this section of bench/RESULTS.md
    python bench/scenario_startup.py       # the same, run alone (no thread-env child)

Rows (every time the median over ``--repeat`` fresh processes, nbayes and its rival
alternating, so load from other jobs falls on both alike):

- **cold**: with empty caches (a fresh ``NUMBA_CACHE_DIR`` and ``XDG_CACHE_HOME`` per
  process), the first ``GaussianNB().fit(X, y).predict_proba(X)`` and the first
  ``CountVectorizer().fit_transform(docs)`` in a process, timed inside the child from
  the import of the class to the end of the call (the imports both libraries make,
  NumPy, SciPy and scikit-learn's base classes, come first, untimed). These inputs
  are small enough for nbayes's NumPy and Python paths, which compile nothing
  (``nbayes._kernels.SMALL_WORK``, ``nbayes.tokens._small``), so the nbayes children
  lower those thresholds to take the compiled ones. Rival: scikit-learn's class
  imported and called the same way in its own fresh process; floor: nbayes's timed
  part with the caches warm. Target: at most 5 s.
- **warm**: a whole fresh process (caches filled by an earlier run) importing the
  library and doing a small fit, predict and vectorize: ``GaussianNB`` fit + predict
  + predict_proba on 300x6, ``CountVectorizer`` fit_transform of 200 short documents
  and ``MultinomialNB`` fit + predict on its counts. Rival: scikit-learn's classes
  doing the same; floor: ``python -c "import numpy"``. Target: at most 0.3 s over
  scikit-learn.
- **one large fit**: a whole fresh process making a 1,000,000 x 10 Gaussian table and
  fitting ``GaussianNB`` to it once (numba is loaded only once a process's calls would
  have saved its cost: ``nbayes._kernels.LOAD_COST_S``). Rival: scikit-learn's
  ``GaussianNB`` the same; floor: the same process making the table and fitting
  nothing. Target: at most 0.3 s over scikit-learn.
- **nbayes --help**: the whole command, a fresh process. Rival: ``python -c "import
  sklearn.naive_bayes"`` (what the command used to import); floor ``python -c pass``.
  Target: at most 0.5 s.

Wall time is what the targets judge; the notes give CPU time too (user + system of
the child, from ``wait4``), which other jobs on a shared machine disturb less. Peak MB
is the child's largest resident set, not tracemalloc's figure, taken in one more run of
each child (a cold row's with empty caches again) under GNU ``time``
(:func:`bench.harness.peak_rss`; 0 where ``/usr/bin/time`` is missing), not from
``wait4``: its ``ru_maxrss`` charges a child started from this process with this
process's own resident set. The children may write byte-compiled modules
(``PYTHONDONTWRITEBYTECODE`` is dropped), as an installed package has them.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The nbayes source the children import: this checkout's, or another revision's
#: (``BENCH_NBAYES_SRC=/path/to/src``, to time old and new code under the same load).
SRC = Path(os.environ.get("BENCH_NBAYES_SRC") or ROOT / "src")
if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))

from bench.harness import Measurement, gnu_time_available, peak_rss  # noqa: E402
from bench.registry import Case, Dataset, Measured, register  # noqa: E402

_DATA = """
import numpy as np
rng = np.random.default_rng(0)
y = rng.integers(0, 3, 300)
X = rng.normal(size=(300, 6)) + y[:, None]
words = ("naive bayes counts words in the documents of each class and adds one "
         "café über straße résumé").split()
docs = [" ".join(rng.choice(words, 12)) for _ in range(200)]
labels = rng.integers(0, 2, 200)
"""

_IMPORTS = {
    "nbayes": {
        "gaussian": "from nbayes import GaussianNB\n",
        "text": "from nbayes.text import CountVectorizer\n",
        "all": "from nbayes import GaussianNB, MultinomialNB\n"
        "from nbayes.text import CountVectorizer\n",
    },
    "sklearn": {
        "gaussian": "from sklearn.naive_bayes import GaussianNB\n",
        "text": "from sklearn.feature_extraction.text import CountVectorizer\n",
        "all": "from sklearn.naive_bayes import GaussianNB, MultinomialNB\n"
        "from sklearn.feature_extraction.text import CountVectorizer\n",
    },
}

# What both libraries import anyway (scikit-learn's base classes), not timed in a
# first call: the timed part is the library's own imports and the call.
_BASE = "import numpy, scipy.sparse, sklearn.base, sklearn.utils.validation\n"

_TIMED = """
import json, time
start = time.perf_counter()
{imports}{call}
print(json.dumps({{"call_s": time.perf_counter() - start}}))
"""

# What the cold rows' nbayes children run after the import: the compiled paths even
# for these small inputs.
_COMPILED = {
    "gaussian": "from nbayes import _kernels; _kernels.SMALL_WORK = _kernels.LOAD_COST_S = 0\n",
    "text": "from nbayes.tokens import _small; _small.SMALL_CHARS = -1\n",
}

_CALLS = {
    "gaussian": "GaussianNB().fit(X, y).predict_proba(X)",
    "text": "CountVectorizer().fit_transform(docs)",
}

_SMALL_JOB = """
model = GaussianNB().fit(X, y)
model.predict(X), model.predict_proba(X)
counts = CountVectorizer().fit_transform(docs)
MultinomialNB().fit(counts, labels).predict(counts)
"""


def first_call(library: str, call: str) -> str:
    """A child program timing the import of ``library``'s class and ``call`` (a key
    of ``_CALLS``) once, after the common base imports and the data."""
    imports = _IMPORTS[library][call] + (_COMPILED[call] if library == "nbayes" else "")
    timed = _TIMED.format(imports=imports, call=_CALLS[call])
    return _BASE + _DATA + timed


_LARGE = """
import numpy as np
rng = np.random.default_rng(0)
y = rng.integers(0, 3, 1_000_000)
X = rng.normal(size=(1_000_000, 10)) + y[:, None]
"""


def large_fit(library: str | None) -> str:
    """A child program making a 1,000,000 x 10 table and fitting ``library``'s
    ``GaussianNB`` to it once (None: making the table only)."""
    if library is None:
        return _LARGE
    return _IMPORTS[library]["gaussian"] + _LARGE + "GaussianNB().fit(X, y)\n"


def small_job(library: str) -> str:
    """A child program importing ``library``'s classes and doing the small job."""
    return _IMPORTS[library]["all"] + _DATA + _SMALL_JOB


@dataclass
class Run:
    """One child process: wall seconds (start to exit), CPU seconds (user + system) and
    the ``call_s`` it printed, if any."""

    wall_s: float
    cpu_s: float
    call_s: float | None


def child_env(cache_dir: str) -> dict[str, str]:
    """This process's environment for a child whose caches (compiled kernels,
    ``NUMBA_CACHE_DIR``; nbayes's tables, under ``XDG_CACHE_HOME``) are in ``cache_dir``,
    importing nbayes from :data:`SRC`, byte-compiled modules kept."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "XDG_CACHE_HOME": cache_dir}
    # byte-compiled modules are kept, as a pip install writes them for every package
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


def run_child(argv: list[str], cache_dir: str) -> Run:
    """Run ``argv`` in a fresh process with its caches in ``cache_dir`` (:func:`child_env`);
    its own CPU time comes from ``wait4``."""
    env = child_env(cache_dir)
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=err)
        out = child.stdout.read()
        child.stdout.close()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            message = err.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"{argv[:3]} failed ({child.returncode}):\n{message}")
    lines = [line for line in out.decode().splitlines() if line.startswith("{")]
    call = json.loads(lines[-1])["call_s"] if lines else None
    return Run(wall, usage.ru_utime + usage.ru_stime, call)


def peak_child(argv: list[str], cache_dir: str) -> int:
    """Bytes: the largest resident set of one more run of ``argv`` with its caches in
    ``cache_dir``, from GNU ``time`` (:func:`bench.harness.peak_rss`: the child's own, not
    this process's, as ``wait4`` would give); 0 where ``/usr/bin/time`` is missing."""
    return peak_rss(argv, env=child_env(cache_dir))


def _measurement(seconds: list[float], peak: int) -> Measurement:
    return Measurement(statistics.median(seconds), min(seconds), peak, seconds)


def _peak_note() -> str:
    if gnu_time_available():
        return (
            "Peak MB: the child's largest resident set, from one more run under GNU time "
            "(%M; a cold row's with empty caches again), not wait4's, which charges a child "
            "with the bench process's own."
        )
    return "Peak MB not measured (0.0): no GNU time at /usr/bin/time."


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code)]


def _nbayes_command() -> list[str]:
    script = Path(sys.executable).with_name("nbayes")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from nbayes.cli import main; sys.exit(main())"]


class _Rows:
    """Runs the children of one data set, keeping the CPU times for the notes."""

    def __init__(self) -> None:
        self.cpu: dict[str, dict[str, float]] = {}
        self.wall: dict[str, float] = {}

    def note(self, task: str, runs: dict[str, list[Run]]) -> None:
        self.cpu[task] = {k: statistics.median(r.cpu_s for r in v) for k, v in runs.items()}
        self.wall[task] = statistics.median(r.wall_s for r in runs["nbayes"])

    def cpu_notes(self, names: dict[str, str]) -> list[str]:
        lines = ["CPU seconds of the whole child process, user + system (medians):"]
        for task, cpu in self.cpu.items():
            parts = ", ".join(f"{names[k]} {v:.2f}" for k, v in cpu.items())
            lines.append(f"- {task}: {parts}")
        return lines


def _cold(repeats: int, rows: _Rows, warm: str) -> Measured:
    """The cold rows; the first empty cache nbayes fills is then copied into ``warm``
    (the floor's cache, and the warm rows' after), so nothing is compiled twice."""
    out = []
    for call, task in (
        ("gaussian", "first GaussianNB fit + predict_proba"),
        ("text", "first CountVectorizer fit_transform"),
    ):
        runs: dict[str, list[Run]] = {"nbayes": [], "sklearn": [], "floor": []}
        for repeat in range(repeats):
            with tempfile.TemporaryDirectory(prefix="nbayes-cold-") as cold:
                order = ["nbayes", "sklearn"] if repeat % 2 == 0 else ["sklearn", "nbayes"]
                for name in order:
                    runs[name].append(run_child(_python(first_call(name, call)), cold))
                if repeat == 0:
                    shutil.copytree(cold, warm, dirs_exist_ok=True)
            runs["floor"].append(run_child(_python(first_call("nbayes", call)), warm))
        rows.note(task, runs)
        peaks = {}
        for name in ("nbayes", "sklearn"):
            with tempfile.TemporaryDirectory(prefix="nbayes-cold-") as cold:
                peaks[name] = peak_child(_python(first_call(name, call)), cold)
        peaks["floor"] = peak_child(_python(first_call("nbayes", call)), warm)
        case = Case(task, lambda: None, lambda: None, floor_name="nbayes, caches warm",
                    max_s=5.0, compare_memory=False, same_result=False)  # fmt: skip
        got = {k: _measurement([r.call_s for r in v], peaks[k]) for k, v in runs.items()}
        out.append((case, got))
    return out


def _warm(repeats: int, rows: _Rows, warm: str) -> Measured:
    out = []
    run_child(_python(small_job("nbayes")), warm)  # what the cold rows left to compile
    run_child([*_nbayes_command(), "--help"], warm)
    run_child(_python(large_fit("nbayes")), warm)
    jobs = {
        "fresh process: import, small fit, predict, vectorize": {
            "nbayes": _python(small_job("nbayes")),
            "sklearn": _python(small_job("sklearn")),
            "floor": _python("import numpy"),
        },
        "fresh process: one GaussianNB fit of 1,000,000 x 10": {
            "nbayes": _python(large_fit("nbayes")),
            "sklearn": _python(large_fit("sklearn")),
            "floor": _python(large_fit(None)),
        },
        "nbayes --help": {
            "nbayes": [*_nbayes_command(), "--help"],
            "sklearn": _python("import sklearn.naive_bayes"),
            "floor": _python("pass"),
        },
    }
    for task, argvs in jobs.items():
        runs, got = whole_processes(argvs, repeats, warm)
        rows.note(task, runs)
        help_row = task == "nbayes --help"
        floor_name = {
            "nbayes --help": "python -c pass",
            "fresh process: one GaussianNB fit of 1,000,000 x 10": "making the table only",
        }.get(task, 'python -c "import numpy"')
        case = Case(
            task, lambda: None, lambda: None,
            floor_name=floor_name,
            max_s=0.5 if help_row else None,
            max_over_rival_s=None if help_row else 0.3,
            compare_memory=False, same_result=False,
        )  # fmt: skip
        out.append((case, got))
    return out


def whole_processes(
    argvs: dict[str, list[str]], repeats: int, cache_dir: str
) -> tuple[dict[str, list[Run]], dict[str, Measurement]]:
    """A warm row: each command line of ``argvs`` (nbayes, its rival, the floor) run
    ``repeats`` times in an order rotating by one each time, caches in ``cache_dir``;
    then its peak resident set in one more run (:func:`peak_child`). Returns the runs and
    each command's median wall time with that peak."""
    names = list(argvs)
    runs: dict[str, list[Run]] = {name: [] for name in names}
    for repeat in range(repeats):
        shift = repeat % len(names)
        for name in names[shift:] + names[:shift]:
            runs[name].append(run_child(argvs[name], cache_dir))
    got = {
        name: _measurement([r.wall_s for r in runs[name]], peak_child(argvs[name], cache_dir))
        for name in names
    }
    return runs, got


def _load_note() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    where = ""
    if "BENCH_NBAYES_SRC" in os.environ:
        where = f" The children imported nbayes from `{SRC}`."
    return (
        f"Load average (1, 5, 15 min) when the table was done: {load}, on {os.cpu_count()} "
        f"CPUs.{where}"
    )


@register("H", "Start-up and compile: fresh processes, cold and warm compile caches")
def build(quick: bool) -> Iterator[Dataset]:
    del quick  # the children are as small at any size
    cold_rows, warm_rows = _Rows(), _Rows()
    warm_cache = tempfile.TemporaryDirectory(prefix="nbayes-warm-")
    cold = Dataset(
        "Empty caches: the first call in a process (fresh NUMBA_CACHE_DIR, XDG_CACHE_HOME)",
        None,
    )

    def measure_cold(repeats: int) -> Measured:
        got = _cold(repeats, cold_rows, warm_cache.name)
        cold.notes += [
            "Times are of the class's import and the call, timed inside the child after "
            "the imports both libraries make; rival: scikit-learn's same import and call "
            "in its own fresh process; floor: nbayes's with the caches warm.",
            _peak_note(),
            *cold_rows.cpu_notes(
                {"nbayes": "nbayes", "sklearn": "scikit-learn", "floor": "nbayes warm"}
            ),
            _load_note(),
        ]
        return got

    cold.measure = measure_cold
    yield cold
    warm = Dataset("Warm compile caches: whole fresh processes, wall time", None)

    def measure_warm(repeats: int) -> Measured:
        got = _warm(repeats, warm_rows, warm_cache.name)
        warm.notes += [
            'Rival of `nbayes --help`: `python -c "import sklearn.naive_bayes"`, what the '
            "command imported before it became lazy. Peak MB: as above.",
            *warm_rows.cpu_notes(
                {
                    "nbayes": "nbayes",
                    "sklearn": "scikit-learn (or its import)",
                    "floor": "floor",
                }
            ),
            _load_note(),
        ]
        return got

    warm.measure = measure_warm
    yield warm
    warm_cache.cleanup()


def main(argv: list[str] | None = None) -> int:
    """``bench/run.py --only H``, run as its own process (the runner imports the
    scenarios: this module does not import it back)."""
    runner = Path(__file__).with_name("run.py")
    command = [sys.executable, str(runner), "--only", "H", "--thread-env", "off"]
    return subprocess.call([*command, *(argv or [])])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
