"""Drop-in, compiled replacements for scikit-learn's CountVectorizer and
HashingVectorizer: the same parameters, methods, attributes and output (a CSR
matrix of shape (n_documents, n_features)), equal entry for entry.

The word analyzer with the default ``token_pattern`` (or an
:class:`nbayes.text.Tokenizer` as ``tokenizer``) runs compiled; any other option
(``analyzer="char"``, a callable preprocessor or tokenizer, ``strip_accents``, a
custom ``token_pattern``) runs scikit-learn's own code, so results never differ,
only speed does. A CountVectorizer given a few short ``str`` documents with the
default patterns counts them in Python (:mod:`nbayes.tokens._small`), with the same
results, and builds its compiled tables only once a larger input needs them.
"""

from __future__ import annotations

import itertools
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from nbayes.core.fitted_attributes import boolean, strings, vocabulary_terms
from nbayes.tokens import _engine, _small
from nbayes.tokens._ngram_range import check_ngram_range
from nbayes.tokens.tokenize import Tokenizer, stop_word_set

__all__ = ["CountVectorizer", "HashingVectorizer"]

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
_PATTERN_MIN_LEN = {DEFAULT_TOKEN_PATTERN: 2, r"(?u)\b\w+\b": 1}


def _as_scipy(matrix):
    """scikit-learn's choice of sparse interface (sparray or spmatrix)."""
    try:
        from sklearn.utils._sparse import _align_api_if_sparse
    except ImportError:  # older scikit-learn: spmatrix
        return sp.csr_matrix(matrix)
    return _align_api_if_sparse(matrix)


def _check_options(vectorizer, names: tuple[str, ...]) -> None:
    """ValueError unless each of these parameters is a bool (scikit-learn's "boolean"
    constraint: -1 or "no" would be read as true), and unless the options both
    vectorizers share are among scikit-learn's values (a function where it takes one)."""
    for name in names:
        value = getattr(vectorizer, name)
        if not isinstance(value, bool | np.bool_):
            raise ValueError(f"{name} must be True or False; got {value!r:.40}")
    for name, allowed in _OPTIONS.items():
        value = getattr(vectorizer, name)
        if not (callable(value) and name in _CALLABLE) and not any(
            value is option or (isinstance(value, str) and value == option) for option in allowed
        ):
            kinds = ", ".join(repr(option) for option in allowed)
            also = " or a function" if name in _CALLABLE else ""
            raise ValueError(f"{name} must be one of {kinds}{also}; got {value!r:.40}")
    stop_word_set(vectorizer.stop_words)


#: scikit-learn's values of the options both vectorizers share.
_OPTIONS = {
    "input": ("content", "filename", "file"),
    "decode_error": ("strict", "ignore", "replace"),
    "strip_accents": (None, "ascii", "unicode"),
    "analyzer": ("word", "char", "char_wb"),
    "preprocessor": (None,),
    "tokenizer": (None,),
}
#: The options that may also be a function (a Tokenizer is one).
_CALLABLE = frozenset({"strip_accents", "analyzer", "preprocessor", "tokenizer"})


