"""A first model: GaussianNB on scikit-learn's iris data, next to scikit-learn's own."""

from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB

import nbayes

X, y = load_iris(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)

model = nbayes.GaussianNB().fit(X_train, y_train)
print(f"test accuracy: {model.score(X_test, y_test):.3f}")
print("P(y | first test row):", model.predict_proba(X_test[:1]).round(4))

# The same numbers as scikit-learn's GaussianNB, to rounding.
theirs = SklearnGaussianNB().fit(X_train, y_train).predict_proba(X_test)
gap = abs(model.predict_proba(X_test) - theirs).max()
print(f"largest difference from scikit-learn: {gap:.1e}")
