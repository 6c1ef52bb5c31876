"""nbayes: the whole family of naive Bayes classifiers.

Naive Bayes training produces additive sufficient statistics; every model here is
``estimate(sum of summarize(batch))``, and every prediction is
``argmax_y log P(y) + sum_j log P(x_j | y)`` normalised by log-sum-exp.
"""

from nbayes.aode import AODE, TAN
from nbayes.calibration import (
    CalibratedNB,
    expected_calibration_error,
    reliability_table,
)
from nbayes.categorical_nb import CategoricalNB
from nbayes.continuous import BinnedNB, ExponentialNB, KernelDensityNB, PoissonNB
from nbayes.estimators import BernoulliNB, ComplementNB, MultinomialNB
from nbayes.events.categorical import UnknownCategoryError
from nbayes.gaussian_nb import GaussianNB
from nbayes.io import ModelFileError, load, save
from nbayes.merge import merge
from nbayes.mixed import NaiveBayes
from nbayes.semi_supervised import SemiSupervisedNB

__all__ = [
    "AODE",
    "TAN",
    "BernoulliNB",
    "BinnedNB",
    "CalibratedNB",
    "CategoricalNB",
    "ComplementNB",
    "ExponentialNB",
    "GaussianNB",
    "KernelDensityNB",
    "ModelFileError",
    "MultinomialNB",
    "NaiveBayes",
    "PoissonNB",
    "SemiSupervisedNB",
    "UnknownCategoryError",
    "expected_calibration_error",
    "load",
    "merge",
    "reliability_table",
    "save",
]
__version__ = "0.1.0"
