"""More than two classes (nbayes.spam.classes, nbayes.spam.verdicts): class names
checked, the multi-class posterior equal to scikit-learn's multinomial NB on the same
counts, SQLite and Redis stores giving the same counts and probabilities bit for bit,
learning then unlearning a class restoring the store, the two-class scores untouched
by other classes, ``dump --classes`` read back giving the same verdicts, and the
verdict's accuracy on real mail."""

from __future__ import annotations

import math
import operator
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import nbayes_spam, require_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spam_mail import synthetic_mail

from nbayes.spam.classes import MAX_CLASS_LENGTH, check_class, class_order
from nbayes.spam.parse import MailParseError
from nbayes.spam.prune import prune
from nbayes.spam.redis_store import RedisTokenStore
from nbayes.spam.score import ScoreSettings, score_tokens, token_matrix
from nbayes.spam.sources import MailItem
from nbayes.spam.store import NotTrainedError, TokenStore
from nbayes.spam.tokens import tokenize
from nbayes.spam.train import interleave_classes, train
from nbayes.spam.verdicts import classify_classes

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def newsletter(i: int) -> bytes:
    """A ham-like message with words of its own: a third class beside spam and ham."""
    return synthetic_mail("ham", 700 + i).replace(b"meeting", b"unsubscribe weekly digest")


def three_classes(n: int) -> list[tuple[set[str], bytes, str]]:
    batch = []
    for i in range(n):
        for label, raw in (
            ("spam", synthetic_mail("spam", i)),
            ("ham", synthetic_mail("ham", i)),
            ("newsletter", newsletter(i)),
        ):
            batch.append((tokenize(raw), raw, label))
    return batch


def unseen() -> list[set[str]]:
    raws = [synthetic_mail("spam", 900 + i) for i in range(8)]
    raws += [synthetic_mail("ham", 900 + i) for i in range(8)]
    raws += [newsletter(900 + i) for i in range(8)]
    return [tokenize(raw) for raw in raws]


def sqlite_rows(path: Path) -> dict[str, list]:
    import sqlite3

    db = sqlite3.connect(path)
    tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    rows = {t: sorted(db.execute(f"SELECT * FROM {t}").fetchall()) for t in tables}
    db.close()
    return rows


# ---------------------------------------------------------------- class names
@pytest.mark.parametrize("name", ["newsletter", "phishing", "hard-ham", "x", "a_1", "z" * 32])
def test_class_names_allowed(name):
    assert check_class(name) == name


@pytest.mark.parametrize(
    "name",
    ["", "Spam", "news letter", "../etc/passwd", "a:b", "x" * 33, "unsure", "-x", "1abc",
     "ham\n", "caf\u00e9", "a\0b", None, 3],
)  # fmt: skip
def test_bad_class_names_refused(name):
    with pytest.raises(ValueError, match=r"class name .*lower-case letters, digits, _ and -"):
        check_class(name)


@given(st.text(max_size=40))
def test_an_accepted_name_is_always_safe(name):
    """Whatever the input, a name let through is short, ASCII, with no separator, space,
    colon, slash or control character (it names SQL rows, Redis fields, header text)."""
    try:
        checked = check_class(name)
    except ValueError:
        return
    assert checked == name and 0 < len(name) <= MAX_CLASS_LENGTH
    assert re.fullmatch(r"[a-z][a-z0-9_-]*", name) and name != "unsure"


def test_class_order_puts_ham_and_spam_first():
    assert class_order(["zeta", "spam", "alpha", "ham"]) == ("ham", "spam", "alpha", "zeta")


