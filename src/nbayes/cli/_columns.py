"""Columns as read from a file, parsed the same way at train and at predict.

Each feature column is read one of three ways (its *read*, stored in the model file):
``number`` (floats; NaN or empty is missing), ``bool`` (``true`` / ``false`` in any
case) or ``text`` (the values as written). A column of a CSV file is text until
parsed; Parquet and JSON lines bring their own types, converted the same way. The
target column is always read as text, so labels stay as written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import click
import numpy as np

from nbayes.cli._tables import CLIError, Source, pyarrow

READS = ("number", "bool", "text")
_BOOLEANS = ("true", "false")


def infer_read(column, name: str, source: Source, hint: bool = True) -> tuple[str, object]:
    """How to parse a column for the mixed model, and the column so parsed: ``number``
    if every value reads as a number, ``bool`` if every value is true or false, else
    ``text`` (the kind of the parsed column is then
    :func:`nbayes.mixed.columns.infer_kind`'s). With ``hint``, numbers but for a few
    other values get a note on the ``--na-values`` that would make those missing."""
    pa = pyarrow()
    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return "number", _cast(column, pa.float64(), name, source)
    if pa.types.is_boolean(kind):
        return "bool", column
    if not _is_text(kind):
        return "text", _cast(column, pa.string(), name, source)
    if column.null_count == len(column):
        return "text", column
    sample = column.drop_null().slice(0, _SAMPLE)
    for read, parsing in _PARSINGS.items():
        if parsing.parse(sample) is not None:
            parsed = parsing.parse(column)
            if parsed is not None:
                return read, parsed
    if hint:
        _hint_markers(column, name, source)
    return "text", column


def _hint_markers(column, name: str, source: Source) -> None:
    """A note on stderr where a text column is numbers but for a few values that look
    like a missing-value marker (``?`` in the UCI files): read as text, the column
    becomes categorical, silently, unless ``--na-values`` names the marker."""
    pa = pyarrow()
    pc = pa.compute
    values = pc.utf8_trim_whitespace(column.drop_null())
    numbers = pc.match_substring_regex(values, _NUMBER)
    n_numbers = pc.sum(numbers).as_py() or 0
    if n_numbers * 2 < len(values):
        return
    others = pc.value_counts(values.filter(pc.invert(numbers)))
    if not 0 < len(others) <= _MAX_MARKERS:
        return
    found = ", ".join(
        f"{shown(item['values'].as_py())} ({_rows(item['counts'].as_py())})" for item in others
    )
    given = " ".join(f"--na-values {item['values'].as_py()!r}" for item in others)
    click.echo(
        f"note: {source.name}: column {name!r} holds numbers and {found}, so it is read as "
        f"text (categories); if that marks a missing value, give {given}",
        err=True,
    )


def _rows(count: int) -> str:
    return f"{count} row" if count == 1 else f"{count} rows"


#: A number as written in a file (what a cast to float64 takes, but for inf and nan).
_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"
#: At most this many distinct other values in a number column are hinted at as markers.
_MAX_MARKERS = 3
#: A value this short that is not a number may be a marker, and gets the hint.
_MARKER_LENGTH = 8


#: Values tried first when telling how a text column parses.
_SAMPLE = 1000


def convert(column, read: str, name: str, source: Source, offset: int = 0):
    """``column`` (a pyarrow array) parsed as ``read``: float64, bool or string; a
    value that does not parse is an error naming the file, line and column."""
    pa = pyarrow()
    kind = column.type
    if read == "text":
        return column if _is_text(kind) else _cast(column, pa.string(), name, source, offset)
    parsing = _PARSINGS.get(read)
    if parsing is None:
        raise CLIError(f"column {name!r}: unknown read {read!r} in the model file")
    if not _is_text(kind):
        parsed = _cast(column, getattr(pa, parsing.arrow_type)(), name, source, offset)
    else:
        parsed = parsing.parse(column)
        if parsed is None:
            _fail(column, name, source, offset, parsing.what, parsing.accepts)
    if read == "number":
        check_finite(parsed, column, name, source, offset)
    return parsed


def shown(value: str, limit: int = 60) -> str:
    """``value`` as an error message quotes it: its repr, cut after ``limit`` characters
    with its length said (a number of 100,000 digits made a 100 kB error line).

    >>> shown("1" * 100)
    "'111111111111111111111111111111111111111111111111111111111111'... (100 characters)"
    """
    if not isinstance(value, str) or len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value):,} characters)"


def check_finite(parsed, column, name: str, source: Source, offset: int = 0) -> None:
    """No model takes an infinity (``inf``, or ``1e400`` read as one): the first in
    ``parsed`` (float64, parsed from ``column``) is an error naming its line."""
    pa = pyarrow()
    infinite = pa.compute.fill_null(pa.compute.is_inf(parsed), False)
    if pa.compute.any(infinite).as_py():
        row = int(np.flatnonzero(infinite.to_numpy(zero_copy_only=False))[0])
        raise CLIError(
            f"{source.where(offset + row)}: column {name!r} holds "
            f"{shown(column[row].as_py())}, not a finite number"
        )


def looks_like_free_text(column) -> bool:
    """Whether a string column (pyarrow) holds free text, by the rule of
    :func:`nbayes.mixed.columns.looks_like_text` (a median of at least 3 words a value
    among ~200 sampled, and at least half its values distinct), read from the Arrow
    column before it is dictionary-encoded."""
    from nbayes.mixed.columns import looks_like_text, sample_step

    pa = pyarrow()
    n_rows = len(column)
    rows = pa.array(np.arange(0, n_rows, sample_step(n_rows)))
    sample = column.take(rows).drop_null().to_pylist()
    n_values = n_rows - column.null_count
    return looks_like_text(sample, n_values, lambda: pa.compute.count_distinct(column).as_py())


def first_missing(column) -> int | None:
    """The index of the first missing value (null, or NaN in numbers), else None."""
    pa = pyarrow()
    if pa.types.is_floating(column.type):
        mask = pa.compute.is_null(column, nan_is_null=True)
    elif column.null_count:
        mask = pa.compute.is_null(column)
    else:
        return None
    index = pa.compute.index(mask, True).as_py()
    return None if index < 0 else index


def labels(column, name: str, source: Source, offset: int = 0) -> tuple[np.ndarray, list]:
    """The target column as text labels, exactly as written (a NumPy string array),
    and its distinct labels, sorted; a missing label is an error naming its line."""
    pa = pyarrow()
    text = column
    if not _is_text(column.type):
        text = _cast(column, pa.string(), name, source, offset, target=True)
    missing = first_missing(text)
    if missing is not None:
        raise CLIError(
            f"{source.where(offset + missing)}: the target {name!r} is missing (an empty "
            "cell, or a marker such as NA, None or NaN; --no-default-na reads those as "
            "written)"
        )
    encoded = text.dictionary_encode().combine_chunks()
    distinct = encoded.dictionary.to_pylist()
    classes = np.asarray(distinct, dtype=str)
    return classes[encoded.indices.to_numpy(zero_copy_only=False)], sorted(distinct)


def _is_text(kind) -> bool:
    pa = pyarrow()
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _as_numbers(column):
    """Text as float64 (spaces around a number allowed), or None if some value is not
    a number."""
    pa = pyarrow()
    for candidate in (column, pa.compute.utf8_trim_whitespace(column)):
        try:
            return pa.compute.cast(candidate, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return None


def _as_booleans(column):
    pa = pyarrow()
    pc = pa.compute
    lowered = pc.utf8_lower(pc.utf8_trim_whitespace(column))
    valid = pc.is_in(lowered, value_set=pa.array(_BOOLEANS))
    if not pc.all(pc.or_kleene(valid, pc.is_null(lowered))).as_py():
        return None
    return pc.equal(lowered, "true")


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _is_boolean(value: str) -> bool:
    return value.strip().lower() in _BOOLEANS


class _Parsing(NamedTuple):
    """How text reads as ``number`` or ``bool``: the whole column parsed (None if a
    value does not parse), what a value must be, the test naming the first one that
    is not, and the Arrow type (a ``pyarrow`` factory's name) other columns cast to."""

    parse: Callable
    what: str
    accepts: Callable[[str], bool]
    arrow_type: str


#: The reads of text columns other than ``text``, in the order inference tries them.
_PARSINGS = {
    "number": _Parsing(_as_numbers, "a number", _is_number, "float64"),
    "bool": _Parsing(_as_booleans, "true or false", _is_boolean, "bool_"),
}


def _fail(column, name: str, source: Source, offset: int, what: str, ok) -> None:
    """Raise the error of the first value of ``column`` that is not ``what``."""
    for row, value in enumerate(column.to_pylist()):
        if value is not None and not ok(value):
            marker = f" (if it marks a missing value: --na-values {value.strip()!r})"
            raise CLIError(
                f"{source.where(offset + row)}: column {name!r} holds {shown(value)}, not {what}"
                + (marker if len(value.strip()) <= _MARKER_LENGTH else "")
            )
    raise CLIError(f"{source.name}: column {name!r} is not {what}")


#: What a column of a Parquet or JSON-lines file may hold, said in errors.
ACCEPTED = "nbayes reads numbers, true/false and text (dates, times and UTF-8 bytes as text)"


def _cast(
    column, kind, name: str, source: Source, offset: int = 0, target: bool = False
) -> Any:
    """``column`` (a typed column of Parquet or JSON lines) as ``kind``: numbers to
    float64 as near as a float gets (an integer beyond 2**53 is rounded, as in any
    float column), anything else as Arrow casts it. A nested column (lists, maps,
    structs), bytes that are not UTF-8 text, or a cast Arrow lacks, is an error naming
    the file and the column (and the row of the bytes); ``target``: the column is the
    target (which cannot be left out)."""
    pa = pyarrow()
    what = f"the target {name!r}" if target else f"column {name!r}"
    leave_out = "" if target else f", or leave it out (train: --column '{name}=ignore')"
    nested = _nested_name(column.type)
    if nested is not None:
        raise CLIError(
            f"{source.name}: {what} holds {nested} ({column.type}); {ACCEPTED}: "
            f"flatten it into plain columns{leave_out}"
        )
    to_float = pa.types.is_floating(kind) and _is_numeric(column.type)
    try:
        return pa.compute.cast(column, kind, safe=not to_float)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        row = _first_not_utf8(column) if _is_text(kind) else None
        if row is not None:
            raise CLIError(
                f"{source.where(offset + row)}: {what} holds bytes that are not UTF-8 text "
                f"({column[row].as_py()[:40]!r}); {ACCEPTED}: store it as text{leave_out}"
            ) from None
        raise CLIError(
            f"{source.name}: {what} ({column.type}) cannot be read as {kind}; "
            f"{ACCEPTED}"
        ) from None


def _is_numeric(kind) -> bool:
    pa = pyarrow()
    return pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)


def _nested_name(kind) -> str | None:
    """What a nested Arrow type holds, in words (``lists``, ``maps``, ``structs``,
    ``unions``), else None; a dictionary is judged by its values."""
    pa = pyarrow()
    if pa.types.is_dictionary(kind):
        return _nested_name(kind.value_type)
    if pa.types.is_map(kind):  # a map is a list of structs: named first
        return "maps"
    checks = {
        "lists": ("is_list", "is_large_list", "is_fixed_size_list", "is_list_view",
                  "is_large_list_view"),
        "structs": ("is_struct",),
        "unions": ("is_union",),
    }  # fmt: skip
    for words, tests in checks.items():
        if any(getattr(pa.types, test, lambda _: False)(kind) for test in tests):
            return words
    return None


def _first_not_utf8(column) -> int | None:
    """The index of the first value of a binary column that is not UTF-8 text."""
    pa = pyarrow()
    kind = column.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
        column = pa.compute.cast(column, kind)
    binary = (pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
              or pa.types.is_fixed_size_binary(kind))  # fmt: skip
    if not binary:
        return None
    for row, value in enumerate(column.to_pylist()):
        if value is not None:
            try:
                value.decode("utf-8")
            except UnicodeDecodeError:
                return row
    return None
