"""Text event model: a column of free text as a bag of words, one multinomial over the
column's tokens per class.

``log P(d | c) = sum_t n_t(d) log theta_ct`` with the Lidstone estimate
``theta_ct = (N_ct + alpha) / (N_c. + V alpha)``, where ``n_t(d)`` is how often token
``t`` occurs in document ``d``, ``N_ct`` the weighted count of token ``t`` in the
documents of class ``c`` and ``V`` the size of the column's vocabulary (every token seen
in training). As in the multinomial model, the multinomial coefficient does not depend
on the class and is left out. A token never seen in training leaves the likelihood
(scikit-learn's ``CountVectorizer.transform`` drops it alike); a missing document (NaN,
None) adds nothing, and its term is 0.

Tokens come from :class:`nbayes.text.Tokenizer` (compiled), whose settings are this
model's (``kind``, ``lowercase``, ``min_len``, ``max_len``, ``numbers``, ``stop_words``,
``ngram_range``: the kind options of a ``"text"`` column of :class:`nbayes.NaiveBayes`).

Statistics: per column, its vocabulary (the tokens in the order they were first
added) and the token counts per class, in one flat array (column ``j``'s tokens from
``offset_j``, as in the categorical model), and the weighted number of documents per
class and column (how long generated documents are). Statistics with different
vocabularies add by aligning them, the left operand's tokens first: ``fit`` ==
``partial_fit`` == ``merge``, up to the numbering of the tokens.

Input: each column factorized, ``[(documents, codes), ...]`` with code -1 where the
document is missing (how :class:`nbayes.NaiveBayes` reads a column of values): each
distinct document is tokenized once. :meth:`Text.encode` turns that into token counts
(a CSR matrix over the fitted vocabularies) once for all the row blocks of a
prediction.

Example
-------
>>> import numpy as np
>>> from nbayes.core.validation import hard_class_weights
>>> model = Text(alpha=1.0, stop_words=None)
>>> docs = ["cheap pills now", "cheap cheap offer", "see you at lunch", "lunch now?"]
>>> X = [(docs, np.arange(4))]
>>> W = hard_class_weights(np.array([1, 1, 0, 0]), 2, None)
>>> params = model.estimate(model.add_into(model.zero(2, len(X)), X, W))
>>> model.value_grid(params, None, 0, None)[:3]
['at', 'cheap', 'lunch']
>>> bool(np.argmax(model.log_likelihood(params, [(["cheap offer"], np.array([0]))])) == 1)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils._param_validation import Interval, StrOptions

from nbayes.core.validation import ClassWeights
from nbayes.errors import DomainError, StatisticsError
from nbayes.events._contract import EventModel, Reads, lidstone_alpha, setting
from nbayes.events._stats import CLASS, FEATURE, Statistics, stat
from nbayes.events.counts import LinearScorer, dirichlet_log_density, dot_with_infinities
from nbayes.tokens._ngram_range import NGRAM_RANGE

__all__ = ["Text", "TextParams", "TextStats"]

#: Factorized text columns: ``(documents, codes)`` each, code -1 where missing.
Documents = list[tuple[list, NDArray[np.intp]]]


def _offsets(sizes) -> NDArray[np.intp]:
    return np.concatenate(([0], np.cumsum(sizes, dtype=np.intp)))[:-1].astype(np.intp)


@dataclass(frozen=True)
class TextStats(Statistics):
    """Token counts of text columns.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
    documents : ndarray of shape (n_classes, n_features)
        Weighted number of (non-missing) documents of each class in each column.
    vocabulary : tuple of n_features tuples of str
        Each column's tokens; ``vocabulary[j][t]`` is column ``j``'s token ``t``.
    counts : ndarray of shape (n_classes, sum_j V_j)
        ``N_ct`` of column ``j``'s token ``t`` at ``offset_j + t``.
    """

    class_count: NDArray[np.float64] = stat(CLASS, nonnegative=True)
    documents: NDArray[np.float64] = stat(CLASS, FEATURE, nonnegative=True)
    vocabulary: tuple[tuple[str, ...], ...] = stat()
    counts: NDArray[np.float64] = stat(CLASS, None, nonnegative=True)

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> TextStats:
        return cls(
            np.zeros(n_classes),
            np.zeros((n_classes, n_features)),
            ((),) * n_features,
            np.zeros((n_classes, 0)),
        )

    @property
    def sizes(self) -> NDArray[np.intp]:
        """``V_j``, each column's number of tokens: (n_features,)."""
        return np.array([len(v) for v in self.vocabulary], dtype=np.intp)

    def column(self, j: int) -> NDArray[np.float64]:
        """Column ``j``'s token counts, (n_classes, V_j)."""
        start = int(_offsets(self.sizes)[j])
        return self.counts[:, start : start + len(self.vocabulary[j])]

    def with_tokens(
        self, vocabulary: tuple[tuple[str, ...], ...], places: list[NDArray[np.intp]]
    ) -> NDArray[np.float64]:
        """``counts`` laid out for the larger ``vocabulary`` (each column's tokens first,
        then new ones), this column's token ``t`` moved to ``places[j][t]``."""
        sizes = np.array([len(v) for v in vocabulary], dtype=np.intp)
        out = np.zeros((self.counts.shape[0], int(sizes.sum())))
        old = _offsets(self.sizes)
        for j, (start, place) in enumerate(zip(_offsets(sizes), places, strict=True)):
            width = len(self.vocabulary[j])
            out[:, start + place] = self.counts[:, old[j] : old[j] + width]
        return out

    def __add__(self, other: TextStats) -> TextStats:
        vocabulary, mine, theirs = [], [], []
        for ours, their in zip(self.vocabulary, other.vocabulary, strict=True):
            tokens, places = _merged(ours, their)
            vocabulary.append(tokens)
            mine.append(np.arange(len(ours), dtype=np.intp))
            theirs.append(places)
        vocabulary = tuple(vocabulary)
        return TextStats(
            self.class_count + other.class_count,
            self.documents + other.documents,
            vocabulary,
            self.with_tokens(vocabulary, mine) + other.with_tokens(vocabulary, theirs),
        )

    def _validate_more(self, n_classes: int, n_features: int) -> None:
        vocabulary = self.vocabulary
        if not isinstance(vocabulary, tuple) or len(vocabulary) != n_features:
            raise StatisticsError(f"TextStats.vocabulary must hold {n_features} tuples.")
        for tokens in vocabulary:
            if not isinstance(tokens, tuple) or not all(isinstance(t, str) for t in tokens):
                raise StatisticsError("TextStats.vocabulary holds something other than tokens.")
            if len(set(tokens)) != len(tokens):
                raise StatisticsError("TextStats.vocabulary repeats a token.")
        if self.counts.shape[1] != int(self.sizes.sum()):
            raise StatisticsError(
                f"TextStats.counts has {self.counts.shape[1]} columns, but the vocabularies "
                f"hold {int(self.sizes.sum())} tokens."
            )


