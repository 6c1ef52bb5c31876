"""Naive Bayes probabilities are overconfident; CalibratedNB fixes them by
cross-validated temperature scaling or isotonic regression."""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import nbayes

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)

models = {
    "GaussianNB": nbayes.GaussianNB(),
    "temperature": nbayes.CalibratedNB(nbayes.GaussianNB(), method="temperature"),
    "isotonic": nbayes.CalibratedNB(nbayes.GaussianNB(), method="isotonic"),
}
for name, model in models.items():
    proba = model.fit(X_train, y_train).predict_proba(X_test)
    ece = nbayes.expected_calibration_error(y_test, proba)
    print(f"{name:<12} accuracy {model.score(X_test, y_test):.3f}  ECE {ece:.3f}")

print(f"fitted temperature T = {models['temperature'].temperature_:.2f}")
table = nbayes.reliability_table(y_test, models["GaussianNB"].predict_proba(X_test), n_bins=5)
print(table.to_markdown())
