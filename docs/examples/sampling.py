"""Naive Bayes is generative: draw new rows from a fitted model with sample()."""

from sklearn.datasets import load_iris

import nbayes

data = load_iris()
model = nbayes.GaussianNB().fit(data.data, data.target)

X_new, y_new = model.sample(3000, random_state=0)  # classes drawn from the prior
for c, name in enumerate(data.target_names):
    drawn = X_new[y_new == c].mean(axis=0)
    print(f"{name:<11} fitted means {model.theta_[c].round(2)}  sample means {drawn.round(2)}")

X_setosa, _ = model.sample(5, y=0, random_state=1)  # y fixes the class (0: setosa)
print("five setosa-like flowers:\n", X_setosa.round(1))
