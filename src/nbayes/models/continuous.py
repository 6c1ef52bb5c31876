"""Naive Bayes for counts, waiting times and arbitrary continuous features: thin
classes over the event models in ``nbayes.events``.

- :class:`PoissonNB`: counts, Poisson per class and feature (Gamma-MAP rates);
- :class:`ExponentialNB`: non-negative values, exponential (MLE or Gamma-MAP rates);
- :class:`KernelDensityNB`: Gaussian kernel densities (John & Langley, 1995), exact
  or binned;
- :class:`BinnedNB`: equal-width, equal-frequency or MDL (Fayyad & Irani, 1993)
  discretisation feeding the categorical model.

All four skip missing values (NaN): a missing entry adds nothing to its column's
statistics, and its term is left out of the likelihood at predict time. ``priors``
and ``prior_alpha`` set the class prior as in :class:`nbayes.GaussianNB`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nbayes.core.base import BATCH_SIZE, PRIOR_ALPHA
from nbayes.core.namespace import copy_array, namespace_of
from nbayes.events.binned import Binned
from nbayes.events.exponential import Exponential
from nbayes.events.kde import KernelDensity
from nbayes.events.poisson import Poisson
from nbayes.models.base import EstimatorNB

_COMMON = {"priors": ["array-like", None], **PRIOR_ALPHA, **BATCH_SIZE}


class _ContinuousNB(EstimatorNB):
    """Shared glue: float input with NaN as missing, ``priors``, ``class_prior_``."""

    _parameter_constraints: dict = _COMMON

    def _validation_options(self):
        return {"dtype": np.float64, "ensure_all_finite": "allow-nan"}

    def fixed_class_prior(self):
        return self.priors

    @property
    def class_prior_(self) -> NDArray[np.float64]:
        """``P(y)``, shape (n_classes,)."""
        log_prior = self._fitted.log_prior
        return namespace_of(log_prior).exp(log_prior)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


class _RateNB(_ContinuousNB):
    """Poisson and exponential: statistics ``(n_cj, S_cj)``, Gamma(alpha, beta) prior."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True
        return tags

    @property
    def feature_count_(self) -> NDArray[np.float64]:
        """``n_cj``, the weighted number of observed values, (n_classes, n_features)."""
        return copy_array(self._live_stats().count)

    @property
    def feature_sum_(self) -> NDArray[np.float64]:
        """``S_cj``, the weighted sum of the observed values, (n_classes, n_features)."""
        return copy_array(self._live_stats().total)

    @property
    def rate_(self) -> NDArray[np.float64]:
        """``lambda_cj``, shape (n_classes, n_features)."""
        return self._fitted.params.rate


class PoissonNB(_RateNB):
    """Poisson naive Bayes for counts.

    ``log P(x | c) = sum_j [x_j log lambda_cj - lambda_cj - log x_j!]`` with the MAP
    rate under a Gamma(alpha, beta) prior (shape, rate),
    ``lambda_cj = max(S_cj + alpha - 1, 0) / (n_cj + beta)`` (:mod:`nbayes.events.poisson`).

    Parameters
    ----------
    alpha, beta : float, default=2.0, 1.0
        The Gamma prior: ``beta`` pseudo-observations with total count ``alpha - 1``.
        The default adds one observation of count 1, so no rate is 0; ``alpha=1,
        beta=0`` is the maximum-likelihood estimate ``S_cj / n_cj``.
    priors : array-like of shape (n_classes,), default=None
        Fixed class prior; if None, the (smoothed) class frequencies.
    prior_alpha : float, default=0.0
        Pseudocount added to each class count for the fitted prior.
    batch_size : int, default=None
        Rows scored at once in prediction (memory stays bounded); None chooses
        cache-sized blocks. Results do not depend on it.

    Attributes
    ----------
    classes_, class_count_, class_prior_ : ndarray of shape (n_classes,)
    rate_, feature_count_, feature_sum_ : ndarray of shape (n_classes, n_features)
    n_features_in_ : int

    Input: non-negative integer counts (as floats or ints), NaN for missing.
    """

    _event_type = Poisson

    def __init__(
        self,
        *,
        alpha=Poisson.alpha,
        beta=Poisson.beta,
        priors=None,
        prior_alpha=0.0,
        batch_size=None,
    ):
        self.alpha = alpha
        self.beta = beta
        self.priors = priors
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # scikit-learn has no "non-negative integers" tag; "categorical" makes its
        # estimator checks feed rounded non-negative data, the Poisson input domain.
        tags.input_tags.categorical = True
        return tags


class ExponentialNB(_RateNB):
    """Exponential naive Bayes for non-negative values (durations, waiting times).

    ``log P(x | c) = sum_j [log lambda_cj - lambda_cj x_j]``; by default the MLE
    ``lambda_cj = n_cj / S_cj``, or the Gamma(alpha, beta) MAP
    ``max(n_cj + alpha - 1, 0) / (S_cj + beta)`` (:mod:`nbayes.events.exponential`).

    Parameters
    ----------
    alpha, beta : float, default=1.0, 0.0
        The Gamma prior (shape, rate): ``alpha - 1`` pseudo-observations with total
        ``beta``. The default is the maximum-likelihood estimate.
    priors, prior_alpha, batch_size : as in :class:`PoissonNB`.

    Notes
    -----
    The fitted attributes are those of :class:`PoissonNB`.
    """

    _event_type = Exponential

    def __init__(
        self,
        *,
        alpha=Exponential.alpha,
        beta=Exponential.beta,
        priors=None,
        prior_alpha=0.0,
        batch_size=None,
    ):
        self.alpha = alpha
        self.beta = beta
        self.priors = priors
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size


