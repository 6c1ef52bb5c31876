"""The SQLite token store: counts, exact unlearn, schema, concurrency, SIGKILL safety."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spam_mail import corpus

from nbayes.spam.sources import MailItem
from nbayes.spam.store import SCHEMA_VERSION, StoreError, TokenStore, _json_object
from nbayes.spam.tokens import tokenize
from nbayes.spam.train import train


def labelled(n_spam=20, n_ham=30):
    messages, labels = corpus(n_spam, n_ham)
    return [(tokenize(raw), raw, label) for raw, label in zip(messages, labels, strict=True)]


def test_counts_are_document_frequencies_per_class(tmp_path):
    batch = labelled()
    with TokenStore(tmp_path / "t.db") as store:
        store.learn(batch[:25])
        store.learn(batch[25:])
        expected = {label: Counter() for label in ("ham", "spam")}
        for tokens, _, label in batch:
            expected[label].update(tokens)
        tokens, counts = store.all_counts()
        for token, (ham, spam) in zip(tokens, counts.tolist(), strict=True):
            assert (ham, spam) == (expected["ham"][token], expected["spam"][token])
        assert set(tokens) == set(expected["ham"]) | set(expected["spam"])
        totals = store.totals()
        assert totals.messages == (30, 20)
        assert totals.tokens == tuple(
            sum(len(t) for t, _, lab in batch if lab == label) for label in ("ham", "spam")
        )
        assert totals.vocabulary == len(tokens)
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


ODD_TOKENS = ["a", "a\0b", "\0", "b\\u0000", '"q', "\\", "\x01x", "😀z", "a\u2028b", "x\x7f"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(ODD_TOKENS) | st.text(max_size=6), max_size=12))
def test_lookup_finds_exactly_the_stored_counts_of_any_tokens(tmp_path_factory, wanted):
    """Look-ups go to SQLite as JSON except where a token holds a NUL (where a JSON
    string would end): "a\0b" must not find "a"."""
    stored = {t: (i + 1, 2 * i + 3) for i, t in enumerate([*ODD_TOKENS[::2], "b", "zz"])}
    with TokenStore(tmp_path_factory.mktemp("lookup") / "t.db") as store:
        with store.transaction():
            store.db.executemany("INSERT INTO tokens(token, ham, spam) VALUES (?, ?, ?)",
                                 [(t, h, s) for t, (h, s) in stored.items()])  # fmt: skip
        assert store.counts(wanted) == {t: stored[t] for t in wanted if t in stored}
        expected = [stored.get(t, (0, 0)) for t in wanted]
        assert store.lookup(wanted).reshape(-1, 2).tolist() == [list(c) for c in expected]


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sets(st.sampled_from(ODD_TOKENS) | st.text(max_size=6), max_size=8),
            st.sampled_from(["ham", "spam"]),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_learning_odd_tokens_stores_exactly_their_counts(tmp_path_factory, messages):
    """Upserts go to SQLite as one JSON object, but as (token, n) rows where a token
    holds a NUL: every token is stored under itself with its per-class count, and
    unlearning empties the store again."""
    batch = [(tokens, f"{i}".encode(), label) for i, (tokens, label) in enumerate(messages)]
    expected = {label: Counter() for label in ("ham", "spam")}
    for tokens, _, label in batch:
        expected[label].update(tokens)
    with TokenStore(tmp_path_factory.mktemp("odd") / "t.db") as store:
        store.learn(batch[:1])
        store.learn(batch[1:])
        tokens, counts = store.all_counts()
        assert dict(zip(tokens, map(tuple, counts.tolist()), strict=True)) == {
            t: (expected["ham"][t], expected["spam"][t])
            for t in set(expected["ham"]) | set(expected["spam"])
        }
        trained = store.db.execute("SELECT digest, ham, spam FROM trained").fetchall()
        assert len(trained) == len(batch) and all(h + s == 1 for _, h, s in trained)
        store.unlearn(batch)
        assert store.all_counts()[0] == []
        assert store.db.execute("SELECT COUNT(*) FROM trained").fetchone()[0] == 0


def test_a_failed_batch_is_raised_and_the_batches_before_it_are_kept(tmp_path, monkeypatch):
    """Batches are written by a thread while the next is tokenized: an error in a
    batch's transaction comes out of ``train``, the batches before it committed (and
    reported to ``progress``), nothing of it or after it."""
    messages, labels = corpus(12, 12)
    pairs = list(zip(messages, labels, strict=True))
    items = [(MailItem(str(i), raw), lab) for i, (raw, lab) in enumerate(pairs)]
    done = []
    with TokenStore(tmp_path / "t.db") as store:
        apply, calls = store.apply, []

        def failing_second(statements):
            calls.append(1)
            if len(calls) == 2:
                raise StoreError("the disk is full")
            apply(statements)

        monkeypatch.setattr(store, "apply", failing_second)
        with pytest.raises(StoreError, match="disk is full"):
            train(store, items, batch_size=10, progress=done.append)
        assert done == [10] and len(calls) == 2
        assert sum(store.totals().messages) == 10
        monkeypatch.undo()
        with TokenStore(tmp_path / "u.db") as serial:
            serial.learn([(tokenize(raw), raw, lab) for raw, lab in pairs[:10]])
            assert store.all_counts()[0] == serial.all_counts()[0]


def test_unlearn_restores_the_database_exactly(tmp_path):
    batch = labelled()
    with TokenStore(tmp_path / "t.db") as store:
        store.learn(batch[:30])
        before = (store.all_counts()[0], store.all_counts()[1].tolist(), store.totals())
        store.learn(batch[30:])
        store.learn(batch[30:35])  # learnt twice: must be unlearnt twice
        store.unlearn(batch[30:35])
        store.unlearn(batch[30:])
        after = (store.all_counts()[0], store.all_counts()[1].tolist(), store.totals())
        assert after == before
        digests = store.db.execute("SELECT SUM(ham) + SUM(spam) FROM trained").fetchone()[0]
        assert digests == 30


def test_unlearn_of_untrained_or_mislabelled_changes_nothing(tmp_path):
    batch = labelled()
    with TokenStore(tmp_path / "t.db") as store:
        store.learn(batch[:10])
        before = store.all_counts()[1].tolist()
        with pytest.raises(StoreError, match="never trained"):
            store.unlearn(batch[5:15])  # 10..14 were never learnt
        tokens, raw, label = batch[0]
        flipped = "ham" if label == "spam" else "spam"
        with pytest.raises(StoreError, match="never trained"):
            store.unlearn([(tokens, raw, flipped)])
        assert store.all_counts()[1].tolist() == before


def test_bad_label_is_an_error(tmp_path):
    """Any class name is a label (``junk`` too: nbayes.spam.classes); one that is no
    class name is refused, and nothing is learnt."""
    with TokenStore(tmp_path / "t.db") as store:
        with pytest.raises(ValueError, match="class name 'Junk mail'"):
            store.learn([({"a"}, b"x", "spam"), ({"a"}, b"x", "Junk mail")])
        assert sum(store.totals().messages) == 0


def test_schema_version_is_checked(tmp_path):
    path = tmp_path / "t.db"
    TokenStore(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.execute("PRAGMA user_version=99")
    db.close()
    with pytest.raises(StoreError, match="schema version 99"):
        TokenStore(path)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE x(a)").connection.close()
    with pytest.raises(StoreError, match="not an nbayes token store"):
        TokenStore(other)
    with pytest.raises(StoreError, match="no token database"):
        TokenStore(tmp_path / "missing.db", create=False)


def test_a_store_created_by_another_process_right_after_our_first_look_is_opened(
    tmp_path, monkeypatch
):
    """Two trains creating one database: the second may look while the first commits
    (CI once saw the tables without the schema version, read by two statements)."""
    from nbayes.spam import database

    path = tmp_path / "t.db"
    execute, others = database.Database.execute, []

    def another_process_commits_after_the_first_read(self, sql, parameters=()):
        rows = execute(self, sql, parameters)
        if "user_version" in sql and not others:
            others.append(None)  # the other process's own reads pass through
            others[0] = TokenStore(path)  # creates the store and commits, in between
        return rows

    monkeypatch.setattr(database.Database, "execute", another_process_commits_after_the_first_read)
    with TokenStore(path) as store:
        assert store.version == SCHEMA_VERSION and store.totals().messages == (0, 0)
    others[0].close()


def test_readers_score_while_a_writer_trains(tmp_path):
    batch = labelled()
    path = tmp_path / "t.db"
    with TokenStore(path) as writer, TokenStore(path, timeout=1) as reader:
        writer.learn(batch[:10])
        with writer.transaction():
            writer.add(batch[10:])
            # the reader is neither blocked nor sees the uncommitted batch
            assert writer.totals().messages == (30, 20)
            assert reader.totals().messages == (0, 10)  # batch[:10] is spam
        assert reader.totals().messages == (30, 20)


WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[2])
    from spam_mail import corpus
    from nbayes.spam.store import TokenStore
    from nbayes.spam.tokens import tokenize
    messages, labels = corpus(100, 100)
    batch = [(tokenize(r), r, l) for r, l in zip(messages, labels)]
    store = TokenStore(sys.argv[1])
    for i in range(10**6):
        store.learn(batch)
        print(i, flush=True)
    """
)


