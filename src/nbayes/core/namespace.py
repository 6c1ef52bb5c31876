"""Array namespaces: NumPy, or any array-API namespace (PyTorch, CuPy, array-api-strict)
under ``sklearn.set_config(array_api_dispatch=True)``.

The event models' statistics, estimates, log-likelihoods and the posterior are written
once over a namespace ``xp`` (the functions here find it); NumPy input keeps NumPy
itself as ``xp`` (and the compiled kernels where a model has them), so code written
over ``xp`` costs NumPy users nothing. The helpers are scikit-learn's
(:mod:`sklearn.utils._array_api`, as its own ``naive_bayes`` uses them).

Example
-------
>>> import numpy as np
>>> namespace_of(np.zeros(3)) is np
True
>>> dispatched(np.zeros((2, 2))) is None      # NumPy input: the NumPy path
True
"""

from __future__ import annotations

import contextlib
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.utils._array_api import (
    _convert_to_numpy,
    array_api_compat,
    get_namespace_and_device,
)
from sklearn.utils._array_api import device as device_of


class Space(NamedTuple):
    """An array namespace, a device of it and the floating dtype computed in."""

    xp: Any
    device: Any
    dtype: Any


def is_numpy(array: Any) -> bool:
    """Whether ``array`` takes the NumPy path: anything but an array of another
    array-API namespace (NumPy arrays, sparse matrices, numbers, tables, lists...)."""
    return (
        isinstance(array, np.ndarray | np.generic)
        or sp.issparse(array)
        or not array_api_compat.is_array_api_obj(array)
    )


def namespace_of(*arrays: Any) -> Any:
    """The namespace of ``arrays``: NumPy itself when none is an array of another
    array-API namespace, else their namespace (``array_api_compat``'s wrapper,
    whatever the dispatch setting: statistics already on a device stay there)."""
    others = [a for a in arrays if not is_numpy(a)]
    if not others:
        return np
    return array_api_compat.array_namespace(*others)


def dispatched(X: Any) -> Space | None:
    """``(xp, device, dtype)`` of X where scikit-learn's array API dispatch is on and X
    is not a NumPy array (nor sparse): the computation then stays on X's namespace and
    device, in X's floating dtype (float32 stays float32; other dtypes compute in the
    namespace's default float where the device has float64). None: the NumPy path."""
    if is_numpy(X) or not get_config()["array_api_dispatch"]:
        return None
    xp, is_array_api, device = get_namespace_and_device(X)
    if not is_array_api:
        return None
    return Space(xp, device, float_dtype(xp, X.dtype, device))


def float_dtype(xp: Any, dtype: Any, device: Any) -> Any:
    """The floating dtype arrays of ``dtype`` are computed in: ``dtype`` itself if
    floating, else float64 (float32 on a device without float64, e.g. Apple's MPS)."""
    if xp.isdtype(dtype, "real floating"):
        return dtype
    try:
        dtypes = xp.__array_namespace_info__().dtypes(device=device)
    except (AttributeError, TypeError):  # an older namespace: assume float64 exists
        return xp.float64
    return dtypes.get("float64", xp.float32)


def widest_float(xp: Any, device: Any) -> Any:
    """float64 where the namespace has it on ``device``, else float32."""
    return float_dtype(xp, xp.int64, device)


def space_of(array: Any) -> Space:
    """The :class:`Space` an array lives in (its namespace, device and dtype)."""
    xp = namespace_of(array)
    return Space(xp, device_of(array) if xp is not np else "cpu", array.dtype)


def numpy_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype of the same name as ``dtype`` (a NumPy, PyTorch, CuPy or
    array-api-strict dtype: ``torch.float32`` -> ``float32``)."""
    if isinstance(dtype, np.dtype) or isinstance(dtype, type):
        return np.dtype(dtype)
    return np.dtype(str(dtype).rsplit(".", 1)[-1])


def to_numpy(array: Any) -> Any:
    """``array`` as a NumPy array (copied from its device); NumPy arrays, sparse
    matrices, numbers and None as they are."""
    if is_numpy(array):
        return array
    return _convert_to_numpy(array, namespace_of(array))


def to_space(array: Any, space: Space, dtype: Any = None) -> Any:
    """``array`` (NumPy or any namespace) in ``space``: its namespace and device, as
    ``dtype`` (default: the space's floating dtype for a floating array; other arrays
    keep their kind)."""
    if not is_numpy(array) and namespace_of(array) is not space.xp:
        array = to_numpy(array)
    if dtype is None and _is_floating(array):
        dtype = space.dtype
    return space.xp.asarray(array, dtype=dtype, device=space.device)


def _is_floating(array: Any) -> bool:
    if is_numpy(array):
        return np.asarray(array).dtype.kind == "f"
    return bool(namespace_of(array).isdtype(array.dtype, "real floating"))


def errstate(xp: Any, **settings: str) -> contextlib.AbstractContextManager:
    """``np.errstate(**settings)`` for NumPy; nothing for other namespaces (which do not
    warn on floating-point exceptions)."""
    return np.errstate(**settings) if xp is np else contextlib.nullcontext()


def copy_array(array: Any) -> Any:
    """A copy of ``array``, in its own namespace."""
    if isinstance(array, np.ndarray):
        return array.copy()
    return namespace_of(array).asarray(array, copy=True)


def scalar_like(value: Any, like: Any) -> Any:
    """A setting (a number, or an array-like such as one ``alpha`` per feature) usable
    in arithmetic with ``like``: for NumPy ``like`` a number as it is and anything else
    as a NumPy array; for another namespace a Python float, or an array moved to
    ``like``'s namespace, device and dtype."""
    scalar = np.ndim(value) == 0
    if namespace_of(like) is np:
        return value if scalar else np.asarray(value)
    if scalar:
        return float(value)
    return to_space(np.asarray(value, dtype=np.float64), space_of(like))
