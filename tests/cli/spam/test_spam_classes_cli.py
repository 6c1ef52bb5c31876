"""``nbayes spam train --class NAME SRC...`` and ``nbayes spam classify --classes``, run
as a user runs them (subprocesses): real mail of three classes learnt into SQLite and
Redis stores, the same verdicts and probabilities from both, probabilities that sum to
1, the exit statuses and the verdict header; ``--class spam`` being ``--spam``; the
two-class commands' output unchanged by other classes; bad class names refused."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import nbayes_spam, require_path
from spam_mail import corpus_dirs, synthetic_mail

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
#: hard_ham messages held out of training (their names start 0000: 9 of 250)
HELD_OUT = "0000*"


def nbayes(*args, input: bytes | None = None):
    return nbayes_spam(*args, input=input, timeout=600)


def ok(*args) -> str:
    result = nbayes(*args)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode()


@pytest.fixture(scope="module")
def real_mail():
    """Three classes of real mail: SpamAssassin's spam and hard_ham (commercial ham:
    newsletters, offers), and 20 Newsgroups' sci.space posts; and held-out messages of
    each: (class, path) pairs."""
    sa = require_path(DATA / "spamassassin")
    news = require_path(DATA / "20newsgroups_bydate")
    sources = {
        "spam": sa / "spam",
        "hard-ham": sa / "hard_ham",
        "space": news / "20news-bydate-train" / "sci.space",
    }
    held = [("spam", p) for p in sorted((sa / "spam_2").iterdir())[:2]]
    held += [("hard-ham", p) for p in sorted((sa / "hard_ham").glob(HELD_OUT))[:2]]
    space_tests = sorted((news / "20news-bydate-test" / "sci.space").iterdir())
    held += [("space", p) for p in space_tests[:2]]
    return sources, held


def train_three(where: list[str], sources) -> list[str]:
    common = ["--jobs", "0", "--exclude", "cmds"]  # SpamAssassin's folders hold a 'cmds' file
    # a share of the spam and of the posts (the test's time): 199 and about 300
    outputs = [ok("train", *where, *common, "--exclude", "00[2-5]*", "--class", "spam",
                  sources["spam"])]  # fmt: skip
    outputs.append(
        ok("train", *where, *common, "--exclude", HELD_OUT, "--class", "hard-ham",
           sources["hard-ham"])
    )  # fmt: skip
    outputs.append(
        ok("train", *where, *common, "--exclude", "*[0-4]", "--class", "space", sources["space"])
    )
    return outputs


def test_three_classes_of_real_mail_on_sqlite_and_redis(real_mail, redis_server, tmp_path):
    sources, held = real_mail
    stores = {"sqlite": ["--db", tmp_path / "t.db"], "redis": ["--redis", redis_server.url()]}
    n_hard = sum(1 for p in sources["hard-ham"].iterdir()
                 if p.name != "cmds" and not p.match(HELD_OUT))  # fmt: skip
    for where in stores.values():
        outputs = train_three(where, sources)
        assert outputs[0].startswith("learnt ") and " spam and 0 ham (" in outputs[0]
        assert outputs[1].startswith(f"learnt 0 spam and 0 ham, {n_hard} hard-ham ({n_hard} read")
        assert outputs[2].startswith("learnt 0 spam and 0 ham, ")
        assert " space (" in outputs[2]
    stats = {name: ok("stats", *where) for name, where in stores.items()}
    for text in stats.values():
        assert f"\nhard-ham messages\t{n_hard}\n" in text and "\nspace messages\t" in text
    assert stats["sqlite"].split("\n")[2:] == stats["redis"].split("\n")[2:]  # past the schema

    right = 0
    for label, path in held:
        raw = path.read_bytes()
        answers = {}
        for name, where in stores.items():
            result = nbayes("classify", *where, "--classes", "--json", input=raw)
            assert result.returncode in (0, 1, 2), result.stderr.decode()
            answers[name] = result
        # the same verdict and probabilities, to the last bit (JSON writes every float's repr)
        assert answers["sqlite"].stdout == answers["redis"].stdout
        assert answers["sqlite"].returncode == answers["redis"].returncode
        found = json.loads(answers["sqlite"].stdout)
        p = found["probabilities"]
        assert set(p) == {"spam", "hard-ham", "space"}  # ham never learnt: no class
        assert all(math.isfinite(v) and v >= 0 for v in p.values())
        assert math.isclose(sum(p.values()), 1.0, abs_tol=1e-12)
        assert found["verdict"] == max(p, key=p.get)
        assert answers["sqlite"].returncode == (0 if found["verdict"] == "spam" else 2)
        right += found["verdict"] == label

        text = nbayes("classify", *stores["sqlite"], "--classes", input=raw)
        lines = [line.split("\t") for line in text.stdout.decode().splitlines()]
        assert lines[0][0] == found["verdict"]
        assert sorted(name for name, _ in lines) == sorted(p)
        shown = [float(v) for _, v in lines]
        assert shown == sorted(shown, reverse=True)
        assert all(abs(float(v) - p[name]) <= 5e-7 for name, v in lines)
    # of 6; measured 4: the spam and the posts right, the two hard ham (commercial mail:
    # offers, newsletters) taken for spam, as by a two-class filter
    assert right >= 4, right


def mail_and_letters(tmp_path, n_mail: int, n_letters: int):
    """Folders ``mail/spam``, ``mail/ham`` (``n_mail`` each) and ``letters`` (``n_letters``
    newsletters) under ``tmp_path``: (mail, letters)."""
    mail = tmp_path / "mail"
    mail.mkdir()
    corpus_dirs(mail, n_mail, n_mail)
    letters = tmp_path / "letters"
    letters.mkdir()
    for i in range(n_letters):
        (letters / f"{i}.eml").write_bytes(newsletter(i))
    return mail, letters


def test_the_verdict_header_names_the_class(tmp_path):
    db = tmp_path / "t.db"
    mail, letters = mail_and_letters(tmp_path, 20, 20)
    ok("train", "--db", db, "--spam", mail / "spam", "--ham", mail / "ham")
    ok("train", "--db", db, "--class", "newsletter", letters)
    raw = newsletter(99)
    marked = nbayes("classify", "--db", db, "--classes", "-p", "--subject-tag", "[SPAM]", input=raw)
    assert marked.returncode == 2, marked.stderr.decode()
    head, _, body = marked.stdout.partition(b"\n\n")
    assert b"\nX-Nbayes-Class: newsletter, score=" in head
    assert b"[SPAM]" not in head and b"X-Nbayes-Spam" not in head
    assert body == raw.partition(b"\n\n")[2]
    spam = nbayes("classify", "--db", db, "--classes", "-p", "--subject-tag", "[SPAM]",
                  "--header", "X-Class", input=synthetic_mail("spam", 99))  # fmt: skip
    assert spam.returncode == 0
    assert b"\nX-Class: spam, score=" in spam.stdout and b"Subject: [SPAM] " in spam.stdout
    assert nbayes("classify", "--db", db, "--classes", "-e", input=raw).returncode == 0
    # two-class only: refused as a usage error, exit 3, the message passed on whole
    for option in ("--update", "--spamassassin-headers"):
        refused = nbayes("classify", "--db", db, "--classes", "-p", option, input=raw)
        assert refused.returncode == 3 and refused.stdout == raw
        assert option in refused.stderr.decode()


def newsletter(i: int) -> bytes:
    """A third class of mail: ham-like, from its own sender, with words of its own."""
    raw = synthetic_mail("ham", 700 + i).replace(b"dev@lists.example.org", b"digest@news.example")
    return raw.replace(b"meeting", b"unsubscribe weekly digest") + b"unsubscribe here\n"


def test_class_spam_and_ham_are_the_spam_and_ham_options(tmp_path):
    mail = tmp_path / "mail"
    mail.mkdir()
    corpus_dirs(mail, 30, 30)
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    ok("train", "--db", a, "--mode", "everything", "--spam", mail / "spam", "--ham", mail / "ham")
    ok("train", "--db", b, "--mode", "everything", "--class", "spam", mail / "spam")
    ok("train", "--db", b, "--mode", "everything", "--class", "ham", mail / "ham")
    assert ok("dump", "--db", a) == ok("dump", "--db", b)
    assert ok("stats", "--db", a).split("\n")[1:] == ok("stats", "--db", b).split("\n")[1:]


def test_two_class_commands_unchanged_by_another_class(tmp_path):
    """classify (Spam/Ham/Unsure), score, stats and dump of a store that also learnt a
    newsletter class print what the store without it prints (stats adds its line)."""
    mail, letters = mail_and_letters(tmp_path, 40, 15)
    two, three = tmp_path / "two.db", tmp_path / "three.db"
    for db in (two, three):
        ok("train", "--db", db, "--spam", mail / "spam", "--ham", mail / "ham")
    trained = ok("train", "--db", three, "--class", "newsletter", letters)
    assert trained.startswith("learnt 0 spam and 0 ham, 15 newsletter (15 read")
    for raw in (synthetic_mail("spam", 300), synthetic_mail("ham", 300), newsletter(300)):
        for method in ("fisher", "naive-bayes"):
            results = [
                nbayes("classify", "--db", db, "--method", method, "-p", input=raw)
                for db in (two, three)
            ]
            assert results[0].stdout == results[1].stdout
            assert results[0].returncode == results[1].returncode
    assert ok("dump", "--db", two) == ok("dump", "--db", three)
    stats_two, stats_three = ok("stats", "--db", two), ok("stats", "--db", three)
    assert "newsletter" not in stats_two
    assert stats_three.split("\n")[1:] == (
        [*stats_two.split("\n")[1:4], "newsletter messages\t15", *stats_two.split("\n")[4:]]
    )
    # and unlearning the class gives the two-class store back
    assert ok("unlearn", "--db", three, "--class", "newsletter", letters) == (
        "unlearnt 0 spam and 0 ham, 15 newsletter\n"
    )
    assert ok("stats", "--db", three).split("\n")[1:] == stats_two.split("\n")[1:]
    pruned = ok("prune", "--db", three, "--hapaxes")
    assert "counts of other classes" not in pruned


@pytest.mark.parametrize(
    "name", ["Spam", "news letter", "../x", "a:b", "x" * 33, "unsure", "-x", "caf\u00e9", ""]
)
def test_bad_class_names_are_refused(tmp_path, name):
    (tmp_path / "m.eml").write_bytes(newsletter(1))
    result = nbayes("train", "--db", tmp_path / "t.db", f"--class={name}", tmp_path / "m.eml")
    assert result.returncode == 2
    error = result.stderr.decode()
    assert "--class" in error and "class name" in error and "lower-case letters" in error
    assert "Traceback" not in error
    assert not (tmp_path / "t.db").exists()


def test_sources_need_a_class_and_a_class_needs_sources(tmp_path):
    (tmp_path / "m.eml").write_bytes(newsletter(1))
    no_class = nbayes("train", "--db", tmp_path / "t.db", tmp_path / "m.eml")
    assert no_class.returncode == 2 and "--class NAME" in no_class.stderr.decode()
    no_source = nbayes("train", "--db", tmp_path / "t.db", "--class", "newsletter")
    assert no_source.returncode == 2 and "sources" in no_source.stderr.decode()
    assert not (tmp_path / "t.db").exists()


def test_classes_of_an_empty_store_is_an_error(tmp_path):
    db = tmp_path / "t.db"
    (tmp_path / "m.eml").write_bytes(newsletter(1))
    ok("train", "--db", db, "--class", "newsletter", tmp_path / "m.eml")
    ok("unlearn", "--db", db, "--class", "newsletter", tmp_path / "m.eml")
    result = nbayes("classify", "--db", db, "--classes", "-p", input=newsletter(2))
    assert result.returncode == 3 and result.stdout == newsletter(2)
    assert "no message learnt yet" in result.stderr.decode()


def test_json_of_the_two_class_verdict(tmp_path):
    mail = tmp_path / "mail"
    mail.mkdir()
    corpus_dirs(mail, 30, 30)
    db = tmp_path / "t.db"
    ok("train", "--db", db, "--spam", mail / "spam", "--ham", mail / "ham")
    raw = synthetic_mail("spam", 500)
    text = nbayes("classify", "--db", db, input=raw)
    as_json = nbayes("classify", "--db", db, "--json", input=raw)
    assert as_json.returncode == text.returncode
    found = json.loads(as_json.stdout)
    verdict, score = text.stdout.decode().split("\t")
    assert found["verdict"] == verdict and f"{found['score']:.6f}" == score.strip()
