"""Model files.

- :mod:`~nbayes.files.model_file`: the format (JSON metadata plus arrays in one
  ``.npz``, never a pickle), :func:`~nbayes.files.model_file.save` and
  :func:`~nbayes.files.model_file.load` (public as :mod:`nbayes.io`, ``nbayes.save``
  and ``nbayes.load``);
- :mod:`~nbayes.files.npz`: reading a stranger's ``.npz`` with memory and time bounded
  by its size;
- :mod:`~nbayes.files.sklearn_codecs`: how the fitted state of scikit-learn's classes
  is stored and checked (with the declarations of :mod:`nbayes.core.fitted_attributes`,
  which nbayes' own classes use too);
- :mod:`~nbayes.files.settings`: the allow-lists of settings a file may hold;
- :mod:`~nbayes.files.methods`: the ``save``/``load`` methods every estimator has.

Files are written through :mod:`nbayes.core.atomic` (a reader never sees half a file).

What a model file may name is the allow-list of :mod:`nbayes.core.registry`.
"""
