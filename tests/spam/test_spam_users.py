"""Per-user statistics (:mod:`nbayes.spam.users`): user names on an allow-list, each
user's counts kept apart (SQLite files, Redis prefixes), the combining rule checked
against stores trained on the mail it stands for, and ``spamc -u`` through ``serve``."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import nbayes_spam
from spam_mail import corpus, synthetic_mail
from spamd_clients import Server, spamc_binary

from nbayes.spam.redis_store import RedisTokenStore
from nbayes.spam.score import ScoreSettings, score_tokens
from nbayes.spam.single import score_message
from nbayes.spam.store import TokenStore
from nbayes.spam.stores import open_store
from nbayes.spam.tokens import TokenOptions, tokenize
from nbayes.spam.users import USER_MATURITY, check_user, user_db


def labelled(label: str, numbers) -> list:
    messages = [synthetic_mail(label, i) for i in numbers]
    return [(tokenize(m), m, label) for m in messages]


@pytest.mark.parametrize(
    "name", ["", "../x", "..", ".hidden", "a/b", "/etc/passwd", "a\x00b", "x" * 65, "-rf",
             "a b", "é", "a..b", "@x", "+1", "a\nb"],
)  # fmt: skip
def test_user_names_outside_the_allow_list_are_refused(name):
    with pytest.raises(ValueError, match="user name"):
        check_user(name)


@pytest.mark.parametrize("name", ["alice", "bob.smith", "carol@example.org", "d_1-2+x", "x" * 64])
def test_user_names_on_the_allow_list_are_kept(name, tmp_path):
    assert check_user(name) == name
    assert user_db(tmp_path / "spam.db", name).parent == tmp_path / "spam.db.users"


def test_a_bad_user_name_is_a_usage_error_and_classify_passes_the_message(tmp_path):
    bad = nbayes_spam("train", "--db", tmp_path / "t.db", "--user", "../evil", "--spam", tmp_path)
    assert bad.returncode == 2 and b"user name '../evil'" in bad.stderr
    raw = synthetic_mail("ham", 1)
    passed = nbayes_spam("classify", "-p", "--db", tmp_path / "t.db", "--user", "a/b", input=raw)
    assert passed.returncode == 3 and passed.stdout == raw
    assert not any(tmp_path.rglob("*.db"))


def _shared_and_users(store_of, n_user: int):
    """The shared store trained on 40 + 40 messages, alice's on ``n_user`` of each class
    (other messages), bob's on none; ``store_of(user)`` opens them for writing."""
    with store_of(None) as shared:
        shared.learn(labelled("spam", range(40)) + labelled("ham", range(40)))
    alice = labelled("spam", range(100, 100 + n_user)) + labelled("ham", range(100, 100 + n_user))
    with store_of("alice") as store:
        store.learn(alice)
    return alice


@pytest.mark.parametrize("n_user", [USER_MATURITY - 1, USER_MATURITY])
def test_thin_user_counts_add_to_the_shared_and_mature_ones_stand_alone(tmp_path, n_user):
    """Scores through the user's combined store equal, bit for bit, a plain store trained
    on the mail the rule stands for: shared + user's while thin, the user's alone once
    mature (50 of each class)."""
    db = tmp_path / "spam.db"
    alice = _shared_and_users(lambda user: open_store(db, user=user, create=True), n_user)
    shared = labelled("spam", range(40)) + labelled("ham", range(40))
    with TokenStore(tmp_path / "expected.db") as expected:
        expected.learn(alice if n_user >= USER_MATURITY else shared + alice)
        new = [tokenize(synthetic_mail(lab, 500 + i)) for i in range(10) for lab in ("spam", "ham")]
        for method in ("fisher", "naive-bayes"):
            settings = ScoreSettings(method=method)
            with open_store(db, user="alice", readonly=True) as combined:
                got = score_tokens(combined, new, settings)
                one = [score_message(combined, tokens, settings) for tokens in new]
            want = score_tokens(expected, new, settings)
            assert got.tobytes() == want.tobytes()
            assert one == [score_message(expected, tokens, settings) for tokens in new]
    with open_store(db, user="bob", readonly=True) as bob, TokenStore(db) as plain:
        assert score_tokens(bob, new, ScoreSettings()).tobytes() == (
            score_tokens(plain, new, ScoreSettings()).tobytes()
        )  # a user with no store of their own: the shared one
    assert user_db(db, "alice").exists() and not user_db(db, "bob").exists()


def test_training_for_a_user_leaves_the_shared_store_alone(tmp_path):
    db = tmp_path / "spam.db"
    for label in ("spam", "ham"):
        (tmp_path / label).mkdir()
    messages, labels = corpus(30, 30)
    for i, (raw, label) in enumerate(zip(messages, labels, strict=True)):
        (tmp_path / label / f"{i}.eml").write_bytes(raw)
    mail = ["--spam", tmp_path / "spam", "--ham", tmp_path / "ham"]
    assert nbayes_spam("train", "--db", db, "--osb", "0", *mail).returncode == 0
    before = nbayes_spam("dump", "--db", db).stdout
    trained = nbayes_spam("train", "--db", db, "--user", "alice", "--mode", "everything", *mail)
    assert trained.returncode == 0, trained.stderr
    assert nbayes_spam("dump", "--db", db).stdout == before
    alice = nbayes_spam("dump", "--db", user_db(db, "alice")).stdout
    assert alice.endswith(b".MSG_COUNT\t30\t30\n")
    with TokenStore(user_db(db, "alice"), readonly=True) as store:  # the shared tokenizer
        assert store.recorded_options() == TokenOptions(osb=0)
    raw = synthetic_mail("spam", 900)
    learnt = nbayes_spam("classify", "--db", db, "--user", "bob", "-u", input=raw)
    assert learnt.returncode == 0, learnt.stderr
    assert nbayes_spam("dump", "--db", db).stdout == before
    with TokenStore(user_db(db, "bob"), readonly=True) as store:
        assert store.trained_as(raw) == (0, 1)
    unlearnt = nbayes_spam("unlearn", "--db", db, "--user", "alice", *mail)
    assert unlearnt.returncode == 0 and nbayes_spam("dump", "--db", db).stdout == before
    assert nbayes_spam("dump", "--db", user_db(db, "alice")).stdout == b".MSG_COUNT\t0\t0\n"


