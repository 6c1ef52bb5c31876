"""Event models: one module each, every one implementing the contract of
:mod:`nbayes.events._contract` (:class:`EventModel`).

An event model is ``P(x | y)`` for a block of features: its settings (a frozen
dataclass's fields, with their defaults), its additive statistics (a
:class:`~nbayes.events._stats.Statistics` dataclass), ``summarize`` / ``add_into``,
``estimate``, ``log_likelihood`` and its per-feature terms, ``sample``, the linear view
where it exists, its input check, its value grid for explanations and its parameter
prior for EM. Everything else (estimator classes, the column blocks of
:class:`nbayes.NaiveBayes`, model files, explanations, EM, Dask, the CLI) is derived
from the contract.

=============  ===============================================  =====================
name           model                                            module
=============  ===============================================  =====================
gaussian       normal per class and feature                     :mod:`.gaussian`
multinomial    counts, one multinomial per class                :mod:`.multinomial`
complement     Rennie et al.'s complement weights               :mod:`.complement`
bernoulli      present / absent                                 :mod:`.bernoulli`
categorical    category codes                                   :mod:`.categorical`
poisson        counts, Poisson per class and feature            :mod:`.poisson`
exponential    non-negative values                              :mod:`.exponential`
kde            kernel density (John & Langley)                  :mod:`.kde`
binned         intervals, then categorical                      :mod:`.binned`
aode, tan      one-dependence models of categorical data        :mod:`.pairwise`
text           free text: a multinomial over its tokens         :mod:`.text`
=============  ===============================================  =====================

:data:`EVENT_MODELS` names them; :func:`event_model` imports one by name, so the
registry does not depend on what was imported before. Modules whose names start with
``_`` are shared helpers: the contract, generic statistics, domain checks, missing
values and the Gaussian moment kernels.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nbayes.events._contract import EventModel

#: Event model name -> "module:class".
EVENT_MODELS: dict[str, str] = {
    "gaussian": "nbayes.events.gaussian:Gaussian",
    "multinomial": "nbayes.events.multinomial:Multinomial",
    "complement": "nbayes.events.complement:Complement",
    "bernoulli": "nbayes.events.bernoulli:Bernoulli",
    "categorical": "nbayes.events.categorical:Categorical",
    "poisson": "nbayes.events.poisson:Poisson",
    "exponential": "nbayes.events.exponential:Exponential",
    "kde": "nbayes.events.kde:KernelDensity",
    "binned": "nbayes.events.binned:Binned",
    "aode": "nbayes.events.pairwise:OneDependence",
    "tan": "nbayes.events.pairwise:TreeAugmented",
    "text": "nbayes.events.text:Text",
}


def event_model(name: str) -> type[EventModel]:
    """The event model class registered under ``name``."""
    try:
        module, attribute = EVENT_MODELS[name].split(":")
    except KeyError:
        raise ValueError(
            f"Unknown event model {name!r}; known: {', '.join(sorted(EVENT_MODELS))}."
        ) from None
    return getattr(importlib.import_module(module), attribute)