# ---------------------------------------------------------------- the posterior
def test_posterior_equals_scikit_learn_multinomial_nb_on_the_same_counts(tmp_path):
    """Multinomial NB over the token sets of the trained mail (Laplace alpha = 1 over
    the whole vocabulary, the prior (N_c + 1) / (N + K)), as scikit-learn computes it
    from the same binary matrix, to 1e-10."""
    from sklearn.naive_bayes import MultinomialNB

    batch = three_classes(25)
    with TokenStore(tmp_path / "t.db") as store:
        store.learn(batch)
        tests = unseen()
        verdicts = classify_classes(store, tests)
    X, columns = token_matrix([tokens for tokens, _, _ in batch])
    labels = [label for _, _, label in batch]
    order = ("ham", "spam", "newsletter")
    y = np.array([order.index(label) for label in labels])
    counts = np.bincount(y, minlength=3)
    prior = (counts + 1.0) / (counts.sum() + 3.0)
    model = MultinomialNB(alpha=1.0, class_prior=prior).fit(X, y)
    index = {token: j for j, token in enumerate(columns)}
    rows = np.zeros((len(tests), len(columns)))
    for i, tokens in enumerate(tests):
        for token in tokens:
            if token in index:  # tokens the store never saw are no feature
                rows[i, index[token]] = 1
    expected = model.predict_log_proba(rows)
    got = np.array([[v.log_probabilities[c] for c in order] for v in verdicts])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)
    assert [v.verdict for v in verdicts] == [order[k] for k in expected.argmax(axis=1)]
    assert sorted(v.verdict for v in verdicts).count("newsletter") >= 6  # it says something


def check_probabilities(verdicts) -> None:
    for v in verdicts:
        p = np.array(list(v.probabilities.values()))
        assert np.all(np.isfinite(p)) and np.all(p >= 0)
        assert math.isclose(p.sum(), 1.0, rel_tol=0, abs_tol=1e-12)
        assert v.probabilities[v.verdict] == p.max()


def test_probabilities_sum_to_one_even_for_hopeless_messages(tmp_path):
    """Long messages (thousands of tokens: log-likelihoods of -1e4 and below), empty
    ones and ones of unseen tokens only: finite probabilities summing to 1."""
    with TokenStore(tmp_path / "t.db") as store:
        store.learn(three_classes(10))
        long = set().union(*unseen()) | {f"w{i}" for i in range(5000)}
        verdicts = classify_classes(store, [long, set(), {"never", "seen"}])
    check_probabilities(verdicts)
    priors = verdicts[1].probabilities  # nothing known: the (equal) smoothed prior
    assert priors == verdicts[2].probabilities
    assert all(math.isclose(p, 1 / 3, rel_tol=1e-12) for p in priors.values())


def test_classes_without_messages_are_no_verdict(tmp_path):
    with TokenStore(tmp_path / "t.db") as store:
        store.learn([b for b in three_classes(5) if b[2] != "ham"])
        [verdict] = classify_classes(store, [unseen()[0]])
    assert tuple(verdict.probabilities) == ("spam", "newsletter")


# ---------------------------------------------------------------- SQLite and Redis
def test_sqlite_and_redis_give_the_same_counts_and_probabilities(redis_server, tmp_path):
    batch = three_classes(30)
    phishing = [(t, r + b"\nverify your account", "phishing") for t, r, _ in batch[:20:2]]
    with TokenStore(tmp_path / "t.db") as sqlite, RedisTokenStore(redis_server.url()) as redis:
        for store in (sqlite, redis):
            store.learn(batch[:40])
            store.learn(batch[40:] + phishing)
        assert sqlite.class_totals() == redis.class_totals() == {
            "newsletter": (30, sum(len(t) for t, _, lab in batch if lab == "newsletter")),
            "phishing": (10, sum(len(t) for t, _, _ in phishing)),
        }
        tokens = sorted(set().union(*unseen()))
        a, b = sqlite.read_classes(tokens), redis.read_classes(tokens)
        assert a.classes == b.classes == ("ham", "spam", "newsletter", "phishing")
        assert (a.messages, a.tokens, a.vocabulary) == (b.messages, b.tokens, b.vocabulary)
        assert a.vocabulary == len(set().union(*(t for t, _, _ in batch)))
        assert np.array_equal(a.counts, b.counts) and a.counts.any()
        from_sqlite, from_redis = classify_classes(sqlite, unseen()), classify_classes(
            redis, unseen()
        )
        assert from_sqlite == from_redis  # every float equal, bit for bit
        check_probabilities(from_sqlite)
        assert len({v.verdict for v in from_sqlite}) >= 3
        # pruning the other classes' rare counts: the same rows go in both
        reports = [prune(s, count_at_most=1) for s in (sqlite, redis)]
        assert reports[0].class_rows == reports[1].class_rows > 0
        assert reports[0].class_removed == reports[1].class_removed > 0
        assert classify_classes(sqlite, unseen()) == classify_classes(redis, unseen())


