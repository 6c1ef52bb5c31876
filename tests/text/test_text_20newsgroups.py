"""A quick end-to-end check on a sample of 20 Newsgroups bydate: the text pipeline
(compiled vectorizer, Rennie transforms, complement NB) classifies real posts."""

from __future__ import annotations

import numpy as np
from conftest import DATA, require_path
from sklearn.pipeline import make_pipeline

from nbayes import ComplementNB, MultinomialNB
from nbayes.text import CountVectorizer, RennieTransformer


def sample(split: str, step: int):
    root = require_path(DATA / "20newsgroups_bydate" / f"20news-bydate-{split}")
    files = sorted(root.glob("*/*"))[::step]
    return [p.read_bytes() for p in files], np.array([p.parent.name for p in files])


def test_pipelines_reach_a_sane_accuracy_on_a_sample():
    train, y_train = sample("train", 4)  # ~2,800 posts
    test, y_test = sample("test", 8)  # ~940 posts
    assert len(set(y_train)) == 20
    chance = np.bincount(np.unique(y_test, return_inverse=True)[1]).max() / len(y_test)
    twcnb = make_pipeline(
        CountVectorizer(encoding="latin-1"), RennieTransformer(), ComplementNB(alpha=0.3)
    )
    mnb = make_pipeline(CountVectorizer(encoding="latin-1"), MultinomialNB(alpha=0.01))
    # the full split gives 0.84-0.90 (bench/RESULTS.md); on this sample the
    # pipelines score about 0.81 and 0.75, against a chance level near 0.05
    for model, floor in ((twcnb, 0.75), (mnb, 0.65)):
        accuracy = np.mean(model.fit(train, y_train).predict(test) == y_test)
        assert accuracy > floor, (model, accuracy)
        assert accuracy > 10 * chance

