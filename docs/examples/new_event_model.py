"""A new event model in one small class, and everything else derived from it: a
geometric model of counts, P(x | c) = (1 - p_c)^x p_c, with a Beta(a, b) prior."""

from dataclasses import dataclass
from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.utils._param_validation import Interval

import nbayes
from nbayes.core.registry import ESTIMATORS
from nbayes.events import EVENT_MODELS, _domain
from nbayes.events._contract import EventModel, setting
from nbayes.events.sums import SumStats, observed, summarize
from nbayes.inspection.explain import most_informative_features
from nbayes.models.base import EstimatorNB


@dataclass(frozen=True)
class GeometricParams:
    log_p: np.ndarray  # log p_cj, (n_classes, n_features)
    log_q: np.ndarray  # log (1 - p_cj)


@dataclass(frozen=True)
class Geometric(EventModel[SumStats, GeometricParams]):
    """Counts, geometric per class and feature; MAP p under a Beta(a, b) prior."""

    name: ClassVar[str] = "geometric"
    a: float = setting(2.0, Interval(Real, 1, None, closed="left"))
    b: float = setting(2.0, Interval(Real, 1, None, closed="left"))

    def check(self, X):
        needs = "non-negative integer counts"
        return _domain.integral(_domain.nonnegative(X, needs), needs)

    def zero(self, n_classes, n_features):
        return SumStats.zero(n_classes, n_features)  # (N_c, n_cj, S_cj): counts add

    def summarize(self, X, W):
        return summarize(X, W)

    def estimate(self, stats):
        p = (stats.count + self.a - 1) / (stats.count + stats.total + self.a + self.b - 2)
        return GeometricParams(np.log(p), np.log1p(-p))

    def log_likelihood_terms(self, params, X):
        mask, x = observed(X)  # NaN = missing: its term is left out
        terms = x[:, None, :] * params.log_q[None] + params.log_p[None]
        return np.where(mask[:, None, :], terms, 0.0)

    def log_likelihood(self, params, X):
        return self.log_likelihood_terms(params, X).sum(axis=2)

    def sample(self, params, stats, class_index, rng):
        return rng.geometric(np.exp(params.log_p[class_index])) - 1.0

    def value_grid(self, params, stats, j, class_prior):
        return [0.0, 1.0, 2.0, 5.0]


class GeometricNB(EstimatorNB):
    """Naive Bayes with the geometric event model."""

    _event_type = Geometric

    def __init__(self, *, a=Geometric.a, b=Geometric.b, prior_alpha=0.0, batch_size=None):
        self.a, self.b = a, b
        self.prior_alpha, self.batch_size = prior_alpha, batch_size

    def _validation_options(self):
        return {"dtype": np.float64, "ensure_all_finite": "allow-nan"}


# Registered by name, so NaiveBayes columns and model files know them.
EVENT_MODELS["geometric"] = f"{__name__}:Geometric"
ESTIMATORS["GeometricNB"] = f"{__name__}:GeometricNB"

rng = np.random.default_rng(0)
y = rng.integers(0, 2, 600)
X = rng.geometric(np.where(y[:, None] == 1, 0.2, 0.5), size=(600, 3)) - 1.0

model = GeometricNB().fit(X[:400], y[:400])
print(f"test accuracy: {np.mean(model.predict(X[400:]) == y[400:]):.3f}")
streamed = GeometricNB()
for rows in np.array_split(np.arange(400), 8):
    streamed.partial_fit(X[rows], y[rows], classes=[0, 1])
halves = [GeometricNB().fit(X[rows], y[rows]) for rows in (slice(0, 200), slice(200, 400))]
merged = nbayes.merge(*halves)
proba = model.predict_proba(X[400:])
for label, other in (("partial_fit", streamed), ("merge", merged)):
    difference = np.abs(other.predict_proba(X[400:]) - proba).max()
    print(f"{label} vs fit: largest difference {difference:.1e}")

explanation = model.explain(X[401])
print(
    f"explain row 401: prior {explanation.prior.round(3)} x factors = posterior "
    f"{explanation.posterior.round(3)}"
)
best = most_informative_features(model, n=1)[0]
print(f"most informative: {best.feature} = {best.value:g}, ratio {best.ratio:.1f}")
X_new, y_new = model.sample(3, random_state=1)
print(f"sampled {X_new.shape[0]} rows of {X_new.shape[1]} counts")

table = nbayes.NaiveBayes(columns=["geometric", "geometric", "gaussian"]).fit(X[:400], y[:400])
print(f"NaiveBayes columns: {table.columns_}")
print(f"NaiveBayes test accuracy: {np.mean(table.predict(X[400:]) == y[400:]):.3f}")
