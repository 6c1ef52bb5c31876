"""Compiled kernels (numba), grouped by the maths they serve:

- :mod:`~nbayes._kernels.categorical`: the categorical gather-sum and counts;
- :mod:`~nbayes._kernels.gaussian`: Gaussian class moments of a row block, the
  one-pass update of running moments, and the log-likelihood terms;
- :mod:`~nbayes._kernels.gaussian_observed`: the same for rows with missing values
  (a table's gaussian columns): class moments of the observed entries, and the
  log-likelihood summed over each row's known features;
- :mod:`~nbayes._kernels.posterior`: the posterior's row max, exponential (glibc's
  vector ``exp``, :mod:`~nbayes._kernels.vector_math`) and row sum;
- :mod:`~nbayes._kernels.weights`: the scatter-add of class weights.

Each caller keeps its NumPy/SciPy path, which gives the same numbers (tests compare
the two; set :data:`ENABLED` to False to force it). The kernels release the GIL, so
:func:`nbayes.core.parallel.map_blocks` runs them on row blocks in parallel.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

#: Set to False to force the NumPy/SciPy paths (tests compare the two).
ENABLED = True


@cache
def numba():
    """The numba module, or None where it cannot be imported."""
    try:
        import numba
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    return numba


def available() -> bool:
    """Whether the compiled kernels can be used (numba installed, :data:`ENABLED`)."""
    return ENABLED and numba() is not None


@cache
def jit(kernel: Callable) -> Callable:
    """``kernel`` compiled once per process (GIL released, machine code cached on disk)."""
    return numba().njit(nogil=True, cache=True)(kernel)
