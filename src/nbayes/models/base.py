"""The base class of every nbayes estimator: the engine every estimator shares
(:class:`nbayes.core.base.BaseNB`: fit / partial_fit / predict, written once) with
the methods a user calls on a fitted model that are written above the core: ``save``
and ``load`` (:mod:`nbayes.files`) and ``explain`` (:mod:`nbayes.inspection`). So the
core imports neither, and a new estimator subclasses this one class.

>>> import numpy as np
>>> from nbayes import GaussianNB
>>> model = GaussianNB().fit(np.array([[0.0], [1.0], [5.0], [6.0]]), [0, 0, 1, 1])
>>> model.explain(np.array([5.5])).predicted
1
"""

from __future__ import annotations

from nbayes.core.base import BaseNB
from nbayes.core.namespace import to_numpy
from nbayes.files.methods import ModelFileMethods


class EstimatorNB(ModelFileMethods, BaseNB):
    """An nbayes estimator: :class:`~nbayes.core.base.BaseNB` with ``save``, ``load``
    and ``explain``. Subclasses set ``_event_type`` and the hooks
    :class:`~nbayes.core.base.BaseNB` lists."""

    def explain(self, x, **options):
        """The worked computation of the posterior of one row ``x`` (n_features,);
        see :func:`nbayes.inspection.explain.explain`."""
        from nbayes.inspection.explain import explain

        return explain(self.on_host(), to_numpy(x), **options)
