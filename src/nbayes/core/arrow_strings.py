"""Arrow-backed pandas string columns (``str`` under pandas 3 with pyarrow,
``string[pyarrow]``): their Arrow arrays, and their factorization by the compiled
string hash (:mod:`nbayes._kernels.strings`), for the table's columns
(:mod:`nbayes.mixed.columns`) and for labels (:mod:`nbayes.core.validation`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def arrow_strings(series):
    """The pyarrow ChunkedArray of an Arrow-backed pandas string Series (``str`` under
    pandas 3 with pyarrow, ``string[pyarrow]``), else None."""
    import pandas as pd

    array = series.array
    if not isinstance(array, pd.arrays.ArrowExtensionArray):
        return None
    from nbayes._kernels.strings import is_string_array

    chunked = array.__arrow_array__()
    return chunked if is_string_array(chunked) else None


def factorize_arrow_strings(
    series, out: NDArray[np.intp] | None = None, k: int = 0
) -> tuple[NDArray[np.intp], list[str]] | None:
    """``(codes, uniques)`` of an Arrow-backed pandas string Series by the compiled
    pass (``pandas.factorize``'s result: uniques in order of first appearance, code -1
    where missing; the codes in column ``k`` of ``out`` if given); None for other
    Series or with the kernels off."""
    chunked = arrow_strings(series)
    if chunked is None:
        return None
    from nbayes._kernels.strings import factorize_strings

    return factorize_strings(chunked, out, k)
