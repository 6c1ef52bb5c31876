"""How much of a message the spam filter takes: at most ``max_size`` bytes, read so
that a larger one is never held whole (``nbayes spam classify`` reads its standard
input through :func:`read_at_most`; ``score`` skips files over the size; the server
refuses a request over it unread).

The default is spamc's own (``spamc -s``, 500 KB): mail larger than that is nearly
never spam worth scoring, and spamc never sends it to a server anyway.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing unimported at run time (see nbayes.core.lazy)
if TYPE_CHECKING:
    from typing import BinaryIO

#: spamc's default largest message (``spamc -s``): 500 KB.
DEFAULT_MAX_SIZE = 500 * 1024
_CHUNK = 1 << 16


def read_at_most(stream: BinaryIO, max_size: int) -> tuple[bytes, bool]:
    """``(data, whole)``: the first ``max_size + 1`` bytes of ``stream`` at most, and
    whether that is all of it (False: the stream holds more than ``max_size`` bytes;
    its remainder is left unread, for :func:`copy_rest`). Memory: ``max_size`` bytes.

    >>> import io
    >>> read_at_most(io.BytesIO(b"abcdef"), 4)
    (b'abcde', False)
    """
    chunks, size = [], 0
    while size <= max_size:
        chunk = stream.read(min(_CHUNK, max_size + 1 - size))
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


def copy_rest(stream: BinaryIO, out: BinaryIO) -> None:
    """Copy what is left of ``stream`` to ``out`` a chunk at a time (bounded memory)."""
    import shutil  # here: only mail over the size limit is copied this way

    shutil.copyfileobj(stream, out, _CHUNK)