class KernelDensityNB(_ContinuousNB):
    """Kernel density naive Bayes (John & Langley, 1995).

    ``P(x_j | c)`` is a weighted Gaussian kernel density of class ``c``'s values of
    feature ``j``, evaluated in log space (:mod:`nbayes.events.kde`).

    Parameters
    ----------
    bandwidth : {"scott", "silverman"}, float or array-like of shape (n_features,)
        Per class and feature ``sigma_cj n_cj^(-1/5)`` ("scott") or
        ``sigma_cj (3 n_cj / 4)^(-1/5)`` ("silverman"), from all data seen; or the
        kernel standard deviation itself.
    algorithm : {"auto", "exact", "binned"}, default="auto"
        "exact" keeps the training rows: prediction costs O(n_test n_train d).
        "binned" keeps per-class counts on a grid of at most ``max_bins`` bins per
        feature: prediction costs O(n_test n_classes max_bins d), whatever n_train.
        "auto" is exact up to ``max_exact_samples`` training rows, then binned.
    max_exact_samples : int, default=10000
    max_bins : int, default=512
    priors, prior_alpha, batch_size : as in :class:`PoissonNB`.

    Attributes
    ----------
    bandwidth_ : ndarray of shape (n_classes, n_features)
    classes_, class_count_, class_prior_ : ndarray of shape (n_classes,)

    Raises
    ------
    nbayes.events.kde.ConstantColumnError
        (a ValueError) from ``fit`` if a feature is constant, with a bandwidth rule.
    """

    _event_type = KernelDensity

    def __init__(
        self,
        *,
        bandwidth=KernelDensity.bandwidth,
        algorithm=KernelDensity.algorithm,
        max_exact_samples=KernelDensity.max_exact_samples,
        max_bins=KernelDensity.max_bins,
        priors=None,
        prior_alpha=0.0,
        batch_size=None,
    ):
        self.bandwidth = bandwidth
        self.algorithm = algorithm
        self.max_exact_samples = max_exact_samples
        self.max_bins = max_bins
        self.priors = priors
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size

    def fit(self, X, y, sample_weight=None):
        """Fit as :meth:`BaseNB.fit`; a constant feature raises here, not at predict."""
        super().fit(X, y, sample_weight)
        self.event.check_bandwidths(self._stats)
        return self

    @property
    def bandwidth_(self) -> NDArray[np.float64]:
        """``h_cj``, shape (n_classes, n_features), in the units of X."""
        params = self._fitted.params
        if params.exponent is None:
            return params.bandwidth
        with np.errstate(over="ignore"):
            return np.ldexp(params.bandwidth, params.exponent)


class BinnedNB(_ContinuousNB):
    """Discretising naive Bayes: each feature cut into intervals, then categorical.

    Parameters
    ----------
    strategy : {"mdl", "uniform", "quantile"}, default="mdl"
        Supervised MDL cuts (Fayyad & Irani, 1993; Weka's ``Discretize -D``, the
        default of Weka's NaiveBayes ``-D``), equal width, or equal frequency
        (:mod:`nbayes.events.binned`).
    n_bins : int, default=5
        At most this many intervals ("uniform", "quantile").
    alpha : float, default=1.0
        Lidstone pseudocount of the interval probabilities (1 = Laplace).
    max_bins : int, default=1024
        Resolution of the grid the statistics are kept on: cuts are chosen among the
        gaps between its occupied bins.
    priors, prior_alpha, batch_size : as in :class:`PoissonNB`.

    Attributes
    ----------
    cut_points_ : list of n_features increasing arrays
        ``x <= cut_1`` is interval 0, ``cut_1 < x <= cut_2`` interval 1, ...
    n_categories_ : ndarray of shape (n_features,)
    feature_log_prob_ : list of n_features arrays of shape (n_classes, n_intervals_j)
    classes_, class_count_, class_prior_ : ndarray of shape (n_classes,)
    """

    _event_type = Binned

    def __init__(
        self,
        *,
        strategy=Binned.strategy,
        n_bins=Binned.n_bins,
        alpha=Binned.alpha,
        max_bins=Binned.max_bins,
        priors=None,
        prior_alpha=0.0,
        batch_size=None,
    ):
        self.strategy = strategy
        self.n_bins = n_bins
        self.alpha = alpha
        self.max_bins = max_bins
        self.priors = priors
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size

    @property
    def cut_points_(self) -> list[NDArray[np.float64]]:
        return [cut.copy() for cut in self._fitted.params.cuts]

    @property
    def n_categories_(self) -> NDArray[np.intp]:
        return self._fitted.params.categorical.n_categories.copy()

    @property
    def feature_log_prob_(self) -> list[NDArray[np.float64]]:
        return self._fitted.params.categorical.per_feature()
