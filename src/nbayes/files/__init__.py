"""Model files, and writing any file safely.

- :mod:`~nbayes.files.model_file`: the format (JSON metadata plus arrays in one
  ``.npz``, never a pickle), :func:`~nbayes.files.model_file.save` and
  :func:`~nbayes.files.model_file.load` (public as :mod:`nbayes.io`, ``nbayes.save``
  and ``nbayes.load``);
- :mod:`~nbayes.files.npz`: reading a stranger's ``.npz`` with memory and time bounded
  by its size;
- :mod:`~nbayes.files.sklearn_codecs` and :mod:`~nbayes.files.fitted_attributes`: how
  the fitted state of scikit-learn and nbayes objects is stored and checked;
- :mod:`~nbayes.files.methods`: the ``save``/``load`` methods every estimator has;
- :mod:`~nbayes.files.atomic`: writing a file atomically (model files, reports and the
  command line's outputs).

What a model file may name is the allow-list of :mod:`nbayes.core.registry`.
"""
