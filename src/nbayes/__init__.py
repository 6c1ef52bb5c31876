"""nbayes: the whole family of naive Bayes classifiers.

Naive Bayes training produces additive sufficient statistics; every model here is
``estimate(sum of summarize(batch))``, and every prediction is
``argmax_y log P(y) + sum_j log P(x_j | y)`` normalised by log-sum-exp.
"""

from typing import TYPE_CHECKING

from nbayes._lazy import lazy_exports

#: Public name -> the module that defines it; imported on first use (``nbayes._lazy``).
_EXPORTS = {
    "AODE": "nbayes.aode",
    "TAN": "nbayes.aode",
    "CalibratedNB": "nbayes.calibration",
    "expected_calibration_error": "nbayes.calibration",
    "reliability_table": "nbayes.calibration",
    "CategoricalNB": "nbayes.categorical_nb",
    "BinnedNB": "nbayes.continuous",
    "ExponentialNB": "nbayes.continuous",
    "KernelDensityNB": "nbayes.continuous",
    "PoissonNB": "nbayes.continuous",
    "BernoulliNB": "nbayes.estimators",
    "ComplementNB": "nbayes.estimators",
    "MultinomialNB": "nbayes.estimators",
    "UnknownCategoryError": "nbayes.events.categorical",
    "GaussianNB": "nbayes.gaussian_nb",
    "ModelFileError": "nbayes.io",
    "load": "nbayes.io",
    "save": "nbayes.io",
    "merge": "nbayes.merge",
    "NaiveBayes": "nbayes.mixed",
    "SemiSupervisedNB": "nbayes.semi_supervised",
}
lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # what static tools see; at run time the names load on first use
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
