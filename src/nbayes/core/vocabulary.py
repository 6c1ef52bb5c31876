"""Category vocabularies: any hashable values ↔ integer codes, column by column.

A vocabulary is a tuple of the values seen so far, in order of first appearance;
a value's code is its position. Vocabularies only grow, so codes stay valid across
``partial_fit`` batches; two vocabularies merge by appending the second's new values.
Missing values (None, NaN, pandas.NA, NaT) get code ``MISSING``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

MISSING = -1


def is_missing(value: object) -> bool:
    """None, a float NaN, pandas.NA or NaT."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except TypeError:  # pandas.NA refuses bool()
        return True


def encode_column(values: NDArray, vocabulary: tuple, grow: bool) -> tuple[NDArray[np.intp], tuple]:
    """Codes (n,) of one column's values, and the (possibly grown) vocabulary.

    With ``grow=False`` a value outside the vocabulary gets code ``len(vocabulary)``
    (one past the end), which callers treat as unknown.
    """
    index = {value: code for code, value in enumerate(vocabulary)}
    unknown = len(vocabulary)
    codes = np.empty(len(values), dtype=np.intp)
    for row, value in enumerate(values):
        if is_missing(value):
            codes[row] = MISSING
            continue
        code = index.get(value)
        if code is None:
            if grow:
                if isinstance(value, np.generic):  # store plain Python values
                    value = value.item()
                code = index[value] = len(index)
            else:
                code = unknown
        codes[row] = code
    return codes, tuple(index) if grow else vocabulary


def encode(
    X: NDArray, vocabularies: tuple[tuple, ...], grow: bool
) -> tuple[NDArray[np.intp], tuple[tuple, ...]]:
    """Codes (n_samples, n_features) of an object array, and the vocabularies."""
    columns = [encode_column(X[:, j], vocabularies[j], grow) for j in range(X.shape[1])]
    codes = np.stack([c for c, _ in columns], axis=1) if columns else np.empty(X.shape, np.intp)
    return codes.reshape(X.shape), tuple(v for _, v in columns)


def union(a: tuple, b: tuple) -> tuple[tuple, NDArray[np.intp]]:
    """``a`` extended by ``b``'s new values, and where each of ``b``'s codes lands."""
    index = {value: code for code, value in enumerate(a)}
    landing = np.empty(len(b), dtype=np.intp)
    for code, value in enumerate(b):
        landing[code] = index.setdefault(value, len(index))
    return tuple(index), landing
