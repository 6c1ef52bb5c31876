"""The TREC-style incremental evaluation (score, then learn, in date order) and TONE."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from spam_mail import corpus, corpus_dirs

from nbayes.cli import main
from nbayes.cli.spam.evaluate import MAX_INDEX_LINE
from nbayes.spam.evaluate import (
    TokenRows,
    cross_val_scores,
    cross_val_scores_matrix,
    date_order,
    evaluate_scores,
    fold_indices,
    incremental_scores,
    incremental_scores_matrix,
    mail_date,
)
from nbayes.spam.score import ScoreSettings, score_tokens
from nbayes.spam.sources import MailItem
from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import tokenize
from nbayes.spam.train import needs_learning, train

# With one token kept, Fisher's score is that token's f(w): Q(-2 ln f, 2) = f.
# (maturity 0: these streams' first messages scored untempered)
ONE_TOKEN = ScoreSettings(strength=1.0, background=0.5, min_dev=0.0, maturity=0)


def test_scores_and_measures_of_a_hand_computed_stream():
    # {a} spam: nothing learnt, f = x = 0.5. Then a seen once in 1 spam, 0 ham: p = 1,
    # f = (1 * 0.5 + 1 * 1) / (1 + 1) = 0.75. {b} ham: unseen, 0.5.
    scores, learnt = incremental_scores([{"a"}, {"a"}, {"b"}], np.array([1, 1, 0]), ONE_TOKEN)
    np.testing.assert_allclose(scores, [0.5, 0.75, 0.5], rtol=1e-12)
    assert learnt.all()
    result = evaluate_scores(np.array([1, 1, 0]), scores, ONE_TOKEN)
    # spam-ham pairs: (0.5, 0.5) a tie, 1/2; (0.75, 0.5) right, 1: AUC 3/4
    assert result.roc_auc == pytest.approx(0.75)
    assert result.one_minus_roca == pytest.approx(25.0)
    assert result.caught_at_01 == pytest.approx(0.5)  # only 0.75 is above every ham


def test_tone_learns_only_messages_on_or_near_the_wrong_side():
    # spam {a} after n learnt: f = (0.5 + n) / (1 + n): 0.5, 0.75, 0.833, 0.875, 0.9, ...
    settings = ONE_TOKEN.replace(spam_cutoff=0.85)
    y = np.ones(6, dtype=int)
    scores, learnt = incremental_scores([{"a"}] * 6, y, settings, tone=True)
    np.testing.assert_allclose(scores, [0.5, 0.75, 5 / 6, 0.875, 0.875, 0.875], rtol=1e-12)
    assert learnt.tolist() == [True, True, True, False, False, False]  # 0.875 >= 0.85
    _, thick = incremental_scores([{"a"}] * 6, y, settings, tone=True, thick=0.1)
    assert thick.all()  # every score is below 0.85 + 0.1: all learnt
    full, everything = incremental_scores([{"a"}] * 6, y, settings)
    assert everything.all() and full[-1] == pytest.approx(5.5 / 6)


def test_needs_learning_is_the_on_error_rule_with_a_thick_threshold():
    s = ScoreSettings(ham_cutoff=0.2, spam_cutoff=0.9)
    assert needs_learning(0.5, True, s, 0.0) and needs_learning(0.5, False, s, 0.0)  # Unsure
    assert not needs_learning(0.95, True, s, 0.0) and needs_learning(0.95, True, s, 0.1)
    assert not needs_learning(0.1, False, s, 0.0) and needs_learning(0.1, False, s, 0.15)
    assert needs_learning(0.1, True, s, 0.0) and needs_learning(0.95, False, s, 0.0)  # errors


def test_incremental_tone_equals_training_the_store_on_error(tmp_path):
    """The in-memory run and ``train(mode="on-error")`` on a store learn the same messages
    and give the same scores."""
    messages, labels = corpus(25, 25)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(messages))
    messages = [messages[i] for i in order]
    labels = [labels[i] for i in order]
    sets = [tokenize(m) for m in messages]
    y = np.array([lab == "spam" for lab in labels], dtype=int)
    settings = ScoreSettings()
    scores, learnt = incremental_scores(sets, y, settings, tone=True, thick=0.05)
    with TokenStore(tmp_path / "t.db") as store:
        store_scores = []
        for tokens, raw, label in zip(sets, messages, labels, strict=True):
            store_scores.append(float(score_tokens(store, [tokens], settings)[0]))
            report = train(store, [(MailItem("m", raw), label)], mode="on-error", margin=0.05)
        np.testing.assert_allclose(store_scores, scores, rtol=1e-12, atol=1e-15)
        assert store.totals().messages == (
            int(learnt[y == 0].sum()),
            int(learnt[y == 1].sum()),
        )
    assert report.passes == 1 and 0 < learnt.sum() < len(y)


def test_full_training_at_the_end_equals_the_counts_of_folds():
    """After learning everything, the store is the sum of all messages: the last
    message's incremental score is the score a model trained on the others gives it."""
    messages, labels = corpus(20, 20)
    sets = [tokenize(m) for m in messages]
    y = np.array([lab == "spam" for lab in labels], dtype=int)
    settings = ScoreSettings()
    scores, _ = incremental_scores(sets, y, settings)
    folds = [np.array([len(y) - 1]), np.arange(len(y) - 1)]
    held_out = cross_val_scores(sets, y, settings, folds)
    assert scores[-1] == pytest.approx(held_out[-1], rel=1e-12)
    assert len(fold_indices(y, 4)) == 4


