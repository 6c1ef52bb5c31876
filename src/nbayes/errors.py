"""Every error nbayes raises on purpose, in one place.

All are subclasses of the built-in error a caller would catch anyway (``ValueError``,
``TypeError``), so code written for scikit-learn keeps working.

- :class:`ModelFileError`: a file that is not a valid nbayes model file (missing,
  truncated, corrupted, tampered with, of another version, or naming something that
  is not allowed).
- :class:`StatisticsError`: sufficient statistics that cannot be right (a wrong shape,
  a negative or non-finite count), from a model file or a merge.
- :class:`DomainError`: input values outside an event model's domain (a negative
  count, a fractional Poisson count, a Bernoulli value other than 0 and 1).
- :class:`UnknownCategoryError`: a category at predict time that training never saw,
  under ``handle_unknown="error"``.
- :class:`NotEstimableError`: statistics that hold no parameters yet, though training
  may still complete them (a kernel density feature with one value so far).
- :class:`InexactCountWarning` (a warning, not an error): a count has reached 2**53,
  beyond which float64 no longer counts in ones.
- :class:`NotSupportedError`: a shared feature whose maths does not exist for a model
  (the linear view of a Gaussian model, a nomogram of AODE, whose log-odds are not a
  sum over features).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class ModelFileError(ValueError):
    """A file that is not a valid nbayes model file; the message names the problem."""


class StatisticsError(ValueError):
    """Sufficient statistics that cannot be right: a wrong shape, a negative or
    non-finite count. The message names the statistics type and the field."""


class UnknownCategoryError(ValueError, IndexError):
    """A category at predict time that training never saw (``handle_unknown='error'``).

    Subclasses ``IndexError`` too, the error scikit-learn's CategoricalNB raises.
    ``feature`` and ``value``, where known, are the column (within its block) and the
    value never seen.
    """

    def __init__(self, message: str, feature: int | None = None, value: Any = None):
        super().__init__(message)
        self.feature, self.value = feature, value


class NotEstimableError(ValueError):
    """Statistics that give no parameters yet, though more data may (e.g. a kernel
    density feature with a single value: no bandwidth rule applies). ``column`` is the
    feature."""

    def __init__(self, message: str, column: int | None = None):
        super().__init__(message)
        self.column = column


class NotSupportedError(TypeError):
    """A shared feature whose maths does not exist for this model, e.g. the linear view
    (``coef_``) of a Gaussian model, or a nomogram of AODE, whose log-odds are not a
    sum of per-feature terms. The message names the model and the feature."""


class DomainError(ValueError):
    """An input value outside an event model's domain.

    Attributes
    ----------
    problem : str
        What is wrong, as a plural noun phrase ("Negative values").
    requirement : str
        What the model needs ("non-negative integer counts").
    feature : int
        The column of the block the value is in.
    row : int
        Its row.
    value : Any
        The value itself.
    """

    def __init__(self, problem: str, requirement: str, feature: int, row: int, value: Any):
        self.problem, self.requirement = problem, requirement
        self.feature, self.row, self.value = feature, row, value
        super().__init__(self.described("this model", lambda j: f"feature {j}"))

    def described(self, owner: str, name_of: Callable[[int], str]) -> str:
        """The message for a model ``owner`` whose columns ``name_of(j)`` names."""
        return (
            f"{self.problem} in data passed to {owner}: {name_of(self.feature)} is "
            f"{self.value!r} in row {self.row}; the model needs {self.requirement}."
        )


class InexactCountWarning(RuntimeWarning):
    """A count of the statistics has reached ``2**53``: float64 no longer counts in ones
    beyond it (adding 1 changes nothing), so further counts are rounded."""
