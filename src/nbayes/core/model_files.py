"""The model-file methods every nbayes estimator has, base or wrapper."""

from __future__ import annotations


class ModelFileMethods:
    """``save`` and ``load`` of every nbayes estimator, base or wrapper (see
    :mod:`nbayes.io`)."""

    def save(self, path, *, metadata: dict | None = None) -> None:
        """Write this model to ``path`` as a safe model file (see :mod:`nbayes.io`)."""
        from nbayes.io import save

        save(self, path, metadata=metadata)

    @classmethod
    def load(cls, path):
        """Read a model of this class from ``path`` (see :func:`nbayes.io.load`)."""
        from nbayes.io import load

        return load(path, expected=cls)
