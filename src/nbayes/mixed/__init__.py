"""``NaiveBayes`` for tables of mixed columns: columns are resolved to kinds
(:mod:`~nbayes.mixed.columns`) and grouped into blocks, each modelled by one event
model (:mod:`~nbayes.mixed.blocks`)."""
