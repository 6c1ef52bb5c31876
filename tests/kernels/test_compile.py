"""Where compiled kernels are cached, and that none is compiled twice.

Each test runs a fresh Python process with its own empty caches, as a new user's
first run would be (how long compiling takes is measured in
``bench/scenario_startup.py``, never asserted here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nbayes

PACKAGE = Path(nbayes.__file__).resolve().parent

SMALL_JOB = """
import numpy as np
from nbayes._kernels import weights
weights.scatter_add(np.array([0, 1, 1]), np.ones(3), np.zeros(2))
"""


def run_child(code: str, env: dict[str, str]) -> str:
    unset = ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")
    base = {k: v for k, v in os.environ.items() if k not in unset}
    done = subprocess.run(
        [sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def cache_files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.suffix in (".nbi", ".nbc")}


def test_kernels_are_cached_in_the_user_cache_directory_never_beside_the_source(tmp_path):
    before = cache_files(PACKAGE)
    run_child(SMALL_JOB, {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)})
    numba_dir = tmp_path / "xdg" / "nbayes" / "numba"
    written = cache_files(numba_dir)
    assert {p.name.split("-")[0] for p in written} == {"weights._scatter_add_kernel"}
    assert cache_files(PACKAGE) == before  # nothing beside the installed source


def test_numba_cache_dir_set_by_the_user_wins(tmp_path):
    run_child(
        SMALL_JOB,
        {"NUMBA_CACHE_DIR": str(tmp_path / "mine"), "XDG_CACHE_HOME": str(tmp_path / "xdg")},
    )
    assert cache_files(tmp_path / "mine")
    assert not (tmp_path / "xdg" / "nbayes" / "numba").exists()


def test_an_unwritable_cache_directory_falls_back_to_a_private_temporary_one(tmp_path):
    """Home and cache directory unusable (under a file, so no user can create them):
    the kernels cache in a directory of this user's alone under $TMPDIR."""
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {"HOME": str(blocked / "home"), "XDG_CACHE_HOME": str(blocked / "xdg")}
    run_child(SMALL_JOB, {**env, "TMPDIR": str(temp)})
    (private,) = temp.iterdir()
    assert private.name.startswith("nbayes-") and private.stat().st_mode & 0o077 == 0
    assert cache_files(private / "numba")


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="file owners are POSIX")
def test_a_temporary_directory_open_to_others_is_not_used(tmp_path):
    """A fallback directory another user could write into is refused (numba loads
    machine code from its cache): the kernels then compile without a cache."""
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    temp = tmp_path / "tmp"
    (temp / f"nbayes-{os.getuid()}").mkdir(parents=True, mode=0o777)
    (temp / f"nbayes-{os.getuid()}").chmod(0o777)
    env = {"HOME": str(blocked / "home"), "XDG_CACHE_HOME": str(blocked / "xdg")}
    run_child(SMALL_JOB, {**env, "TMPDIR": str(temp)})
    assert not cache_files(temp)


