"""``nbayes spam prune``: by age, by count (hapaxes), by vocabulary size, then compact;
and unlearning a message whose tokens were pruned stays sane."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from spam_mail import corpus

from nbayes.cli import main
from nbayes.spam.prune import prune
from nbayes.spam.store import TokenStore, today
from nbayes.spam.tokens import tokenize


@pytest.fixture
def store(tmp_path):
    messages, labels = corpus(30, 30)
    with TokenStore(tmp_path / "t.db") as store:
        store.learn([(tokenize(m), m, lab) for m, lab in zip(messages, labels, strict=True)])
        yield store


def rows(store):
    return {t: (h, s, d) for t, h, s, d in store.db.execute("SELECT * FROM tokens").fetchall()}


def age(store, tokens, days):
    store.db.executemany(
        "UPDATE tokens SET day = ? WHERE token = ?", [(today() - days, t) for t in tokens]
    )


def test_old_hapaxes_and_the_rest_stay(store):
    before = rows(store)
    hapaxes = {t for t, (h, s, _) in before.items() if h + s == 1}
    old = set(sorted(before)[::2])
    age(store, old, 40)
    totals = store.totals()
    report = prune(store, older_than=30, count_at_most=1)
    after = rows(store)
    assert set(after) == set(before) - (old & hapaxes)
    assert report.tokens == len(before) and report.removed == len(old & hapaxes)
    assert store.totals().messages == totals.messages  # message counts kept
    assert all(after[t][:2] == before[t][:2] for t in after)


def test_each_rule_alone_and_the_size_cap(store):
    before = rows(store)
    age(store, list(before)[:10], 100)
    assert prune(store, older_than=99, dry_run=True).removed == 10
    assert rows(store).keys() == before.keys()  # a dry run changes nothing
    prune(store, older_than=99)
    assert len(rows(store)) == len(before) - 10
    prune(store, count_at_most=2)
    assert all(h + s > 2 for h, s, _ in rows(store).values())
    left = rows(store)
    prune(store, max_tokens=5)
    kept = rows(store)
    most_seen = sorted(left, key=lambda t: (-(left[t][0] + left[t][1]), -left[t][2], t))[:5]
    assert set(kept) == set(most_seen)


def test_unlearning_after_pruning_never_makes_negative_counts(store):
    message = corpus(30, 0)[0][0]
    prune(store, count_at_most=5)
    store.unlearn([(tokenize(message), message, "spam")])
    assert all(h >= 0 and s >= 0 for h, s, _ in rows(store).values())
    assert store.totals().messages == (30, 29)


def test_the_command_compacts_and_says_what_it_did(store):
    path = str(store.path)
    store.close()
    result = CliRunner().invoke(main, ["spam", "prune", "--db", path, "--hapaxes", "--dry-run"])
    assert result.exit_code == 0 and result.output.startswith("would remove ")
    result = CliRunner().invoke(main, ["spam", "prune", "--db", path, "--hapaxes"])
    removed, total = (int(w) for w in result.output.split()[1:4:2])
    assert result.exit_code == 0 and 0 < removed < total
    sizes = [float(w) for w in result.output.split() if w.replace(".", "").isdigit()][2:]
    assert sizes[1] <= sizes[0]  # compacted
    result = CliRunner().invoke(main, ["spam", "prune", "--db", path, "--hapaxes",
                                       "--count-at-most", "3"])  # fmt: skip
    assert result.exit_code == 2 and "--hapaxes is --count-at-most 1" in result.output
    with TokenStore(path, readonly=True) as reopened:
        assert reopened.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
