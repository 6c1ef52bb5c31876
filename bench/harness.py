"""Timing and memory measurement for the benchmark, and the machine it ran on.

Time: one warm-up call each, then the median (and minimum) wall time of ``repeats``
calls, ``time.perf_counter``, with one garbage collection before a row's calls and the
collector off during them (as :mod:`timeit` does). The
implementations compared in one row (nbayes, scikit-learn, the floor) are timed
interleaved, round-robin in a rotating order, so that load from other processes on a
shared machine falls on all of them alike and their ratios stay meaningful.

Peak memory: one more call under :mod:`tracemalloc`; the figure is the peak of traced
allocations during the call above what was allocated before it (so the inputs are not
counted, the result is). NumPy and SciPy report their array buffers to tracemalloc;
BLAS and OpenMP scratch buffers are not traced. The memory call is separate from the
timed calls, so tracing never slows a timing.

Peak memory of a whole command (:func:`peak_rss`): its largest resident set in one run
under GNU ``time`` (``%M``), for the benchmarks that time fresh processes.
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import subprocess
import tempfile
import time
import traceback
import tracemalloc
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Measurement:
    """Median and minimum seconds of the timed calls, and the traced peak in bytes."""

    median_s: float
    min_s: float
    peak_bytes: int
    times_s: list[float] = field(default_factory=list)


def measure(fn: Callable[[], object], repeats: int = 5, warmup: int = 1) -> Measurement:
    """Time ``fn`` (median of ``repeats`` calls after ``warmup``), then trace its peak."""
    return measure_interleaved({"fn": fn}, repeats, warmup)["fn"]


def measure_interleaved(
    fns: dict[str, Callable[[], object]], repeats: int = 5, warmup: int = 1
) -> dict[str, Measurement]:
    """Time several functions round-robin; each gets ``repeats`` timed calls."""
    names = list(fns)
    for name in names:
        for _ in range(warmup):
            fns[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for repeat in range(repeats):
            shift = repeat % len(names)
            for name in names[shift:] + names[:shift]:
                start = time.perf_counter()
                fns[name]()
                times[name].append(time.perf_counter() - start)
    finally:
        if enabled:
            gc.enable()
    return {
        name: Measurement(
            statistics.median(times[name]), min(times[name]), peak_memory(fns[name]), times[name]
        )
        for name in names
    }


def peak_memory(fn: Callable[[], object]) -> int:
    """Bytes: peak traced allocation during one call of ``fn``, above the level before it."""
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return max(peak - before, 0)


#: GNU time, whose ``%M`` is the largest resident set of the command it runs.
GNU_TIME = "/usr/bin/time"


def gnu_time_available() -> bool:
    """Whether :data:`GNU_TIME` is there to run (:func:`peak_rss` gives 0 without it)."""
    return os.access(GNU_TIME, os.X_OK)


def peak_rss(
    argv: Sequence[str],
    stdin: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    ok_status: Collection[int] = frozenset({0}),
) -> int:
    """Bytes: the largest resident set of one run of ``argv`` (reading the file ``stdin``,
    or nothing; its standard output discarded), from GNU ``time -f %M``; 0 where
    ``/usr/bin/time`` is missing. RuntimeError, with the end of the command's stderr,
    if its exit status is not one of ``ok_status``.

    Not ``wait4``'s ``ru_maxrss``: a child started from this process (fork or vfork,
    then exec) is charged this process's resident set as its own, so a bench holding
    300 MB saw 311 MB for ``true``. GNU ``time`` is a small parent (about 1 MB), so its
    ``%M`` is the command's own.

    >>> 0 <= peak_rss(["true"]) < 100 * 2**20
    True
    """
    if not gnu_time_available():
        return 0
    with (
        tempfile.TemporaryDirectory() as tmp,
        open(stdin if stdin is not None else os.devnull, "rb") as stdin_file,
        tempfile.TemporaryFile() as err,
    ):
        log = Path(tmp) / "rss"
        timed = [GNU_TIME, "-o", str(log), "-f", "%M", *argv]
        status = subprocess.call(
            timed, stdin=stdin_file, stdout=subprocess.DEVNULL, stderr=err, env=env
        )
        if status not in ok_status:
            err.seek(0)
            tail = err.read().decode(errors="replace")[-2000:]
            where = f" < {stdin}" if stdin is not None else ""
            raise RuntimeError(f"{list(argv)}{where} failed ({status}):\n{tail}")
        # the last word: a failing command's "Command exited with non-zero status" precedes it
        return 1024 * int(log.read_text().split()[-1])


def in_fork(fn: Callable[[], int]) -> int:
    """``fn()`` (an int) computed in a forked copy of this process, so that whatever it
    changes (environment, resource counters) is gone afterwards."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, report, leave without running cleanup handlers
        code = 1
        try:
            os.close(read_end)
            os.write(write_end, str(int(fn())).encode())
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        reply = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not reply:
        raise RuntimeError(f"the forked measurement failed (wait status {status})")
    return int(reply)


def machine_info() -> dict[str, str]:
    """The machine, Python and library versions, and BLAS threading."""
    import numpy
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    import nbayes

    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = "unknown"
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f"{pages / 2**30:.1f} GiB"
    except (ValueError, OSError, AttributeError):
        pass
    pools = [
        f"{pool['internal_api']} {pool.get('version') or ''} ({pool['user_api']}, "
        f"{pool['num_threads']} threads, {pool.get('threading_layer') or 'n/a'})"
        for pool in threadpool_info()
    ]
    blas_env = {k: v for k, v in os.environ.items() if k.endswith("_NUM_THREADS")}
    return {
        "machine": f"{platform.machine()}, {cpu}, {os.cpu_count()} logical CPUs, {memory}",
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": (
            f"nbayes {nbayes.__version__}, numpy {numpy.__version__}, "
            f"scipy {scipy.__version__}, scikit-learn {sklearn.__version__}"
        ),
        "threadpools": "; ".join(pools) or "none loaded",
        "load average (1, 5, 15 min) at start": ", ".join(f"{x:.2f}" for x in load_average()),
        "nbayes imported from": os.path.dirname(nbayes.__file__),
        "thread env": ", ".join(f"{k}={v}" for k, v in sorted(blas_env.items())) or "none set",
    }


def load_average() -> tuple[float, ...]:
    try:
        return os.getloadavg()
    except OSError:
        return ()


def partial_fits(model_cls, batches: list[tuple], classes):
    """A call that fits a new ``model_cls`` by ``partial_fit`` on each batch in turn."""

    def run():
        model = model_cls()
        for X_batch, y_batch in batches:
            model.partial_fit(X_batch, y_batch, classes=classes)
        return model

    return run