class _Compiled:
    """What both vectorizers share: the fast-path test and the compiled analysis."""

    def _fast_rules(self) -> _engine.Rules | None:
        """The compiled tokenizer's settings, or None where scikit-learn's code runs."""
        if self.analyzer != "word" or self.preprocessor is not None or self.strip_accents:
            return None
        ngram_range = check_ngram_range(self.ngram_range)
        tokenizer = self.tokenizer
        if tokenizer is None:
            if self.token_pattern not in _PATTERN_MIN_LEN:
                return None
            return _engine.Rules(
                lowercase=bool(self.lowercase),
                min_len=_PATTERN_MIN_LEN[self.token_pattern],
                ngram_range=ngram_range,
            )
        if not isinstance(tokenizer, Tokenizer):
            return None
        # scikit-learn applies the tokenizer's n-grams and stop words first, then its own
        own_ngrams = tokenizer.ngram_range != (1, 1)
        if own_ngrams and (ngram_range != (1, 1) or self.stop_words is not None):
            return None
        return tokenizer.rules(
            lowercase=bool(self.lowercase) or tokenizer.lowercase,
            ngram_range=tokenizer.ngram_range if own_ngrams else ngram_range,
        )

    def _stop_words(self) -> frozenset[str]:
        words = stop_word_set(self.stop_words)
        if isinstance(self.tokenizer, Tokenizer):
            words = words | stop_word_set(self.tokenizer.stop_words)
        return words

    def _encode(self, raw_documents):
        return self._encode_read(_engine.read_documents(raw_documents, self.input))

    def _encode_read(self, docs: list) -> _engine.Text:
        """The raw content of the documents as the compiled pass reads it."""
        return _engine.encode_documents(
            docs, self.encoding, self.decode_error, lowercase=self._rules.lowercase
        )

    def _sklearn(self):
        """scikit-learn's own vectorizer with the same parameters (the slow path), with
        this one's tokenizer where it has one of its own (a pattern from a model file,
        on the linear-time engine: :mod:`nbayes.tokens.patterns`). Imported here:
        ``sklearn.feature_extraction`` and the ``sklearn.preprocessing`` it imports are
        ~30 modules a fresh process's default vectorizer never needs."""
        from sklearn.feature_extraction import text as sk_text

        vectorizer = getattr(sk_text, type(self).__name__)(**self.get_params())
        if "build_tokenizer" in self.__dict__:
            vectorizer.build_tokenizer = self.__dict__["build_tokenizer"]
        return vectorizer

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags


