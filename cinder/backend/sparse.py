"""Sparse-matrix products for kernels that pool rows by an index (``embedding_bag``): a CSR
matrix times a dense one is one compiled pass, where gathering the rows first would write
every looked-up row out."""

import numpy as np


def pooling_product(xp, bag_of, rows_of, values, bags, dense):
    """``out[b] = sum of values[j] * dense[rows_of[j]]`` over the j with ``bag_of[j] == b``
    ((bags, D) result): the CSR matrix of (bag, row, value) triples times ``dense``."""
    if xp is np:
        from scipy import sparse
    else:                            # (CuPy arrays: cupyx's CSR has the same interface)
        from cupyx.scipy import sparse
    pool = sparse.csr_matrix((values, (bag_of, rows_of)), shape=(bags, dense.shape[0]))
    return xp.asarray(pool @ dense)




def rows_matrix(xp, indices, values, shape):
    """The CSR matrix of ``shape`` whose row r holds ``values[r, j]`` at column
    ``indices[r, j]`` (both (rows, k); repeated columns add up). Every row has k entries, so
    the row pointers are a range and nothing needs sorting."""
    if xp is np:
        from scipy import sparse
    else:                            # (CuPy arrays: cupyx's CSR has the same interface)
        from cupyx.scipy import sparse
    rows, k = indices.shape
    indptr = xp.arange(0, rows * k + 1, max(k, 1), dtype=indices.dtype)[:rows + 1]
    return sparse.csr_matrix((values.ravel(), indices.ravel(), indptr), shape=shape)
