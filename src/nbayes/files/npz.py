"""Reading an ``.npz`` archive from a stranger, with memory and time bounded by its size.

:func:`numpy.load` trusts an archive: a member of a few megabytes that inflates to
gigabytes of zeros is inflated in full before anything can look at it. Here nothing is
inflated until every member has been checked from what the archive declares:

1. the zip central directory: at most :data:`MAX_MEMBERS` members, each named
   ``<name>.npy`` once, stored or deflated (no other compression, no encryption), whose
   compressed sizes fit in the file together (no two members sharing bytes) and whose
   uncompressed sizes add up to at most the *inflate budget*, ``INFLATION * stored +
   SLACK_BYTES``, where ``stored`` is the bytes the members actually occupy (their
   compressed sizes), not the file's apparent size: a file padded with a sparse hole
   or any prefix gains nothing;
2. each member's ``.npy`` header (read alone, at most :data:`MAX_HEADER_BYTES`): a
   plain numeric, boolean or unicode dtype in native byte order (never an object,
   which would need a pickle), and a shape whose bytes plus the header are exactly the
   member's declared uncompressed size.

Only then is each member read, into an array of its declared size; zip stops inflating
at that size and checks the member's CRC, and every byte inflated (headers included) is
counted against the same budget while it streams, so a member whose data runs on past
its declared size is refused after at most one read beyond it. So loading members that
occupy ``s`` bytes costs at most about ``INFLATION * s`` bytes of memory, and time in
proportion.
"""

from __future__ import annotations

import os
import re
import struct
import zipfile
import zlib
from pathlib import Path
from tokenize import TokenError

import numpy as np
from numpy.lib import format as npy_format

__all__ = ["ArchiveError", "read_npz"]

#: Uncompressed bytes allowed per byte of the file (nbayes writes members uncompressed:
#: its own files inflate by a factor of about 1).
INFLATION = 4
#: Uncompressed bytes allowed beyond that, for very small files.
SLACK_BYTES = 1 << 20
#: Members an archive may hold (an nbayes file holds one per stored array).
MAX_MEMBERS = 100_000
#: Longest ``.npy`` header read (NumPy's own default limit).
MAX_HEADER_BYTES = 10_000

#: Bytes inflated per read while a member streams.
_CHUNK = 1 << 24

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}\.npy$")
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


class ArchiveError(ValueError):
    """An archive that is malformed, or larger inflated than its size allows."""


