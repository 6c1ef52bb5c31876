"""The compiled factorization of Arrow string arrays (nbayes._kernels.strings): the same
codes and uniques as pandas.factorize, the same look-ups as pyarrow's index_in, on
every layout Arrow gives (chunks, slices, nulls, 32- and 64-bit offsets, long and
non-ASCII values, a value in the buffer's last bytes) and through growth of its
tables; a table fitted and scored through it gives the reference path's model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from nbayes import NaiveBayes, _kernels
from nbayes._kernels.strings import StringTable, factorize_strings, lookup_strings
from nbayes.core import validation as _validate
from nbayes.mixed.vocabulary import stack_columns

VALUES = [
    "a",
    "",
    "ab",
    "ab\x00",  # differs from "ab" by its length only
    "abcdefgh",  # 8 bytes: the longest hashed as one word
    "abcdefghi",
    "abcdefgh\x00",
    "a much longer value that spans several words",
    "a much longer value that spans several wordz",
    "café",
    "Straße résumé",
    "日本語のテキスト",
    None,
]


def reference_factorize(array) -> tuple[np.ndarray, list]:
    codes, uniques = pd.factorize(pd.Series(pd.arrays.ArrowExtensionArray(array)))
    return np.asarray(codes, dtype=np.intp), list(uniques)


def reference_lookup(array, known: list[str]) -> np.ndarray:
    found = pc.index_in(array, value_set=pa.array(known, type=array.type))
    codes = pc.fill_null(found, len(known)).to_numpy().astype(np.intp)
    if array.null_count:
        codes[array.is_null().to_numpy()] = -1
    return codes


def arrays(seed: int = 0) -> dict[str, pa.ChunkedArray]:
    """The layouts to check: string and large_string, one or several chunks, chunks
    that are slices (offset not a multiple of 8), with and without nulls."""
    rng = np.random.default_rng(seed)
    values = [VALUES[i] for i in rng.integers(0, len(VALUES), 5000)]
    no_nulls = [v for v in values if v is not None]
    out = {}
    for type_ in (pa.string(), pa.large_string()):
        whole = pa.array(values, type=type_)
        out[f"{type_}-one"] = pa.chunked_array([whole])
        out[f"{type_}-slices"] = pa.chunked_array(
            [whole.slice(3, 1000), whole.slice(1001, 7), whole.slice(2011, 2989)]
        )
        out[f"{type_}-no-nulls"] = pa.chunked_array([pa.array(no_nulls, type=type_)])
    out["empty"] = pa.chunked_array([], type=pa.large_string())
    empty = pa.array([], type=pa.large_string())
    out["empty-chunks"] = pa.chunked_array(
        [empty, pa.array(["x", "y"], type=pa.large_string()).slice(1, 0), whole.slice(5, 9), empty]
    )
    out["all-null"] = pa.chunked_array([pa.array([None] * 20, type=pa.large_string())])
    out["one-short-value"] = pa.chunked_array([pa.array(["x"], type=pa.string())])
    return out


@pytest.mark.parametrize("name", list(arrays()))
def test_factorize_equals_pandas_factorize(name):
    array = arrays()[name]
    codes, uniques = factorize_strings(array)
    expected_codes, expected_uniques = reference_factorize(array)
    assert uniques == expected_uniques
    np.testing.assert_array_equal(codes, expected_codes)
    assert codes.dtype == np.intp


@pytest.mark.parametrize("name", list(arrays()))
def test_lookup_equals_index_in(name):
    array = arrays()[name]
    known = ["abcdefghi", "", "café", "zz", "a much longer value that spans several words", "a"]
    np.testing.assert_array_equal(lookup_strings(array, known), reference_lookup(array, known))
    np.testing.assert_array_equal(lookup_strings(array, []), reference_lookup(array, []))


def test_many_distinct_values_grow_every_store():
    """Tens of thousands of distinct values (of 1 to 40 bytes): the hash table is
    rehashed past both load limits, the offsets and the bytes grown, in the middle of
    a chunk; codes and order of first appearance stay pandas'."""
    rng = np.random.default_rng(1)
    pool = [f"v{i}" * (1 + i % 7) for i in range(40_000)]
    values = [pool[i] for i in rng.integers(0, len(pool), 120_000)]
    array = pa.chunked_array([pa.array(values[:50_000]), pa.array(values[50_000:])])
    codes, uniques = factorize_strings(array)
    expected_codes, expected_uniques = reference_factorize(array)
    assert uniques == expected_uniques
    np.testing.assert_array_equal(codes, expected_codes)
    known = pool[::3]
    np.testing.assert_array_equal(lookup_strings(array, known), reference_lookup(array, known))


