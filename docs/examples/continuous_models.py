"""Counts, non-negative values and arbitrary densities: PoissonNB, ExponentialNB,
KernelDensityNB and BinnedNB, 5-fold cross-validated on scikit-learn's bundled data."""

from sklearn.datasets import load_digits, load_wine
from sklearn.model_selection import cross_val_score

import nbayes

digits_X, digits_y = load_digits(return_X_y=True)  # pixel intensities: counts 0..16
wine_X, wine_y = load_wine(return_X_y=True)  # 13 non-negative chemical measurements

runs = [
    ("digits", nbayes.GaussianNB(), digits_X, digits_y),
    ("digits", nbayes.PoissonNB(), digits_X, digits_y),
    ("wine", nbayes.GaussianNB(), wine_X, wine_y),
    ("wine", nbayes.ExponentialNB(), wine_X, wine_y),
    ("wine", nbayes.KernelDensityNB(bandwidth="silverman"), wine_X, wine_y),
    ("wine", nbayes.BinnedNB(strategy="mdl"), wine_X, wine_y),
]
for data, model, X, y in runs:
    accuracy = cross_val_score(model, X, y, cv=5).mean()
    print(f"{data:<7} {type(model).__name__:<16} {accuracy:.3f}")
