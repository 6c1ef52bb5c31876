"""Block adapters: one small class per kind, wrapping ``nbayes.events.<kind>``.

A *block* is one or more columns of a table modelled by one event model. The
adapter reads its columns out of the table (checking them, naming the column in
every error), and passes statistics, estimates and log-likelihoods through to the
event module, adding only what mixed tables need: missing values and, for
categorical columns, a vocabulary of arbitrary hashable values.

Missing values (``NaN``, None, ``pd.NA``, polars null) are *skipped*: in
``summarize`` a missing value adds nothing to the statistics of its column, and in
``log_likelihood`` its column's term is left out of that row (the feature is
marginalised). Rows are grouped by their pattern of missing columns, so each group
is one call to the event module on the columns it has. In a multinomial block a
missing count adds nothing to that column's count, i.e. it reads as 0.

``KINDS`` maps each kind name to its adapter class; :func:`register_kind` adds one.
"""

from nbayes.mixed.blocks.base import KINDS, Block, by_missing_pattern, register_kind
from nbayes.mixed.blocks.categorical import CategoricalBlock, CategoricalBlockStats
from nbayes.mixed.blocks.continuous import BinnedBlock, ExponentialBlock, KDEBlock, PoissonBlock
from nbayes.mixed.blocks.counts import BernoulliBlock, BernoulliBlockStats, MultinomialBlock
from nbayes.mixed.blocks.gaussian import GaussianBlock

__all__ = [
    "KINDS",
    "BernoulliBlock",
    "BernoulliBlockStats",
    "BinnedBlock",
    "Block",
    "CategoricalBlock",
    "CategoricalBlockStats",
    "ExponentialBlock",
    "GaussianBlock",
    "KDEBlock",
    "MultinomialBlock",
    "PoissonBlock",
    "by_missing_pattern",
    "register_kind",
]
