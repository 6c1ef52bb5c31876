"""Settings read from a model file select data, never behaviour (nbayes.files.settings):
a vectorizer reads the documents it is given, never files they name; no type or function
among the parameters; a regular expression runs on the linear-time engine or is refused
unless the caller trusts the file; sizes and codecs bounded. Files are tampered as an
attacker would (the checksum recomputed); what could hang runs in a fresh process under
a time limit."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import hostile_files
import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction import text as sk_text
from sklearn.pipeline import make_pipeline

import nbayes
from nbayes.text import CountVectorizer, HashingVectorizer

DOCS = ["cheap pills now", "see you at lunch", "cheap offer now", "lunch at noon", "a banana"]
Y = [1, 0, 1, 0, 1]
SLOW = "a" * 40 + "b"  # (a|aa)+$ backtracks exponentially on it in Python's re


def _tampered(source: Path, target: Path, edit) -> Path:
    """``source`` with ``edit(params)`` applied to the parameters of its first object
    that has a ``token_pattern`` (a vectorizer), saved with a valid checksum."""
    meta, arrays = hostile_files.read_parts(source)
    for _, node in hostile_files._walk(meta["model"]):
        params = node.get("params", {}).get("dict", {}) if "estimator" in node else {}
        if "token_pattern" in params:
            edit(params)
            break
    else:
        raise AssertionError("no vectorizer in the file")
    hostile_files.write_parts(target, meta, arrays)
    return target


def _saved(tmp_path: Path, model, name: str = "model.npz") -> Path:
    path = tmp_path / name
    nbayes.save(model, path)
    return path


def _vectorizers():
    return [
        pytest.param(lambda **kw: CountVectorizer(**kw).fit(DOCS), id="nbayes-count"),
        pytest.param(lambda **kw: HashingVectorizer(**kw).fit(DOCS), id="nbayes-hashing"),
        pytest.param(
            lambda **kw: make_pipeline(sk_text.CountVectorizer(**kw), nbayes.MultinomialNB()).fit(
                DOCS, Y
            ),
            id="sklearn-count-pipeline",
        ),
        pytest.param(lambda **kw: sk_text.TfidfVectorizer(**kw).fit(DOCS), id="sklearn-tfidf"),
    ]


# ---------------------------------------------------------------- input="filename"
@pytest.mark.parametrize("make", _vectorizers())
@pytest.mark.parametrize("value", ["filename", "file"])
def test_a_vectorizer_from_a_file_never_reads_the_files_documents_name(tmp_path, make, value):
    secret = tmp_path / "secret.txt"
    secret.write_text("cheap cheap cheap")
    path = _tampered(_saved(tmp_path, make()), tmp_path / "t.npz", _setting("input", value))
    with pytest.raises(nbayes.ModelFileError, match=f"input='{value}'.*reads the documents"):
        nbayes.load(path)
    assert secret.read_text() == "cheap cheap cheap"


def test_a_vectorizer_saved_reading_files_is_refused_on_loading(tmp_path):
    """Saved honestly with input="filename" (which the API allows): not loadable."""
    paths = []
    for i, doc in enumerate(DOCS):
        paths.append(tmp_path / f"doc{i}.txt")
        paths[-1].write_text(doc)
    model = CountVectorizer(input="filename").fit([str(p) for p in paths])
    with pytest.raises(nbayes.ModelFileError, match="input='filename'"):
        nbayes.load(_saved(tmp_path, model))


# ---------------------------------------------------------------- types as settings
@pytest.mark.parametrize("make", _vectorizers())
@pytest.mark.parametrize("setting", ["analyzer", "preprocessor", "tokenizer", "strip_accents"])
@pytest.mark.parametrize("kind", [{"builtin_type": "str"}, {"scalar_type": "<f8"}])
def test_a_type_is_never_a_callable_setting(tmp_path, make, setting, kind):
    def edit(params):
        params[setting] = kind

    path = _tampered(_saved(tmp_path, make()), tmp_path / "t.npz", edit)
    with pytest.raises(nbayes.ModelFileError, match=f"{setting} is a Python type"):
        nbayes.load(path)


def test_a_type_stays_allowed_as_a_dtype(tmp_path):
    model = CountVectorizer(dtype=np.float32).fit(DOCS)
    loaded = nbayes.load(_saved(tmp_path, model))
    assert loaded.transform(DOCS).dtype == np.float32


# ---------------------------------------------------------------- encodings
@pytest.mark.parametrize("make", _vectorizers())
@pytest.mark.parametrize("encoding", ["no-such-codec", "rot13", "zlib_codec", "punycode", "idna"])
def test_an_encoding_must_be_a_text_codec(tmp_path, make, encoding):
    path = _tampered(_saved(tmp_path, make()), tmp_path / "t.npz", _setting("encoding", encoding))
    with pytest.raises(nbayes.ModelFileError, match="not a text encoding"):
        nbayes.load(path)


def test_decode_error_is_from_its_list(tmp_path):
    path = _saved(tmp_path, CountVectorizer().fit(DOCS))
    path = _tampered(path, tmp_path / "t.npz", _setting("decode_error", "surrogateescape"))
    with pytest.raises(nbayes.ModelFileError, match="decode_error='surrogateescape'"):
        nbayes.load(path)


# ---------------------------------------------------------------- n-gram ranges
def _setting(name, value):
    def edit(params):
        if isinstance(value, tuple):
            params[name] = {"tuple": [{"int": n} for n in value]}
        else:
            params[name] = {"str": value}

    return edit


@pytest.mark.parametrize("make", _vectorizers())
def test_a_huge_ngram_range_in_a_file_is_refused(tmp_path, make):
    path = _saved(tmp_path, make())
    path = _tampered(path, tmp_path / "t.npz", _setting("ngram_range", (1, 10**9)))
    with pytest.raises(nbayes.ModelFileError, match=r"ngram_range=\(1, 1000000000\).*<= 64"):
        nbayes.load(path)


@pytest.mark.parametrize(
    "make",
    [
        lambda: CountVectorizer(ngram_range=(1, 10**9)).fit(DOCS),
        lambda: HashingVectorizer(ngram_range=(1, 10**9)).transform(DOCS),
        lambda: nbayes.text.Tokenizer(ngram_range=(1, 10**9)),
        lambda: nbayes.text.PostVectorizer(ngram_range=(1, 10**9)).fit(DOCS),
        lambda: nbayes.NaiveBayes(
            columns={"t": "text"}, kind_options={"text": {"ngram_range": (1, 10**9)}}
        ).fit(pd.DataFrame({"t": DOCS}), Y),
    ],
    ids=["count", "hashing", "tokenizer", "posts", "text-column"],
)
def test_a_huge_ngram_range_is_refused_by_the_constructors_checks(make):
    with pytest.raises(ValueError, match=r"ngram_range.*<= 64"):
        make()


def test_a_huge_ngram_range_in_a_text_columns_options_is_refused_from_a_file(tmp_path):
    model = nbayes.NaiveBayes(columns={"t": "text"}, kind_options={"text": {"ngram_range": (1, 2)}})
    path = _saved(tmp_path, model.fit(pd.DataFrame({"t": DOCS}), Y))
    meta, arrays = hostile_files.read_parts(path)
    edited = 0
    for _, node in hostile_files._walk(meta["model"]):
        # the option as a pair ("ngram_range", (1, 2)), or as a dict entry
        items = node.get("tuple")
        if isinstance(items, list) and len(items) == 2 and items[0] == {"str": "ngram_range"}:
            items[1]["tuple"][1] = {"int": 10**9}
            edited += 1
        elif "ngram_range" in node.get("dict", {}):
            node["dict"]["ngram_range"]["tuple"][1] = {"int": 10**9}
            edited += 1
    assert edited
    hostile_files.write_parts(tmp_path / "t.npz", meta, arrays)
    with pytest.raises(nbayes.ModelFileError, match=r"ngram_range.*<= 64"):
        nbayes.load(tmp_path / "t.npz")


# ---------------------------------------------------------------- regular expressions
_PREDICT_SLOW = """
import sys, nbayes
model = nbayes.load(sys.argv[1], trust_patterns=sys.argv[2] == "trust")
step = model[0] if hasattr(model, "steps") else model
print(step.transform([sys.argv[3]]).sum())
"""


def _run(path: Path, mode: str, document: str = SLOW, timeout: float = 60):
    return subprocess.run(
        [sys.executable, "-c", _PREDICT_SLOW, str(path), mode, document],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("make", _vectorizers())
def test_a_catastrophic_pattern_from_a_file_runs_in_linear_time(tmp_path, make):
    """``(a|aa)+$`` on ``"a" * 40 + "b"``: years on Python's re, instant on RE2."""
    pytest.importorskip("re2")
    path = _saved(tmp_path, make(token_pattern=r"(a|aa)+$"))
    result = _run(path, "default")  # the timeout fails the test if it backtracks
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) == 0.0
    result = _run(path, "default", document="one banana")
    assert float(result.stdout) != 0.0  # the pattern still matches what it should


