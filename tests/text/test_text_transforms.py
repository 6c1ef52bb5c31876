"""Rennie et al. (2003) corrections, each against a hand computation in plain Python."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from nbayes.text import RennieTransformer, make_twcnb

COUNTS = [
    [2, 0, 1, 0],
    [0, 3, 0, 0],
    [1, 1, 0, 4],
]
N = len(COUNTS)
DF = [sum(1 for row in COUNTS if row[j] > 0) for j in range(4)]


def by_hand(tf: bool, idf: bool, norm: bool) -> list[list[float]]:
    out = []
    for row in COUNTS:
        values = [math.log(x + 1) if tf else float(x) for x in row]
        if idf:
            values = [v * math.log(N / DF[j]) for j, v in enumerate(values)]
        if norm:
            length = math.sqrt(sum(v * v for v in values))
            values = [v / length if length else 0.0 for v in values]
        out.append(values)
    return out


@pytest.mark.parametrize("tf", [True, False])
@pytest.mark.parametrize("idf", [True, False])
@pytest.mark.parametrize("norm", [True, False])
@pytest.mark.parametrize("sparse", [True, False])
def test_each_transform_matches_hand_computation(tf, idf, norm, sparse):
    X = sp.csr_matrix(COUNTS) if sparse else np.array(COUNTS)
    model = RennieTransformer(tf="log" if tf else None, idf=idf, norm="l2" if norm else None)
    got = model.fit_transform(X)
    got = got.toarray() if sp.issparse(got) else got
    np.testing.assert_allclose(got, by_hand(tf, idf, norm), rtol=1e-12, atol=1e-15)
    assert sp.issparse(model.transform(X)) == sparse


def test_idf_is_learnt_on_fit_data_only():
    model = RennieTransformer(tf=None, norm=None).fit(COUNTS)
    np.testing.assert_allclose(model.idf_, [math.log(N / d) for d in DF])
    new = model.transform([[1, 1, 1, 1]])
    np.testing.assert_allclose(new, [[math.log(N / d) for d in DF]])
    # a term no training document held gets weight 0
    unseen = RennieTransformer(tf=None, norm=None).fit([[1, 0], [2, 0]])
    np.testing.assert_array_equal(unseen.idf_, [0.0, 0.0])  # log(2/2) and "never seen"


def test_bad_input_named():
    with pytest.raises(ValueError, match="non-negative"):
        RennieTransformer().fit([[1, -1]])
    with pytest.raises(ValueError, match="tf must be"):
        RennieTransformer(tf="sqrt").fit(COUNTS)
    with pytest.raises(ValueError, match="norm must be"):
        RennieTransformer(norm="max").fit(COUNTS)
    with pytest.raises(ValueError, match="features"):
        RennieTransformer().fit(COUNTS).transform([[1, 2]])


def test_twcnb_weights_match_rennie_by_hand():
    y = ["a", "b", "a"]
    alpha = 1.0
    model = make_twcnb(alpha=alpha).fit(COUNTS, y)
    d = by_hand(True, True, True)
    weights = {}
    for c in ("a", "b"):
        # step 4-6: complement counts, smoothed, logged; step 7: normalised
        comp = [alpha + sum(d[i][j] for i in range(N) if y[i] != c) for j in range(4)]
        total = sum(comp)
        logs = [math.log(v / total) for v in comp]
        weights[c] = [w / sum(abs(v) for v in logs) for w in logs]
    cnb = model.named_steps["cnb"]
    # scikit-learn's sign convention: feature_log_prob_ = -w, the class maximises x @ -w
    expected_weights = -np.array([weights["a"], weights["b"]])
    np.testing.assert_allclose(cnb.feature_log_prob_, expected_weights, rtol=1e-12)
    # step 8: the label minimises sum_j t_j w_cj over transformed test documents
    test = [[0, 2, 0, 1], [3, 0, 1, 0]]
    t = RennieTransformer().fit(COUNTS).transform(np.array(test, float))
    expected = [min(("a", "b"), key=lambda c, r=r: float(np.dot(r, weights[c]))) for r in t]
    assert list(model.predict(test)) == expected
