"""The token database's SQLite connection: opened by path, never as a URI, read-only
where nothing is to be written, and every SQLite error turned into a
:class:`StoreError` whose message names the file and the problem in words.

A path is handed to SQLite as a ``file:`` URI that this module writes itself (the
absolute path, with ``%``, ``?`` and ``#`` percent-encoded), so ``--db
"file:x?mode=memory"`` is a file of that name in the working directory and never
SQLite's in-memory database, whatever URI handling the SQLite library was built with;
the URI's ``mode`` is ``ro`` (read-only: nothing, not even the journal mode, is
written), ``rw`` (the file must exist) or ``rwc`` (created if missing).

Statements run through :class:`Database`, which reads every row of a result before it
returns (a corrupt page is found by the step that reads it), so no ``sqlite3.Error``
leaves this module: a locked database (after ``timeout`` seconds of waiting), a full
disk, a read-only file, a corrupt page or a file that is not SQLite each come out as one
:class:`StoreError` line (:func:`describe`).
"""

from __future__ import annotations

import os

try:
    # The sqlite3 package is this C module plus ``sqlite3.dbapi2``, whose date and time
    # adapters this module never uses; importing their datetime module cost the
    # one-shot ``nbayes spam classify`` about 1 ms a delivered message.
    import _sqlite3 as sqlite3
except ImportError:  # an interpreter that has only the package
    import sqlite3
from collections.abc import Iterable, Sequence

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    from typing import Any

MODES = ("ro", "rw", "rwc")

# SQLite's primary result codes (the low byte of an extended code).
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26
# The same, found in the message text where Python (before 3.11) gives no code.
_BY_TEXT = (
    ("locked", _BUSY),
    ("readonly", _READONLY),
    ("disk i/o", _IOERR),
    ("malformed", _CORRUPT),
    ("full", _FULL),
    ("unable to open", _CANTOPEN),
    ("not a database", _NOTADB),
)


class StoreError(RuntimeError):
    """The database cannot be used (wrong schema version, not an nbayes store, locked,
    full, read-only, corrupt) or an ``unlearn`` asked for messages that were never
    trained; the message names the file and the problem."""


class StoreUnavailableError(StoreError):
    """The store's server cannot be reached or answer for now (Redis down, timed out,
    loading its data): worth trying again later."""


def uri(path: str | os.PathLike[str], mode: str) -> str:
    """The ``file:`` URI of ``path`` (made absolute) opened in ``mode`` (see :data:`MODES`).

    Paths are strings here, not :mod:`pathlib` objects: the one-shot ``nbayes spam
    classify`` does without importing pathlib (a few ms a delivered message)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    text = os.fspath(path)
    if not os.path.isabs(text):
        text = os.path.join(os.getcwd(), text)
    if os.sep != "/":
        text = text.replace(os.sep, "/")
    if not text.startswith("/"):  # C:/x on Windows: file:///C:/x
        text = "/" + text
    text = text.replace("%", "%25").replace("?", "%3F").replace("#", "%23")
    return f"file://{text}?mode={mode}"


def describe(error: sqlite3.Error, path: str | os.PathLike[str], timeout: float) -> str:
    """``error`` in words, starting with ``path``."""
    from pathlib import Path  # here: an error's words only

    path = Path(path)
    code = getattr(error, "sqlite_errorcode", None)  # Python 3.11+
    if code is None:
        text = str(error).lower()
        code = next((c for words, c in _BY_TEXT if words in text), -1)
    code &= 0xFF
    if code in (_BUSY, _LOCKED):
        return f"{path}: the database is locked by another process (waited {timeout:g} s)"
    if code == _READONLY:
        return f"{path}: the database is read-only (no permission to write it or its directory)"
    if code == _FULL:
        return f"{path}: the disk is full (the current transaction was rolled back)"
    if code == _CORRUPT:
        return f"{path}: the database is corrupt ({error}); restore a backup or train anew"
    if code == _NOTADB:
        return f"{path}: not a token database (not an SQLite file)"
    if code == _CANTOPEN:
        if not path.absolute().parent.is_dir():
            return f"{path}: cannot open the database file: no folder {path.absolute().parent}"
        return f"{path}: cannot open the database file"
    if code == _IOERR:
        name = getattr(error, "sqlite_errorname", "")
        if any(part in name for part in ("WRITE", "FSYNC", "TRUNCATE")):
            return (
                f"{path}: cannot write the database (a full disk or a file size limit?);"
                " the current transaction was rolled back"
            )
        return f"{path}: disk I/O error on the database ({name or error})"
    return f"{path}: database error: {error}"


class Rows(list):
    """All rows of a statement's result, with the cursor methods the store uses."""

    def fetchone(self) -> Any:
        return self[0] if self else None

    def fetchall(self) -> list:
        return list(self)


