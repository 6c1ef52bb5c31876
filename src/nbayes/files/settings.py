"""Settings read from a model file select data, never behaviour.

Every object in a model file is built through its constructor and checked as the
constructor checks it (scikit-learn's parameter constraints, the event models'
``setting`` metadata, :func:`nbayes.tokens._ngram_range.check_ngram_range`). On top of
that, a file may not use a setting to make nbayes run code, read other files, or run
an unbounded computation; :func:`check_file_settings` holds these allow-lists, applied
to the parameters of every object a file holds:

- ``input`` (the text vectorizers): ``"content"`` only. ``"filename"`` or ``"file"``
  would make ``transform(["/etc/passwd"])`` open and read that path.
- no Python type or function anywhere among the parameters but as a ``dtype``: an
  ``analyzer``, ``preprocessor`` or ``tokenizer`` is a name (``"word"``) or
  nbayes' :class:`~nbayes.text.Tokenizer` (settings only).
- ``encoding``: a text codec Python knows; ``decode_error``: ``"strict"``,
  ``"ignore"`` or ``"replace"``; ``ngram_range``: at most
  :data:`~nbayes.tokens._ngram_range.MAX_NGRAM`.
- ``token_pattern`` (and any other regular expression): a pattern nbayes ships, or
  run on the linear-time engine (:mod:`nbayes.tokens.patterns`), or refused, unless the
  caller trusts the file's patterns (``nbayes.load(path, trust_patterns=True)``),
  which lets them run on Python's ``re``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from nbayes.tokens._ngram_range import check_ngram_range

__all__ = ["check_file_settings", "use_linear_time_patterns"]

#: What a text vectorizer read from a file may read: the documents it is given.
FILE_INPUT = "content"
#: How undecodable bytes may be handled.
DECODE_ERRORS = frozenset({"strict", "ignore", "replace"})
#: The only parameter that may hold a type (``dtype=np.float64``).
TYPE_SETTINGS = frozenset({"dtype"})


def check_file_settings(params: dict[str, Any]) -> None:
    """ValueError naming the first parameter of ``params`` (one object's, from a model
    file) that selects behaviour rather than data (see the module docstring); the
    token pattern is checked by :func:`use_linear_time_patterns`."""
    for name, value in params.items():
        for where, item in _leaves(name, value):
            if isinstance(item, type) and name not in TYPE_SETTINGS:
                raise ValueError(
                    f"{where} is a Python type ({item.__name__}): a model file holds "
                    "settings, never code"
                )
    if "input" in params and params["input"] != FILE_INPUT:
        raise ValueError(
            f"input={params['input']!r:.40}: a text vectorizer from a model file reads "
            f"the documents it is given (input={FILE_INPUT!r}), never files they name"
        )
    encoding = params.get("encoding")
    if encoding is not None:
        _check_encoding(encoding)
    if "decode_error" in params and params["decode_error"] not in DECODE_ERRORS:
        raise ValueError(
            f"decode_error={params['decode_error']!r:.40} is not one of "
            f"{', '.join(sorted(DECODE_ERRORS))}"
        )
    if "ngram_range" in params:
        check_ngram_range(params["ngram_range"])
    if (
        "token_pattern" in params
        and params["token_pattern"] is None
        and params.get("tokenizer") is None
        and params.get("analyzer", "word") == "word"
    ):
        raise ValueError(
            "token_pattern=None and tokenizer=None: a word vectorizer needs one of them"
        )


def _leaves(name: str, value: Any) -> Iterator[tuple[str, Any]]:
    """``value`` and, inside lists, tuples and dicts, every item, with where it sits."""
    yield name, value
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _leaves(f"{name}[{i}]", item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(f"{name}[{key!r:.40}]", item)


def _check_encoding(encoding: Any) -> None:
    """ValueError unless ``encoding`` names a character set (not ``rot13`` or ``zlib``,
    which code bytes to bytes, nor ``punycode``: :func:`nbayes.core.charsets.is_charset`)."""
    from nbayes.core.charsets import is_charset

    if not is_charset(encoding):
        raise ValueError(f"encoding={encoding!r:.40} is not a text encoding Python knows")


def use_linear_time_patterns(model: Any, *, trust_patterns: bool) -> None:
    """Unless ``trust_patterns``, make ``model`` (one object from a file) match its
    ``token_pattern`` on the linear-time engine; ValueError (naming the fix) where the
    pattern cannot run there."""
    if trust_patterns or getattr(model, "token_pattern", None) is None:
        return
    from nbayes.tokens.patterns import PatternError, run_patterns_in_linear_time

    try:
        run_patterns_in_linear_time(model)
    except PatternError as error:
        raise ValueError(
            f"{error}; a pattern from a model file may take exponential time on Python's "
            "re, so it is refused: load with trust_patterns=True if you trust the file"
        ) from None
