"""nbayes: the whole family of naive Bayes classifiers.

Naive Bayes training produces additive sufficient statistics; every model here is
``estimate(sum of summarize(batch))``, and every prediction is
``argmax_y log P(y) + sum_j log P(x_j | y)`` normalised by log-sum-exp.
"""

from nbayes.core.lazy import lazy_exports

#: ``typing.TYPE_CHECKING`` without importing typing (see :mod:`nbayes.core.lazy`).
TYPE_CHECKING = False

#: Public name -> the module that defines it; imported on first use (``nbayes.core.lazy``).
_EXPORTS = {
    # on first use too: the one-shot ``nbayes spam classify`` imports nbayes, not its version
    "__version__": "nbayes._version",
    "AODE": "nbayes.models.aode",
    "TAN": "nbayes.models.aode",
    "CalibratedNB": "nbayes.meta.calibration",
    "expected_calibration_error": "nbayes.inspection.calibration",
    "reliability_table": "nbayes.inspection.calibration",
    "CategoricalNB": "nbayes.models.categorical",
    "BinnedNB": "nbayes.models.continuous",
    "ExponentialNB": "nbayes.models.continuous",
    "KernelDensityNB": "nbayes.models.continuous",
    "PoissonNB": "nbayes.models.continuous",
    "BernoulliNB": "nbayes.models.discrete",
    "ComplementNB": "nbayes.models.discrete",
    "MultinomialNB": "nbayes.models.discrete",
    "NotSupportedError": "nbayes.errors",
    "UnknownCategoryError": "nbayes.errors",
    "GaussianNB": "nbayes.models.gaussian",
    "ModelFileError": "nbayes.errors",
    "load": "nbayes.io",
    "save": "nbayes.io",
    "merge": "nbayes.merge",
    "NaiveBayes": "nbayes.mixed.naive_bayes",
    "SemiSupervisedNB": "nbayes.meta.semi_supervised",
    "to_onnx": "nbayes.export",
}
lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # what static tools see; at run time the names load on first use
    from nbayes._version import __version__ as __version__
    from nbayes.errors import ModelFileError, NotSupportedError, UnknownCategoryError
    from nbayes.export import to_onnx
    from nbayes.inspection.calibration import expected_calibration_error, reliability_table
    from nbayes.io import load, save
    from nbayes.merge import merge
    from nbayes.meta.calibration import CalibratedNB
    from nbayes.meta.semi_supervised import SemiSupervisedNB
    from nbayes.mixed.naive_bayes import NaiveBayes
    from nbayes.models.aode import AODE, TAN
    from nbayes.models.categorical import CategoricalNB
    from nbayes.models.continuous import BinnedNB, ExponentialNB, KernelDensityNB, PoissonNB
    from nbayes.models.discrete import BernoulliNB, ComplementNB, MultinomialNB
    from nbayes.models.gaussian import GaussianNB

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
    "NotSupportedError",
    "PoissonNB",
    "SemiSupervisedNB",
    "UnknownCategoryError",
    "expected_calibration_error",
    "load",
    "merge",
    "reliability_table",
    "save",
    "to_onnx",
]
