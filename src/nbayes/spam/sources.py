"""Mail sources: a single message file, a directory (recursive), an mbox file, a maildir.

:func:`iter_mail` yields one :class:`MailItem` per message. A file starting with an
mbox ``From `` line that holds a second ``From `` line after an empty line is an
mbox; a directory with ``cur`` and ``new`` sub-directories is a maildir (its
messages in key order, as :class:`mailbox.Maildir` names them); any other directory
is walked recursively (files in name order, then sub-directories), each file one
message (or an mbox).

Only regular files are read, each opened without blocking and checked again once open
(:func:`read_regular`): a FIFO, a device or a socket (or a symbolic link to one, such as
``/dev/zero``) is never read, so it can neither hang a run nor feed it without end.
Symbolic links to directories are not followed inside a walk. Anything that cannot be
read (a dangling link, a link loop, a file or directory without permission, a
non-regular file) is reported through ``on_error`` with the reason and skipped; every
other message is still read.
"""

from __future__ import annotations

import errno
import fnmatch
import mailbox
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from nbayes.spam.file_kinds import file_kind

_MBOX_SEPARATOR = re.compile(rb"(?:\r?\n){2}From \S")
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


@dataclass(frozen=True)
class MailItem:
    """One message: where it came from (``path`` or ``path:key`` in a mailbox) and its bytes."""

    name: str
    raw: bytes


class UnreadableSource(OSError):
    """A path that is not read: not a regular file, or the OS refused it (its message
    says why in words, e.g. ``dangling symbolic link``)."""


def report_to_stderr(name: str, problem: str) -> None:
    """The default error reporter: ``nbayes: NAME: PROBLEM`` on stderr."""
    print(f"nbayes: {name}: {problem}", file=sys.stderr)


def iter_mail(
    sources: Iterable[str | Path],
    *,
    exclude: Iterable[str] = (),
    on_error: Callable[[str, str], None] = report_to_stderr,
    max_size: int | None = None,
) -> Iterator[MailItem]:
    """Every message of every source, in order; file names matching one of the
    ``exclude`` glob patterns are skipped. A source that cannot be read (missing,
    unreadable, an empty string) is reported to ``on_error`` and skipped, and so is a
    message over ``max_size`` bytes (None: no limit), which is never read whole: a file
    over it is read no further than ``max_size + 1`` bytes, an mbox message by message."""
    patterns = list(exclude)
    for source in sources:
        if isinstance(source, str) and not source:  # Path("") would be the current folder
            on_error("''", "skipped: an empty path names no file")
            continue
        path = Path(source)
        try:
            is_dir = path.is_dir()
        except OSError as error:  # is_dir() raises only for errors other than ENOENT
            on_error(str(path), problem(error, path))
            continue
        if not is_dir:
            yield from _file(path, on_error, max_size)
        elif _is_maildir(path):
            yield from _maildir(path, on_error, max_size)
        else:
            for found, is_maildir in _walk(path, on_error):
                if is_maildir:
                    yield from _maildir(found, on_error, max_size)
                elif not any(fnmatch.fnmatch(found.name, p) for p in patterns):
                    yield from _file(found, on_error, max_size)


