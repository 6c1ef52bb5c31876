"""Compiled kernels (numba), grouped by the maths they serve:

- :mod:`~nbayes._kernels.categorical`: the categorical gather-sum and counts;
- :mod:`~nbayes._kernels.gaussian`: Gaussian class moments of a row block, the
  one-pass update of running moments, and the log-likelihood terms;
- :mod:`~nbayes._kernels.gaussian_observed`: the same for rows with missing values
  (a table's gaussian columns): class moments of the observed entries, and the
  log-likelihood summed over each row's known features;
- :mod:`~nbayes._kernels.posterior`: the posterior's row max, exponential (glibc's
  vector ``exp``, :mod:`~nbayes._kernels.vector_math`) and row sum;
- :mod:`~nbayes._kernels.strings`: Arrow string arrays factorized, or looked up in a
  vocabulary, by one hash probe per value over their buffers;
- :mod:`~nbayes._kernels.weights`: the scatter-add of class weights.

numba is a required dependency. Each caller keeps its NumPy/SciPy path as the
reference the tests compare the kernels with, bitwise (set :data:`ENABLED` to False
to force it). The kernels release the GIL, so :func:`nbayes.core.parallel.map_blocks`
runs them on row blocks in parallel.

Small calls take the reference path too (:func:`available`, :data:`SMALL_WORK`), so
that a process doing only small jobs never imports numba: importing it, setting up its
compiler's target and loading the cached kernels costs a fresh process ~0.4 s, and
its objects slow the interpreter's exit by ~0.2 s more, against a few tens of
microseconds that a small call saves. Larger calls take it until loading pays
(:data:`LOAD_COST_S`): a kernel saves 0.3-40 ns of CPU a step, so a process whose
whole work is one fit of a 1,000,000 x 10 table (10 M steps, ~20 ms saved) is faster
without numba; the reference paths run, counting the CPU time the kernels would have
saved, until that total reaches the cost of loading them, and from then on every
call above :data:`SMALL_WORK` takes the kernels (the rent-or-buy rule: a process
never spends more than twice what the better choice in hindsight would have). The
choice changes no result, only speed: the two paths are bitwise the same, except the
posterior's exponential (:mod:`~nbayes._kernels.posterior`).

Compiling costs far more than running once, so every kernel is compiled on first
use, for the argument types it is called with, and its machine code is cached on
disk (:func:`cache_dir`): a later process loads it in milliseconds. Top-level
kernels (:func:`kernel`, :func:`jit`), called from Python, get no C-callable
wrapper; helpers (:func:`helper`), called only from compiled code, get no Python
wrapper either (which halves what a small one costs to compile), and the small
steps of hot loops are inlined into their callers (by numba or by LLVM, see
:func:`helper`). numba compiles a helper once per
distinct tuple of argument types at its call sites, literal constants included, so
callers pass helpers variables of one type (``np.int64(0)``, not ``0``):
``tests/kernels/test_compile.py`` checks that no kernel or helper is compiled twice
for one type in a workload through every kernel.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat
import sys
import tempfile
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path

#: Set to False to force the NumPy/SciPy reference paths (tests compare the two).
ENABLED = True

#: The least work (about the number of inner-loop steps: values read or written) for
#: which a call uses the compiled kernels; below it the NumPy/SciPy path runs and
#: numba is not imported. Measured (warm, one thread) at 10,000 steps, the reference
#: paths cost at most 0.05 ms more a call than the kernels: the class moments of
#: 1,000 x 10 rows 0.04 ms, the Gaussian terms of 3,334 rows x 3 classes 0.04 ms,
#: the posterior of 3,334 x 3 0.01 ms (1,000 x 10: 0.02), the scatter-add of 10,000
#: nonzeros 0.003 ms, the categorical counts of 2,000 x 5 codes and the gather of
#: 667 x 5 x 3 0.05 ms; a process's first kernel call costs ~0.4 s, its exit ~0.2 s.
SMALL_WORK = 10_000
#: :data:`SMALL_WORK` as shipped (tests and benchmarks set it to 0 for their runs).
DEFAULT_SMALL_WORK = SMALL_WORK

#: What loading the kernels costs a process, in seconds of CPU: importing numba,
#: setting up its compiler's target, loading the cached kernels, and numba's objects'
#: share of the interpreter's exit. Measured as whole processes (bench/NOTES.md,
#: issue 29): one GaussianNB fit of 1,000,000 x 10 took 2.62 s of CPU with the
#: kernels against 2.12 s without (and 378 against 296 MB resident). Calls above
#: :data:`SMALL_WORK` take the reference paths until the CPU time the kernels would
#: have saved them reaches this (:func:`available`); 0 loads them at the first.
LOAD_COST_S = 0.5
#: :data:`LOAD_COST_S` as shipped (tests and benchmarks set it to 0 for their runs).
DEFAULT_LOAD_COST_S = LOAD_COST_S

#: The CPU seconds the kernels would have saved this process's calls that took the
#: reference paths only because numba was not loaded yet (:func:`available`); infinite
#: once it is. Changed under :data:`_forgone_lock` (calls on row blocks run in threads).
_forgone_s = 0.0
_forgone_lock = threading.Lock()

#: The options of every compiled function: the GIL released, no C-callable wrapper
#: (nothing takes a kernel's address).
_OPTIONS = {"nogil": True, "no_cfunc_wrapper": True}


@cache
def numba():
    """The numba module, its cache set up for nbayes (:func:`cache_dir`) and Python's
    garbage collector paused while it compiles nbayes's kernels
    (:func:`_pause_gc_while_compiling`)."""
    import numba

    global _forgone_s
    with _forgone_lock:
        _forgone_s = math.inf  # loaded: every call worth it takes the kernels from now
    _install_cache_locator()
    _pause_gc_while_compiling()
    return numba


def available(work: float = math.inf, saving_s: float = math.inf) -> bool:
    """Whether a call with ``work`` inner-loop steps uses the compiled kernels, each
    step ``saving_s`` seconds of CPU faster than its reference path (measured by the
    caller; by default a call of unknown work, worth any cost): :data:`ENABLED`,
    ``work`` at least :data:`SMALL_WORK`, and the kernels loaded already (by nbayes:
    numba imported by the user's own code still costs the target's set-up and the
    kernels' loads), or worth loading now: what this call and the earlier ones that
    went without would have saved, ``sum work * saving_s``, at least
    :data:`LOAD_COST_S`.
    """
    if not ENABLED or work < SMALL_WORK:
        return False
    global _forgone_s
    with _forgone_lock:
        _forgone_s += math.inf if math.isinf(work) else work * saving_s
        return _forgone_s >= LOAD_COST_S


def _pause_gc_while_compiling() -> None:
    """Pause Python's cyclic garbage collector while numba compiles a kernel of
    nbayes's (and what it calls), as other compilers written in Python do.

    numba's compiler makes and drops millions of small objects, which trigger full
    collections over the whole heap (NumPy, SciPy, scikit-learn and numba's own
    modules): about 0.4 s of a first CountVectorizer fit's ~4.7 s. Paused, the
    compile's garbage waits until it ends (about 30 MB more at the peak of that
    fit), and the next collection frees it. A collector the user disabled stays
    disabled; the compiles of the user's own numba functions are left alone."""
    import gc

    from numba.core import event

    class PauseGC(event.Listener):
        """On the outermost compile of an nbayes function: collector off, then back on."""

        depth = 0
        resume = False

        def on_start(self, ev: event.Event) -> None:
            if self.depth == 0:
                dispatcher = (ev.data or {}).get("dispatcher")
                module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
                if not module.startswith("nbayes."):
                    return
                self.resume = gc.isenabled()
                gc.disable()
            self.depth += 1

        def on_end(self, ev: event.Event) -> None:
            if self.depth == 0:
                return
            self.depth -= 1
            if self.depth == 0 and self.resume:
                gc.enable()

    event.register("numba:compile", PauseGC())


