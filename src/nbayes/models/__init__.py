"""The estimator classes: thin, each derived from its event model in
:mod:`nbayes.events` (scikit-learn's five drop-ins, and Poisson, exponential,
kernel-density, binned, AODE and TAN)."""
