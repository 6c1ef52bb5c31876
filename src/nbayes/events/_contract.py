"""The event-model contract: what one event model ``P(x | y)`` of a block of features
must provide, defined once.

An event model is a frozen dataclass whose fields are its settings (hyper-parameters,
with their defaults: the one place they are written). It turns a batch of input into
additive sufficient statistics, the statistics into parameters, and the parameters into
per-class log-likelihoods::

    X, W ─summarize─▶ Stats ─(+)─▶ Stats ─estimate─▶ Params ─log_likelihood─▶ (n, k)

with ``W`` the class-weight matrix (n_samples × n_classes, :class:`ClassWeights`):
hard labels times sample weights, or EM's responsibilities. Everything else is derived
from this contract, for every model alike: the estimator classes
(:class:`nbayes.core.base.BaseNB`), the column blocks of :class:`nbayes.NaiveBayes`,
model files, explanations, nomograms, sampling, EM and Dask.

Missing values are part of the contract: in input read as ``"numbers"`` a NaN is a
missing value, in input read as ``"codes"`` a negative code is. A missing entry adds
nothing to the statistics of its feature and its term is left out of the likelihood
(the feature is marginalised). The scikit-learn drop-ins reject NaN before it gets here.

Example
-------
>>> import numpy as np
>>> from nbayes.core.validation import hard_class_weights
>>> from nbayes.events.poisson import Poisson
>>> model = Poisson()                      # Gamma(2, 1) prior on each rate
>>> X = np.array([[0.0], [2.0], [5.0], [7.0]])
>>> W = hard_class_weights(np.array([0, 0, 1, 1]), 2, None)
>>> params = model.estimate(model.summarize(model.check(X), W))
>>> params.rate
array([[1.        ],
       [4.33333333]])
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Sequence
from numbers import Real
from typing import Any, ClassVar, Generic, Literal, TypeVar

import numpy as np
from numpy.typing import NDArray
from sklearn.utils._param_validation import Interval

from nbayes.core.validation import ClassWeights
from nbayes.errors import NotSupportedError, StatisticsError
from nbayes.events._stats import Statistics

StatsT = TypeVar("StatsT", bound=Statistics)
ParamsT = TypeVar("ParamsT")

#: What a factor ``P(x_j | y)`` of an explanation is.
FactorKind = Literal["probability", "density", "weight", "conditional probability"]
#: How a table column is read for an event model (see ``EventModel.reads``).
Reads = Literal["numbers", "codes", "values"]


def setting(default: Any, *constraints: Any, shared: str | None = None) -> Any:
    """A setting of an event model: its ``default`` and its scikit-learn parameter
    ``constraints`` (``sklearn.utils._param_validation``). ``shared`` names the setting
    of :class:`nbayes.NaiveBayes` that sets it for every block (e.g. ``"alpha"``, the
    Lidstone pseudocount of all discrete kinds); other settings are per kind
    (``kind_options``)."""
    metadata = {"constraints": list(constraints), "shared": shared}
    return dataclasses.field(default=default, metadata=metadata)


#: The largest pseudocount ``alpha`` a model accepts: ``alpha * K`` and every sum of
#: pseudocounts and counts stay finite for any number ``K`` of categories or features up
#: to 2**64 (as the spam filter's ``MAX_ALPHA``); beyond, sums overflow to inf.
MAX_PSEUDOCOUNT = float(np.finfo(np.float64).max) / 2.0**64


def pseudocount_interval() -> Interval:
    """The constraint of a Lidstone pseudocount: ``0 <= alpha <= MAX_PSEUDOCOUNT``."""
    return Interval(Real, 0, MAX_PSEUDOCOUNT, closed="both")


def lidstone_alpha() -> Any:
    """The Lidstone pseudocount setting: scalar or one per feature, 1 by default;
    ``NaiveBayes(alpha=...)`` sets it for every block. Its constraint is
    scikit-learn's (the drop-ins' messages are theirs); the estimators check
    :data:`MAX_PSEUDOCOUNT` when they fit."""
    return setting(1.0, Interval(Real, 0, None, closed="left"), "array-like", shared="alpha")


def skip_missing_setting() -> Any:
    """Whether NaN marks a missing value (column blocks of mixed tables); off for the
    scikit-learn drop-ins, which reject NaN before it gets here."""
    return setting(False, "boolean")


@dataclasses.dataclass(frozen=True)
class EventModel(ABC, Generic[StatsT, ParamsT]):
    """One event model: the distribution of a block of features given the class.

    Class attributes
    ----------------
    name : str
        The model's name, also the column kind in :class:`nbayes.NaiveBayes`.
    factor_kind : FactorKind
        What ``exp`` of a per-feature term is: a probability, a density, a weight
        (complement NB) or a conditional probability (models that are not naive).
    reads : {"numbers", "codes", "values"}
        How a table column is read for it: floats with NaN for missing values,
        integer category codes with -1 for missing values, or the values themselves
        (any hashable, or text; None or NaN missing) for a model that codes or
        tokenizes them itself (see :meth:`known_values`).
    adds_in_place : bool
        Whether :meth:`add_into` updates the statistics it is given (the caller then
        owns them; :class:`nbayes.core.base.BaseNB` copies shared statistics first).
    uses_prior : bool
        Whether the class prior enters the score (complement NB leaves it out).
    column_kind : bool
        Whether a column of :class:`nbayes.NaiveBayes` can have this model (a
        generative model of separate columns: not the complement weights, not the
        pairwise models of whole rows).
    """

    name: ClassVar[str]
    factor_kind: ClassVar[FactorKind] = "probability"
    reads: ClassVar[Reads] = "numbers"
    adds_in_place: ClassVar[bool] = False
    uses_prior: ClassVar[bool] = True
    column_kind: ClassVar[bool] = True

    # ------------------------------------------------------------ settings
    @classmethod
    def settings(cls) -> dict[str, Any]:
        """Setting name -> default."""
        return {f.name: f.default for f in dataclasses.fields(cls)}

    @classmethod
    def parameter_constraints(cls) -> dict[str, list]:
        """Setting name -> scikit-learn parameter constraints."""
        return {f.name: list(f.metadata.get("constraints", [])) for f in dataclasses.fields(cls)}

    @classmethod
    def shared_settings(cls) -> dict[str, str]:
        """Setting name -> the :class:`nbayes.NaiveBayes` setting that sets it."""
        return {
            f.name: f.metadata["shared"]
            for f in dataclasses.fields(cls)
            if f.metadata.get("shared") is not None
        }

    # ------------------------------------------------------------ input
    def check(self, X):
        """X (n_samples, n_features) if every value is in the model's domain (missing
        values allowed); else :class:`nbayes.errors.DomainError` naming the first
        offending value. Default: every value is allowed."""
        return X

    def known_values(self, params: ParamsT, j: int) -> Sequence | None:
        """For a model that reads values and codes them (``reads == "values"``), the
        values of feature ``j`` it knows, in the order of their codes: a reader of
        prediction input may then code a column against them in one look-up pass
        (:func:`nbayes.mixed.columns.read_codes`). None (the default) where the model
        needs the values themselves (text to tokenize, an unknown value to name)."""
        return None

    def missing(self, n_samples: int, n_features: int) -> NDArray:
        """An input block of missing values only, (n_samples, n_features)."""
        if self.reads == "codes":
            return np.full((n_samples, n_features), -1, dtype=np.intp)
        return np.full((n_samples, n_features), np.nan)

    # ------------------------------------------------------------ statistics
    @abstractmethod
    def zero(self, n_classes: int, n_features: int) -> StatsT:
        """The statistics of no data."""

    def summarize(self, X, W: ClassWeights) -> StatsT:
        """The statistics of X (n_samples, n_features) under class weights W."""
        return self.add_into(self.zero(W.n_classes, X.shape[1]), X, W)

    def add_into(self, stats: StatsT, X, W: ClassWeights) -> StatsT:
        """``stats`` plus the statistics of X under W (in place where
        :attr:`adds_in_place`: then ``stats`` must be owned by the caller)."""
        return stats + self.summarize(X, W)

    def summarize_array(self, X, W) -> StatsT:
        """The statistics of X (n_samples, n_features) under the dense class weights W
        (n_samples, n_classes), both arrays of one array-API namespace (PyTorch, CuPy,
        ...), on one device and of one floating dtype: the same statistics as
        :meth:`summarize`, their floating fields on that device (what scikit-learn's
        ``array_api_dispatch`` trains on; :meth:`estimate` and
        :meth:`log_likelihood_array` then run there too). A model that provides it runs
        on every namespace (:meth:`runs_on_array_api`); default: not supported."""
        raise NotSupportedError(
            f"The {self.name} model runs on NumPy arrays only: convert the input with "
            "numpy.asarray, or set sklearn.set_config(array_api_dispatch=False)."
        )

    @classmethod
    def runs_on_array_api(cls) -> bool:
        """Whether the model trains and predicts on any array-API namespace
        (:meth:`summarize_array` and :meth:`log_likelihood_array` provided)."""
        return (
            cls.summarize_array is not EventModel.summarize_array
            and cls.log_likelihood_array is not EventModel.log_likelihood_array
        )

    def validate(self, stats: StatsT, n_classes: int, n_features: int) -> None:
        """Raise :class:`nbayes.errors.StatisticsError` unless ``stats`` are this model's
        statistics of ``n_classes`` classes and ``n_features`` features, with finite,
        non-negative counts (model files and merges are checked this way)."""
        if not isinstance(stats, type(self.zero(1, 0))):
            raise StatisticsError(
                f"{type(stats).__name__} are not the statistics of the {self.name} model."
            )
        stats.validate(n_classes, n_features)

    def domain(self, X, W: ClassWeights) -> StatsT:
        """Statistics that count nothing (W is all zero) but span X's values: how EM
        fixes the parameter space before its first M-step. Default: ``summarize``."""
        return self.summarize(X, W)

    # ------------------------------------------------------------ parameters
    @abstractmethod
    def estimate(self, stats: StatsT) -> ParamsT:
        """The parameters, smoothed as the settings say."""

    def log_parameter_prior(self, params: ParamsT) -> float:
        """``log p(theta)`` up to a constant for the prior whose mode the estimate is
        (what MAP-EM never decreases); 0 for a maximum-likelihood estimate or a model
        whose estimate is not the mode of a fixed prior."""
        return 0.0

    # ------------------------------------------------------------ likelihood
    def encode(self, params: ParamsT, X):
        """Checked input X as :meth:`log_likelihood` reads it fastest under ``params``,
        computed once for all the row blocks of a prediction: an array (or CSR matrix)
        of n_samples rows, which the likelihood methods accept as they accept X.
        Default: X itself; a model that maps values to fitted codes maps them here
        (:class:`nbayes.mixed.vocabulary.Vocabulary`)."""
        return X

    @abstractmethod
    def log_likelihood(self, params: ParamsT, X) -> NDArray[np.float64]:
        """``log P(x | y)`` summed over the observed features: (n_samples, n_classes)."""

    def log_likelihood_array(self, params: ParamsT, X):
        """:meth:`log_likelihood` of X of an array-API namespace, with ``params``
        estimated from statistics of that namespace and device (see
        :meth:`summarize_array`): (n_samples, n_classes) in X's namespace, on its
        device. Default: not supported."""
        raise NotSupportedError(
            f"The {self.name} model runs on NumPy arrays only: convert the input with "
            "numpy.asarray, or set sklearn.set_config(array_api_dispatch=False)."
        )

    @abstractmethod
    def log_likelihood_terms(self, params: ParamsT, X) -> NDArray[np.float64]:
        """``log P(x_j | y)`` per feature, 0 where left out (missing):
        (n_samples, n_classes, n_features); summed over features it is
        :meth:`log_likelihood`."""

    def feature_log_likelihood(
        self, params: ParamsT, j: int, values: NDArray, n_features: int
    ) -> NDArray[np.float64]:
        """``log P(x_j = v | y)`` for each of ``values`` of feature ``j`` (the others
        missing): (n_values, n_classes)."""
        X = self.missing(len(values), n_features)
        X[:, j] = values
        # a copy, not a view: a view would keep every feature's terms alive
        return self.log_likelihood_terms(params, X)[:, :, j].copy()

    def factor_parts(
        self, params: ParamsT, j: int, value: Any, n_features: int
    ) -> list[tuple[str, float, NDArray[np.float64]]] | None:
        """The parts feature ``j``'s ``log P(x_j = value | y)`` is the sum of, for
        explanations: ``(part, count, log terms (n_classes,))`` each, e.g. a text
        column's tokens (``count * log theta_ct``); None where the factor is one piece
        (the default)."""
        return None

    def unseen(self, params: ParamsT, j: int, values: NDArray) -> NDArray[np.bool_]:
        """Whether each of ``values`` (model input, none missing) of feature ``j`` is a
        value training never gave the model (an unknown category): its factor is then
        the model's rule for the unknown (``handle_unknown``), and an explanation names
        it. (n_values,) bools. Default: none is (a number is never unknown to a
        continuous or count model)."""
        return np.zeros(len(values), dtype=bool)

    def factor_kinds(self, n_features: int) -> list[str]:
        """What each feature's factor is (:attr:`factor_kind`, for every feature)."""
        return [self.factor_kind] * n_features

    def linear_terms(self, params: ParamsT) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(coef, intercept)`` with ``log P(x | y=c) = x' @ coef[c] + intercept[c]``
        (``x'`` the model's encoding of x); :class:`NotSupportedError` where
        ``log P(x | y)`` is not linear in any encoding of x."""
        raise NotSupportedError(
            f"The {self.name} model has no linear view: its log-likelihood is not linear in x."
        )

    def onnx_log_likelihood(self, params: ParamsT, x: Any, graph: Any) -> str:
        """:meth:`log_likelihood` written as ONNX ops (see :mod:`nbayes.export`):
        ``x`` names the graph tensor of the model's input as :meth:`log_likelihood`
        reads it (floats with NaN for missing values, or int64 codes with -1 for
        missing values; a list of (n, 1) column tensors for a model that reads values);
        ``graph`` is a :class:`nbayes.export.Graph`, whose methods add the ops. Returns
        the name of the (n, n_classes) tensor of ``log P(x | y)``, terms that are the
        same in every class (which the posterior cancels) optionally left out.
        :class:`NotSupportedError` where the model cannot be written so."""
        raise NotSupportedError(
            f"The {self.name} model cannot be exported to ONNX: its log-likelihood has no "
            "form in ONNX operators."
        )

    def onnx_column_kind(self, params: ParamsT, j: int) -> str:
        """The element type of feature ``j``'s ONNX input: "float" (numbers, NaN where
        missing) or "string"."""
        return "float"

    # ------------------------------------------------------------ generation, explanation
    @abstractmethod
    def sample(
        self,
        params: ParamsT,
        stats: StatsT,
        class_index: NDArray[np.intp],
        rng: np.random.Generator,
        **options: Any,
    ) -> NDArray:
        """Rows drawn from ``P(x | y = class_index[i])``: (n, n_features)."""

    @abstractmethod
    def value_grid(
        self, params: ParamsT, stats: StatsT, j: int, class_prior: NDArray[np.float64]
    ) -> list:
        """The values of feature ``j`` an explanation enumerates (the most informative
        features, a nomogram): every value of a discrete feature; for a continuous one, a
        few representative values of the class mixture (``class_prior`` weights it)."""

    def describe(
        self, params: ParamsT, stats: StatsT, n_features: int, class_prior: NDArray[np.float64]
    ) -> list[dict[str, Any]]:
        """What the fitted model says about each feature, for people (``nbayes
        inspect``): one dict per feature, mapping a summary's name to its value per
        class (a list of n_classes), or ``"values"`` (the feature's values) beside a
        factor per class over those values (a list of n_classes lists). Default: each
        value of :meth:`value_grid` and ``exp`` of its term under its
        :attr:`factor_kind` ("probability", "density", ...)."""
        out = []
        for j in range(n_features):
            grid = self.value_grid(params, stats, j, class_prior)
            if len(grid) == 0:
                out.append({})
                continue
            log_p = self.feature_log_likelihood(params, j, np.asarray(grid), n_features)
            out.append({"values": list(grid), self.factor_kind: np.exp(log_p).T.tolist()})
        return out
