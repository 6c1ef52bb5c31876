"""Model files from an attacker who recomputes the checksum: every tampered variant of
every registered estimator's file is refused with ModelFileError or predicts finite
probabilities that sum to 1 (checked in a fresh process), and loading is bounded by the
file's size (a decompression bomb is refused before anything is inflated)."""

from __future__ import annotations

import collections
import copy
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import hostile_files
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import nbayes
from nbayes.core.registry import ESTIMATORS

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def tampered(tmp_path_factory) -> tuple[Path, list[dict]]:
    """Every variant of every registered estimator's file, checked in one fresh process."""
    folder = tmp_path_factory.mktemp("tampered")
    hostile_files.tampered_files(folder)
    result = subprocess.run(
        [sys.executable, str(HERE / "hostile_files.py"), str(folder)],
        capture_output=True,
        text=True,
        check=True,
    )
    return folder, [json.loads(line) for line in result.stdout.splitlines()]


def test_every_registered_estimator_is_covered(tampered):
    _, rows = tampered
    covered = {row["model"].split("-")[0] for row in rows}
    assert covered == set(ESTIMATORS)
    variants = collections.Counter(row["model"] for row in rows)
    assert min(variants.values()) > 40, variants


def test_every_tampered_variant_is_refused_or_predicts_cleanly(tampered):
    _, rows = tampered
    failures = [
        f"{r['model']} {r['variant']}: {r['outcome']}"
        for r in rows
        if r["outcome"].startswith("FAIL")
    ]
    assert not failures, "\n".join(failures)
    untouched = [r for r in rows if r["variant"] == "clean"]
    assert untouched and all(r["outcome"] == "clean" for r in untouched)


@pytest.mark.parametrize(
    ("variant", "message"),
    [
        ("version:1.0", "version 1.0 nbayes model file"),
        ("version:2.0", "version 2.0 nbayes model file"),
        ("version:true", "version True nbayes model file"),
        ("version:'2'", "version '2' nbayes model file"),
        ("classes_:million", "3 entries along its class axis, expected 1000000"),
        ("state.statistics.class_count:nan", "class_count holds NaN"),
        ("state.statistics.class_count:inf", "class_count holds infinite values"),
        ("state.statistics.m2:negative", "m2 holds negative counts"),
        ("state.statistics.mean:short", "2 entries along its class axis, expected 3"),
        ("params.var_smoothing:-3", "'var_smoothing' parameter of GaussianNB must be"),
    ],
)
def test_refusals_name_the_problem(tampered, variant, message):
    _, rows = tampered
    (row,) = [r for r in rows if r["model"] == "GaussianNB-default" and r["variant"] == variant]
    assert row["outcome"].startswith("refused:")
    assert message in row["outcome"]


@pytest.mark.parametrize(
    ("model", "variant", "message"),
    [
        ("CategoricalNB-min_categories", "state.statistics.n_categories:1e12", "n_categories sums"),
        ("CategoricalNB-min_categories", "state.statistics.n_categories:negative", "negative"),
        ("KernelDensityNB-binned", "state.statistics.grid.exponent:absurd", "outside float64"),
        (
            "NaiveBayes-mixed",
            "state.statistics.blocks.tuple.vocabulary:shorter",
            "vocabulary must hold",
        ),
        ("AODE-default", "state.statistics.vocabularies:longer", "vocabularies must hold"),
        ("NaiveBayes-mixed", "state._layout.tuple.positions.tuple:-3", "blocks do not match"),
    ],
)
def test_metadata_forgeries_are_refused(tampered, model, variant, message):
    _, rows = tampered
    matches = [r for r in rows if r["model"] == model and r["variant"] == variant]
    assert matches
    assert all(r["outcome"].startswith("refused:") for r in matches), matches
    assert any(message in r["outcome"] for r in matches), matches


# ---------------------------------------------------------------- property test
@pytest.fixture(scope="module")
def originals(tmp_path_factory) -> list[tuple[str, Path, object]]:
    folder = tmp_path_factory.mktemp("originals")
    out = []
    for label, model, X in hostile_files.fitted_models():
        path = folder / f"{label}.npz"
        nbayes.save(model, path)
        out.append((label, path, X))
    return out


