"""The token store: SQLite, in WAL mode, with a versioned schema.

Tables (schema version :data:`SCHEMA_VERSION`, kept in ``PRAGMA user_version``)::

    tokens(token TEXT PRIMARY KEY, ham INTEGER, spam INTEGER,   -- messages holding the token
           day INTEGER)                                          -- last learnt (days since 1970)
    totals(label TEXT PRIMARY KEY, messages INTEGER, tokens INTEGER)
    trained(digest TEXT PRIMARY KEY, ham INTEGER, spam INTEGER) -- SHA-256 of trained messages

``tokens`` counts, per class, the trained messages that contain each token;
``totals`` holds the number of messages per class and the sum of their token-set
sizes (the multinomial's ``N_c.``). Every training batch is one ``BEGIN IMMEDIATE``
transaction, so a killed writer leaves exactly the committed batches; WAL lets
readers score while a writer trains. ``unlearn`` subtracts a message's tokens
again (tokens whose counts both reach zero are deleted), so learning then unlearning
a batch restores the database exactly; it refuses messages never trained as that class.
``day`` (schema 2; a schema-1 store gets it, as today, when it is next opened for
writing) lets ``nbayes spam prune`` drop tokens by age.

Classes other than ham and spam (:mod:`nbayes.spam.classes`) are kept in two more
tables, made by the first training of such a class (so the schema version is unchanged,
and a store without them is exactly as before)::

    class_tokens(token TEXT, label TEXT, count INTEGER, day INTEGER)  -- per class and token
    class_trained(digest TEXT, label TEXT, count INTEGER)             -- per class and digest
    extra_vocabulary(size INTEGER)  -- one row: tokens only these classes hold

with one ``totals`` row per class beside ham's and spam's (a class's rows go when its
last message is unlearnt). ``extra_vocabulary`` is a running count kept by triggers (see
:meth:`TokenStore.read_classes`), so the multi-class verdict's vocabulary is read, not
counted.

Only a store opened for writing is ever written: ``TokenStore(path, readonly=True)``
opens the file read-only, so reading a database (``stats``, ``score``, ``classify``)
never changes it, not even its journal mode; a SQLite file that is not a token store (a
bogofilter wordlist, an empty file opened read-only) is refused before anything is
written. A new store is created inside one write transaction that checks again that the
file is still empty, so two processes creating the same store at once both succeed.
Every SQLite error comes out as a :class:`StoreError` naming the file and the problem
(:mod:`nbayes.spam.database`).
"""

from __future__ import annotations

import os
import time
from collections import Counter, namedtuple
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from operator import itemgetter

from nbayes.spam.database import Database, Snapshot, StoreError, Transaction
from nbayes.spam.tokens import DEFAULT_OPTIONS, TokenOptions

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:  # NumPy is imported where arrays are made: classify does without it
    from pathlib import Path
    from typing import Any

    import numpy as np
    from numpy.typing import NDArray

    from nbayes.spam.classes import ClassCounts, Message

SCHEMA_VERSION = 2
#: Schema versions this nbayes reads (a store opened for writing is upgraded first).
READABLE_VERSIONS = (1, 2)
#: Seconds a command waits for another process's lock on the database.
DEFAULT_TIMEOUT = 10.0
LABELS = ("ham", "spam")
_QUERY_CHUNK = 900  # below SQLite's default limit on bound parameters
#: SQLite's page cache per connection (KiB): a store of a few hundred thousand tokens
#: stays in memory between the batches of a run instead of being re-read from the OS.
CACHE_KIB = 64 * 1024


_SCHEMA = (
    "CREATE TABLE tokens(token TEXT PRIMARY KEY, ham INTEGER NOT NULL, spam INTEGER NOT NULL,"
    " day INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID",
    "CREATE TABLE totals(label TEXT PRIMARY KEY, messages INTEGER NOT NULL,"
    " tokens INTEGER NOT NULL)",
    "CREATE TABLE trained(digest TEXT PRIMARY KEY, ham INTEGER NOT NULL, spam INTEGER NOT NULL)"
    " WITHOUT ROWID",
    "INSERT INTO totals VALUES ('ham', 0, 0), ('spam', 0, 0)",
)


#: One prepared write (:meth:`TokenStore.changes`): SQL, its parameters, and whether the
#: parameters are many rows (``executemany``) or one row.
Statement = tuple[str, "Any", bool]


__all__ = [
    "SCHEMA_VERSION",
    "NoStoreError",
    "NotTrainedError",
    "StoreError",
    "TokenStore",
    "Totals",
    "digest",
    "today",
]


class NoStoreError(StoreError):
    """There is no store where one was to be read (nothing was created)."""


class NotTrainedError(StoreError):
    """An ``unlearn`` asked for messages that were never trained with the label given (the
    store itself is fine: nothing was changed)."""


