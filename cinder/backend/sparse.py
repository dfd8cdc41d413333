"""Sparse matrices for kernels that pool rows by an index (``embedding_bag``, ``grid_sampler``):
a CSR matrix times a dense one is one compiled pass, where gathering the rows first would
write every looked-up row out. The kernels build the row pointers themselves (their entries
already come grouped by output row), so nothing is sorted."""

import numpy as np


def csr_matrix(xp, values, indices, indptr, shape):
    """The CSR matrix of row pointers ``indptr``, column ``indices`` and ``values``."""
    if xp is np:
        from scipy import sparse
    else:                            # (CuPy arrays: cupyx's CSR has the same interface)
        from cupyx.scipy import sparse
    return sparse.csr_matrix((values, indices, indptr), shape=shape)


def rows_matrix(xp, indices, values, shape):
    """The CSR matrix of ``shape`` whose row r holds ``values[r, j]`` at column
    ``indices[r, j]`` (both (rows, k); repeated columns add up). Every row has k entries, so
    the row pointers are a range."""
    rows, k = indices.shape
    indptr = xp.arange(0, rows * k + 1, max(k, 1), dtype=indices.dtype)[:rows + 1]
    return csr_matrix(xp, values.ravel(), indices.ravel(), indptr, shape)
