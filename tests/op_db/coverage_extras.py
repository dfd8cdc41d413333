"""Entries for the small torch.* / Tensor names added for API coverage: ``detach``,
``is_distributed``, ``map2_`` and the removed legacy ops (``eig``, ``symeig``, ``solve``,
``lstsq``, ``matrix_rank``, ``reinforce``), whose only behaviour is PyTorch's RuntimeError.
Run by tests/test_coverage_ops.py."""

from . import BASIC, FLOATS, ErrorSample, OpEntry, Sample, T

FAMILY = "coverage"


def _plain(dtype, make):
    return [Sample(make((2, 3))), Sample(make(())), Sample(make((0, 2)))]


def _map2(lib, x, y, z):
    return x.clone().map2_(y, z, lambda a, b, c: a + b * c if not isinstance(a, bool) else a)


def _map2_samples(dtype, make):
    return [Sample(make((2, 3)), make((2, 3)), make((3,))), Sample(make((4,)), make(()),
                                                                   make((4,)))]


def _map2_errors(make):
    return [ErrorSample(Sample(make((3,)), make((2, 3)), make((3,)))),
            ErrorSample(Sample(make((3,)), make((3,), "int64"), make((3,))))]


def _removed(name, nargs):
    def errors(make):
        return [ErrorSample(Sample(*[make((2, 2)) for _ in range(nargs)]),
                            match="deprecated since version 1.9 and is now removed")]
    # (the method forms are compared in tests/test_coverage_runtime.py)
    return OpEntry(name, errors=errors, dtypes=FLOATS, method=False, family=FAMILY)


def _reinforce_errors(make):
    return [ErrorSample(Sample(make((2,)), 1.0), match="reinforce\\(\\) was removed")]


def _nonzero_static_samples(dtype, make):
    x = make((3, 4), low=-1, high=2)
    return [Sample(x, size=3), Sample(x, size=20), Sample(x, size=0),
            Sample(x, size=15, fill_value=-7), Sample(make(()), size=2)]


def _nonzero_static_errors(make):
    return [ErrorSample(Sample(make((3,)), size=-1), match="must be an non-negative integer")]


def _empty_permuted(lib, size, order, **kw):
    return lib.empty_permuted(size, order, **kw)


def _empty_permuted_samples(dtype, make):
    from . import Dtype
    return [Sample((2, 3, 4), (0, 2, 1)), Sample([2, 3], [1, 0], dtype=Dtype("int64")),
            Sample((2, 3, 4, 5), (0, 2, 3, 1), requires_grad=True), Sample((), ())]


def _empty_permuted_errors(make):
    return [ErrorSample(Sample((2, 3, 4), (0, 2)), match="does not match the length"),
            ErrorSample(Sample((2, 3), (1, 5)), match="Dimension out of range"),
            ErrorSample(Sample((2, 3, 4), (0, 2, 2)), match="Duplicate dim not allowed")]


def _slice_inverse_samples(dtype, make):
    return [Sample(make((3, 4)), make((2, 4), grad=False), 0, 0, 2),
            Sample(make((3, 4)), make((3, 2), grad=False), 1, 0, 4, 2),
            Sample(make((5,)), make((2,), layout="strided", grad=False))]


_BYTES = bytes(range(1, 17))


def _frombuffer(lib, data, **kw):
    kw = {k: getattr(lib, v.name) if hasattr(v, "name") else v for k, v in kw.items()}
    return lib.frombuffer(bytearray(data), **kw)


def _frombuffer_samples(dtype, make):
    from . import Dtype
    return [Sample(_BYTES, dtype=Dtype(dtype)), Sample(_BYTES, dtype=Dtype(dtype), count=1),
            Sample(_BYTES, dtype=Dtype(dtype), count=1, offset=8),
            Sample(_BYTES, dtype=Dtype("uint8"), offset=3)]


