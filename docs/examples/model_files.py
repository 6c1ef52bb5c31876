"""Safe model files: nbayes.save / nbayes.load, never a pickle."""

import tempfile
from pathlib import Path

import numpy as np
from sklearn.datasets import load_iris

import nbayes

X, y = load_iris(return_X_y=True)
model = nbayes.GaussianNB().fit(X[::2], y[::2])

with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "iris.nbm"
    nbayes.save(model, path, metadata={"trained_on": "iris, even rows"})
    print(f"wrote {path.name}: {path.stat().st_size} bytes")

    loaded = nbayes.load(path)
    same = np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    print("loaded predictions bitwise equal:", same)

    # The file holds the sufficient statistics, so training resumes after loading.
    loaded.partial_fit(X[1::2], y[1::2])
    print(f"accuracy after resuming on the odd rows: {loaded.score(X, y):.3f}")

    # A damaged file is refused with a clear error, never half-read.
    damaged = Path(folder) / "damaged.nbm"
    damaged.write_bytes(path.read_bytes()[:200])
    try:
        nbayes.load(damaged)
    except nbayes.ModelFileError as error:
        print("ModelFileError:", str(error).replace(folder, "<folder>"))
