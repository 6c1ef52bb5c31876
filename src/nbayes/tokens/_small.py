"""Small inputs of :class:`nbayes.text.CountVectorizer` in Python, without the compiled
pass: for a few documents, importing numba and loading the compiled pass costs a
fresh process far more (~0.3 s, and ~0.1 s more at exit) than the whole job.

Only the word tokens of scikit-learn's two default patterns are covered, on ``str``
documents; there the compiled pass is defined to give exactly Python's tokens (see
:mod:`nbayes.tokens.tokenize`): ``str.lower`` (its lower-case table, and Python's own
lower-casing where the case depends on context), then the maximal runs of ``\\w`` of
at least ``min_len`` code points (``re.findall`` of ``(?u)\\b\\w\\w+\\b`` or
``(?u)\\b\\w+\\b``), stop words dropped, then word n-grams in scikit-learn's order.
Each row of the count matrix then holds its features in the compiled pass's order:
that of their first appearance in the document's features (unigrams, then bigrams,
...).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from nbayes.tokens._rules import Rules

#: The most characters (all documents together) the Python path takes: there it
#: costs ~1 ms more than the compiled pass would (~50 ns a character more, measured
#: on 1,000-50,000 characters of short documents, fit or transform), where loading
#: numba and the compiled pass costs a fresh process ~0.3 s, and its exit ~0.1 s.
SMALL_CHARS = 20_000

# scikit-learn's patterns less their \b, the same matches: findall tries each
# position from the end of the last match (before a non-word character), so a match
# starts at a run's first character and, greedy, takes the whole run.
_PATTERNS = {1: re.compile(r"\w+"), 2: re.compile(r"\w\w+")}

#: CSR rows of features: indptr (n_docs + 1,), feature ids and counts, int64.
Rows = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


def texts(docs: Sequence, rules: Rules) -> list[str] | None:
    """The documents as the tokenizer reads them (lower-cased if ``rules.lowercase``)
    where the Python path covers them: every document a ``str`` (NumPy's too), at
    most :data:`SMALL_CHARS` characters in all, plain word tokens (no rich tokens, no
    upper bound on length, numbers kept) of at least 1 or 2 code points. Else None."""
    if (
        rules.rich
        or rules.max_len is not None
        or not rules.numbers
        or rules.min_len not in _PATTERNS
        or not all(isinstance(doc, str) for doc in docs)
        or sum(map(len, docs)) > SMALL_CHARS
    ):
        return None
    return [doc.lower() for doc in docs] if rules.lowercase else list(docs)


def features(doc: str, rules: Rules, stop_words: frozenset[str]) -> list[str]:
    """The features of one document (tokens, then n-grams joined by single spaces, for
    each n of ``rules.ngram_range`` in turn), in order: scikit-learn's analyzer."""
    tokens = _PATTERNS[rules.min_len].findall(doc)
    if stop_words:
        tokens = [token for token in tokens if token not in stop_words]
    low, high = rules.ngram_range
    if high == 1:
        return tokens
    out = list(tokens) if low == 1 else []
    for n in range(max(low, 2), min(high, len(tokens)) + 1):
        out += [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return out


def tallies(docs: list[str], rules: Rules, stop_words: frozenset[str]) -> list[Counter[str]]:
    """Each document's features and their counts, in order of first appearance."""
    return [Counter(features(doc, rules, stop_words)) for doc in docs]


def rows(tallies: list[Counter[str]], index: dict[str, int]) -> Rows:
    """CSR rows of the documents' features, as ids in ``index`` (-1 for a feature it
    does not hold), each document's in order of first appearance, and their counts."""
    indptr = np.zeros(len(tallies) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, tallies), np.int64, len(tallies)), out=indptr[1:])
    size = int(indptr[-1])
    features = itertools.chain.from_iterable(tallies)
    ids = np.fromiter(map(index.get, features, itertools.repeat(-1)), np.int64, size)
    counts = itertools.chain.from_iterable(tally.values() for tally in tallies)
    return indptr, ids, np.fromiter(counts, np.int64, size)


def frequencies(ids: NDArray[np.int64], counts: NDArray[np.int64], n_features: int):
    """Document and corpus frequency of each feature id, shapes (n_features,), int64."""
    df = np.bincount(ids, minlength=n_features).astype(np.int64)
    tf = np.bincount(ids, counts, minlength=n_features).astype(np.int64)
    return df, tf