class Totals(namedtuple("Totals", ("messages", "tokens", "vocabulary"))):
    """Message counts ``(ham, spam)``, token-set size sums ``(ham, spam)``, vocabulary size
    (None where not asked for). (A named tuple, not a dataclass: see
    :mod:`nbayes.spam._records`.)"""

    __slots__ = ()
    messages: tuple[int, int]
    tokens: tuple[int, int]
    vocabulary: int | None


def digest(raw: bytes) -> str:
    """The SHA-256 of a message's bytes, the key of the ``trained`` table."""
    import hashlib  # here: scoring a message (classify's start-up) needs no digest

    return hashlib.sha256(raw).hexdigest()


def tally(
    messages: Iterable[tuple[AbstractSet[str], bytes]],
) -> tuple[Counter[str], Counter[str], int]:
    """What learning ``messages`` (token set, raw bytes) as one class adds to a store:
    ``(messages per token, messages per digest, the sum of the token-set sizes)``;
    every backend's writes for a class start here.

    >>> tokens, digests, n = tally([({"a", "b"}, b"m1"), ({"a"}, b"m2")])
    >>> sorted(tokens.items()), len(digests), n
    ([('a', 2), ('b', 1)], 2, 3)
    """
    counts: Counter[str] = Counter()
    digests: Counter[str] = Counter()
    n_tokens = 0
    for tokens, raw in messages:
        counts.update(tokens)
        digests[digest(raw)] += 1
        n_tokens += len(tokens)
    return counts, digests, n_tokens


