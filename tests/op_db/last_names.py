"""Entries for the last torch names of issue 6: ``segment_reduce``, ``grid_sampler`` (and its
``_2d``/``_3d`` forms), ``embedding_bag`` (the aten form with its four results),
``hash_tensor``, ``native_norm``, ``lobpcg``, and ``special.expit``/``special.sinc`` on
complex inputs. Run by tests/test_last_names.py."""

import numpy as np

from . import COMPLEX, FLOATS, HALFS, ErrorSample, OpEntry, Sample, T

FAMILY = "last_names"
_REDUCES = ("sum", "mean", "max", "min", "prod")


# ----------------------------------------------------------------------------------------------
# segment_reduce
# ----------------------------------------------------------------------------------------------

def _segment_samples(dtype, make):
    data = make((5, 4), low=-2, high=2)
    lengths = make((3,), "int64", values=[2, 0, 3])
    offsets = make((4,), "int64", values=[0, 2, 2, 5])
    batched = make((2, 2), "int64", values=[[1, 5], [4, 2]])
    out = []
    empty = "an empty segment gives nan/inf, where finite differences are undefined"
    for red in _REDUCES:
        plain = [Sample(data, red, lengths=lengths), Sample(data, red, offsets=offsets)]
        if red in ("mean", "max", "min"):
            plain = [s.skip("gradcheck", empty) for s in plain]
        out += plain + [Sample(data, red, lengths=lengths, initial=0.5),
                Sample(make((2, 6, 3), low=-2, high=2), red, lengths=batched, axis=1)]
    out += [Sample(make((6,)), "amax", lengths=make((2,), "int64", values=[4, 2])),
            Sample(make((6,)), "amin", lengths=make((2,), "int32", values=[1, 5]),
                   unsafe=True)]
    return out


def _segment_errors(make):
    data, lengths = make((5, 4)), make((3,), "int64", values=[2, 0, 3])
    return [
        ErrorSample(Sample(data, "sum"), match="Either lengths or offsets"),
        ErrorSample(Sample(data, "median", lengths=lengths), match="reduce argument must be"),
        ErrorSample(Sample(data, "sum", lengths=make((2,), "int64", values=[2, 1])),
                    match="sum to data.size"),
        ErrorSample(Sample(data, "sum", lengths=make((3,), "int64", values=[2, -1, 4])),
                    match="negative"),
        ErrorSample(Sample(data, "sum", lengths=make((3,), values=[2, 0, 3]))),
        ErrorSample(Sample(data, "sum", lengths=lengths, indices=lengths),
                    match="indices based reduction"),
        ErrorSample(Sample(data, "sum", lengths=lengths, axis=1), match="last dimension"),
        ErrorSample(Sample(make((5, 4), "int64"), "sum", lengths=lengths)),
        ErrorSample(Sample(data, "sum", offsets=make((3,), "int64", values=[0, 3, 1]))),
    ]


# ----------------------------------------------------------------------------------------------
# grid_sampler
# ----------------------------------------------------------------------------------------------

def _grid_samples(nd, full):
    """Every mode x padding (``full``; else two calls: the 2-d/3-d forms share the kernel).
    float64 gradcheck runs on the first and the bicubic samples only (it is slow)."""
    def gen(dtype, make):
        spatial = (3, 4) if nd == 2 else (2, 3, 2)
        inp = make((2, 2) + spatial)
        grid = make((2,) + (2,) * nd + (nd,), low=-1.2, high=1.2)
        modes = ((0, 1, 2) if nd == 2 else (0, 1)) if full else (0,)
        paddings = (0, 1, 2) if full else (0, 2)
        out = [Sample(inp, grid, mode, padding, padding == 1)
               for mode in modes for padding in paddings]
        out.append(Sample(inp, grid, 0, 0, True))
        slow = "gradcheck of the composite is slow: checked on the first and bicubic samples"
        return [s if i == 0 or s.args[2] == 2 else s.skip("gradcheck", slow)
                for i, s in enumerate(out)]
    return gen