def test_a_pattern_runs_without_re2_only_when_trusted(tmp_path, monkeypatch):
    """Without the engine a custom pattern is refused, naming both ways out."""
    monkeypatch.setitem(sys.modules, "re2", None)  # import re2 -> ImportError
    path = _saved(tmp_path, CountVectorizer(token_pattern=r"[a-z]+").fit(DOCS))
    with pytest.raises(nbayes.ModelFileError, match=r"nbayes\[re2\].*trust_patterns=True"):
        nbayes.load(path)
    trusted = nbayes.load(path, trust_patterns=True)
    assert (
        trusted.transform(DOCS).sum()
        == CountVectorizer(token_pattern=r"[a-z]+").fit_transform(DOCS).sum()
    )


@pytest.mark.parametrize(
    "pattern",
    [r"(?u)\b\w\w\w+\b", r"(\w)\1", r"(?<=x)a", r"[a-z]+\Z", r"(a)(b)"],
    ids=["unicode-classes", "backreference", "lookbehind", "python-only-anchor", "two-groups"],
)
def test_a_pattern_re2_cannot_match_alike_is_refused_unless_trusted(tmp_path, pattern):
    pytest.importorskip("re2")
    docs = ["xab ab aab", "ab abc xa"]
    try:
        model = sk_text.CountVectorizer(token_pattern=pattern).fit(docs)
    except ValueError:  # scikit-learn's own refusal (two groups) when fitting
        model = sk_text.CountVectorizer(token_pattern=pattern)
        model.vocabulary_, model.fixed_vocabulary_ = {"ab": 0}, False
    path = _saved(tmp_path, make_pipeline(model, "passthrough"))
    with pytest.raises(nbayes.ModelFileError, match="trust_patterns=True"):
        nbayes.load(path)
    if pattern != r"(a)(b)":
        loaded = nbayes.load(path, trust_patterns=True)
        assert (loaded[0].transform(docs) != model.transform(docs)).nnz == 0


