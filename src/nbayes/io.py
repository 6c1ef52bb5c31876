"""Safe model files, the public names: :func:`save`, :func:`load`, :func:`load_file`
and :class:`ModelFile` (also ``nbayes.save`` and ``nbayes.load``).

The code lives in :mod:`nbayes.files`: the format and its reader and writer
(:mod:`nbayes.files.model_file`, whose docstring gives the layout of a file), the
bounded ``.npz`` reader (:mod:`nbayes.files.npz`), the codecs of scikit-learn classes
(:mod:`nbayes.files.sklearn_codecs`) and the checks of stored attributes
(:mod:`nbayes.core.fitted_attributes`).

>>> import numpy as np, nbayes
>>> model = nbayes.GaussianNB().fit(np.array([[0.0], [1.0], [5.0], [6.0]]), [0, 0, 1, 1])
>>> nbayes.save(model, "model.nbm")
>>> nbayes.load("model.nbm").predict(np.array([[0.5], [5.5]])).tolist()
[0, 1]
"""

from nbayes.errors import ModelFileError
from nbayes.files.model_file import ModelFile, load, load_file, save

__all__ = ["ModelFile", "ModelFileError", "load", "load_file", "save"]