def _grid_errors(nd):
    """Argument errors of grid_sampler (nd None) or the 2-d/3-d forms' dimension checks."""
    def gen(make):
        inp, grid = make((1, 2, 3, 4)), make((1, 2, 2, 2))
        if nd == 3:
            return [ErrorSample(Sample(inp, grid, 0, 0, False), match="expected 5D input")]
        if nd == 2:
            return [ErrorSample(Sample(make((1, 2, 3, 4, 5)), make((1, 2, 2, 2, 3)), 0, 0,
                                       False), match="expected 4D input")]
        return [ErrorSample(Sample(inp, make((2, 2, 2, 2)), 0, 0, False),
                           match="same batch size"),
               ErrorSample(Sample(inp, make((1, 2, 2, 1)), 0, 0, False),
                           match="size 2 in last dimension"),
               ErrorSample(Sample(inp, make((1, 2, 2, 2), "float64"), 0, 0, False)),
               ErrorSample(Sample(make((1, 2, 3, 4), "int64"), make((1, 2, 2, 2), "int64"),
                                  0, 0, False)),
               ErrorSample(Sample(make((1, 2, 3, 4, 5)), make((1, 2, 2, 2, 3)), 2, 0, False),
                           match="bicubic")]
    return gen


def _grid_entry(name, nd_samples, nd_errors=0, full=False):
    errors = _grid_errors(nd_errors) if nd_errors != 0 else None
    return OpEntry(name, samples=_grid_samples(nd_samples, full), errors=errors,
                   dtypes=FLOATS, method=False, grad=True, check_grad_fn=False,
                   tol={"float32": (1e-5, 2e-5)}, family=FAMILY)


# ----------------------------------------------------------------------------------------------
# embedding_bag (aten form: output, offset2bag, bag_size, max_indices)
# ----------------------------------------------------------------------------------------------

def _bag_samples(dtype, make):
    weight = make((6, 3))
    indices = make((8,), "int64", values=[1, 2, 4, 5, 4, 3, 2, 0])
    offsets = make((4,), "int64", values=[0, 2, 2, 5])
    last = make((5,), "int64", values=[0, 2, 2, 5, 8])
    out = []
    for mode in (0, 1, 2):
        out += [Sample(weight, indices, offsets, False, mode),
                Sample(weight, indices, last, False, mode, False, None, True),
                Sample(weight, indices, offsets, False, mode, False, None, False, 2),
                Sample(weight, indices, offsets, False, mode, False, None, False, -1)]
    out += [Sample(weight, indices, offsets, False, 0, False, make((8,))),
            Sample(weight, make((8,), "int32", values=[1, 2, 4, 5, 4, 3, 2, 0]),
                   make((4,), "int32", values=[0, 2, 2, 5]), False, 2),
            Sample(weight, indices, offsets, True, 1)
            .skip("grad", "PyTorch's embedding_bag scales by counts that are not the index "
                          "frequencies (cinder divides by the true frequency)")
            .skip("gradcheck", "scale_grad_by_freq is not the derivative")]
    return out


def _bag_errors(make):
    weight = make((6, 3))
    indices = make((8,), "int64", values=[1, 2, 4, 5, 4, 3, 2, 0])
    offsets = make((4,), "int64", values=[0, 2, 2, 5])
    one = make((1,), "int64", values=[0])
    return [
        ErrorSample(Sample(weight, indices, offsets, False, 3), match="`mode` must be"),
        ErrorSample(Sample(weight, make((8,)), offsets, False, 0), match="'indices'"),
        ErrorSample(Sample(weight, indices, offsets, False, 1, False, make((8,))),
                    match="per_sample_weights only supported"),
        ErrorSample(Sample(weight, indices, make((2,), "int64", values=[1, 3]), False, 0),
                    match="offsets\\[0\\] has to be 0"),
        ErrorSample(Sample(weight, indices, offsets, False, 0, False, None, False, 6),
                    match="padding_idx must be within"),
        ErrorSample(Sample(weight, make((2,), "int64", values=[1, 9]), one, False, 1),
                    match="not in the valid range"),
        ErrorSample(Sample(weight, make((2,), "int64", values=[1, -1]), one, False, 2),
                    match="Expected idx >= 0"),
    ]


# ----------------------------------------------------------------------------------------------
# hash_tensor, native_norm
# ----------------------------------------------------------------------------------------------

def _hash_samples(dtype, make):
    x = make((3, 4))
    return [Sample(x), Sample(x, 1), Sample(x, -1, keepdim=True), Sample(x, (0, 1)),
            Sample(x, []), Sample(make(())), Sample(make((0, 3)), 1), Sample(x, mode=0)]


def _hash_errors(make):
    return [ErrorSample(Sample(make((3,)), mode=1), match="Unknown hash_tensor mode"),
            ErrorSample(Sample(make((3,), "complex64"))),
            ErrorSample(Sample(make((0, 3))), match="reduction dim to be specified"),
            ErrorSample(Sample(make((0, 3)), 0), match="non-zero size"),
            ErrorSample(Sample(make((2, 3)), 2))]


