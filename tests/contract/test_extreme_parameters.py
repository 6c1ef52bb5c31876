"""No NaN with exit 0 from a parameter: every numeric parameter of every registered
estimator, set to an extreme value (0, the smallest denormal, +-1e308, NaN, +-inf),
is refused with a clear ValueError when the model is fitted, or the model predicts
finite probabilities that sum to 1, without a RuntimeWarning (numpy's overflow or
invalid-value warnings on the way are failures too). Parameters that take an array (priors, a
pseudocount or bandwidth per feature) are swept as arrays of one per class and one per
feature, all set to the value, and with only the first entry set.

The checks live where the constructor's validation does (scikit-learn's
``_parameter_constraints``, from the event models' ``setting`` metadata), so model
files, which build estimators through their constructors, share them.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import pytest
from contract.test_every_model import MODELS, example
from sklearn.utils._param_validation import Interval

EXTREMES = [0.0, 5e-324, 1e308, -1e308, np.nan, np.inf, -np.inf]


def _numeric(constraints: list) -> tuple[bool, bool]:
    """(takes a number, takes an array) from a parameter's constraints."""
    number = any(
        (isinstance(c, Interval) and c.type in (Real, Integral))
        or c in (Real, Integral, float, int)
        for c in constraints
    )
    return number, "array-like" in constraints


def _cases():
    from nbayes.core.registry import ESTIMATORS, resolve

    for name in MODELS:
        cls = resolve(ESTIMATORS, name)
        for param, constraints in sorted(cls._parameter_constraints.items()):
            number, arrays = _numeric(constraints)
            if number:
                for value in EXTREMES:
                    yield name, param, "scalar", value
            if arrays:
                for shape in ("per class", "per feature", "first entry"):
                    for value in EXTREMES:
                        yield name, param, shape, value


def _value(shape: str, value: float, n_classes: int, n_features: int):
    if shape == "scalar":
        return value
    if shape == "first entry":  # an otherwise valid prior or pseudocount per class
        entries = np.full(n_classes, 1.0 / n_classes)
        entries[0] = value
        return entries
    return np.full(n_classes if shape == "per class" else n_features, value)


CASES = list(_cases())


@pytest.mark.parametrize(("name", "param", "shape", "value"), CASES)
def test_an_extreme_parameter_is_refused_or_predicts_proper_probabilities(
    name, param, shape, value
):
    model, X, y = example(name)
    n_classes = len(np.unique(y))
    setting = _value(shape, value, n_classes, X.shape[1])
    model.set_params(**{param: setting})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. alpha below 1e-10 raised to 1e-10
            warnings.simplefilter("error", RuntimeWarning)  # numpy overflow: not clean
            model.fit(X, y)
            proba = model.predict_proba(X)
    except ValueError as error:
        message = str(error)
        assert message and "Traceback" not in message
        return
    assert np.all(np.isfinite(proba)), f"{name}({param}={setting!r}): {proba[:2]}"
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9)


def test_the_sweep_covers_every_estimator_and_its_prior_pseudocount():
    from nbayes.core.registry import ESTIMATORS, resolve

    assert {name for name, *_ in CASES} == set(MODELS)
    with_prior_alpha = {
        name for name in MODELS if "prior_alpha" in resolve(ESTIMATORS, name)().get_params()
    }
    assert with_prior_alpha and with_prior_alpha <= {
        name for name, param, *_ in CASES if param == "prior_alpha"
    }


# ---------------------------------------------------------------- column kinds
def _table():
    """``(columns, X, y)``: a table with one column of each column kind, and its kinds."""
    _, frame, y = example("NaiveBayes")
    X = frame.assign(
        spread=(frame["height"] - 140).abs() + 0.5,
        counts=frame["visits"].astype(float),
        present=frame["smoker"].astype(float),
    )
    columns = {
        "height": "gaussian",
        "spread": "exponential",
        "visits": "poisson",
        "counts": "multinomial",
        "present": "bernoulli",
        "colour": "categorical",
        "size": "categorical",
        "note": "text",
    }
    return columns, X[list(columns)], y


def _kind_cases():
    from nbayes.events import EVENT_MODELS, event_model

    columns, _, _ = _table()
    kinds = set(columns.values()) | {"kde", "binned"}
    for kind in sorted(kinds & set(EVENT_MODELS)):
        for setting, constraints in sorted(event_model(kind).parameter_constraints().items()):
            number, arrays = _numeric(constraints)
            for value in EXTREMES if number or arrays else []:
                yield kind, setting, value


@pytest.mark.parametrize(("kind", "setting", "value"), list(_kind_cases()))
def test_an_extreme_column_setting_is_refused_or_predicts_proper_probabilities(
    kind, setting, value
):
    """The same sweep over the settings of each column kind of NaiveBayes
    (``kind_options``), which model files restore alike."""
    import nbayes

    columns, X, y = _table()
    if kind in ("kde", "binned"):
        columns = {**columns, "height": kind}
    model = nbayes.NaiveBayes(columns=columns, kind_options={kind: {setting: value}})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.simplefilter("error", RuntimeWarning)
            proba = model.fit(X, y).predict_proba(X)
    except ValueError as error:
        assert str(error)
        return
    assert np.all(np.isfinite(proba)), f"{kind}.{setting}={value!r}: {proba[:2]}"
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9)