def cache_root() -> Path:
    """nbayes's folder in the user's cache directory: ``$XDG_CACHE_HOME/nbayes`` (by
    default ``~/.cache/nbayes``) on Linux, ``~/Library/Caches/nbayes`` on macOS,
    ``%LOCALAPPDATA%\\nbayes\\Cache`` on Windows. Never beside the installed source,
    which may be read-only or shared between users."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / "nbayes" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "nbayes"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "nbayes"


def cache_dir() -> Path:
    """Where the compiled kernels are cached: ``$NUMBA_CACHE_DIR`` where the user set
    it (numba's own rule), else ``numba`` in :func:`cache_root`. Where that cannot be
    written, a folder of the user's own under the temporary directory is used."""
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    return Path(explicit) if explicit else cache_root() / "numba"


def _fallback_dir() -> Path:
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"nbayes-{user}" / "numba"


def _private_dir(path: Path) -> bool:
    """Whether ``path`` is (now) a directory of this user's alone: numba loads machine
    code (and unpickles) from its cache, so a shared temporary directory where another
    user could have put files first must not be used."""
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        status = path.lstat()
    except OSError:
        return False
    owner = not hasattr(os, "getuid") or status.st_uid == os.getuid()
    return stat.S_ISDIR(status.st_mode) and owner and not status.st_mode & 0o077


_PACKAGE = str(Path(__file__).resolve().parents[1])  # src/nbayes, or site-packages/nbayes


#: The modules whose code compiled kernels hold (kernels, the helpers they call, the
#: constants they read), relative to the package: what :func:`source_fingerprint` reads.
COMPILED_SOURCES = (
    "_kernels/*.py",
    "tokens/_kernels*.py",
    "tokens/_prefetch.py",
    "tokens/_encode.py",
)


def source_fingerprint(package: Path = Path(_PACKAGE)) -> str:
    """A hash of every module whose code the compiled kernels hold.

    numba checks a cached kernel against its own source file only, so a kernel whose
    helper (in another module) changed would load the old machine code: after an
    upgrade of nbayes, or an edit of a helper. Every cached kernel's stamp includes
    this hash, so any such change compiles afresh (and overwrites the old entry)."""
    digest = hashlib.sha256()
    for pattern in COMPILED_SOURCES:
        for path in sorted(package.glob(pattern)):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _install_cache_locator() -> None:
    """Put nbayes's cache locators in front of numba's own, for nbayes's source files.

    numba picks, per function, the first locator that can write: ``NUMBA_CACHE_DIR``
    if set, else ``__pycache__`` beside the source, else a user-wide folder. The
    locators added here come first and answer only for files of this package (so the
    user's own numba functions cache where they always did): :func:`cache_dir` (which
    honours ``NUMBA_CACHE_DIR``), else the private temporary fallback; their stamps
    include :func:`source_fingerprint`.
    """
    from numba.core import caching

    # public names since numba 0.61, with a leading underscore before
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    user_wide = getattr(caching, "UserWideCacheLocator", None) or getattr(
        caching, "_UserWideCacheLocator", None
    )
    classes = getattr(impl, "_locator_classes", None)
    if classes is None or user_wide is None or any(getattr(c, "nbayes", 0) for c in classes):
        return  # another numba layout (then its default locators apply), or done
    fingerprint = source_fingerprint()

    class NBayesCacheLocator(user_wide):
        """numba's user-wide locator, rooted at :func:`cache_dir` (or the fallback),
        whose source stamp also covers the kernels' helpers."""

        nbayes = True
        root: Path = cache_dir()

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            subpath = self.get_suitable_cache_subpath(py_file)
            self._cache_path = os.path.join(self.root, subpath)

        def get_source_stamp(self):
            return (super().get_source_stamp(), fingerprint)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not str(Path(py_file).resolve()).startswith(_PACKAGE + os.sep):
                return None
            return super().from_function(py_func, py_file)

    class NBayesFallbackLocator(NBayesCacheLocator):
        root = _fallback_dir()

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _private_dir(cls.root.parent):
                return None
            return super().from_function(py_func, py_file)

    classes.insert(0, NBayesCacheLocator)
    classes.insert(1, NBayesFallbackLocator)


def kernel(function: Callable) -> Callable:
    """``function`` as a top-level kernel, called from Python: compiled on first use
    per argument types, GIL released, machine code cached (:func:`cache_dir`)."""
    return _njit(function, cache=True, **_OPTIONS)


def helper(function: Callable | None = None, *, inline: bool | str = False):
    """``function`` as a helper of kernels, called only from compiled code: no Python
    wrapper, not cached on its own (its callers' cached code holds it), compiled once
    per argument types and left to LLVM to inline or call.

    The small steps of the text kernels' hot loops are inlined, where a call cost
    5-60 % of a 20 Newsgroups fit (measured with no inlining: CountVectorizer
    0.28-0.30 s of CPU against 0.17-0.20 s, HashingVectorizer 0.40-0.54 s against
    0.30 s), in one of two ways, for the same speed but not the same compile time:

    - ``inline=True``: numba inlines its body into each caller (``inline="always"``).
      numba copies the callee's IR at every call site, nested ones included, at a cost
      that grows with its blocks times its variables (a helper of a few loops with
      its own helpers inlined took 0.1-0.2 s a site): for steps called from one or two
      places whose own steps are not inlined this way;
    - ``inline="llvm"``: compiled once per argument types, as any helper, then
      inlined by LLVM wherever it is called (``forceinline``): for the leaf steps
      called from many places (10-80 ms each, once).
    """
    if inline not in (False, True, "llvm"):
        raise ValueError(f"inline must be False, True or 'llvm'; got {inline!r}")
    options = {"no_cpython_wrapper": True, **_OPTIONS}
    if inline == "llvm":
        options["forceinline"] = True
    elif inline:
        options["inline"] = "always"
    if function is None:
        return lambda f: numba().njit(**options)(f)
    return numba().njit(**options)(function)


def _njit(function: Callable, **options) -> Callable:
    try:
        return numba().njit(**options)(function)
    except RuntimeError:  # pragma: no cover - no writable cache directory at all
        options.pop("cache", None)
        return numba().njit(**options)(function)


@cache
def jit(function: Callable) -> Callable:
    """:func:`kernel` of ``function``, made once per process on first use (for the
    kernels whose modules must import without numba's cost)."""
    return kernel(function)