@pytest.mark.parametrize("method", ["fisher", "graham", "naive-bayes"])
def test_two_class_scores_ignore_the_other_classes(redis_server, tmp_path, method):
    """The Spam/Ham scores of a store that also learnt a newsletter class are those of
    the store without it, bit for bit, in both backends."""
    batch = three_classes(30)
    two = [b for b in batch if b[2] != "newsletter"]
    settings = ScoreSettings(method=method)
    scores = []
    with (
        TokenStore(tmp_path / "two.db") as alone,
        TokenStore(tmp_path / "three.db") as sqlite,
        RedisTokenStore(redis_server.url()) as redis,
    ):
        alone.learn(two)
        for store in (sqlite, redis):
            store.learn(batch)
        for store in (alone, sqlite, redis):
            scores.append(score_tokens(store, unseen(), settings).tobytes())
    assert scores[0] == scores[1] == scores[2]


def test_a_two_class_store_is_laid_out_as_before(redis_server, tmp_path):
    """Training spam and ham only makes none of the other classes' tables or keys."""
    two = [b for b in three_classes(10) if b[2] != "newsletter"]
    with TokenStore(tmp_path / "t.db") as sqlite, RedisTokenStore(redis_server.url()) as redis:
        for store in (sqlite, redis):
            store.learn(two)
            store.unlearn(two[:4])
            assert store.class_totals() == {}
        assert not any(redis.client.exists(key) for key in redis.class_keys)
    assert set(sqlite_rows(tmp_path / "t.db")) == {"tokens", "totals", "trained", "settings"}


def test_learn_then_unlearn_a_class_restores_the_store(redis_server, tmp_path):
    batch = three_classes(12)
    two = [b for b in batch if b[2] != "newsletter"]
    others = [b for b in batch if b[2] == "newsletter"]
    with TokenStore(tmp_path / "t.db") as sqlite, RedisTokenStore(redis_server.url()) as redis:
        for store in (sqlite, redis):
            store.learn(two)
        before = sqlite_rows(tmp_path / "t.db")
        redis_before = redis.read_all()
        for store in (sqlite, redis):
            store.learn(others)
            with pytest.raises(NotTrainedError):  # one of them twice: nothing unlearnt
                store.unlearn([*others, others[0]])
            assert store.class_totals()["newsletter"][0] == len(others)
            store.unlearn(others)
            assert store.class_totals() == {}
            assert store.read_classes([]).classes == ("ham", "spam")
        after = sqlite_rows(tmp_path / "t.db")
        assert after["class_tokens"] == after["class_trained"] == []
        assert after["extra_vocabulary"] == [(0,)]  # the running count: back to 0
        del after["class_tokens"], after["class_trained"], after["extra_vocabulary"]
        assert after == before
        assert not any(redis.client.exists(key) for key in redis.class_keys)
        assert not redis.client.hexists(redis.meta, "extra_vocabulary")
        tokens, counts, totals = redis.read_all()
        assert tokens == redis_before[0] and np.array_equal(counts, redis_before[1])
        assert totals == redis_before[2]


def test_unlearning_a_class_never_learnt_changes_nothing(redis_server, tmp_path):
    batch = three_classes(5)
    with TokenStore(tmp_path / "t.db") as sqlite, RedisTokenStore(redis_server.url()) as redis:
        for store in (sqlite, redis):
            store.learn(batch)
            before = store.class_totals(), store.read_all()[2]
            with pytest.raises(NotTrainedError, match="never trained"):
                store.unlearn([(batch[0][0], batch[0][1], "phishing")])  # learnt as spam
            assert (store.class_totals(), store.read_all()[2]) == before


def test_training_learns_every_message_of_other_classes(tmp_path):
    """``unless-sure`` judges spam and ham by their score; another class's messages
    are all learnt, even when the same message comes again."""
    items = {
        "spam": [MailItem(f"s{i}", synthetic_mail("spam", i)) for i in range(30)],
        "ham": [MailItem(f"h{i}", synthetic_mail("ham", i)) for i in range(30)],
        "newsletter": [MailItem(f"n{i}", newsletter(i % 10)) for i in range(30)],
    }
    with TokenStore(tmp_path / "t.db") as store:
        report = train(store, interleave_classes(items), batch_size=7)
        assert report.learnt["newsletter"] == 30
        assert store.class_totals()["newsletter"][0] == 30
        assert report.learnt["spam"] + report.learnt["ham"] + report.sure == 60