class CountVectorizer(_Compiled, BaseEstimator):
    """Documents -> matrix of token counts, as ``sklearn.feature_extraction.text.
    CountVectorizer`` (same parameters and defaults), compiled.

    ``X[i, j]`` is the number of times feature j (``get_feature_names_out()[j]``,
    in sorted order) occurs in document i; ``binary=True`` makes it 0/1. Features
    in more than ``max_df`` or fewer than ``min_df`` documents (counts, or
    fractions when float) are dropped, then all but the ``max_features`` most
    frequent over the corpus.

    Attributes
    ----------
    vocabulary_ : dict, term -> column index
    fixed_vocabulary_ : bool
    """

    def __init__(
        self,
        *,
        input="content",
        encoding="utf-8",
        decode_error="strict",
        strip_accents=None,
        lowercase=True,
        preprocessor=None,
        tokenizer=None,
        stop_words=None,
        token_pattern=DEFAULT_TOKEN_PATTERN,
        ngram_range=(1, 1),
        analyzer="word",
        max_df=1.0,
        min_df=1,
        max_features=None,
        vocabulary=None,
        binary=False,
        dtype=np.int64,
    ):
        self.input = input
        self.encoding = encoding
        self.decode_error = decode_error
        self.strip_accents = strip_accents
        self.lowercase = lowercase
        self.preprocessor = preprocessor
        self.tokenizer = tokenizer
        self.stop_words = stop_words
        self.token_pattern = token_pattern
        self.ngram_range = ngram_range
        self.analyzer = analyzer
        self.max_df = max_df
        self.min_df = min_df
        self.max_features = max_features
        self.vocabulary = vocabulary
        self.binary = binary
        self.dtype = dtype

    # ------------------------------------------------------------ fitting
    def fit(self, raw_documents, y=None):
        """Learn the vocabulary of ``raw_documents`` (iterable of str/bytes/...)."""
        self.fit_transform(raw_documents)
        return self

    def fit_transform(self, raw_documents, y=None):
        """Learn the vocabulary and return the count matrix, (n_documents, n_features)."""
        self._check_params()
        self._rules = self._fast_rules()
        self._fallback = None
        for name in ("fixed_vocabulary_", "_vocabulary_cache", "_vocab", "_terms", "_column",
                     "_features"):  # fmt: skip
            self.__dict__.pop(name, None)
        if self._rules is None:
            self._fallback = self._sklearn()
            X = self._fallback.fit_transform(raw_documents)
            self.fixed_vocabulary_ = self._fallback.fixed_vocabulary_
            return X
        stop_words = self._stop_words()
        docs = _engine.read_documents(raw_documents, self.input)
        small = _small.texts(docs, self._rules)
        text = None if small is not None else self._encode_read(docs)
        fixed = self.vocabulary is not None
        if fixed:
            self._set_fixed_vocabulary()
            X = self._transform(text, small)
        elif small is not None:
            X = self._fit_small(small, stop_words)
        else:
            X = self._fit_compiled(text, stop_words)
        self.fixed_vocabulary_ = fixed  # only now: a fit that fails leaves it unfitted
        return X

    def _fit_compiled(self, text: _engine.Text, stop_words: frozenset[str]):
        """:meth:`fit_transform` by the compiled pass."""
        self._vocab = _engine.Vocabulary(self._rules)
        self._vocab.add_stop_words(stop_words)
        n_stop_tokens = self._vocab.n_tokens  # the pass adds every token it yields
        prunes = self._prunes(text.n_docs)
        indptr, entries, counts = self._vocab.analyze(
            text, True, tally=True, sort=True, count=prunes
        )
        if self.binary:
            counts[:] = 1
        self._features = self._select_features(entries, counts, text.n_docs, prunes, n_stop_tokens)
        self._vocab.compact()  # the fitted vocabulary only looks up from now on
        self._column = np.full(self._vocab.n_features, -1, np.int64)
        self._column[self._features] = np.arange(len(self._features))
        return self._finish(indptr, entries, counts, text.n_docs)

    def _fit_small(self, docs: list[str], stop_words: frozenset[str]):
        """:meth:`fit_transform` of documents the Python path takes
        (:mod:`nbayes.tokens._small`): the same features, columns and matrix, and no
        compiled tables (made from the terms when a larger input needs them,
        :meth:`_tables`)."""
        tallies = _small.tallies(docs, self._rules, stop_words)
        names = sorted(set().union(*tallies))  # code-point order: the columns' before pruning
        if not names:
            raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
        index = {name: i for i, name in enumerate(names)}
        indptr, ids, counts = _small.rows(tallies, index)
        if self.binary:
            counts[:] = 1
        order = np.arange(len(names))
        if self._prunes(len(docs)):
            order = self._pruned(order, *_small.frequencies(ids, counts, len(names)), len(docs))
        column = np.full(len(names), -1, np.int64)
        column[order] = np.arange(len(order))
        self._terms = [names[i] for i in order]
        self._vocabulary_cache = {term: j for j, term in enumerate(self._terms)}
        return self._small_matrix(indptr, column[ids], counts)

    def _small_matrix(self, indptr, columns, counts):
        """The count matrix of CSR rows (``columns`` -1 where a feature has none)."""
        kept = columns >= 0
        if not kept.all():
            indptr = np.concatenate(([0], np.cumsum(kept)))[indptr]
            columns, counts = columns[kept], counts[kept]
        values = np.ones_like(counts) if self.binary else counts
        shape = (len(indptr) - 1, len(self._vocabulary()))
        return self._matrix(values.astype(self.dtype), columns.astype(np.int32), indptr, shape)

    def _check_params(self) -> None:
        check_ngram_range(self.ngram_range)
        _check_options(self, ("lowercase", "binary"))
        for name in ("max_df", "min_df"):
            value = getattr(self, name)
            if isinstance(value, Integral) and not isinstance(value, bool):
                if value < 0:
                    raise ValueError(f"{name} must be >= 0; got {value!r}")
            elif not (isinstance(value, float) and 0.0 <= value <= 1.0):
                raise ValueError(f"{name} must be an int >= 0 or a float in [0, 1]; got {value!r}")
        if self.max_features is not None and not (
            isinstance(self.max_features, Integral) and self.max_features >= 0
        ):
            raise ValueError(f"max_features must be None or an int >= 0; got {self.max_features!r}")

    def _df_bounds(self, n_docs: int) -> tuple[float, float]:
        """(lowest, highest) document frequency a feature may have (scikit-learn's
        min_df and max_df, as counts of documents)."""
        max_df, min_df = self.max_df, self.min_df
        high = max_df if isinstance(max_df, Integral) else max_df * n_docs
        low = min_df if isinstance(min_df, Integral) else min_df * n_docs
        return low, high

    def _prunes(self, n_docs: int) -> bool:
        """Whether min_df, max_df or max_features can drop a feature of these
        ``n_docs`` documents (every feature is in 1..n_docs of them)."""
        low, high = self._df_bounds(n_docs)
        return self.max_features is not None or low > 1 or high < n_docs

    def _select_features(
        self, entries, counts, n_docs: int, prunes: bool, n_stop_tokens: int
    ) -> NDArray[np.int64]:
        """Feature indices kept, in column order (scikit-learn's rules, exactly).

        Without pruning (``prunes`` False) no frequencies are counted: the features
        the pass yielded are the whole vocabulary but the stop words (the tokens
        before ``n_stop_tokens``, never yielded), and but every token when the
        n-grams the pass formed start at n >= 2."""
        order = self._vocab.sorted_order()
        if prunes:
            df, tf = self._vocab.frequencies(entries, counts)
            order = order[df[order] > 0]  # seen as a feature (not only as a stop word)
        elif self._rules.ngram_range[0] == 1:
            order = order[order >= n_stop_tokens]
        else:
            order = order[order >= self._vocab.n_tokens]
        if len(order) == 0:
            raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
        if not prunes:
            return order
        return self._pruned(order, df, tf, n_docs)

    def _pruned(self, order, df, tf, n_docs: int) -> NDArray[np.int64]:
        """The features of ``order`` (ids in column order) that min_df, max_df and
        max_features keep, by document and corpus frequencies ``df`` and ``tf`` (per
        id), in that order."""
        if self.binary:  # every count is 1 (as set after the pass): tf = df
            tf = df
        low, high = self._df_bounds(n_docs)
        if high < low:
            raise ValueError("max_df corresponds to < documents than min_df")
        dfs = df[order]
        mask = (dfs <= high) & (dfs >= low)
        limit = self.max_features
        if limit is not None and mask.sum() > limit:
            tfs = tf[order]
            mask_inds = (-tfs[mask]).argsort()[:limit]
            new_mask = np.zeros(len(dfs), dtype=bool)
            new_mask[np.where(mask)[0][mask_inds]] = True
            mask = new_mask
        if not mask.any():
            raise ValueError(
                "After pruning, no terms remain. Try a lower min_df or a higher max_df."
            )
        return order[mask]

    def _set_fixed_vocabulary(self) -> None:
        vocabulary = self.vocabulary
        if isinstance(vocabulary, set):
            vocabulary = sorted(vocabulary)
        if not hasattr(vocabulary, "items"):
            mapping: dict[str, int] = {}
            for i, term in enumerate(vocabulary):
                if mapping.setdefault(term, i) != i:
                    raise ValueError(f"Duplicate term in vocabulary: {term!r}")
            vocabulary = mapping
        indices = sorted(vocabulary.values())
        if indices != list(range(len(indices))):
            raise ValueError("Vocabulary indices must be 0 .. len(vocabulary) - 1, each once.")
        if not vocabulary:
            raise ValueError("empty vocabulary passed to fit")
        self._terms = sorted(vocabulary, key=vocabulary.get)
        self._vocabulary_cache = dict(vocabulary)

    def _tables(self) -> _engine.Vocabulary:
        """The compiled tables of the fitted features: those of a compiled fit, or,
        after a small fit, a given vocabulary or a model file, made on first use from
        the terms (column j for ``_terms[j]``) as a fit with that vocabulary makes
        them (stop words, then the terms), so a transform counts alike."""
        vocab = self.__dict__.get("_vocab")
        if vocab is None:
            vocab = _engine.Vocabulary(self._rules)
            vocab.add_stop_words(self._stop_words())
            index = vocab.add_features(self._terms)
            vocab.compact()
            column = np.full(vocab.n_features, -1, np.int64)
            column[index] = np.arange(len(self._terms))
            self._column, self._features, self._vocab = column, index, vocab
        return vocab

    def _finish(self, indptr, entries, counts, n_docs):
        """The count matrix of CSR rows of stream entries (columns from ``_column``)."""
        if self.binary:
            counts = np.ones_like(counts)
        indptr, columns, values = self._vocab.to_columns(
            indptr, entries, counts, self._column, self.dtype
        )
        return self._matrix(values, columns, indptr, (n_docs, len(self._features)))

    @staticmethod
    def _matrix(values, columns, indptr, shape: tuple[int, int]):
        """The CSR matrix of these arrays, indptr of the indices' dtype, in
        scikit-learn's sparse interface."""
        return _as_scipy(sp.csr_array((values, columns, indptr.astype(columns.dtype)), shape=shape))

    # ------------------------------------------------------------ model files
    def fitted_state(self) -> dict:
        """What model files store: the terms in column order (n_features,) and whether
        they were given. The compiled tables are rebuilt from them (:meth:`restore_state`)."""
        check_is_fitted(self, "fixed_vocabulary_")
        return {
            "vocabulary_": vocabulary_terms(self.vocabulary_),
            "fixed_vocabulary_": self.fixed_vocabulary_,
        }

    def restore_state(self, state: dict) -> CountVectorizer:
        """The fitted vectorizer from its terms; the compiled tables are built from
        them when first needed (:meth:`_tables`), so ``transform`` gives what the saved
        vectorizer gave."""
        if sorted(state) != ["fixed_vocabulary_", "vocabulary_"]:
            raise ValueError("a CountVectorizer's state is vocabulary_ and fixed_vocabulary_.")
        terms = list(strings(state["vocabulary_"], "vocabulary_"))
        fixed = boolean(state["fixed_vocabulary_"], "fixed_vocabulary_")
        if not terms:
            raise ValueError("vocabulary_ is empty.")
        self._check_params()
        self._rules = self._fast_rules()
        vocabulary = {term: j for j, term in enumerate(terms)}
        if self._rules is None:
            self._fallback = self._sklearn()
            self._fallback.vocabulary_ = vocabulary
            self._fallback.fixed_vocabulary_ = fixed
        else:
            self._fallback = None
            for name in ("_vocab", "_column", "_features"):
                self.__dict__.pop(name, None)
            self._terms = terms  # the compiled tables are made on first use
        self._vocabulary_cache = vocabulary
        self.fixed_vocabulary_ = fixed
        return self

    def check_restored(self) -> None:
        """Nothing more: :meth:`restore_state` checked the terms (distinct strings)."""

    # ------------------------------------------------------------ transform
    def transform(self, raw_documents):
        """Count matrix of new documents on the fitted vocabulary."""
        if self.vocabulary is not None and not hasattr(self, "fixed_vocabulary_"):
            return self.fit_transform(raw_documents)  # a given vocabulary needs no fit
        check_is_fitted(self, "fixed_vocabulary_")
        if self._fallback is not None:
            return self._fallback.transform(raw_documents)
        docs = _engine.read_documents(raw_documents, self.input)
        small = _small.texts(docs, self._rules)
        return self._transform(None if small is not None else self._encode_read(docs), small)

    def _transform(self, text: _engine.Text | None, small: list[str] | None):
        """The count matrix of the fitted features in ``text``, or in the documents
        ``small`` (:func:`nbayes.tokens._small.texts`) where given."""
        if small is not None:
            tallies = _small.tallies(small, self._rules, self._stop_words())
            return self._small_matrix(*_small.rows(tallies, self._vocabulary()))
        indptr, entries, counts = self._tables().analyze(text, False, tally=True)
        return self._finish(indptr, entries, counts, text.n_docs)

    # ------------------------------------------------------------ vocabulary
    @property
    def vocabulary_(self) -> dict[str, int]:
        """Term -> column index (built on first use)."""
        check_is_fitted(self, "fixed_vocabulary_")
        if self._fallback is not None:
            return self._fallback.vocabulary_
        return self._vocabulary()

    def _vocabulary(self) -> dict[str, int]:
        """:attr:`vocabulary_` of the fast path, fitted or being fitted."""
        if "_vocabulary_cache" not in self.__dict__:
            names = self._vocab.names()
            self._vocabulary_cache = {names[f]: j for j, f in enumerate(self._features)}
        return self._vocabulary_cache

    def get_feature_names_out(self, input_features=None) -> NDArray[np.object_]:
        """Feature names, one per column, shape (n_features,)."""
        if self.vocabulary is not None and not hasattr(self, "fixed_vocabulary_"):
            self.fit([])
        check_is_fitted(self, "fixed_vocabulary_")
        if self._fallback is not None:
            return self._fallback.get_feature_names_out(input_features)
        vocabulary = self.vocabulary_
        return np.asarray(sorted(vocabulary, key=vocabulary.get), dtype=object)

    def build_analyzer(self):
        """A callable: one document -> its list of features (scikit-learn's analyzer)."""
        return self._sklearn().build_analyzer()

    def inverse_transform(self, X) -> list[NDArray[np.object_]]:
        """The features present (nonzero) in each row of X."""
        names = self.get_feature_names_out()
        X = sp.csr_array(X)
        return [names[X.indices[a:b]] for a, b in itertools.pairwise(X.indptr)]


