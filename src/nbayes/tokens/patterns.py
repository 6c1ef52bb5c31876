"""Regular expressions from strangers: a token pattern read from a model file runs on a
linear-time engine (RE2, from the optional ``google-re2`` package), never on Python's
backtracking ``re``, where ``(a|aa)+$`` takes exponential time on ``"a" * 40 + "b"``.

RE2 matches in time linear in the text whatever the pattern, and refuses what cannot
be matched so (backreferences, lookaround). A pattern is run on it only where RE2 gives
it Python's meaning: a leading ``(?u)`` (a no-op for Python 3 strings) is dropped, and
a pattern using the shorthand classes and boundaries ``\\w \\W \\b \\B \\d \\D \\s \\S``
(Unicode-aware in Python, ASCII-only in RE2) is refused, as are RE2's other refusals.
The patterns nbayes ships (:data:`SAFE_TOKEN_PATTERNS`, scikit-learn's default among
them) are known to be linear and always run as before.

Example
-------
>>> compiled = linear_time_pattern(r"(a|aa)+$")  # doctest: +SKIP
>>> compiled.findall("a" * 40 + "b")  # doctest: +SKIP
[]
"""

from __future__ import annotations

import re
import warnings
from typing import Any

__all__ = [
    "SAFE_TOKEN_PATTERNS",
    "PatternError",
    "linear_time_pattern",
    "run_patterns_in_linear_time",
]

#: Token patterns nbayes ships (scikit-learn's default and its one-character variant):
#: runs of word characters between boundaries, matched in linear time by any engine.
SAFE_TOKEN_PATTERNS = frozenset({r"(?u)\b\w\w+\b", r"(?u)\b\w+\b"})

#: Escapes whose meaning differs between Python (Unicode) and RE2 (ASCII).
_UNICODE_SHORTHANDS = re.compile(r"(?<!\\)(?:\\\\)*\\[wWbBdDsS]")


class PatternError(ValueError):
    """A pattern that cannot run on the linear-time engine."""


def linear_time_pattern(pattern: str) -> Any:
    """``pattern`` compiled by RE2 (``google-re2``), with the meaning Python gives it;
    :class:`PatternError` saying why not (RE2 missing, a construct RE2 refuses, or one
    whose meaning differs between the two engines)."""
    if not isinstance(pattern, str):
        raise PatternError(f"a token pattern must be a string, not {type(pattern).__name__}")
    body = pattern.removeprefix("(?u)")
    if _UNICODE_SHORTHANDS.search(body):
        raise PatternError(
            f"token_pattern {pattern!r:.80} uses \\w, \\b, \\d or \\s, which mean other "
            "characters on the linear-time engine (RE2: ASCII only) than on Python's re"
        )
    try:  # Python's meaning must exist: RE2 alone reads \pL, \C, \Q...\E, \x{41}
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "possible nested set": [[:alpha:]]
            re.compile(body)
    except (re.error, Warning) as error:
        raise PatternError(
            f"token_pattern {pattern!r:.80} is not a pattern Python's re reads alike ({error})"
        ) from None
    try:
        import re2
    except ImportError:
        raise PatternError(
            f"token_pattern {pattern!r:.80} needs the linear-time engine, which is not "
            "installed (pip install 'nbayes[re2]', the google-re2 package)"
        ) from None
    try:
        options = re2.Options()
        options.log_errors = False  # the refusal below says why, in one line
        compiled = re2.compile(body, options)
    except Exception as error:  # re2.error, and whatever its C++ side raises
        raise PatternError(
            f"token_pattern {pattern!r:.80} cannot run in linear time (RE2: {error})"
        ) from None
    if compiled.groups > 1:
        raise PatternError(f"token_pattern {pattern!r:.80} has more than one capturing group")
    return compiled


class _LinearTimeTokenizer:
    """What ``build_tokenizer`` returns for a pattern on RE2: ``document -> tokens``
    (``findall``, as scikit-learn's tokenizer), built again after unpickling."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def __call__(self) -> Any:
        return linear_time_pattern(self.pattern).findall


def run_patterns_in_linear_time(vectorizer: Any) -> None:
    """Make ``vectorizer`` (scikit-learn's or nbayes' word vectorizers) tokenize with its
    ``token_pattern`` on RE2; PatternError where that pattern cannot run there. A
    shipped pattern (:data:`SAFE_TOKEN_PATTERNS`) or no pattern leaves it as it is."""
    pattern = getattr(vectorizer, "token_pattern", None)
    if pattern is None or pattern in SAFE_TOKEN_PATTERNS:
        return
    linear_time_pattern(pattern)  # refused now, at loading, not at the first document
    vectorizer.build_tokenizer = _LinearTimeTokenizer(pattern)
