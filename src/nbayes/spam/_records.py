"""Immutable records for the spam filter's settings and counts, built on
:func:`collections.namedtuple` rather than :mod:`dataclasses`.

A mail server starts ``nbayes spam classify`` once per delivered message, and importing
:mod:`dataclasses` (which imports :mod:`inspect`, :mod:`ast`, :mod:`dis` and
:mod:`tokenize`) took a quarter of its start-up; :mod:`collections` is loaded anyway.
A record is a named tuple whose ``__new__`` checks its values; :class:`Replaceable`
gives it ``replace`` (also as ``_replace`` and ``__replace__``, so ``copy.replace``
works), which goes through that check where the named tuple's own ``_replace`` would not.
"""

from __future__ import annotations


class Replaceable:
    """``replace(**changes)``: a copy with some fields changed, checked as a new one.

    >>> from collections import namedtuple
    >>> class Pair(Replaceable, namedtuple("Pair", "a b")):
    ...     __slots__ = ()
    >>> Pair(1, 2).replace(b=3)
    Pair(a=1, b=3)
    """

    __slots__ = ()

    def replace(self, **changes: object) -> Replaceable:
        return type(self)(**{**self._asdict(), **changes})  # type: ignore[attr-defined]

    _replace = __replace__ = replace