@pytest.mark.parametrize("pattern", [r"(?u)\b\w\w+\b", r"(?u)\b\w+\b"])
def test_the_patterns_nbayes_ships_always_load(tmp_path, pattern, monkeypatch):
    monkeypatch.setitem(sys.modules, "re2", None)
    model = sk_text.CountVectorizer(token_pattern=pattern).fit(DOCS)
    loaded = nbayes.load(_saved(tmp_path, make_pipeline(model, "passthrough")))
    assert (loaded[0].transform(DOCS) != model.transform(DOCS)).nnz == 0


@pytest.mark.parametrize("make", _vectorizers())
def test_a_pattern_on_re2_counts_what_python_counts(tmp_path, make):
    """Where RE2 runs a pattern it gives Python's tokens (ASCII and beyond)."""
    pytest.importorskip("re2")
    pattern = r"(?u)[a-zé]+|[0-9]+"
    docs = [*DOCS, "café 42 crème brûlée", "naïve 7 bayes"]
    model = make(token_pattern=pattern)
    loaded = nbayes.load(_saved(tmp_path, model))
    step, original = (loaded[0], model[0]) if hasattr(model, "steps") else (loaded, model)
    assert (step.transform(docs) != original.transform(docs)).nnz == 0
    assert "build_tokenizer" in vars(step)  # on the linear-time engine, not Python's re


