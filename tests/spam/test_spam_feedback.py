"""Feedback learning (spamd's TELL, classify -u) is idempotent per message and exact."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from spam_mail import corpus

from nbayes.cli import main
from nbayes.spam.feedback import tell
from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import tokenize


@pytest.fixture
def store(tmp_path):
    messages, labels = corpus(30, 30)
    with TokenStore(tmp_path / "t.db") as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
        yield store


def snapshot(store):
    return str(store.totals()), store.all_counts()[0], store.all_counts()[1].tolist()


def test_learn_move_forget_restores_the_store_exactly(store):
    raw = b"Subject: zork\n\nfrobnicate quux\n"
    before = snapshot(store)
    tokens = tokenize(raw)
    assert tell(store, tokens, raw, "spam", learn=True)
    assert not tell(store, tokens, raw, "spam", learn=True)
    assert tell(store, tokens, raw, "ham", learn=True) and store.trained_as(raw) == (1, 0)
    assert not tell(store, tokens, raw, "spam", learn=False)  # not learnt as spam
    assert tell(store, tokens, raw, None, learn=False)
    assert snapshot(store) == before
    with pytest.raises(ValueError, match="label"):
        tell(store, tokens, raw, None, learn=True)


def test_classify_update_learns_each_message_once(store):
    spam = corpus(31, 0)[0][-1]
    path = str(store.path)
    store.close()
    for _ in range(3):
        result = CliRunner().invoke(main, ["spam", "classify", "--db", path, "-u"], spam)
        assert result.exit_code == 0 and result.output.startswith("Spam\t")
    with TokenStore(path, readonly=True) as reopened:
        assert reopened.totals().messages == (30, 31) and reopened.trained_as(spam) == (0, 1)
