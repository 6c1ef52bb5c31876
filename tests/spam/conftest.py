"""Fixtures shared by the spam tests."""

from __future__ import annotations

import pytest
from spam_mail import corpus

from nbayes.spam.store import TokenStore
from nbayes.spam.tokens import tokenize


@pytest.fixture
def db(tmp_path):
    """A SQLite token store trained on 40 synthetic spam and 40 ham messages."""
    messages, labels = corpus(40, 40)
    path = tmp_path / "t.db"
    with TokenStore(path) as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
    return path