def _frombuffer_errors(make):
    from . import Dtype
    f32 = Dtype("float32")
    return [ErrorSample(Sample(b"", dtype=f32), match="must not be 0"),
            ErrorSample(Sample(_BYTES, dtype=f32, count=5), match="must not be greater"),
            ErrorSample(Sample(_BYTES, dtype=f32, offset=16), match="no greater than buffer"),
            ErrorSample(Sample(_BYTES[:6], dtype=f32), match="multiple of element size"),
            ErrorSample(Sample(_BYTES, dtype=Dtype("int64"), requires_grad=True),
                        match="floating point and complex dtype")]


def _from_file(lib, data, *args, **kw):
    import os
    import tempfile
    kw = {k: getattr(lib, v.name) if hasattr(v, "name") else v for k, v in kw.items()}
    fd, path = tempfile.mkstemp()
    try:
        os.write(fd, data)
        os.close(fd)
        return lib.from_file(path, *args, **kw).clone()
    finally:
        os.remove(path)


def _from_file_samples(dtype, make):
    from . import Dtype
    return [Sample(_BYTES, size=4), Sample(_BYTES, False, 2, dtype=Dtype(dtype)),
            Sample(_BYTES, True, 2, dtype=Dtype(dtype)), Sample(_BYTES, size=0)]


def _from_file_errors(make):
    return [ErrorSample(Sample(_BYTES, size=5), match="is smaller than the required mapping")]


def _geqrf_samples(dtype, make):
    return [Sample(make((4, 3))), Sample(make((3, 5))), Sample(make((2, 4, 3))),
            Sample(make((3, 3), layout="transposed")), Sample(make((0, 3)))]


def _geqrf_errors(make):
    return [ErrorSample(Sample(make((3,))), match="at least 2 dimensions"),
            ErrorSample(Sample(make((3, 3), "int64")), match="not implemented for 'Long'")]


def _compact_qr(make, shape):
    """(a, tau) of geqrf for a random matrix, computed with SciPy's LAPACK."""
    import numpy as np
    import scipy.linalg.lapack as lapack
    base = make(shape)
    flat = base.array.reshape((-1,) + shape[-2:]).astype(np.float64)
    res = [lapack.dgeqrf(m)[:2] for m in flat]
    k = min(shape[-2:])
    a = np.stack([r[0] for r in res]).reshape(shape).astype(base.array.dtype)
    tau = np.stack([r[1][:k] for r in res]).reshape(shape[:-2] + (k,)).astype(a.dtype)
    return T(a, base.dtype), T(tau, base.dtype)


def _ormqr_samples(dtype, make):
    a, tau = _compact_qr(make, (5, 3))
    ab, taub = _compact_qr(make, (2, 4, 4))
    return [Sample(a, tau, make((5, 2))), Sample(a, tau, make((5, 2)), True, True),
            Sample(a, tau, make((2, 5)), False), Sample(a, tau, make((2, 5)), False, True),
            Sample(ab, taub, make((2, 4, 3)))]


def _ormqr_errors(make):
    a, tau = _compact_qr(make, (5, 3))
    return [ErrorSample(Sample(a, tau, make((3, 2))), match="must be equal to input.shape")]


_SLOW = ("slow (seconds per sample); the gradients are compared with PyTorch's, and the QR/SVD "
         "steps have gradchecks of their own in tests/linalg")


def _lowrank(name):
    """Seeded call; singular vectors compared up to sign (|U|, |V|, U S V^H)."""
    def call(lib, *args, **kwargs):
        lib.manual_seed(0)
        U, S, V = getattr(lib, name)(*args, **kwargs)
        return S, U.abs(), V.abs(), (U * S.unsqueeze(-2)).matmul(V.mH)
    return call


def _lowrank_samples(dtype, make):
    wide = "cinder's linalg_qr has no backward for wide inputs (here q=6 > 5 columns) yet"
    return [Sample(make((7, 5))).skip("grad", wide).skip("gradcheck", wide),
            Sample(make((4, 6)), q=3), Sample(make((2, 6, 4)), q=2, niter=1)]


def _pca_errors(make):
    return [ErrorSample(Sample(make((4, 3)), q=5), match="must be non-negative integer"),
            ErrorSample(Sample(make((4, 3)), niter=-1), match="niter")]