@pytest.mark.parametrize("mode", ["everything", "on-error", "until-mature"])
def test_other_classes_are_learnt_once_in_every_mode(tmp_path, mode):
    items = {
        "spam": [MailItem(f"s{i}", synthetic_mail("spam", i)) for i in range(20)],
        "ham": [MailItem(f"h{i}", synthetic_mail("ham", i)) for i in range(20)],
        "newsletter": [MailItem(f"n{i}", newsletter(i)) for i in range(12)],
    }
    with TokenStore(tmp_path / "t.db") as store:
        report = train(store, interleave_classes(items), mode=mode, batch_size=9)
        assert report.learnt["newsletter"] == 12
        assert store.class_totals()["newsletter"][0] == 12
        assert report.passes >= 1 and store.totals().messages[1] == report.learnt["spam"]


def test_training_refuses_a_bad_class_before_learning_anything(tmp_path):
    with TokenStore(tmp_path / "t.db") as store:
        with pytest.raises(ValueError, match="class name 'News'"):
            train(store, [(MailItem("a", synthetic_mail("spam", 1)), "spam"),
                          (MailItem("b", newsletter(1)), "News")])  # fmt: skip
        assert sum(store.totals().messages) == 0


# ---------------------------------------------------------------- real mail
def _read(paths: list[Path]) -> list[set[str]]:
    sets = []
    for path in paths:
        try:
            sets.append(tokenize(path.read_bytes()))
        except MailParseError:
            continue
    return sets


def test_accuracy_on_four_newsgroups(tmp_path):
    """Four groups of 20 Newsgroups (bydate) as four classes, none of them spam or ham:
    200 posts of each learnt, the first 100 of each group's test half classified."""
    root = require_path(DATA / "20newsgroups_bydate")
    groups = ("comp.graphics", "rec.autos", "sci.space", "talk.politics.guns")
    batch, tests, truth = [], [], []
    for group in groups:
        label = group.replace(".", "-")
        train_files = sorted((root / "20news-bydate-train" / group).iterdir())[:200]
        for path in train_files:
            raw = path.read_bytes()
            batch.append((tokenize(raw), raw, label))
        found = _read(sorted((root / "20news-bydate-test" / group).iterdir())[:100])
        tests += found
        truth += [label] * len(found)
    with TokenStore(tmp_path / "t.db") as store:
        store.learn(batch)
        verdicts = classify_classes(store, tests)
    check_probabilities(verdicts)
    accuracy = np.mean([v.verdict == t for v, t in zip(verdicts, truth, strict=True)])
    # measured 0.835 (all 2,317 training posts, all 1,543 test posts: 0.944); chance 0.25
    assert accuracy >= 0.80, accuracy


