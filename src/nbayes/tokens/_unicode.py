"""Per-code-point tables taken from Python's own Unicode database.

The compiled tokenizer classifies and case-folds characters by table look-up, so it
agrees with Python's ``re`` (``\\w``, ``\\d``) and ``str.lower`` character by
character, for whatever Unicode version this Python ships.

Building them takes Python's ``re`` over all 1.1M code points (0.05 s of CPU), so
each is kept in the user's cache (:func:`nbayes._kernels.cache_root`), one file per
Python version and Unicode version, and a later process reads it in a millisecond.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from nbayes._kernels import cache_root
from nbayes.core.atomic import atomic_file

N_CODE_POINTS = 0x110000

WORD = 1  # matches Python's ``\w`` (str.isalnum() or "_")
DIGIT = 2  # matches Python's ``\d`` (decimal digits, category Nd)
LETTER = 4  # a word character that is neither a digit nor "_"
SPACE = 8  # matches Python's ``\s``

# The only characters whose ``str.lower`` is not one code point for one code point:
# U+0130 (İ -> "i̇", two code points) and U+03A3 (Σ -> σ or final ς, by context).
# Documents holding them are lower-cased by Python itself before the fast path.
CONTEXT_LOWER = ("\u0130", "\u03a3")


def _all_code_points() -> str:
    """Every code point in order, one string (their UTF-32 decoded: 10x faster than
    joining a million ``chr``)."""
    codes = np.arange(N_CODE_POINTS, dtype="<u4")
    return codes.tobytes().decode("utf-32-le", "surrogatepass")


def _mask(pattern: str, text: str) -> NDArray[np.bool_]:
    """True where the one-character ``pattern`` matches, for every code point: found
    as maximal runs (``pattern+``; a few hundred, where one match a character took
    0.3 s), marked by their ends."""
    edges = np.zeros(len(text) + 1, np.int64)
    for match in re.finditer(f"(?:{pattern})+", text):
        start, end = match.span()
        edges[start] += 1
        edges[end] -= 1
    return np.cumsum(edges[:-1]) > 0


def _kept(build: Callable[[], NDArray]) -> Callable[[], NDArray]:
    """``build()``, read from the user's cache where an earlier process wrote it (a
    file that is missing, unreadable or not of the table's shape is built again);
    then the same array for the life of the process."""
    version = f"py{sys.version_info[0]}.{sys.version_info[1]}-unicode{unicodedata.unidata_version}"

    @functools.cache
    @functools.wraps(build)
    def kept() -> NDArray:
        path = cache_root() / "tables" / f"{build.__name__}-{version}.npy"
        try:
            table = np.load(path, allow_pickle=False)
            if table.shape == (N_CODE_POINTS,):
                return table
        except (OSError, ValueError):
            pass
        table = build()
        _write(path, table)
        return table

    return kept


def _write(path: Path, table: NDArray) -> None:
    """Save ``table`` at ``path`` atomically (a reader never sees half a file); a
    cache that cannot be written is only slower."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path) as out:
            np.save(out, table, allow_pickle=False)
    except OSError:
        pass


@_kept
def char_classes() -> NDArray[np.uint8]:
    """Bit flags (WORD, DIGIT, LETTER, SPACE) per code point, shape (0x110000,)."""
    text = _all_code_points()
    word = _mask(r"\w", text)
    digit = _mask(r"\d", text)
    space = _mask(r"\s", text)
    letter = word & ~digit
    letter[ord("_")] = False
    return (
        word * np.uint8(WORD)
        + digit * np.uint8(DIGIT)
        + letter * np.uint8(LETTER)
        + space * np.uint8(SPACE)
    ).astype(np.uint8)


@_kept
def lower_map() -> NDArray[np.int32]:
    """``ord(chr(c).lower())`` per code point c, shape (0x110000,).

    U+0130 maps to itself: its lower case is two code points, and documents that
    hold it are lower-cased by Python before reaching the table.
    """
    text = _all_code_points()
    text = text[:0x130] + "I" + text[0x131:]
    lowered = text.lower()
    if len(lowered) != N_CODE_POINTS:  # a future Unicode with another 1:n mapping
        return np.array(
            [ord(ch.lower()) if len(ch.lower()) == 1 else c for c, ch in enumerate(text)],
            dtype=np.int32,
        )
    table = np.frombuffer(lowered.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    table = table.astype(np.int32)
    table[0x130] = 0x130
    return table
