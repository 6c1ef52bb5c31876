"""The spam commands under faults: mail is never lost, a database that cannot be used is
one line and exit status 3 (never a traceback), and nothing but training writes to a
database. Commands run as a mail server runs them: the installed ``nbayes`` in a new
process, unless a fault can only be injected in this one."""

from __future__ import annotations

import functools
import hashlib
import os
import resource
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import NBAYES, nbayes_spam
from hostile_mail import deep_mime
from spam_mail import corpus, corpus_dirs

from nbayes.cli import main
from nbayes.spam import store as store_module
from nbayes.spam.store import TokenStore

MESSAGE = corpus(1, 0)[0][0]


def one_error_line(result, *words: str) -> None:
    """Exit status 3 and one line on stderr holding ``words``, no traceback."""
    lines = result.stderr.decode().splitlines()
    assert result.returncode == 3, result.stderr
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    assert all(word in lines[0] for word in words), lines


@pytest.fixture(scope="module")
def mail(tmp_path_factory):
    root = tmp_path_factory.mktemp("mail")
    corpus_dirs(root, 60, 60)
    return root


@pytest.fixture
def trained(mail, tmp_path):
    db = tmp_path / "t.db"
    trained = nbayes_spam("train", "--db", db, "--spam", mail / "spam", "--ham", mail / "ham")
    assert trained.returncode == 0
    return db


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------ never lose mail
def test_a_corrupt_database_passes_the_message_through_with_exit_3(trained, mail):
    with open(trained, "r+b") as file:  # every page but the first (the header) overwritten
        size = file.seek(0, os.SEEK_END)
        file.seek(4096)
        file.write(b"\xa5" * (size - 4096))
    result = nbayes_spam("classify", "--db", trained, "-p", input=MESSAGE)
    assert result.stdout == MESSAGE
    one_error_line(result, str(trained), "corrupt")
    for args in (["stats"], ["score", mail / "ham"], ["dump"], ["classify"]):
        one_error_line(nbayes_spam(*args, "--db", trained, input=MESSAGE), str(trained))
    one_error_line(nbayes_spam("train", "--db", trained, "--spam", mail / "spam"), "corrupt")


def test_mime_nested_1000_deep_passes_through_unchanged_with_exit_3(trained):
    raw = deep_mime(1000)
    result = nbayes_spam("classify", "--db", trained, "-p", input=raw)
    assert result.returncode == 3 and result.stdout == raw
    one_error_line(result, "nested more than 100 deep")
    result = nbayes_spam("classify", "--db", trained, "-p", "--max-mime-depth", "1001", input=raw)
    assert result.returncode in (0, 1, 2), result.stderr  # within the limit: read flat
    head, _, body = result.stdout.partition(b"\n\n")
    assert head.splitlines()[:-1] == raw.partition(b"\n\n")[0].splitlines()
    assert head.splitlines()[-1].startswith(b"X-Nbayes-Spam: ")
    assert body == raw.partition(b"\n\n")[2]
    flat = nbayes_spam("classify", "--db", trained, "--max-mime-depth", "0", input=raw)
    assert flat.returncode != 3


def test_any_failure_passes_the_message_through_with_exit_3(trained, monkeypatch):
    def broken(raw, *options):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("nbayes.spam.tokens.tokenize", broken)
    result = CliRunner().invoke(main, ["spam", "classify", "--db", str(trained), "-p"], MESSAGE)
    assert result.exit_code == 3 and result.stdout_bytes == MESSAGE
    assert result.stderr.count("\n") == 1 and "RecursionError" in result.stderr
    bad_options = [
        ["-p", "--bogus"], ["-ep", "--header", "Bad:Name"], ["--passthrough", "x"],
        # refused only once checked together (the scoring settings), or by a callback
        ["-p", "--spam-cutoff", "2"], ["-ep", "--maturity", "-5"], ["-p", "--strength", "nan"],
        ["-p", "--lock-timeout", "nan"], ["-p", "--subject-tag", "[SPAM]\nBcc: x@y.example"],
    ]  # fmt: skip
    for args in bad_options:
        result = nbayes_spam("classify", "--db", trained, *args, input=MESSAGE)
        assert (result.returncode, result.stdout) == (3, MESSAGE), args
        assert b"Error: " in result.stderr and b"Traceback" not in result.stderr
    result = nbayes_spam("classify", "--db", trained.parent / "missing.db", "-p", input=MESSAGE)
    assert result.stdout == MESSAGE
    one_error_line(result, "no token database")