# ---------------------------------------------------------------- old stores, users
def test_a_schema_1_store_is_classified_read_only_and_learns_a_class(tmp_path):
    """A store made before the schema had days (and before other classes): read as it is
    (nothing written), then a class learnt into it beside its ham and spam."""
    from test_spam_database import make_v1_store

    path = tmp_path / "v1.db"
    make_v1_store(path)
    before = path.read_bytes()
    with TokenStore(path, readonly=True) as store:
        [verdict] = classify_classes(store, [{"a", "z"}])
    assert path.read_bytes() == before and verdict.verdict == "ham"
    assert verdict.probabilities == {"ham": 1.0}
    with TokenStore(path) as store:
        store.learn([({"z", "y"}, b"n1", "newsletter")])
        [verdict] = classify_classes(store, [{"z"}])
        assert store.version == 2 and store.totals().messages == (1, 0)
    assert verdict.verdict == "newsletter" and tuple(verdict.probabilities) == (
        "ham", "newsletter",
    )  # fmt: skip
    check_probabilities([verdict])


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_a_users_classes(tmp_path, request, backend):
    """With a user: while their store is thin, their counts and the shared ones summed
    class by class, the verdict exactly that of one store trained on both; their store
    alone once mature (50 ham and 50 spam); the shared one where they have none."""
    from nbayes.spam.stores import open_store

    where = {"db": tmp_path / "spam.db"}
    if backend == "redis":
        url = request.getfixturevalue("redis_server").url()
        where = {"redis": url}
    shared_mail = three_classes(10)
    alice_mail = [(t, r, "phishing") for t, r, lab in three_classes(4) if lab == "spam"]
    alice_mail += [b for b in three_classes(14)[-9:]]  # 3 more of each of the three
    with open_store(**where, create=True) as store:
        store.learn(shared_mail)
    with TokenStore(tmp_path / "both.db") as both:
        both.learn(shared_mail + alice_mail)
        expected = classify_classes(both, unseen())
    with open_store(**where, user="alice", create=True) as alice:
        alice.learn(alice_mail)
        summed = classify_classes(alice, unseen())
        assert summed == expected  # bit for bit: the same counts, totals and vocabulary
        assert tuple(summed[0].probabilities) == ("ham", "spam", "newsletter", "phishing")
        alice.learn([b for b in three_classes(60) if b[2] != "newsletter"])
        own = classify_classes(alice, unseen())  # mature: alice's own classes alone
    assert tuple(own[0].probabilities) == ("ham", "spam", "newsletter", "phishing")
    with TokenStore(tmp_path / "own.db") as alone:
        alone.learn(alice_mail + [b for b in three_classes(60) if b[2] != "newsletter"])
        assert own == classify_classes(alone, unseen())
    check_probabilities(summed + own)
    with open_store(**where, readonly=True) as store:  # the shared store never written
        assert store.class_totals() == {"newsletter": (10, store.class_totals()["newsletter"][1])}
        shared = classify_classes(store, unseen())
    with open_store(**where, user="bob") as bob:  # no store of his own: the shared one
        assert classify_classes(bob, unseen()) == shared


@settings(deadline=None, max_examples=40)  # two SQLite files an example; first: imports
@given(
    st.lists(
        st.tuples(
            st.frozensets(st.sampled_from([f"w{i}" for i in range(12)]), max_size=6),
            st.sampled_from(["ham", "spam", "news", "phish"]),
        ),
        min_size=1,
        max_size=30,
    ),
    st.integers(min_value=0, max_value=30),
    st.lists(st.frozensets(st.sampled_from([f"w{i}" for i in range(15)]), max_size=8),
             min_size=1, max_size=5),
)  # fmt: skip
def test_learning_in_batches_is_learning_once(labelled, cut, messages):
    """Counts add: a store learnt batch by batch holds the counts of one learning of
    all, so its verdicts are the same to the last bit; probabilities are finite, sum to
    1, and name only classes with messages."""
    import tempfile

    batch = [(set(tokens), f"{i}".encode(), label) for i, (tokens, label) in enumerate(labelled)]
    with tempfile.TemporaryDirectory() as folder:
        with TokenStore(Path(folder) / "a.db") as once, TokenStore(Path(folder) / "b.db") as parts:
            once.learn(batch)
            parts.learn(batch[:cut])
            parts.learn(batch[cut:])
            a = classify_classes(once, [set(m) for m in messages])
            b = classify_classes(parts, [set(m) for m in messages])
    assert a == b
    check_probabilities(a)
    assert set(a[0].probabilities) == {label for _, label in labelled}


# ---------------------------------------------------------------- forged stores
FORGED = [("evil\nX-Injected: yes", 10**15, 10), ("Newsletter", 10**15, 10), ("neg", -5, 3)]


@pytest.mark.parametrize(("name", "messages", "tokens"), FORGED)
def test_a_class_nbayes_never_writes_is_refused_from_a_store(tmp_path, name, messages, tokens):
    """A class name read back from a database was trusted: a forged row of totals named
    "evil\\nX-Injected: yes" became the verdict header of the mail passed on (a header
    injected into it) and a line of its own in the verdict and stats output; negative
    counts were dropped silently. Now the store is refused in one line, exit 3, the
    message passed on unchanged; the two-class verdict, which reads only ham and spam,
    is unchanged."""
    import sqlite3

    from conftest import nbayes_spam

    path = tmp_path / "t.db"
    with TokenStore(path) as store:
        store.learn(three_classes(4))
    db = sqlite3.connect(path)
    with db:
        db.execute("INSERT INTO totals VALUES (?, ?, ?)", (name, messages, tokens))
    db.close()
    raw = b"Subject: zqxjv\n\nzqxjvw qqzzx\n"
    done = nbayes_spam("classify", "--db", path, "--classes", "-p", input=raw)
    assert (done.returncode, done.stdout) == (3, raw)
    assert len(done.stderr.splitlines()) == 1 and b"class" in done.stderr
    stats = nbayes_spam("stats", "--db", path)
    assert stats.returncode == 3 and b"X-Injected" not in stats.stdout
    assert nbayes_spam("classify", "--db", path, input=raw).returncode in (0, 1, 2)


