"""Training is counting: fit == partial_fit in chunks == merge of models fitted on parts."""

import numpy as np
from sklearn.datasets import load_digits

import nbayes

X, y = load_digits(return_X_y=True)
classes = np.unique(y)

for make in (nbayes.MultinomialNB, nbayes.GaussianNB):
    whole = make().fit(X, y)

    streamed = make()
    for chunk in np.array_split(np.arange(len(y)), 10):  # e.g. batches read from disk
        streamed.partial_fit(X[chunk], y[chunk], classes=classes)

    half = len(y) // 2  # two machines, each fitting its own part
    merged = nbayes.merge(make().fit(X[:half], y[:half]), make().fit(X[half:], y[half:]))

    reference = whole.predict_proba(X)
    for how, model in (("partial_fit x10", streamed), ("merge of halves", merged)):
        gap = abs(model.predict_proba(X) - reference).max()
        print(f"{make.__name__:<14} {how:<16} vs fit: largest difference {gap:.1e}")
