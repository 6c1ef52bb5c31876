"""The model-file methods every nbayes estimator has, base or wrapper."""

from __future__ import annotations


class ModelFileMethods:
    """``save`` and ``load`` of every nbayes estimator, base or wrapper (see
    :mod:`nbayes.files.model_file`)."""

    def save(self, path, *, metadata: dict | None = None) -> None:
        """Write this model to ``path`` as a safe model file (see
        :mod:`nbayes.files.model_file`)."""
        from nbayes.files.model_file import save

        save(self, path, metadata=metadata)

    @classmethod
    def load(cls, path, *, trust_patterns: bool = False):
        """Read a model of this class from ``path`` (see :func:`nbayes.files.model_file.load`)."""
        from nbayes.files.model_file import load

        return load(path, expected=cls, trust_patterns=trust_patterns)
