"""The ``nbayes spam`` command line, on synthetic mail and a SpamAssassin sample."""

from __future__ import annotations

import io
import json
import os
import pty
import sys
import threading

import pytest
from click.testing import CliRunner
from conftest import DATA, require_path
from spam_mail import corpus, corpus_dirs

from nbayes.cli import main
from nbayes.spam.sources import iter_mail


@pytest.fixture
def mail_dirs(tmp_path):
    corpus_dirs(tmp_path, 30, 30)
    return tmp_path


def run(*args, input=None):
    return CliRunner().invoke(main, ["spam", *map(str, args)], input=input)


def test_train_score_classify_unlearn(mail_dirs):
    db = mail_dirs / "t.db"
    result = run("train", "--db", db, "--spam", mail_dirs / "spam", "--ham", mail_dirs / "ham")
    assert result.exit_code == 0, result.output
    assert "learnt 30 spam and 30 ham" in result.output
    stats = run("stats", "--db", db).output
    assert "spam messages\t30" in stats and "ham messages\t30" in stats

    new_spam, new_ham = corpus(40, 0)[0][-1], corpus(0, 40)[0][-1]
    (mail_dirs / "new").mkdir()
    (mail_dirs / "new" / "a").write_bytes(new_spam)
    (mail_dirs / "new" / "b").write_bytes(new_ham)
    (mail_dirs / "new" / "c").write_bytes(bytes(range(256)) * 20)
    lines = run("score", "--db", db, mail_dirs / "new").output.splitlines()
    rows = [line.split("\t") for line in lines if "\t" in line]
    assert [(r[0].rsplit("/", 1)[1], r[2]) for r in rows] == [("a", "Spam"), ("b", "Ham")]
    assert all(0 <= float(r[1]) <= 1 for r in rows)
    assert any("c: skipped: binary data" in line for line in lines)

    assert run("classify", "--db", db, input=new_spam).exit_code == 0
    assert run("classify", "--db", db, input=new_ham).exit_code == 1
    passthrough = run("classify", "--db", db, "--passthrough", input=new_ham)
    assert passthrough.exit_code == 1
    head, _, body = passthrough.stdout_bytes.partition(b"\n\n")
    assert head.startswith(new_ham.partition(b"\n\n")[0])
    assert head.splitlines()[-1].startswith(b"X-Nbayes-Spam: Ham, score=0.")
    assert body == new_ham.partition(b"\n\n")[2]
    for message, verdict in ((new_spam, b"Spam"), (new_ham, b"Ham")):  # procmail's -e mode
        result = run("classify", "--db", db, "-p", "--exit-zero", input=message)
        assert result.exit_code == 0 and b"X-Nbayes-Spam: " + verdict in result.stdout_bytes

    dump_before = run("dump", "--db", db).output
    run("train", "--db", db, "--spam", mail_dirs / "new" / "a")
    assert run("dump", "--db", db).output != dump_before
    result = run("unlearn", "--db", db, "--spam", mail_dirs / "new" / "a")
    assert result.exit_code == 0 and "unlearnt 1 spam" in result.output
    assert run("dump", "--db", db).output == dump_before
    result = run("unlearn", "--db", db, "--ham", mail_dirs / "new" / "a")
    assert result.exit_code == 1 and "never trained" in result.output


def test_a_missing_or_empty_source_stops_the_command_before_it_learns(mail_dirs, monkeypatch):
    """A typo or an empty shell variable (``--spam "$SPAM"``, which would be the current
    folder) must not train the wrong mail, nor report success having read nothing."""
    monkeypatch.chdir(mail_dirs / "ham")  # "" would be this folder: ham as spam
    db = mail_dirs / "t.db"
    for command in (["train", "--db", db], ["unlearn", "--db", db], ["evaluate"]):
        for source in ("", str(mail_dirs / "no-such-folder")):
            result = run(*command, "--spam", source, "--ham", mail_dirs / "ham")
            assert result.exit_code == 2 and "does not exist" in result.output, command
    result = run("score", "--db", db, mail_dirs / "no-such-folder")
    assert result.exit_code == 2 and "does not exist" in result.output
    assert not db.exists()  # nothing was opened, let alone learnt
    errors = []
    assert list(iter_mail([""], on_error=lambda *e: errors.append(e))) == []
    assert errors == [("''", "skipped: an empty path names no file")]


def test_classify_errors_exit_3(mail_dirs):
    db = mail_dirs / "t.db"
    run("train", "--db", db, "--spam", mail_dirs / "spam", "--ham", mail_dirs / "ham")
    assert run("classify", "--db", db, input=b"").exit_code == 3
    assert run("classify", "--db", db, input=b"\x00\x01\x02" * 500).exit_code == 3
    assert (
        run("classify", "--db", mail_dirs / "missing.db", input=b"Subject: x\n\nhi\n").exit_code
        == 3
    )
    assert run("classify", "--bogus-option").exit_code == 3
    assert run("classify", "--db", db, "--exit-zero", input=b"").exit_code == 3
    binary = run("classify", "--db", db, "--passthrough", input=b"\x00\x01" * 800)
    assert binary.exit_code == 3 and binary.stdout_bytes == b"\x00\x01" * 800
    (mail_dirs / "junk.db").write_bytes(b"not sqlite at all" * 100)
    result = run("stats", "--db", mail_dirs / "junk.db")
    assert result.exit_code == 3 and "not a token database" in result.output


