"""Gaussian naive Bayes, the drop-in for ``sklearn.naive_bayes.GaussianNB``; the maths
lives in :mod:`nbayes.events.gaussian`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from sklearn.utils import assert_all_finite

from nbayes.core.base import BATCH_SIZE, PRIOR_ALPHA
from nbayes.core.namespace import dispatched, namespace_of, numpy_dtype
from nbayes.events import _gaussian_fit
from nbayes.events.gaussian import Gaussian
from nbayes.events.moments import chan_merge
from nbayes.models.base import EstimatorNB


class GaussianNB(EstimatorNB):
    """Gaussian naive Bayes: each feature normal within each class.

    ``log P(x | c) = -1/2 sum_j [log(2 pi var_cj) + (x_j - theta_cj)^2 / var_cj]``

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Fixed class prior; if None, the (smoothed) class frequencies.
    var_smoothing : float, default=1e-9
        Fraction of the largest feature variance added to every variance.
    ddof : {0, 1}, default=0
        Variance denominator ``N_c - ddof``: 0 for the maximum-likelihood (biased)
        estimate, as scikit-learn; 1 for Bessel's correction, as in the classic
        height/weight/foot-size example.
    prior_alpha : float, default=0.0
        Pseudocount added to each class count for the fitted prior.
    batch_size : int, default=None
        Rows scored at once in prediction (see :class:`nbayes.MultinomialNB`); None
        chooses cache-sized blocks. float32 X is upcast one block at a time, never
        whole; the outputs are float64, as the log-likelihood's accuracy contract
        (1e-13 relative) needs.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    epsilon_ : float
        The variance floor added to ``var_``.
    theta_, var_ : ndarray of shape (n_classes, n_features)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    References
    ----------
    Chan, Golub & LeVeque (1979), "Updating formulae and a pairwise algorithm for
    computing sample variances", Stanford CS tech report STAN-CS-79-773.

    Examples
    --------
    >>> from nbayes import GaussianNB
    >>> X = [[6.0, 180], [5.92, 190], [5.58, 170], [5.0, 100], [5.5, 150], [5.42, 130]]
    >>> GaussianNB(ddof=1).fit(X, ["m", "m", "m", "f", "f", "f"]).predict([[6.0, 130]])
    array(['f'], dtype='<U1')
    """

    _event_type = Gaussian
    _parameter_constraints: dict = {"priors": ["array-like", None], **PRIOR_ALPHA, **BATCH_SIZE}
    _state_attributes = (*EstimatorNB._state_attributes, "_fit_dtype")

    def __init__(
        self, *, priors=None, var_smoothing=1e-9, ddof=0, prior_alpha=0.0, batch_size=None
    ):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.ddof = ddof
        self.prior_alpha = prior_alpha
        self.batch_size = batch_size

    def _validation_options(self):
        return {"dtype": [np.float64, np.float32]}

    def _training_validation_options(self):
        """Training X's finiteness is checked on its block moments (``_add_into``),
        which read X anyway, instead of in a pass of its own."""
        return {**self._validation_options(), "ensure_all_finite": False}

    def _validated_X_y(self, X, y, reset):
        X, y = super()._validated_X_y(X, y, reset)
        if reset:
            self._fit_dtype = numpy_dtype(X.dtype)
        return X, y

    def _array_space(self, X):
        """X's own floating dtype, float32 included, as scikit-learn's array-API
        GaussianNB (its fitted attributes and outputs are float32 for float32 X)."""
        return dispatched(X)

    def _prepare_X(self, X):
        """float64 NumPy X; X of another namespace as it is (trained and scored in its
        own floating dtype, float32 included, as scikit-learn's array-API GaussianNB)."""
        return X.astype(np.float64, copy=False) if isinstance(X, np.ndarray) else X

    def check_restored(self) -> None:
        """Also the dtype of the training X, which the fitted attributes take."""
        if getattr(self, "_fit_dtype", None) not in (np.float32, np.float64):
            raise ValueError("the training dtype must be float32 or float64.")
        super().check_restored()

    def fixed_class_prior(self):
        return self.priors

    def _add_into(self, event, stats, X, W):
        return event.add_into(stats, X, W, on_non_finite=self._checked_finite(X, W))

    def _checked_finite(self, X, W) -> Callable[[], None]:
        """The finiteness check of training X, scikit-learn's own and with its errors:
        made now where rows of zero weight are left out of the moments (a NaN there
        would not show in them), else deferred until the moments are found not finite
        (every counted row is in them). Returned: the deferred check."""

        def check() -> None:
            assert_all_finite(X, estimator_name=type(self).__name__, input_name="X")

        if W.labels is None or not (W.values > 0).all():
            check()
        return check

    @staticmethod
    def _update_mean_variance(n_past, mu, var, X, sample_weight=None):
        """Pool (n_past, mu, var) with the rows of X, scikit-learn's helper kept
        for compatibility: returns the pooled mean and (biased) variance."""
        X = np.asarray(X, dtype=np.float64)
        if X.shape[0] == 0:
            return mu, var
        weights = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        weights = np.asarray(weights, dtype=np.float64)
        if weights.sum() == 0:
            return mu, var
        n_new, new_mu, new_m2 = _gaussian_fit.weighted_moments(weights, X)
        n, mean, m2 = chan_merge(
            n_past,
            np.asarray(mu, float),
            np.asarray(var, float) * n_past,
            n_new,
            new_mu,
            new_m2,
        )
        return mean, m2 / n

    def _as_fit_dtype(self, array):
        """NumPy parameters as the training dtype; on a device they are in it already."""
        return array.astype(self._fit_dtype, copy=False) if isinstance(array, np.ndarray) else array

    @property
    def theta_(self) -> NDArray:
        """Per-class feature means, shape (n_classes, n_features)."""
        return self._as_fit_dtype(self._fitted.params.in_units_of_x()[0])

    @property
    def var_(self) -> NDArray:
        """Per-class feature variances (floor included), shape (n_classes, n_features);
        ``inf`` where a variance exceeds float64 (values near 1e300: the model itself
        keeps them scaled, see :mod:`nbayes.events.gaussian`)."""
        return self._as_fit_dtype(self._fitted.params.in_units_of_x()[1])

    @property
    def epsilon_(self) -> float:
        """The variance floor added to every variance."""
        return self._fitted.params.epsilon

    @property
    def class_prior_(self) -> NDArray:
        """``P(y)``, shape (n_classes,)."""
        log_prior = self._fitted.log_prior
        return self._as_fit_dtype(namespace_of(log_prior).exp(log_prior))
