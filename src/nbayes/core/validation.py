"""Validation and label encoding: the front of the one-way data flow.

Every training path (``fit``, ``partial_fit``, EM, merging) turns its labels into one
**class-weight matrix** ``W`` of shape ``(n_samples, n_classes)``: ``W[i, c]`` is the
weight that row ``i`` gives to class ``c``. Hard labels with sample weights give a
one-nonzero-per-row ``W`` (stored sparse, with the label index kept); EM
responsibilities give a dense ``W``. Event models only ever see ``W``.
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass
from functools import cached_property
from numbers import Real

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.multiclass import check_classification_targets

from nbayes import _kernels
from nbayes._kernels import weights as weights_kernels
from nbayes.core.arrow_strings import factorize_arrow_strings
from nbayes.core.namespace import Space, to_space


@dataclass(frozen=True)
class ClassWeights:
    """The class-weight matrix ``W`` of shape ``(n_samples, n_classes)``.

    Attributes
    ----------
    values : ndarray of shape (n_samples,), or W itself
        For hard labels, the weight of each row's one entry; for soft weights, the
        matrix ``W`` (dense, or sparse CSR) of shape (n_samples, n_classes).
    labels : ndarray of shape (n_samples,) or None
        For hard labels, the class index of each row (``W`` has one entry per row);
        ``None`` for soft weights.
    n_classes : int
        Columns of ``W`` (read from ``values`` for soft weights).
    """

    values: sp.csr_matrix | NDArray[np.float64]
    labels: NDArray[np.intp] | None = None
    n_classes: int | None = None

    def __post_init__(self) -> None:
        if self.labels is None:
            object.__setattr__(self, "n_classes", self.values.shape[1])
        elif self.n_classes is None:
            raise TypeError("Hard class weights need n_classes.")

    @cached_property
    def matrix(self) -> sp.csr_matrix | NDArray[np.float64]:
        """``W`` itself; for hard labels a sparse CSR matrix, built on first use (the
        event models' hard-label paths read ``labels`` and ``values`` only, so a
        ``partial_fit`` batch does not pay for it)."""
        if self.labels is None:
            return self.values
        n_samples = self.labels.shape[0]
        return sp.csr_matrix(
            (self.values, self.labels, np.arange(n_samples + 1)),
            shape=(n_samples, self.n_classes),
        )

    def class_totals(self) -> NDArray[np.float64]:
        """Column sums of ``W``: the weighted count of each class, shape (n_classes,)
        (a new array each call; summed once, since every block of a table asks)."""
        return self._class_totals.copy()

    @cached_property
    def _class_totals(self) -> NDArray[np.float64]:
        if self.labels is not None:
            return np.bincount(self.labels, self.values, minlength=self.n_classes)
        return np.asarray(self.matrix.sum(axis=0), dtype=np.float64).ravel()

    def row_totals(self) -> NDArray[np.float64]:
        """Row sums of ``W``: each sample's total weight, shape (n_samples,)."""
        if self.labels is not None:  # one entry per row
            return np.asarray(self.values, dtype=np.float64)
        return np.asarray(self.matrix.sum(axis=1), dtype=np.float64).ravel()

    def rows(self, rows: slice) -> ClassWeights:
        """The class weights of the rows ``rows`` only."""
        labels = None if self.labels is None else self.labels[rows]
        return ClassWeights(self.values[rows], labels, self.n_classes)

    def dense_block(self, rows: slice) -> NDArray[np.float64]:
        """The rows ``rows`` of ``W`` as a dense array of shape (len(rows), n_classes)."""
        if self.labels is None:
            return self.matrix[rows]
        labels = self.labels[rows]
        out = np.zeros((labels.shape[0], self.n_classes))
        out[np.arange(labels.shape[0]), labels] = self.values[rows]
        return out

    def on(self, space: Space):
        """``W`` as a dense array (n_samples, n_classes) of ``space``'s namespace, device
        and floating dtype (:mod:`nbayes.core.namespace`): hard labels are one-hot
        encoded there, so only the labels and weights cross to the device."""
        if self.labels is None:
            values = self.values.toarray() if sp.issparse(self.values) else self.values
            return to_space(np.asarray(values, dtype=np.float64), space)
        xp = space.xp
        labels = to_space(np.asarray(self.labels, dtype=np.int64), space)
        classes = xp.arange(self.n_classes, dtype=labels.dtype, device=space.device)
        weights = to_space(np.asarray(self.values, dtype=np.float64), space)
        return xp.astype(labels[:, None] == classes[None, :], space.dtype) * weights[:, None]

    def block_labels(self, rows: slice) -> NDArray[np.intp] | None:
        """The class index of the rows ``rows`` (hard labels), else None."""
        return None if self.labels is None else self.labels[rows]

    def transpose_dot(self, X) -> NDArray[np.float64]:
        """``W.T @ X`` as a dense array of shape (n_classes, n_features).

        Hard labels with sparse X: one weighted ``bincount`` scatter-add of every
        nonzero into its (class, feature) cell, in blocks of rows.
        """
        if self.labels is not None and sp.issparse(X) and X.format == "csr":
            return _scatter_add(self, X, np.zeros((self.n_classes, X.shape[1])))
        product = self.matrix.T @ X
        if sp.issparse(product):
            product = product.toarray()
        return np.asarray(product, dtype=np.float64)

    def add_transpose_dot(self, X, out: NDArray[np.float64]) -> NDArray[np.float64]:
        """``out += W.T @ X`` in place; ``out`` (n_classes, n_features) C-contiguous
        float64. Hard labels with CSR X scatter-add straight into ``out``."""
        if self.labels is not None and sp.issparse(X) and X.format == "csr":
            return _scatter_add(self, X, out)
        out += self.transpose_dot(X)
        return out