def test_a_forged_class_in_redis_is_refused(redis_server):
    from nbayes.spam.database import StoreError

    with RedisTokenStore(redis_server.url()) as store:
        store.learn(three_classes(3))
        store.client.hset(store.classes_key, b"evil\nX-Injected: yes", b"1000 10")
        with pytest.raises(StoreError, match="never writes"):
            store.read_classes(["x"])
        with pytest.raises(StoreError, match="never writes"):
            store.class_totals()
        store.client.hdel(store.classes_key, b"evil\nX-Injected: yes")
        store.client.hset(store.classes_key, b"\xff\xfe", b"1000 10")  # not UTF-8
        with pytest.raises(StoreError, match="never writes"):
            store.read_classes(["x"])


# ---------------------------------------------------------------- the kept vocabulary
def kept_and_counted(store) -> tuple[int, int]:
    """(the running count of the tokens only the classes other than ham and spam hold,
    that number counted afresh from the store's rows)."""
    if isinstance(store, RedisTokenStore):
        field = store.client.hget(store.meta, "extra_vocabulary")
        two = set(store.client.hkeys(store.tokens_key))
        fields = store.client.hkeys(store.class_tokens_key)
        others = {f.split(b":", 1)[1] for f in fields}
        if field is None:
            return 0, len(others - two)
        kept, *sizes = map(int, field.split())
        assert sizes == [len(two), len(fields)]  # stamped with the sizes it was kept at
        return kept, len(others - two)
    if not store._has_classes():
        return 0, 0
    (kept,) = store.db.execute("SELECT size FROM extra_vocabulary").fetchone()
    two = {t for (t,) in store.db.execute("SELECT token FROM tokens")}
    others = {t for (t,) in store.db.execute("SELECT token FROM class_tokens")}
    return kept, len(others - two)


_prefixes = iter(range(10**9))
WORDS = [f"w{i}" for i in range(10)]
OPERATIONS = st.one_of(
    st.tuples(
        st.just("learn"),
        st.frozensets(st.sampled_from(WORDS), max_size=5),
        st.sampled_from(["ham", "spam", "news", "phish"]),
    ),
    st.tuples(st.just("unlearn"), st.integers(min_value=0, max_value=10**6)),
    st.tuples(st.just("prune_tokens"), st.integers(min_value=0, max_value=2)),
    st.tuples(st.just("prune_classes"), st.integers(min_value=0, max_value=2)),
)


@settings(
    deadline=None, max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(OPERATIONS, min_size=1, max_size=25))
def test_the_kept_vocabulary_equals_a_recount(redis_server, operations):
    """The vocabulary's rest (tokens only the other classes hold) is a running count
    kept by learning, unlearning and pruning: after any sequence of them, on SQLite and
    on Redis, it equals a count of the rows, and the verdict's vocabulary is the number
    of distinct tokens of every class."""
    import tempfile

    prefix = f"kept{next(_prefixes)}"
    with tempfile.TemporaryDirectory() as folder, TokenStore(Path(folder) / "t.db") as sqlite, \
            RedisTokenStore(redis_server.url(), prefix=prefix) as redis:  # fmt: skip
        for store in (sqlite, redis):
            learnt: list[tuple[set[str], bytes, str]] = []
            for step, operation in enumerate(operations):
                if operation[0] == "learn":
                    message = (set(operation[1]), f"m{step}".encode(), operation[2])
                    store.learn([message])
                    learnt.append(message)
                elif operation[0] == "unlearn" and learnt:
                    store.unlearn([learnt.pop(operation[1] % len(learnt))])
                elif operation[0] == "prune_tokens":
                    prune(store, count_at_most=operation[1])
                elif operation[0] == "prune_classes":
                    store.prune_classes(before_day=None, count_at_most=operation[1], dry_run=False)
                kept, counted = kept_and_counted(store)
                assert kept == counted, (store.name, step, operation)
                if store.class_totals():
                    found = store.read_classes([], vocabulary=True).vocabulary
                    assert found == len(store.class_vocabulary())
        if sum(sqlite.totals(vocabulary=False).messages) or sqlite.class_totals():
            assert classify_classes(sqlite, unseen()) == classify_classes(redis, unseen())


