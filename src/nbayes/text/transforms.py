"""Rennie, Shih, Teevan & Karger (2003), "Tackling the poor assumptions of naive
Bayes text classifiers" (ICML): the corrections of their TWCNB, steps 1-3 as one
transformer and step 7 as ``ComplementNB(norm=True)``.

For a count matrix ``d`` (n_documents, n_features):

1. term frequency: ``d_ij <- log(1 + d_ij)`` (``tf="log"``);
2. inverse document frequency: ``d_ij <- d_ij * log(N / df_j)``, N training
   documents of which df_j hold term j (``idf=True``);
3. length normalisation: ``d_ij <- d_ij / sqrt(sum_k d_ik^2)`` (``norm="l2"``).

Weight normalisation (step 7), ``w_cj <- w_cj / sum_k |w_ck|``, is
``nbayes.ComplementNB(norm=True)``; :func:`make_twcnb` chains them all.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import normalize
from sklearn.utils.validation import check_is_fitted, validate_data

from nbayes.core.fitted_attributes import (
    Field,
    FittedAttributes,
    StoresFittedAttributes,
    array,
    integer,
    strings,
)

__all__ = ["RennieTransformer", "make_twcnb"]


class RennieTransformer(
    StoresFittedAttributes, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """Rennie et al.'s log-TF, IDF and length normalisation of a count matrix.

    Parameters
    ----------
    tf : {"log", None}, default="log"
        ``log(1 + x)`` of every count (step 1), or the counts as they are.
    idf : bool, default=True
        Multiply column j by ``log(N / df_j)`` learnt in ``fit`` (step 2); a
        column no training document holds gets weight 0.
    norm : {"l2", "l1", None}, default="l2"
        Divide each row by its norm (step 3; Rennie et al. use "l2").

    Attributes
    ----------
    idf_ : ndarray of shape (n_features,)
        ``log(N / df_j)`` (only with ``idf=True``).
    """

    _parameter_constraints: dict = {
        "tf": [None, str],
        "idf": ["boolean"],
        "norm": [None, str],
    }

    #: What model files store.
    _fitted_attributes = FittedAttributes(
        {"n_features_in_": Field(integer(1))},
        {
            "feature_names_in_": Field(strings),
            "idf_": Field(array("f", finite=True, nonnegative=True)),
        },
    )

    def __init__(self, *, tf="log", idf=True, norm="l2"):
        self.tf = tf
        self.idf = idf
        self.norm = norm

    def _check_settings(self) -> None:
        """ValueError unless ``tf`` and ``norm`` are among their values."""
        if self.tf not in ("log", None):
            raise ValueError(f"tf must be 'log' or None; got {self.tf!r:.40}")
        if self.norm not in ("l1", "l2", None):
            raise ValueError(f"norm must be 'l1', 'l2' or None; got {self.norm!r:.40}")

    def _check(self, X, reset: bool):
        self._check_settings()
        X = validate_data(
            self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=reset, copy=True
        )
        values = X.data if sp.issparse(X) else X
        if np.any(values < 0):
            raise ValueError("RennieTransformer needs non-negative counts; X has negative entries.")
        return X

    def fit(self, X, y=None):
        """Learn the document frequencies of X (n_documents, n_features)."""
        self._validate_params()
        X = self._check(X, reset=True)
        if self.idf:
            df = np.bincount(X.indices, minlength=X.shape[1]) if sp.issparse(X) else (X > 0).sum(0)
            with np.errstate(divide="ignore"):
                idf = np.log(X.shape[0] / np.asarray(df, dtype=np.float64))
            self.idf_ = np.where(df > 0, idf, 0.0)
        return self

    def check_restored(self) -> None:
        """ValueError unless the settings are valid and ``idf_`` is there exactly when
        ``idf``, one per feature."""
        self._check_settings()
        idf = getattr(self, "idf_", None)
        if (idf is not None) != bool(self.idf):
            raise ValueError("idf_ does not match the idf parameter.")
        names = getattr(self, "feature_names_in_", None)
        for value in (idf, names):
            if value is not None and len(value) != self.n_features_in_:
                raise ValueError("idf_ or feature_names_in_ does not match n_features_in_.")

    def transform(self, X) -> sp.csr_matrix | NDArray:
        """The transformed matrix, same shape and sparsity as X."""
        check_is_fitted(self, "n_features_in_")
        X = self._check(X, reset=False)
        if sp.issparse(X):
            X.sum_duplicates()
            values = X.data
        else:
            values = X
        if self.tf == "log":
            np.log1p(values, out=values)
        if self.idf:
            if sp.issparse(X):
                X.data *= self.idf_[X.indices].astype(X.dtype)
            else:
                X *= self.idf_.astype(X.dtype)
        if self.norm is not None:
            X = normalize(X, norm=self.norm, copy=False)
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags


def make_twcnb(alpha: float = 1.0, **rennie) -> Pipeline:
    """TWCNB: :class:`RennieTransformer` (steps 1-3) then ``ComplementNB(norm=True)``
    (step 7), on a count matrix."""
    from nbayes.models.discrete import ComplementNB

    return Pipeline(
        [("rennie", RennieTransformer(**rennie)), ("cnb", ComplementNB(alpha=alpha, norm=True))]
    )
