"""Arrow string arrays factorized by one compiled pass over their buffers: each value
hashed from its bytes and probed in an open-addressing table of the distinct values
(:func:`factorize_strings`), or only looked up in a fixed vocabulary
(:func:`lookup_strings`). These serve a table's string columns and labels
(:func:`nbayes.mixed.columns.read_codes`, :func:`nbayes.core.validation.encode_targets`),
where Arrow's own hash kernels (``dictionary_encode``, ``index_in``) took 8-13 ns a
value against about 3 here: short strings are hashed from one 8-byte load, and compared
by their hash alone.

The hash is built as :mod:`nbayes.tokens._kernels_table`'s token hash: a value of at
most 8 bytes packed little-endian into one uint64 (zero-padded) and multiplied by an
odd constant (bijective), so an equal hash and length is an equal value; a longer
value's words are mixed in FNV fashion and compared in full on a hash match. The slot
is the hash's top bits (its low bits depend on the value's first bytes only). The
table holds ``(hash, (length << 32) | code)`` per slot, -1 where empty, at most 1/8
full while small and 1/2 beyond (:data:`SPARSE_SLOTS`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes._kernels import available, jit

#: CPU seconds a step of each kernel saves over its reference path (1,000,000-row
#: calls, one thread; bench/NOTES.md, issue 29), for :func:`available`'s choice.
FACTORIZE_SAVING_S, LOOKUP_SAVING_S = 6e-9, 3e-9

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_ID_MASK = np.int64(0xFFFFFFFF)


def _factorize_kernel(
    offsets,
    data,
    valid,
    valid_offset,
    start,
    codes,
    row0,
    column,
    table,
    u_off,
    u_bytes,
    counts,
    insert,
):
    """Codes of the values ``data[offsets[i]:offsets[i + 1]]``, i from ``start``, into
    ``codes[row0 + i, column]`` (-1 where bit ``valid_offset + i`` of ``valid`` is 0;
    ``valid`` empty: no missing values). A value not in ``table`` is added as code
    ``counts[0]`` (its bytes appended to ``u_bytes`` at ``u_off[code]``) if
    ``insert``, else coded ``counts[0]`` without being added. Returns the row at which
    the table (room for ``counts[1]`` values), the offsets or the value store ran out
    of room (the caller grows them and calls again from there), or the number of rows
    when done."""
    n = offsets.shape[0] - 1
    n_data = data.shape[0]
    n_store = u_bytes.shape[0]
    mask = np.uint64((table.shape[0] >> 1) - 1)
    shift = np.uint64(64)  # the slot is the hash's top bits (see _rehash_kernel)
    while (np.uint64(1) << (np.uint64(64) - shift)) <= mask:
        shift -= np.uint64(1)
    check_valid = valid.shape[0] > 0
    ucolumn = np.uint64(column)
    for i in range(start, n):
        # unsigned indices below: no test for a negative index (numba's wraparound)
        row = np.uint64(row0 + i)
        if check_valid:
            bit = valid_offset + i
            if not (valid[bit >> 3] >> (bit & 7)) & 1:
                codes[row, ucolumn] = -1
                continue
        s = np.int64(offsets[np.uint64(i)])
        length = np.int64(offsets[np.uint64(i) + np.uint64(1)]) - s
        # the hash: one 8-byte load where the buffer allows (LLVM fuses the byte loads)
        if length <= 8:
            if s + 8 <= n_data:
                u = np.uint64(s)  # unsigned: no negative-index test, so one load
                w = (
                    np.uint64(data[u])
                    | (np.uint64(data[u + np.uint64(1)]) << np.uint64(8))
                    | (np.uint64(data[u + np.uint64(2)]) << np.uint64(16))
                    | (np.uint64(data[u + np.uint64(3)]) << np.uint64(24))
                    | (np.uint64(data[u + np.uint64(4)]) << np.uint64(32))
                    | (np.uint64(data[u + np.uint64(5)]) << np.uint64(40))
                    | (np.uint64(data[u + np.uint64(6)]) << np.uint64(48))
                    | (np.uint64(data[u + np.uint64(7)]) << np.uint64(56))
                )
                if length < 8:
                    w &= (np.uint64(1) << np.uint64(8 * length)) - np.uint64(1)
            else:
                w = np.uint64(0)
                for q in range(length):
                    w |= np.uint64(data[s + q]) << np.uint64(8 * q)
            g = w * _GOLDEN
        else:
            g = _FNV_OFFSET
            for q0 in range(0, length, 8):
                w = np.uint64(0)
                for q in range(min(8, length - q0)):
                    w |= np.uint64(data[s + q0 + q]) << np.uint64(8 * q)
                g = (g ^ w) * _FNV_PRIME
                g ^= g >> np.uint64(29)
            g = (g ^ np.uint64(length)) * _FNV_PRIME
            g ^= g >> np.uint64(29)
            g *= _GOLDEN
        h = np.int64(g)
        slot = g >> shift
        code = np.int64(-1)
        while True:
            meta = table[slot + slot + np.uint64(1)]
            if meta < 0:
                break
            if table[slot + slot] == h and (meta >> 32) == length:
                found = meta & _ID_MASK
                if length <= 8:
                    code = found
                    break
                a = u_off[found]
                same = True
                for q in range(length):
                    if u_bytes[a + q] != data[s + q]:
                        same = False
                        break
                if same:
                    code = found
                    break
            slot = (slot + np.uint64(1)) & mask
        if code < 0:
            code = counts[0]
            if insert:
                stored = u_off[code]
                if code + 1 > counts[1] or code + 2 > u_off.shape[0] or stored + length > n_store:
                    return i
                for q in range(length):
                    u_bytes[stored + q] = data[s + q]
                u_off[code + 1] = stored + length
                table[slot + slot] = h
                table[slot + slot + np.uint64(1)] = (length << 32) | code
                counts[0] = code + 1
        codes[row, ucolumn] = code
    return n


#: A table of at most this many slots is kept at most 1/8 full, a larger one 1/2: a
#: probe past the first slot is a mispredicted branch, and at half full a look-up
#: among 1,000 values took 15 ns against 5.5 at 1/8 (the 1,000 values' table, 128 KiB,
#: still in L2 cache); a table of many values is kept small instead.
SPARSE_SLOTS = 1 << 16


def _limit(slots: int) -> int:
    """How many values a table of ``slots`` slots may hold."""
    return slots // 8 if slots <= SPARSE_SLOTS else slots // 2


class StringTable:
    """The distinct values met so far, in order of first appearance, and the hash table
    that finds them (see the module docstring); grown as values arrive."""

    def __init__(self, capacity: int = 64) -> None:
        slots = 16
        while _limit(slots) < capacity:
            slots *= 2
        self.table = np.full(2 * slots, -1, dtype=np.int64)
        self.offsets = np.zeros(capacity + 1, dtype=np.int64)
        self.bytes = np.empty(16 * capacity, dtype=np.uint8)
        self.counts = np.array([0, _limit(slots)], dtype=np.int64)  # values, room

    def __len__(self) -> int:
        return int(self.counts[0])

    def code(self, array, insert: bool, codes: NDArray[np.intp], row0: int, column: int) -> None:
        """Codes of the values of the Arrow string array ``array`` (one chunk) into
        ``codes[row0:row0 + len(array), column]`` (``codes`` 2-D): -1 where missing; a
        new value is added (``insert``) or coded ``len(self)``."""
        import pyarrow as pa

        buffers = array.buffers()
        kind = np.int32 if pa.types.is_string(array.type) else np.int64
        n = len(array)
        offsets = np.frombuffer(buffers[1], dtype=kind)[array.offset : array.offset + n + 1]
        data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] else np.empty(0, np.uint8)
        valid = (
            np.frombuffer(buffers[0], dtype=np.uint8)
            if array.null_count and buffers[0] is not None
            else np.empty(0, np.uint8)
        )
        kernel = jit(_factorize_kernel)
        row = 0
        while True:
            row = kernel(
                offsets,
                data,
                valid,
                np.int64(array.offset),
                np.int64(row),
                codes,
                np.int64(row0),
                np.int64(column),
                self.table,
                self.offsets,
                self.bytes,
                self.counts,
                np.bool_(insert),
            )
            if row >= n:
                return
            self._grow(int(offsets[row + 1] - offsets[row]))

    def _grow(self, length: int) -> None:
        """Room for one more value of ``length`` bytes: each store doubled if full."""
        count = len(self)
        if count + 1 > self.counts[1]:
            slots = self.table.shape[0]  # twice as many as now
            self.table = jit(_rehash_kernel)(self.table, np.int64(slots))
            self.counts[1] = _limit(slots)
        if count + 2 > self.offsets.shape[0]:
            self.offsets = np.concatenate([self.offsets, np.zeros_like(self.offsets)])
        stored = int(self.offsets[count])
        if stored + length > self.bytes.shape[0]:
            grown = np.empty(2 * max(self.bytes.shape[0], stored + length), dtype=np.uint8)
            grown[:stored] = self.bytes[:stored]
            self.bytes = grown

    def values(self) -> list[str]:
        """The distinct values, in order of first appearance, as Python strings."""
        import pyarrow as pa

        count = len(self)
        return pa.LargeStringArray.from_buffers(
            count,
            pa.py_buffer(self.offsets[: count + 1].copy()),
            pa.py_buffer(self.bytes[: int(self.offsets[count])].copy()),
        ).to_pylist()


def _rehash_kernel(table, size):
    """The entries of ``table`` in a fresh table of ``size`` slots."""
    new = np.full(size * 2, -1, np.int64)
    mask = size - 1
    # the top bits: those of a multiplied word depend on all its bytes, its low bits
    # on its low bytes only ("s_v123" and "s_v193" would share the low bits)
    shift = np.uint64(64)
    while (np.uint64(1) << (np.uint64(64) - shift)) < np.uint64(size):
        shift -= np.uint64(1)
    for j in range(table.shape[0] >> 1):
        if table[2 * j + 1] >= 0:
            i = np.int64(np.uint64(table[2 * j]) >> shift)
            while new[2 * i + 1] >= 0:
                i = (i + 1) & mask
            new[2 * i] = table[2 * j]
            new[2 * i + 1] = table[2 * j + 1]
    return new


def is_string_array(chunked) -> bool:
    """Whether ``chunked`` (a pyarrow Array or ChunkedArray) holds strings this module
    reads (``string`` or ``large_string``)."""
    import pyarrow as pa

    return pa.types.is_string(chunked.type) or pa.types.is_large_string(chunked.type)


def _code_all(
    strings: StringTable, chunked, insert: bool, out: NDArray[np.intp] | None, column: int
) -> NDArray[np.intp]:
    """The codes of every chunk of ``chunked``, one after another, in column ``column``
    of ``out`` (n, m), C-contiguous (a new (n, 1) array if None): that column."""
    if out is None:
        out, column = np.empty((len(chunked), 1), dtype=np.intp), 0
    if out.shape[0] != len(chunked) or out.dtype != np.intp or not out.flags.c_contiguous:
        raise ValueError("out must be a C-contiguous intp array of one row per value.")
    start = 0
    for chunk in chunked.chunks if hasattr(chunked, "chunks") else [chunked]:
        strings.code(chunk, insert, out, start, column)
        start += len(chunk)
    return out[:, column]


def factorize_strings(
    chunked, out: NDArray[np.intp] | None = None, column: int = 0
) -> tuple[NDArray[np.intp], list[str]] | None:
    """``(codes, uniques)`` of a pyarrow string (Chunked)Array: ``uniques`` the distinct
    values in order of first appearance, ``codes`` (n,) their indices, -1 where
    missing (``pandas.factorize``'s result); the codes written into column ``column``
    of ``out`` (n, m) if given (``codes`` is then that column). None when the compiled
    kernels are not available (or the call is small: :data:`~nbayes._kernels.SMALL_WORK`)
    or the array holds no strings."""
    if not available(len(chunked), FACTORIZE_SAVING_S) or not is_string_array(chunked):
        return None
    strings = StringTable()
    codes = _code_all(strings, chunked, True, out, column)
    return codes, strings.values()


def lookup_strings(
    chunked, known: list[str], out: NDArray[np.intp] | None = None, column: int = 0
) -> NDArray[np.intp] | None:
    """The index in ``known`` (distinct strings) of each value of a pyarrow string
    (Chunked)Array, ``len(known)`` for a value not there, -1 where missing (written
    into column ``column`` of ``out`` as in :func:`factorize_strings`). None when the
    compiled kernels are not available (or the call is small) or the array holds no
    strings."""
    work = len(chunked) + len(known)
    if not available(work, LOOKUP_SAVING_S) or not is_string_array(chunked):
        return None
    import pyarrow as pa

    strings = StringTable(max(64, len(known)))
    _code_all(strings, pa.array(known, type=pa.large_string()), True, None, 0)
    if len(strings) != len(known):
        return None  # not distinct: the codes would not be positions in known
    return _code_all(strings, chunked, False, out, column)
