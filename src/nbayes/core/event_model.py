"""What the core calls of an event model: :class:`EventModelProtocol`.

The event models' contract, :class:`nbayes.events._contract.EventModel`, stands above
the core (it builds on :mod:`nbayes.core.validation`), and every event model implements
it; the engine (:class:`nbayes.core.base.BaseNB`) and the estimator contract
(:mod:`nbayes.core.protocol`) type the event model they hold by this protocol, the part
of that contract they call, so the core imports nothing of :mod:`nbayes.events`.

Statistics and parameters are the event model's own types (``StatsT``, ``ParamsT``
there); here they are ``Any``. Shapes: ``X`` (n_samples, n_features), ``W``
(n_samples, n_classes), a log-likelihood (n_samples, n_classes). Every event model
passes ``isinstance(model, EventModelProtocol)`` (``tests/contract`` checks it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from nbayes.core.validation import ClassWeights


@runtime_checkable
class EventModelProtocol(Protocol):
    """The members of :class:`nbayes.events._contract.EventModel` that the core calls
    (see there for what each does)."""

    name: ClassVar[str]
    factor_kind: ClassVar[str]
    reads: ClassVar[str]
    adds_in_place: ClassVar[bool]
    uses_prior: ClassVar[bool]

    @classmethod
    def settings(cls) -> dict[str, Any]: ...
    @classmethod
    def runs_on_array_api(cls) -> bool: ...

    # validation and statistics
    def check(self, X: Any) -> Any: ...
    def zero(self, n_classes: int, n_features: int) -> Any: ...
    def add_into(self, stats: Any, X: Any, W: ClassWeights) -> Any: ...
    def summarize_array(self, X: Any, W: Any) -> Any: ...
    def validate(self, stats: Any, n_classes: int, n_features: int) -> None: ...
    def domain(self, X: Any, W: ClassWeights) -> Any: ...

    # estimate and log-likelihood
    def estimate(self, stats: Any) -> Any: ...
    def log_likelihood(self, params: Any, X: Any) -> NDArray[np.float64]: ...
    def log_likelihood_array(self, params: Any, X: Any) -> Any: ...
    def log_likelihood_terms(self, params: Any, X: Any) -> NDArray[np.float64]: ...
    def linear_terms(self, params: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...

    # explanations, descriptions and samples
    def feature_log_likelihood(
        self, params: Any, j: int, values: NDArray, n_features: int
    ) -> NDArray[np.float64]: ...
    def factor_parts(
        self, params: Any, j: int, value: Any, n_features: int
    ) -> list[tuple[str, float, NDArray[np.float64]]] | None: ...
    def unseen(self, params: Any, j: int, values: NDArray) -> NDArray[np.bool_]: ...
    def factor_kinds(self, n_features: int) -> list[str]: ...
    def describe(
        self, params: Any, stats: Any, n_features: int, class_prior: NDArray[np.float64]
    ) -> list[dict[str, Any]]: ...
    def value_grid(
        self, params: Any, stats: Any, j: int, class_prior: NDArray[np.float64]
    ) -> list: ...
    def sample(
        self,
        params: Any,
        stats: Any,
        class_index: NDArray[np.intp],
        rng: np.random.Generator,
        **options: Any,
    ) -> NDArray: ...