def test_token_rows_give_the_scores_of_the_token_sets_bit_for_bit():
    """The CLI encodes messages as they are read (TokenRows) and reorders them after:
    the same scores as the token sets in that order, in both protocols."""
    messages, labels = corpus(30, 30)
    sets = [tokenize(m) for m in messages]
    y = np.array([lab == "spam" for lab in labels], dtype=int)
    order = np.random.default_rng(0).permutation(len(y))
    rows = TokenRows()
    for tokens in sets:
        rows.add(tokens)
    X = rows.matrix(order)
    in_order = [sets[i] for i in order]
    # (on a copy: scipy sorts a row's indices in place, changing the order of the sums)
    copy = X.copy()
    assert copy.shape == (len(y), len(set().union(*sets))) and copy.sum() == sum(map(len, sets))
    columns = np.array(list(rows.columns))
    assert [set(columns[copy[i].indices]) for i in range(len(y))] == in_order
    settings = ScoreSettings()
    learnt_by_mode = {}
    for mode, certainty in (("unless-sure", 5.0), ("everything", 100.0)):
        how = {"mode": mode, "certainty": certainty}
        expected, learnt = incremental_scores(in_order, y[order], settings, **how)
        got, learnt_by_mode[mode] = incremental_scores_matrix(X, y[order], settings, **how)
        assert np.array_equal(got, expected) and np.array_equal(learnt_by_mode[mode], learnt)
        folds = fold_indices(y[order], 3)
        expected = cross_val_scores(in_order, y[order], settings, folds, **how)
        got = cross_val_scores_matrix(X, y[order], settings, folds, **how)
        assert np.array_equal(got, expected)
    assert 0 < learnt_by_mode["unless-sure"].sum() < len(y) == learnt_by_mode["everything"].sum()


def test_date_order_keeps_undated_messages_after_their_predecessor():
    assert date_order([None, 5.0, None, 3.0, None, 1.0]).tolist() == [0, 5, 3, 4, 1, 2]
    assert date_order([None, None, None]).tolist() == [0, 1, 2]


