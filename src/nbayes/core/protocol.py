"""The estimator contract: what every nbayes estimator offers the code around it.

The event models have their contract (:class:`nbayes.events._contract.EventModel`);
the estimators built on them (:class:`nbayes.models.base.EstimatorNB` over the engine
:class:`nbayes.core.base.BaseNB`, and their subclasses) have this one. EM
(:mod:`nbayes.meta`), explanations and diagnostics
(:mod:`nbayes.inspection`), :func:`nbayes.merge`, model files (:mod:`nbayes.files`),
the exporters and the command line use an estimator through these members only, never
through its private ones (a test scans the package for that), so the base class may
change how it keeps its state without them noticing.

An estimator is a scikit-learn classifier (``fit``, ``partial_fit``, ``predict``,
``predict_proba``, ``predict_log_proba``, ``predict_joint_log_proba``, ``classes_``,
``n_features_in_``) and also:

- **what it is**: :attr:`~Estimator.kind` (its name, the command line's ``--model``)
  and :attr:`~Estimator.reads` (how a table reaches it);
- **its event model and statistics**: :attr:`~Estimator.event` (the event model of the
  last training call), :attr:`~Estimator.statistics` (the additive sufficient
  statistics, never changed under a reader), :attr:`~Estimator.fitted_parameters` (the
  estimate from them: ``params``, ``log_prior``, ``event``);
- **learning from weights**: :meth:`~Estimator.check_X` (input validated and checked
  against the fitted model's domain), :meth:`~Estimator.learn_weighted` (add the
  statistics of checked X under a class-weight matrix W, n x n_classes: hard labels,
  sample weights and EM responsibilities alike), :meth:`~Estimator.extend_domain` (let
  X shape the parameter space, counting nothing), :meth:`~Estimator.replace_statistics`;
- **the pieces of a posterior**: :meth:`~Estimator.log_likelihood_terms` (``log P(x_j |
  y)`` per feature), :meth:`~Estimator.prior_term` (the prior term the score adds),
  :meth:`~Estimator.value_grid`, :meth:`~Estimator.feature_log_likelihood`,
  :meth:`~Estimator.unseen`, :meth:`~Estimator.factor_parts`, :meth:`~Estimator.factor_kinds`,
  :meth:`~Estimator.feature_kinds` (each feature's kind: a mixed table's column kinds),
  :meth:`~Estimator.describe_features`, :meth:`~Estimator.fixed_class_prior`;
- **for the user**: ``explain`` and ``save`` (``load`` a class method), written above
  the core (:class:`nbayes.models.base.EstimatorNB`);
- **what exporters read**: :meth:`~Estimator.scoring` and :meth:`~Estimator.onnx_input`;
- **its fitted state**, as model files and :func:`nbayes.merge` store and rebuild it:
  :meth:`~Estimator.fitted_state`, :meth:`~Estimator.restore_state`,
  :meth:`~Estimator.check_restored`.

Example
-------
>>> import numpy as np
>>> from nbayes import GaussianNB
>>> from nbayes.core.protocol import Estimator
>>> model = GaussianNB().fit(np.array([[0.0], [1.0], [5.0], [6.0]]), [0, 0, 1, 1])
>>> isinstance(model, Estimator)
True
>>> model.statistics.class_count.tolist()
[2.0, 2.0]
>>> model.log_likelihood_terms(model.check_X([[0.5]])).shape  # (rows, classes, features)
(1, 2, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from nbayes.core.state import Fitted, Scoring
from nbayes.core.validation import ClassWeights

if TYPE_CHECKING:  # what the core calls of the event models' contract (nbayes.events)
    from nbayes.core.event_model import EventModelProtocol


@runtime_checkable
class Estimator(Protocol):
    """What an nbayes estimator offers beyond scikit-learn's classifier interface (see
    the module docstring). ``classes_`` has shape (n_classes,); X has
    ``n_features_in_`` columns."""

    classes_: NDArray
    n_features_in_: int
    #: The model's name (``"gaussian"``, ..., ``"mixed"``): the command line's
    #: ``--model``.
    kind: str
    #: How a table reaches it: ``"numbers"``, ``"codes"``, ``"values"`` (as its event
    #: model reads a column) or ``"table"`` (a DataFrame of mixed columns).
    reads: str

    # ------------------------------------------------------------ model and statistics
    @property
    def event(self) -> EventModelProtocol:
        """The event model of the last training call (the one its statistics are read
        by and its parameters estimated by)."""

    @property
    def statistics(self) -> Any:
        """The additive sufficient statistics (``Statistics``: ``zero``, ``+``,
        ``take_classes``); shared with the estimator, which copies them before it adds
        to them again."""

    @property
    def fitted_parameters(self) -> Fitted:
        """The estimate from the current statistics: ``params``, ``log_prior``
        (n_classes,) and the ``event`` model that made them."""

    # ------------------------------------------------------------ learning from weights
    def check_X(self, X: Any) -> Any:
        """X (n_samples, n_features_in_) validated, prepared and checked against the
        fitted model's domain: the input :meth:`learn_weighted` and
        :meth:`log_likelihood_terms` take."""

    def learn_weighted(self, X: Any, W: ClassWeights) -> Any:
        """Add the statistics of checked X under class weights W (n_samples, n_classes)
        to the running statistics; returns the estimator."""

    def extend_domain(self, X: Any) -> None:
        """Let checked X shape the parameter space (categories, vocabularies), counting
        nothing."""

    def replace_statistics(self, stats: Any) -> None:
        """Make ``stats`` (held elsewhere too: never changed in place) the statistics,
        estimated afresh under the current settings."""

    # ------------------------------------------------------------ pieces of a posterior
    def log_likelihood_terms(self, X: Any) -> NDArray[np.float64]:
        """``log P(x_j | y)`` per feature of checked X: (n_samples, n_classes,
        n_features)."""

    def prior_term(self, log_prior: NDArray[np.float64]) -> NDArray[np.float64]:
        """The prior term the score adds to the summed log-likelihood terms: ``log
        P(y)``, or zeros for a model that leaves the prior out (complement NB)."""

    def value_grid(self, j: int) -> list:
        """The values of feature ``j`` that explanations enumerate."""

    def feature_log_likelihood(self, j: int, values: Any) -> NDArray[np.float64]:
        """``log P(x_j = v | y)`` for each of ``values``: (n_values, n_classes)."""

    def unseen(self, j: int, value: Any) -> bool:
        """Whether ``value`` (model input, not missing) of feature ``j`` is one training
        never gave the model."""

    def factor_parts(self, j: int, value: Any) -> Any:
        """The parts of feature ``j``'s factor for ``value`` (e.g. a text column's
        words), or None."""

    def feature_kinds(self) -> list[str]:
        """The kind (event model name) of each feature, (n_features_in_,): a mixed
        table's column kinds, or the model's own kind for every feature."""

    def factor_kinds(self) -> list[str]:
        """What each feature's factor ``P(x_j | y)`` is: "probability", "density",
        "weight" or "conditional probability"."""

    def describe_features(self) -> list[dict]:
        """Per-feature summaries of the fitted distributions, per class."""

    def fixed_class_prior(self) -> Any:
        """The class prior the user fixed (n_classes,), or None when it is fitted."""

    # ------------------------------------------------------------ for the user
    def explain(self, x: Any, **options: Any) -> Any:
        """The worked computation of the posterior of one row ``x``
        (:func:`nbayes.inspection.explain.explain`)."""

    def save(self, path: Any, *, metadata: dict | None = None) -> None:
        """Write the model to ``path`` as a safe model file (:func:`nbayes.save`)."""

    # ------------------------------------------------------------ export
    def scoring(self) -> Scoring:
        """What prediction computes with (event model, parameters, prior terms), as
        exporters read it."""

    def onnx_input(self, graph: Any, x: Any = None) -> Any:
        """The input of this estimator's event model in an ONNX graph, from ``x`` (a
        pipeline's previous step) or else from the graph inputs it makes (see
        :mod:`nbayes.export`)."""

    # ------------------------------------------------------------ fitted state
    def fitted_state(self) -> dict[str, Any]:
        """The fitted state (fitted attributes and ``"statistics"``) that
        :meth:`restore_state` takes; AttributeError when not fitted."""

    def restore_state(self, state: dict[str, Any]) -> Any:
        """Set a fitted state (from a model file or a merge); returns the estimator."""

    def check_restored(self) -> None:
        """Raise ValueError (or StatisticsError) unless the restored state is one a
        fit could have made."""
