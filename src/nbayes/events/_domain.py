"""Domain checks of input values, shared by the event models' ``check``: each raises
:class:`nbayes.errors.DomainError` naming the first offending value (row, feature,
value) and what the model needs. NaN (a missing value) always passes; sparse input
is checked on its stored values."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from nbayes.core.namespace import is_numpy, namespace_of, to_numpy
from nbayes.errors import DomainError


def _raise_first(X, bad_values: NDArray[np.bool_], problem: str, requirement: str) -> None:
    """Raise for the first True of ``bad_values`` (X's values, or a sparse X's data)."""
    if sp.issparse(X):
        csr = sp.csr_matrix(X)
        position = int(np.argmax(bad_values))
        row = int(np.searchsorted(csr.indptr, position, side="right") - 1)
        column, value = int(csr.indices[position]), csr.data[position]
    else:
        row, column = (int(i) for i in np.argwhere(bad_values)[0])
        value = X[row, column]
    value = value.item() if isinstance(value, np.generic) else value
    raise DomainError(problem, requirement, column, row, value)


def _values(X):
    return sp.csr_matrix(X).data if sp.issparse(X) else X


def _checked_on_device(X, bad, problem: str, requirement: str):
    """X (an array of another namespace) if ``bad`` (X's offending values, on X's
    device) holds none; else the DomainError of the first, found on the host."""
    if bool(namespace_of(X).any(bad)):
        _raise_first(to_numpy(X), to_numpy(bad), problem, requirement)
    return X


def nonnegative(X, requirement: str):
    """X if no value is negative."""
    if not is_numpy(X):
        return _checked_on_device(X, X < 0, "Negative values", requirement)
    values = _values(X)
    if values.size and values.dtype.kind in "fiu" and np.nanmin(values, initial=0) < 0:
        _raise_first(X, values < 0, "Negative values", requirement)
    return X


def integral(X, requirement: str):
    """X if every value is a whole number."""
    if not is_numpy(X):
        xp = namespace_of(X)
        if not xp.isdtype(X.dtype, "real floating"):
            return X
        bad = (X != xp.floor(X)) & ~xp.isnan(X)
        return _checked_on_device(X, bad, "Non-integer values", requirement)
    values = _values(X)
    if values.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            fractional = (values != np.floor(values)) & ~np.isnan(values)
        if fractional.any():
            _raise_first(X, fractional, "Non-integer values", requirement)
    return X


def binary(X, requirement: str):
    """X if every value is 0 or 1."""
    if not is_numpy(X):
        xp = namespace_of(X)
        bad = (X != 0) & (X != 1)
        if xp.isdtype(X.dtype, "real floating"):
            bad &= ~xp.isnan(X)
        return _checked_on_device(X, bad, "Values other than 0 and 1", requirement)
    values = _values(X)
    bad = (values != 0) & (values != 1)
    if values.dtype.kind == "f":
        bad &= ~np.isnan(values)
    if bad.any():
        _raise_first(X, bad, "Values other than 0 and 1", requirement)
    return X
