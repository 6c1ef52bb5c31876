"""The count-based scikit-learn drop-ins: multinomial, complement and Bernoulli naive
Bayes (categorical in :mod:`nbayes.models.categorical`), each a thin class over its
event model in :mod:`nbayes.events`.

Drop-in replacements for ``sklearn.naive_bayes`` (scikit-learn 1.9): the same
constructor parameters and defaults, methods, fitted attributes and errors, plus

- ``prior_alpha``: a Lidstone pseudocount on the class prior (off by default);
- ``coef_``, ``intercept_``, ``decision_function``: the linear view;
- :func:`nbayes.merge` of models fitted on disjoint parts.
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
from numpy.typing import NDArray
from sklearn.utils._param_validation import Interval

from nbayes.core.base import BATCH_SIZE, PRIOR_ALPHA
from nbayes.core.linear import LinearNBMixin
from nbayes.core.namespace import copy_array, device_of, float_dtype, is_numpy, namespace_of
from nbayes.errors import DomainError
from nbayes.events._contract import MAX_PSEUDOCOUNT
from nbayes.events.bernoulli import Bernoulli
from nbayes.events.complement import Complement
from nbayes.events.multinomial import Multinomial
from nbayes.models.base import EstimatorNB

_ALPHA_MIN = 1e-10  # scikit-learn's floor for alpha when force_alpha=False


class _DiscreteNB(LinearNBMixin, EstimatorNB):
    """Shared settings of the discrete drop-ins: ``alpha``, ``fit_prior``,
    ``class_prior``, ``force_alpha``, ``prior_alpha``, ``batch_size``."""

    _parameter_constraints: dict = {
        "fit_prior": ["boolean"],
        "class_prior": ["array-like", None],
        "force_alpha": ["boolean"],
        **PRIOR_ALPHA,
        **BATCH_SIZE,
    }

    def _validation_options(self):
        return {"accept_sparse": "csr"}

    def _domain_message(self, error: DomainError) -> str:
        """scikit-learn's words for negative input, word for word."""
        return f"{error.problem} in data passed to {type(self).__name__} (input X)."

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
        if not np.all(alpha <= MAX_PSEUDOCOUNT):
            raise ValueError(
                f"alpha must be finite and at most {MAX_PSEUDOCOUNT:.3g} "
                "(beyond, the pseudocount sums overflow)."
            )
        if alpha_min < _ALPHA_MIN and not self.force_alpha:
            warnings.warn(
                "alpha too small will result in numeric errors, setting alpha ="
                f" {_ALPHA_MIN:.1e}. Use `force_alpha=True` to keep alpha unchanged.",
                stacklevel=4,
            )
            return np.maximum(alpha, _ALPHA_MIN)
        return alpha

    def _event_settings(self):
        return {**super()._event_settings(), "alpha": self._check_alpha()}

    @property
    def feature_count_(self) -> NDArray[np.float64]:
        """Weighted feature totals per class, shape (n_classes, n_features)."""
        return copy_array(self._live_stats().feature_count)

    @property
    def feature_log_prob_(self) -> NDArray[np.float64]:
        """The model's per-class feature log-probabilities (or weights)."""
        return self._fitted.params.feature_log_prob

    @property
    def class_log_prior_(self) -> NDArray[np.float64]:
        """``log P(y)``, shape (n_classes,)."""
        return self._fitted.log_prior


class _CountsNB(_DiscreteNB):
    """Multinomial and complement: non-negative counts; ``sample(length=...)``."""

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


class MultinomialNB(_CountsNB):
    """Multinomial naive Bayes for counts (e.g. word counts).

    ``theta_cj = (N_cj + alpha) / (N_c. + n_features alpha)``;
    ``log P(x | c) = sum_j x_j log theta_cj`` (:mod:`nbayes.events.multinomial`).

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

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> X = np.array([[2, 0, 1], [3, 1, 0], [0, 2, 3], [1, 3, 2]])
    >>> MultinomialNB().fit(X, ["a", "a", "b", "b"]).predict([[4, 0, 0]])
    array(['a'], dtype='<U1')
    """

    _event_type = Multinomial

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


class ComplementNB(_CountsNB):
    """Complement naive Bayes (Rennie et al., 2003), suited to imbalanced text
    (:mod:`nbayes.events.complement`).

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

    _event_type = Complement

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

    @property
    def feature_all_(self) -> NDArray[np.float64]:
        counts = self._live_stats().feature_count
        return namespace_of(counts).sum(counts, axis=0)


class BernoulliNB(_DiscreteNB):
    """Multivariate Bernoulli naive Bayes for binary features
    (:mod:`nbayes.events.bernoulli`).

    ``p_cj = (N_cj + alpha) / (N_c + 2 alpha)``;
    ``log P(x | c) = sum_j x_j log p_cj + (1 - x_j) log(1 - p_cj)``.

    Parameters are those of :class:`MultinomialNB`, plus

    binarize : float or None, default=0.0
        Threshold above which a feature counts as present; None if X is already
        binary (then any value other than 0 and 1 is an error).

    References
    ----------
    Manning, Raghavan & Schütze (2008), Introduction to Information Retrieval, 13.3.
    """

    _event_type = Bernoulli
    _parameter_constraints: dict = {"binarize": [None, Interval(Real, 0, None, closed="left")]}

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
        if self.binarize is not None and not is_numpy(X):  # another array namespace
            xp = namespace_of(X)
            dtype = float_dtype(xp, X.dtype, device_of(X))
            return xp.astype(xp.astype(X, dtype) > self.binarize, dtype)
        if self.binarize is not None:
            # imported here: sklearn.preprocessing costs ~0.2 s of start-up, which
            # `nbayes train` paid for listing the models (bench/NOTES.md, scenario J)
            from sklearn.preprocessing import binarize

            X = binarize(X, threshold=self.binarize)
        return X

    def onnx_input(self, graph, x: str | None = None) -> str:
        """``X``, binarized in the graph as in :meth:`_prepare_X` (``x > binarize``)."""
        x = super().onnx_input(graph, x)
        if self.binarize is None:
            return x
        above = graph.op("Greater", x, graph.const(float(self.binarize)))
        return graph.op("Cast", above, to=graph.float_type)

    def _domain_message(self, error: DomainError) -> str:
        return super(_DiscreteNB, self)._domain_message(error)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True
        return tags
