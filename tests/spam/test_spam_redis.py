"""The Redis token store against a real ``redis-server`` (the ``redis_server`` fixture):
the same counts and scores as SQLite, bit for bit; concurrent trainers adding up
exactly; unlearn, feedback, prune and the tokenizer record; Redis down or read-only
failing as a database does (exit 3, the message passed through whole)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import NBAYES, nbayes_spam
from spam_mail import corpus, corpus_dirs, synthetic_mail

from nbayes.spam.database import StoreUnavailableError
from nbayes.spam.feedback import tell
from nbayes.spam.prune import prune
from nbayes.spam.redis_store import RedisTokenStore, redis_name
from nbayes.spam.score import ScoreSettings, score_tokens
from nbayes.spam.sources import iter_mail
from nbayes.spam.spamd import EX_TEMPFAIL, status_of
from nbayes.spam.store import NotTrainedError, StoreError, TokenStore
from nbayes.spam.stores import Store, open_store
from nbayes.spam.tokens import TokenOptions, tokenize
from nbayes.spam.train import interleave, train


def labelled(n_spam: int, n_ham: int):
    messages, labels = corpus(n_spam, n_ham)
    return [(tokenize(m), m, label) for m, label in zip(messages, labels, strict=True)]


def same_statistics(a: Store, b: Store) -> None:
    tokens_a, counts_a, totals_a = a.read_all()
    tokens_b, counts_b, totals_b = b.read_all()
    assert tokens_a == tokens_b
    assert np.array_equal(counts_a, counts_b)
    assert totals_a == totals_b


def test_both_backends_implement_the_store_interface(redis_server, tmp_path):
    with RedisTokenStore(redis_server.url()) as redis, TokenStore(tmp_path / "t.db") as sqlite:
        assert isinstance(redis, Store) and isinstance(sqlite, Store)


@pytest.mark.parametrize("method", ["fisher", "graham", "naive-bayes"])
def test_scores_equal_sqlite_bit_for_bit(redis_server, tmp_path, method):
    batch = labelled(60, 50)
    new = [tokenize(synthetic_mail(lab, 1000 + i)) for i in range(20) for lab in ("spam", "ham")]
    settings = ScoreSettings(method=method, maturity=0 if method == "graham" else 50)
    with RedisTokenStore(redis_server.url()) as redis, TokenStore(tmp_path / "t.db") as sqlite:
        for store in (redis, sqlite):
            store.learn(batch[:45])
            store.learn(batch[45:])
        same_statistics(redis, sqlite)
        from_redis = score_tokens(redis, new, settings)
        from_sqlite = score_tokens(sqlite, new, settings)
    assert from_redis.tobytes() == from_sqlite.tobytes()
    assert len(np.unique(from_redis)) > 20  # not all alike: the scores say something


def test_training_modes_give_the_same_store(redis_server, tmp_path):
    """train() in each mode (its reads decide what is learnt) leaves the same counts."""
    mail = tmp_path / "mail"
    mail.mkdir()
    corpus_dirs(mail, 70, 60)
    for number, mode in enumerate(["unless-sure", "on-error", "until-mature"]):
        with (
            RedisTokenStore(redis_server.url(number)) as redis,
            TokenStore(tmp_path / f"{mode}.db") as sqlite,
        ):
            for store in (redis, sqlite):
                pairs = interleave(iter_mail([mail / "spam"]), iter_mail([mail / "ham"]))
                train(store, pairs, mode=mode, batch_size=25, jobs=0)
            same_statistics(redis, sqlite)


def test_unlearn_restores_and_refuses_what_was_never_learnt(redis_server):
    batch = labelled(20, 20)
    with RedisTokenStore(redis_server.url()) as store:
        store.learn(batch[:30])
        before = store.read_all()
        store.learn(batch[30:])
        store.unlearn(batch[30:])
        after = store.read_all()
        assert after[0] == before[0] and np.array_equal(after[1], before[1])
        with pytest.raises(NotTrainedError, match="2 message"):
            store.unlearn(batch[30:32])  # learnt, then unlearnt: nothing changes
        assert store.read_all()[2] == before[2]
        store.unlearn(batch[:30])
        tokens, _, totals = store.read_all()
        assert tokens == [] and totals.messages == (0, 0) and totals.tokens == (0, 0)


def test_feedback_moves_a_message_once(redis_server, tmp_path):
    tokens, raw = tokenize(synthetic_mail("spam", 1)), synthetic_mail("spam", 1)
    with RedisTokenStore(redis_server.url()) as redis, TokenStore(tmp_path / "t.db") as sqlite:
        for store in (redis, sqlite):
            store.learn(labelled(10, 10))
            assert tell(store, tokens, raw, "ham", True)
            assert not tell(store, tokens, raw, "ham", True)  # learnt once however often told
            assert tell(store, tokens, raw, "spam", True)  # moved
            assert store.trained_as(raw) == (0, 1)
        same_statistics(redis, sqlite)
        for store in (redis, sqlite):
            assert tell(store, tokens, raw, None, learn=False)
        same_statistics(redis, sqlite)


def test_prune_removes_what_sqlite_removes(redis_server, tmp_path):
    with RedisTokenStore(redis_server.url()) as redis, TokenStore(tmp_path / "t.db") as sqlite:
        for store in (redis, sqlite):
            store.learn(labelled(30, 30))
        reports = [prune(store, count_at_most=1, max_tokens=150) for store in (redis, sqlite)]
        assert [(r.tokens, r.removed) for r in reports[:1]] == [
            (r.tokens, r.removed) for r in reports[1:]
        ]
        assert reports[0].removed > 0
        same_statistics(redis, sqlite)
        dry = prune(redis, older_than=0, dry_run=True)
        assert dry.removed == 0 and len(redis.read_all()[0]) == 150


def test_tokenizer_options_are_recorded_and_checked(redis_server, tmp_path):
    url = redis_server.url()
    trained = nbayes_spam("train", "--redis", url, "--osb", "0", "--spam", _one(tmp_path))
    assert trained.returncode == 0
    with RedisTokenStore(url, readonly=True) as store:
        assert store.recorded_options() == TokenOptions(osb=0)
    refused = nbayes_spam("train", "--redis", url, "--osb", "2", "--spam", _one(tmp_path))
    assert refused.returncode == 3
    assert b"trained with tokenizer options osb=0" in refused.stderr
    assert refused.stderr.count(b"\n") == 1
    stats = nbayes_spam("stats", "--redis", url).stdout.decode()
    assert f"database\t{url}\n" in stats and "schema\t1\n" in stats


def _one(tmp_path: Path) -> Path:
    """A folder holding one message."""
    folder = tmp_path / "one"
    folder.mkdir(exist_ok=True)
    (folder / "m.eml").write_bytes(synthetic_mail("spam", 7))
    return folder


def test_keys_that_are_not_a_store_and_missing_stores_are_refused(redis_server):
    client = redis_server.client()
    client.hset("{nbayes}:tokens", "x", "y")
    with pytest.raises(StoreError, match="not an nbayes token store"):
        RedisTokenStore(redis_server.url())
    with pytest.raises(StoreError, match="no token store at"):
        RedisTokenStore(redis_server.url(1), readonly=True)
    client.hset("{nbayes}:meta", "format", "99")
    with pytest.raises(StoreError, match="store format b'99', this nbayes reads 1"):
        RedisTokenStore(redis_server.url())


def test_the_password_never_shows_in_messages():
    assert redis_name("redis://:s3cret@db.example:6379/0") == "redis://db.example:6379/0"
    assert "pw" not in redis_name("redis://user:pw@db.example/1", "nbayes:user:bob")


def test_two_concurrent_trainers_give_the_counts_of_one(redis_server, tmp_path):
    """Two processes training disjoint halves at once, each in many small batches (so
    their transactions interleave), against one training on the whole (SQLite too)."""
    halves = [tmp_path / "a", tmp_path / "b"]
    messages, labels = corpus(120, 120)
    for half in halves:
        for label in ("spam", "ham"):
            (half / label).mkdir(parents=True)
    whole = tmp_path / "whole"
    for label in ("spam", "ham"):
        (whole / label).mkdir(parents=True)
    for i, (raw, label) in enumerate(zip(messages, labels, strict=True)):
        (halves[i % 2] / label / f"{i}.eml").write_bytes(raw)
        (whole / label / f"{i}.eml").write_bytes(raw)
    common = ["--mode", "everything", "--batch-size", "3", "--jobs", "0"]
    commands = [
        [NBAYES, "spam", "train", "--redis", redis_server.url(0), *common,
         "--spam", half / "spam", "--ham", half / "ham"]
        for half in halves
    ]  # fmt: skip
    trainers = [subprocess.Popen(c, stderr=subprocess.PIPE) for c in commands]
    for trainer in trainers:
        _, err = trainer.communicate(timeout=300)
        assert trainer.returncode == 0, err
    one = ["--spam", whole / "spam", "--ham", whole / "ham"]
    assert nbayes_spam("train", "--redis", redis_server.url(1), *common, *one).returncode == 0
    assert nbayes_spam("train", "--db", tmp_path / "w.db", *common, *one).returncode == 0
    dumps = [
        nbayes_spam("dump", "--redis", redis_server.url(0)).stdout,
        nbayes_spam("dump", "--redis", redis_server.url(1)).stdout,
        nbayes_spam("dump", "--db", tmp_path / "w.db").stdout,
    ]
    assert dumps[0] == dumps[1] == dumps[2]
    assert dumps[0].endswith(b".MSG_COUNT\t120\t120\n")


def test_redis_down_or_read_only_is_exit_3_and_the_message_passes_whole(redis_server, tmp_path):
    raw = synthetic_mail("spam", 500)  # new: classify -u learns it
    url = redis_server.url()
    corpus_dirs(tmp_path, 30, 30)
    mail = ["--spam", tmp_path / "spam", "--ham", tmp_path / "ham"]
    assert nbayes_spam("train", "--redis", url, *mail).returncode == 0
    redis_server.client().replicaof("127.0.0.1", "1")  # a replica: read-only
    refused = nbayes_spam("classify", "--redis", url, "-u", "-p", input=raw)  # -u writes
    assert refused.returncode == 3 and refused.stdout == raw
    assert b"read only replica" in refused.stderr and refused.stderr.count(b"\n") == 1
    trained = nbayes_spam("train", "--redis", url, "--spam", _one(tmp_path))
    assert trained.returncode == 3 and b"Redis ReadOnlyError" in trained.stderr
    assert nbayes_spam("classify", "--redis", url, "-p", input=raw).returncode == 0  # reads work
    redis_server.stop()
    for command in (["classify", "-p"], ["classify", "-u", "-p"]):
        down = nbayes_spam(*command, "--redis", url, input=raw)
        assert down.returncode == 3 and down.stdout == raw
        assert b"Connection refused" in down.stderr and down.stderr.count(b"\n") == 1
    with pytest.raises(StoreUnavailableError, match="Connection refused") as down_now:
        RedisTokenStore(url)
    assert status_of(down_now.value) == EX_TEMPFAIL  # serve: spamc passes the mail on
    for command in (["stats"], ["train", "--spam", _one(tmp_path)], ["prune"], ["dump"]):
        down = nbayes_spam(*command, "--redis", url)
        assert down.returncode == 3 and down.stderr.startswith(b"nbayes: redis://127.0.0.1")


def test_db_and_redis_together_is_a_usage_error(tmp_path):
    both = nbayes_spam("stats", "--db", tmp_path / "t.db", "--redis", "redis://127.0.0.1:1/0")
    assert both.returncode == 2 and b"mutually exclusive" in both.stderr
    raw = b"Subject: a\n\nb\n"
    passed = nbayes_spam("classify", "-p", "--db", "x", "--redis", "redis://x/0", input=raw)
    assert passed.returncode == 3 and passed.stdout == raw


def test_open_store_takes_a_path_or_a_url(redis_server, tmp_path):
    with open_store(redis=redis_server.url(), create=True) as store:
        assert isinstance(store, RedisTokenStore)
    with open_store(tmp_path / "t.db", create=True) as store:
        assert isinstance(store, TokenStore)
    with pytest.raises(StoreError, match="not both"):
        open_store(tmp_path / "t.db", redis=redis_server.url())


def test_unlearning_needs_the_class_each_message_was_learnt_as(redis_server):
    """The script's one check of what was trained (``need``) compares each digest's
    count for the class named, ham, spam or another: a message learnt as ham is not
    unlearnt as spam or as a newsletter, and nothing changes; as ham it is."""
    batch = labelled(3, 3)
    ham = next(message for message in batch if message[2] == "ham")
    with RedisTokenStore(redis_server.url()) as store:
        store.learn(batch)
        before = store.read_all()
        for label in ("spam", "newsletter"):
            with pytest.raises(NotTrainedError, match="1 message"):
                store.unlearn([(ham[0], ham[1], label)])
            after = store.read_all()
            assert after[0] == before[0] and np.array_equal(after[1], before[1])
            assert after[2] == before[2]
        store.unlearn([ham])
        assert store.read_all()[2].messages == (before[2].messages[0] - 1, before[2].messages[1])