def test_a_table_starts_small_and_grows():
    strings = StringTable(capacity=1)
    codes = np.full((300, 2), 7, dtype=np.intp)
    strings.code(pa.array([f"value {i % 150}" for i in range(300)]), True, codes, 0, 1)
    assert len(strings) == 150
    assert strings.values() == [f"value {i}" for i in range(150)]
    np.testing.assert_array_equal(codes[:, 1], np.arange(300) % 150)
    assert (codes[:, 0] == 7).all()


def test_values_that_are_not_distinct_are_no_vocabulary():
    assert lookup_strings(pa.chunked_array([pa.array(["a"])]), ["a", "a"]) is None


def test_other_arrays_and_disabled_kernels_give_none(monkeypatch):
    assert factorize_strings(pa.chunked_array([pa.array([1, 2])])) is None
    assert lookup_strings(pa.chunked_array([pa.array([1, 2])]), ["a"]) is None
    monkeypatch.setattr(_kernels, "ENABLED", False)
    array = pa.chunked_array([pa.array(["a"])])
    assert factorize_strings(array) is None
    assert lookup_strings(array, ["a"]) is None


@pytest.mark.parametrize("missing", [False, True])
def test_a_table_of_arrow_strings_gives_the_reference_paths_model(monkeypatch, missing):
    """String columns and labels hashed by the compiled pass, against pandas'
    factorize and pyarrow's index_in (kernels off): the same classes, vocabularies
    and probabilities, with unseen and missing values, beside columns pandas
    factorizes in the same block."""
    rng = np.random.default_rng(2)
    n = 4000
    y = pd.Series(np.array(["yes", "no", "maybe"])[rng.integers(0, 3, n)], dtype="str")
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=n) + (y == "yes"),
            "short": pd.array(np.array(["s", "m", "l"])[rng.integers(0, 3, n)], dtype="str"),
            "long": pd.array(
                [f"a long category name {i}" for i in rng.integers(0, 40, n)], dtype="str"
            ),
            # factorized by pandas, their codes copied into the block's array
            "objects": pd.Series(
                np.array(["p", "q"], dtype=object)[rng.integers(0, 2, n)], dtype=object
            ),
            "category": pd.Categorical(np.array(["u", "v", "w"])[rng.integers(0, 3, n)]),
        }
    )
    if missing:
        frame.loc[::7, "short"] = None
        frame.loc[::11, "long"] = None
    probe = frame.assign(short=frame["short"].replace("m", "never seen"))
    compiled = NaiveBayes().fit(frame, y)
    proba = compiled.predict_proba(probe)
    monkeypatch.setattr(_kernels, "ENABLED", False)
    reference = NaiveBayes().fit(frame, y)
    np.testing.assert_array_equal(compiled.classes_, reference.classes_)
    assert compiled.classes_.dtype == reference.classes_.dtype == object
    assert compiled._stats.blocks[1].vocabulary == reference._stats.blocks[1].vocabulary
    np.testing.assert_allclose(proba, reference.predict_proba(probe), rtol=1e-13)


def test_arrow_labels_with_a_missing_value_are_an_error():
    y = pd.Series(["a", None] * _validate.HASH_LABELS_FROM, dtype="str")
    with pytest.raises(ValueError, match="NaN"):
        _validate.encode_targets(y)


def test_the_columns_of_one_array_are_not_stacked_again():
    codes = np.arange(12, dtype=np.intp).reshape(4, 3).copy()  # owns its data, as a block's
    assert stack_columns([codes[:, k] for k in range(3)], 4) is codes
    for columns in ([codes[:, 0], codes[:, 2]], [codes[:, 1], codes[:, 0], codes[:, 2]]):
        stacked = stack_columns(columns, 4)
        assert not np.shares_memory(stacked, codes)
        np.testing.assert_array_equal(stacked, np.column_stack(columns))
    assert stack_columns([], 4).shape == (4, 0)


@pytest.mark.parametrize("step", [1, 3, 997, 5000])
def test_the_text_sample_of_an_arrow_column_is_pandas_sample(step):
    from nbayes.mixed.columns import _arrow_sample

    array = arrays()["large_string-slices"]
    series = pd.Series(pd.arrays.ArrowExtensionArray(array))
    assert _arrow_sample(array, step) == series.iloc[::step].dropna().tolist()


def test_kinds_inferred_from_arrow_columns_as_from_object_columns():
    from nbayes.mixed.columns import infer_kind

    rng = np.random.default_rng(3)
    words = np.array(["free", "text", "has", "many", "words", "in", "each", "value"])
    frame = pd.DataFrame(
        {
            "category": np.array(["red", "green", None], dtype=object)[rng.integers(0, 3, 900)],
            "text": [" ".join(rng.choice(words, 6)) if i % 5 else None for i in range(900)],
        }
    )
    arrow = pd.concat([frame.iloc[:400], frame.iloc[400:]]).astype("str")
    assert [infer_kind(frame, j) for j in range(2)] == ["categorical", "text"]
    assert [infer_kind(arrow, j) for j in range(2)] == ["categorical", "text"]
