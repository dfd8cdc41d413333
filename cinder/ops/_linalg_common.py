"""Shared checks and helpers of the torch.linalg ops (argument checks with PyTorch's messages,
the LinAlgError type, batched-singularity reporting)."""

import numpy as np

from .. import _dtype as D
from .. import backend
from .._device import CPU
from ._layouts import in_order
from ._prep import wrap, xp_of


class LinAlgError(RuntimeError):
    """Raised when a linear-algebra routine fails on its input (singular or not
    positive-definite matrix); a RuntimeError, as ``torch.linalg.LinAlgError`` is."""


LinAlgError.__module__ = "torch.linalg"
LinAlgError.__qualname__ = LinAlgError.__name__ = "LinAlgError"


# PyTorch's dtype refusals differ by function: most check "floating point or complex" first
# (RuntimeError), so float16/bfloat16 pass that check and reach a LAPACK kernel that has no
# half version (NotImplementedError naming the kernel); a few have no up-front check at all,
# so integer and bool inputs reach the kernel too. function -> (kernel, ints reach it)
_KERNELS = {
    "linalg.lu_factor": ("lu_cpu", True), "linalg.lu": ("lu_cpu", True),
    "linalg.lu_solve": ("lu_cpu", True), "linalg.solve_triangular": ("triangular_solve_cpu", True),
    "linalg.eigh": ("linalg_eigh_cpu", True), "linalg.eigvalsh": ("linalg_eigh_cpu", True),
    "linalg.solve": ("lu_cpu", False), "linalg.det": ("lu_cpu", False),
    "linalg.cholesky": ("cholesky_cpu", False), "linalg.svd": ("linalg_svd_cpu", False),
    "linalg.svdvals": ("linalg_svd_cpu", False), "linalg.cond": ("linalg_svd_cpu", False),
    "linalg.qr": ("geqrf_cpu", False), "linalg.eig": ("linalg_eig_out_cpu", False),
    "linalg.eigvals": ("linalg_eig_out_cpu", False),
    "torch.linalg.ldl_factor_ex": ("ldl_factor_kernel_cpu", False),
    "torch.linalg.ldl_solve": ("ldl_factor_kernel_cpu", False),
    "torch.geqrf": ("geqrf_cpu", True), "torch.linalg.householder_product": ("orgqr_cpu", True),
}
# functions that refuse float16/bfloat16 up front (RuntimeError)
_LOW_PRECISION = {"linalg.inv", "linalg.slogdet", "linalg.matrix_norm"}


def check_float(A, fname, what="input"):
    """linalg ops work on float32/float64/complex only (PyTorch's exception type and
    message for each function)."""
    if A._dtype in (D.float32, D.float64, D.complex64, D.complex128):
        return
    kernel, ints_too = _KERNELS.get(fname, (None, False))
    half = A._dtype in (D.float16, D.bfloat16)
    if half and fname in _LOW_PRECISION:
        raise RuntimeError(f"{fname}: Low precision dtypes not supported. Got "
                           f"{A._dtype.scalar_name}")
    if kernel is not None and (half or ints_too):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{A._dtype.scalar_name}'")
    raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as {what}. "
                       f"Got {A._dtype.scalar_name}")


# (the checks read the array's shape: Tensor.dim()/.shape are dispatched ops, ~1 us a call)
def check_matrix(A, fname, name="A"):
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {name} must have at least 2 dimensions.")


def check_square(A, fname, name="A"):
    check_matrix(A, fname, name)
    shape = A._data.shape
    if shape[-1] != shape[-2]:
        raise RuntimeError(f"{fname}: {name} must be batches of square matrices, but they are "
                           f"{shape[-2]} by {shape[-1]} matrices")


def check_same_dtype(A, B, fname):
    if A._dtype is not B._dtype:
        raise RuntimeError(f"{fname}: Expected A and B to have the same dtype, but found A of "
                           f"type {A._dtype.scalar_name} and B of type "
                           f"{B._dtype.scalar_name} instead")


def batch_prefix(index, batched):
    return f"(Batch element {index}): " if batched else ""


