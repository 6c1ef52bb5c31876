"""The count-based scikit-learn-compatible naive Bayes classifiers (multinomial,
complement, Bernoulli; categorical in :mod:`nbayes.models.categorical`): thin glue that
names an event model, its validation and its settings. The maths lives in
``nbayes.events``.

Drop-in replacements for ``sklearn.naive_bayes`` (scikit-learn 1.9): the same
constructor parameters and defaults, methods, fitted attributes and errors, plus

- ``prior_alpha``: a Lidstone pseudocount on the class prior (off by default);
- ``GaussianNB(ddof=...)`` (in :mod:`nbayes.models.gaussian`): Bessel-corrected variances;
- ``coef_``, ``intercept_``, ``decision_function`` for the discrete models;
- ``CategoricalNB(handle_unknown=...)`` (in :mod:`nbayes.models.categorical`);
- :func:`nbayes.merge` of models fitted on disjoint parts.
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
from numpy.typing import NDArray
from sklearn.preprocessing import binarize
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_non_negative

from nbayes.core.base import BATCH_SIZE, BaseNB
from nbayes.core.linear import LinearNBMixin
from nbayes.events import (
    bernoulli,
    complement,
    counts,
    multinomial,
)
from nbayes.models.gaussian import PRIOR_ALPHA as _PRIOR_ALPHA

_ALPHA_MIN = 1e-10  # scikit-learn's floor for alpha when force_alpha=False


class _DiscreteNB(LinearNBMixin, BaseNB):
    """Shared settings of the discrete models: ``alpha``, ``fit_prior``,
    ``class_prior``, ``force_alpha``, ``prior_alpha``."""

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "fit_prior": ["boolean"],
        "class_prior": ["array-like", None],
        "force_alpha": ["boolean"],
        **_PRIOR_ALPHA,
        **BATCH_SIZE,
    }

    def _validation_options(self):
        return {"accept_sparse": "csr"}

    def _check_alpha(self):
        """``alpha`` checked against ``n_features_in_``; values below 1e-10 are
        raised to 1e-10 (with a warning) unless ``force_alpha``."""
        alpha = np.asarray(self.alpha) if not isinstance(self.alpha, Real) else self.alpha
        alpha_min = np.min(alpha)
        if isinstance(alpha, np.ndarray):
            if alpha.shape[0] != self.n_features_in_:
                raise ValueError(
                    "When alpha is an array, it should contains `n_features`. "
                    f"Got {alpha.shape[0]} elements instead of {self.n_features_in_}."
                )
            if alpha_min < 0:
                raise ValueError("All values in alpha must be greater than 0.")
        if alpha_min < _ALPHA_MIN and not self.force_alpha:
            warnings.warn(
                "alpha too small will result in numeric errors, setting alpha ="
                f" {_ALPHA_MIN:.1e}. Use `force_alpha=True` to keep alpha unchanged.",
                stacklevel=3,
            )
            return np.maximum(alpha, _ALPHA_MIN)
        return alpha

    def _estimation_settings(self):
        return {"alpha": self._check_alpha()}

    def _zero_stats(self, n_classes, n_features):
        return counts.CountStats.zero(n_classes, n_features)

    _adds_in_place = True

    def _summarize(self, X, W):
        return counts.summarize(X, W)

    def _add_into(self, stats, X, W):
        return counts.add_into(stats, X, W)

    def _log_likelihood(self, params, X):
        return self._event.log_likelihood(params, X)

    @property
    def feature_count_(self) -> NDArray[np.float64]:
        """Weighted feature totals per class, shape (n_classes, n_features)."""
        return self._stats.feature_count.copy()

    @property
    def feature_log_prob_(self) -> NDArray[np.float64]:
        """The model's per-class feature log-probabilities (or weights)."""
        return self._fitted.params.feature_log_prob

    @property
    def class_log_prior_(self) -> NDArray[np.float64]:
        """``log P(y)``, shape (n_classes,)."""
        return self._fitted.log_prior


class _NonNegativeCountsNB(_DiscreteNB):
    def _prepare_X(self, X):
        check_non_negative(X, f"{type(self).__name__} (input X)")
        return X

    def _lengths(self, class_index, rng, length) -> NDArray[np.int64]:
        """Document lengths: ``length`` if an int, ``length(rng, n)`` if callable, else
        Poisson with each class's mean training length ``N_c. / N_c``."""
        if length is None:
            stats = self._stats
            with np.errstate(divide="ignore", invalid="ignore"):
                mean = np.where(
                    stats.class_count > 0,
                    stats.feature_count.sum(axis=1) / stats.class_count,
                    0.0,
                )
            return rng.poisson(mean[class_index])
        lengths = length(rng, class_index.shape[0]) if callable(length) else length
        lengths = np.broadcast_to(np.asarray(lengths), class_index.shape)
        if not np.issubdtype(lengths.dtype, np.integer) or np.any(lengths < 0):
            raise ValueError("length must give non-negative integer document lengths.")
        return lengths

    def sample(self, n_samples, y=None, random_state=None, length=None):
        """Draw ``(X, y)``: classes from the prior (or ``y``), then counts from
        ``Multinomial(length, theta_c)``. ``length``: an int, a callable
        ``length(rng, n) -> lengths``, or None for Poisson document lengths with each
        class's mean training length."""
        return super().sample(n_samples, y=y, random_state=random_state, length=length)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True
        return tags


