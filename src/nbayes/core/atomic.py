"""Writing a file atomically: a reader, or a crash, never sees half of it.

:func:`atomic_file` writes to a temporary file beside the target, flushes it to disk,
gives it the permissions of the file it replaces (or those ``open()`` would have given a
new file), renames it over the target, and makes the rename durable by syncing the
directory (POSIX). A target that is a symbolic link has the file it names replaced, the
link kept. Errors name the target, never the temporary file. On any error the
temporary file is removed and the target is as it was. Model files (:func:`nbayes.save`),
reports and the command line's outputs are written through it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


@contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "wb", **options: Any) -> Iterator[IO]:
    """A file object open for writing (``mode``, and ``options`` such as ``encoding``)
    whose contents replace ``path`` when the block ends without an error.

    >>> with atomic_file("model.bin") as handle:  # doctest: +SKIP
    ...     handle.write(b"...")
    """
    target = Path(path)
    if target.is_symlink():  # the file it names is replaced, and the link kept
        target = Path(os.path.realpath(target))
    directory = target.parent if str(target.parent) else Path(".")
    try:
        before = target.stat()
    except OSError:
        before = None
    try:
        handle = tempfile.NamedTemporaryFile(
            mode, dir=directory, prefix=f".{target.name}.", suffix=".tmp", delete=False, **options
        )
    except OSError as error:  # named after the target, not the temporary file
        raise naming(error, path) from None
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _same_access(handle.name, before)
        try:
            os.replace(handle.name, target)
        except OSError as error:
            raise naming(error, path) from None
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable (POSIX)
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _same_access(name: str, before: os.stat_result | None) -> None:
    """Give the new file the permissions (and, where allowed, the owner and group) of the
    file it replaces, or those ``open()`` gives a new file (not ``tempfile``'s 0600)."""
    if before is None:
        os.chmod(name, 0o666 & ~_umask())
        return
    if hasattr(os, "chown"):
        try:
            os.chown(name, before.st_uid, before.st_gid)
        except OSError:  # not ours to give away: the writer's own, as a new file
            pass
    os.chmod(name, stat.S_IMODE(before.st_mode))


def naming(error: OSError, name: str | os.PathLike) -> OSError:
    """``error`` about ``name`` (its ``filename``): the file or address the caller asked
    for, not a temporary file, or nothing."""
    return type(error)(error.errno, error.strerror or str(error), os.fspath(name))


def _umask() -> int:
    """The process's umask (read by setting it, then put back)."""
    umask = os.umask(0)
    os.umask(umask)
    return umask