def read_regular(path: Path, max_size: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (symbolic links followed); with
    ``max_size``, no more than ``max_size + 1`` of them (more: the file is larger).
    Errors as :func:`open_regular`'s."""
    with open_regular(path) as file:
        return file.read() if max_size is None else file.read(max_size + 1)


def open_regular(path: Path) -> BinaryIO:
    """The regular file at ``path`` (symbolic links followed), open for reading bytes.

    Raises :class:`UnreadableSource` for anything else (a FIFO, a device, a socket, a
    directory), which is never read, and an ``OSError`` naming the problem
    (:func:`problem`) where the OS refuses. The file is opened without blocking (a FIFO
    that became one after the check returns at once) and checked again once open.
    """
    kind = file_kind(os.stat(path).st_mode)
    if kind:
        raise UnreadableSource(f"not a regular file ({kind})")
    fd = os.open(path, _OPEN_FLAGS)
    file = open(fd, "rb", closefd=True)  # returned open: the caller closes it
    kind = file_kind(os.fstat(fd).st_mode)
    if kind:
        file.close()
        raise UnreadableSource(f"not a regular file ({kind})")
    return file


def problem(error: OSError, path: Path) -> str:
    """Why ``path`` could not be read, in words."""
    if isinstance(error, UnreadableSource):
        return str(error)
    if error.errno == errno.ENOENT and os.path.islink(path):
        return "dangling symbolic link"
    if error.errno == errno.ELOOP:
        return "symbolic link loop"
    words = error.strerror or str(error)
    return words[:1].lower() + words[1:]


def _file(
    path: Path, on_error: Callable[[str, str], None], max_size: int | None = None
) -> Iterator[MailItem]:
    try:
        raw = read_regular(path, max_size)
    except OSError as error:
        on_error(str(path), f"skipped: {problem(error, path)}")
        return
    if raw.startswith(b"From ") and is_mbox(raw):
        yield from _mbox(path, on_error, max_size)
    elif max_size is not None and len(raw) > max_size:
        on_error(str(path), _over(max_size))
    else:
        yield MailItem(str(path), raw)


def _over(max_size: int) -> str:
    return f"skipped: over {max_size} bytes (--max-size)"


def is_mbox(raw: bytes) -> bool:
    """Whether ``raw`` (starting with a ``From `` line) holds a second message:
    ``_MBOX_SEPARATOR.search(raw)``, an empty line and ``From `` + a non-space, found by
    ``bytes.find`` for ``\\nFrom `` (a regex search for the separator, which has no
    literal prefix, tried every byte: a tenth of the time of reading SpamAssassin's
    corpus, whose every file starts with a ``From `` line)."""
    position = raw.find(b"\nFrom ", 1)
    while position >= 0:  # the separator starts 1 to 3 bytes before: \n\n, \r\n\n, \r\n\r\n
        for start in range(max(position - 3, 0), position):
            if _MBOX_SEPARATOR.match(raw, start):
                return True
        position = raw.find(b"\nFrom ", position + 1)
    return False


def _walk(root: Path, on_error: Callable[[str, str], None]) -> Iterator[tuple[Path, bool]]:
    """``(path, is_maildir)`` for the files under ``root``: each directory's files in name
    order, then its sub-directories, depth first (as ``os.walk``); directories that
    cannot be listed are reported. Symbolic links (to anything) come out as files:
    :func:`_file` reads those to regular files and reports the others.

    A maildir below ``root`` comes out as itself (``is_maildir``), to be read as one
    (:func:`_maildir`: its ``new`` and ``cur``), not file by file: its ``tmp`` (mail
    still being written) and the files a mail server keeps beside them (Dovecot's
    ``dovecot-uidlist``, ``dovecot.index``, ``subscriptions``) are not mail. Its other
    sub-directories (Maildir++ folders, ``.Sent``) are walked as any."""
    pending = [root]
    while pending:
        directory = pending.pop()
        in_maildir = directory != root and _is_maildir(directory)
        if in_maildir:
            yield directory, True
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            on_error(str(directory), f"skipped directory: {problem(error, directory)}")
            continue
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                if not (in_maildir and entry.name in _MAILDIR_PARTS):
                    subdirs.append(Path(entry.path))
            elif not in_maildir:
                yield Path(entry.path), False
        pending.extend(reversed(subdirs))


#: A maildir's own sub-directories.
_MAILDIR_PARTS = ("cur", "new", "tmp")


def _mbox(
    path: Path, on_error: Callable[[str, str], None], max_size: int | None = None
) -> Iterator[MailItem]:
    try:
        box = mailbox.mbox(path, create=False)
        for key in box.iterkeys():
            if max_size is None:
                yield MailItem(f"{path}:{key}", box.get_bytes(key))
                continue
            with box.get_file(key, from_=False) as message:
                raw = message.read(max_size + 1)
            if len(raw) > max_size:
                on_error(f"{path}:{key}", _over(max_size))
            else:
                yield MailItem(f"{path}:{key}", raw)
    except (OSError, mailbox.Error) as error:
        on_error(str(path), f"cannot read mbox: {error}")


def _is_maildir(path: Path) -> bool:
    return all(os.path.isdir(path / sub) for sub in ("cur", "new"))


def _maildir(
    path: Path, on_error: Callable[[str, str], None], max_size: int | None = None
) -> Iterator[MailItem]:
    """The messages of a maildir's ``new`` and ``cur``, in key order: the key is a
    file's name up to ``:`` (its flags), as :class:`mailbox.Maildir` has it (a key in
    both keeps its ``cur`` file); names starting with ``.`` and directories are left
    out. Each file is read on its own, so one bad entry costs only itself."""
    files: dict[str, Path] = {}
    for sub in ("new", "cur"):
        try:
            with os.scandir(path / sub) as listing:
                entries = list(listing)
        except OSError as error:
            on_error(str(path / sub), f"skipped directory: {problem(error, path / sub)}")
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir():
                    continue
            except OSError:
                pass  # a loop or the like: reported when it is read
            files[entry.name.split(mailbox.Maildir.colon)[0]] = Path(entry.path)
    for key in sorted(files):
        try:
            raw = read_regular(files[key], max_size)
        except OSError as error:
            on_error(str(files[key]), f"skipped: {problem(error, files[key])}")
            continue
        if max_size is not None and len(raw) > max_size:
            on_error(str(files[key]), _over(max_size))
            continue
        yield MailItem(f"{path}:{key}", raw)
