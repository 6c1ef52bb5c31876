"""The token database's file handling: paths (never URIs), schema upgrade, read-only
opening, and SQLite's errors in words."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from nbayes.spam.database import StoreError, describe, uri
from nbayes.spam.store import SCHEMA_VERSION, TokenStore, today

V1_SCHEMA = (
    "CREATE TABLE tokens(token TEXT PRIMARY KEY, ham INTEGER NOT NULL, spam INTEGER NOT NULL)"
    " WITHOUT ROWID",
    "CREATE TABLE totals(label TEXT PRIMARY KEY, messages INTEGER NOT NULL,"
    " tokens INTEGER NOT NULL)",
    "CREATE TABLE trained(digest TEXT PRIMARY KEY, ham INTEGER NOT NULL, spam INTEGER NOT NULL)"
    " WITHOUT ROWID",
    "INSERT INTO totals VALUES ('ham', 1, 2), ('spam', 0, 0)",
    "INSERT INTO tokens VALUES ('a', 1, 0), ('b', 1, 0)",
    "PRAGMA user_version=1",
)


def test_uris_quote_every_character_sqlite_would_read_as_uri_syntax(tmp_path):
    assert uri(Path("/a b/c%3F?d#e"), "ro") == "file:///a b/c%253F%3Fd%23e?mode=ro"
    assert uri(Path("rel.db"), "rwc") == f"file://{Path.cwd().as_posix()}/rel.db?mode=rwc"
    with pytest.raises(ValueError, match="mode"):
        uri(Path("x"), "memory")
    for name in ("file:x?mode=memory", "100%.db", "a#b.db", "?.db"):
        with TokenStore(tmp_path / name) as store:
            store.learn([({"w"}, name.encode(), "spam")])
        assert (tmp_path / name).stat().st_size > 0
        with TokenStore(tmp_path / name, readonly=True) as store:
            assert store.totals().messages == (0, 1)


def make_v1_store(path) -> None:
    """A store at ``path`` as the first schema made it (:data:`V1_SCHEMA`, its rows)."""
    db = sqlite3.connect(path)
    for statement in V1_SCHEMA:
        db.execute(statement)
    db.commit()
    db.close()


def test_a_schema_1_store_is_read_as_it_is_and_upgraded_when_written(tmp_path):
    path = tmp_path / "v1.db"
    make_v1_store(path)
    before = path.read_bytes()
    with TokenStore(path, readonly=True) as store:
        assert store.version == 1 and store.counts(["a", "b", "c"]) == {"a": (1, 0), "b": (1, 0)}
    assert path.read_bytes() == before
    with TokenStore(path) as store:
        assert store.version == SCHEMA_VERSION == 2
        store.learn([({"b", "c"}, b"m", "spam")])
        days = dict(store.db.execute("SELECT token, day FROM tokens").fetchall())
    assert days == {"a": today(), "b": today(), "c": today()}


def test_newer_schemas_and_other_files_are_refused_before_any_write(tmp_path):
    path = tmp_path / "v9.db"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=9")
    db.close()
    for readonly in (True, False):
        with pytest.raises(StoreError, match="schema version 9, this nbayes reads 1, 2"):
            TokenStore(path, readonly=readonly)
    with pytest.raises(StoreError, match="is a directory"):
        TokenStore(tmp_path)
    (tmp_path / "empty.db").touch()
    with pytest.raises(StoreError, match="empty, not a token database"):
        TokenStore(tmp_path / "empty.db", readonly=True)
    with pytest.raises(StoreError, match="empty, not a token database"):
        TokenStore(tmp_path / "empty.db", create=False)
    with TokenStore(tmp_path / "empty.db") as store:  # train makes a store of an empty file
        assert store.version == SCHEMA_VERSION


def test_a_read_only_store_refuses_writes_in_words(tmp_path):
    TokenStore(tmp_path / "t.db").close()
    with TokenStore(tmp_path / "t.db", readonly=True) as store, pytest.raises(StoreError) as info:
        store.learn([({"w"}, b"m", "ham")])
    assert str(info.value) == (
        f"{tmp_path / 't.db'}: the database is read-only (no permission to write it or its"
        " directory)"
    )


class OldError(sqlite3.OperationalError):
    """An error as Python 3.10 raises it: no sqlite_errorcode."""

    sqlite_errorcode = None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("database is locked", "locked by another process (waited 2.5 s)"),
        ("attempt to write a readonly database", "read-only"),
        ("database or disk is full", "the disk is full"),
        ("database disk image is malformed", "corrupt"),
        ("file is not a database", "not a token database"),
        ("unable to open database file", "cannot open the database file"),
        ("disk I/O error", "disk I/O error"),
        ("something new", "database error: something new"),
    ],
)
def test_errors_are_described_without_error_codes_too(text, words):
    described = describe(OldError(text), Path("x.db"), 2.5)
    assert described.startswith("x.db: ") and words in described


@pytest.mark.parametrize("readonly", [True, False])
def test_the_lock_timeout_is_waited_once(tmp_path, readonly):
    """Against an EXCLUSIVE lock on a rollback-journal store, ``--lock-timeout 3`` waited
    6 s: the read-only open's probe waited its timeout, then the schema read again."""
    import time

    path = tmp_path / "t.db"
    TokenStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        with pytest.raises(StoreError, match=r"locked by another process \(waited 1 s\)"):
            TokenStore(path, timeout=1, readonly=readonly)
        assert time.monotonic() - started < 1.9  # one wait of 1 s, not two
    finally:
        holder.rollback()
        holder.close()