def test_evaluate_prints_the_trec_measures(mail_dirs):
    result = run(
        "evaluate", "--spam", mail_dirs / "spam", "--ham", mail_dirs / "ham", "--folds", "3"
    )
    assert result.exit_code == 0, result.output
    out = result.output
    for text in ("ROC AUC\t", "1-ROCA %\t", "spam caught at 0.1% FPR", "spam caught at 1% FPR"):
        assert text in out
    confusion = {
        line.split("\t")[0]: line.split("\t")[1:]
        for line in out.splitlines()
        if line.startswith(("spam\t", "ham\t"))
    }
    assert sum(map(int, confusion["spam"])) == 30 and sum(map(int, confusion["ham"])) == 30

    as_json = run("evaluate", "--spam", mail_dirs / "spam", "--ham", mail_dirs / "ham",
                  "--folds", "3", "--json")  # fmt: skip
    assert as_json.exit_code == 0, as_json.output
    report = json.loads(as_json.output)
    assert report["messages"] == {"spam": 30, "ham": 30} and report["folds"] == 3
    assert f"ROC AUC\t{report['roc_auc']:.6f}" in out
    assert f"1-ROCA %\t{report['one_minus_roca_percent']:.4f}" in out
    assert f"spam caught at 1% FPR\t{100 * report['caught_at_1%_fpr']:.2f}%" in out
    for label in ("spam", "ham"):
        shown = [report["confusion"][label][v] for v in ("Spam", "Unsure", "Ham")]
        assert shown == [int(n) for n in confusion[label]]


def test_spamassassin_sample_end_to_end(tmp_path):
    root = require_path(DATA / "spamassassin")
    pick = {
        d: [f for f in sorted((root / d).iterdir()) if f.name != "cmds"][:40]
        for d in ("spam", "easy_ham")
    }
    db = tmp_path / "sa.db"
    args = ["train", "--db", db]
    for f in pick["spam"][:30]:
        args += ["--spam", f]
    for f in pick["easy_ham"][:30]:
        args += ["--ham", f]
    assert run(*args).exit_code == 0
    held_out = pick["spam"][30:] + pick["easy_ham"][30:]
    rows = [line.split("\t") for line in run("score", "--db", db, *held_out).output.splitlines()]
    assert len(rows) == 20
    scores = {r[0]: float(r[1]) for r in rows}
    spam_scores = [scores[str(f)] for f in pick["spam"][30:]]
    ham_scores = [scores[str(f)] for f in pick["easy_ham"][30:]]
    assert sum(s > h for s in spam_scores for h in ham_scores) >= 0.9 * 100  # AUC >= 0.9


def run_on_terminal(args: list, stdout_on_terminal: bool = False) -> tuple[str, str]:
    """Run ``nbayes spam ARGS`` in this process with stderr (and maybe stdout) on a
    pseudo-terminal; (what the terminal showed, what went to the piped stdout)."""
    leader, follower = pty.openpty()
    shown = bytearray()

    def read_terminal() -> None:
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:  # EIO: the terminal was closed
                return
            if not data:
                return
            shown.extend(data)

    reader = threading.Thread(target=read_terminal)
    reader.start()
    terminal, piped = open(follower, "w"), io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (terminal if stdout_on_terminal else piped), terminal
    try:
        main(["spam", *map(str, args)], standalone_mode=False)
    finally:
        sys.stdout, sys.stderr = saved
        terminal.close()
        reader.join()
        os.close(leader)
    piped.flush()
    return shown.decode(errors="replace"), piped.buffer.getvalue().decode()


def test_progress_bars_on_a_terminal_and_none_when_piped(mail_dirs):
    db = mail_dirs / "t.db"
    sources = ["--spam", mail_dirs / "spam", "--ham", mail_dirs / "ham"]
    shown, out = run_on_terminal(["train", "--db", db, *sources])
    assert "training" in shown and " 60" in shown and "learnt 30 spam and 30 ham" in out
    shown, out = run_on_terminal(["score", "--db", db, "--jobs", 0, mail_dirs / "spam"])
    assert "scoring" in shown and len(out.splitlines()) == 30  # a bar; the lines piped
    shown, _ = run_on_terminal(["score", "--db", db, "--jobs", 0, mail_dirs / "spam"], True)
    assert "scoring" not in shown and len(shown.splitlines()) == 30  # the lines, no bar
    shown, out = run_on_terminal(["evaluate", "--folds", 2, "--jobs", 0, *sources])
    assert "reading" in shown and "1-ROCA" in out
    piped = run("evaluate", "--folds", 2, "--jobs", 0, *sources)  # CliRunner: no terminal
    assert "reading" not in piped.output and "1-ROCA" in piped.output
    piped = run("train", "--db", mail_dirs / "u.db", *sources)
    assert "training" not in piped.output and "learnt" in piped.output
