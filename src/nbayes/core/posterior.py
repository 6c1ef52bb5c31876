"""The posterior, written once: class prior, log-sum-exp normalisation, argmax.

Every estimator hands this module its per-class log-likelihood
``log P(x | y)`` of shape ``(n_samples, n_classes)`` and its log prior ``log P(y)``.

Degenerate rows
---------------
A row whose joint log-likelihoods are all ``-inf`` is one the model gives zero
probability under every class (an MLE model with unseen events, or a value far
outside the floating-point range of every class density). Its posterior is
undefined; we report the class prior for it instead of NaN. A row with ``+inf`` in
some classes splits its mass evenly between those classes.

Namespaces
----------
Every function takes arrays of any array-API namespace (PyTorch, CuPy, ... under
scikit-learn's ``array_api_dispatch``) and computes in it, on the arrays' device;
NumPy arrays take the NumPy path, with its compiled kernels, unchanged.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import logsumexp

from nbayes._kernels import posterior as posterior_kernels
from nbayes.core.namespace import device_of, namespace_of, space_of, to_space, widest_float


def class_log_prior(
    class_count: NDArray[np.float64],
    *,
    class_prior: ArrayLike | None = None,
    fit_prior: bool = True,
    pseudocount: float = 0.0,
) -> NDArray[np.float64]:
    """``log P(y)`` of shape (n_classes,).

    - ``class_prior`` given: its logarithm (already validated by the caller).
    - ``fit_prior``: the Lidstone-smoothed relative frequency
      ``(N_c + a) / (N + K a)`` with pseudocount ``a`` (``a = 0`` is the MLE,
      ``a = 1`` Laplace), ``N_c`` the (weighted) count of class ``c``.
    - otherwise the uniform prior ``1 / K``.
    """
    n_classes = class_count.shape[0]
    xp = namespace_of(class_count)
    if xp is not np:
        return _class_log_prior_xp(xp, class_count, class_prior, fit_prior, pseudocount)
    if class_prior is not None:
        with np.errstate(divide="ignore"):
            return np.log(np.asarray(class_prior, dtype=np.float64))
    if not fit_prior:
        return np.full(n_classes, -np.log(n_classes))
    smoothed = class_count + pseudocount
    with np.errstate(over="ignore"):  # a sum past float64's range is scaled down below
        total = smoothed.sum()
    if total <= 0:
        return np.full(n_classes, -np.log(n_classes))
    if not np.isfinite(total):  # a huge pseudocount (1e308): the ratios, scaled down
        smoothed = smoothed / smoothed.max()
        total = smoothed.sum()
    with np.errstate(divide="ignore"):
        return np.log(smoothed) - np.log(total)


def _class_log_prior_xp(xp, class_count, class_prior, fit_prior: bool, pseudocount: float):
    """:func:`class_log_prior` in the namespace ``xp`` of ``class_count``, on its device."""
    n_classes = class_count.shape[0]
    if class_prior is not None:
        return xp.log(to_space(np.asarray(class_prior, dtype=np.float64), space_of(class_count)))
    uniform = xp.full(n_classes, -math.log(n_classes), dtype=class_count.dtype)
    uniform = to_space(uniform, space_of(class_count))
    if not fit_prior:
        return uniform
    smoothed = class_count + pseudocount
    total = xp.sum(smoothed)
    if not float(total) > 0:
        return uniform
    return xp.log(smoothed) - xp.log(total)


def joint_log_likelihood(
    log_likelihood: NDArray[np.float64], log_prior: NDArray[np.float64], out: bool = False
) -> NDArray[np.float64]:
    """``log P(x, y) = log P(y) + log P(x | y)``, shape (n_samples, n_classes).

    ``out=True``: the caller owns ``log_likelihood`` (a fresh array), which is
    updated in place when it is a writeable float64 array (one n x k pass saved).
    """
    xp = namespace_of(log_likelihood)
    if xp is not np:
        return xp.where(log_prior == -math.inf, -math.inf, log_likelihood + log_prior)
    impossible = np.isneginf(log_prior)
    if impossible.any():  # P(y) = 0: P(x, y) = 0 whatever P(x | y), even +inf or NaN (0/0)
        with np.errstate(invalid="ignore"):
            joint = log_likelihood + log_prior
        joint[:, impossible] = -np.inf
        return joint
    if out and log_likelihood.dtype == np.float64 and log_likelihood.flags.writeable:
        log_likelihood += log_prior
        return log_likelihood
    return log_likelihood + log_prior


def log_posterior(jll: NDArray[np.float64], log_prior: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log P(y | x) = jll - logsumexp(jll)`` row by row, shape (n_samples, n_classes).

    Degenerate rows (see the module docstring) get the prior, or an even split
    between their ``+inf`` classes.
    """
    xp = namespace_of(jll)
    if xp is not np:
        return _log_posterior_xp(xp, jll, log_prior)
    row_max = jll.max(axis=1) if jll.shape[0] else np.empty(0)
    regular = np.isfinite(row_max)
    if np.all(regular):
        return _normalise(jll, row_max)
    out = np.empty_like(jll, dtype=np.float64)
    out[regular] = _normalise(jll[regular], row_max[regular])
    bad = ~regular
    bad_rows = jll[bad]
    infinite = np.isposinf(bad_rows)
    with np.errstate(divide="ignore"):
        prior = log_prior - logsumexp(log_prior)
        split = np.log(infinite) - np.log(np.maximum(infinite.sum(axis=1), 1))[:, None]
    out[bad] = np.where(infinite.any(axis=1)[:, None], split, prior)
    return out