def _histdd_samples(dtype, make):
    import numpy as np
    pts = make((20, 2), low=0, high=4, grad=False)
    edges = [T(np.array([0.0, 1.0, 2.5, 4.0], dtype=dtype), dtype, grad=False),
             T(np.array([0.0, 2.0, 4.0], dtype=dtype), dtype, grad=False)]
    return [Sample(pts, 3), Sample(pts, [2, 4]), Sample(pts, edges),
            Sample(pts, 2, range=[0.0, 2.0, 1.0, 3.0], density=True),
            Sample(pts, [3, 2], weight=make((20,), low=0, high=1, grad=False)),
            Sample(make((2, 5, 3), low=-1, high=1, grad=False), 2)]


def _histdd_errors(make):
    return [ErrorSample(Sample(make((5, 2)), [2]), match="size of bins must be equal"),
            ErrorSample(Sample(make((5, 2)), 2, range=[0.0, 1.0]), match="should have 4"),
            ErrorSample(Sample(make((5,)), 2), match="at least 2 dimensions"),
            ErrorSample(Sample(make((5, 2), "int64"), 2), match="not implemented for 'Long'"),
            ErrorSample(Sample(make((5, 1)), [make((3,), "float64")]), match="same dtype")]


ENTRIES = [
    OpEntry("detach", samples=_plain, dtypes=BASIC, method=False, family=FAMILY),
    OpEntry("is_distributed", samples=_plain, dtypes=BASIC, family=FAMILY),
    OpEntry("map2_", call=_map2, samples=_map2_samples, dtypes=BASIC, method=False,
            errors=_map2_errors, family=FAMILY),
    OpEntry("nonzero_static", samples=_nonzero_static_samples, errors=_nonzero_static_errors,
            dtypes=BASIC, family=FAMILY),
    OpEntry("empty_permuted", call=_empty_permuted, samples=_empty_permuted_samples,
            errors=_empty_permuted_errors, dtypes=("float32",), method=False, values=False,
            check_strides=True, family=FAMILY),
    # no gradient comparison: PyTorch's SliceInverseBackward0 hands back a gradient of the
    # slice's shape, which its engine then rejects ("invalid gradient at index 0")
    OpEntry("slice_inverse", samples=_slice_inverse_samples, dtypes=BASIC, check_strides=True,
            family=FAMILY),
    OpEntry("frombuffer", call=_frombuffer, samples=_frombuffer_samples,
            errors=_frombuffer_errors, dtypes=("float32", "float64", "int32", "int64"),
            method=False, family=FAMILY),
    OpEntry("from_file", call=_from_file, samples=_from_file_samples, errors=_from_file_errors,
            dtypes=("float32", "int32", "float64"), method=False, family=FAMILY),
    # no gradient: PyTorch has no derivative for geqrf (its backward raises)
    OpEntry("geqrf", samples=_geqrf_samples, errors=_geqrf_errors, dtypes=FLOATS,
            family=FAMILY),
    OpEntry("ormqr", samples=_ormqr_samples, errors=_ormqr_errors, dtypes=FLOATS, grad=True,
            check_grad_fn=False, family=FAMILY),
    OpEntry("svd_lowrank", call=_lowrank("svd_lowrank"), samples=_lowrank_samples,
            dtypes=FLOATS, method=False, grad=True, grad_dtypes=("float64",),
            check_grad_fn=False, skips={"gradcheck": _SLOW}, family=FAMILY),
    OpEntry("pca_lowrank", call=_lowrank("pca_lowrank"), samples=_lowrank_samples,
            errors=_pca_errors, dtypes=FLOATS, method=False, grad=True,
            grad_dtypes=("float64",), check_grad_fn=False, skips={"gradcheck": _SLOW},
            family=FAMILY),
    OpEntry("histogramdd", samples=_histdd_samples, errors=_histdd_errors, dtypes=FLOATS,
            method=False, family=FAMILY),
    _removed("eig", 1), _removed("symeig", 1), _removed("solve", 2), _removed("lstsq", 2),
    _removed("matrix_rank", 1),
    OpEntry("reinforce", call=lambda lib, x, r: x.reinforce(r), errors=_reinforce_errors,
            method=False, family=FAMILY),
]
