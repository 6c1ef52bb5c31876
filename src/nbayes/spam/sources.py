"""Mail sources: a single message file, a directory (recursive), an mbox file, a maildir.

:func:`iter_mail` yields one :class:`MailItem` per message. A file starting with an
mbox ``From `` line that holds a second ``From `` line after an empty line is an
mbox; a directory with ``cur`` and ``new`` sub-directories is a maildir; any other
directory is walked recursively (files in name order, then sub-directories), each
file one message (or an mbox).
Sources that cannot be read are reported through ``on_error`` and skipped.
"""

from __future__ import annotations

import fnmatch
import mailbox
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

_MBOX_SEPARATOR = re.compile(rb"(?:\r?\n){2}From \S")


@dataclass(frozen=True)
class MailItem:
    """One message: where it came from (``path`` or ``path:key`` in a mailbox) and its bytes."""

    name: str
    raw: bytes


def report_to_stderr(name: str, problem: str) -> None:
    """The default error reporter: ``nbayes: NAME: PROBLEM`` on stderr."""
    print(f"nbayes: {name}: {problem}", file=sys.stderr)


def iter_mail(
    sources: Iterable[str | Path],
    *,
    exclude: Iterable[str] = (),
    on_error: Callable[[str, str], None] = report_to_stderr,
) -> Iterator[MailItem]:
    """Every message of every source, in order; file names matching one of the
    ``exclude`` glob patterns are skipped."""
    patterns = list(exclude)
    for source in sources:
        path = Path(source)
        if not path.exists():
            on_error(str(path), "no such file or directory")
        elif path.is_dir():
            if (path / "cur").is_dir() and (path / "new").is_dir():
                yield from _maildir(path, on_error)
            else:
                for file in _walk(path):
                    if not any(fnmatch.fnmatch(file.name, p) for p in patterns):
                        yield from _file(file, on_error)
        else:
            yield from _file(path, on_error)


def _walk(root: Path) -> Iterator[Path]:
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        for name in sorted(files):
            yield Path(directory, name)


def _file(path: Path, on_error: Callable[[str, str], None]) -> Iterator[MailItem]:
    try:
        raw = path.read_bytes()
    except OSError as error:
        on_error(str(path), f"cannot read: {error.strerror or error}")
        return
    if raw.startswith(b"From ") and _MBOX_SEPARATOR.search(raw):
        yield from _mbox(path, on_error)
    else:
        yield MailItem(str(path), raw)


def _mbox(path: Path, on_error: Callable[[str, str], None]) -> Iterator[MailItem]:
    try:
        box = mailbox.mbox(path, create=False)
        for key in box.iterkeys():
            yield MailItem(f"{path}:{key}", box.get_bytes(key))
    except (OSError, mailbox.Error) as error:
        on_error(str(path), f"cannot read mbox: {error}")


def _maildir(path: Path, on_error: Callable[[str, str], None]) -> Iterator[MailItem]:
    try:
        box = mailbox.Maildir(path, factory=None, create=False)
        for key in sorted(box.iterkeys()):
            yield MailItem(f"{path}:{key}", box.get_bytes(key))
    except (OSError, mailbox.Error) as error:
        on_error(str(path), f"cannot read maildir: {error}")