def singular_info(a):
    """LAPACK's ``info`` per matrix: 1-based index of the first zero pivot of its LU factor
    (0 where the matrix is invertible). Only run after a factorisation failed."""
    import scipy.linalg as sl
    a = np.asarray(a)
    flat = a.reshape((-1,) + a.shape[-2:])
    info = np.zeros(len(flat), np.int32)
    for b, m in enumerate(flat):
        with np.errstate(all="ignore"):
            lu = sl.lu_factor(m, check_finite=False)[0] if m.size else m
        zero = np.nonzero(np.diagonal(lu) == 0)[0]
        info[b] = zero[0] + 1 if zero.size else 0
    return info.reshape(a.shape[:-2])


def first_zero_pivot(a):
    """(batch index, 1-based diagonal index) of the first exactly singular LU factor, or None;
    only run when a factorisation already failed, to word PyTorch's message."""
    import scipy.linalg as sl
    flat = np.asarray(a).reshape((-1,) + a.shape[-2:])
    for b, m in enumerate(flat):
        lu = sl.lu_factor(m, check_finite=False)[0] if m.size else m
        zero = np.nonzero(np.diagonal(lu) == 0)[0]
        if zero.size:
            return b, int(zero[0]) + 1
    return None


def raise_singular(A, fname):
    where = first_zero_pivot(A._data if xp_of(A) is np else A.cpu()._data)
    b, i = where if where else (0, A.shape[-1])
    raise LinAlgError(f"{fname}: {batch_prefix(b, A.dim() > 2)}The diagonal element {i} is "
                      "zero, the inversion could not be completed because the input matrix is "
                      "singular.")


# LAPACK type prefixes of the NumPy dtypes LAPACK computes in
_LAPACK_PREFIX = {"f": "s", "d": "d", "F": "c", "D": "z"}
_LAPACK_ROUTINES = {}


def lapack_2d(name, *arrays):
    """SciPy's LAPACK routine ``name`` (``"gesv"``, ``"syevd"``...; the s/d/c/z prefix from the
    first array's dtype) when every array is one non-empty 2-D NumPy matrix of that dtype, else
    None (batches, empty or device arrays take the ``xp.linalg`` path).

    Why: SciPy's bundled LAPACK is about twice as fast as NumPy's on this kind of machine at
    512x512, and a direct call skips ``numpy.linalg``'s per-call work (about 15 us at 32x32).
    Callers fall back to ``xp.linalg`` when the routine reports ``info != 0``, so errors keep
    their existing path."""
    first = arrays[0]
    prefix = _LAPACK_PREFIX.get(first.dtype.char)
    if prefix is None:
        return None
    for a in arrays:
        if a.__class__ is not np.ndarray or a.ndim != 2 or not a.size or a.dtype != first.dtype:
            return None
    key = prefix + name
    routine = _LAPACK_ROUTINES.get(key)
    if routine is None:
        from scipy.linalg import lapack
        routine = _LAPACK_ROUTINES[key] = getattr(lapack, key)
    return routine


def host(t):
    """``t``'s array in host memory, for the LAPACK routines only SciPy offers (LU, LDL, eig,
    expm): the array itself on the CPU, a copy from the GPU."""
    return backend.to_device(t._data, CPU)


def new(arr, like, dtype=None, column_major=False):
    """Wrap an array as a tensor on ``like``'s device (dtype defaults to like's); a host result
    of a SciPy routine goes back to the device of the input. ``column_major``: a matrix result
    of a LAPACK routine, which PyTorch returns as a batch of column-major matrices."""
    dt = dtype or like._dtype
    arr = arr.astype(dt.numpy_dtype, copy=False)
    if column_major and arr.ndim >= 2:
        arr = batched_column_major(arr)
    if like._device is not CPU:
        arr = backend.to_device(xp_of(like).asarray(arr), like._device)
    return wrap(arr, dt, like._device)


def column_major_result(t):
    """The result tensor ``t`` of a linalg op cinder composes from other ops (which leave it
    row-major) given the batched column-major strides PyTorch's LAPACK kernel writes. ``t``
    keeps its graph node; its array is swapped for a relaid copy, so a view (whose memory is
    its base's) is cloned first."""
    if t._base is not None:
        t = t.clone()
    t._data = batched_column_major(t._data)
    return t


def batched_column_major(arr):
    """``arr`` with each matrix (last two dims) stored column by column, the batch row-major:
    strides (..., 1, rows), as LAPACK writes them (a copy only when it is not already)."""
    nd = arr.ndim
    return in_order(arr, list(range(nd - 2)) + [nd - 1, nd - 2])


def real_dtype(dt):
    return dt.to_real() if dt.category == D.COMPLEX else dt
