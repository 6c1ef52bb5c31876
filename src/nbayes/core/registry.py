"""What nbayes knows by name, independent of import order: the estimators a model file
may name and the dataclasses (statistics, column layouts) it may build.

Each table maps a name to ``"module:attribute"``; :func:`resolve` imports the module on
first use. So a model file loads in a fresh process whatever was imported before, and
the allow-list is this file, not whatever classes happened to register themselves. A
test walks the package and checks that every estimator and statistics class is here.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Estimator class name -> where it is defined.
ESTIMATORS: dict[str, str] = {
    "GaussianNB": "nbayes.models.gaussian:GaussianNB",
    "MultinomialNB": "nbayes.models.discrete:MultinomialNB",
    "ComplementNB": "nbayes.models.discrete:ComplementNB",
    "BernoulliNB": "nbayes.models.discrete:BernoulliNB",
    "CategoricalNB": "nbayes.models.categorical:CategoricalNB",
    "PoissonNB": "nbayes.models.continuous:PoissonNB",
    "ExponentialNB": "nbayes.models.continuous:ExponentialNB",
    "KernelDensityNB": "nbayes.models.continuous:KernelDensityNB",
    "BinnedNB": "nbayes.models.continuous:BinnedNB",
    "AODE": "nbayes.models.aode:AODE",
    "TAN": "nbayes.models.aode:TAN",
    "NaiveBayes": "nbayes.mixed.naive_bayes:NaiveBayes",
}

#: Dataclass name -> where it is defined: statistics and the column layout records.
DATACLASSES: dict[str, str] = {
    "CountStats": "nbayes.events.counts:CountStats",
    "BernoulliStats": "nbayes.events.bernoulli:BernoulliStats",
    "CategoricalStats": "nbayes.events.categorical:CategoricalStats",
    "GaussianStats": "nbayes.events.moments:GaussianStats",
    "SumStats": "nbayes.events.sums:SumStats",
    "GridStats": "nbayes.events.grid:GridStats",
    "KDEStats": "nbayes.events.kde:KDEStats",
    "PairStats": "nbayes.events.pairwise:PairStats",
    "TextStats": "nbayes.events.text:TextStats",
    "VocabularyStats": "nbayes.mixed.vocabulary:VocabularyStats",
    "MixedStats": "nbayes.mixed.product:MixedStats",
    "Block": "nbayes.mixed.blocks:Block",
    "ResolvedColumn": "nbayes.mixed.columns:ResolvedColumn",
}


def resolve(table: dict[str, str], name: Any) -> Any:
    """The object ``table`` names ``name``, imported on first use; None if unknown."""
    if not isinstance(name, str) or name not in table:
        return None
    module, attribute = table[name].split(":")
    return getattr(importlib.import_module(module), attribute)
