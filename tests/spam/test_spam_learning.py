"""The training modes' rules (nbayes.spam.learning): ``unless-sure`` by hand, the same
messages chosen in memory (evaluation) and against a store (``nbayes spam train``),
batch by batch or one at a time, and from the command line."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from spam_mail import corpus, corpus_dirs

from nbayes.cli import main
from nbayes.spam.evaluate import cross_val_scores, incremental_scores
from nbayes.spam.learning import DEFAULT_CERTAINTY, MODES, is_sure
from nbayes.spam.score import ScoreSettings, maturity_factor, score_counts, score_tokens
from nbayes.spam.sources import MailItem
from nbayes.spam.store import TokenStore, Totals
from nbayes.spam.tokens import tokenize
from nbayes.spam.train import batched, train

# One token kept: Fisher's score is that token's f(w), its log-odds ln(f / (1 - f)).
# (maturity 0: the scores of these one-message stores untempered)
ONE_TOKEN = ScoreSettings(strength=1.0, background=0.5, min_dev=0.0, maturity=0)


def test_unless_sure_by_hand():
    # ham {b}: nothing learnt, f = 0.5: learnt. spam {a}: unseen, 0.5: learnt. spam {a}
    # again: p = 1 after one spam, f = (0.5 + 1) / 2 = 0.75, log-odds ln 3 = 1.0986.
    y = np.array([0, 1, 1, 1])
    sets = [{"b"}, {"a"}, {"a"}, {"a"}]
    scores, learnt = incremental_scores(sets, y, ONE_TOKEN, certainty=1.0)
    np.testing.assert_allclose(scores, [0.5, 0.5, 0.75, 0.75], rtol=1e-12)
    assert learnt.tolist() == [True, True, False, False]  # ln 3 > 1: sure, not learnt
    # certainty 1.1: ln 3 is not beyond it, learnt; then f = 2.5 / 3, ln 5 = 1.609 is
    log_odds, learnt = incremental_scores(sets, y, ONE_TOKEN, certainty=1.1, log_odds=True)
    np.testing.assert_allclose(log_odds, [0, 0, math.log(3), math.log(5)], atol=1e-12)
    assert learnt.tolist() == [True, True, True, False]


def test_nothing_is_sure_before_both_classes_were_learnt():
    """A filter that has seen spam only is sure of every spam: each is learnt until a
    ham has been (a ``train --spam`` run before any ham learns all of it)."""
    y = np.ones(4, dtype=int)
    log_odds, learnt = incremental_scores([{"a"}] * 4, y, ONE_TOKEN, certainty=0.5, log_odds=True)
    assert learnt.all() and log_odds[-1] > 0.5
    y = np.array([1, 1, 0, 1, 1])
    _, learnt = incremental_scores([{"a"}, {"a"}, {"b"}, {"a"}, {"a"}], y, ONE_TOKEN, certainty=0.5)
    assert learnt.tolist() == [True, True, True, False, False]


def test_a_young_filter_says_less_but_learns_by_its_raw_log_odds():
    # maturity 2: after 1 ham and 1 spam the log-odds are scaled by min(1, 1) / 2. Spam
    # {a} after one spam {a}: raw log-odds ln 3 (f = 0.75), said 0.5 ln 3: score
    # sqrt(3) / (1 + sqrt(3)). After a second ham (min(2, 1) / 2 = 1/2 still) and a second
    # spam learnt ((0.5 + 2) / 3 = 5/6: ln 5), maturity is reached: ln 5 in full.
    young = ONE_TOKEN.replace(maturity=2)
    sets, y = [{"b"}, {"a"}, {"a"}, {"b"}, {"a"}], np.array([0, 1, 1, 0, 1])
    log_odds, learnt = incremental_scores(sets, y, young, log_odds=True)
    np.testing.assert_allclose(
        log_odds, [0, 0, math.log(3) / 2, -math.log(3) / 2, math.log(5)], atol=1e-12
    )
    scores, _ = incremental_scores(sets, y, young)
    assert scores[2] == pytest.approx(3**0.5 / (1 + 3**0.5), rel=1e-12)
    assert learnt.all()
    # the rule judges the raw log-odds: certainty 0.6 < ln 3 = 1.0986: sure, not learnt,
    # though 0.5 ln 3 = 0.549 is said
    log_odds, learnt = incremental_scores(sets[:3], y[:3], young, certainty=0.6, log_odds=True)
    assert learnt.tolist() == [True, True, False]
    assert log_odds[2] == pytest.approx(math.log(3) / 2, rel=1e-12)
    tempered = score_counts(np.array([[0, 1]]), Totals((1, 1), (1, 1), 2), young)
    assert tempered == pytest.approx(scores[2], rel=1e-12)
    raw = score_counts(np.array([[0, 1]]), Totals((1, 1), (1, 1), 2), young, temper=False)
    assert raw == pytest.approx(0.75, rel=1e-12)
    assert maturity_factor(Totals((1, 500), (0, 0), None), ScoreSettings()) == 1 / 50


def test_is_sure_needs_the_right_side():
    assert is_sure(101.0, True, 100.0) and is_sure(-101.0, False, 100.0)
    assert not is_sure(101.0, False, 100.0) and not is_sure(-101.0, True, 100.0)  # errors
    assert not is_sure(100.0, True, 100.0)  # beyond, not at
    assert MODES[0] == "unless-sure" and DEFAULT_CERTAINTY == 100.0


@pytest.fixture
def stream():
    messages, labels = corpus(30, 30)
    order = np.random.default_rng(1).permutation(len(messages))
    messages = [messages[i] for i in order]
    labels = [labels[i] for i in order]
    y = np.array([lab == "spam" for lab in labels], dtype=int)
    return messages, labels, [tokenize(m) for m in messages], y


CERTAINTY = 5.0  # low enough that the small corpus has sure messages


def labelled(messages: list[bytes], labels: list[str]) -> list[tuple[MailItem, str]]:
    return [
        (MailItem(f"m{i}", raw), label)
        for i, (raw, label) in enumerate(zip(messages, labels, strict=True))
    ]


def test_store_training_learns_what_the_evaluation_learns(stream, tmp_path):
    """Message by message, ``train(mode="unless-sure")`` on a store scores each message
    as the in-memory run does and learns the same ones; one call over the whole stream
    (batches of 7) leaves the same counts."""
    messages, labels, sets, y = stream
    settings = ScoreSettings()
    scores, learnt = incremental_scores(sets, y, settings, certainty=CERTAINTY)
    assert 0 < learnt.sum() < len(y)
    with TokenStore(tmp_path / "one.db") as store:
        one_by_one = []
        for raw, label in zip(messages, labels, strict=True):
            tokens = tokenize(raw)
            one_by_one.append(float(score_tokens(store, [tokens], settings)[0]))
            train(store, [(MailItem("m", raw), label)], certainty=CERTAINTY)
        np.testing.assert_allclose(one_by_one, scores, rtol=1e-12, atol=1e-15)
        assert store.totals().messages == (int(learnt[y == 0].sum()), int(learnt[y == 1].sum()))
        tokens_one, counts_one = store.all_counts()
    with TokenStore(tmp_path / "batch.db") as store:
        report = train(store, labelled(messages, labels), batch_size=7, certainty=CERTAINTY)
        tokens_batch, counts_batch = store.all_counts()
    assert report.sure == len(y) - learnt.sum()
    assert report.learnt == {"ham": int(learnt[y == 0].sum()), "spam": int(learnt[y == 1].sum())}
    assert dict(zip(tokens_one, map(tuple, counts_one), strict=True)) == dict(
        zip(tokens_batch, map(tuple, counts_batch), strict=True)
    )


def test_everything_mode_learns_every_message(stream, tmp_path):
    messages, labels, _, _ = stream
    with TokenStore(tmp_path / "t.db") as store:
        report = train(store, labelled(messages, labels), mode="everything")
        assert store.totals().messages == (30, 30) and report.sure == 0


def test_folds_learn_by_the_mode(stream):
    """In mode ``everything`` the folds' counts are sums (the matrix path); in
    ``unless-sure`` each fold learns message by message: with a certainty no score
    reaches, the two agree."""
    _, _, sets, y = stream
    folds = [np.arange(0, 60, 3), np.arange(1, 60, 3), np.arange(2, 60, 3)]
    settings = ScoreSettings()
    summed = cross_val_scores(sets, y, settings, folds, mode="everything")
    learnt_all = cross_val_scores(sets, y, settings, folds, certainty=1e300)
    np.testing.assert_allclose(learnt_all, summed, rtol=1e-12, atol=1e-15)
    fewer = cross_val_scores(sets, y, settings, folds, certainty=CERTAINTY)
    assert not np.allclose(fewer, summed)
    with pytest.raises(ValueError, match="certainty"):
        cross_val_scores(sets, y, settings, folds, certainty=-1.0)
    with pytest.raises(ValueError, match="mode"):
        cross_val_scores(sets, y, settings, folds, mode="on-error")


def test_cli_train_reports_the_sure_messages(tmp_path):
    corpus_dirs(tmp_path, 30, 30)
    db = tmp_path / "t.db"
    runner = CliRunner()
    only_ham = runner.invoke(main, ["spam", "train", "--db", db, "--ham", tmp_path / "ham"])
    assert only_ham.exit_code == 0, only_ham.output
    assert "learnt 0 spam and 30 ham (30 read, 0 skipped, 0 already sure" in only_ham.output
    both = runner.invoke(
        main, ["spam", "train", "--db", db, "--spam", tmp_path / "spam", "--certainty", "5"]
    )
    assert both.exit_code == 0, both.output
    sure = int(both.output.split(" skipped, ")[1].split()[0])
    assert 0 < sure < 30
    refused = runner.invoke(
        main, ["spam", "train", "--db", db, "--ham", tmp_path / "ham", "--mode", "everything",
               "--certainty", "5"],
    )  # fmt: skip
    assert refused.exit_code != 0 and "--certainty applies to --mode unless-sure" in refused.output


@given(
    counts=st.lists(st.integers(0, 50), max_size=40),
    size=st.integers(1, 10),
    max_tokens=st.integers(1, 120),
)
def test_batches_hold_at_most_size_messages_and_close_at_max_tokens(counts, size, max_tokens):
    items = [set(range(n)) for n in counts]
    batches = list(batched(items, size, tokens_of=len, max_tokens=max_tokens))
    assert [item for batch in batches for item in batch] == items
    for number, batch in enumerate(batches):
        held = sum(map(len, batch))
        assert 1 <= len(batch) <= size
        assert held - len(batch[-1]) < max_tokens  # closed at the item crossing the bound
        if number < len(batches) - 1:
            assert len(batch) == size or held >= max_tokens


def test_a_token_bound_on_batches_leaves_the_counts_alone(stream, tmp_path, monkeypatch):
    """Batches closed by their token count (a message or two each) learn and count what
    batches of 1,000 messages do, in every mode."""
    messages, labels, _, _ = stream
    train_module = sys.modules[train.__module__]
    for mode in MODES:
        found = []
        for bound in (10**9, 300):
            monkeypatch.setattr(train_module, "MAX_BATCH_TOKENS", bound)
            with TokenStore(tmp_path / f"{mode}-{bound}.db") as store:
                report = train(store, labelled(messages, labels), mode=mode)
                tokens, counts = store.all_counts()
                found.append((report.learnt, tokens, counts.tolist(), store.totals()))
        assert found[0] == found[1]