def _log_posterior_xp(xp, jll, log_prior):
    """:func:`log_posterior` in the namespace ``xp`` of ``jll``, on its device: rows
    shifted by their maximum and normalised; degenerate rows (see the module doc) as
    there, chosen by ``where`` rather than by indexing."""
    if jll.shape[0] == 0:
        return jll
    row_max = xp.max(jll, axis=1, keepdims=True)
    regular = xp.isfinite(row_max)
    shifted = jll - xp.where(regular, row_max, xp.zeros_like(row_max))
    wide = widest_float(xp, device_of(jll))
    if wide == xp.float64:  # the normaliser in float64, rounded as the NumPy path rounds
        # it (so float32 input keeps a near-certain row's log-probability, -4e-11)
        exponentials = xp.exp(xp.astype(shifted, wide))
        normaliser = xp.log(xp.sum(exponentials, axis=1, keepdims=True))
        normalised = shifted - xp.astype(normaliser, jll.dtype)
    else:  # no float64 (e.g. Apple's MPS): log1p of the sum without one maximal entry
        classes = xp.arange(jll.shape[1], device=device_of(jll))
        top = xp.argmax(jll, axis=1)[:, None] == classes
        others = xp.where(top, xp.zeros_like(shifted), xp.exp(shifted))
        normalised = shifted - xp.log1p(xp.sum(others, axis=1, keepdims=True))
    if bool(xp.all(regular)):
        return normalised
    infinite = jll == math.inf
    n_infinite = xp.sum(xp.astype(infinite, jll.dtype), axis=1, keepdims=True)
    split = xp.where(infinite, -xp.log(xp.clip(n_infinite, 1, None)), -math.inf)
    prior_max = xp.max(log_prior)
    prior = log_prior - (prior_max + xp.log(xp.sum(xp.exp(log_prior - prior_max))))
    fallback = xp.where(n_infinite > 0, split, xp.broadcast_to(prior, jll.shape))
    return xp.where(regular, normalised, fallback)


def _normalise(jll: NDArray[np.float64], row_max: NDArray[np.float64]) -> NDArray[np.float64]:
    """``(jll - max) - log sum exp(jll - max)`` for rows with a finite maximum.

    Shifting first keeps the differences between classes exact: ``jll -
    logsumexp(jll)`` would round the normaliser to ``jll`` itself once ``|jll|``
    exceeds ~1e16 (an x far from every Gaussian mean), giving each tied class
    probability 1. The shifted maximum is 0, so the sum of exponentials lies in
    ``[1, n_classes]`` and needs no further guard.
    """
    out = jll - row_max[:, None]
    exponentials = out.copy()
    if not posterior_kernels.exp_in_place(exponentials):
        np.exp(exponentials, out=exponentials)
    out -= np.log(exponentials.sum(axis=1, keepdims=True))
    return out


