"""Text for naive Bayes: a compiled tokenizer, scikit-learn-compatible vectorizers,
and Rennie et al.'s (2003) corrections.

- :class:`Tokenizer`: Unicode words, numbers, URLs, e-mail addresses and host names,
  case folding, length bounds, English stop words, word n-grams.
- :class:`CountVectorizer`, :class:`HashingVectorizer`: scikit-learn's, the same
  numbers, compiled with numba.
- :class:`RennieTransformer`, :func:`make_twcnb`: log-TF, IDF, length and weight
  normalisation (TWCNB).
- :class:`PostVectorizer`, :func:`make_text_classifier`: news posts and mail as
  body and ``<field>:<word>`` header tokens; the recommended pipeline.

The tokenizer and the vectorizers are defined in :mod:`nbayes.tokens`, below the event
models (the text column kind tokenizes with them); the transforms and pipelines here
stand above the estimators they build.
"""

from typing import TYPE_CHECKING

from nbayes.core.lazy import lazy_exports

#: Public name -> the module that defines it; imported on first use (``nbayes.core.lazy``),
#: so ``from nbayes.text import CountVectorizer`` imports neither the pipelines nor the
#: mail headers.
_EXPORTS = {
    "ENGLISH_STOP_WORDS": "nbayes.tokens.tokenize",
    "CountVectorizer": "nbayes.tokens.vectorizers",
    "HashingVectorizer": "nbayes.tokens.vectorizers",
    "Post": "nbayes.text.headers",
    "PostVectorizer": "nbayes.text.pipeline",
    "RennieTransformer": "nbayes.text.transforms",
    "Tokenizer": "nbayes.tokens.tokenize",
    "make_text_classifier": "nbayes.text.pipeline",
    "make_twcnb": "nbayes.text.transforms",
    "split_post": "nbayes.text.headers",
    "strip_quotes": "nbayes.text.headers",
    "strip_signature": "nbayes.text.headers",
}
lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # what static tools see; at run time the names load on first use
    from nbayes.text.headers import Post, split_post, strip_quotes, strip_signature
    from nbayes.text.pipeline import PostVectorizer, make_text_classifier
    from nbayes.text.transforms import RennieTransformer, make_twcnb
    from nbayes.tokens.tokenize import ENGLISH_STOP_WORDS, Tokenizer
    from nbayes.tokens.vectorizers import CountVectorizer, HashingVectorizer

__all__ = [
    "ENGLISH_STOP_WORDS",
    "CountVectorizer",
    "HashingVectorizer",
    "Post",
    "PostVectorizer",
    "RennieTransformer",
    "Tokenizer",
    "make_text_classifier",
    "make_twcnb",
    "split_post",
    "strip_quotes",
    "strip_signature",
]