class HashingVectorizer(_Compiled, BaseEstimator):
    """Documents -> hashed token counts, as scikit-learn's HashingVectorizer
    (same parameters and defaults), compiled and stateless.

    Feature f goes to column ``|h(f)| mod n_features`` with sign ``sign(h(f))``
    when ``alternate_sign``, h being scikit-learn's signed 32-bit MurmurHash3 of the
    feature's UTF-8 bytes (seed 0); colliding features add up. Rows are then
    normalised (``norm="l2"``, ``"l1"`` or None).
    """

    def __init__(
        self,
        *,
        input="content",
        encoding="utf-8",
        decode_error="strict",
        strip_accents=None,
        lowercase=True,
        preprocessor=None,
        tokenizer=None,
        stop_words=None,
        token_pattern=DEFAULT_TOKEN_PATTERN,
        ngram_range=(1, 1),
        analyzer="word",
        n_features=2**20,
        binary=False,
        norm="l2",
        alternate_sign=True,
        dtype=np.float64,
    ):
        self.input = input
        self.encoding = encoding
        self.decode_error = decode_error
        self.strip_accents = strip_accents
        self.lowercase = lowercase
        self.preprocessor = preprocessor
        self.tokenizer = tokenizer
        self.stop_words = stop_words
        self.token_pattern = token_pattern
        self.ngram_range = ngram_range
        self.analyzer = analyzer
        self.n_features = n_features
        self.binary = binary
        self.norm = norm
        self.alternate_sign = alternate_sign
        self.dtype = dtype

    def _check_params(self) -> None:
        check_ngram_range(self.ngram_range)
        _check_options(self, ("lowercase", "binary", "alternate_sign"))
        if not (isinstance(self.n_features, Integral) and 1 <= self.n_features < 2**31):
            raise ValueError(f"n_features must be an int in [1, 2**31); got {self.n_features!r}")
        if self.norm not in ("l1", "l2", None):
            raise ValueError(f"norm must be 'l1', 'l2' or None; got {self.norm!r}")

    def fit(self, X=None, y=None):
        """Check the parameters (there is nothing to learn)."""
        self._check_params()
        return self

    def fitted_state(self) -> dict:
        """Nothing: a hashing vectorizer learns nothing (model files store its parameters)."""
        return {}

    def restore_state(self, state: dict) -> HashingVectorizer:
        if state:
            raise ValueError("a HashingVectorizer has no fitted state.")
        return self

    def check_restored(self) -> None:
        """ValueError unless the parameters are valid."""
        self._check_params()

    def partial_fit(self, X=None, y=None):
        """Check the parameters (there is nothing to learn)."""
        return self.fit(X, y)

    def fit_transform(self, X, y=None):
        return self.fit(X, y).transform(X)

    def transform(self, X):
        """Hashed feature matrix, shape (n_documents, n_features)."""
        self._check_params()
        self._rules = self._fast_rules()
        if self._rules is None:
            return self._sklearn().transform(X)
        text = self._encode(X)
        vocab = _engine.Vocabulary(self._rules)
        vocab.add_stop_words(self._stop_words())
        indptr, entries, counts = vocab.analyze(text, True, tally=True)
        features = vocab.feature_index(entries)
        h = vocab.murmur3()
        n = self.n_features
        column = np.where(h == -(2**31), (2**31 - 1 - (n - 1)) % n, np.abs(h) % n)
        values = counts
        if self.alternate_sign:
            values = counts * np.where(h >= 0, 1.0, -1.0)[features]
        X = sp.csr_matrix(
            (values.astype(self.dtype), column[features], indptr),
            shape=(text.n_docs, n),
        )
        X.sum_duplicates()
        if self.binary:
            X.data.fill(1)
        if self.norm is not None:
            from sklearn.preprocessing import normalize  # ~20 modules, for this alone

            X = normalize(X, norm=self.norm, copy=False)
        return _as_scipy(X)

    def build_analyzer(self):
        """A callable: one document -> its list of features (scikit-learn's analyzer)."""
        return self._sklearn().build_analyzer()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False
        return tags