def _native_norm_errors(make):
    return [ErrorSample(Sample(make((3, 4)))), ErrorSample(Sample(make((3, 4)), 3)),
            ErrorSample(Sample(make((3, 4)), 2, [1], False, None))]


# ----------------------------------------------------------------------------------------------
# lobpcg: eigenvalues and |eigenvectors| (their signs depend on the LAPACK build)
# ----------------------------------------------------------------------------------------------

def _lobpcg(lib, A, **kwargs):
    lib.manual_seed(0)
    E, X = lib.lobpcg(A, **kwargs)
    return E, X.abs()


def _spd(dtype, m, seed, spread=(1, 40)):
    rng = np.random.default_rng(seed)
    q = np.linalg.qr(rng.standard_normal((m, m)))[0]
    a = (q * np.linspace(*spread, m)) @ q.T
    return T(((a + a.T) / 2).astype(dtype), dtype)


def _lobpcg_samples(dtype, make):
    A = _spd(dtype, 15, 1)
    B = _spd(dtype, 15, 2, (1, 2))
    B.grad = False
    X = T(np.random.default_rng(3).standard_normal((15, 3)).astype(dtype), dtype, grad=False)
    no_b_grad = "PyTorch's lobpcg backward refuses B (ValueError)"
    return [Sample(A, k=2), Sample(A, k=3, largest=False), Sample(A, k=2, method="basic"),
            Sample(A, k=1, n=4), Sample(A, X=X), Sample(A, k=2, niter=3, tol=1e-3),
            Sample(A, k=2, B=B).skip("grad", no_b_grad),
            Sample(A, k=2, B=B, method="basic", largest=False).skip("grad", no_b_grad),
            Sample(T(np.stack([A.array, A.array * 2]), dtype), k=2)]


def _lobpcg_errors(make):
    return [ErrorSample(Sample(make((5, 5)), k=2), match="not applicable"),
            ErrorSample(Sample(make((6, 5)), k=1), match="must be square"),
            ErrorSample(Sample(make((9, 9)), k=1, B=make((6, 6))), match="same shape")]


ENTRIES = [
    OpEntry("segment_reduce", samples=_segment_samples, errors=_segment_errors,
            dtypes=FLOATS + HALFS, method=False, grad=True, family=FAMILY,
            tol={"bfloat16": (2e-2, 2e-2)}),
    _grid_entry("grid_sampler", 2, None, full=True),
    _grid_entry("grid_sampler", 3, full=True),
    _grid_entry("grid_sampler_2d", 2, 2),
    _grid_entry("grid_sampler_3d", 3, 3),
    OpEntry("embedding_bag", samples=_bag_samples, errors=_bag_errors, dtypes=FLOATS,
            method=False, grad=True, check_grad_fn=False, family=FAMILY),
    OpEntry("hash_tensor", samples=_hash_samples, errors=_hash_errors, out=True,
            dtypes=FLOATS + HALFS + ("int64", "int32", "int8", "uint8", "bool"),
            family=FAMILY),
    OpEntry("native_norm", errors=_native_norm_errors, dtypes=FLOATS, method=False,
            family=FAMILY),
    # (float64: in float32 an iteration that stops at niter, or at sqrt(eps), stops at
    # values that depend on the LAPACK build; float32 is compared with SciPy in the tests)
    OpEntry("lobpcg", call=_lobpcg, samples=_lobpcg_samples, errors=_lobpcg_errors,
            dtypes=("float64",), method=False, grad=True, family=FAMILY,
            grad_tol={"float64": (1e-6, 1e-6)},
            skips={"gradcheck": "an iterative solver converged to sqrt(eps): finite "
                                "differences of its eigenvectors are noise"}),
    OpEntry("special_expit", call=lambda lib, x, **kw: lib.special.expit(x, **kw),
            samples=lambda dtype, make: [Sample(make((3, 4), low=-3, high=3)),
                                         Sample(make((5,), layout="strided"))],
            dtypes=COMPLEX, method=False, grad=True, grad_dtypes=COMPLEX, out=True,
            family=FAMILY),
    OpEntry("special_sinc", call=lambda lib, x, **kw: lib.special.sinc(x, **kw),
            samples=lambda dtype, make: [Sample(make((3, 4), low=-2, high=2)),
                                         Sample(make((5,), layout="strided"))],
            dtypes=COMPLEX, method=False, grad=True, grad_dtypes=COMPLEX, out=True,
            family=FAMILY),
]