BLOCK_BYTES = 1 << 21  # 2 MiB: a block of rows and its temporaries stay in cache


def row_blocks(n_rows: int, width: int, block_bytes: int = BLOCK_BYTES) -> list[slice]:
    """Consecutive row slices covering ``range(n_rows)``, each at most about
    ``block_bytes`` of float64 at ``width`` values per row (at least 64 rows a block),
    as few as that allows and of equal sizes (within a row): the block threads get
    even shares, and per-thread buffers sized by one block fit every block of the
    next batch of the same size."""
    n_blocks = -(-n_rows // max(64, block_bytes // (8 * max(width, 1))))
    bounds = [i * n_rows // n_blocks for i in range(n_blocks + 1)] if n_rows else []
    return [slice(start, stop) for start, stop in itertools.pairwise(bounds)]


_NONZEROS_PER_BLOCK = 1 << 20  # 8 MiB of cell indices a block

#: CPU seconds the scatter-add kernel saves over ``np.add.at`` a nonzero (a 1,000,000 x
#: 50 CSR X; bench/NOTES.md, issue 29), for :func:`nbayes._kernels.available`.
SCATTER_SAVING_S = 0.3e-9


def _scatter_add(
    weights: ClassWeights, X: sp.csr_matrix, out: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``out += W.T @ X`` for hard labels and CSR X: ``out[label_i, j] += w_i x_ij``.

    The nonzeros go in blocks of rows (about 2**20 nonzeros), each turned into flat
    cell indices ``label_i * n_features + j`` (an int64 temporary) and added straight
    into ``out`` by the compiled scatter-add (:func:`nbayes._kernels.weights.scatter_add`).
    The NumPy reference path (``nbayes._kernels.ENABLED = False``): when X has at least
    as many nonzeros as ``out`` has cells, each block (then of at least ``out.size``
    nonzeros) is counted by one ``bincount`` and added (the pass over its output is
    amortised; ``np.add.at`` is slower per nonzero); a smaller X (a ``partial_fit``
    batch against many features) goes by ``np.add.at``, the compiled kernel's additions
    in the same order. So does an X of too few nonzeros for the kernel to be worth
    loading (:func:`nbayes._kernels.available`), so that the result is the kernel's.
    """
    if not out.flags.c_contiguous:
        out += _scatter_add(weights, X, np.zeros(out.shape))
        return out
    n_features = X.shape[1]
    size = out.size
    flat = out.reshape(-1)  # a view of out
    compiled = _kernels.available(X.nnz, SCATTER_SAVING_S)
    counted = not _kernels.ENABLED and X.nnz >= size  # else a scatter-add
    # bincount: blocks that amortise its pass over the output
    per_block = max(_NONZEROS_PER_BLOCK, size) if counted else _NONZEROS_PER_BLOCK
    row_weights = weights.values
    unit = bool(np.all(row_weights == 1.0))
    indptr = X.indptr
    start = 0
    while start < X.shape[0]:
        stop = int(np.searchsorted(indptr, indptr[start] + per_block, "right")) - 1
        stop = min(max(stop, start + 1), X.shape[0])
        lengths = np.diff(indptr[start : stop + 1])
        nonzeros = slice(indptr[start], indptr[stop])
        cells = np.repeat(weights.labels[start:stop] * n_features, lengths)
        cells += X.indices[nonzeros]
        values = X.data[nonzeros]
        if not unit:
            values = values * np.repeat(row_weights[start:stop], lengths)
        if compiled:
            weights_kernels.scatter_add(cells, np.asarray(values, dtype=np.float64), flat)
        elif counted:
            flat += np.bincount(cells, values, minlength=size)
        else:
            np.add.at(flat, cells, values)
        start = stop
    return out


def hard_class_weights(
    label_index: NDArray[np.intp], n_classes: int, sample_weight: NDArray | None
) -> ClassWeights:
    """``W`` for hard labels: ``W[i, label_index[i]] = sample_weight[i]``."""
    n_samples = label_index.shape[0]
    data = (
        np.ones(n_samples, dtype=np.float64)
        if sample_weight is None
        else np.asarray(sample_weight, dtype=np.float64)
    )
    return ClassWeights(data, label_index, n_classes)


def soft_class_weights(responsibilities: ArrayLike) -> ClassWeights:
    """``W`` for soft labels (e.g. EM responsibilities), shape (n_samples, n_classes)."""
    matrix = np.asarray(responsibilities, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(
            f"Class weights must be 2-dimensional (n_samples, n_classes); got shape {matrix.shape}."
        )
    if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
        raise ValueError("Class weights must be finite and non-negative.")
    return ClassWeights(matrix)


def check_sample_weight(sample_weight, n_samples: int) -> NDArray[np.float64] | None:
    """Validate ``sample_weight``: shape (n_samples,), finite, non-negative.

    A scalar is broadcast to every row; ``None`` stays ``None`` (unit weights).
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, Real):
        return np.full(n_samples, float(sample_weight))
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sample_weight must be numeric: {exc}") from None
    if weights.ndim != 1:
        raise ValueError("Sample weights must be 1D array or scalar")
    if weights.shape != (n_samples,):
        raise ValueError(f"sample_weight.shape == {weights.shape}, expected {(n_samples,)}!")
    if not np.all(np.isfinite(weights)):
        raise ValueError("Input sample_weight contains NaN or infinity.")
    if np.any(weights < 0):
        raise ValueError("Negative values in data passed to `sample_weight`.")
    if n_samples and not np.any(weights):
        raise ValueError("Sample weights must contain at least one non-zero number.")
    return weights


def check_targets(y) -> None:
    """scikit-learn's classification-target check, skipped for 1-D integer or bool
    labels (always 'binary' or 'multiclass'), where it would cost a sort; many other
    1-D labels are hashed and checked by their distinct values (see
    :func:`encode_targets`)."""
    if y.ndim == 1 and y.dtype.kind in "iub":
        return
    encode_targets(y)


def encode_targets(y) -> tuple[NDArray, NDArray[np.intp]]:
    """scikit-learn's classification-target check, then :func:`encode_labels`.

    Many 1-D labels that are not integers are factorized by hashing
    (:func:`_factorize`: one pass, no sort of n Python objects); scikit-learn's check
    then runs on the distinct labels, in order of first appearance, which gives its
    verdict on y (the type of 1-D targets depends on the set of labels and on the
    type of the first one only). ``y`` may be a pandas Series (strings stay in their
    Arrow or categorical arrays; see :func:`nbayes.mixed.columns.as_labels`).
    """
    factorized = _factorize(y) if getattr(y, "ndim", 1) == 1 else None
    if factorized is not None:
        codes, uniques = factorized
        check_classification_targets(uniques)
        classes, where = np.unique(uniques, return_inverse=True)
        # in place: codes is the factorization's own array, a new one costs page faults
        out = codes if codes.flags.writeable else None
        return classes, np.take(where.reshape(-1).astype(np.intp, copy=False), codes, out=out)
    y = np.asarray(y)
    if not (y.ndim == 1 and y.dtype.kind in "iub"):
        check_classification_targets(y)
    return encode_labels(y)


#: Labels are hashed (``pandas.factorize``) from this many on; fewer are sorted
#: (``np.unique``), which costs less than a hash table's set-up for a small batch.
HASH_LABELS_FROM = 1024


def _factorize(y) -> tuple[NDArray[np.intp], NDArray] | None:
    """``(codes, uniques)`` of 1-D labels by hashing (``pandas.factorize``: distinct
    labels in order of first appearance, ``uniques[codes] == y``), when the program has
    imported pandas and y is not made of integers; None otherwise (then a sort is
    the way). A missing label (pandas' NA in a Series) is an error."""
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return None
    if isinstance(y, np.ndarray):
        if y.dtype.kind not in "OUSf" or y.size < HASH_LABELS_FROM:
            return None
        codes, uniques = pandas.factorize(y, use_na_sentinel=False)
    elif isinstance(y, pandas.Series):
        factorized = factorize_arrow_strings(y)
        if factorized is not None:  # Arrow strings: hashed by the compiled pass
            codes, uniques = factorized[0], np.array(factorized[1], dtype=object)
        else:
            codes, uniques = pandas.factorize(y, use_na_sentinel=True)
        if codes.size and codes.min() < 0:
            raise ValueError("Input y contains NaN.")
        uniques = np.asarray(uniques)  # a categorical keeps its categories' dtype
    else:
        return None
    return np.asarray(codes, dtype=np.intp), np.asarray(uniques)


def _small_int_range(values: NDArray) -> tuple[int, int] | None:
    """``(min, max)`` of integer ``values`` whose range is small enough for a lookup
    table (at most ``max(2 n, 65536)`` entries), else None."""
    if values.dtype.kind not in "iu" or values.size == 0:
        return None
    low, high = int(values.min()), int(values.max())
    return (low, high) if high - low < max(2 * values.size, 1 << 16) else None


def _offsets(values: NDArray, low: int) -> NDArray[np.intp]:
    """``values - low`` as indices, without overflow in narrow integer types."""
    if values.dtype.kind == "i" or values.dtype.itemsize < 8:
        values = values.astype(np.int64, copy=False)
    return (values - values.dtype.type(low)).astype(np.intp, copy=False)


def encode_labels(y: NDArray) -> tuple[NDArray, NDArray[np.intp]]:
    """The sorted distinct labels of ``y`` and the index of each label among them.

    Small-range integer labels are counted in O(n) with a lookup table; anything
    else goes through :func:`numpy.unique` (a sort).
    """
    bounds = _small_int_range(y)
    if bounds is None:
        classes, index = np.unique(y, return_inverse=True)
        return classes, index.reshape(-1).astype(np.intp, copy=False)
    offsets = _offsets(y, bounds[0])
    present = np.flatnonzero(np.bincount(offsets, minlength=bounds[1] - bounds[0] + 1))
    table = np.empty(bounds[1] - bounds[0] + 1, dtype=np.intp)
    table[present] = np.arange(present.shape[0])
    if y.dtype.kind == "u" and y.dtype.itemsize == 8:  # beyond int64: add in uint64
        classes = present.astype(np.uint64) + np.uint64(bounds[0])
    else:
        classes = (present + bounds[0]).astype(y.dtype)
    return classes, table[offsets]


def label_index(y: NDArray, classes: NDArray) -> NDArray[np.intp]:
    """Index of each label of ``y`` in the sorted array ``classes`` (read only: where
    ``classes`` is ``0, 1, ..., k - 1`` and ``y`` holds ``np.intp``, ``y`` itself).
    Many labels that are not integers are hashed (:func:`_factorize`), so each
    distinct label is looked up once.

    Raises
    ------
    ValueError
        If ``y`` holds a label that is not in ``classes``.
    """
    bounds = _small_int_range(y) if classes.dtype.kind in "iu" else None
    if bounds is None or not (
        classes.size and classes[0] <= bounds[0] <= bounds[1] <= classes[-1]
    ):
        factorized = _factorize(y) if getattr(y, "ndim", 1) == 1 else None
        if factorized is not None:
            codes, uniques = factorized
            return _sorted_lookup(uniques, classes)[codes]
        return _sorted_lookup(np.asarray(y), classes)
    if y.dtype == np.intp and classes[0] == 0 and classes[-1] == classes.size - 1:
        return y  # sorted distinct integers from 0 to k - 1: each label its own index
    low = int(classes[0])
    table = np.full(int(classes[-1]) - low + 1, -1, dtype=np.intp)
    table[_offsets(classes, low)] = np.arange(classes.shape[0])
    index = table[_offsets(y, low)]
    _refuse_unknown(y, classes, index < 0)
    return index


def _sorted_lookup(y: NDArray, classes: NDArray) -> NDArray[np.intp]:
    """Index of each label of ``y`` in the sorted array ``classes`` by binary search."""
    index = np.clip(np.searchsorted(classes, y), 0, max(len(classes) - 1, 0))
    _refuse_unknown(y, classes, classes[index] != y if len(classes) else np.ones(len(y), bool))
    return index.astype(np.intp, copy=False)


def _refuse_unknown(y: NDArray, classes: NDArray, unknown: NDArray[np.bool_]) -> None:
    if np.any(unknown):
        raise ValueError(
            f"The target label(s) {np.unique(y[unknown])} in y do not exist in the "
            f"initial classes {classes}"
        )


def same_classes(classes, known: NDArray) -> bool:
    """Whether ``classes`` is an array equal to ``known`` (sorted, distinct) element by
    element: then ``np.unique(classes)`` is ``known``, and need not be computed."""
    return (
        isinstance(classes, np.ndarray)
        and classes.shape == known.shape
        and classes.dtype == known.dtype
        and bool((classes == known).all())
    )


def check_partial_fit_classes(estimator, classes) -> bool:
    """Whether this ``partial_fit`` call is the first; check ``classes`` agree.

    On the first call ``classes`` is required and becomes ``estimator.classes_``
    (sorted); on later calls it may be omitted, or must equal ``classes_``.
    """
    fitted_classes = getattr(estimator, "classes_", None)
    if fitted_classes is None and classes is None:
        raise ValueError("classes must be passed on the first call to partial_fit.")
    if classes is not None:
        if fitted_classes is not None:
            if not np.array_equal(fitted_classes, np.unique(classes)):
                raise ValueError(
                    f"`classes={classes!r}` is not the same as on last call to "
                    f"partial_fit, was: {fitted_classes!r}"
                )
        else:
            estimator.classes_ = np.unique(classes)
            return True
    return False


def check_class_prior(prior: ArrayLike, n_classes: int) -> NDArray[np.float64]:
    """Validate a user-given class prior: one non-negative entry per class, sum 1."""
    prior = np.asarray(prior, dtype=np.float64).ravel()
    if prior.shape[0] != n_classes:
        raise ValueError("Number of priors must match number of classes.")
    if np.any(prior < 0):
        raise ValueError("Priors must be non-negative.")
    with np.errstate(over="ignore", invalid="ignore"):  # huge entries: a sum of inf
        total = prior.sum()
    if not np.isclose(total, 1.0):
        raise ValueError("The sum of the priors should be 1.")
    return prior