def _merged(tokens: tuple[str, ...], more) -> tuple[tuple[str, ...], NDArray[np.intp]]:
    """``tokens`` followed by the tokens of ``more`` not among them, and the place of
    each of ``more`` in the result."""
    index = {token: t for t, token in enumerate(tokens)}
    places = np.fromiter((index.setdefault(t, len(index)) for t in more), np.intp, len(more))
    return tuple(index), places


@dataclass(frozen=True)
class TextParams:
    """``log theta_ct`` in the flat layout, (n_classes, sum_j V_j); each column's
    vocabulary and its fitted vectorizer (documents -> token counts)."""

    log_prob: NDArray[np.float64]
    vocabulary: tuple[tuple[str, ...], ...]
    vectorizers: tuple

    @cached_property
    def offsets(self) -> NDArray[np.intp]:
        return _offsets([len(v) for v in self.vocabulary])

    @cached_property
    def token_index(self) -> tuple[dict[str, int], ...]:
        return tuple({token: t for t, token in enumerate(v)} for v in self.vocabulary)

    @cached_property
    def scorer(self) -> LinearScorer:
        """``X @ log_prob.T``, prepared once for prediction in row blocks."""
        return LinearScorer.of(self.log_prob)

    def column(self, j: int) -> NDArray[np.float64]:
        """Column ``j``'s ``log theta``, (n_classes, V_j)."""
        start = int(self.offsets[j])
        return self.log_prob[:, start : start + len(self.vocabulary[j])]


