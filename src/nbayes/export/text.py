"""Text as ONNX ops: documents -> token counts over a fitted vocabulary.

The tokenizer's rule is written as ONNX string operators, so that onnxruntime gives
the tokens nbayes gives: ``StringNormalizer`` case-folds the documents (before
tokenizing, as nbayes and scikit-learn do), onnxruntime's ``Tokenizer``
(``com.microsoft``) cuts them with an RE2 expression of the token rule, and
``TfIdfVectorizer`` counts the vocabulary's word n-grams (skl2onnx's scheme for
scikit-learn's CountVectorizer). Expressed: word tokens, maximal runs of word
characters (``[\\p{L}\\p{N}_]``, Python's ``\\w``) of at least ``min_len`` code points,
n-grams, stop words with unigrams (they are not in the vocabulary), binary counts.
Refused (:class:`NotSupportedError`, naming the setting): the "rich" token kind (its
URL and host rules need look-ahead, which RE2 lacks), ``max_len``, ``numbers=False``,
stop words removed before forming n-grams, character analyzers, callables, accent
stripping and other token patterns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nbayes.errors import NotSupportedError

#: scikit-learn's default token patterns and the minimum token length they mean.
_TOKEN_PATTERNS = {r"(?u)\b\w\w+\b": 2, r"(?u)\b\w+\b": 1}
#: Python's ``\w`` in RE2.
_WORD = r"[\p{L}\p{N}_]"


@dataclass(frozen=True)
class Analyzer:
    """What turns documents into the counts of a vocabulary: case folding, the
    token expression (RE2), n-gram lengths, the terms in column order (n-grams
    joined by a space) and whether counts are clipped to 1."""

    lowercase: bool
    token_expression: str
    ngram_range: tuple[int, int]
    terms: Sequence[str]
    binary: bool = False


def words_expression(min_len: int) -> str:
    return f"{_WORD}{{{int(min_len)},}}"


def tokenizer_analyzer(tokenizer: Any, terms: Sequence[str], binary: bool = False,
                       ngram_range: tuple[int, int] | None = None,
                       extra_stop_words: bool = False) -> Analyzer:  # fmt: skip
    """The :class:`Analyzer` of an :class:`nbayes.text.Tokenizer` and the terms it
    fitted; NotSupportedError for a rule ONNX cannot express."""
    from nbayes.tokens.tokenize import stop_word_set

    where = "the tokenizer"
    if tokenizer.kind != "words":
        raise NotSupportedError(
            f"{where}'s kind {tokenizer.kind!r} cannot be exported to ONNX: its URL, e-mail "
            "and host rules need look-ahead, which onnxruntime's RE2 tokenizer lacks; use "
            "Tokenizer(kind='words')."
        )
    if tokenizer.max_len is not None:
        raise NotSupportedError(f"{where}'s max_len cannot be exported to ONNX (no string "
                                "length operator); leave it None.")  # fmt: skip
    if not tokenizer.numbers:
        raise NotSupportedError(f"{where}'s numbers=False cannot be exported to ONNX; "
                                "leave it True.")  # fmt: skip
    ngrams = tuple(ngram_range or tokenizer.ngram_range)
    if (stop_word_set(tokenizer.stop_words) or extra_stop_words) and ngrams[1] > 1:
        raise NotSupportedError(
            f"{where} drops stop words before forming n-grams, which ONNX's n-gram counter "
            "cannot do; use unigrams or no stop words."
        )
    return Analyzer(bool(tokenizer.lowercase), words_expression(tokenizer.min_len), ngrams,
                    list(terms), binary)  # fmt: skip


def vectorizer_analyzer(vectorizer: Any) -> Analyzer:
    """The :class:`Analyzer` of a fitted CountVectorizer (nbayes's or scikit-learn's:
    the same parameters); NotSupportedError for options ONNX cannot express."""
    name = type(vectorizer).__name__
    if vectorizer.analyzer != "word" or vectorizer.preprocessor is not None:
        raise NotSupportedError(f"{name}(analyzer={vectorizer.analyzer!r}) with a preprocessor "
                                "or a character analyzer cannot be exported to ONNX.")  # fmt: skip
    if vectorizer.strip_accents:
        raise NotSupportedError(f"{name}(strip_accents=...) cannot be exported to ONNX.")
    terms = [t for t, _ in sorted(vectorizer.vocabulary_.items(), key=lambda item: item[1])]
    tokenizer = vectorizer.tokenizer
    ngrams = tuple(int(n) for n in vectorizer.ngram_range)
    if tokenizer is None:
        if vectorizer.token_pattern not in _TOKEN_PATTERNS:
            raise NotSupportedError(f"{name}(token_pattern={vectorizer.token_pattern!r}) "
                                    "cannot be exported to ONNX: only scikit-learn's default "
                                    "word patterns are.")  # fmt: skip
        if vectorizer.stop_words is not None and ngrams[1] > 1:
            raise NotSupportedError(f"{name} drops stop words before forming n-grams, which "
                                    "ONNX's n-gram counter cannot do.")  # fmt: skip
        expression = words_expression(_TOKEN_PATTERNS[vectorizer.token_pattern])
        return Analyzer(bool(vectorizer.lowercase), expression, ngrams, terms,
                        bool(vectorizer.binary))  # fmt: skip
    from nbayes.tokens.tokenize import Tokenizer

    if not isinstance(tokenizer, Tokenizer):
        raise NotSupportedError(f"{name} with a callable tokenizer cannot be exported to ONNX.")
    if tokenizer.ngram_range != (1, 1):
        ngrams = tuple(tokenizer.ngram_range)
    analyzer = tokenizer_analyzer(tokenizer, terms, bool(vectorizer.binary), ngrams,
                                  vectorizer.stop_words is not None)  # fmt: skip
    lowercase = bool(vectorizer.lowercase) or tokenizer.lowercase
    return Analyzer(lowercase, analyzer.token_expression, ngrams, terms, analyzer.binary)


#: Pads the token rows of short documents; never a token (not a word character).
_PAD = "#"


def write_counts(graph: Any, documents: str, analyzer: Analyzer) -> str:
    """The counts (n, len(terms)) of the vocabulary's n-grams in ``documents``, a
    string tensor of shape (n,): floats of the graph's dtype."""
    text = documents
    if analyzer.lowercase:
        text = graph.op("StringNormalizer", text, case_change_action="LOWER", locale="C.UTF-8")
    tokens = graph.op("Tokenizer", text, domain="com.microsoft", mark=0, mincharnum=1,
                      pad_value=_PAD, tokenexp=analyzer.token_expression)  # fmt: skip
    low, high = analyzer.ngram_range
    by_length: dict[int, list[tuple[list[str], int]]] = {n: [] for n in range(1, high + 1)}
    for column, term in enumerate(analyzer.terms):
        words = term.split(" ")
        if low <= len(words) <= high:
            by_length[len(words)].append((words, column))
    pool: list[str] = []
    starts: list[int] = []
    indexes: list[int] = []
    for n in range(1, high + 1):
        starts.append(len(pool))
        for words, column in by_length[n]:
            pool.extend(words)
            indexes.append(column)
    if not pool:  # a vocabulary of nothing: no counts
        raise NotSupportedError("a text vectorizer with an empty vocabulary cannot be exported.")
    counts = graph.op(
        "TfIdfVectorizer", tokens, mode="TF", min_gram_length=low, max_gram_length=high,
        max_skip_count=0, ngram_counts=starts, ngram_indexes=indexes, pool_strings=pool,
    )  # fmt: skip
    width = len(analyzer.terms)
    if max(indexes) + 1 < width:  # terms no n-gram length covers: zero columns
        padding = graph.const(np.array([[0, 0], [0, width - max(indexes) - 1]],
                                       dtype=np.int64).T.ravel())  # fmt: skip
        counts = graph.op("Pad", counts, padding)
    counts = graph.op("Cast", counts, to=graph.float_type)
    if analyzer.binary:
        counts = graph.op("Min", counts, graph.const(1.0))
    return counts


def document_counts(graph: Any, column: str, tokenizer: Any, terms: Sequence[str]) -> str:
    """A text column (n, 1) of a table as counts (n, len(terms)) of ``terms`` under
    :class:`nbayes.text.Tokenizer` ``tokenizer``; the graph's missing strings count as
    empty documents."""
    documents = graph.op("Reshape", column, graph.const(np.array([-1], dtype=np.int64)))
    markers = [m for m in graph.missing_strings if m]
    if markers:  # a missing marker ("NA") is no document, not the word "na"
        hit = graph.label_encoder(documents, markers, [1] * len(markers), 0)
        empty = graph.const(np.array([""], dtype=object))
        documents = graph.where(graph.op("Cast", hit, to=graph.bool_type), empty, documents)
    return write_counts(graph, documents, tokenizer_analyzer(tokenizer, terms))
