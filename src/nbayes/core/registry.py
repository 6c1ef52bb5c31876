"""What nbayes knows by name, independent of import order: the estimators a model file
may name, the other objects it may hold (meta-estimators, text transformers, and some
scikit-learn classes), and the dataclasses (statistics, column layouts, tokenizers) it
may build.

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

#: The other nbayes objects a model file may hold: meta-estimators and text transformers.
COMPONENTS: dict[str, str] = {
    "SemiSupervisedNB": "nbayes.meta.semi_supervised:SemiSupervisedNB",
    "CalibratedNB": "nbayes.meta.calibration:CalibratedNB",
    "CountVectorizer": "nbayes.tokens.vectorizers:CountVectorizer",
    "HashingVectorizer": "nbayes.tokens.vectorizers:HashingVectorizer",
    "PostVectorizer": "nbayes.text.pipeline:PostVectorizer",
    "RennieTransformer": "nbayes.text.transforms:RennieTransformer",
}

#: scikit-learn classes a model file may hold, each stored through its codec in
#: :mod:`nbayes.files.sklearn_codecs` (same names there).
SKLEARN: dict[str, str] = {
    "sklearn.Pipeline": "sklearn.pipeline:Pipeline",
    "sklearn.ColumnTransformer": "sklearn.compose:ColumnTransformer",
    "sklearn.FunctionTransformer": "sklearn.preprocessing:FunctionTransformer",
    "sklearn.StandardScaler": "sklearn.preprocessing:StandardScaler",
    "sklearn.MinMaxScaler": "sklearn.preprocessing:MinMaxScaler",
    "sklearn.MaxAbsScaler": "sklearn.preprocessing:MaxAbsScaler",
    "sklearn.Normalizer": "sklearn.preprocessing:Normalizer",
    "sklearn.Binarizer": "sklearn.preprocessing:Binarizer",
    "sklearn.SimpleImputer": "sklearn.impute:SimpleImputer",
    "sklearn.MissingIndicator": "sklearn.impute:MissingIndicator",
    "sklearn.KBinsDiscretizer": "sklearn.preprocessing:KBinsDiscretizer",
    "sklearn.OneHotEncoder": "sklearn.preprocessing:OneHotEncoder",
    "sklearn.OrdinalEncoder": "sklearn.preprocessing:OrdinalEncoder",
    "sklearn.TfidfTransformer": "sklearn.feature_extraction.text:TfidfTransformer",
    "sklearn.CountVectorizer": "sklearn.feature_extraction.text:CountVectorizer",
    "sklearn.TfidfVectorizer": "sklearn.feature_extraction.text:TfidfVectorizer",
    "sklearn.HashingVectorizer": "sklearn.feature_extraction.text:HashingVectorizer",
    "sklearn.IsotonicRegression": "sklearn.isotonic:IsotonicRegression",
}

#: Every table of objects a model file may hold (with parameters and a fitted state).
SAVABLE: tuple[dict[str, str], ...] = (ESTIMATORS, COMPONENTS, SKLEARN)

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
    "Tokenizer": "nbayes.tokens.tokenize:Tokenizer",
}


def resolve(table: dict[str, str], name: Any) -> Any:
    """The object ``table`` names ``name``, imported on first use; None if unknown."""
    if not isinstance(name, str) or name not in table:
        return None
    module, attribute = table[name].split(":")
    return getattr(importlib.import_module(module), attribute)


def savable(name: Any) -> Any:
    """The class a model file may hold under ``name`` (see :data:`SAVABLE`); None if
    ``name`` is not allowed."""
    for table in SAVABLE:
        found = resolve(table, name)
        if found is not None:
            return found
    return None


def savable_name(cls: type) -> str | None:
    """The name ``cls`` is stored under in model files; None if it may not be stored
    (only modules of entries named like ``cls`` are imported to find out)."""
    for table in SAVABLE:
        for name, where in table.items():
            if where.rsplit(":", 1)[1] == cls.__name__ and resolve(table, name) is cls:
                return name
    return None

