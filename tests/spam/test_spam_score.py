"""Scoring (Robinson f(w), Fisher, Graham, naive Bayes), training modes and evaluation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import chdtrc
from scipy.stats import chi2
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from spam_mail import corpus

from nbayes.spam.evaluate import cross_val_scores, evaluate_scores, fold_indices
from nbayes.spam.score import (
    ScoreSettings,
    chi2_sf_even,
    robinson_f,
    score_matrix,
    score_tokens,
    token_matrix,
)
from nbayes.spam.sources import MailItem
from nbayes.spam.store import TokenStore, Totals
from nbayes.spam.tokens import tokenize
from nbayes.spam.train import train


@pytest.fixture
def trained(tmp_path):
    messages, labels = corpus(30, 40)
    batch = [(tokenize(r), r, lab) for r, lab in zip(messages, labels, strict=True)]
    store = TokenStore(tmp_path / "t.db")
    store.learn(batch)
    yield store, batch
    store.close()


def test_robinson_f_matches_the_formula():
    settings = ScoreSettings(strength=0.45, background=0.4)
    totals = Totals(messages=(40, 10), tokens=(0, 0), vocabulary=3)
    counts = np.array([[4, 5], [0, 0], [40, 0]])
    f = robinson_f(counts, totals, settings)
    for (ham, spam), value in zip(counts.tolist(), f, strict=True):
        n = ham + spam
        b, g = spam / 10, ham / 40
        p = b / (b + g) if n else 0.4
        assert value == pytest.approx((0.45 * 0.4 + n * p) / (0.45 + n), rel=1e-12)


def _f_by_hand(store, tokens, settings):
    ham_msgs, spam_msgs = store.totals().messages
    out = {}
    for token, (ham, spam) in store.counts(tokens).items():
        n = ham + spam
        p = (spam / spam_msgs) / (spam / spam_msgs + ham / ham_msgs)
        f = (settings.strength * settings.background + n * p) / (settings.strength + n)
        if abs(f - 0.5) >= settings.min_dev:
            out[token] = f
    unseen = settings.background
    n_unseen = sum(token not in store.counts(tokens) for token in tokens)
    return list(out.values()) + (
        [unseen] * n_unseen if abs(unseen - 0.5) >= settings.min_dev else []
    )


def test_fisher_is_robinsons_chi_square_combining(trained):
    store, _ = trained
    settings = ScoreSettings(min_dev=0.2, background=0.45, maturity=0)
    messages = [tokenize(r) for r in corpus(3, 3)[0]] + [{"never-seen-token"}]
    scores = score_tokens(store, messages, settings)
    for tokens, score in zip(messages, scores, strict=True):
        fs = _f_by_hand(store, tokens, settings)
        if not fs:
            assert score == 0.5
            continue
        h = chi2.sf(-2 * sum(math.log(f) for f in fs), 2 * len(fs))
        s = chi2.sf(-2 * sum(math.log(1 - f) for f in fs), 2 * len(fs))
        assert score == pytest.approx((1 + h - s) / 2, rel=1e-9, abs=1e-12)


def test_a_young_store_scales_its_log_odds(trained):
    """Under ``maturity`` messages of a class, log-odds times min(N_ham, N_spam) / maturity."""
    store, _ = trained
    n = min(store.totals().messages)
    messages = [tokenize(r) for r in corpus(3, 3)[0]]
    for method in ("fisher", "graham"):
        raw = ScoreSettings(method=method, maturity=0)
        grown = score_tokens(store, messages, raw.replace(maturity=n))  # reached: no change
        np.testing.assert_array_equal(grown, score_tokens(store, messages, raw))
        young = raw.replace(maturity=4 * n)
        untempered = score_tokens(store, messages, raw)
        X, columns = token_matrix(messages)
        log_odds = score_matrix(X, store.lookup(columns), store.totals(), raw, log_odds=True)
        expected = 1 / (1 + np.exp(-log_odds / 4))
        np.testing.assert_allclose(score_tokens(store, messages, young), expected, rtol=1e-12)
        assert np.all(np.abs(expected - 0.5) < np.abs(untempered - 0.5))  # toward 0.5


def test_chi2_sf_even_is_scipys_chdtrc():
    k = np.array([1, 2, 3, 5, 10, 30, 100, 300, 1000, 3000])
    factor = np.array([1e-6, 0.01, 0.5, 0.9, 1.0, 1.1, 2.0, 5.0, 20.0, 100.0])
    k, x = np.repeat(k, factor.size), np.tile(factor, k.size) * np.repeat(2 * k, factor.size)
    got, expected = chi2_sf_even(x, k), chdtrc(2 * k, x)
    normal = expected > 1e-290  # beyond: both underflow to 0 or a subnormal
    np.testing.assert_allclose(got[normal], expected[normal], rtol=5e-12)
    assert np.all(got[~normal] < 1e-290)
    np.testing.assert_array_equal(chi2_sf_even(np.array([0.0, 7.0]), np.array([4, 0])), [1, 1])


@pytest.mark.parametrize("method", ["fisher", "graham", "naive-bayes"])
def test_the_matrix_path_scores_as_the_store_path(trained, method):
    store, _ = trained
    messages = [tokenize(r) for r in corpus(6, 6)[0]] + [set(), {"never-seen-token"}]
    settings = ScoreSettings(method=method)
    X, columns = token_matrix(messages)
    by_matrix = score_matrix(X, store.lookup(columns), store.totals(), settings)
    np.testing.assert_array_equal(by_matrix, score_tokens(store, messages, settings))


@pytest.mark.parametrize("method", ["fisher", "graham"])
def test_only_naive_bayes_reads_the_vocabulary_size(trained, method, monkeypatch):
    """Fisher and Graham scores do not use the vocabulary's size, which on SQLite is a
    count of the whole token table (spamd's --method graham paid it for every message);
    the scores are the same as with it read."""
    store, batch = trained
    sets = [tokens for tokens, _, _ in batch]
    settings = ScoreSettings(method=method)
    asked = []
    read = TokenStore.read_lookup

    def with_size(self, tokens, *, vocabulary=True):
        return read(self, tokens, vocabulary=True)

    def recording(self, tokens, *, vocabulary=True):
        asked.append(vocabulary)
        return read(self, tokens, vocabulary=vocabulary)

    monkeypatch.setattr(TokenStore, "read_lookup", with_size)
    expected = score_tokens(store, sets, settings)
    monkeypatch.setattr(TokenStore, "read_lookup", recording)
    np.testing.assert_array_equal(score_tokens(store, sets, settings), expected)
    assert asked == [False]
    score_tokens(store, sets, ScoreSettings(method="naive-bayes"))
    assert asked == [False, True]


def test_graham_combines_the_top_tokens(trained):
    store, _ = trained
    settings = ScoreSettings(method="graham", top=5, min_dev=0.0, maturity=0)
    messages = [tokenize(r) for r in corpus(2, 2)[0]]
    for tokens, score in zip(messages, score_tokens(store, messages, settings), strict=True):
        fs = sorted(_f_by_hand(store, tokens, settings), key=lambda f: -abs(f - 0.5))[:5]
        spam, ham = math.prod(fs), math.prod(1 - f for f in fs)
        assert score == pytest.approx(spam / (spam + ham), rel=1e-9)


def test_naive_bayes_is_scikit_learns_multinomial_on_token_sets(trained):
    store, batch = trained
    docs = ["\n".join(tokens) for tokens, _, _ in batch]  # tokens may hold spaces (pairs)
    y = [label == "spam" for _, _, label in batch]
    vectorizer = CountVectorizer(
        binary=True, tokenizer=str.splitlines, lowercase=False, token_pattern=None
    )
    X = vectorizer.fit_transform(docs)
    n_ham, n_spam = store.totals().messages
    prior = np.array([n_ham + 1, n_spam + 1]) / (n_ham + n_spam + 2)  # Laplace-smoothed
    reference = SkMultinomialNB(alpha=1.0, class_prior=prior).fit(X, y)
    test = [tokenize(r) | {"unseen-token"} for r in corpus(35, 45)[0][-10:]]
    X_test = vectorizer.transform(["\n".join(t) for t in test])
    expected = reference.predict_proba(X_test)[:, 1]
    got = score_tokens(store, test, ScoreSettings(method="naive-bayes"))
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_scores_separate_the_classes(trained):
    store, _ = trained
    messages, labels = corpus(45, 55)
    fresh = [tokenize(r) for r in messages[30:45] + messages[85:]]
    truth = np.array(labels[30:45] + labels[85:]) == "spam"
    for method in ("fisher", "graham", "naive-bayes"):
        scores = score_tokens(store, fresh, ScoreSettings(method=method))
        assert np.all((scores >= 0) & (scores <= 1)) and not np.isnan(scores).any()
        assert scores[truth].min() > scores[~truth].max(), method


def test_verdict_and_settings_checks():
    settings = ScoreSettings(ham_cutoff=0.3, spam_cutoff=0.8)
    assert [settings.verdict(s) for s in (0.3, 0.31, 0.79, 0.8)] == [
        "Ham",
        "Unsure",
        "Unsure",
        "Spam",
    ]
    for bad in (
        {"method": "bogus"},
        {"strength": 0},
        {"background": 1.0},
        {"min_dev": 0.5},
        {"ham_cutoff": 0.9, "spam_cutoff": 0.1},
    ):
        with pytest.raises(ValueError, match=next(iter(bad)).split("_")[0]):
            ScoreSettings(**bad)


@pytest.mark.parametrize("mode", ["on-error", "until-mature"])
def test_training_modes_learn_fewer_messages(tmp_path, mode):
    messages, labels = corpus(40, 40)
    items = [
        (MailItem(str(i), r), lab) for i, (r, lab) in enumerate(zip(messages, labels, strict=True))
    ]
    items = items[::2] + items[1::2]  # mixed order
    settings = ScoreSettings()
    with TokenStore(tmp_path / "t.db") as store:
        report = train(store, items, mode=mode, settings=settings, batch_size=16)
        learnt = sum(report.learnt.values())
        assert 0 < learnt < len(items)
        assert store.totals().messages == (report.learnt["ham"], report.learnt["spam"])
        if mode == "until-mature" and report.passes < 5:
            scores = score_tokens(store, [tokenize(m.raw) for m, _ in items], settings)
            spam = np.array([lab == "spam" for _, lab in items])
            assert scores[spam].min() >= settings.spam_cutoff + 0.05
            assert scores[~spam].max() <= settings.ham_cutoff - 0.05


def test_cross_validation_matches_a_store_trained_per_fold(tmp_path):
    messages, labels = corpus(25, 25)
    token_sets = [tokenize(r) for r in messages]
    y = np.array([lab == "spam" for lab in labels], dtype=int)
    folds = fold_indices(y, 5, seed=1)
    for method in ("fisher", "naive-bayes"):
        settings = ScoreSettings(method=method)
        scores = cross_val_scores(token_sets, y, settings, folds)
        test = folds[2]
        train_idx = np.setdiff1d(np.arange(len(y)), test)
        with TokenStore(tmp_path / f"{method}.db") as store:
            store.learn([(token_sets[i], messages[i], labels[i]) for i in train_idx])
            direct = score_tokens(store, [token_sets[i] for i in test], settings)
        np.testing.assert_allclose(scores[test], direct, rtol=1e-12)


def test_evaluate_scores_by_brute_force():
    rng = np.random.default_rng(0)
    y = np.array([0] * 2000 + [1] * 500)
    scores = np.concatenate([rng.beta(1, 8, 2000), rng.beta(8, 1, 500)])
    settings = ScoreSettings()
    result = evaluate_scores(y, scores, settings)
    ham, spam = scores[y == 0], scores[y == 1]
    pairs = (spam[:, None] > ham[None, :]).mean() + 0.5 * (spam[:, None] == ham[None, :]).mean()
    assert result.roc_auc == pytest.approx(pairs, rel=1e-12)
    for fpr, caught in ((0.001, result.caught_at_01), (0.01, result.caught_at_1)):
        # the best threshold t keeping (ham >= t).mean() <= fpr
        best = max(
            (spam >= t).mean() for t in np.append(scores, np.inf) if (ham >= t).mean() <= fpr
        )
        assert caught == pytest.approx(best)
    assert sum(result.confusion.values()) == len(y)
    assert result.confusion[("spam", "Spam")] == int((spam >= 0.9).sum())
    assert result.confusion[("ham", "Ham")] == int((ham <= 0.2).sum())
