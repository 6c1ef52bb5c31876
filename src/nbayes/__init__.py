"""nbayes: the whole family of naive Bayes classifiers.

Naive Bayes training produces additive sufficient statistics; every model here is
``estimate(sum of summarize(batch))``, and every prediction is
``argmax_y log P(y) + sum_j log P(x_j | y)`` normalised by log-sum-exp.
"""

from nbayes.estimators import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
)
from nbayes.events.categorical import UnknownCategoryError
from nbayes.io import ModelFileError, load, save
from nbayes.merge import merge
from nbayes.mixed import NaiveBayes

__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianNB",
    "ModelFileError",
    "MultinomialNB",
    "NaiveBayes",
    "UnknownCategoryError",
    "load",
    "merge",
    "save",
]
__version__ = "0.1.0"
