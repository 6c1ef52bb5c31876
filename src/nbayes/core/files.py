"""Writing a file atomically: a reader, or a crash, never sees half of it.

:func:`atomic_file` writes to a temporary file beside the target, flushes it to disk,
gives it the permissions ``open()`` would have given a new file, renames it over the
target, and makes the rename durable by syncing the directory (POSIX). On any error the
temporary file is removed and the target is as it was. Model files (:func:`nbayes.save`),
reports and the command line's outputs are written through it.
"""

from __future__ import annotations

import os
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
    directory = target.parent if str(target.parent) else Path(".")
    handle = tempfile.NamedTemporaryFile(
        mode, dir=directory, prefix=f".{target.name}.", suffix=".tmp", delete=False, **options
    )
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o666 & ~_umask())  # as open() creates it, not 0600
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable (POSIX)
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _umask() -> int:
    """The process's umask (read by setting it, then put back)."""
    umask = os.umask(0)
    os.umask(umask)
    return umask