def read_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` file at ``path``, by member name without ``.npy``.

    Raises :class:`ArchiveError` naming the problem, for a file that is not a zip
    archive, is truncated or corrupted, or whose members break the bounds above.
    """
    path = Path(path)
    file_size = path.stat().st_size
    try:
        with zipfile.ZipFile(path) as archive:
            members, allowed = _checked_members(archive, file_size)
            budget = _Budget(allowed)
            headers = {info.filename: _header(archive, info, budget) for info in members}
            return {
                info.filename[:-4]: _array(archive, info, *headers[info.filename], budget)
                for info in members
            }
    except ArchiveError:
        raise
    except _CORRUPT as exc:
        raise ArchiveError(f"truncated or corrupted archive: {exc}") from None


#: What :mod:`zipfile` raises on a damaged archive: besides its own errors, a flipped
#: "version needed" field is a NotImplementedError ("zip file version 10.9"), a damaged
#: name a UnicodeDecodeError (a ValueError), a damaged deflate stream a zlib.error.
_CORRUPT = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    EOFError,
    OSError,
    NotImplementedError,
    RuntimeError,
    ValueError,
    zlib.error,
    struct.error,
)


class _Budget:
    """The bytes still allowed to be inflated, counted down as members stream."""

    def __init__(self, allowed: int) -> None:
        self.allowed = allowed
        self.left = allowed

    def spend(self, n_bytes: int, member: str) -> None:
        """Count ``n_bytes`` inflated from ``member``; ArchiveError past the budget."""
        self.left -= n_bytes
        if self.left < 0:
            raise ArchiveError(
                f"member {member!r} inflates beyond the archive's budget of {self.allowed} "
                "bytes (a decompression bomb, or not an nbayes file)."
            )


def _checked_members(archive: zipfile.ZipFile, file_size: int) -> tuple[list[zipfile.ZipInfo], int]:
    """The central directory's members, checked against the bounds (see module doc),
    and the inflate budget in bytes."""
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise ArchiveError(f"{len(members)} members, more than the {MAX_MEMBERS} allowed.")
    names = [info.filename for info in members]
    if len(set(names)) != len(names):
        raise ArchiveError("a member name occurs twice.")
    for info in members:
        if not _NAME.match(info.filename):
            raise ArchiveError(f"unexpected member {info.filename!r:.60}.")
        if info.flag_bits & 0x1:
            raise ArchiveError(f"member {info.filename!r} is encrypted.")
        if info.compress_type not in _METHODS:
            raise ArchiveError(f"member {info.filename!r} uses an unsupported compression.")
        if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
            raise ArchiveError(f"member {info.filename!r} declares inconsistent sizes.")
    stored = sum(info.compress_size for info in members)
    if stored > file_size:
        raise ArchiveError("the members' compressed sizes exceed the file (overlapping members).")
    declared = sum(info.file_size for info in members)
    allowed = INFLATION * stored + SLACK_BYTES
    if declared > allowed:
        raise ArchiveError(
            f"its members would inflate to {declared} bytes, more than {INFLATION} times "
            f"the {stored} bytes they occupy (a decompression bomb, or not an nbayes file)."
        )
    return members, allowed


def _header(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget
) -> tuple[tuple, bool, np.dtype, int]:
    """``(shape, fortran_order, dtype, header_bytes)`` of a member's ``.npy`` header,
    checked against its declared size; only the header is inflated (and counted)."""
    with archive.open(info) as handle:
        try:
            version = npy_format.read_magic(handle)
            if version == (1, 0):
                header = npy_format.read_array_header_1_0(handle, MAX_HEADER_BYTES)
            elif version == (2, 0):
                header = npy_format.read_array_header_2_0(handle, MAX_HEADER_BYTES)
            else:
                raise ValueError(f"unsupported .npy version {version}")
        except (ValueError, SyntaxError, TypeError, TokenError, RecursionError) as exc:
            raise ArchiveError(
                f"corrupted: member {info.filename!r} is not a valid .npy array ({exc})"
            ) from None
        header_bytes = handle.tell()
    budget.spend(header_bytes, info.filename)
    shape, fortran_order, dtype = header
    if dtype.hasobject or dtype.kind not in "biufU" or dtype.fields is not None:
        raise ArchiveError(
            f"member {info.filename!r} holds {dtype} values: only numbers and text are "
            "read (objects would need a pickle, which is never loaded)."
        )
    if not dtype.isnative:
        raise ArchiveError(f"member {info.filename!r} is not in native byte order.")
    if not all(isinstance(n, int) and n >= 0 for n in shape):
        raise ArchiveError(f"member {info.filename!r} declares a malformed shape.")
    size = dtype.itemsize
    for n in shape:
        size *= n
    if header_bytes + size != info.file_size:
        raise ArchiveError(
            f"member {info.filename!r} declares shape {shape} of {dtype} ({size} bytes) "
            f"but {info.file_size - header_bytes} bytes of data."
        )
    return shape, fortran_order, dtype, header_bytes


def _array(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    shape: tuple,
    fortran_order: bool,
    dtype: np.dtype,
    header_bytes: int,
    budget: _Budget,
) -> np.ndarray:
    """A member's array, read into a buffer of its declared size in chunks, each
    counted against ``budget`` as it streams (zip checks the CRC once the member is
    read to its end)."""
    if info.file_size == header_bytes:  # no data (empty, or zero-width text)
        return np.zeros(shape, dtype=dtype, order="F" if fortran_order else "C")
    size = info.file_size - header_bytes
    budget.spend(size, info.filename)  # before the buffer is allocated
    buffer = bytearray(size)
    with archive.open(info) as handle:
        handle.read(header_bytes)
        view = memoryview(buffer)
        done = 0
        while done < len(buffer):
            got = handle.readinto(view[done : done + _CHUNK])
            if not got:
                raise ArchiveError(f"member {info.filename!r} is truncated.")
            done += got
        if handle.read(1):
            raise ArchiveError(f"member {info.filename!r} holds more data than it declares.")
    array = np.frombuffer(buffer, dtype=dtype)
    return array.reshape(shape, order="F" if fortran_order else "C")
