"""NaiveBayes on a pandas table with numeric, string and boolean columns and missing
values (scikit-learn's iris, dressed up as a mixed table)."""

import numpy as np
import pandas as pd
from sklearn.datasets import load_iris
from sklearn.model_selection import cross_val_score

import nbayes

iris = load_iris(as_frame=True)
frame = iris.frame.drop(columns="target")
species = iris.target_names[iris.target]

# A string column, a boolean column, and 10 % of one numeric column missing.
frame["petal_size"] = pd.cut(frame.pop("petal length (cm)"), 3, labels=["S", "M", "L"])
frame["petal_size"] = frame["petal_size"].astype(str)
frame["wide_sepal"] = frame["sepal width (cm)"] > 3.0
rng = np.random.default_rng(0)
frame.loc[rng.random(len(frame)) < 0.1, "sepal length (cm)"] = np.nan

# Kinds come from the dtypes (float -> gaussian, str -> categorical, bool -> bernoulli);
# "columns" overrides some of them.
model = nbayes.NaiveBayes(columns={"petal width (cm)": "kde"})
model.fit(frame, species)
print(model.describe())

print("P(species | first row):", model.predict_proba(frame.head(1)).round(3))
print(f"5-fold accuracy: {cross_val_score(model, frame, species, cv=5).mean():.3f}")
