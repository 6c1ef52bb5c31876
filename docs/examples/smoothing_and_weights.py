"""Smoothing, class priors and sample weights on MultinomialNB (scikit-learn's digits)."""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import cross_val_score

import nbayes

X, y = load_digits(return_X_y=True)  # 8x8 images, pixel intensities 0..16 as counts

# alpha: the Lidstone pseudocount of every feature probability (1 = Laplace, 0 = MLE).
for alpha in (0.01, 1.0, 10.0):
    accuracy = cross_val_score(nbayes.MultinomialNB(alpha=alpha), X, y, cv=5).mean()
    print(f"alpha={alpha:<5} 5-fold accuracy {accuracy:.3f}")

# The class prior: learnt (default), learnt with Laplace smoothing, uniform, or given.
few = np.r_[np.flatnonzero(y == 0)[:2], np.flatnonzero(y == 1)[:8]]  # 2 zeros, 8 ones
for params in ({}, {"prior_alpha": 1.0}, {"fit_prior": False}, {"class_prior": [0.3, 0.7]}):
    prior = np.exp(nbayes.MultinomialNB(**params).fit(X[few], y[few]).class_log_prior_)
    print(f"{params!s:<28} P(y) = {prior.round(3)}")

# An integer sample weight is the same as repeating the row.
weights = np.arange(len(y)) % 3  # 0, 1 or 2 copies of each row
weighted = nbayes.MultinomialNB().fit(X, y, sample_weight=weights)
repeated = nbayes.MultinomialNB().fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
gap = abs(weighted.predict_proba(X) - repeated.predict_proba(X)).max()
print(f"weights vs repeated rows: largest probability difference {gap:.1e}")