class MultinomialNB(_NonNegativeCountsNB):
    """Multinomial naive Bayes for counts (e.g. word counts).

    ``theta_cj = (N_cj + alpha) / (N_c. + n_features alpha)``;
    ``log P(x | c) = sum_j x_j log theta_cj``.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Lidstone pseudocount (1 = Laplace, 0 = maximum likelihood).
    force_alpha : bool, default=True
        Keep ``alpha`` even when below 1e-10.
    fit_prior : bool, default=True
        Learn the class prior; if False, a uniform prior.
    class_prior : array-like of shape (n_classes,), default=None
        A fixed class prior.
    prior_alpha : float, default=0.0
        Pseudocount added to each class count for the fitted prior.
    batch_size : int, default=None
        Rows scored at once by ``predict``, ``predict_proba``, ``predict_log_proba``,
        ``predict_joint_log_proba`` and ``decision_function``: memory beyond the
        result stays bounded however many rows X has. None chooses cache-sized
        blocks (a few MiB). Results do not depend on it.

    Attributes
    ----------
    class_count_, class_log_prior_ : ndarray of shape (n_classes,)
    feature_count_, feature_log_prob_ : ndarray of shape (n_classes, n_features)
    coef_, intercept_ : the linear view (see :class:`nbayes.core.linear.LinearNBMixin`)

    References
    ----------
    Manning, Raghavan & Schütze (2008), Introduction to Information Retrieval, 13.2.
    """

    _event = multinomial

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        batch_size=None,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size

    def _estimate(self, stats, alpha):
        return multinomial.estimate(stats, alpha)

    def _sample_features(self, params, class_index, rng, length=None):
        return multinomial.sample(params, class_index, rng, self._lengths(class_index, rng, length))


class ComplementNB(_NonNegativeCountsNB):
    """Complement naive Bayes (Rennie et al., 2003), suited to imbalanced text.

    Parameters are those of :class:`MultinomialNB`, plus

    norm : bool, default=False
        Normalise the complement weights (Rennie's weight normalisation, TWCNB's
        last step).

    Attributes
    ----------
    feature_all_ : ndarray of shape (n_features,)
        Feature totals over all classes.

    References
    ----------
    Rennie, Shih, Teevan & Karger (2003), "Tackling the poor assumptions of naive
    Bayes text classifiers", ICML.
    """

    _event = complement
    _parameter_constraints: dict = {
        **_DiscreteNB._parameter_constraints,
        "norm": ["boolean"],
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        norm=False,
        prior_alpha=0.0,
        batch_size=None,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size

    def _estimation_settings(self):
        return {**super()._estimation_settings(), "norm": self.norm}

    def _estimate(self, stats, alpha, norm):
        return complement.estimate(stats, alpha, norm)

    def _sample_features(self, params, class_index, rng, length=None):
        # The complement weights are not a distribution of the class itself: draw
        # from the class's own smoothed multinomial, estimated from the same counts.
        own = multinomial.estimate(self._stats, self._lazy.settings["alpha"])
        return multinomial.sample(own, class_index, rng, self._lengths(class_index, rng, length))

    def _jll_prior(self, log_prior):
        # Rennie et al. drop the prior; it only breaks the tie of a single class.
        return log_prior if log_prior.shape[0] == 1 else np.zeros_like(log_prior)

    @property
    def feature_all_(self) -> NDArray[np.float64]:
        return self._stats.feature_count.sum(axis=0)


class BernoulliNB(_DiscreteNB):
    """Multivariate Bernoulli naive Bayes for binary features.

    ``p_cj = (N_cj + alpha) / (N_c + 2 alpha)``;
    ``log P(x | c) = sum_j x_j log p_cj + (1 - x_j) log(1 - p_cj)``.

    Parameters are those of :class:`MultinomialNB`, plus

    binarize : float or None, default=0.0
        Threshold above which a feature counts as present; None if X is binary.

    References
    ----------
    Manning, Raghavan & Schütze (2008), Introduction to Information Retrieval, 13.3.
    """

    _event = bernoulli
    _parameter_constraints: dict = {
        **_DiscreteNB._parameter_constraints,
        "binarize": [None, Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        binarize=0.0,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        batch_size=None,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size

    def _prepare_X(self, X):
        if self.binarize is not None:
            X = binarize(X, threshold=self.binarize)
        return X

    def _estimate(self, stats, alpha):
        return bernoulli.estimate(stats, alpha)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True
        return tags
