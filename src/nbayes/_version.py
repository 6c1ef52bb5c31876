"""The version of nbayes (``nbayes.__version__``), also written into model files."""

__version__ = "0.1.0"
