"""The recommended text pipeline: posts -> body and header tokens -> Rennie -> NB.

:class:`PostVectorizer` turns raw news posts or mail messages (str or bytes) into a
sparse matrix with two blocks of columns:

- the **body** block: a :class:`~nbayes.text.CountVectorizer` over the body (by
  default with the header lines kept as text too), optionally without quoted reply
  lines and signatures (:mod:`nbayes.text.headers`);
- one **header** block per field in ``header_fields``: the field's words as
  ``<field>:<word>`` features (``subject:gravity``), the spam filter's convention
  (:mod:`nbayes.spam.tokens`), so a word in the Subject counts apart from the same
  word in the body; each block's counts are multiplied by ``header_weight``.

:func:`make_text_classifier` chains it with :class:`~nbayes.text.RennieTransformer`
(log-TF, IDF, L2 length normalisation) and a complement or multinomial NB: the
settings chosen on a validation split of 20 Newsgroups' training set
(``bench/RESULTS.md``, figures from the retired lab scripts).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Real

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from nbayes.core.fitted_attributes import (
    Field,
    FittedAttributes,
    StoresFittedAttributes,
    dict_of,
    instance,
    integer,
)
from nbayes.text.headers import Post, split_post, strip_quotes, strip_signature
from nbayes.text.transforms import RennieTransformer
from nbayes.tokens.tokenize import Tokenizer
from nbayes.tokens.vectorizers import CountVectorizer

__all__ = ["PostVectorizer", "make_text_classifier"]

_MODES = ("keep", "drop")


class PostVectorizer(StoresFittedAttributes, TransformerMixin, BaseEstimator):
    """Posts (str or bytes) -> counts of body tokens and ``<field>:<word>`` header tokens.

    Parameters
    ----------
    tokenizer : Tokenizer or None, default=None
        Body tokens; None means ``Tokenizer(kind="rich", stop_words="english")``.
        Header fields use the same tokenizer without stop words, unigrams only.
    ngram_range : (int, int), default=(1, 2)
        Word n-grams of the body.
    binary : bool, default=True
        Presence (0/1) instead of counts, in every block.
    min_df, max_df : int or float, default 1 and 1.0
        Document-frequency bounds on body features (as in CountVectorizer).
    header_fields : sequence of str, default=("subject",)
        Header fields whose words become ``<field>:<word>`` features (case-folded
        names; ``()`` for none).
    header_weight : float, default=1.0
        Factor on every header block (2 counts a Subject word twice).
    header_text : {"keep", "drop"}, default="keep"
        Whether the header lines' text is also tokenized as part of the body.
    quotes, signature : {"keep", "drop"}, default "keep"
        Whether quoted reply lines / the signature stay in the body.
    encoding : str, default="latin-1"
        How bytes are decoded (invalid bytes replaced).

    Attributes
    ----------
    body_vectorizer_ : CountVectorizer
    header_vectorizers_ : dict of field -> CountVectorizer
    n_body_features_ : int
        Columns ``[0, n_body_features_)`` are the body block.
    """

    #: What model files store: the fitted vectorizers (each its vocabulary).
    _fitted_attributes = FittedAttributes(
        {
            "body_vectorizer_": Field(instance(CountVectorizer)),
            "header_vectorizers_": Field(dict_of(instance(CountVectorizer))),
            "n_body_features_": Field(integer(1)),
        }
    )

    def __init__(
        self,
        *,
        tokenizer=None,
        ngram_range=(1, 2),
        binary=True,
        min_df=1,
        max_df=1.0,
        header_fields=("subject",),
        header_weight=1.0,
        header_text="keep",
        quotes="keep",
        signature="keep",
        encoding="latin-1",
    ):
        self.tokenizer = tokenizer
        self.ngram_range = ngram_range
        self.binary = binary
        self.min_df = min_df
        self.max_df = max_df
        self.header_fields = header_fields
        self.header_weight = header_weight
        self.header_text = header_text
        self.quotes = quotes
        self.signature = signature
        self.encoding = encoding

    # ------------------------------------------------------------ checks
    def _check_params(self) -> tuple[str, ...]:
        for name in ("header_text", "quotes", "signature"):
            if getattr(self, name) not in _MODES:
                raise ValueError(f"{name} must be 'keep' or 'drop'; got {getattr(self, name)!r}")
        if self.tokenizer is not None and not isinstance(self.tokenizer, Tokenizer):
            raise ValueError(
                f"tokenizer must be an nbayes.text.Tokenizer or None; got {self.tokenizer!r}"
            )
        weight = self.header_weight
        if not isinstance(weight, Real) or isinstance(weight, bool) or not 0 <= weight < np.inf:
            raise ValueError(f"header_weight must be a finite number >= 0; got {weight!r}")
        fields = self.header_fields
        if isinstance(fields, str) or not isinstance(fields, Iterable):
            raise ValueError(f"header_fields must be a sequence of field names; got {fields!r}")
        fields = tuple(fields)
        bad = [f for f in fields if not isinstance(f, str) or not f or ":" in f]
        if bad:
            raise ValueError(
                f"header field names must be non-empty strings without ':'; got {bad[0]!r}"
            )
        return tuple(dict.fromkeys(f.lower() for f in fields))

    def _body_tokenizer(self) -> Tokenizer:
        return self.tokenizer or Tokenizer(kind="rich", stop_words="english")

    def _body_vectorizer(self) -> CountVectorizer:
        """The body's vectorizer, unfitted."""
        tokenizer = self._body_tokenizer()
        # the vectorizer folds case when either it or its tokenizer says so: follow the tokenizer
        return CountVectorizer(
            tokenizer=tokenizer,
            lowercase=tokenizer.lowercase,
            ngram_range=self.ngram_range,
            binary=self.binary,
            min_df=self.min_df,
            max_df=self.max_df,
        )

    def _field_vectorizer(self) -> CountVectorizer:
        """A header field's vectorizer, unfitted: the body's tokenizer without stop
        words, unigrams only."""
        tokenizer = self._body_tokenizer()
        field_tokenizer = Tokenizer(
            kind=tokenizer.kind,
            lowercase=tokenizer.lowercase,
            min_len=tokenizer.min_len,
            max_len=tokenizer.max_len,
            numbers=tokenizer.numbers,
            stop_words=None,
        )
        return CountVectorizer(
            tokenizer=field_tokenizer, lowercase=tokenizer.lowercase, binary=self.binary
        )

    # ------------------------------------------------------------ text
    def _parse(self, raw_documents) -> list[Post]:
        if isinstance(raw_documents, str | bytes):
            raise ValueError("PostVectorizer expects an iterable of posts, not one string.")
        return [split_post(doc, self.encoding) for doc in raw_documents]

    def _body(self, post: Post) -> str:
        body = post.body
        if self.signature == "drop":
            body = strip_signature(body)
        if self.quotes == "drop":
            body = strip_quotes(body)
        if self.header_text == "keep":
            head = "\n".join(f"{name}: {value}" for name, value in post.headers)
            body = head + "\n\n" + body
        return body

    # ------------------------------------------------------------ fitting
    def fit(self, raw_documents, y=None):
        """Learn the body and header vocabularies of ``raw_documents``."""
        self.fit_transform(raw_documents)
        return self

    def fit_transform(self, raw_documents, y=None) -> sp.csr_matrix:
        """Learn the vocabularies; the matrix (n_documents, n_features)."""
        fields = self._check_params()
        posts = self._parse(raw_documents)
        self.body_vectorizer_ = self._body_vectorizer()
        blocks = [self.body_vectorizer_.fit_transform([self._body(p) for p in posts])]
        self.n_body_features_ = blocks[0].shape[1]
        self.header_vectorizers_ = {}
        for field in fields:
            vectorizer = self._field_vectorizer()
            texts = [p.field(field) for p in posts]
            try:
                blocks.append(vectorizer.fit_transform(texts))
            except ValueError:  # no post has a word in this field
                continue
            self.header_vectorizers_[field] = vectorizer
        return self._stack(blocks)

    def check_restored(self) -> None:
        """ValueError unless the parameters are valid, the fitted vectorizers are the
        ones these parameters make, the body block is as wide as its vocabulary and
        every header block is one of ``header_fields``."""
        fields = self._check_params()
        made = [(self._body_vectorizer(), self.body_vectorizer_)]
        made += [(self._field_vectorizer(), v) for v in self.header_vectorizers_.values()]
        if any(a.get_params() != b.get_params() for a, b in made):
            raise ValueError("a fitted vectorizer's parameters are not the ones fit makes.")
        if self.n_body_features_ != len(self.body_vectorizer_.vocabulary_):
            raise ValueError("n_body_features_ does not match the body vocabulary.")
        unknown = sorted(set(self.header_vectorizers_) - set(fields))
        if unknown:
            raise ValueError(f"a header vectorizer for {unknown[0]!r:.40} is not in header_fields.")

    def transform(self, raw_documents) -> sp.csr_matrix:
        """The matrix (n_documents, n_features) of new posts, fitted vocabularies."""
        check_is_fitted(self, "body_vectorizer_")
        posts = self._parse(raw_documents)
        blocks = [self.body_vectorizer_.transform([self._body(p) for p in posts])]
        for field, vectorizer in self.header_vectorizers_.items():
            blocks.append(vectorizer.transform([p.field(field) for p in posts]))
        return self._stack(blocks)

    def _stack(self, blocks: list) -> sp.csr_matrix:
        body, headers = blocks[0], blocks[1:]
        if not headers:
            return sp.csr_matrix(body)
        if self.header_weight != 1:
            headers = [block.astype(np.float64) * float(self.header_weight) for block in headers]
        X = sp.hstack([body, *headers], format="csr")
        X.eliminate_zeros()  # weight 0: no stored zeros, so IDF sees no header term
        return X

    def get_feature_names_out(self, input_features=None) -> NDArray[np.object_]:
        """Body features, then ``<field>:<word>`` for each header block."""
        check_is_fitted(self, "body_vectorizer_")
        names = [self.body_vectorizer_.get_feature_names_out()]
        for field, vectorizer in self.header_vectorizers_.items():
            names.append(np.array([f"{field}:{w}" for w in vectorizer.get_feature_names_out()]))
        return np.concatenate(names).astype(object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags


def make_text_classifier(
    model: str = "complement",
    *,
    alpha: float = 0.2,
    tf: str | None = "log",
    idf: bool = True,
    norm: str | None = "l2",
    header_fields: Sequence[str] = ("subject",),
    header_weight: float = 3.0,
    binary: bool = False,
    signature: str = "drop",
    stop_words: str | Iterable[str] | None = None,
    unlabeled_weight: float | None = None,
    **vectorizer,
) -> Pipeline:
    """The recommended pipeline for raw posts or messages (str or bytes):
    :class:`PostVectorizer` -> :class:`RennieTransformer` -> ``ComplementNB`` or
    ``MultinomialNB`` (``model="complement"`` or ``"multinomial"``).

    Defaults (chosen on 20 Newsgroups' validation split, ``bench/RESULTS.md``):
    rich tokens of the body with no stop-word list, unigrams and bigrams, the header
    lines kept and the signature dropped, Subject words as ``subject:<word>`` features
    counted 3 times, log-TF, IDF and L2 length normalisation,
    ``ComplementNB(alpha=0.2)``. ``stop_words`` are the body tokenizer's
    (``"english"``: scikit-learn's list, which cost 0.005 of validation accuracy on
    20 Newsgroups with its ~9,000 training posts; one check on a sixth of them, ~1,900,
    went the other way, so with few documents ``"english"`` is worth trying; a list of
    words; None). Further keyword arguments go to
    :class:`PostVectorizer` (``quotes="drop"``, ``ngram_range=(1, 1)``, ...); a
    ``tokenizer`` given there replaces the body tokenizer, so ``stop_words`` must
    then be left None.

    ``unlabeled_weight`` (a number) wraps the model in
    :class:`~nbayes.SemiSupervisedNB`: ``fit`` then takes posts labelled ``-1`` (in an
    object array of labels) as unlabelled rows, trained on by EM (Nigam et al., 2000)
    with that weight; their text also enters the vocabulary and the IDF.
    """
    from nbayes.meta.semi_supervised import SemiSupervisedNB
    from nbayes.models.discrete import ComplementNB, MultinomialNB

    models = {"complement": ComplementNB, "multinomial": MultinomialNB}
    if model not in models:
        raise ValueError(f"model must be 'complement' or 'multinomial'; got {model!r}")
    if "tokenizer" in vectorizer:
        if stop_words is not None:
            raise ValueError("give stop_words or a tokenizer, not both (the tokenizer has its own)")
    else:
        vectorizer["tokenizer"] = Tokenizer(kind="rich", stop_words=stop_words)
    nb = models[model](alpha=alpha)
    if unlabeled_weight is not None:
        nb = SemiSupervisedNB(nb, unlabeled_weight=unlabeled_weight)
    return Pipeline(
        [
            (
                "posts",
                PostVectorizer(
                    header_fields=header_fields,
                    header_weight=header_weight,
                    binary=binary,
                    signature=signature,
                    **vectorizer,
                ),
            ),
            ("rennie", RennieTransformer(tf=tf, idf=idf, norm=norm)),
            ("nb", nb),
        ]
    )