def test_redis_users_are_key_prefixes(redis_server, tmp_path):
    url = redis_server.url()
    alice = _shared_and_users(
        lambda user: open_store(redis=url, user=user, create=True), USER_MATURITY
    )
    keys = sorted(k.decode() for k in redis_server.client().keys("*"))
    assert keys == sorted(
        f"{{{prefix}}}:{key}"
        for prefix in ("nbayes", "nbayes:user:alice")
        for key in ("meta", "tokens", "totals", "trained")
    )
    with RedisTokenStore(url, prefix="nbayes:user:alice", readonly=True) as own:
        assert own.totals().messages == (len(alice) // 2, len(alice) // 2)
    thin = USER_MATURITY - 10  # combined: the sum, through Redis and through SQLite
    other = redis_server.url(1)
    _shared_and_users(lambda user: open_store(redis=other, user=user, create=True), thin)
    db = tmp_path / "spam.db"
    _shared_and_users(lambda user: open_store(db, user=user, create=True), thin)
    new = [tokenize(synthetic_mail(lab, 700 + i)) for i in range(10) for lab in ("spam", "ham")]
    with (
        open_store(redis=other, user="alice", readonly=True) as in_redis,
        open_store(db, user="alice", readonly=True) as in_sqlite,
    ):
        for method in ("fisher", "naive-bayes"):
            settings = ScoreSettings(method=method)
            got = score_tokens(in_redis, new, settings)
            assert got.tobytes() == score_tokens(in_sqlite, new, settings).tobytes()


def test_spamc_u_learns_for_that_user_only(tmp_path):
    spamc_binary()
    db = tmp_path / "spam.db"
    messages, labels = corpus(40, 40)
    with TokenStore(db) as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
    before = nbayes_spam("dump", "--db", db).stdout
    new = b"From: x@y.example\nSubject: zebra quokka\n\nzebra quokka platypus\n"
    server = Server(db, tmp_path / "spamd.sock", "--allow-tell", "--per-user")
    try:
        learnt = server.spamc("-u", "alice", "-L", "spam", message=new)
        assert learnt.returncode == 0 and b"Message successfully un/learned" in learnt.stdout
        assert server.spamc("-u", "alice", "-L", "spam", message=new).stdout.startswith(
            b"Message was already un/learned"
        )
        alice = server.spamc("-u", "alice", "-c", message=new).stdout
        bob = server.spamc("-u", "bob", "-c", message=new).stdout
        nobody = server.spamc("-c", message=new).stdout
        assert bob == nobody != alice  # alice's counts are hers alone
        refused = server.spamc("-u", "../x", "-c", message=new)
        assert refused.stdout == b"0/0\n"  # spamc's answer when spamd refuses
    finally:
        assert server.stop() == 0, server.log
    assert nbayes_spam("dump", "--db", db).stdout == before
    assert not user_db(db, "bob").exists()
    with TokenStore(user_db(db, "alice"), readonly=True) as store:
        assert store.trained_as(new) == (0, 1)
        tokens, counts = store.all_counts()
        assert "zebra" in tokens and np.array_equal(counts[tokens.index("zebra")], [0, 1])


def test_serve_redis_keeps_spamc_users_apart(redis_server, tmp_path):
    """serve --redis --per-user: spamc -u alice and -u bob learn into their own key
    prefixes, and the shared statistics stay as they were."""
    spamc_binary()
    url = redis_server.url()
    messages, labels = corpus(40, 40)
    with RedisTokenStore(url) as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
    before = nbayes_spam("dump", "--redis", url).stdout
    server = Server(None, tmp_path / "spamd.sock", "--redis", url, "--allow-tell", "--per-user")
    alice_mail = b"From: x@y.example\nSubject: zebra\n\nzebra quokka platypus\n"
    bob_mail = b"From: x@y.example\nSubject: lemur\n\nlemur tapir okapi\n"
    try:
        assert server.spamc("-u", "alice", "-L", "spam", message=alice_mail).returncode == 0
        assert server.spamc("-u", "bob", "-L", "ham", message=bob_mail).returncode == 0
    finally:
        assert server.stop() == 0, server.log
    assert nbayes_spam("dump", "--redis", url).stdout == before
    for user, raw, trained in (("alice", alice_mail, (0, 1)), ("bob", bob_mail, (1, 0))):
        with RedisTokenStore(url, prefix=f"nbayes:user:{user}", readonly=True) as store:
            assert store.trained_as(raw) == trained
            assert store.trained_as(alice_mail if user == "bob" else bob_mail) == (0, 0)