def posterior_proba(
    jll: NDArray[np.float64], log_prior: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``P(y | x) = exp(jll - m) / sum exp(jll - m)`` row by row, ``m`` the row maximum:
    ``exp(log_posterior(jll))`` in one exponential pass. Shape (n_samples, n_classes)."""
    xp = namespace_of(jll)
    if xp is not np:
        return xp.exp(_log_posterior_xp(xp, jll, log_prior))
    row_max = jll.max(axis=1) if jll.shape[0] else np.empty(0)
    if not np.all(np.isfinite(row_max)):
        return np.exp(log_posterior(jll, log_prior))
    out = jll - row_max[:, None]
    np.exp(out, out=out)
    out /= out.sum(axis=1, keepdims=True)
    return out


def posterior_proba_inplace(
    jll: NDArray[np.float64], log_prior: NDArray[np.float64]
) -> NDArray[np.float64]:
    """:func:`posterior_proba` overwriting ``jll`` (a block the caller owns): no
    n x k temporaries, so a block of rows is normalised while it is in cache.

    For a writeable float64 ``jll``: the rows whose maximum is finite are shifted by
    it, exponentiated and divided by their sum (added in order of the classes); the
    others (degenerate) are set aside before and take the :func:`log_posterior` path.
    Arrays of another namespace take :func:`posterior_proba` (no kernels there).
    Where the compiled kernels are used (:mod:`nbayes._kernels.posterior`: not for a
    small ``jll``), the row maximum and the row sum are compiled loops, one pass each
    instead of NumPy's slow reductions over short rows, with bitwise the same results,
    and the exponential is glibc's vector one where it is available (within 4 ulp of
    NumPy's)."""
    if namespace_of(jll) is not np:
        return posterior_proba(jll, log_prior)
    if jll.dtype == np.float64 and jll.flags.writeable and jll.ndim == 2 and jll.shape[1]:
        regular = posterior_kernels.shift_by_row_max(jll)
        compiled = regular is not None
        if not compiled:
            row_max = _by_columns(np.maximum, jll)
            regular = np.isfinite(row_max)
        degenerate = None if regular.all() else jll[~regular]  # rows not shifted
        if not compiled:
            if degenerate is None:
                jll -= row_max[:, None]
            else:
                jll[regular] -= row_max[regular, None]
        if not posterior_kernels.exp_in_place(jll):
            with np.errstate(over="ignore"):  # only in the rows set aside
                np.exp(jll, out=jll)
        if compiled:
            posterior_kernels.divide_by_row_sum(jll, regular)
        elif degenerate is None:
            jll /= _by_columns(np.add, jll)[:, None]
        else:
            rows = jll[regular]
            rows /= _by_columns(np.add, rows)[:, None]
            jll[regular] = rows
        if degenerate is not None:
            jll[~regular] = np.exp(log_posterior(degenerate, log_prior))
        return jll
    row_max = jll.max(axis=1, keepdims=True) if jll.shape[0] else np.empty((0, 1))
    if not np.all(np.isfinite(row_max)):
        return np.exp(log_posterior(jll, log_prior))
    jll -= row_max
    np.exp(jll, out=jll)
    jll /= jll.sum(axis=1, keepdims=True)
    return jll


#: Classes up to which :func:`_by_columns` goes column by column (NumPy's reductions
#: over short rows are slow: 3 classes, 30 ns a row against 1 ns).
_COLUMN_LOOP_MAX = 32


def _by_columns(ufunc: np.ufunc, values: NDArray[np.float64]) -> NDArray[np.float64]:
    """``ufunc`` (np.maximum or np.add) of each row of ``values`` (n_rows, n_classes),
    shape (n_rows,), applied in order of the classes, as the compiled kernels do (so
    the sums round alike; ``np.sum`` may add pairwise)."""
    if values.shape[1] > _COLUMN_LOOP_MAX:
        return ufunc.accumulate(values, axis=1)[:, -1]
    out = values[:, 0].copy()
    for c in range(1, values.shape[1]):
        ufunc(out, values[:, c], out=out)
    return out


def predict_index(jll: NDArray[np.float64], log_prior: NDArray[np.float64]) -> NDArray[np.intp]:
    """The MAP class index ``argmax_y log P(x, y)``, shape (n_samples,)."""
    xp = namespace_of(jll)
    if xp is not np:
        if jll.shape[0] == 0 or bool(xp.all(xp.isfinite(xp.max(jll, axis=1)))):
            return xp.argmax(jll, axis=1)
        return xp.argmax(_log_posterior_xp(xp, jll, log_prior), axis=1)
    index = np.argmax(jll, axis=1)
    if jll.shape[0] and not np.all(np.isfinite(jll[np.arange(jll.shape[0]), index])):
        bad = ~np.isfinite(jll.max(axis=1))
        index[bad] = np.argmax(log_posterior(jll[bad], log_prior), axis=1)
    return index