def test_sigkill_mid_batch_keeps_every_committed_batch(tmp_path):
    path = tmp_path / "t.db"
    tests_dir = str(Path(__file__).parents[1])
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), tests_dir],
        stdout=subprocess.PIPE,
        text=True,
    )
    committed = -1
    try:
        while committed < 3:
            committed = int(process.stdout.readline().split()[0])
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    # batches printed after the last line read but before the kill are still in the pipe
    for line in process.stdout:
        committed = max(committed, int(line.split()[0]))
    process.stdout.close()
    assert process.returncode == -signal.SIGKILL
    with TokenStore(path) as store:
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        totals = store.totals()
        batches = totals.messages[1] // 100
        # every printed batch is there; at most one more committed before the kill
        assert batches in (committed + 1, committed + 2)
        assert totals.messages == (100 * batches, 100 * batches)
        _, counts = store.all_counts()
        assert tuple(counts.sum(axis=0).tolist()) == totals.tokens
        n_trained = store.db.execute("SELECT SUM(ham), SUM(spam) FROM trained").fetchone()
        assert n_trained == (100 * batches, 100 * batches)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(), st.integers(min_value=0, max_value=2**62)))
def test_the_write_payload_is_the_json_object_of_the_counts(pairs):
    """Training's upserts hand SQLite the counts as one JSON object written by joining
    each key's escaped form (half json.dumps's CPU): any key (quotes, backslashes,
    control characters, NUL, non-ASCII) reads back as itself, in SQLite as in Python."""
    import json

    payload = _json_object(Counter(pairs))
    assert json.loads(payload) == pairs
    if "\\u0000" in payload or any("\ud800" <= c <= "\udfff" for k in pairs for c in k):
        return  # NUL keys take the executemany path; lone surrogates are no UTF-8
    with sqlite3.connect(":memory:") as db:
        rows = db.execute("SELECT key, value FROM json_each(?)", (payload,)).fetchall()
    assert dict(rows) == pairs
