"""The estimator contract (:mod:`nbayes.core.protocol`): every registered estimator
offers it, and nothing outside ``nbayes.core`` reaches past it into an estimator's
private members (the hidden interface that made core import upward and the command
line switch on kinds)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

from nbayes.core import registry
from nbayes.core.base import BaseNB
from nbayes.core.protocol import Estimator
from nbayes.events import EVENT_MODELS

SRC = Path(__file__).resolve().parents[2] / "src" / "nbayes"
CORE = SRC / "core"

ESTIMATORS = {name: registry.resolve(registry.ESTIMATORS, name) for name in registry.ESTIMATORS}


def _protocol_members() -> set[str]:
    """The protocol's methods and properties (its fitted attributes are instance
    attributes, checked on a fitted model)."""
    return {name for name in vars(Estimator) if not name.startswith("_")}


def _private_members() -> set[str]:
    """The private (one leading underscore) members that nbayes' estimator classes
    define, in every class of their hierarchy that nbayes defines."""
    names = set()
    for cls in ESTIMATORS.values():
        for klass in cls.__mro__:
            if klass.__module__.startswith("nbayes."):
                names |= {n for n in vars(klass) if n.startswith("_") and not n.startswith("__")}
    return names


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_declares_the_protocol(name):
    cls = ESTIMATORS[name]
    assert issubclass(cls, BaseNB)
    missing = sorted(m for m in _protocol_members() if not hasattr(cls, m))
    assert not missing, f"{name} lacks {missing}"


def test_a_fitted_estimator_is_an_instance_of_the_protocol():
    from nbayes import GaussianNB

    model = GaussianNB().fit(np.array([[0.0], [1.0], [5.0], [6.0]]), [0, 0, 1, 1])
    assert isinstance(model, Estimator)
    X = model.check_X(np.array([[0.5], [5.5]]))
    terms = model.log_likelihood_terms(X)
    jll = terms.sum(axis=2) + model.prior_term(model.fitted_parameters.log_prior)
    np.testing.assert_allclose(jll, model.predict_joint_log_proba([[0.5], [5.5]]))
    assert model.statistics.class_count.tolist() == [2.0, 2.0]


class _PrivateAccesses(ast.NodeVisitor):
    """``x._name`` where ``_name`` is an estimator's private member and ``x`` is not
    the object itself: ``self``, the ``cls`` of a class method, ``super()``, or a base
    class named in the enclosing class statement (a subclass extending its hooks)."""

    def __init__(self, private: set[str]) -> None:
        self.private = private
        self.found: list[tuple[int, str]] = []
        self.own: list[set[str]] = [set()]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = {base.id for base in node.bases if isinstance(base, ast.Name)}
        self.own.append(self.own[-1] | bases)
        self.generic_visit(node)
        self.own.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        first = node.args.posonlyargs + node.args.args
        names = {first[0].arg} & {"self", "cls"} if first else set()
        self.own.append(self.own[-1] | names)
        self.generic_visit(node)
        self.own.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Attribute(self, node: ast.Attribute) -> None:
        receiver = node.value
        if node.attr in self.private:
            if isinstance(receiver, ast.Name) and receiver.id in self.own[-1]:
                pass
            elif isinstance(receiver, ast.Call) and ast.unparse(receiver.func) == "super":
                pass
            else:
                self.found.append((node.lineno, ast.unparse(node)))
        self.generic_visit(node)


def test_nothing_outside_core_uses_an_estimators_private_members():
    private = _private_members()
    assert {"_stats", "_fitted", "_event_type", "_event_model"} <= private  # the scan sees them
    offences = []
    for path in sorted(SRC.rglob("*.py")):
        if path.is_relative_to(CORE):
            continue
        visitor = _PrivateAccesses(private)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        offences += [f"{path.relative_to(SRC)}:{line}: {text}" for line, text in visitor.found]
    assert not offences, "private estimator members used outside nbayes.core:\n" + "\n".join(
        offences
    )


def test_the_scan_finds_a_private_access():
    """The scan is not blind: a use from outside is found, the object's own is not."""
    code = inspect.cleandoc(
        """
        def outside(model):
            return model._stats

        class Sub(BaseNB):
            def _log_prior(self, stats):
                return super()._log_prior(stats) + self._fitted.log_prior
        """
    )
    visitor = _PrivateAccesses(_private_members())
    visitor.visit(ast.parse(code))
    assert [text for _, text in visitor.found] == ["model._stats"]


@pytest.mark.parametrize("kind", sorted(EVENT_MODELS))
def test_every_event_model_offers_what_the_core_calls_of_it(kind):
    """The core types the event model it holds by :class:`EventModelProtocol` (so it
    imports nothing of ``nbayes.events``): every registered event model, and the
    contract they derive from, has each of its members."""
    from nbayes.core.event_model import EventModelProtocol
    from nbayes.events import event_model
    from nbayes.events._contract import EventModel

    members = set(EventModelProtocol.__annotations__) | {
        name for name in vars(EventModelProtocol) if not name.startswith("_")
    }
    assert members >= {"estimate", "log_likelihood", "name", "settings"}
    declared = set(dir(EventModel)) | set(EventModel.__annotations__)
    assert members <= declared, f"the contract lacks {sorted(members - declared)}"
    cls = event_model(kind)
    missing = sorted(name for name in members if not hasattr(cls, name))
    assert not missing, f"{cls.__name__} lacks {missing}"