class Database:
    """A SQLite connection whose errors come out as :class:`StoreError` (see the module
    docstring). ``execute`` returns every row at once (:class:`Rows`)."""

    def __init__(self, path: str | os.PathLike[str], mode: str, timeout: float) -> None:
        self.path, self.timeout = path, timeout
        self.connection = self._connect(uri(path, mode))
        #: Read as an immutable file (see :meth:`_wal_unreadable`).
        self.immutable = mode == "ro" and self._wal_unreadable()
        if self.immutable:
            self.connection.close()
            self.connection = self._connect(uri(path, mode) + "&immutable=1")

    def _connect(self, address: str) -> sqlite3.Connection:
        try:
            return sqlite3.connect(
                address, uri=True, timeout=self.timeout, isolation_level=None,
                check_same_thread=False,
            )  # fmt: skip
        except sqlite3.Error as error:
            raise StoreError(describe(error, self.path, self.timeout)) from None

    def _wal_unreadable(self) -> bool:
        """Whether this read-only connection cannot read the file because it is a WAL
        database in a directory this user may not write: SQLite cannot then make the
        shared-memory file (``-shm``) a WAL reader needs (SQLITE_READONLY_DIRECTORY,
        _CANTINIT), the usual deployment of a store owned by a service user and read
        by each mail user's ``classify``. Such a file is then read as immutable: no
        locks, and no writer can be training at that moment unless it made the
        ``-shm`` file that would have let this one read normally (a writer that starts
        during the read may make it fail, as a corrupt page: exit 3, mail passed on)."""
        try:
            self.connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        except sqlite3.Error as error:
            code = getattr(error, "sqlite_errorcode", None)
            if code is None:
                code = next((c for text, c in _BY_TEXT if text in str(error).lower()), None)
            if code is not None and code & 0xFF in (_BUSY, _LOCKED):
                # it has waited its timeout already: the next statement would wait again
                self.connection.close()
                raise StoreError(describe(error, self.path, self.timeout)) from None
            return code is not None and code & 0xFF == _READONLY
        return False

    def execute(self, sql: str, parameters: Sequence | dict = ()) -> Rows:
        try:
            return Rows(self.connection.execute(sql, parameters))
        except sqlite3.Error as error:
            raise StoreError(describe(error, self.path, self.timeout)) from error

    def executemany(self, sql: str, rows: Iterable[Sequence]) -> None:
        try:
            self.connection.executemany(sql, rows)
        except sqlite3.Error as error:
            raise StoreError(describe(error, self.path, self.timeout)) from error

    def supports(self, sql: str) -> bool:
        """Whether ``sql`` runs (probing for optional SQLite features: JSON)."""
        try:
            self.connection.execute(sql).fetchall()
        except sqlite3.Error:
            return False
        return True

    @property
    def in_transaction(self) -> bool:
        return self.connection.in_transaction

    def close(self) -> None:
        self.connection.close()


class Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on any exception (also when the
    ``COMMIT`` itself fails: a full disk). Where SQLite already rolled back (it does for
    some errors), the ``ROLLBACK`` is left out, so the first error is the one raised."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, *_) -> None:
        if exc_type is None:
            try:
                self.db.execute("COMMIT")
                return
            except BaseException:
                self._rollback()
                raise
        self._rollback()

    def _rollback(self) -> None:
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except StoreError:
                pass  # the error that brought us here is the one to report


class Snapshot:
    """A read transaction, or nothing inside a transaction already open."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.nested = self.db.in_transaction
        if not self.nested:
            self.db.execute("BEGIN DEFERRED")

    def __exit__(self, *_) -> None:
        if not self.nested and self.db.in_transaction:
            self.db.execute("COMMIT")
