"""Text as ONNX ops: documents -> token counts over a fitted vocabulary.

The tokenizer's rule is written as ONNX string operators, so that onnxruntime gives
the tokens nbayes gives: ``StringNormalizer`` case-folds the documents (before
tokenizing, as nbayes and scikit-learn do), then

- word tokens (``kind="words"``, scikit-learn's default patterns): onnxruntime's
  ``Tokenizer`` (``com.microsoft``) cuts maximal runs of word characters
  (``[\\p{L}\\p{N}_]``, Python's ``\\w``) of at least ``min_len`` code points and
  ``TfIdfVectorizer`` counts the vocabulary's word n-grams (skl2onnx's scheme for
  scikit-learn's CountVectorizer; opset 13);
- rich tokens (nbayes's default: URLs, e-mail addresses, host names, numbers kept
  whole), and the rules the n-gram counter cannot apply (``max_len``,
  ``numbers=False``, stop words dropped before forming n-grams): the token stream of
  :mod:`nbayes.export._tokens` (opset 20).

Refused (:class:`NotSupportedError`, naming the setting): character analyzers,
callables, accent stripping and token patterns other than scikit-learn's defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
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
    token kind ("words": the RE2 expression ``token_expression``; "rich":
    :mod:`nbayes.export._tokens`), the token rules applied before n-grams (length
    bounds in code points, whether number tokens stay, stop words), n-gram lengths,
    the terms in column order (n-grams joined by a space) and whether counts are
    clipped to 1."""

    lowercase: bool
    token_expression: str
    ngram_range: tuple[int, int]
    terms: Sequence[str]
    binary: bool = False
    kind: str = "words"
    min_len: int = 1
    max_len: int | None = None
    numbers: bool = True
    stop_words: frozenset[str] = frozenset()

    @property
    def needs_stream(self) -> bool:
        """Whether the tokens go through the token stream of opset 20
        (:mod:`nbayes.export._tokens`): rich tokens, an upper length bound, number
        tokens dropped, or stop words dropped before forming n-grams; else one
        Tokenizer and TfIdfVectorizer (opset 13)."""
        return (self.kind == "rich" or self.max_len is not None or not self.numbers
                or (bool(self.stop_words) and self.ngram_range[1] > 1))  # fmt: skip


def words_expression(min_len: int) -> str:
    return f"{_WORD}{{{int(min_len)},}}"


def tokenizer_analyzer(tokenizer: Any, terms: Sequence[str], binary: bool = False,
                       ngram_range: tuple[int, int] | None = None,
                       extra_stop_words: Sequence[str] = ()) -> Analyzer:  # fmt: skip
    """The :class:`Analyzer` of an :class:`nbayes.text.Tokenizer` and the terms it
    fitted (``extra_stop_words``: a vectorizer's own, dropped too)."""
    from nbayes.tokens.tokenize import stop_word_set

    ngrams = tuple(ngram_range or tokenizer.ngram_range)
    stop = frozenset(stop_word_set(tokenizer.stop_words)) | frozenset(extra_stop_words)
    return Analyzer(bool(tokenizer.lowercase), words_expression(tokenizer.min_len), ngrams,
                    list(terms), binary, kind=tokenizer.kind, min_len=int(tokenizer.min_len),
                    max_len=None if tokenizer.max_len is None else int(tokenizer.max_len),
                    numbers=bool(tokenizer.numbers), stop_words=stop)  # fmt: skip


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
        min_len = _TOKEN_PATTERNS[vectorizer.token_pattern]
        stop = (frozenset(vectorizer.get_stop_words() or ()) if vectorizer.stop_words is not None
                else frozenset())  # fmt: skip
        return Analyzer(bool(vectorizer.lowercase), words_expression(min_len), ngrams, terms,
                        bool(vectorizer.binary), min_len=min_len, stop_words=stop)  # fmt: skip
    from nbayes.tokens.tokenize import Tokenizer

    if not isinstance(tokenizer, Tokenizer):
        raise NotSupportedError(f"{name} with a callable tokenizer cannot be exported to ONNX.")
    if tokenizer.ngram_range != (1, 1):
        ngrams = tuple(tokenizer.ngram_range)
    from nbayes.tokens.tokenize import stop_word_set

    extra = stop_word_set(vectorizer.stop_words) if vectorizer.stop_words is not None else ()
    analyzer = tokenizer_analyzer(tokenizer, terms, bool(vectorizer.binary), ngrams, extra)
    lowercase = bool(vectorizer.lowercase) or tokenizer.lowercase
    return replace(analyzer, lowercase=lowercase)


#: Pads the token rows of short documents; never a token (not a word character).
_PAD = "#"


def write_counts(graph: Any, documents: str, analyzer: Analyzer, lowered: bool = False) -> str:
    """The counts (n, len(terms)) of the vocabulary's n-grams in ``documents``, a
    string tensor of shape (n,) (or (n, m): the m strings of a row are one
    document's parts, in order): floats of the graph's dtype. ``lowered``: the
    documents are case-folded already."""
    text = documents
    if analyzer.lowercase and not lowered:
        text = graph.op("StringNormalizer", text, case_change_action="LOWER", locale="C.UTF-8")
    if analyzer.needs_stream:
        return _stream_counts(graph, text, analyzer)
    if not analyzer.terms:
        raise NotSupportedError("a text vectorizer with an empty vocabulary cannot be exported.")
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


def _stream_counts(graph: Any, text: str, analyzer: Analyzer) -> str:
    """:func:`write_counts` through the token stream (:mod:`nbayes.export._tokens`)."""
    from nbayes.export import _tokens

    if not analyzer.terms:
        raise NotSupportedError("a text vectorizer with an empty vocabulary cannot be exported.")
    what = "rich tokens" if analyzer.kind == "rich" else "these token rules"
    graph.require_opset(20, f"A text model of {what}")
    n_rows = graph.op("Shape", text, start=0, end=1)
    if analyzer.kind == "rich":
        tokens, rows = _tokens.rich_tokens(graph, text)
    else:
        tokens, rows = _tokens.word_tokens(graph, text)
    tokens, rows = _tokens.drop_tokens(graph, tokens, rows, min_len=analyzer.min_len,
                                       max_len=analyzer.max_len, numbers=analyzer.numbers,
                                       stop_words=sorted(analyzer.stop_words))  # fmt: skip
    counts = _tokens.count_terms(graph, tokens, rows, n_rows, list(analyzer.terms),
                                 analyzer.ngram_range)  # fmt: skip
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
