"""Tables in: what is not a table gets nbayes's own error, at every entry point of every
registered estimator; sparse input is read as scipy means it (duplicates summed, the
caller's matrix untouched); counts that float64 can no longer hold in ones warn."""

from __future__ import annotations

import warnings

import hostile_files
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import nbayes
from nbayes.errors import InexactCountWarning

FITTED = {label: (model, X) for label, model, X in hostile_files.fitted_models()}

NOT_TABLES = {
    "series": (lambda X: pd.Series(np.arange(len(X), dtype=float)), "Series"),
    "ragged": (lambda X: [[1.0, 2.0, 3.0], [1.0, 2.0]], "rows of equal length"),
    "3-D": (lambda X: np.zeros((len(X), 3, 2)), "2-D table"),
    "3-D list": (lambda X: [[[1.0], [2.0]], [[3.0], [4.0]]], "2-D table"),
    "1-D": (lambda X: np.arange(3.0), "Expected 2D array"),
    "mixed": (lambda X: [[1.0, 2.0, 3.0], 4.0], "row 1 of X is a single value"),
}


@pytest.mark.parametrize("shape", sorted(NOT_TABLES))
@pytest.mark.parametrize("label", sorted(FITTED))
def test_what_is_not_a_table_gets_a_clear_error(label, shape):
    model, X = FITTED[label]
    make, message = NOT_TABLES[shape]
    bad = make(X)
    owner = type(model).__name__
    y = np.zeros(len(bad), dtype=int)
    for call in (
        lambda: model.predict(bad),
        lambda: model.predict_proba(bad),
        lambda: type(model)(**model.get_params()).fit(bad, y),
        lambda: type(model)(**model.get_params()).partial_fit(bad, y, classes=[0, 1]),
    ):
        expected = message if shape == "1-D" else f"{owner} expects .*{message}"
        with pytest.raises(ValueError, match=expected):
            call()


@pytest.mark.parametrize("wrapper", ["SemiSupervisedNB", "CalibratedNB"])
def test_meta_estimators_pass_the_error_on(wrapper):
    model = getattr(nbayes, wrapper)(nbayes.GaussianNB())
    with pytest.raises(ValueError, match=r"GaussianNB expects a table .*Series"):
        model.fit(pd.Series(np.arange(40.0)), np.arange(40) % 2)


# ---------------------------------------------------------------- sparse input
def _with_duplicates(dense: np.ndarray, rng) -> sp.csr_matrix:
    """A CSR matrix equal to ``dense`` whose nonzeros are split into 1-3 stored
    entries each, in shuffled order within a row (duplicates, unsorted indices)."""
    data, indices, indptr = [], [], [0]
    for row in dense:
        entries = []
        for j in np.flatnonzero(row):
            pieces = rng.integers(1, 4)
            parts = np.full(pieces, row[j] / pieces)
            parts[-1] = row[j] - parts[:-1].sum()
            entries += [(j, part) for part in parts]
        rng.shuffle(entries)
        indices += [j for j, _ in entries]
        data += [v for _, v in entries]
        indptr.append(len(indices))
    return sp.csr_matrix(
        (np.array(data, float), np.array(indices, np.int32), np.array(indptr)), shape=dense.shape
    )


def test_bernoulli_counts_a_feature_once_per_row():
    X = sp.csr_matrix(
        (np.array([1.0, 1.0, 1.0]), np.array([0, 0, 1]), np.array([0, 2, 3])), shape=(2, 2)
    )
    stored = X.data.copy(), X.indices.copy(), X.indptr.copy()
    model = nbayes.BernoulliNB().fit(X, [0, 1])
    assert_array_equal(model.feature_count_, [[1.0, 0.0], [0.0, 1.0]])
    assert_array_equal(
        model.feature_count_, nbayes.BernoulliNB().fit(X.toarray(), [0, 1]).feature_count_
    )
    for before, after in zip(stored, (X.data, X.indices, X.indptr), strict=True):
        assert_array_equal(before, after)  # the caller's matrix is untouched
    assert X.nnz == 3


@pytest.mark.parametrize("model", ["BernoulliNB", "MultinomialNB", "ComplementNB"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_sparse_with_duplicates_equals_dense(model, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    n, d = data.draw(st.integers(2, 12)), data.draw(st.integers(1, 6))
    dense = rng.poisson(0.8, size=(n, d)).astype(float)
    if model == "BernoulliNB":
        dense = np.minimum(dense, 1.0)
    y = rng.integers(0, 2, size=n)
    y[:2] = [0, 1]
    X = _with_duplicates(dense, rng)
    for fmt in (X, X.tocsc()):
        sparse_model = getattr(nbayes, model)().fit(fmt, y)
        dense_model = getattr(nbayes, model)().fit(dense, y)
        assert_allclose(sparse_model.feature_count_, dense_model.feature_count_, rtol=1e-12)
        assert_allclose(
            sparse_model.predict_proba(fmt), dense_model.predict_proba(dense), rtol=1e-9
        )


# ---------------------------------------------------------------- exact counts
def test_counts_past_two_to_the_53_warn():
    with pytest.warns(InexactCountWarning, match="feature_count has reached 2"):
        nbayes.MultinomialNB().fit(np.array([[2.0**53, 1.0], [1.0, 1.0]]), [0, 1])
    with pytest.warns(InexactCountWarning, match="class_count has reached 2"):
        nbayes.CategoricalNB().fit([[0], [1]], [0, 1], sample_weight=[2.0**53, 1.0])
    model = nbayes.MultinomialNB()
    with warnings.catch_warnings():
        warnings.simplefilter("error", InexactCountWarning)
        for _ in range(3):  # ordinary counts never warn
            model.partial_fit(np.array([[2.0**40, 1.0]]), [0], classes=[0, 1])