def today() -> int:
    """Days since 1970-01-01 (UTC): the ``day`` a token is learnt on."""
    return int(time.time() // 86400)


def _refuse_special_file(path: str) -> None:
    """:class:`StoreError` where ``path`` names something other than a regular file: a
    FIFO (which SQLite's open would wait on for ever: a delivered message held up with
    it), a socket, or a device such as ``/dev/zero``."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:  # missing (created later), or unreadable: SQLite says which
        return
    if stat.S_ISREG(mode):  # a regular file: classify imports nothing more
        return
    from nbayes.spam.file_kinds import file_kind

    raise StoreError(
        f"{path} is {file_kind(mode)}, not a token database: give the path of a file"
    )


class TokenStore:
    """A SQLite token database; ``TokenStore(path)`` creates it if missing.

    ``readonly``: open the file read-only (it must exist and be a store); ``create``:
    make a new store if the file is missing or empty (else it must be one already);
    ``timeout``: seconds to wait for another process's lock. Use as a context manager,
    or call :meth:`close`.
    """

    @property
    def path(self) -> Path:
        """The database file's path."""
        from pathlib import Path

        return Path(self.name)

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        create: bool = True,
        readonly: bool = False,
    ) -> None:
        if isinstance(path, str) and not path:  # Path("") would be the current folder
            raise StoreError("no token database: the path given is empty")
        # a string, not a pathlib.Path: classify's start-up does without pathlib (see path)
        path = os.fspath(path)
        if not isinstance(path, str):
            raise TypeError(f"path must be a str or os.PathLike[str], got {path!r}")
        create = create and not readonly
        if not create and not os.path.exists(path):
            raise NoStoreError(f"no token database at {path}")
        if os.path.isdir(path):
            raise StoreError(f"{path} is a directory, not a token database")
        _refuse_special_file(path)
        self.readonly = readonly
        #: How messages name this store: its path.
        self.name = path
        self.db = Database(path, "ro" if readonly else "rwc" if create else "rw", timeout)
        try:
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute(f"PRAGMA cache_size=-{CACHE_KIB:d}")
            self.version = self._check_schema(create)
            self.has_json = self.db.supports("SELECT json_each.key FROM json_each('[1]')")
        except BaseException:
            self.db.close()
            raise

    def _check_schema(self, create: bool) -> int:
        """The store's schema version, after creating or upgrading it where allowed;
        :class:`StoreError` for anything else, before any write."""
        version, has_tables = self._schema_state()
        if version == 0 and not has_tables:
            if not create:
                raise StoreError(f"{self.name} is empty, not a token database")
            with self.transaction():  # a second process creating it may have been first
                version, has_tables = self._schema_state()
                if version == 0 and not has_tables:
                    for statement in _SCHEMA:
                        self.db.execute(statement)
                    self.record_options()  # the default tokenizer, until a first training
                    self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                    version = SCHEMA_VERSION
        if version == 0:
            raise StoreError(f"{self.name} is a SQLite database but not an nbayes token store")
        if version not in READABLE_VERSIONS:
            raise StoreError(
                f"{self.name}: schema version {version}, this nbayes reads"
                f" {', '.join(map(str, READABLE_VERSIONS))}"
            )
        if not self.readonly:
            if version < SCHEMA_VERSION:
                version = self._upgrade()
            if self._has_classes() and not self._keeps_extra_vocabulary():
                self._keep_extra_vocabulary()
            if self.db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                try:
                    self.db.execute("PRAGMA journal_mode=WAL")
                except StoreError:  # busy: a later writer switches it
                    pass
        return version

    def _version(self) -> int:
        return self.db.execute("PRAGMA user_version").fetchone()[0]

    def _schema_state(self) -> tuple[int, bool]:
        """(schema version, whether any table exists), read by one statement: one
        snapshot, so another process committing a new store between two reads cannot
        show its tables without its version."""
        version, has_tables = self.db.execute(
            "SELECT (SELECT user_version FROM pragma_user_version),"
            " EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table')"
        ).fetchone()
        return version, bool(has_tables)

    def _upgrade(self) -> int:
        """Schema 1 -> 2: the ``day`` column, today for every token (inside a write
        transaction that checks the version again)."""
        with self.transaction():
            if self._version() == 1:
                self.db.execute(
                    f"ALTER TABLE tokens ADD COLUMN day INTEGER NOT NULL DEFAULT {today():d}"
                )
                self.db.execute("PRAGMA user_version=2")
        return self._version()

    def _keep_extra_vocabulary(self) -> None:
        """Start the running count of the tokens only the classes other than ham and
        spam hold (a store whose classes were learnt by an nbayes that did not keep it):
        counted once, in a write transaction, with the triggers that keep it from then
        on (see :meth:`read_classes`)."""
        with self.transaction():
            for statement in _CLASS_TABLES:
                self.db.execute(statement)

    # ------------------------------------------------------------ transactions
    def transaction(self):
        """A context manager: ``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error)."""
        return Transaction(self.db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> TokenStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ writing
    def learn(self, batch: Sequence[Message]) -> int:
        """Add a batch of (token set, raw bytes, label) messages in one transaction."""
        with self.transaction():
            self.add(batch)
        return len(batch)

    def unlearn(self, batch: Sequence[Message]) -> int:
        """Reverse :meth:`learn` exactly, in one transaction; :class:`StoreError` (and
        nothing changed) if any message was not trained with that label."""
        with self.transaction():
            self.check_trained(batch)
            self.add(batch, sign=-1)
            self.remove_empty()
        return len(batch)

    def remove_empty(self) -> None:
        """Delete tokens and digests whose counts are all zero (after an unlearn)."""
        self.db.execute("DELETE FROM tokens WHERE ham = 0 AND spam = 0")
        self.db.execute("DELETE FROM trained WHERE ham = 0 AND spam = 0")

    def trained_as(self, raw: bytes) -> tuple[int, int]:
        """How many times the message ``raw`` was trained as (ham, spam)."""
        row = self.db.execute(
            "SELECT ham, spam FROM trained WHERE digest = ?", (digest(raw),)
        ).fetchone()
        return (row[0], row[1]) if row else (0, 0)

    def add(self, batch: Sequence[Message], sign: int = 1) -> None:
        """Add (``sign=1``) or subtract (``sign=-1``) a batch's counts inside the
        caller's transaction (see :meth:`transaction`)."""
        self.apply(self.changes(batch, sign))

    def changes(self, batch: Sequence[Message], sign: int = 1) -> list[Statement]:
        """The statements that :meth:`add` runs for ``batch``, computed without touching
        the database (counting the tokens, hashing the messages, encoding the payloads:
        most of a write's Python work), so a caller may prepare the next batch while
        another thread runs the previous batch's statements (SQLite releases the GIL)."""
        statements: list[Statement] = []
        from nbayes.spam.classes import split_classes  # here: classify learns no class

        _, extra = split_classes(batch)  # the other classes' names checked first
        for label in LABELS:
            messages = [(tokens, raw) for tokens, raw, lab in batch if lab == label]
            if messages:
                statements += self._class_changes(messages, label, sign)
        for label in sorted(extra):
            statements += _extra_class_changes(extra[label], label, sign)
        return statements

    def apply(self, statements: Iterable[Statement]) -> None:
        """Run statements made by :meth:`changes`, inside the caller's transaction."""
        for sql, parameters, many in statements:
            if many:
                self.db.executemany(sql, parameters)
            else:
                self.db.execute(sql, parameters)

    def _class_changes(
        self, messages: list[tuple[AbstractSet[str], bytes]], column: str, sign: int
    ) -> list[Statement]:
        counts, digests, n_tokens = tally(messages)
        return [
            self._upsert("trained", "digest", column, sign, digests),
            # a learnt token's day is today; unlearning leaves it (max with 0)
            self._upsert("tokens", "token", column, sign, counts, today() if sign > 0 else 0),
            (
                "UPDATE totals SET messages = messages + ?, tokens = tokens + ? WHERE label = ?",
                (sign * len(messages), sign * n_tokens, column),
                False,
            ),
        ]

    def _upsert(
        self,
        table: str,
        key: str,
        column: str,
        sign: int,
        pairs: Counter[str],
        day: int | None = None,
    ) -> Statement:
        """The statement adding ``sign * n`` to ``column`` of each (key, n) pair's row,
        inserting missing rows (and, with ``day``, setting the rows' ``day`` to at least
        that). Subtracting (``sign < 0``) touches only rows that exist and never goes
        below 0: a token pruned since the message was learnt (``nbayes spam prune``) has
        nothing to subtract from.

        The pairs go to SQLite as one JSON object, read back by ``json_each`` in key order
        (the B-tree is then updated page by page, and SQLite sorts faster than Python):
        about a tenth less CPU than an ``executemany`` of sorted pairs. Keys holding a NUL
        (SQLite's JSON strings end there) and SQLite builds without JSON take that
        ``executemany``."""
        other = "spam" if column == "ham" else "ham"
        columns, values = f"{key}, {column}, {other}", "0"
        total = f"{column} + excluded.{column}"
        update = f"ON CONFLICT({key}) DO UPDATE SET {column} = "
        update += f"max({total}, 0)" if sign < 0 else total
        if day is not None:
            columns, values = columns + ", day", f"0, {day:d}"
            update += ", day = max(day, excluded.day)"
        exists = f"EXISTS (SELECT 1 FROM {table} AS old WHERE old.{key} = {{}})"
        payload = _json_object(pairs)
        if self.has_json and "\\u0000" not in payload:  # JSON's escape of NUL (see _rows)
            where = exists.format("json_each.key") if sign < 0 else "true"
            return (
                f"INSERT INTO {table}({columns}) SELECT key, {sign:d} * value, {values}"
                f" FROM json_each(?1) WHERE {where} ORDER BY key {update}",
                (payload,),
                False,
            )
        # the sign and the other columns as SQL literals; pairs in key order, as above
        where = exists.format("?1") if sign < 0 else "true"
        return (
            f"INSERT INTO {table}({columns}) SELECT ?1, {sign:d} * ?2, {values} WHERE {where}"
            f" {update}",
            sorted(pairs.items(), key=itemgetter(0)),
            True,
        )

    def check_trained(self, batch: Sequence[Message]) -> None:
        """Raise :class:`StoreError` unless every message was trained with its label."""
        wanted: Counter[tuple[str, str]] = Counter(
            (digest(raw), _label(lab)) for _, raw, lab in batch
        )
        has_classes = self._has_classes()
        missing = 0
        for (d, column), n in wanted.items():
            if column in LABELS:
                row = self.db.execute(
                    f"SELECT {column} FROM trained WHERE digest = ?", (d,)
                ).fetchone()
            elif has_classes:
                row = self.db.execute(
                    "SELECT count FROM class_trained WHERE digest = ? AND label = ?", (d, column)
                ).fetchone()
            else:
                row = None
            if row is None or row[0] < n:
                missing += n - (row[0] if row else 0)
        if missing:
            raise NotTrainedError(f"{missing} message(s) were never trained with the label given")

    # ------------------------------------------------------------ reading
    def totals(self, vocabulary: bool = True) -> Totals:
        """The message and token totals; the vocabulary size (a count of the whole token
        table, which only the naive-bayes method needs) is None unless ``vocabulary``."""
        rows = dict(
            (label, (m, t))
            for label, m, t in self.db.execute("SELECT label, messages, tokens FROM totals")
        )
        size = None
        if vocabulary:
            size = self.db.execute("SELECT COUNT(*) FROM tokens").fetchone()[0]
        return Totals((rows["ham"][0], rows["spam"][0]), (rows["ham"][1], rows["spam"][1]), size)

    def counts(self, tokens: Iterable[str]) -> dict[str, tuple[int, int]]:
        """``{token: (ham, spam)}`` for those of ``tokens`` in the store."""
        return {token: (ham, spam) for token, ham, spam in self._rows(sorted(set(tokens)))}

    def lookup(self, tokens: Sequence[str]) -> NDArray[np.int64]:
        """Counts of each of ``tokens`` (0 where absent), shape (len(tokens), 2): ham, spam.

        One JSON array joined with the token table, each row found coming back with its
        index in the array, all rows as one text of comma-separated integers ``index,
        ham,spam,...`` (``group_concat``) read by NumPy rather than a tuple per row: the
        whole look-up of 34,800 tokens (22,500 found) 48.4 against 52.8 ms of CPU.
        (Sorted tokens would make SQLite's part about a third faster, neighbouring
        pages of the B-tree, but sorting costs more than that.)"""
        import numpy as np

        table = np.zeros((len(tokens), 2), dtype=np.int64)
        payload = _json(list(tokens))
        if self.has_json and "\\u0000" not in payload:  # see _rows
            (text,) = self.db.execute(_JSON_LOOKUP_BY_INDEX, (payload,)).fetchone()
            found = np.fromstring(text or "", dtype=np.int64, sep=",").reshape(-1, 3)
            table[found[:, 0]] = found[:, 1:]
            return table
        counts = self.counts(tokens)
        for i, token in enumerate(tokens):
            table[i] = counts.get(token, (0, 0))
        return table

    def _rows(self, tokens: Sequence[str]) -> list[tuple[str, int, int]]:
        """(token, ham, spam) rows of those of ``tokens`` (distinct) in the store, in any order.

        Many tokens go to SQLite as one JSON array, joined with the table (``json_each``:
        one statement, half the time of ``IN (?, ?, ...)`` lists). One message's tokens
        (up to ``_QUERY_CHUNK``) take one ``IN`` list: as fast for a few hundred sorted
        tokens (0.31-0.34 against 0.33-0.36 ms on SpamAssassin's 6,047-message store),
        and ``classify`` then never imports the json module. SQLite's JSON strings end
        at a NUL, so tokens holding one (and SQLite builds without JSON) take the ``IN``
        lists too, whose queries are about twice as fast on sorted tokens (neighbouring
        pages of the token B-tree)."""
        if len(tokens) > _QUERY_CHUNK and self.has_json:
            payload = _json(tokens)
            if "\\u0000" not in payload:  # JSON's escape of NUL (or "\\u0000")
                return self.db.execute(_JSON_LOOKUP, (payload,)).fetchall()
        rows: list[tuple[str, int, int]] = []
        for start in range(0, len(tokens), _QUERY_CHUNK):
            chunk = tokens[start : start + _QUERY_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows += self.db.execute(
                f"SELECT token, ham, spam FROM tokens WHERE token IN ({marks})", chunk
            ).fetchall()
        return rows

    def all_counts(self) -> tuple[list[str], NDArray[np.int64]]:
        """Every token and its counts, shape (n_tokens, 2), in token order."""
        import numpy as np

        rows = self.db.execute("SELECT token, ham, spam FROM tokens ORDER BY token").fetchall()
        counts = np.array([(h, s) for _, h, s in rows], dtype=np.int64).reshape(-1, 2)
        return [t for t, _, _ in rows], counts

    def snapshot(self):
        """A read transaction: every read inside sees one committed state."""
        return Snapshot(self.db)

    # ------------------------------------------------------------ more classes
    def _has_classes(self) -> bool:
        """Whether the tables of the classes other than ham and spam exist."""
        return (
            self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'class_tokens'"
            ).fetchone()
            is not None
        )

    def _keeps_extra_vocabulary(self) -> bool:
        """Whether the store keeps the running count ``extra_vocabulary``."""
        return (
            self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'extra_vocabulary'"
            ).fetchone()
            is not None
        )

    def class_totals(self) -> dict[str, tuple[int, int]]:
        """``{class: (messages, token-set size sum)}`` of the classes other than ham and
        spam that hold messages, by name."""
        rows = self.db.execute(
            "SELECT label, messages, tokens FROM totals WHERE label NOT IN ('ham', 'spam')"
            " AND messages != 0 ORDER BY label"
        ).fetchall()
        from nbayes.spam.classes import checked_class_totals

        return checked_class_totals({label: (m, t) for label, m, t in rows})

    def read_classes(self, tokens: Sequence[str], *, vocabulary: bool = True) -> ClassCounts:
        """Every class's counts of the distinct ``tokens`` and totals, in one snapshot
        (:class:`~nbayes.spam.classes.ClassCounts`); the vocabulary counts the distinct
        tokens of all classes.

        The vocabulary is ``|tokens| + E``, ``E`` the tokens only the other classes hold.
        ``E`` is a running count (table ``extra_vocabulary``, one row) kept by triggers
        on ``tokens`` and ``class_tokens`` in the very transaction of every learning,
        unlearning and pruning (whoever writes: an older nbayes too), so a verdict reads
        it in O(1) rather than a pass over every other class's tokens. A store whose
        classes were learnt before the count was kept has no such table: it is counted
        once (and the triggers made) in a write transaction when the store is next
        opened for writing or learns a class; until then, read-only, ``E`` is counted on
        every read, as before (the same number either way)."""
        import numpy as np

        from nbayes.spam.classes import gather_classes

        with self.snapshot():
            two = self.lookup(tokens)
            totals = self.totals(vocabulary=vocabulary)
            extra_totals = self.class_totals()
            extra_counts: dict[str, NDArray[np.int64]] = {}
            size = totals.vocabulary
            if extra_totals and self._has_classes():
                where = {token: i for i, token in enumerate(tokens)}
                for start in range(0, len(tokens), _QUERY_CHUNK):
                    chunk = list(tokens[start : start + _QUERY_CHUNK])
                    marks = ",".join("?" * len(chunk))
                    for token, label, count in self.db.execute(
                        f"SELECT token, label, count FROM class_tokens WHERE token IN ({marks})",
                        chunk,
                    ).fetchall():
                        column = extra_counts.setdefault(
                            label, np.zeros(len(tokens), dtype=np.int64)
                        )
                        column[where[token]] = count
                if vocabulary:
                    kept = self._keeps_extra_vocabulary()
                    query = _KEPT_EXTRA_VOCABULARY if kept else _EXTRA_VOCABULARY
                    size += self.db.execute(query).fetchone()[0]
        return gather_classes(
            two, (totals.messages, totals.tokens), extra_totals, extra_counts, size
        )

    def read_all_classes(self) -> tuple[list[str], ClassCounts]:
        """Every token of every class (sorted, as :meth:`class_vocabulary`) and every
        class's counts of them with the totals (:meth:`read_classes`), in one snapshot:
        what ``nbayes spam dump --classes`` writes."""
        with self.snapshot():
            tokens = self.class_vocabulary()
            return tokens, self.read_classes(tokens)

    def class_vocabulary(self) -> list[str]:
        """Every token of every class (ham, spam and the others), sorted."""
        if not self._has_classes():
            return [t for (t,) in self.db.execute("SELECT token FROM tokens ORDER BY token")]
        return [
            t
            for (t,) in self.db.execute(
                "SELECT token FROM tokens UNION SELECT token FROM class_tokens ORDER BY token"
            )
        ]

    def prune_classes(
        self, *, before_day: int | None, count_at_most: int | None, dry_run: bool
    ) -> tuple[int, int]:
        """Delete, in one transaction, the (class, token) counts of the classes other
        than ham and spam last learnt before ``before_day`` and/or held by at most
        ``count_at_most`` messages of their class; (rows before, rows removed)."""
        if not self._has_classes():
            return 0, 0
        conditions, parameters = _prune_conditions(before_day, count_at_most, "count")
        with self.transaction():
            rows = self.db.execute("SELECT COUNT(*) FROM class_tokens").fetchone()[0]
            if not conditions:
                return rows, 0
            where = " AND ".join(conditions)
            removed = self.db.execute(
                f"SELECT COUNT(*) FROM class_tokens WHERE {where}", parameters
            ).fetchone()[0]
            if not dry_run:
                self.db.execute(f"DELETE FROM class_tokens WHERE {where}", parameters)
        return rows, removed

    def read_lookup(
        self, tokens: Sequence[str], *, vocabulary: bool = True
    ) -> tuple[NDArray[np.int64], Totals]:
        """:meth:`lookup` and :meth:`totals` read in one snapshot."""
        with self.snapshot():
            return self.lookup(tokens), self.totals(vocabulary)

    def read_counts(
        self, tokens: Iterable[str], *, vocabulary: bool = False
    ) -> tuple[dict[str, tuple[int, int]], Totals]:
        """:meth:`counts` and :meth:`totals` read in one snapshot."""
        with self.snapshot():
            return self.counts(tokens), self.totals(vocabulary)

    def read_all(self) -> tuple[list[str], NDArray[np.int64], Totals]:
        """:meth:`all_counts` and :meth:`totals` read in one snapshot."""
        with self.snapshot():
            tokens, counts = self.all_counts()
            return tokens, counts, self.totals()

    # ------------------------------------------------------------ feedback
    def forget(self, tokens: AbstractSet[str], raw: bytes, label: str) -> None:
        """Unlearn one message learnt as ``label`` inside the caller's transaction, deleting
        the rows of its tokens and its digest that fall to zero."""
        self.add([(tokens, raw, label)], sign=-1)
        self.db.executemany(
            "DELETE FROM tokens WHERE token = ? AND ham = 0 AND spam = 0", [(t,) for t in tokens]
        )
        self.db.execute(
            "DELETE FROM trained WHERE ham = 0 AND spam = 0 AND digest = ?", (digest(raw),)
        )

    # ------------------------------------------------------------ settings
    def recorded_options(self) -> TokenOptions | None:
        """The tokenizer options the store recorded (table ``settings``, row
        ``tokenizer``), or None if it recorded none (see :mod:`nbayes.spam.store_options`)."""
        table = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'"
        ).fetchone()
        if table is None:
            return None
        row = self.db.execute(
            "SELECT value FROM settings WHERE name = ?", (_OPTIONS_ROW,)
        ).fetchone()
        return None if row is None else parse_options(self.name, row[0])

    def record_options(self, options: TokenOptions = DEFAULT_OPTIONS) -> None:
        """Record ``options`` as the store's, inside the caller's write transaction: in
        place of any record while the store holds no message, else only where it has none.

        :class:`StoreError` (and the caller's transaction rolls back) if the store holds
        messages trained with other options: another process that trained the new store
        first, after this one chose its options."""
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS settings(name TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        if sum(self.totals(vocabulary=False).messages) == 0:
            self.db.execute(
                "INSERT OR REPLACE INTO settings VALUES (?, ?)", (_OPTIONS_ROW, options.text())
            )
            return
        recorded = self.recorded_options()
        if recorded is None:
            self.db.execute("INSERT INTO settings VALUES (?, ?)", (_OPTIONS_ROW, options.text()))
        elif recorded != options:
            raise trained_with_other(self.name, recorded, options)

    # ------------------------------------------------------------ maintenance
    def prune_tokens(
        self, *, before_day: int | None, count_at_most: int | None, max_tokens: int | None,
        dry_run: bool,
    ) -> tuple[int, int]:  # fmt: skip
        """Delete, in one transaction, the tokens last learnt before ``before_day`` and/or
        seen in at most ``count_at_most`` messages, then the least seen beyond
        ``max_tokens`` (see :mod:`nbayes.spam.prune`); (tokens before, tokens removed)."""
        conditions, parameters = _prune_conditions(before_day, count_at_most, "ham + spam")
        with self.transaction():
            tokens = self.db.execute("SELECT COUNT(*) FROM tokens").fetchone()[0]
            removed = 0
            if conditions:
                where = " AND ".join(conditions)
                removed = self.db.execute(
                    f"SELECT COUNT(*) FROM tokens WHERE {where}", parameters
                ).fetchone()[0]
                if not dry_run:
                    self.db.execute(f"DELETE FROM tokens WHERE {where}", parameters)
            if max_tokens is not None and tokens - removed > max_tokens:
                extra = tokens - removed - max_tokens
                if not dry_run:
                    self.db.execute(
                        "DELETE FROM tokens WHERE token IN (SELECT token FROM tokens"
                        " ORDER BY ham + spam, day, token LIMIT ?)",
                        (extra,),
                    )
                removed += extra
        return tokens, removed

    def compact(self) -> None:
        """Rewrite the file without its freed pages (``VACUUM``), truncate the log."""
        self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def size_bytes(self) -> int:
        """Bytes of the database file and its write-ahead log."""
        import os

        paths = (self.name, f"{self.name}-wal")
        return sum(os.path.getsize(path) for path in paths if os.path.exists(path))


_OPTIONS_ROW = "tokenizer"


def parse_options(name: str, text: str) -> TokenOptions:
    """The recorded options ``text`` of the store ``name``; :class:`StoreError` if this
    nbayes does not know them."""
    try:
        return TokenOptions.parse(text)
    except ValueError:
        raise StoreError(
            f"{name}: trained with tokenizer options this nbayes does not know "
            f"({text!r}); use the nbayes that trained it"
        ) from None


def trained_with_other(name: str, recorded: TokenOptions, asked: TokenOptions) -> StoreError:
    """The error of a training with options other than those the store recorded."""
    return StoreError(
        f"{name} was trained with tokenizer options {recorded.text()}, not "
        f"{asked.text()}: train a new database to change them"
    )


_JSON_LOOKUP = (
    "SELECT token, ham, spam FROM json_each(?1) AS wanted JOIN tokens ON token = wanted.value"
)
_JSON_LOOKUP_BY_INDEX = (
    "SELECT group_concat(wanted.key || ',' || ham || ',' || spam, ',')"
    " FROM json_each(?1) AS wanted JOIN tokens ON token = wanted.value"
)


def _json(value) -> str:
    """``value`` as JSON (the json module imported on first use: classify's start-up)."""
    import json

    return json.dumps(value, ensure_ascii=False)


def _json_object(pairs: Mapping[str, int]) -> str:
    """The JSON object of ``pairs`` (string keys, integer values), as ``json.dumps``
    writes it without escaping non-ASCII characters (only the separators differ: no
    spaces). Each key is escaped by the json module's C function and the pieces
    joined: half the CPU of ``json.dumps`` of a Counter (59 against 29 ms for 130,000
    tokens), whose C encoder builds the dict's items and their separators one object
    at a time."""
    from json.encoder import encode_basestring

    members = [f"{encode_basestring(key)}:{count:d}" for key, count in pairs.items()]
    return "{" + ",".join(members) + "}"


def _column(label: str) -> str:
    if label not in LABELS:
        raise ValueError(f"label must be 'ham' or 'spam', got {label!r}")
    return label


def _label(label: str) -> str:
    """``label`` if it is ham, spam or another class's name (ValueError otherwise)."""
    if label in LABELS:
        return label
    from nbayes.spam.classes import check_class  # here: classify's start-up (ham and spam)

    return check_class(label)


#: The tokens only the classes other than ham and spam hold (the vocabulary's rest),
#: counted: a pass over ``class_tokens``.
_EXTRA_VOCABULARY = (
    "SELECT COUNT(*) FROM (SELECT DISTINCT token FROM class_tokens) AS c"
    " WHERE NOT EXISTS (SELECT 1 FROM tokens WHERE tokens.token = c.token)"
)
#: The same number kept as a running count (one row of ``extra_vocabulary``).
_KEPT_EXTRA_VOCABULARY = "SELECT size FROM extra_vocabulary"
_CLASS_TABLES = (
    "CREATE TABLE IF NOT EXISTS class_tokens(token TEXT NOT NULL, label TEXT NOT NULL,"
    " count INTEGER NOT NULL, day INTEGER NOT NULL, PRIMARY KEY(token, label)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS class_trained(digest TEXT NOT NULL, label TEXT NOT NULL,"
    " count INTEGER NOT NULL, PRIMARY KEY(digest, label)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS extra_vocabulary(size INTEGER NOT NULL)",
    # counted once where missing (a store whose classes were learnt before the count was
    # kept; 0 for new tables), then kept by the triggers below
    f"INSERT INTO extra_vocabulary SELECT ({_EXTRA_VOCABULARY})"
    " WHERE NOT EXISTS (SELECT 1 FROM extra_vocabulary)",
    # a (class, token) row made: a new token of the vocabulary's rest where neither ham,
    # spam nor another class holds it
    "CREATE TRIGGER IF NOT EXISTS extra_vocabulary_class_insert AFTER INSERT ON class_tokens"
    " WHEN NOT EXISTS (SELECT 1 FROM tokens WHERE token = NEW.token)"
    " AND NOT EXISTS (SELECT 1 FROM class_tokens WHERE token = NEW.token AND label != NEW.label)"
    " BEGIN UPDATE extra_vocabulary SET size = size + 1; END",
    # a (class, token) row deleted: one fewer where it was the token's last anywhere
    "CREATE TRIGGER IF NOT EXISTS extra_vocabulary_class_delete AFTER DELETE ON class_tokens"
    " WHEN NOT EXISTS (SELECT 1 FROM tokens WHERE token = OLD.token)"
    " AND NOT EXISTS (SELECT 1 FROM class_tokens WHERE token = OLD.token)"
    " BEGIN UPDATE extra_vocabulary SET size = size - 1; END",
    # ham or spam learning a token another class holds: it leaves the rest
    "CREATE TRIGGER IF NOT EXISTS extra_vocabulary_token_insert AFTER INSERT ON tokens"
    " WHEN EXISTS (SELECT 1 FROM class_tokens WHERE token = NEW.token)"
    " BEGIN UPDATE extra_vocabulary SET size = size - 1; END",
    # a ham/spam token deleted (unlearnt, pruned) that another class holds: it joins it
    "CREATE TRIGGER IF NOT EXISTS extra_vocabulary_token_delete AFTER DELETE ON tokens"
    " WHEN EXISTS (SELECT 1 FROM class_tokens WHERE token = OLD.token)"
    " BEGIN UPDATE extra_vocabulary SET size = size + 1; END",
)


def _prune_conditions(
    before_day: int | None, count_at_most: int | None, count: str
) -> tuple[list[str], list[int]]:
    """The SQL conditions (joined by AND) and parameters of a pruning: a row last learnt
    before ``before_day``, and/or whose ``count`` (an SQL expression of its columns) is
    at most ``count_at_most``; none where both are None."""
    conditions, parameters = [], []
    if before_day is not None:
        conditions.append("day < ?")
        parameters.append(before_day)
    if count_at_most is not None:
        conditions.append(f"{count} <= ?")
        parameters.append(count_at_most)
    return conditions, parameters


def _subtracted(
    table: str, key: str, label: str, rows: list[tuple[str, int]]
) -> list[Statement]:
    """The statements taking each (key, n) of ``rows`` off the ``count`` of the class
    ``label`` in ``table`` (``class_trained`` by digest, ``class_tokens`` by token),
    never below 0, and deleting the rows that reach 0."""
    return [
        (
            f"UPDATE {table} SET count = max(count - ?, 0) WHERE {key} = ? AND label = ?",
            [(n, value, label) for value, n in rows],
            True,
        ),
        (
            f"DELETE FROM {table} WHERE {key} = ? AND label = ? AND count = 0",
            [(value, label) for value, _ in rows],
            True,
        ),
    ]


def _extra_class_changes(
    messages: list[tuple[AbstractSet[str], bytes]], label: str, sign: int
) -> list[Statement]:
    """The statements adding (``sign=1``) or subtracting (``sign=-1``) the messages of
    the class ``label`` (not ham or spam): counts in ``class_tokens`` and
    ``class_trained`` (a token's day set to at least today when learnt; subtracting
    never goes below 0 and deletes the rows it empties) and the class's ``totals`` row
    (deleted when its last message goes)."""
    counts, digests, n_tokens = tally(messages)
    token_rows = sorted(counts.items(), key=itemgetter(0))
    digest_rows = sorted(digests.items(), key=itemgetter(0))
    statements: list[Statement] = [(sql, (), False) for sql in _CLASS_TABLES]
    if sign > 0:
        day = today()
        return [
            *statements,
            (
                "INSERT INTO class_trained VALUES (?, ?, ?) ON CONFLICT(digest, label)"
                " DO UPDATE SET count = count + excluded.count",
                [(key, label, n) for key, n in digest_rows],
                True,
            ),
            (
                "INSERT INTO class_tokens VALUES (?, ?, ?, ?) ON CONFLICT(token, label)"
                " DO UPDATE SET count = count + excluded.count, day = max(day, excluded.day)",
                [(token, label, n, day) for token, n in token_rows],
                True,
            ),
            (
                "INSERT INTO totals VALUES (?, ?, ?) ON CONFLICT(label) DO UPDATE SET"
                " messages = messages + excluded.messages, tokens = tokens + excluded.tokens",
                (label, len(messages), n_tokens),
                False,
            ),
        ]
    return [
        *statements,
        *_subtracted("class_trained", "digest", label, digest_rows),
        *_subtracted("class_tokens", "token", label, token_rows),
        (
            "UPDATE totals SET messages = messages - ?, tokens = tokens - ? WHERE label = ?",
            (len(messages), n_tokens, label),
            False,
        ),
        ("DELETE FROM totals WHERE label = ? AND messages = 0", (label,), False),
    ]
