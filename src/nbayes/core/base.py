"""The machinery every nbayes estimator shares, written once.

``fit`` and ``partial_fit`` are one path: validate → class-weight matrix ``W`` →
add the batch's statistics into the running statistics (``fit`` starts them at
zero). The running statistics belong to the estimator, which may update them in
place; once anyone else may hold them (they were read through ``_stats``, or set
from outside), the next batch copies them first (copy on write). Parameters are estimated lazily,
from the statistics and the settings in force at the last training call, the first
time a prediction or a fitted attribute needs them, so a hundred ``partial_fit``
calls cost one estimate. Prediction is log-likelihood → :mod:`nbayes.core.posterior`.

Array namespaces: under ``sklearn.set_config(array_api_dispatch=True)`` an input of
another array-API namespace (PyTorch, CuPy, ...) is trained on and predicted in that
namespace, on its device, by the event model's ``summarize_array`` and
``log_likelihood_array`` (where the model has them: the ``array_api_support`` tag); the
running statistics then live on that device. What leaves the estimator (``_stats``,
model files, merges, explanations) is NumPy.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._array_api import check_same_namespace
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from nbayes.core import posterior
from nbayes.core.namespace import (
    Space,
    copy_array,
    device_of,
    dispatched,
    namespace_of,
    space_of,
    to_numpy,
    widest_float,
)
from nbayes.core.parallel import map_blocks, n_workers
from nbayes.core.quick_check import quick_check_X_y
from nbayes.core.state import Fitted, Scoring, _LazyFit, _RunningStats
from nbayes.core.tables import canonical_sparse, check_table
from nbayes.core.validation import (
    ClassWeights,
    check_class_prior,
    check_sample_weight,
    check_targets,
    encode_targets,
    hard_class_weights,
    label_index,
    row_blocks,
    same_classes,
    soft_class_weights,
)
from nbayes.errors import DomainError, NotEstimableError

if TYPE_CHECKING:  # what the core calls of the event models' contract (nbayes.events)
    from nbayes.core.event_model import EventModelProtocol

#: Sparse prediction blocks: at most this many nonzeros (views of X, not copies;
#: temporaries of (rows, n_classes), e.g. 40k rows x 20 classes: 6 MiB).
SPARSE_BLOCK_NONZEROS = 1 << 22

class IntegerInterval(Interval):
    """scikit-learn's ``Interval`` of integers, refusing booleans (``True`` is an
    ``Integral`` to Python, so ``batch_size=True`` passed the constructor's check and
    failed at prediction)."""

    def is_satisfied_by(self, val) -> bool:
        return not isinstance(val, bool | np.bool_) and super().is_satisfied_by(val)


#: ``batch_size``: rows scored at once in prediction; None chooses cache-sized blocks.
BATCH_SIZE = {"batch_size": [IntegerInterval(Integral, 1, None, closed="left"), None]}
#: The Lidstone pseudocount on the class prior, a parameter of every model.
PRIOR_ALPHA = {"prior_alpha": [Interval(Real, 0, None, closed="left")]}


class BaseNB(ClassifierMixin, BaseEstimator):
    """Base class of every nbayes estimator, derived from one event model.

    Subclasses set ``_event_type`` (an :class:`~nbayes.events._contract.EventModel`
    class) and may override:

    _event_settings() : the model's settings from the estimator's parameters (default:
        the parameters named like the settings).
    _validation_options() / _training_validation_options() : ``validate_data`` options
        (dtype, sparse input, finiteness).
    _prepare_X(X) : X converted for the model (e.g. binarized), before its domain check.
    _domain_message(error) : the text of a :class:`~nbayes.errors.DomainError`.
    """

    #: The event model this estimator is derived from.
    _event_type: ClassVar[type[EventModelProtocol]]
    #: Fitted attributes model files store besides the statistics.
    _state_attributes: ClassVar[tuple[str, ...]] = (
        "classes_",
        "n_features_in_",
        "feature_names_in_",
    )

    #: The model's name: the ``--model`` of the command line, its event model's name
    #: unless the class says otherwise (``"mixed"`` for a table of mixed columns).
    kind: ClassVar[str]
    #: How a table reaches it: as its event model reads a column (``"numbers"``,
    #: ``"codes"``, ``"values"``), unless the class says otherwise (``"table"``: a
    #: DataFrame of mixed columns, each read as its kind reads).
    reads: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Each parameter named like a setting of the event model is constrained as the
        model declares it (the constraints are written once, in the event model); the
        class's ``kind`` and ``reads`` are its event model's unless it sets them."""
        super().__init_subclass__(**kwargs)
        event_type = cls.__dict__.get("_event_type")
        if event_type is None:
            return
        if "kind" not in cls.__dict__:
            cls.kind = event_type.name
        if "reads" not in cls.__dict__:
            cls.reads = event_type.reads
        own = dict(cls.__dict__.get("_parameter_constraints", {}))
        parameters = cls._get_param_names()
        declared = event_type.parameter_constraints()
        inherited = dict(getattr(super(cls, cls), "_parameter_constraints", {}))
        cls._parameter_constraints = {
            **inherited,
            **{name: declared[name] for name in parameters if name in declared},
            **own,
        }

    def __sklearn_tags__(self):
        """``array_api_support`` where the event model runs on any array namespace
        (its ``summarize_array`` and ``log_likelihood_array``: see the contract)."""
        tags = super().__sklearn_tags__()
        event_type = getattr(type(self), "_event_type", None)
        tags.array_api_support = bool(event_type is not None and event_type.runs_on_array_api())
        return tags

    # ------------------------------------------------------------ the event model
    def _event_settings(self) -> dict[str, Any]:
        """The event model's settings: the parameters of the same names."""
        params = self.get_params(deep=False)
        return {name: params[name] for name in self._event_type.settings() if name in params}

    def _event_model(self) -> EventModelProtocol:
        """The event model under the current parameters."""
        return self._event_type(**self._event_settings())

    @property
    def event(self) -> EventModelProtocol:
        """The event model of the last training call (the one the statistics are read by)."""
        lazy = self.__dict__.get("_lazy")
        return lazy.event if lazy is not None else self._event_model()

    # ------------------------------------------------------------ statistics
    @property
    def _stats(self) -> Any:
        """The running statistics, as NumPy arrays (copied from their device where they
        were trained on one). Reading them hands them out: the next training call
        copies them before adding in place, so what was read never changes."""
        running = self.__dict__.get("_running")
        if running is None:
            raise AttributeError(f"{type(self).__name__} has no statistics yet.")
        running.shared = True
        return _on_host(running.stats)

    def _live_stats(self) -> Any:
        """The running statistics where they live (on a device after training on one),
        for the estimator's own reads: estimates and fitted attributes."""
        running = self.__dict__.get("_running")
        if running is None:
            raise AttributeError(f"{type(self).__name__} has no statistics yet.")
        return running.stats

    @property
    def statistics(self) -> Any:
        """The fitted additive statistics (the event model's ``Statistics``), shared:
        training after reading them copies them first, so they never change under the
        reader. AttributeError before training."""
        return self._stats

    def on_host(self) -> BaseNB:
        """This estimator, or where its statistics live on a device a copy of it with
        NumPy statistics: what explanations read (model files, merges and the
        public ``statistics`` and ``fitted_parameters`` are NumPy already)."""
        if namespace_of(getattr(self._live_stats(), "class_count", None)) is np:
            return self
        return clone(self).restore_state(self.fitted_state())

    @_stats.setter
    def _stats(self, stats: Any) -> None:
        """Statistics given from outside (merge, EM, files): never updated in place."""
        self.__dict__["_running"] = _RunningStats(stats, id(self), shared=True)

    def _own_stats(self, stats: Any) -> None:
        """Make ``stats``, which no one else holds, the running statistics."""
        self.__dict__["_running"] = _RunningStats(stats, id(self), shared=False)

    def replace_statistics(self, stats: Any) -> None:
        """Make ``stats`` (held elsewhere too) the running statistics, estimated afresh
        by the current event model: how EM resets to the labelled statistics."""
        self._stats = stats
        self._lazy = _LazyFit(self._event_model())

    def restore_state(self, state: dict[str, Any]) -> BaseNB:
        """Set the fitted state ``state`` (``_state_attributes`` and ``"statistics"``),
        e.g. from a model file or a merge; parameters are estimated lazily. ValueError
        for a state with other attributes or no statistics."""
        unexpected = sorted(set(state) - {*self._state_attributes, "statistics"})
        if unexpected:
            raise ValueError(f"unexpected fitted attribute {unexpected[0]!r:.40}.")
        if "statistics" not in state:
            raise ValueError("the fitted state holds no statistics.")
        for name in self._state_attributes:
            if name in state:
                setattr(self, name, state[name])
        self._check_prior_settings()
        self.replace_statistics(state["statistics"])
        return self

    def check_restored(self) -> None:
        """Raise (StatisticsError or ValueError) unless the restored state is one a fit
        could have made: parameters within their declared constraints, ``classes_`` a
        sorted 1-D array of distinct labels, a positive ``n_features_in_``, feature names
        to match, statistics the event model accepts for these classes and features
        (finite, non-negative counts, consistent shapes), and settings the statistics
        can be estimated under (e.g. one ``alpha`` per feature)."""
        self._validate_params()
        self._check_restored_shape()
        self.event.validate(self._stats, self.classes_.size, int(self.n_features_in_))
        self._check_estimable()

    def _check_restored_shape(self) -> None:
        """``classes_``, ``n_features_in_`` and ``feature_names_in_`` as a fit makes them."""
        classes = self.classes_
        if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size == 0:
            raise ValueError("classes_ must be a non-empty 1-D array.")
        if classes.dtype.kind not in "iufUSOb":
            raise ValueError(f"classes_ has an unsupported dtype {classes.dtype}.")
        if len(np.unique(classes)) != classes.size:
            raise ValueError("classes_ holds repeated labels.")
        n_features = self.n_features_in_
        if isinstance(n_features, bool) or not isinstance(n_features, Integral) or n_features < 1:
            raise ValueError(f"n_features_in_ must be a positive integer, got {n_features!r}.")
        names = getattr(self, "feature_names_in_", None)
        if names is not None and (
            not isinstance(names, np.ndarray) or names.ndim != 1 or len(names) != n_features
        ):
            raise ValueError("feature_names_in_ does not match n_features_in_.")
        if names is not None and len(set(names.tolist())) != names.size:
            raise ValueError("feature_names_in_ holds repeated names.")

    def _check_estimable(self) -> None:
        """Estimate the parameters now, so that settings that do not fit the statistics
        (an ``alpha`` per feature of the wrong length, say) fail on load rather than at
        prediction. A kernel density feature with no bandwidth yet (a constant column
        after ``partial_fit``) is a state training can leave: it is allowed here and
        reported, as after training, when a prediction needs it."""
        try:
            self._fitted  # noqa: B018 - estimated for its checks
        except NotEstimableError:
            self._lazy = _LazyFit(self.event)

    def fitted_state(self) -> dict[str, Any]:
        """The fitted state :meth:`restore_state` takes: what model files store."""
        state = {
            name: getattr(self, name) for name in self._state_attributes if hasattr(self, name)
        }
        state["statistics"] = self._stats
        return state

    def _add_into(self, event: EventModelProtocol, stats, X, W: ClassWeights):
        """``stats`` plus the statistics of X under W (hook: GaussianNB checks X's
        finiteness on the moments)."""
        return event.add_into(stats, X, W)

    # ------------------------------------------------------------ training
    def fit(self, X, y, sample_weight=None):
        """Fit the model to X (n_samples, n_features) and labels y (n_samples,).

        ``sample_weight`` (n_samples,) weights each row; an integer weight is the
        same as repeating the row.
        """
        self._validate_params()
        X, y = self._validated_X_y(X, y, reset=True)
        event = self._event_model()
        X, (self.classes_, index) = self._training_input(event, X, y)
        self._own_stats(event.zero(len(self.classes_), X.shape[1]))
        return self._learn(event, X, y, sample_weight, index)

    def _training_input(self, event: EventModelProtocol, X, y):
        """``(input, (classes, label index))`` of validated X and y: X as ``event``
        reads it (``_input_for``) and the labels encoded (checked, sorted distinct
        labels and each row's index among them)."""
        return self._input_for(event, X), encode_targets(y)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add one batch to the statistics.

        ``classes`` (all labels that may ever appear) is required on the first
        call and optional afterwards. Fitting all batches one by one gives the
        same model as one ``fit`` on their union.
        """
        first_call = not hasattr(self, "classes_")
        if first_call:  # as scikit-learn: parameters are checked once per training run
            self._validate_params()
        if first_call and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        X, y = self._validated_X_y(X, y, reset=first_call)
        event = self._event_model()
        X = self._input_for(event, X)
        check_targets(y)
        if classes is not None and not (first_call or same_classes(classes, self.classes_)):
            declared = np.unique(classes)
            if not np.array_equal(self.classes_, declared):
                raise ValueError(
                    f"`classes={classes!r}` is not the same as on last call to "
                    f"partial_fit, was: {self.classes_!r}"
                )
        if first_call:
            self.classes_ = np.unique(classes)
            self._own_stats(event.zero(len(self.classes_), X.shape[1]))
        return self._learn(event, X, y, sample_weight)

    def _learn(self, event: EventModelProtocol, X, y, sample_weight, index=None) -> BaseNB:
        """Learn from X and labels y by ``event``; ``index`` (y's class indices) if
        already known."""
        sample_weight = check_sample_weight(to_numpy(sample_weight), X.shape[0])
        if X.shape[0] != y.shape[0]:
            raise ValueError(
                f"X.shape[0]={X.shape[0]} and y.shape[0]={y.shape[0]} are incompatible."
            )
        if index is None:
            index = label_index(y, self.classes_)
        W = hard_class_weights(index, len(self.classes_), sample_weight)
        return self.learn_weighted(X, W, event)

    def _array_space(self, X) -> Space | None:
        """Where X of another array namespace is computed (under scikit-learn's array
        API dispatch): its namespace and device, in float64 where the device has it
        (the NumPy path's dtype, so outputs agree across namespaces); None for the
        NumPy path."""
        space = dispatched(X)
        if space is None:
            return None
        return space._replace(dtype=widest_float(space.xp, space.device))

    def learn_weighted(self, X, W: ClassWeights, event: EventModelProtocol | None = None) -> BaseNB:
        """Add the statistics of checked X under class weights W (n, n_classes), by
        ``event`` (default: the model under the current parameters).

        Models that add in place get their own running statistics, copied first if
        someone else may hold them (copy on write)."""
        event = self._event_model() if event is None else event
        self._check_prior_settings()
        running = self.__dict__["_running"]
        stats = running.stats
        space = self._array_space(X)
        if space is not None:  # on X's namespace and device: the batch's statistics added
            X = X if X.dtype == space.dtype else space.xp.astype(X, space.dtype)
            stats = stats.to_space(space) + event.summarize_array(X, W.on(space))
        else:
            stats = _on_host(stats)
            if event.adds_in_place and (running.shared or running.owner != id(self)):
                stats = stats.copy()
            stats = self._add_into(event, stats, X, W)
        stats.warn_inexact()
        self._own_stats(stats)
        self._lazy = _LazyFit(event)
        return self

    def extend_domain(self, X) -> None:
        """Let validated X shape the parameter space (e.g. categories, vocabularies),
        counting nothing: the model's ``domain`` statistics of X added in."""
        event = self._event_model()
        W = soft_class_weights(np.zeros((X.shape[0], len(self.classes_))))
        self.replace_statistics(self._stats + event.domain(X, W))

    def _validated_X_y(self, X, y, reset: bool):
        """X and y checked (``validate_data``), not yet prepared. A later batch that
        needs no conversion takes :func:`nbayes.core.quick_check.quick_check_X_y`, the same
        checks without their per-call costs (a ``partial_fit`` stream pays them per
        batch)."""
        check_table(X, type(self).__name__)
        options = self._training_validation_options()
        if dispatched(X) is not None:  # checked whole there (no deferred checks on a device)
            options = {**_options_on_device(options, X), "ensure_all_finite": True}
        checked = None if reset else quick_check_X_y(self, X, y, options)
        X, y = checked or validate_data(self, X, y, **options, reset=reset)
        return X, to_numpy(y)  # labels are read on the host (classes_, their codes)

    def check_X(self, X):
        """X validated, prepared and checked against the fitted model's domain."""
        return self._input_for(self.event, self._validate_X(X))

    def _input_for(self, event: EventModelProtocol, X):
        """Validated X as ``event`` reads it: prepared (e.g. binarized), and its values
        checked against the model's domain (a ValueError naming the value)."""
        if dispatched(X) is not None and not event.runs_on_array_api():
            event.summarize_array(X, None)  # its NotSupportedError, naming the model
        try:
            return event.check(self._prepare_X(canonical_sparse(X)))
        except DomainError as error:  # kept as the cause: the CLI names its line from it
            raise ValueError(self._domain_message(error)) from error

    def _domain_message(self, error: DomainError) -> str:
        return error.described(type(self).__name__, lambda j: f"feature {j}")

    def _validate_X(self, X):
        """X checked against the fitted model (shape, dtype, sparsity), not yet
        prepared: prediction prepares it block by block."""
        check_table(X, type(self).__name__)
        options = self._validation_options()
        if dispatched(X) is not None:
            options = _options_on_device(options, X)
        return validate_data(self, X, **options, reset=False)

    def _validation_options(self) -> dict[str, Any]:
        return {}

    def _training_validation_options(self) -> dict[str, Any]:
        """``validate_data`` options for training X (default: prediction's)."""
        return self._validation_options()

    def _prepare_X(self, X):
        return X

    # ------------------------------------------------------------ the prior
    def fixed_class_prior(self):
        """The class prior the user fixed, or None."""
        return getattr(self, "class_prior", None)

    def _check_prior_settings(self) -> None:
        prior = self.fixed_class_prior()
        if prior is not None:
            check_class_prior(prior, len(self.classes_))

    def _log_prior(self, stats) -> NDArray[np.float64]:
        """``log P(y)`` from the class counts and the prior settings."""
        return posterior.class_log_prior(
            stats.class_count,
            class_prior=self.fixed_class_prior(),
            fit_prior=getattr(self, "fit_prior", True),
            pseudocount=self.prior_alpha,
        )

    # ------------------------------------------------------------ estimates
    @property
    def _fitted(self) -> Fitted:
        """Parameters for the current statistics, estimated on first use."""
        lazy = self.__dict__.get("_lazy")
        if lazy is None:
            raise AttributeError("This estimator is not fitted yet.")
        if lazy.fitted is None:
            stats = self._live_stats()
            lazy.fitted = Fitted(lazy.event.estimate(stats), self._log_prior(stats), lazy.event)
        return lazy.fitted

    def _fitted_in(self, space: Space | None) -> Fitted:
        """:attr:`_fitted` in ``space`` (an array namespace, device and dtype; None for
        NumPy): the statistics moved there and estimated there, once per space."""
        fitted = self._fitted
        stats = self._live_stats()
        counts = getattr(stats, "class_count", None)
        here = namespace_of(counts)
        if space is None and here is np:
            return fitted
        if (
            space is not None
            and here is space.xp
            and device_of(counts) == space.device
            and counts.dtype == space.dtype
        ):
            return fitted
        lazy = self.__dict__["_lazy"]
        key = None if space is None else (id(space.xp), str(space.device), str(space.dtype))
        if key not in lazy.elsewhere:
            moved = _on_host(stats) if space is None else stats.to_space(space)
            params = lazy.event.estimate(moved)
            lazy.elsewhere[key] = Fitted(params, self._log_prior(moved), lazy.event)
        return lazy.elsewhere[key]

    @property
    def fitted_parameters(self) -> Fitted:
        """The estimate from the current statistics (``params``, ``log_prior``, the
        ``event`` model that made them), computed on first use. AttributeError before
        training. NumPy arrays wherever the model was trained (see :meth:`_fitted_in`)."""
        return self._fitted_in(None)

    @property
    def class_count_(self) -> NDArray[np.float64]:
        """Weighted number of training samples per class, shape (n_classes,)."""
        return copy_array(self._live_stats().class_count)

    # ------------------------------------------------------------ prediction
    def _joint_log_likelihood(self, X, fitted: Fitted | None = None) -> NDArray[np.float64]:
        fitted = self._fitted if fitted is None else fitted
        if namespace_of(X) is np:
            log_likelihood = fitted.event.log_likelihood(fitted.params, X)
        else:
            log_likelihood = fitted.event.log_likelihood_array(fitted.params, X)
        return posterior.joint_log_likelihood(
            log_likelihood,
            self.prior_term(fitted.log_prior),
            out=True,
        )

    def prior_term(self, log_prior: NDArray[np.float64]) -> NDArray[np.float64]:
        """The prior term added to the log-likelihood: ``log P(y)``, or 0 for models
        that leave it out (complement NB, where it only breaks a single class's tie)."""
        if self.event.uses_prior or log_prior.shape[0] == 1:
            return log_prior
        return namespace_of(log_prior).zeros_like(log_prior)

    def log_likelihood_terms(self, X) -> NDArray[np.float64]:
        """``log P(x_j | y)`` per feature of checked X: (n_samples, n_classes, n_features)."""
        fitted = self._fitted_in(None)
        return fitted.event.log_likelihood_terms(fitted.params, X)

    def _row_blocks(self, X) -> list[slice]:
        """The row blocks prediction works on, one at a time: ``batch_size`` rows, or
        by default cache-sized blocks (dense X: about 2 MiB of rows and temporaries;
        sparse X: about :data:`SPARSE_BLOCK_NONZEROS` nonzeros). Peak memory beyond the
        result is a few blocks' temporaries, however many rows X has."""
        n_rows = X.shape[0]
        if not (isinstance(X, np.ndarray) or sp.issparse(X)):
            return [slice(0, n_rows)]  # a subclass's own container (e.g. a mixed table)
        step = getattr(self, "batch_size", None)
        if step is not None and (
            isinstance(step, bool) or not isinstance(step, Integral) or step < 1
        ):
            raise ValueError(f"batch_size must be a positive integer or None, got {step!r}.")
        if step is None:
            if not sp.issparse(X):
                return row_blocks(n_rows, max(X.shape[1], len(self.classes_)))
            # Each block is a view of X's arrays; its product streams through it once per
            # cache-sized block of classes (see events.counts.product), so blocks are
            # large, split evenly over the block threads. The thread count is asked
            # only for large X: its first call scans every loaded library (~10 ms of a
            # fresh process, more than a small predict).
            n_blocks = -(-X.nnz // SPARSE_BLOCK_NONZEROS)
            if X.nnz > 1 << 20:
                workers = n_workers()
                n_blocks = -(-n_blocks // workers) * workers
            step = max(64, -(-n_rows // max(n_blocks, 1)))
        return [slice(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]

    def _blockwise(self, X, per_block) -> NDArray:
        """``per_block(jll)`` for the joint log-likelihood of each row block of X,
        stacked into one array of n_samples rows.

        X is validated whole but prepared (``_prepare_X``: dtype, binarizing, checks)
        one block at a time, so no full-size converted copy of X is ever made: float32
        X stays float32 outside the block being scored. Blocks run on the block threads
        (:func:`nbayes.core.parallel.map_blocks`) after one row has been scored alone,
        which builds the lazily prepared parameters once and gives the output's shape.
        """
        X = self._validate_X(X)
        space = self._array_space(X)
        fitted = self._fitted_in(space)  # estimated once, before the threads start
        if space is not None and X.dtype != space.dtype:
            X = space.xp.astype(X, space.dtype)
        X = self._prediction_input(X, fitted)
        blocks = self._row_blocks(X)

        def block_result(rows: slice) -> NDArray:
            part = X if len(blocks) == 1 else self._take_rows(X, rows)
            return per_block(
                self._joint_log_likelihood(self._input_for(fitted.event, part), fitted)
            )

        if len(blocks) <= 1:
            return block_result(blocks[0]) if blocks else per_block(self._empty_jll())
        template = block_result(slice(0, 1))
        out = np.empty((X.shape[0], *template.shape[1:]), dtype=template.dtype)

        def fill(rows: slice) -> None:
            out[rows] = block_result(rows)

        map_blocks(fill, blocks)
        return out

    def _prediction_input(self, X, fitted: Fitted):
        """Validated X as prediction cuts it into row blocks: X itself (each block is
        prepared on its own by ``_input_for``); a subclass may read and encode X here,
        once for all blocks, into a container of its own with ``shape`` and rows
        taken by :meth:`_take_rows`."""
        return X

    def _take_rows(self, X, rows: slice):
        """The rows ``rows`` of prediction input X (see :func:`_take_rows`)."""
        return _take_rows(X, rows)

    def _empty_jll(self) -> NDArray[np.float64]:
        return np.empty((0, len(self.classes_)))

    # ------------------------------------------------------------ explanations
    def value_grid(self, j: int) -> list:
        """The values of feature ``j`` explanations enumerate (see the contract)."""
        fitted = self._fitted_in(None)
        prior = np.exp(fitted.log_prior - logsumexp(fitted.log_prior))
        return fitted.event.value_grid(fitted.params, self._stats, j, prior)

    def describe_features(self) -> list[dict]:
        """Per-feature summaries of the fitted model, per class (see the contract's
        ``describe``)."""
        fitted = self._fitted_in(None)
        prior = np.exp(fitted.log_prior - logsumexp(fitted.log_prior))
        return fitted.event.describe(fitted.params, self._stats, self.n_features_in_, prior)

    def feature_log_likelihood(self, j: int, values) -> NDArray[np.float64]:
        """``log P(x_j = v | y)`` for each of ``values`` (model input values) of
        feature ``j``: (n_values, n_classes)."""
        fitted = self._fitted_in(None)
        values = self._prepare_X(np.asarray(values)[:, None])[:, 0]  # e.g. binarized
        return fitted.event.feature_log_likelihood(fitted.params, j, values, self.n_features_in_)

    def factor_parts(self, j: int, value):
        """The parts of feature ``j``'s factor for ``value`` (see the contract's
        ``factor_parts``), or None."""
        fitted = self._fitted_in(None)
        return fitted.event.factor_parts(fitted.params, j, value, self.n_features_in_)

    def unseen(self, j: int, value) -> bool:
        """Whether ``value`` (model input, not missing) of feature ``j`` is one training
        never gave the model (see the contract's ``unseen``)."""
        fitted = self._fitted_in(None)
        values = self._prepare_X(np.asarray([value], dtype=object)[:, None])[:, 0]
        return bool(fitted.event.unseen(fitted.params, j, values)[0])

    def feature_kinds(self) -> list[str]:
        """The kind (event model name) of each feature: (n_features_in_,)."""
        return [self.event.name] * int(self.n_features_in_)

    def factor_kinds(self) -> list[str]:
        """What each feature's factor ``P(x_j | y)`` is (see the contract)."""
        return self.event.factor_kinds(self.n_features_in_)

    def predict_joint_log_proba(self, X) -> NDArray[np.float64]:
        """``log P(x, y) = log P(y) + log P(x | y)``, shape (n_samples, n_classes).

        Columns follow ``classes_``.
        """
        check_is_fitted(self)
        self._check_namespace(X, "predict_joint_log_proba")
        return self._blockwise(X, lambda jll: jll)

    def predict(self, X) -> NDArray:
        """The MAP class ``argmax_y log P(y) + log P(x | y)``, shape (n_samples,)."""
        check_is_fitted(self)
        self._check_namespace(X, "predict")
        prior = self._log_prior_for
        index = self._blockwise(X, lambda jll: posterior.predict_index(jll, prior(jll)))
        return self._labels(index)

    def _check_namespace(self, X, method: str) -> None:
        """Under array API dispatch, ValueError unless X is of the namespace and on the
        device the model was trained on (scikit-learn's ``check_same_namespace``: a
        model trained on a GPU predicts GPU arrays; with dispatch off, NumPy input)."""
        check_same_namespace(X, self, attribute="class_count_", method=method)

    def _log_prior_for(self, jll) -> Any:
        """``log P(y)`` in the namespace and on the device of ``jll``."""
        return self._fitted_in(None if namespace_of(jll) is np else space_of(jll)).log_prior

    def _labels(self, index):
        """The labels ``classes_[index]``: in index's namespace and on its device where
        the labels are numbers (as scikit-learn's array-API predictions), else NumPy."""
        xp = namespace_of(index)
        if xp is np:
            return self.classes_[index]
        if self.classes_.dtype.kind not in "biuf":
            return self.classes_[to_numpy(index)]
        return xp.take(xp.asarray(self.classes_, device=device_of(index)), index)

    def predict_log_proba(self, X) -> NDArray[np.float64]:
        """``log P(y | x)`` by log-sum-exp normalisation, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        self._check_namespace(X, "predict_log_proba")
        prior = self._log_prior_for
        return self._blockwise(X, lambda jll: posterior.log_posterior(jll, prior(jll)))

    def predict_proba(self, X) -> NDArray[np.float64]:
        """``P(y | x)``, shape (n_samples, n_classes); rows sum to 1."""
        check_is_fitted(self)
        self._check_namespace(X, "predict_proba")
        prior = self._log_prior_for
        return self._blockwise(X, lambda jll: posterior.posterior_proba_inplace(jll, prior(jll)))

    # ------------------------------------------------------------ export
    def scoring(self) -> Scoring:
        """What prediction computes with (the event model, its parameters and the
        prior terms; see :class:`nbayes.core.state.Scoring`), for exporters such as
        :func:`nbayes.to_onnx`."""
        check_is_fitted(self)
        fitted = self._fitted_in(None)
        return Scoring(
            fitted.event, fitted.params, self.prior_term(fitted.log_prior), fitted.log_prior
        )

    def onnx_input(self, graph, x: str | None = None) -> str:
        """The input of this estimator's event model in an ONNX graph (see
        :mod:`nbayes.export`), from ``x`` (a pipeline's previous step) or else from the
        graph input it makes: here one float input ``X`` of shape (n, n_features_in_),
        NaN where a value is missing; read as int64 codes (-1 for NaN) by a model that
        reads codes."""
        if x is None:
            x = graph.input("X", "float", (None, int(self.n_features_in_)))
        return graph.codes(x) if self.event.reads == "codes" else x

    # ------------------------------------------------------------ generation
    def sample(self, n_samples: int, y=None, random_state=None, **options):
        """Draw ``(X, y)`` from the fitted generative model.

        Classes come from the prior ``P(y)`` unless ``y`` fixes them (one label, or
        ``n_samples`` labels); each row is then drawn from ``P(x | y)``.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of shape (n_samples,)
        """
        self._check_sample_count(n_samples)
        rng = np.random.default_rng(random_state)
        fitted = self._fitted_in(None)
        if y is None:
            prior = np.exp(fitted.log_prior - logsumexp(fitted.log_prior))
            class_index = rng.choice(len(self.classes_), size=n_samples, p=prior / prior.sum())
        else:
            labels = np.asarray(y)
            labels = np.full(n_samples, labels) if labels.ndim == 0 else labels
            if labels.shape != (n_samples,):
                raise ValueError(
                    f"y must be one label or {n_samples} labels; got shape {labels.shape}."
                )
            class_index = label_index(labels, self.classes_)
        X = self._sample_features(fitted.params, class_index, rng, **options)
        return X, self.classes_[class_index]

    def _check_sample_count(self, n_samples) -> None:
        check_is_fitted(self)
        if isinstance(n_samples, bool) or not isinstance(n_samples, Integral) or n_samples < 0:
            raise ValueError(f"n_samples must be a non-negative integer, got {n_samples!r}.")

    def _sample_features(self, params, class_index, rng, **options):
        """Rows drawn from ``P(x | y = classes_[class_index])``: (n, n_features)."""
        return self.event.sample(params, self._stats, class_index, rng, **options)


def _options_on_device(options: dict[str, Any], X) -> dict[str, Any]:
    """``validate_data`` options for X of another array namespace: NumPy dtypes named
    as that namespace's dtypes of the same names."""
    dtype = options.get("dtype")
    if dtype is None or dtype == "numeric":
        return options
    xp = namespace_of(X)
    dtypes = dtype if isinstance(dtype, list | tuple) else [dtype]
    names = [np.dtype(np.int64 if d == "int" else d).name for d in dtypes]
    return {**options, "dtype": [getattr(xp, name) for name in names]}


def _on_host(stats: Any) -> Any:
    """``stats`` with NumPy arrays (see :meth:`Statistics.to_numpy`)."""
    to_host = getattr(stats, "to_numpy", None)
    return stats if to_host is None else to_host()


def _take_rows(X, rows: slice):
    """``X[rows]``; for CSR a view of X's arrays (slicing a CSR matrix, or building one
    from views of a much larger array, copies them: ``scipy.sparse._prune_array``)."""
    if not (sp.issparse(X) and X.format == "csr"):
        return X[rows]
    start, stop = X.indptr[rows.start], X.indptr[rows.stop]
    view = type(X)((rows.stop - rows.start, X.shape[1]), dtype=X.dtype)
    view.data, view.indices = X.data[start:stop], X.indices[start:stop]
    view.indptr = X.indptr[rows.start : rows.stop + 1] - start
    return view