def test_mail_date_reads_the_topmost_received_header_then_date():
    received = (
        b"Received: from a by b; Tue, 02 Jul 2002 10:00:00 +0000\n"
        b"Received: from c by a; Mon, 01 Jul 2002 09:00:00 +0000\n"
        b"Date: Sun, 01 Jan 2040 00:00:00 +0000\n\nbody\n"
    )
    assert mail_date(received) == 1025604000.0  # 2002-07-02 10:00 UTC
    dated = b"Date: Tue, 02 Jul 2002 12:00:00 +0200\nSubject: x\n\nReceived: no; 1 Jan 2000\n"
    assert mail_date(dated) == 1025604000.0
    assert mail_date(b"Date: not a date\n\nx") is None
    assert mail_date(b"Subject: x\n\nDate: Tue, 02 Jul 2002 10:00:00 +0000\n") is None


@pytest.fixture
def mail_dirs(tmp_path):
    names = corpus_dirs(tmp_path, 30, 30)
    lines = [f"{name.split('/')[0]} {name}\n" for name in names]
    (tmp_path / "index").write_text("".join(lines[::2] + lines[1::2]))
    return tmp_path


def run(*args):
    return CliRunner().invoke(main, ["spam", *map(str, args)])


def test_cli_evaluate_incremental_and_tone(mail_dirs):
    full = run("evaluate", "--incremental", "--spam", mail_dirs / "spam", "--ham",
               mail_dirs / "ham", "--jobs", "0")  # fmt: skip
    assert full.exit_code == 0, full.output
    assert "training\tunless-sure: " in full.output
    everything = run("evaluate", "--incremental", "--mode", "everything", "--spam",
                     mail_dirs / "spam", "--ham", mail_dirs / "ham", "--jobs", "0")  # fmt: skip
    assert "training\teverything: 60 of 60 learnt" in everything.output
    assert "1-ROCA %\t" in full.output
    tone = run("evaluate", "--incremental", "--tone", "--index", mail_dirs / "index")
    assert tone.exit_code == 0, tone.output
    learnt = int(tone.output.split("on-error: ")[1].split()[0])
    assert 0 < learnt < 60
    assert run("evaluate", "--tone", "--index", mail_dirs / "index").exit_code == 2
    bad = mail_dirs / "bad"
    bad.write_text("maybe spam/000.eml\n")
    result = run("evaluate", "--index", bad)
    assert result.exit_code == 1 and "bad:1: expected 'spam PATH'" in result.output


def test_cli_evaluate_refuses_an_index_that_is_no_index(mail_dirs):
    """A device, a FIFO or a line without end is refused with one line, never read into
    memory whole (``--index /dev/zero`` was a MemoryError) nor waited on."""
    import os

    fifo = mail_dirs / "fifo"
    os.mkfifo(fifo)
    endless = mail_dirs / "endless"
    endless.write_text("spam " + "a" * (2 * MAX_INDEX_LINE))
    for index, words in [("/dev/zero", "not a regular file"), (fifo, "not a regular file"),
                         (endless, "endless:1: a line longer than")]:  # fmt: skip
        result = run("evaluate", "--index", index)
        assert result.exit_code == 1 and words in result.output, result.output
    classes = mail_dirs / "classes"
    classes.write_text("newsletter\n")
    result = run("evaluate", "--classes", "--index", classes)
    assert result.exit_code == 1 and "classes:1: expected 'CLASS PATH'" in result.output


def test_cli_train_tone(mail_dirs):
    db = mail_dirs / "t.db"
    args = ["train", "--db", db, "--spam", mail_dirs / "spam", "--ham", mail_dirs / "ham"]
    result = run(*args, "--tone", "--thick", "0.05")
    assert result.exit_code == 0, result.output
    learnt = result.output.split()[1:5:3]  # "learnt N spam and M ham"
    assert 0 < int(learnt[0]) + int(learnt[1]) < 60
    assert run(*args, "--thick", "0.1").exit_code == 2  # thick without TONE
    assert run(*args, "--tone", "--mode", "until-mature").exit_code == 2
