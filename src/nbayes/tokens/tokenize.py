"""The tokenizer: text -> tokens (and word n-grams), compiled with numba.

Two kinds of tokens:

``kind="words"``
    maximal runs of word characters (Python's ``\\w``: Unicode letters, digits and
    ``_``), exactly the tokens of scikit-learn's ``token_pattern`` when
    ``min_len=2`` (``(?u)\\b\\w\\w+\\b``) or ``min_len=1`` (``(?u)\\b\\w+\\b``).
``kind="rich"``
    as ``"words"``, but these are kept whole:

    - URLs: ``http://``, ``https://``, ``ftp://`` or ``www.`` up to whitespace, a
      control character or one of ``<>"'```, less trailing ``.,;:!?)]}``;
    - e-mail addresses: word runs joined by ``.``/``-`` with one ``@`` and a dot
      after it, ending in a label of >= 2 letters (``jane.doe@mail.example.org``);
    - host names: word runs joined by ``.``/``-``, ending in a label of >= 2 letters
      (``cs.cmu.edu``, ``news-server.example.com``);
    - numbers: digit runs joined by ``.`` or ``,`` (``3.14``, ``1,000,000``,
      ``192.168.0.1``).

    Any other joined run (``e.g``, ``well-known``) splits into its word runs, and so
    does one longer than 256 code points (from its first word run on: the scan then
    starts again at the next run, whose own joined run may be short enough to keep).

Then, in this order: case folding (``lowercase``, Python's ``str.lower``, applied to
the text before tokenizing, as scikit-learn does); dropping tokens shorter than
``min_len`` or longer than ``max_len`` code points, and pure numbers unless
``numbers``; dropping stop words; and forming word n-grams, joined by a space, for
every n in ``ngram_range`` (scikit-learn's order: all unigrams, then all bigrams, …).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nbayes.tokens import _engine
from nbayes.tokens._ngram_range import check_ngram_range

if TYPE_CHECKING:  # at run time loaded on first access (module __getattr__)
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

__all__ = ["ENGLISH_STOP_WORDS", "Tokenizer", "check_ngram_range", "stop_word_set"]


def stop_word_set(stop_words) -> frozenset[str]:
    """``"english"`` (scikit-learn's list of 318 words), None, or an iterable."""
    if stop_words is None:
        return frozenset()
    if isinstance(stop_words, str):
        if stop_words != "english":
            raise ValueError(f"stop_words must be 'english', None or a list; got {stop_words!r}")
        return _english_stop_words()
    try:
        words = frozenset(stop_words)
    except TypeError:  # not iterable, or holding unhashable items
        raise ValueError(
            f"stop_words must be 'english', None or a list; got {stop_words!r:.40}"
        ) from None
    bad = [w for w in words if not isinstance(w, str)]
    if bad:
        raise ValueError(f"stop words must be strings; got {bad[0]!r}")
    return words


def _english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop words (its frozenset itself), imported on first use:
    ``sklearn.feature_extraction.text`` imports ``sklearn.preprocessing`` and 20 more
    modules (~15 ms of a fresh process, and its exit), which a tokenizer without
    English stop words never needs."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return ENGLISH_STOP_WORDS


def __getattr__(name: str) -> frozenset[str]:
    """``ENGLISH_STOP_WORDS``, scikit-learn's list, loaded on first access (PEP 562)."""
    if name == "ENGLISH_STOP_WORDS":
        return _english_stop_words()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Tokenizer:
    """Split text into tokens and word n-grams (see the module docstring).

    Parameters
    ----------
    kind : {"rich", "words"}, default="rich"
    lowercase : bool, default=True
    min_len, max_len : int, default 2 and None (no limit)
        Token length bounds in code points (URLs, e-mails and hosts included).
    numbers : bool, default=True
        Keep tokens that are pure numbers.
    stop_words : "english", None or iterable of str, default="english"
        Tokens to drop (compared after case folding), before n-grams are formed.
    ngram_range : (int, int), default=(1, 1)

    Notes
    -----
    A Tokenizer is callable (``str | bytes -> list[str]``), so it can be passed as
    ``tokenizer=`` to scikit-learn's vectorizers as well as to nbayes's, which run
    it compiled. Bytes are decoded as UTF-8, invalid bytes replaced.
    """

    kind: str = "rich"
    lowercase: bool = True
    min_len: int = 2
    max_len: int | None = None
    numbers: bool = True
    stop_words: object = "english"
    ngram_range: tuple[int, int] = (1, 1)

    def __post_init__(self) -> None:
        if self.kind not in ("rich", "words"):
            raise ValueError(f"kind must be 'rich' or 'words'; got {self.kind!r}")
        if int(self.min_len) < 1:
            raise ValueError(f"min_len must be >= 1; got {self.min_len!r}")
        if self.max_len is not None and int(self.max_len) < int(self.min_len):
            raise ValueError(f"max_len={self.max_len!r} is below min_len={self.min_len!r}")
        check_ngram_range(self.ngram_range)
        stop_word_set(self.stop_words)
        if not isinstance(self.stop_words, (str, type(None), frozenset, tuple)):
            object.__setattr__(self, "stop_words", tuple(self.stop_words))

    def rules(self, lowercase: bool | None = None, ngram_range=None) -> _engine.Rules:
        """The compiled tokenizer's settings, optionally overriding two of them."""
        return _engine.Rules(
            lowercase=self.lowercase if lowercase is None else lowercase,
            rich=self.kind == "rich",
            min_len=int(self.min_len),
            max_len=None if self.max_len is None else int(self.max_len),
            numbers=bool(self.numbers),
            ngram_range=check_ngram_range(ngram_range or self.ngram_range),
        )

    def __call__(self, doc: str | bytes) -> list[str]:
        """The tokens (and n-grams) of one document, in order."""
        return self.tokenize_many([doc])[0]

    def tokenize_many(self, docs: Iterable[str | bytes]) -> list[list[str]]:
        """The tokens of each document; one compiled pass over all of them."""
        docs = list(docs)
        rules = self.rules()
        text = _engine.encode_documents(docs, "utf-8", "replace", lowercase=rules.lowercase)
        vocab = _engine.Vocabulary(rules)
        vocab.add_stop_words(stop_word_set(self.stop_words))
        stream, doc_off = vocab.analyze(text, insert=True)
        names = vocab.names()
        index = vocab.feature_index(stream).tolist()
        return [[names[f] for f in index[a:b]] for a, b in itertools.pairwise(doc_off)]
