"""What every public entry point checks of a table before reading it: that it is a table
(2-D: a DataFrame, a 2-D array or sparse matrix, or a list of equally long rows), and,
for sparse input, that each entry is stored once.

A pandas or polars Series, a list of rows of unequal lengths or a 3-D array or nested
list gets an error of its own naming the problem and the fix, instead of whatever
NumPy or pandas would raise from deep inside the conversion (a 1-D array or flat list
keeps scikit-learn's own error, "Expected 2D array ... Reshape your data", as the
drop-ins promise). A sparse matrix with
duplicate entries (which scipy allows: they mean their sum) is summed into a copy, so
models that read the stored entries one by one (binarizing, counting presence) see the
matrix scipy means; the caller's matrix is never changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["canonical_sparse", "check_table"]


def check_table(X: Any, owner: str) -> None:
    """Raise ValueError (naming ``owner``, e.g. the estimator) unless X is 2-D: a
    DataFrame, an array or sparse matrix with two axes, or a sequence of equally long
    rows. Anything else that is array-like is left to the caller's conversion."""
    kind = _series_kind(X)
    if kind is not None:
        raise ValueError(
            f"{owner} expects a table (n_samples, n_features), got a {kind} Series of "
            f"{len(X)} values. Pass X.to_frame() for one feature, or X.to_frame().T for "
            "one sample."
        )
    if sp.issparse(X) or isinstance(X, np.ndarray):
        if X.ndim > 2:
            raise ValueError(
                f"{owner} expects a 2-D table (n_samples, n_features), got an array of "
                f"shape {X.shape}."
            )
        return  # 1-D: scikit-learn's own "Expected 2D array ... Reshape your data"
    if isinstance(X, list | tuple):
        _check_rows(X, owner)


def _series_kind(X: Any) -> str | None:
    """ "pandas" or "polars" if X is a Series of theirs, else None."""
    module = type(X).__module__
    if module.startswith("pandas") and type(X).__name__ == "Series":
        return "pandas"
    if module.startswith("polars") and type(X).__name__ == "Series":
        return "polars"
    return None


def _is_row(value: Any) -> bool:
    return isinstance(value, Sequence | np.ndarray) and not isinstance(value, str | bytes)


def _check_rows(rows: Sequence, owner: str) -> None:
    """A list of rows: every row a sequence of scalars, all of one length."""
    if not rows:
        return
    flat = [i for i, row in enumerate(rows) if not _is_row(row)]
    if len(flat) == len(rows):
        return  # a flat list: scikit-learn's own "Expected 2D array ... Reshape your data"
    if flat:
        raise ValueError(
            f"{owner} expects a table: row {flat[0]} of X is a single value, not a row."
        )
    lengths = [len(row) for row in rows]
    if len(set(lengths)) > 1:
        first = lengths[0]
        other = next(i for i, n in enumerate(lengths) if n != first)
        raise ValueError(
            f"{owner} expects rows of equal length: row 0 of X has {first} values, row "
            f"{other} has {lengths[other]}."
        )
    if any(_is_row(value) for value in rows[0]):  # deeper nesting: NumPy reports the rest
        raise ValueError(
            f"{owner} expects a 2-D table (n_samples, n_features): the rows of X hold "
            "sequences, not values (a 3-D array?)."
        )


def canonical_sparse(X: Any) -> Any:
    """X, or for a sparse matrix with duplicate (or unsorted) entries a copy with the
    duplicates summed and the indices sorted; the caller's matrix is never changed."""
    if not sp.issparse(X) or X.format not in ("csr", "csc"):
        return X
    if X.has_canonical_format:
        return X
    X = X.copy()
    X.sum_duplicates()
    return X
