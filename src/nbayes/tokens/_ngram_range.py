"""The n-gram range setting, checked once for every text model (the vectorizers, the
:class:`~nbayes.text.Tokenizer`, the text column kind) and for every model file.

An n-gram range ``(min_n, max_n)`` makes each document of ``T`` tokens yield up to
``(max_n - min_n + 1) * T`` features, and the compiled pass sizes its buffers by that
factor: ``max_n`` is bounded by :data:`MAX_NGRAM` so a setting (typed, or read from a
stranger's model file) cannot ask for terabytes (``ngram_range=(1, 10**9)``).

>>> check_ngram_range((1, 2))
(1, 2)
>>> check_ngram_range((1, 10**9))
Traceback (most recent call last):
...
ValueError: Invalid value for ngram_range=(1, 1000000000): need 1 <= min_n <= max_n <= 64.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

from sklearn.utils._param_validation import Options

__all__ = ["MAX_NGRAM", "NGRAM_RANGE", "check_ngram_range"]

#: The longest n-gram a text model forms (words or characters).
MAX_NGRAM = 64


def check_ngram_range(ngram_range: Any) -> tuple[int, int]:
    """A valid ``(min_n, max_n)`` with ``1 <= min_n <= max_n <= MAX_NGRAM``; else a
    ValueError naming the setting and the bound."""
    problem = f"ngram_range must be a pair of integers; got {ngram_range!r:.80}"
    try:
        low, high = ngram_range
    except (TypeError, ValueError):
        raise ValueError(problem) from None
    if not all(isinstance(n, Integral) and not isinstance(n, bool) for n in (low, high)):
        raise ValueError(problem)
    low, high = int(low), int(high)
    if not 1 <= low <= high <= MAX_NGRAM:
        raise ValueError(
            f"Invalid value for ngram_range=({low}, {high}): need 1 <= min_n <= max_n "
            f"<= {MAX_NGRAM}."
        )
    return low, high


class _NgramRange(Options):
    """scikit-learn parameter constraint: a pair accepted by :func:`check_ngram_range`
    (an ``Options`` by type, the kind of constraint scikit-learn's validation takes)."""

    def __init__(self) -> None:
        super().__init__(tuple, set())

    def is_satisfied_by(self, val: Any) -> bool:
        if not isinstance(val, tuple | list):
            return False
        try:
            check_ngram_range(val)
        except ValueError:
            return False
        return True

    def __str__(self) -> str:
        return f"a pair (min_n, max_n) of integers with 1 <= min_n <= max_n <= {MAX_NGRAM}"


#: The constraint of an ``ngram_range`` setting (``sklearn.utils._param_validation``).
NGRAM_RANGE = _NgramRange()