ODD_VALUES = st.sampled_from(
    [np.nan, np.inf, -np.inf, -1.0, -1e-300, 0.0, 5e-324, 1e300, 1.7e308, -1.7e308, 2.0**53 + 1]
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_random_tampering_is_refused_or_harmless(originals, tmp_path, data):
    """Any entry of any stored array set to an odd value, or any listed variant, on any
    registered estimator: refused, or predictions stay proper probabilities."""
    _, path, X = data.draw(st.sampled_from(originals), label="model")
    meta, arrays = hostile_files.read_parts(path)
    numeric = sorted(k for k, a in arrays.items() if a.dtype.kind in "fiu" and a.size)
    if data.draw(st.booleans(), label="listed variant"):
        variants = list(hostile_files.variants(meta, arrays))
        _, edit = data.draw(st.sampled_from(variants), label="variant")
        edit(meta, arrays)
    else:
        key = data.draw(st.sampled_from(numeric), label="array")
        array = arrays[key].astype(np.float64)
        index = data.draw(st.integers(0, array.size - 1), label="entry")
        array.flat[index] = data.draw(ODD_VALUES, label="value")
        with np.errstate(invalid="ignore"):  # NaN or inf cast into an integer array
            kept = array if arrays[key].dtype.kind == "f" else array.astype(arrays[key].dtype)
        arrays[key] = kept
    target = tmp_path / "tampered.npz"
    hostile_files.write_parts(target, copy.deepcopy(meta), arrays)
    outcome = hostile_files.check(target, X)
    assert not outcome.startswith("FAIL"), outcome


# ---------------------------------------------------------------- bounded loading
_LOADER = """
import resource, sys, time
import nbayes, nbayes.io
limit = int(sys.argv[2])  # address space: a loader that tries to inflate a bomb fails
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
start = time.perf_counter()
try:
    nbayes.load(sys.argv[1])
    print("loaded")
except nbayes.ModelFileError as error:
    print("refused: " + str(error))
print(time.perf_counter() - start)
"""
# The loader runs as the child of a small launcher, so the child's peak RSS
# (``getrusage(RUSAGE_CHILDREN)`` in the launcher) is its own: a child forked from
# pytest itself would inherit pytest's high-water mark.
_LAUNCHER = """
import resource, subprocess, sys
result = subprocess.run([sys.executable, "-c", *sys.argv[1:]], capture_output=True, text=True)
if result.returncode:
    sys.exit(result.stderr[-2000:])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(result.stdout.strip())
print(peak * (1 if sys.platform == "darwin" else 1024))
"""


#: Address space the loading process may use (imports take about 200 MB of it).
LOAD_MEMORY_LIMIT = 1 << 30


def peak_memory_of_loading(path: Path) -> tuple[str, float, float]:
    """``(outcome, seconds, peak RSS bytes)`` of ``nbayes.load(path)`` in a fresh process
    limited to :data:`LOAD_MEMORY_LIMIT` of address space (imports included in the
    peak, not in the seconds); a loader that dies fails the test with its traceback."""
    result = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, _LOADER, str(path), str(LOAD_MEMORY_LIMIT)],
        env={**os.environ, **hostile_files.FEW_THREADS},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    outcome, seconds, peak = result.stdout.strip().splitlines()
    return outcome, float(seconds), float(peak)


@pytest.fixture
def saved(tmp_path) -> Path:
    rng = np.random.default_rng(0)
    path = tmp_path / "model.npz"
    nbayes.GaussianNB().fit(rng.normal(size=(60, 3)), np.arange(60) % 3).save(path)
    return path


def test_decompression_bomb_is_refused_before_inflating(saved, tmp_path):
    """2 MB of deflated zeros declaring a consistent 2 GiB array: refused from the zip
    directory alone. Peak memory of the loading process (imports included) stays far
    below the 2 GiB (and below 200 MB); the time is reported, not asserted."""
    bomb = tmp_path / "bomb.npz"
    hostile_files.write_bomb(saved, bomb)
    assert bomb.stat().st_size < 3_000_000
    outcome, seconds, peak = peak_memory_of_loading(bomb)
    assert outcome.startswith("refused:") and "decompression bomb" in outcome
    assert peak < 200e6, f"peak RSS {peak / 1e6:.0f} MB while refusing the bomb ({seconds:.2f} s)"


def test_a_bomb_behind_a_sparse_prefix_is_refused_before_inflating(saved, tmp_path):
    """The budget follows the bytes the members occupy, not the file's apparent size: a
    2 GiB bomb behind a 1 GiB hole (a few MB on disk) is refused from the directory."""
    bomb = tmp_path / "bomb.npz"
    hostile_files.write_bomb(saved, bomb)
    padded = tmp_path / "padded.npz"
    hostile_files.write_prefixed(bomb, padded, 1 << 30)
    assert padded.stat().st_size > 1 << 30
    outcome, seconds, peak = peak_memory_of_loading(padded)
    assert outcome.startswith("refused:") and "decompression bomb" in outcome, outcome
    assert "bytes they occupy" in outcome
    assert peak < 200e6, f"peak RSS {peak / 1e6:.0f} MB while refusing the bomb ({seconds:.2f} s)"


def test_an_honest_file_behind_a_prefix_still_loads(saved, tmp_path):
    padded = tmp_path / "padded.npz"
    hostile_files.write_prefixed(saved, padded, 4096)
    np.testing.assert_array_equal(nbayes.load(padded).theta_, nbayes.load(saved).theta_)


