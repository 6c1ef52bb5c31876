"""Synthetic data sets of the benchmark, generated from fixed seeds.

Every generator takes the full-size shape; ``--quick`` passes small shapes instead.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray


def gaussian(n: int, d: int, k: int, seed: int = 0) -> tuple[NDArray, NDArray]:
    """X (n, d) float64: class means N(0, 1), per-class scales in [0.5, 2]; y (n,) in 0..k-1."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    means = rng.normal(size=(k, d))
    scales = rng.uniform(0.5, 2.0, size=(k, d))
    X = rng.standard_normal((n, d))
    X *= scales[y]
    X += means[y]
    return X, y


def sparse_counts(
    n: int, d: int, nnz_per_row: int, k: int, seed: int = 1
) -> tuple[sp.csr_matrix, NDArray]:
    """CSR counts (n, d) with about ``nnz_per_row`` nonzeros per row, values 1..3.

    Columns are drawn with density proportional to ``1 / sqrt(column)`` (a mildly
    skewed, text-like vocabulary), each class shifting the vocabulary by its own offset;
    duplicates are summed, so nnz is slightly below ``n * nnz_per_row``.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    columns = (d * rng.random(n * nnz_per_row) ** 2).astype(np.int64)
    columns += np.repeat(y * (d // max(k, 1) // 7), nnz_per_row)
    columns %= d
    data = rng.integers(1, 4, n * nnz_per_row).astype(np.float64)
    indptr = np.arange(0, n * nnz_per_row + 1, nnz_per_row)
    X = sp.csr_matrix((data, columns.astype(np.int32), indptr), shape=(n, d))
    X.sum_duplicates()
    return X, y


def categorical(
    n: int, d: int, k: int, min_categories: int = 5, max_categories: int = 20, seed: int = 2
) -> tuple[NDArray, NDArray, NDArray]:
    """Codes X (n, d) int64 with K_j in [min, max] categories per column; y (n,); K (d,)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    n_categories = rng.integers(min_categories, max_categories + 1, d)
    X = (rng.random((n, d)) ** 1.5 * n_categories).astype(np.int64)
    X += (y[:, None] * (np.arange(d) % 3)) % n_categories  # class-dependent shift
    X %= n_categories
    return X, y, n_categories
