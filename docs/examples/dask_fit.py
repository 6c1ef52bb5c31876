"""Naive Bayes on Dask (nbayes[dask]): each partition is reduced to sufficient
statistics where it lives; the merged statistics give the same model as an in-memory fit."""

import dask.array as da
import numpy as np
from sklearn.datasets import load_digits

import nbayes
import nbayes.dask

X, y = load_digits(return_X_y=True)
X_parts = da.from_array(X, chunks=(300, -1))  # 6 partitions of rows
y_parts = da.from_array(y, chunks=300)
print(f"{X_parts.npartitions} partitions of up to 300 rows")

model = nbayes.dask.fit(nbayes.GaussianNB(), X_parts, y_parts)  # an ordinary GaussianNB
in_memory = nbayes.GaussianNB().fit(X, y)
gap = abs(model.predict_proba(X) - in_memory.predict_proba(X)).max()
print(f"{type(model).__name__} from Dask vs in memory: largest difference {gap:.1e}")

labels = nbayes.dask.predict(model, X_parts)  # lazy, partition by partition
print(f"lazy {type(labels).__name__}; accuracy {np.mean(labels.compute() == y):.3f}")