def test_the_checksum_reads_arrays_in_place():
    """The digest of C-ordered arrays (all nbayes writes) is taken from their memory;
    others are hashed a block at a time; both give the digest of their C-order bytes."""
    import hashlib

    from nbayes.files import model_file as nbio

    arrays = {
        "a0": np.arange(12.0).reshape(3, 4),
        "a1": np.asfortranarray(np.arange(12.0).reshape(3, 4)),
        "a2": np.array(["ab", "c"]),
        "a3": np.zeros((0, 5)),
        "a4": np.array(7),
    }
    for array in arrays.values():
        digest = hashlib.sha256()
        nbio._hash_bytes(digest, array)
        assert digest.digest() == hashlib.sha256(np.ascontiguousarray(array).tobytes()).digest()
    assert nbio._digest({}, arrays) == nbio._digest(
        {}, {k: np.require(a, requirements="C") for k, a in arrays.items()}
    )


def _rewrite_member(source: Path, target: Path, name: str, data: bytes, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w") as out:
        for info in archive.infolist():
            out.writestr(info.filename, archive.read(info), compress_type=zipfile.ZIP_STORED)
        out.writestr(name, data, compress_type=method)


def test_members_must_match_their_declared_shapes(saved, tmp_path):
    lying = hostile_files._npy_header(np.dtype(np.float64), (10**9,)) + bytes(64)
    cases = {
        "shape": ("a0.npy", lying, "declares shape (1000000000,)"),
        "object": ("a0.npy", hostile_files._npy_header(np.dtype(object), (1,)), "pickle"),
        "name": ("../evil.npy", hostile_files._npy_bytes(np.zeros(2)), "unexpected member"),
        "garbage": ("a0.npy", b"not an npy file at all", "not a valid .npy array"),
    }
    for case, (name, data, message) in cases.items():
        target = tmp_path / f"{case}.npz"
        with zipfile.ZipFile(saved) as archive, zipfile.ZipFile(target, "w") as out:
            for info in archive.infolist():
                if info.filename != name:
                    out.writestr(info.filename, archive.read(info))
            out.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
        with pytest.raises(nbayes.ModelFileError, match=re.escape(message)):
            nbayes.load(target)


def test_a_large_honest_model_still_loads(tmp_path):
    """The bounds follow the file's size: a large model loads and round-trips."""
    rng = np.random.default_rng(1)
    X = rng.poisson(1.0, size=(200, 10_000)).astype(float)
    model = nbayes.MultinomialNB().fit(X, np.arange(200) % 20)
    path = tmp_path / "large.npz"
    model.save(path)
    assert path.stat().st_size > 1_000_000
    loaded = nbayes.load(path)
    np.testing.assert_array_equal(loaded.feature_count_, model.feature_count_)


# ---------------------------------------------------------------- mutation fuzzing
@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A clean file of every registered estimator and of the text pipelines, the inputs
    to predict on, and a loader that checks files in a worker process limited to 1 GiB
    of address space and 60 s a file."""
    folder = tmp_path_factory.mktemp("corpus")
    inputs, files = {}, []
    for label, model, X in [*hostile_files.fitted_models(), *hostile_files.text_models()]:
        path = folder / f"{label}.npz"
        nbayes.save(model, path)
        inputs[label] = hostile_files._as_array(X)
        files.append((label, path))
    np.savez(folder / "inputs.npz", **inputs)
    (folder / "columns.json").write_text(json.dumps(hostile_files._columns()))
    loader = hostile_files.Loader(folder)
    yield files, loader
    loader.close()


def test_every_clean_file_of_the_corpus_loads_and_predicts(corpus):
    files, loader = corpus
    outcomes = {label: loader.check(path, label) for label, path in files}
    assert all(outcome == "clean" for outcome in outcomes.values()), outcomes


@pytest.mark.parametrize(
    ("label", "what", "edit"),
    hostile_files.REGRESSIONS,
    ids=[f"{label}:{what}" for label, what, _ in hostile_files.REGRESSIONS],
)
def test_the_hostile_files_fuzzing_found_stay_refused_or_clean(corpus, tmp_path, label, what, edit):
    files, loader = corpus
    meta, arrays = hostile_files.read_parts(dict(files)[label])
    edit(meta, arrays)
    hostile_files.write_parts(tmp_path / "found.npz", meta, arrays)
    outcome = loader.check(tmp_path / "found.npz", label)
    assert outcome == "clean" or outcome.startswith("refused:"), outcome


@pytest.mark.parametrize(
    ("label", "what", "edit"),
    hostile_files.BYTE_REGRESSIONS,
    ids=[f"{label}:{what}" for label, what, _ in hostile_files.BYTE_REGRESSIONS],
)
def test_the_damaged_files_fuzzing_found_are_refused(corpus, tmp_path, label, what, edit):
    files, loader = corpus
    raw = bytearray(dict(files)[label].read_bytes())
    edit(raw)
    (tmp_path / "found.npz").write_bytes(bytes(raw))
    outcome = loader.check(tmp_path / "found.npz", label)
    assert outcome.startswith("refused:"), outcome


#: JSON values a tampered setting or state entry may take: wrong types, extremes, the
#: settings that select behaviour, and tags of the tree format in the wrong place.
JSON_VALUES = st.one_of(
    st.builds(
        lambda v: {"int": v}, st.sampled_from([0, -1, 1, 2, 3, 64, 65, 2**31, 2**63, 10**30])
    ),
    st.builds(
        lambda v: {"float": v},
        st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([5e-324, 1e308, -1e308]),
    ),
    st.builds(
        lambda v: {"str": v},
        st.sampled_from(
            [
                "filename",
                "file",
                "content",
                "(a|aa)+$",
                r"(\w)\1",
                "char",
                "word",
                "rot13",
                "no-such-codec",
                "english",
                "",
                "l2",
                "uniform",
                "ignore",
                "sklearn.Pipeline",
            ]
        )
        | st.text(max_size=20),
    ),
    st.builds(lambda v: {"bool": v}, st.booleans()),
    st.just({"none": None}),
    st.sampled_from(
        [
            {"builtin_type": "str"},
            {"builtin_type": "float"},
            {"scalar_type": "<f8"},
            {"dtype": "<U3"},
            {"array": "a0"},
            {"array": "a0", "object": True},
            {"tuple": [{"int": 1}, {"int": 10**9}]},
            {"tuple": [{"int": 2}, {"int": 1}]},
            {"list": []},
            {"dict": {}},
            {"estimator": "GaussianNB", "params": {"dict": {}}},
            {"dataclass": "Tokenizer", "fields": {}},
            {"slice": [{"int": 0}, {"int": 10**12}, {"none": None}]},
        ]
    ),
)


def _leaves(meta: dict) -> list[tuple]:
    """Paths of the tagged scalar nodes of a file's model tree."""
    return [
        path
        for path, node in hostile_files._walk(meta["model"])
        if len(node) == 1 and next(iter(node)) in ("int", "float", "str", "bool", "none")
    ]


def _mutate(data, source: Path, target: Path) -> str:
    """Write a mutation of ``source`` to ``target`` (drawn by hypothesis); its kind."""
    kind = data.draw(
        # tampered settings find the most, so they are drawn as often as the rest together
        st.sampled_from(["json", "json", "json", "json", "flip", "truncate", "swap", "array"]),
        label="mutation",
    )
    if kind in ("flip", "truncate"):  # the raw bytes: zip structure, headers, JSON, CRC
        raw = bytearray(source.read_bytes())
        if kind == "truncate":
            raw = raw[: data.draw(st.integers(0, len(raw) - 1), label="length")]
        else:
            for _ in range(data.draw(st.integers(1, 8), label="flips")):
                at = data.draw(st.integers(0, len(raw) - 1), label="at")
                raw[at] ^= data.draw(st.integers(1, 255), label="mask")
        target.write_bytes(bytes(raw))
        return kind
    meta, arrays = hostile_files.read_parts(source)  # the rest rehash, as an attacker would
    keys = sorted(arrays)
    if kind == "swap" and len(keys) >= 2:
        a, b = data.draw(st.permutations(keys), label="members")[:2]
        arrays[a], arrays[b] = arrays[b], arrays[a]
    elif kind == "array":
        key = data.draw(st.sampled_from(keys), label="member")
        arrays[key] = data.draw(
            hnp.arrays(
                st.sampled_from([np.float64, np.int64, np.uint8, np.bool_, np.dtype("<U2")]),
                hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
            ),
            label="array",
        )
    else:
        path = data.draw(st.sampled_from(_leaves(meta)), label="entry")
        node = hostile_files._at(meta["model"], path)
        node.clear()
        node.update(data.draw(JSON_VALUES, label="value"))
    hostile_files.write_parts(target, meta, arrays)
    return kind


@settings(
    max_examples=int(os.environ.get("NBAYES_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_mutated_model_file_is_refused_or_loads_correctly(corpus, tmp_path, data):
    """Byte flips, truncation, swapped members, replaced arrays and tampered JSON values
    of any corpus file: ModelFileError, or a model predicting proper probabilities,
    within 60 s and 1 GiB (a fresh worker process under those limits)."""
    files, loader = corpus
    label, source = data.draw(st.sampled_from(files), label="file")
    target = tmp_path / "mutated.npz"
    kind = _mutate(data, source, target)
    outcome = loader.check(target, label)
    event(f"{kind}: {outcome.split(':')[0]}")
    assert outcome == "clean" or outcome.startswith("refused:"), outcome
