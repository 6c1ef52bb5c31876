"""The log-odds of the scores, exact where the scores round to 0 or 1 (for ROC ranking)."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import expit, logit
from spam_mail import corpus

from nbayes.spam.evaluate import cross_val_scores, evaluate_scores, fold_indices
from nbayes.spam.score import (
    ScoreSettings,
    chi2_log_sf_cdf_even,
    fisher_log_odds_one,
    score_counts,
    score_matrix,
    token_matrix,
)
from nbayes.spam.store import Totals
from nbayes.spam.tokens import tokenize


def exact_logs(x: float, k: int) -> tuple[float, float]:
    """ln P(Poisson(x/2) <= k - 1) and ln P(Poisson(x/2) >= k), term by term at 60 digits."""
    getcontext().prec = 60
    m = Decimal(x) / 2
    term, terms = (-m).exp(), []
    for i in range(k + 4000):
        if i:
            term = term * m / i
        terms.append(term)
    return float(sum(terms[:k]).ln()), float(sum(terms[k:]).ln())


@pytest.mark.parametrize(
    "x, k",
    [(0.5, 1), (3.0, 2), (40.0, 20), (400.0, 150), (1.0, 300), (60.0, 250), (2000.0, 300),
     (180.0, 100), (9.0, 40)],
)  # fmt: skip
def test_log_survival_and_distribution_functions_to_full_relative_precision(x, k):
    ln_q, ln_c = chi2_log_sf_cdf_even(np.array([x]), np.array([k]))
    want_q, want_c = exact_logs(x, k)
    assert ln_q[0] == pytest.approx(want_q, rel=1e-11, abs=1e-13)
    assert ln_c[0] == pytest.approx(want_c, rel=1e-11, abs=1e-13)


def test_no_tokens_or_zero_statistic():
    ln_q, ln_c = chi2_log_sf_cdf_even(np.array([0.0, 5.0]), np.array([3, 0]))
    assert ln_q.tolist() == [0.0, 0.0] and ln_c.tolist() == [-math.inf, -math.inf]


@pytest.mark.parametrize("method", ["fisher", "graham", "naive-bayes"])
def test_log_odds_are_the_logit_of_the_score_and_rank_saturated_scores(method):
    rng = np.random.default_rng(1)
    # tokens 0-99 seen in spam only, 100-199 in ham only, 200-299 in both; each message
    # mostly of one kind: many are scored 0 or 1 to the last bit
    counts = rng.integers(1, 30, size=(300, 2))
    counts[:100, 0] = 0
    counts[100:200, 1] = 0
    sets = []
    for i in range(200):
        own = rng.choice(np.arange(100) + 100 * (i % 2), size=int(rng.integers(0, 120)))
        mixed = rng.choice(300, size=int(rng.integers(0, 10)))
        sets.append({str(t) for t in np.concatenate([own, mixed])})
    X, columns = token_matrix(sets)
    counts = counts[np.array(columns, dtype=int)]
    totals = Totals((40, 30), (10**6, 10**6), len(columns))
    settings = ScoreSettings(method=method, strength=0.0178, min_dev=0.1)
    score = score_matrix(X, counts, totals, settings)
    log_odds = score_matrix(X, counts, totals, settings, log_odds=True)
    middle = (score > 1e-6) & (score < 1 - 1e-6)
    np.testing.assert_allclose(log_odds[middle], logit(score[middle]), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(expit(log_odds), score, rtol=1e-9, atol=1e-14)  # (1 + H - S) / 2
    if method == "fisher":  # saturated scores, still told apart by their log-odds
        saturated = (score == 0) | (score == 1)
        assert saturated.sum() > 10
        assert len(np.unique(log_odds[saturated])) > 0.9 * saturated.sum()


def test_evaluation_with_log_odds_ranks_as_the_scores_and_keeps_the_verdicts():
    messages, labels = corpus(30, 30)
    sets = [tokenize(m) for m in messages]
    y = np.array([lab == "spam" for lab in labels], dtype=int)
    settings = ScoreSettings()
    folds = fold_indices(y, 5)
    scores = cross_val_scores(sets, y, settings, folds)
    log_odds = cross_val_scores(sets, y, settings, folds, log_odds=True)
    plain = evaluate_scores(y, scores, settings)
    ranked = evaluate_scores(y, log_odds, settings, log_odds=True)
    assert ranked.confusion == plain.confusion
    assert ranked.roc_auc >= plain.roc_auc - 1e-12  # ties at 0 / 1 broken, never made


@given(
    seed=st.integers(0, 2**32 - 1),
    n_tokens=st.integers(0, 600),
    one_sided=st.floats(0, 1),
    messages=st.tuples(st.integers(0, 5000), st.integers(0, 5000)),
    min_dev=st.sampled_from([0.0, 0.1, 0.375, 0.45]),
    strength=st.sampled_from([0.0178, 0.1, 1.0]),
)
def test_one_message_log_odds_are_the_matrix_paths_bit_for_bit(
    seed, n_tokens, one_sided, messages, min_dev, strength
):
    """Training scores one message at a time by a shorter path (fisher_log_odds_one):
    it must give what scoring the message as a one-row matrix gives, to the last bit,
    from unseen and one-class tokens (scores saturated at 0 or 1, the upper-tail sums)
    to evenly split ones."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 60, size=(n_tokens, 2))
    ham_only = rng.random(n_tokens) < one_sided
    counts[ham_only, 1] = 0
    counts[rng.random(n_tokens) < 0.2] = 0  # unseen tokens: the background
    totals = Totals(messages, (10**6, 10**6), None)
    settings = ScoreSettings(min_dev=min_dev, strength=strength, maturity=0)
    row = sp.csr_matrix(np.ones((1, n_tokens)))
    want = score_matrix(row, counts, totals, settings, log_odds=True)[0]
    got = fisher_log_odds_one(counts, totals, settings)
    assert got == want or (math.isnan(got) and math.isnan(want))
    tempered = ScoreSettings(min_dev=min_dev, strength=strength, maturity=10**4)
    assert score_counts(counts, totals, tempered, log_odds=True) == (
        score_matrix(row, counts, totals, tempered, log_odds=True)[0]
    )