# ---------------------------------------------------------------- metadata numbers
def test_a_huge_integer_in_the_metadata_is_a_model_file_error(tmp_path):
    """A 100,000-digit number (Python's int() refuses more than 4,300 digits): the
    model-file error, not a ValueError about sys.set_int_max_str_digits."""
    path = _saved(tmp_path, nbayes.GaussianNB().fit(np.eye(3), [0, 1, 2]))
    meta, arrays = hostile_files.read_parts(path)
    meta["metadata"] = {"n": 0}
    hostile_files.write_parts(tmp_path / "t.npz", meta, arrays)
    with zipfile.ZipFile(tmp_path / "t.npz") as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    with np.load(tmp_path / "t.npz") as archive:
        text = archive["__nbayes__"].tobytes()
    assert text.count(b'"n": 0') == 1
    text = text.replace(b'"n": 0', b'"n": ' + b"9" * 100_000)
    members["__nbayes__.npy"] = hostile_files._npy_bytes(np.frombuffer(text, np.uint8))
    with zipfile.ZipFile(tmp_path / "big.npz", "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(nbayes.ModelFileError, match="not valid JSON"):
        nbayes.load(tmp_path / "big.npz")


# ---------------------------------------------------------------- probes of issue 25's review
@pytest.mark.parametrize(
    "pattern",
    [r"[[:alpha:]]+", r"\pL+", r"\Qab\E", r"\x{61}", r"\C"],
    ids=["posix-class", "unicode-property", "quoted", "braced-hex", "any-byte"],
)
def test_a_pattern_python_reads_otherwise_or_not_at_all_is_refused(tmp_path, pattern):
    """RE2 reads these (a POSIX class, \\pL, \\Q...\\E); Python's re reads a nested set
    or refuses them: the model would count other tokens than it was saved with."""
    pytest.importorskip("re2")
    path = _tampered(
        _saved(tmp_path, CountVectorizer(token_pattern=r"[a-z]+").fit(DOCS)),
        tmp_path / "t.npz",
        lambda params: params.update(token_pattern={"str": pattern}),
    )
    with pytest.raises(nbayes.ModelFileError, match="Python's re reads alike"):
        nbayes.load(path)


def test_a_refused_pattern_is_one_line_on_stderr(tmp_path):
    """RE2 logs its parse errors to stderr by itself; the refusal alone is said."""
    pytest.importorskip("re2")
    path = _tampered(
        _saved(tmp_path, CountVectorizer(token_pattern=r"[a-z]+").fit(DOCS)),
        tmp_path / "t.npz",
        lambda params: params.update(token_pattern={"str": "(?<=a)b"}),
    )
    result = _run(path, "default")
    assert result.returncode != 0
    assert "re2.cc" not in result.stderr
    assert "cannot run in linear time" in result.stderr


@pytest.mark.parametrize("dtype", ["<f2", "|i1", "<i2", "|u1", "<u2", ">i8"])
def test_a_vectorizer_dtype_that_wraps_or_sparse_cannot_hold_is_refused(tmp_path, dtype):
    """float16 (scipy.sparse refuses it at the first document, a traceback) and small
    integers (a count of 128 tokens wraps to -128) from a file are refused on load."""
    path = _tampered(
        _saved(tmp_path, CountVectorizer().fit(DOCS)),
        tmp_path / "t.npz",
        lambda params: params.update(dtype={"scalar_type": dtype}),
    )
    with pytest.raises(nbayes.ModelFileError, match=r"dtype .* is not one a parameter may name"):
        nbayes.load(path)
