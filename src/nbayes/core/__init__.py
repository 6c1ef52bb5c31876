"""The engine every estimator shares: input validation and the class-weight matrix
``W`` (:mod:`~nbayes.core.validation`), the base estimator (:mod:`~nbayes.core.base`:
fit / partial_fit / predict, written once), its running statistics
(:mod:`~nbayes.core.state`), the posterior (:mod:`~nbayes.core.posterior`: prior,
log-sum-exp, argmax), the linear view (:mod:`~nbayes.core.linear`) and the thread
helpers (:mod:`~nbayes.core.parallel`); what model files may name
(:mod:`~nbayes.core.registry`) and store of a fitted object
(:mod:`~nbayes.core.fitted_attributes`), and writing a file atomically
(:mod:`~nbayes.core.atomic`), for every layer above."""
