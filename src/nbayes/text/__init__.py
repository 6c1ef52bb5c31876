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
"""

from nbayes.text.headers import Post, split_post, strip_quotes, strip_signature
from nbayes.text.pipeline import PostVectorizer, make_text_classifier
from nbayes.text.tokenize import ENGLISH_STOP_WORDS, Tokenizer
from nbayes.text.transforms import RennieTransformer, make_twcnb
from nbayes.text.vectorizers import CountVectorizer, HashingVectorizer

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
