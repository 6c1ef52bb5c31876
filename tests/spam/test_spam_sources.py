"""Bad entries in a maildir, an mbox or a directory are reported and skipped; every
other message is still read, and nothing but regular files is read (no FIFO hangs a
run, no device feeds it without end)."""

from __future__ import annotations

import errno
import mailbox
import os
import signal
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spam_mail import corpus

from nbayes.spam.sources import _MBOX_SEPARATOR, is_mbox, iter_mail, read_regular


@pytest.fixture
def deadline():
    """Fail (instead of hanging) a test whose reading blocks for 20 s."""

    def expired(*_):
        raise TimeoutError("blocked reading a source")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def permissions(monkeypatch):
    """Root may read anything; for it, os.open and os.scandir refuse paths of mode 000
    as the kernel does for any other user (the same tests then run either way)."""
    if os.geteuid() != 0:
        return
    real_open, real_scandir = os.open, os.scandir

    def check(path):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return  # the real call reports it
        if stat.S_IMODE(mode) == 0:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    def guarded_open(path, *args, **kwargs):
        check(path)
        return real_open(path, *args, **kwargs)

    def guarded_scandir(path="."):
        check(path)
        return real_scandir(path)

    monkeypatch.setattr(os, "open", guarded_open)
    monkeypatch.setattr(os, "scandir", guarded_scandir)


def add_bad_entries(directory: Path, tmp_path: Path) -> dict[str, str]:
    """One of each kind of bad entry in ``directory``; name -> the reason reported."""
    (directory / "dangling").symlink_to(tmp_path / "nowhere")
    (directory / "loop").symlink_to(directory / "loop")
    os.mkfifo(directory / "fifo")
    (directory / "zero").symlink_to("/dev/zero")
    (directory / "locked").write_bytes(b"Subject: secret\n\nx\n")
    (directory / "locked").chmod(0)
    return {
        "dangling": "dangling symbolic link",
        "loop": "symbolic link loop",
        "fifo": "not a regular file (a FIFO)",
        "zero": "not a regular file (a character device)",
        "locked": "permission denied",
    }


def test_a_maildir_with_bad_entries_yields_every_other_message(tmp_path, deadline, permissions):
    box = mailbox.Maildir(tmp_path / "md")
    messages = corpus(10, 10)[0]
    for raw in messages:
        box.add(raw)
    box.close()
    cur = tmp_path / "md" / "cur"
    expected = {f"{cur / name}": reason for name, reason in add_bad_entries(cur, tmp_path).items()}
    errors = []
    items = list(iter_mail([tmp_path / "md"], on_error=lambda *e: errors.append(e)))
    assert sorted(item.raw for item in items) == sorted(messages)
    assert dict(errors) == {name: f"skipped: {reason}" for name, reason in expected.items()}


def test_a_maildir_keeps_mailbox_keys_order_and_flags(tmp_path):
    box = mailbox.Maildir(tmp_path / "md")
    keys = [box.add(raw) for raw in corpus(3, 3)[0]]
    box.close()
    cur, new = tmp_path / "md" / "cur", tmp_path / "md" / "new"
    (new / keys[0]).rename(cur / f"{keys[0]}:2,S")  # read and flagged: still the same key
    names = [item.name for item in iter_mail([tmp_path / "md"])]
    assert names == [f"{tmp_path / 'md'}:{key}" for key in sorted(keys)]
    assert names == [
        f"{tmp_path / 'md'}:{key}" for key in sorted(mailbox.Maildir(tmp_path / "md").keys())
    ]


def test_a_directory_with_bad_entries_and_a_locked_subdirectory(tmp_path, deadline, permissions):
    messages = corpus(20, 20)[0]
    (tmp_path / "mail" / "open").mkdir(parents=True)
    (tmp_path / "mail" / "shut").mkdir()
    for i, raw in enumerate(messages):
        (tmp_path / "mail" / ("open" if i % 2 else "shut") / f"{i:02d}.eml").write_bytes(raw)
    (tmp_path / "mail" / "linked").symlink_to(tmp_path / "mail" / "open")
    expected = add_bad_entries(tmp_path / "mail", tmp_path)
    (tmp_path / "mail" / "shut").chmod(0)
    errors = []
    try:
        items = list(iter_mail([tmp_path / "mail"], on_error=lambda *e: errors.append(e)))
    finally:
        (tmp_path / "mail" / "shut").chmod(0o755)
    assert [item.raw for item in items] == messages[1::2]  # "open", in name order
    reported = {Path(name).name: reason for name, reason in errors}
    assert reported == {
        **{name: f"skipped: {reason}" for name, reason in expected.items()},
        "linked": "skipped: not a regular file (a directory)",  # a link, not followed
        "shut": "skipped directory: permission denied",
    }


def test_sources_named_directly_are_read_with_the_same_rules(tmp_path, deadline):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "m.eml").write_bytes(b"Subject: x\n\nbody\n")
    errors = []
    sources = [tmp_path / "fifo", "/dev/zero", tmp_path / "missing", tmp_path / "m.eml"]
    items = list(iter_mail(sources, on_error=lambda *e: errors.append(e)))
    assert [item.raw for item in items] == [b"Subject: x\n\nbody\n"]
    assert [reason for _, reason in errors] == [
        "skipped: not a regular file (a FIFO)",
        "skipped: not a regular file (a character device)",
        "skipped: no such file or directory",
    ]
    with pytest.raises(OSError, match="FIFO"):
        read_regular(tmp_path / "fifo")


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from([b"\r", b"\n", b"From ", b"From", b"x", b" ", b"\r\n"]), max_size=20)
)
def test_the_mbox_test_equals_a_search_for_the_separator(pieces):
    raw = b"From " + b"".join(pieces)
    assert is_mbox(raw) == bool(_MBOX_SEPARATOR.search(raw))