@dataclass(frozen=True)
class Text(EventModel[TextStats, TextParams]):
    """Free text as a bag of words: a multinomial over each column's tokens."""

    name: ClassVar[str] = "text"
    reads: ClassVar[Reads] = "values"

    alpha: Any = lidstone_alpha()
    kind: str = setting("rich", StrOptions({"rich", "words"}))
    lowercase: bool = setting(True, "boolean")
    min_len: int = setting(2, Interval(Integral, 1, None, closed="left"))
    max_len: int | None = setting(None, Interval(Integral, 1, None, closed="left"), None)
    numbers: bool = setting(True, "boolean")
    stop_words: Any = setting("english", StrOptions({"english"}), list, tuple, None)
    ngram_range: tuple = setting((1, 1), NGRAM_RANGE)

    # ------------------------------------------------------------ tokens
    def tokenizer(self):
        """The :class:`nbayes.text.Tokenizer` of these settings."""
        from nbayes.tokens.tokenize import Tokenizer

        stop_words = self.stop_words
        return Tokenizer(
            kind=self.kind,
            lowercase=bool(self.lowercase),
            min_len=int(self.min_len),
            max_len=None if self.max_len is None else int(self.max_len),
            numbers=bool(self.numbers),
            stop_words=stop_words if stop_words is None or isinstance(stop_words, str)
            else tuple(stop_words),
            ngram_range=tuple(self.ngram_range),
        )

    def vectorizer(self, vocabulary=None):
        """A compiled :class:`nbayes.text.CountVectorizer` with this tokenizer: fitted on
        ``vocabulary`` (token counts over it, others dropped) if given."""
        from nbayes.tokens.vectorizers import CountVectorizer

        vectorizer = CountVectorizer(
            tokenizer=self.tokenizer(),
            lowercase=False,  # the tokenizer's own setting decides
            token_pattern=None,
            vocabulary=None if vocabulary is None else list(vocabulary),
            dtype=np.float64,
        )
        if vocabulary is not None and vocabulary:
            vectorizer.fit([])
        return vectorizer

    def _count(self, documents: list) -> tuple[sp.csr_matrix, list[str]]:
        """The token counts of ``documents`` (n_documents, T) and their T tokens."""
        if documents:
            vectorizer = self.vectorizer()
            try:
                counts = vectorizer.fit_transform(documents)
            except ValueError as error:  # only stop words, or no token at all
                if "empty vocabulary" not in str(error):
                    raise
            else:
                return sp.csr_matrix(counts), list(vectorizer.get_feature_names_out())
        return sp.csr_matrix((len(documents), 0)), []

    # ------------------------------------------------------------ input
    def check(self, X: Documents) -> Documents:
        """Every document a string (or bytes); else a DomainError naming the first."""
        for j, (documents, codes) in enumerate(X):
            bad = [u for u, d in enumerate(documents) if not isinstance(d, str | bytes)]
            if bad:
                row = int(np.flatnonzero(codes == bad[0])[0])
                raise DomainError(
                    "Values that are not text", "text (strings)", j, row, documents[bad[0]]
                )
        return X

    def missing(self, n_samples: int, n_features: int) -> Documents:
        return [([], np.full(n_samples, -1, dtype=np.intp)) for _ in range(n_features)]

    # ------------------------------------------------------------ statistics
    def zero(self, n_classes: int, n_features: int) -> TextStats:
        return TextStats.zero(n_classes, n_features)

    def add_into(self, stats: TextStats, X: Documents, W: ClassWeights) -> TextStats:
        """The tokens of every counted document join its column's vocabulary; rows of
        zero weight add nothing (EM's ``domain`` adds their tokens, counting nothing)."""
        return self._add(stats, X, W, domain_only=False)

    def domain(self, X: Documents, W: ClassWeights) -> TextStats:
        return self._add(self.zero(W.n_classes, len(X)), X, W, domain_only=True)

    def _add(self, stats: TextStats, X: Documents, W: ClassWeights, domain_only: bool):
        weighted = W.row_totals() > 0
        vocabulary, places, batch, documents = [], [], [], stats.documents.copy()
        for j, (mine, (uniques, codes)) in enumerate(zip(stats.vocabulary, X, strict=True)):
            counted = codes >= 0 if domain_only else (codes >= 0) & weighted
            present = np.zeros(len(uniques), dtype=bool)
            present[codes[counted]] = True
            position = np.cumsum(present) - 1  # each present document's row of `tokens`
            tokens, names = self._count([uniques[u] for u in np.flatnonzero(present)])
            merged, place = _merged(mine, names)
            vocabulary.append(merged)
            places.append(place)
            rows = np.flatnonzero(counted)  # (rows, documents) one-hot, as CSR
            one_hot = sp.csr_matrix(
                (np.ones(rows.shape[0]), position[codes[rows]], np.r_[0, np.cumsum(counted)]),
                shape=(codes.shape[0], tokens.shape[0]),
            )
            by_document = W.transpose_dot(one_hot)  # (n_classes, n_documents)
            documents[:, j] += by_document.sum(axis=1)
            added = np.asarray(tokens.T @ by_document.T).T  # (n_classes, tokens of the batch)
            batch.append(added.reshape(W.n_classes, len(names)))
        vocabulary = tuple(vocabulary)
        kept = [np.arange(len(v), dtype=np.intp) for v in stats.vocabulary]
        counts = stats.with_tokens(vocabulary, kept)
        for start, place, added in zip(_offsets([len(v) for v in vocabulary]), places, batch,
                                       strict=True):  # fmt: skip
            counts[:, start + place] += added
        return TextStats(stats.class_count + W.class_totals(), documents, vocabulary, counts)

    # ------------------------------------------------------------ parameters
    def _alpha(self, j: int, n_features: int) -> float:
        return float(np.broadcast_to(np.asarray(self.alpha, dtype=np.float64), (n_features,))[j])

    def estimate(self, stats: TextStats) -> TextParams:
        """Lidstone-smoothed ``log theta_ct`` per column; ``alpha`` scalar or one per
        column."""
        n_features = len(stats.vocabulary)
        parts = []
        for j in range(n_features):
            smoothed = stats.column(j) + self._alpha(j, n_features)
            with np.errstate(divide="ignore", invalid="ignore"):
                parts.append(np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True)))
        log_prob = np.hstack(parts) if parts else np.zeros((stats.counts.shape[0], 0))
        vectorizers = tuple(self.vectorizer(v) if v else None for v in stats.vocabulary)
        return TextParams(log_prob, stats.vocabulary, vectorizers)

    def log_parameter_prior(self, params: TextParams) -> float:
        """Lidstone's ``alpha`` is the mode of a Dirichlet(``alpha + 1``) prior per column."""
        n_features = len(params.vocabulary)
        return sum(
            dirichlet_log_density(self._alpha(j, n_features), params.column(j))
            for j in range(n_features)
        )

    # ------------------------------------------------------------ likelihood
    def encode(self, params: TextParams, X: Documents) -> sp.csr_matrix:
        """Token counts over the fitted vocabularies, (n_samples, sum_j V_j): each
        distinct document tokenized once; a missing one is an empty row."""
        n_samples = X[0][1].shape[0] if X else 0
        columns = []
        for j, (uniques, codes) in enumerate(X):
            size = len(params.vocabulary[j])
            vectorizer = params.vectorizers[j]
            if vectorizer is None or not len(uniques):
                columns.append(sp.csr_matrix((n_samples, size)))
                continue
            counts = sp.csr_matrix(vectorizer.transform(list(uniques)))
            with_empty = sp.vstack([counts, sp.csr_matrix((1, size))], format="csr")
            columns.append(with_empty[codes])  # code -1: the empty row
        if len(columns) == 1:
            return columns[0]
        return sp.hstack(columns, format="csr") if columns else sp.csr_matrix((n_samples, 0))

    def _counts(self, params: TextParams, X) -> sp.csr_matrix:
        return X if sp.issparse(X) else self.encode(params, X)

    def log_likelihood(self, params: TextParams, X) -> NDArray[np.float64]:
        """``sum_t n_t log theta_ct`` over each row's documents: (n_samples, n_classes)."""
        return params.scorer(self._counts(params, X))

    def onnx_column_kind(self, params: TextParams, j: int) -> str:
        return "string"

    def onnx_log_likelihood(self, params: TextParams, x: list, graph) -> str:
        """Each column's token counts over its vocabulary (the tokenizer's rule as
        ONNX string operators, :mod:`nbayes.export`), times ``log theta``; a missing
        document (the empty string, or one of the graph's missing strings) counts
        nothing. :class:`NotSupportedError` for a tokenizer ONNX cannot express (the
        default "rich" kind: use ``kind_options={"text": {"kind": "words"}}``)."""
        total = None
        for j, column in enumerate(x):
            if not params.vocabulary[j]:
                continue
            counts = graph.document_counts(column, self.tokenizer(), params.vocabulary[j])
            ll = graph.dot(counts, params.column(j))
            total = ll if total is None else graph.op("Add", total, ll)
        if total is None:  # no column has a vocabulary: nothing to score
            codes = graph.op("Cast", graph.value_codes(x[0], [], unseen=0), to=graph.float_type)
            total = graph.matmul(codes, np.zeros((params.log_prob.shape[0], 1)))
        return total

    def log_likelihood_terms(self, params: TextParams, X) -> NDArray[np.float64]:
        """Each column's ``log P(d | c)``: (n_samples, n_classes, n_features)."""
        counts = self._counts(params, X)
        n_features = len(params.vocabulary)
        out = np.zeros((counts.shape[0], params.log_prob.shape[0], n_features))
        for j in range(n_features):
            start = int(params.offsets[j])
            part = counts[:, start : start + len(params.vocabulary[j])]
            out[:, :, j] = dot_with_infinities(part, params.column(j))
        return out

    def feature_log_likelihood(self, params, j, values, n_features) -> NDArray[np.float64]:
        """``log P(d | c)`` of each of ``values`` as a document of column ``j``; a value
        that is one token of the vocabulary is that token (``log theta_ct``), so the
        value grid's entries are single tokens; a missing value gives 0."""
        documents = list(values)
        text = np.array([isinstance(d, str | bytes) for d in documents], dtype=bool)
        codes = np.where(text, np.arange(len(documents)), -1)
        X = self.missing(len(documents), n_features)
        X[j] = ([d if t else "" for d, t in zip(documents, text, strict=True)], codes)
        out = self.log_likelihood_terms(params, X)[:, :, j]
        index = params.token_index[j]
        for row, document in enumerate(documents):
            t = index.get(document) if isinstance(document, str) else None
            if t is not None:
                out[row] = params.column(j)[:, t]
        return out

    def factor_parts(self, params: TextParams, j, value, n_features):
        """Each token of the document ``value`` that the vocabulary holds:
        ``(token, count n_t, n_t log theta_ct per class)``, in vocabulary order; they
        sum to ``log P(d | c)`` (tokens outside the vocabulary add nothing)."""
        vectorizer = params.vectorizers[j]
        if not isinstance(value, str | bytes) or vectorizer is None:
            return None
        counts = sp.csr_matrix(vectorizer.transform([value]))
        column, vocabulary = params.column(j), params.vocabulary[j]
        return [
            (vocabulary[t], float(n), n * column[:, t])
            for t, n in zip(counts.indices.tolist(), counts.data.tolist(), strict=True)
        ]

    def linear_terms(self, params: TextParams) -> tuple[NDArray, NDArray]:
        """``log P(x | c) = x @ log_prob[c]``, x the token counts (:meth:`encode`)."""
        return params.log_prob, np.zeros(params.log_prob.shape[0])

    # ------------------------------------------------------------ generation, explanation
    def sample(self, params, stats, class_index, rng) -> NDArray:
        """Documents of tokens ``~ Multinomial(L, theta_c)`` joined by spaces, their
        length ``L`` Poisson with the class's mean number of tokens a document."""
        n_features = len(params.vocabulary)
        out = np.empty((class_index.shape[0], n_features), dtype=object)
        for j in range(n_features):
            tokens = np.array(params.vocabulary[j], dtype=object)
            if not tokens.size:
                out[:, j] = ""
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                mean = np.where(
                    stats.documents[:, j] > 0,
                    stats.column(j).sum(axis=1) / stats.documents[:, j],
                    0.0,
                )
            theta = np.exp(params.column(j)[class_index])
            theta /= theta.sum(axis=1, keepdims=True)
            counts = rng.multinomial(rng.poisson(mean[class_index]), theta)
            for i, row in enumerate(counts):
                words = np.repeat(tokens, row)
                out[i, j] = " ".join(rng.permutation(words).tolist())
        return out

    def value_grid(self, params, stats, j, class_prior) -> list:
        """Every token of column ``j``'s vocabulary."""
        return list(params.vocabulary[j])