def test_a_store_without_the_kept_count_gives_the_same_answer(redis_server, tmp_path):
    """A store whose classes were learnt before the count was kept (no
    ``extra_vocabulary`` table or field): read-only it is counted on each read, the same
    number; its next write counts it once and keeps it from then on."""
    import sqlite3

    batch = three_classes(6)
    path = tmp_path / "t.db"
    with TokenStore(path) as sqlite, RedisTokenStore(redis_server.url()) as redis:
        for store in (sqlite, redis):
            store.learn(batch)
        expected = classify_classes(sqlite, unseen())
        assert classify_classes(redis, unseen()) == expected
        assert kept_and_counted(sqlite)[0] > 0
        redis.client.hdel(redis.meta, "extra_vocabulary")  # as an older nbayes left it
        assert classify_classes(redis, unseen()) == expected  # counted on reading
        redis.learn([(tokenize(newsletter(50)), newsletter(50), "newsletter")])
        kept, counted = kept_and_counted(redis)
        assert kept == counted > 0 and redis.client.hexists(redis.meta, "extra_vocabulary")
        # an older nbayes pruning a token only the newsletters hold keeps no count: the
        # sizes the count was stamped with differ, so it is counted afresh
        (field,) = [f for f in redis.client.hkeys(redis.class_tokens_key)
                    if not redis.client.hexists(redis.tokens_key, f.split(b":", 1)[1])][:1]
        redis.client.hdel(redis.class_tokens_key, field)
        size = redis.read_classes([]).vocabulary
        assert size == len(redis.class_vocabulary()) == kept - 1 + redis.totals().vocabulary
        redis.learn([(tokenize(newsletter(51)), newsletter(51), "newsletter")])
        assert operator.eq(*kept_and_counted(redis))
    db = sqlite3.connect(path)
    with db:
        for (trigger,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
            db.execute(f"DROP TRIGGER {trigger}")
        db.execute("DROP TABLE extra_vocabulary")
    db.close()
    with TokenStore(path, readonly=True) as old:
        assert classify_classes(old, unseen()) == expected
        assert not old._keeps_extra_vocabulary()  # reading never writes
    with TokenStore(path) as store:  # opened for writing: counted once
        assert store._keeps_extra_vocabulary()
        assert classify_classes(store, unseen()) == expected
        store.learn([(tokenize(newsletter(50)), newsletter(50), "newsletter")])
        kept, counted = kept_and_counted(store)
        assert kept == counted > 0


# ---------------------------------------------------------------- dump --classes
def _unescape(field: bytes) -> str:
    """A TSV field of ``dump`` back to its text (\\\\, \\t, \\n, \\r undone)."""
    escapes = {b"\\": b"\\", b"t": b"\t", b"n": b"\n", b"r": b"\r"}
    return re.sub(rb"\\(.)", lambda m: escapes[m.group(1)], field).decode()


def parse_class_dump(text: bytes) -> tuple[tuple[str, ...], dict[str, list[int]], list, list]:
    """``dump --classes`` read back: (classes, {token: counts}, messages, tokens)."""
    lines = text.split(b"\n")
    assert lines.pop() == b""  # every line ends with a line break
    head, *rows, messages, tokens = (line.split(b"\t") for line in lines)
    assert head[0] == b".CLASSES" and messages[0] == b".MSG_COUNT"
    assert tokens[0] == b".TOKEN_COUNT"
    counts = {_unescape(row[0]): [int(n) for n in row[1:]] for row in rows}
    assert len(counts) == len(rows) and all(len(c) == len(head) - 1 for c in counts.values())
    as_ints = [int(n) for n in messages[1:]], [int(n) for n in tokens[1:]]
    return tuple(c.decode() for c in head[1:]), counts, *as_ints


def hostile_batch() -> list[tuple[set[str], bytes, str]]:
    """Three classes, with tokens holding tabs, line breaks, backslashes and non-ASCII."""
    batch = three_classes(20)
    odd = {"a\tb", "line\nbreak", "back\\slash", "cr\rlf", "caf\u00e9", ".MSG_COUNT"}
    return [*batch, (odd | {"digest"}, b"odd newsletter", "newsletter"),
            (odd, b"odd phishing", "phishing")]  # fmt: skip


def test_dump_classes_holds_what_classify_classes_reads(redis_server, tmp_path):
    """Round trip: the counts ``dump --classes`` writes (SQLite and Redis byte for byte)
    give, read back, every class's probabilities exactly as ``classify --classes`` does
    against the store itself."""
    from nbayes.spam.classes import ClassCounts
    from nbayes.spam.score import token_index
    from nbayes.spam.verdicts import class_log_posterior

    batch = hostile_batch()
    with TokenStore(tmp_path / "t.db") as sqlite, RedisTokenStore(redis_server.url()) as redis:
        for store in (sqlite, redis):
            store.learn(batch)
        tests = [*unseen(), {"a\tb", "line\nbreak", "digest"}]
        expected = classify_classes(sqlite, tests)
        assert classify_classes(redis, tests) == expected
    dumps = [
        nbayes_spam("dump", "--classes", "--db", tmp_path / "t.db"),
        nbayes_spam("dump", "--classes", "--redis", redis_server.url()),
    ]
    assert [d.returncode for d in dumps] == [0, 0], [d.stderr for d in dumps]
    assert dumps[0].stdout == dumps[1].stdout
    classes, counts, messages, tokens = parse_class_dump(dumps[0].stdout)
    assert classes == ("ham", "spam", "newsletter", "phishing")
    assert set(counts) == set().union(*(t for t, _, _ in batch))
    for j, name in enumerate(classes):
        mail = [t for t, _, label in batch if label == name]
        assert messages[j] == len(mail) and tokens[j] == sum(map(len, mail))
    for k, tokens_of_message in enumerate(tests):
        indices, indptr, columns = token_index([sorted(tokens_of_message)])
        table = np.array([counts.get(t, [0] * len(classes)) for t in columns], dtype=np.int64)
        found = ClassCounts(classes, table, tuple(messages), tuple(tokens), len(counts))
        X = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(1, len(columns)))
        got = class_log_posterior(X, found, 1.0)[0]
        assert got.tolist() == [expected[k].log_probabilities[c] for c in classes]


