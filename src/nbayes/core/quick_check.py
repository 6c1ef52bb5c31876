"""The quick check of a later ``partial_fit`` batch: scikit-learn's ``validate_data``
without its per-call costs, for the common batch that needs no conversion (see
:func:`quick_check_X_y`). A stream of small batches pays validation per batch: on a
16-row batch ``validate_data`` takes 200-300 us (min of 7, a busy 2-core machine),
this check 16 us.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import assert_all_finite

_QUICK_OPTIONS = frozenset({"dtype", "accept_sparse", "ensure_all_finite"})


def quick_check_X_y(estimator, X, y, options: dict) -> tuple | None:
    """``validate_data(estimator, X, y, reset=False, **options)`` for a batch that needs
    no conversion, without its per-call costs (dataframe detection, array-namespace
    dispatch, re-checks of y); None for any other batch, which then goes the full way
    (that also raises the errors: wrong width, wrong type, mismatched lengths, ...).

    Taken when the estimator was fitted without feature names, X is a plain 2-D
    ndarray or a CSR matrix whose dtype ``options`` keep as is, with at least one row
    and ``n_features_in_`` columns, and y is a C-contiguous 1-D ndarray of integers,
    booleans, strings or finite floats with one label per row. X's finiteness check
    is scikit-learn's own (``assert_all_finite``: one sum, the element-wise pass only
    to word the error), so errors read the same.
    """
    if not options.keys() <= _QUICK_OPTIONS or hasattr(estimator, "feature_names_in_"):
        return None
    if sp.issparse(X):
        accept = options.get("accept_sparse", False)
        if isinstance(accept, str):
            accept = [accept]
        if X.format != "csr" or not (accept is True or (accept and "csr" in accept)):
            return None
        values = X.data
    elif type(X) is np.ndarray and X.ndim == 2:
        values = X
    else:
        return None
    if not (
        _keeps_dtype(X.dtype, options.get("dtype", "numeric"))
        and X.shape[0] >= 1
        and X.shape[1] == getattr(estimator, "n_features_in_", None)
        and type(y) is np.ndarray
        and y.shape == (X.shape[0],)
        and y.flags.c_contiguous
        and y.dtype.kind in "biufU"
    ):
        return None
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        return None
    finite = options.get("ensure_all_finite", True)
    if finite and X.dtype.kind == "f":
        assert_all_finite(
            values,
            allow_nan=finite == "allow-nan",
            estimator_name=type(estimator).__name__,
            input_name="X",
        )
    return X, y


def _keeps_dtype(dtype: np.dtype, wanted) -> bool:
    """Whether ``check_array(dtype=wanted)`` leaves a numeric array of ``dtype`` as is."""
    if dtype.kind not in "biuf":
        return False
    if wanted is None or (isinstance(wanted, str) and wanted == "numeric"):
        return True
    if isinstance(wanted, list | tuple):
        return dtype in wanted
    return dtype == np.dtype(wanted)
