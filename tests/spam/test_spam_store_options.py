"""A token store records the tokenizer options it was trained with, and is read with them."""

from __future__ import annotations

import contextlib
import importlib
import io
import sqlite3

import pytest
from click.testing import CliRunner
from spam_mail import corpus, corpus_dirs

from nbayes.cli import main
from nbayes.spam.feedback import tell
from nbayes.spam.score import ScoreSettings, score_tokens
from nbayes.spam.sources import MailItem
from nbayes.spam.spamd import Filter, read_request
from nbayes.spam.store import StoreError, TokenStore
from nbayes.spam.store_options import record_options, recorded_options, store_options
from nbayes.spam.tokens import DEFAULT_OPTIONS, LEGACY_OPTIONS, TokenOptions, tokenize
from nbayes.spam.train import train

OSB3 = TokenOptions(osb=3, headers="plain")


def labelled(n: int = 10):
    messages, labels = corpus(n, n)
    pairs = zip(messages, labels, strict=True)
    return [(MailItem(f"m{i}", raw), label) for i, (raw, label) in enumerate(pairs)]


def test_a_new_store_records_the_options_of_its_first_training(tmp_path):
    with TokenStore(tmp_path / "a.db") as store:
        assert recorded_options(store) == DEFAULT_OPTIONS  # recorded when it was made
        assert store_options(store) == DEFAULT_OPTIONS
        assert store_options(store, OSB3) == OSB3  # holding no message, it may take others
        train(store, labelled(), options=OSB3)
        assert recorded_options(store) == OSB3
        train(store, labelled())  # later trainings take the recorded options
        assert store_options(store) == OSB3
        tokens, _ = store.all_counts()
        assert any(" _ " in t for t in tokens)  # OSB pairs at distance 2
        with pytest.raises(StoreError, match="trained with tokenizer options osb=3"):
            train(store, labelled(), options=LEGACY_OPTIONS)


def test_a_store_trained_before_options_were_recorded_keeps_the_legacy_tokenizer(tmp_path):
    path = tmp_path / "old.db"
    with TokenStore(path) as store:  # made and trained as before: no settings table
        store.db.execute("DROP TABLE settings")
        store.learn([(tokenize(item.raw, LEGACY_OPTIONS), item.raw, label)
                     for item, label in labelled()])  # fmt: skip
    with TokenStore(path) as store:
        assert recorded_options(store) is None
        assert store_options(store) == LEGACY_OPTIONS
        with pytest.raises(StoreError, match="not osb=3"):
            store_options(store, OSB3)
        before = store.totals().messages
        train(store, labelled(3))
        assert store.totals().messages == (before[0] + 3, before[1] + 3)
        assert recorded_options(store) == LEGACY_OPTIONS
        assert not any(" " in t for t in store.all_counts()[0])  # no pairs were learnt


def test_two_trainings_racing_to_a_new_store_with_other_options_never_mix(tmp_path, monkeypatch):
    """Each training chooses its options on the empty store, then writes: the one that
    commits second must find the other's record and write nothing."""
    train_module = importlib.import_module("nbayes.spam.train")

    path, choose, raced = tmp_path / "race.db", train_module.store_options, []

    def another_training_commits_after_we_chose(store, asked=None):
        chosen = choose(store, asked)
        if store.path == path and not raced:
            raced.append(True)
            with TokenStore(path) as other:
                train(other, labelled(4))  # the default options, committed first
        return chosen

    with TokenStore(path) as store:
        monkeypatch.setattr(train_module, "store_options", another_training_commits_after_we_chose)
        with pytest.raises(StoreError, match=r"trained with tokenizer options .* not osb=3"):
            train(store, labelled(), options=OSB3)
        monkeypatch.undo()
        assert store.totals().messages == (4, 4)  # the other's messages only
        assert recorded_options(store) == DEFAULT_OPTIONS


def test_unknown_recorded_options_are_refused_clearly(tmp_path):
    path = tmp_path / "x.db"
    with TokenStore(path) as store:
        train(store, labelled(2))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE settings SET value = 'osb=9 colour=blue' WHERE name = 'tokenizer'")
    with TokenStore(path) as store, pytest.raises(StoreError, match="does not know"):
        store_options(store)


def test_cli_train_chooses_the_options_and_score_reads_them(tmp_path):
    names = corpus_dirs(tmp_path, 20, 20, suffix="")
    db = tmp_path / "t.db"

    def run(*args, input=None):
        return CliRunner().invoke(main, ["spam", *map(str, args)], input=input)

    sources = ["--spam", tmp_path / "spam", "--ham", tmp_path / "ham"]
    result = run("train", "--db", db, *sources, "--osb", 3, "--headers", "plain")
    assert result.exit_code == 0, result.output
    refused = run("train", "--db", db, *sources, "--osb", 2)  # not its options
    assert refused.exit_code == 3 and "trained with tokenizer options osb=3" in refused.output
    dumped = [line.split("\t")[0] for line in run("dump", "--db", db).output.splitlines()]
    assert any(" _ " in token for token in dumped)  # pairs at distance 2
    spam = (tmp_path / names[0]).read_bytes()
    with TokenStore(db) as store:
        expected = score_tokens(store, [tokenize(spam, OSB3)], ScoreSettings())[0]
        assert expected != score_tokens(store, [tokenize(spam, LEGACY_OPTIONS)],
                                        ScoreSettings())[0]  # fmt: skip
    line = run("score", "--db", db, tmp_path / "spam" / "000").output.split("\t")
    assert float(line[1]) == pytest.approx(expected, abs=1e-6)
    classify = run("classify", "--db", db, input=spam)
    assert float(classify.output.split("\t")[1]) == pytest.approx(expected, abs=1e-6)


def test_learning_by_hand_or_by_feedback_keeps_the_record(tmp_path):
    messages, labels = corpus(5, 5)
    with TokenStore(tmp_path / "a.db") as store:  # the library's lowest level: learn
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
        assert store_options(store) == DEFAULT_OPTIONS
    with TokenStore(tmp_path / "b.db") as store:  # spamc -L / classify -u on a new store
        with store.transaction():
            record_options(store, OSB3)  # chosen while empty ...
        tell(store, tokenize(messages[0], OSB3), messages[0], "spam", True, OSB3)
        assert recorded_options(store) == OSB3
        with pytest.raises(StoreError, match="not osb=0"), store.transaction():
            record_options(store, LEGACY_OPTIONS)  # ... kept once it holds a message
        assert recorded_options(store) == OSB3
        with store.transaction():
            record_options(store, OSB3)  # the same options again: nothing to refuse
        assert recorded_options(store) == OSB3


def test_the_daemon_reads_the_store_options(tmp_path):
    messages = corpus(20, 20)[0]
    with TokenStore(tmp_path / "a.db") as store:
        train(store, labelled(20), options=OSB3)

        @contextlib.contextmanager
        def the_store():
            yield store

        answering = Filter(the_store, the_store, ScoreSettings())
        assert answering.token_options() == OSB3
        body = messages[0]
        raw = f"CHECK SPAMC/1.5\r\nContent-length: {len(body)}\r\n\r\n".encode() + body
        reply = answering.answer(read_request(io.BytesIO(raw), 10**6)).decode()
        expected = score_tokens(store, [tokenize(body, OSB3)], ScoreSettings())[0]
        assert f"; {10 * expected:.1f} / " in reply