def test_the_plain_dump_is_unchanged_by_other_classes(tmp_path):
    """Without --classes, ``dump`` writes the spam and ham counts as it always has: the
    same bytes as a store that never learnt another class; with it, the ham and spam
    columns of those tokens are the same counts."""
    batch = hostile_batch()
    two = [b for b in batch if b[2] in ("ham", "spam")]
    two.append(({"a\tb", "x\ny", "plain"}, b"odd ham", "ham"))
    with TokenStore(tmp_path / "two.db") as alone, TokenStore(tmp_path / "all.db") as every:
        alone.learn(two)
        every.learn([*batch, two[-1]])
    plain = nbayes_spam("dump", "--db", tmp_path / "two.db", check=True).stdout
    assert nbayes_spam("dump", "--db", tmp_path / "all.db", check=True).stdout == plain
    _, counts, messages, _ = parse_class_dump(
        nbayes_spam("dump", "--classes", "--db", tmp_path / "all.db", check=True).stdout
    )
    *rows, last = plain.rstrip(b"\n").split(b"\n")
    assert last == b".MSG_COUNT\t%d\t%d" % (messages[0], messages[1])
    for row in rows:
        token, ham, spam = row.split(b"\t")
        assert counts[_unescape(token)][:2] == [int(ham), int(spam)]
    only_others = {t for t, c in counts.items() if c[:2] == [0, 0]}
    assert len(rows) + len(only_others) == len(counts) and only_others


def test_dump_classes_of_a_two_class_store(tmp_path):
    with TokenStore(tmp_path / "t.db") as store:
        store.learn([b for b in three_classes(4) if b[2] != "newsletter"])
    classes, counts, messages, _ = parse_class_dump(
        nbayes_spam("dump", "--classes", "--db", tmp_path / "t.db", check=True).stdout
    )
    assert classes == ("ham", "spam") and messages == [4, 4] and counts