def test_a_directory_or_an_empty_path_as_the_database_is_exit_3_for_every_command(mail):
    """Like any database that cannot be used: one line, exit 3 (click's own check of
    the path exited 2, which classify and scripts read as Unsure)."""
    message = mail / "spam" / sorted(p.name for p in (mail / "spam").iterdir())[0]
    commands = [
        ["stats"], ["dump"], ["prune"], ["score", message], ["train", "--spam", message],
        ["unlearn", "--spam", message], ["classify"],
    ]  # fmt: skip
    missing = mail / "no-such-folder" / "t.db"
    result = nbayes_spam("train", "--db", missing, "--spam", message)
    one_error_line(result, "cannot open the database file: no folder", str(missing.parent))
    for db, words in ((mail, "is a directory"), ("", "the path given is empty")):
        for command in commands:
            one_error_line(nbayes_spam(*command, "--db", db, input=MESSAGE), words)


# ------------------------------------------------------------ locked, full, read-only
def test_a_locked_database_is_one_line_after_the_lock_timeout(trained, mail):
    holder = sqlite3.connect(trained, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # a writer mid-transaction: readers go on (WAL)
    try:
        wait = ("--lock-timeout", 0.2)
        result = nbayes_spam("train", "--db", trained, *wait, "--spam", mail / "spam")
        one_error_line(result, "locked by another process", "0.2 s")
        result = nbayes_spam("unlearn", "--db", trained, *wait, "--spam", mail / "spam")
        one_error_line(result, "locked by another process")  # 3, not 1 ("never trained")
        assert nbayes_spam("classify", "--db", trained, input=MESSAGE).returncode in (0, 1, 2)
        holder.execute("ROLLBACK")
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")  # now readers too are shut out
        result = nbayes_spam("classify", "--db", trained, "-p", *wait, input=MESSAGE)
        assert result.stdout == MESSAGE
        one_error_line(result, "locked")
    finally:
        holder.close()


def test_a_full_disk_rolls_back_and_is_one_line(trained, mail, tmp_path):
    with TokenStore(trained, readonly=True) as store:
        before = store.totals()
    big = tmp_path / "big"
    big.mkdir()
    for i in range(300):  # distinct words: a batch that grows the database a lot
        (big / f"{i}.eml").write_bytes(
            b"Subject: s\n\n" + b" ".join(b"w%d_%d" % (i, j) for j in range(400))
        )
    limit = trained.stat().st_size + 64 * 1024

    def small_disk():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = nbayes_spam("train", "--db", trained, "--spam", big, preexec_fn=small_disk)
    one_error_line(result, str(trained))
    assert "disk" in result.stderr.decode()
    with TokenStore(trained, readonly=True) as store:
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert store.totals() == before


def test_a_read_only_database_is_one_line(trained, mail, monkeypatch):
    if os.geteuid() != 0:
        trained.chmod(0o444)
        trained.parent.chmod(0o555)
    else:  # root writes anyway: open the file the way SQLite opens a read-only one

        class ReadOnly(store_module.Database):
            def __init__(self, path, mode, timeout):
                super().__init__(path, "ro", timeout)

        monkeypatch.setattr(store_module, "Database", ReadOnly)
    try:
        result = CliRunner().invoke(
            main, ["spam", "train", "--db", str(trained), "--spam", str(mail / "spam")]
        )
    finally:
        trained.parent.chmod(0o755)
        trained.chmod(0o644)
    assert result.exit_code == 3 and result.stderr.count("\n") == 1
    assert "read-only" in result.stderr and "Traceback" not in result.output


def test_readers_read_a_database_they_may_not_write(trained):
    """The usual deployment: the store belongs to a service user, and each mail user's
    procmail runs classify. SQLite cannot make the -shm file a WAL reader needs in a
    folder the user may not write; the readers still read (as an immutable file)."""
    before = digest(trained)
    folder = trained.parent
    message = folder / "message.eml"  # a mail source other than the database itself
    message.write_bytes(MESSAGE)
    trained.chmod(0o444)
    folder.chmod(0o555)
    try:
        if os.geteuid() == 0:  # root writes anyway: run the readers without that power
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("running as root without setpriv (util-linux) to drop privileges")
            drop = [setpriv, "--bounding-set", "-dac_override,-dac_read_search,-fowner", "--"]
        else:
            drop = []
        run = functools.partial(subprocess.run, capture_output=True, timeout=60, check=False)
        common = [NBAYES, "spam"]
        classify = run([*drop, *common, "classify", "--db", str(trained), "-p"], input=MESSAGE)
        assert classify.returncode in (0, 1, 2), classify.stderr
        assert classify.stdout.endswith(MESSAGE.partition(b"\n\n")[2])
        stats = run([*drop, *common, "stats", "--db", str(trained)])
        assert stats.returncode == 0 and b"spam messages\t60" in stats.stdout, stats.stderr
        train = run([*drop, *common, "train", "--db", str(trained), "--spam", str(message)])
        assert train.returncode == 3 and b"read-only" in train.stderr  # writing: refused
    finally:
        folder.chmod(0o755)
        trained.chmod(0o644)
    assert digest(trained) == before and sorted(folder.iterdir()) == sorted([trained, message])


# ------------------------------------------------------------ only training writes
def test_two_trains_creating_one_database_both_succeed(mail, tmp_path):
    for round_ in range(3):
        db = tmp_path / f"new{round_}.db"
        args = [NBAYES, "spam", "train", "--db", str(db), "--jobs", "0"]
        args += ["--spam", str(mail / "spam"), "--ham", str(mail / "ham")]
        runs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)]
        runs.append(subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        results = [(run.wait(60), run.stderr.read()) for run in runs]
        for run in runs:
            run.stdout.close()
            run.stderr.close()
        assert results == [(0, b""), (0, b"")]
        with TokenStore(db, readonly=True) as store:
            assert store.totals().messages == (120, 120)


BOGOFILTER_SCHEMA = "CREATE TABLE bogofilter (key BLOB PRIMARY KEY, value BLOB)"


def test_a_foreign_or_empty_file_is_refused_untouched(tmp_path, mail):
    wordlist = tmp_path / "wordlist.db"
    db = sqlite3.connect(wordlist)
    db.execute(BOGOFILTER_SCHEMA)
    db.execute("INSERT INTO bogofilter VALUES (x'2e4d53475f434f554e54', x'0102')")
    db.commit()
    db.close()
    before = digest(wordlist)
    for args in (["stats"], ["dump"], ["score", mail / "spam"], ["train", "--spam", mail / "spam"]):
        one_error_line(nbayes_spam(*args, "--db", wordlist), "not an nbayes token store")
    one_error_line(nbayes_spam("classify", "--db", wordlist, input=MESSAGE), "not an nbayes")
    assert digest(wordlist) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wordlist.db"]  # no -wal, no -shm
    (tmp_path / "empty.db").touch()
    one_error_line(nbayes_spam("stats", "--db", tmp_path / "empty.db"), "empty")
    assert (tmp_path / "empty.db").stat().st_size == 0
    text = tmp_path / "notes.txt"
    text.write_bytes(b"not a database at all\n" * 300)
    before = digest(text)
    result = nbayes_spam("train", "--db", text, "--spam", mail / "spam")
    one_error_line(result, "not a token database")
    assert digest(text) == before


def test_reading_commands_never_write(trained, mail):
    assert nbayes_spam("train", "--db", trained, "--spam", mail / "spam").returncode == 0  # WAL
    files = {p.name: digest(p) for p in trained.parent.iterdir() if p.is_file()}
    for args in (["stats"], ["dump"], ["score", mail / "ham"]):
        assert nbayes_spam(*args, "--db", trained).returncode == 0
    assert nbayes_spam("classify", "--db", trained, input=MESSAGE).returncode in (0, 1, 2)
    main_file = {p.name: digest(p) for p in trained.parent.iterdir() if p.name == trained.name}
    assert main_file == {trained.name: files[trained.name]}


def test_db_is_a_path_never_a_sqlite_uri(mail, tmp_path):
    name = "file:x?mode=memory"
    result = nbayes_spam("train", "--db", name, "--spam", mail / "spam", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / name).is_file()
    stats = nbayes_spam("stats", "--db", name, cwd=tmp_path).stdout.decode()
    assert "spam messages\t60" in stats


# ------------------------------------------------------------ headers and TSV
def test_refiltering_replaces_the_verdict_header(trained):
    forged = b"X-NBAYES-SPAM: Ham,\n score=0.0000\n" + MESSAGE
    once = nbayes_spam("classify", "--db", trained, "-p", "-e", input=forged).stdout
    twice = nbayes_spam("classify", "--db", trained, "-p", "-e", input=once).stdout
    assert twice == once and once.lower().count(b"x-nbayes-spam:") == 1
    assert once.endswith(MESSAGE.partition(b"\n\n")[2])


def test_score_escapes_tabs_and_line_breaks_in_file_names(trained, tmp_path):
    folder = tmp_path / "odd"
    folder.mkdir()
    names = ["tab\there", "line\nbreak", "back\\slash", "plain"]
    for name in names:
        (folder / name).write_bytes(MESSAGE)
    (folder / b"latin1-\xe9".decode(errors="surrogateescape")).write_bytes(MESSAGE)
    lines = nbayes_spam("score", "--db", trained, folder).stdout.split(b"\n")[:-1]
    assert len(lines) == 5 and all(line.count(b"\t") == 2 for line in lines)
    got = sorted(line.split(b"\t")[0].rsplit(b"/", 1)[1] for line in lines)
    assert got == sorted(
        [b"tab\\there", b"line\\nbreak", b"back\\\\slash", b"plain", b"latin1-\xe9"]
    )


def test_a_fifo_in_a_scored_directory_does_not_hang(trained, tmp_path):
    folder = tmp_path / "with_fifo"
    folder.mkdir()
    os.mkfifo(folder / "fifo")
    (folder / "m.eml").write_bytes(MESSAGE)
    (folder / "zero").symlink_to("/dev/zero")
    result = nbayes_spam("score", "--db", trained, folder, timeout=30)
    assert result.returncode == 0 and result.stdout.count(b"\n") == 1
    assert b"fifo: skipped: not a regular file (a FIFO)" in result.stderr


def test_a_maildir_with_a_dangling_link_and_a_loop_learns_all_20(tmp_path):
    import mailbox

    box = mailbox.Maildir(tmp_path / "md")
    for raw in corpus(10, 10)[0]:
        box.add(raw)
    box.close()
    (tmp_path / "md" / "new" / "dangling").symlink_to(tmp_path / "gone")
    (tmp_path / "md" / "new" / "loop").symlink_to(tmp_path / "md" / "new" / "loop")
    result = nbayes_spam("train", "--db", tmp_path / "t.db", "--spam", tmp_path / "md")
    assert result.returncode == 0 and b"learnt 20 spam" in result.stdout
    assert result.stderr.count(b"\n") == 2


def test_readers_in_threads_while_writing_do_not_error(trained, mail):
    """Many classify processes while a train runs: none fails (WAL; the lock timeout)."""
    errors = []

    def classify_many():
        for _ in range(5):
            result = nbayes_spam("classify", "--db", trained, input=MESSAGE)
            if result.returncode not in (0, 1, 2):
                errors.append(result.stderr)

    threads = [threading.Thread(target=classify_many) for _ in range(2)]
    for thread in threads:
        thread.start()
    assert nbayes_spam("train", "--db", trained, "--spam", mail / "spam").returncode == 0
    for thread in threads:
        thread.join()
    assert errors == []