def test_a_changed_helper_module_changes_every_kernels_stamp(tmp_path):
    """numba checks a cached kernel against its own file only; nbayes's stamp covers
    every module compiled into kernels, so an edited (or upgraded) helper module is
    compiled afresh instead of loading the old machine code."""
    from nbayes import _kernels

    for pattern in _kernels.COMPILED_SOURCES:
        for path in PACKAGE.glob(pattern):
            copy = tmp_path / path.relative_to(PACKAGE)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(path.read_bytes())
    before = _kernels.source_fingerprint(tmp_path)
    assert before == _kernels.source_fingerprint(PACKAGE)
    helpers = tmp_path / "tokens" / "_kernels_unicode.py"  # helpers only, no kernel
    helpers.write_bytes(helpers.read_bytes() + b"\n# changed\n")
    assert _kernels.source_fingerprint(tmp_path) != before
    stamp = run_child(
        "from nbayes._kernels import weights, source_fingerprint\n"
        "import numpy as np\n"
        "weights.scatter_add(np.array([0]), np.ones(1), np.zeros(1))\n"
        "dispatcher = weights.jit(weights._scatter_add_kernel)\n"
        "print(dispatcher._cache._impl.locator.get_source_stamp()[1] == source_fingerprint())",
        {"NUMBA_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert stamp.strip() == "True"


WORKLOAD = """
import json
import types as types_module

import numpy as np
from numba.core import types
from numba.core.registry import CPUDispatcher

import pandas as pd

from nbayes import CategoricalNB, GaussianNB, NaiveBayes
from nbayes import _kernels
from nbayes._kernels import categorical, gaussian, gaussian_observed, posterior, strings
from nbayes._kernels import vector_math
from nbayes._kernels import weights
from nbayes.text import CountVectorizer, HashingVectorizer, Tokenizer
from nbayes.tokens import _parallel, _sort
from nbayes.tokens import _kernels as text, _kernels_ascii, _kernels_output, _kernels_table
from nbayes.tokens import _kernels_unicode

_kernels.SMALL_WORK = _kernels.LOAD_COST_S = 0  # the kernels for its small calls too
rng = np.random.default_rng(0)
X, y = rng.normal(size=(300, 4)), rng.integers(0, 3, 300)
model = GaussianNB().fit(X, y)
model.partial_fit(X, y)
model.predict_proba(X)
CategoricalNB().fit(rng.integers(0, 4, (300, 5)), y).predict_proba(rng.integers(0, 4, (9, 5)))
table = pd.DataFrame({"a": X[:, 0], "b": np.where(X[:, 1] > 1, np.nan, X[:, 1]),
                      "c": np.array(["x", "y", "z"])[y]})
for frame in (table, table.fillna(0.0)):  # with and without missing values
    NaiveBayes().fit(frame, y).predict_proba(frame)
words = "naive bayes counts the words of each class www.example.org café über 42".split()
docs = [" ".join(rng.choice(words, 30)) for _ in range(400)]
docs += ["Straße résumé ÉTÉ".encode("latin-1", "replace") for _ in range(3)]
docs = [d.decode("latin-1") if isinstance(d, bytes) else d for d in docs]
vec = CountVectorizer().fit(docs)
vec.transform(docs)
_parallel.MIN_BYTES, _parallel.MIN_ENTRIES, _parallel.MIN_PIECE = 0, 0, 0  # two threads
_sort.COMPILED_MIN = 0  # the compiled sort of names, whatever their number
CountVectorizer(ngram_range=(1, 2), min_df=2, stop_words="english").fit_transform(docs)
HashingVectorizer(n_features=64).transform(docs)
Tokenizer(ngram_range=(1, 2)).tokenize_many(docs)


def key(t):
    if isinstance(t, types.Array):  # read-only or not, any layout: one compile
        return f"array({t.dtype}, {t.ndim})"
    return str(t)


report = {}
modules = [categorical, gaussian, gaussian_observed, posterior, strings, vector_math, weights,
           text,
           _kernels_ascii, _kernels_output, _kernels_table, _kernels_unicode]
for module in modules:
    for name, value in vars(module).items():
        plain = isinstance(value, types_module.FunctionType)  # not a cached factory
        if name.endswith("_kernel") and plain and module is not vector_math:
            value = _kernels.jit(value)
        if name == "exp_in_place_kernel":
            value = _kernels.jit(value)
        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
            report[f"{module.__name__}.{name}"] = [
                [key(types.unliteral(t)) for t in sig] for sig in value.signatures
            ]
variants = {f"analyze_for({r}, {g})": text.analyze_for(r, g) for r in (0, 1) for g in (0, 1)}
variants.update({f"gather_sum({w})": categorical._gather_kernel(w) for w in range(1, 9)})
for name, value in variants.items():
    report[name] = [[key(types.unliteral(t)) for t in sig] for sig in value.signatures]
print(json.dumps(report))
"""


def test_no_kernel_or_helper_is_compiled_twice_for_one_type(tmp_path):
    """A workload through every kernel (Gaussian fit, update and posterior; a table
    with and without missing values; the categorical gather and counts; counting,
    n-grams, stop words, the two-thread pass, hashing, rich tokens, latin-1) on empty
    caches: each kernel and helper is compiled once
    per tuple of argument dtypes, never again for a constant (numba types a literal
    argument as its own type) or for a read-only copy of an array type."""
    out = run_child(WORKLOAD, {"NUMBA_CACHE_DIR": str(tmp_path)})
    report = json.loads(out)
    compiled = {name: sigs for name, sigs in report.items() if sigs}
    assert len(compiled) > 25, sorted(report)  # the workload reached the helpers
    twice = {
        name: sigs for name, sigs in compiled.items() if len({tuple(s) for s in sigs}) < len(sigs)
    }
    assert not twice


GC_PAUSE = """
import gc, json
import numpy as np
from numba import njit
from numba.core import event
from nbayes._kernels import jit
from nbayes._kernels.weights import _scatter_add_kernel

kernel = jit(_scatter_add_kernel)  # numba set up for nbayes
seen = []

class Seen(event.Listener):
    def on_start(self, ev):
        seen.append([ev.data["dispatcher"].py_func.__module__, gc.isenabled()])

    def on_end(self, ev):
        pass

event.register("numba:compile", Seen())
njit(lambda x: x + 1)(1)  # the user's own function
kernel(np.array([0, 1]), np.ones(2), np.zeros(2))
after = gc.isenabled()
gc.disable()
kernel(np.array([0]), np.ones(1, np.float32), np.zeros(1))
print(json.dumps({"seen": seen, "after": after, "kept_off": not gc.isenabled()}))
"""


def test_the_garbage_collector_pauses_while_nbayes_compiles_and_only_then(tmp_path):
    """numba's compiler makes millions of short-lived objects; the collector is off
    while an nbayes kernel compiles (~10 % of a first fit), back on after, left on
    for the user's own numba functions and left off where the user turned it off."""
    out = json.loads(run_child(GC_PAUSE, {"NUMBA_CACHE_DIR": str(tmp_path)}))
    ours = [enabled for module, enabled in out["seen"] if module.startswith("nbayes.")]
    theirs = [enabled for module, enabled in out["seen"] if not module.startswith("nbayes.")]
    assert ours and not any(ours)
    assert theirs[0] is True  # the user's lambda
    assert out["after"] and out["kept_off"]
