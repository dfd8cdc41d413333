"""Products and contractions (cinder/ops/blas.py, cinder/ops/contractions.py): vdot, trace,
addmv/addr/addbmm/baddbmm, chain_matmul, kron, block_diag, einsum, tensordot, cdist, cross,
vander."""

from . import BASIC, COMPLEX, FLOATS, INTS, ErrorSample, OpEntry, Sample

FAMILY = "blas"
_TOL = {"float32": (1e-5, 1e-5)}
_NAME_DIFFERS = "PyTorch composes this op from bmm/permute/view: its last node is an internal"


def _s(*fs):
    return lambda dtype, make: [f(make) for f in fs]


def _addmm_like(name):
    def gen(dtype, make):
        shapes = {"addmv": ((3,), (3, 4), (4,)), "addr": ((3, 4), (3,), (4,)),
                  "baddbmm": ((2, 3, 5), (2, 3, 4), (2, 4, 5)),
                  "addbmm": ((3, 5), (2, 3, 4), (2, 4, 5))}[name]
        a, b, c = (make(s) for s in shapes)
        out = [Sample(a, b, c), Sample(a, b, c, beta=0.5, alpha=2), Sample(a, b, c, beta=0)]
        if name != "addbmm":       # (in-place on a broadcast self differs for addbmm_)
            out.append(Sample(make(shapes[0][-1:]), b, c))
        if dtype in INTS:
            out = [Sample(a, b, c), Sample(a, b, c, beta=2, alpha=3)]
        return out
    return gen


def _addmm_errors(name):
    def gen(make):
        bad = {"addmv": Sample(make((3,)), make((3, 4)), make((5,))),
               "addr": Sample(make((3, 4)), make((3, 1)), make((4,))),
               "baddbmm": Sample(make((2, 3, 5)), make((2, 3, 4)), make((2, 3, 5))),
               "addbmm": Sample(make((3, 5)), make((2, 3, 4)), make((3, 4, 5)))}[name]
        return [ErrorSample(bad)]
    return gen


def _einsum_samples(dtype, make):
    a, b = make((3, 4)), make((4, 5))
    return [Sample("ij,jk->ik", a, b), Sample("ij,jk", a, b), Sample("ij->ji", a),
            Sample("ij->", a), Sample("bij,bjk->bik", make((2, 3, 4)), make((2, 4, 2))),
            Sample("i,j->ij", make((3,)), make((4,))), Sample("...ij,...jk", make((2, 3, 4)),
                                                              make((4, 2))),
            Sample("ij,ij->i", a, make((3, 4))), Sample("ijk->k", make((2, 3, 4))),
            Sample("ij,jk,kl->il", a, b, make((5, 2))), Sample("i,i", make((3,)), make((3,))),
            Sample("ij,jk->ik", [a, b]),
            # repeated subscripts inside one operand (diagonals): their gradient lands back
            # on the diagonal
            Sample("ii->i", make((3, 3))), Sample("iij->j", make((3, 3, 4))),
            Sample("ii", make((3, 3))), Sample("iji->ij", make((2, 3, 2))),
            Sample("ij,jj->i", make((2, 3)), make((3, 3)))]


def _einsum_gradgrad(make):
    return [Sample("ii,ij->j", make((3, 3)), make((3, 4))),
            Sample("ij,jj->i", make((2, 3)), make((3, 3)))]


def _tensordot_samples(dtype, make):
    return [Sample(make((3, 4, 5)), make((4, 5, 2))), Sample(make((3, 4)), make((4, 2)), 1),
            Sample(make((3, 4, 5)), make((5, 3, 2)), ([0, 2], [1, 0])),
            Sample(make((3,)), make((2,)), 0), Sample(make((2, 3)), make((3, 2)), dims=([1], [0]))]


def _cdist_samples(dtype, make):
    a, b = make((4, 3)), make((5, 3))
    return [Sample(a, b), Sample(a, b, 1.0), Sample(a, b, 3.0), Sample(a, b, 0.0),
            Sample(a, b, float("inf")), Sample(make((2, 4, 3)), make((2, 6, 3))),
            Sample(make((30, 3)), make((4, 3))),
            Sample(a, b, compute_mode="use_mm_for_euclid_dist"),
            Sample(make((2, 1, 4, 3)), make((3, 5, 3)))]


ENTRIES = [
    OpEntry("vdot", samples=_s(lambda m: Sample(m((4,)), m((4,))),
                               lambda m: Sample(m((0,)), m((0,)))),
            dtypes=FLOATS + INTS + COMPLEX, grad=True, out=True, family=FAMILY,
            grad_dtypes=FLOATS + ("complex64",),
            errors=lambda make: [ErrorSample(Sample(make((2, 2)), make((4,)))),
                                 ErrorSample(Sample(make((3,)), make((4,)))),
                                 ErrorSample(Sample(make((3,)), make((3,), "float64")))]),
    OpEntry("trace", samples=_s(lambda m: Sample(m((3, 3))), lambda m: Sample(m((2, 4))),
                                lambda m: Sample(m((4, 2), layout="transposed"))),
            dtypes=BASIC, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((3,))))]),
] + [
    OpEntry(name, samples=_addmm_like(name), dtypes=FLOATS + INTS, grad=True, inplace=True,
            out=True, family=FAMILY, tol=_TOL, errors=_addmm_errors(name),
            skips={"inplace": ("the broadcast-self sample has no in-place form", ())})
    for name in ("addmv", "addr", "baddbmm", "addbmm")
] + [
    OpEntry("chain_matmul", samples=_s(lambda m: Sample(m((2, 3)), m((3, 4)), m((4, 2))),
                                       lambda m: Sample(m((2, 3)), m((3, 2)))),
            dtypes=FLOATS, grad=True, method=False, family=FAMILY, check_grad_fn=False,
            errors=lambda make: [ErrorSample(Sample(make((2,)), make((2, 2))))]),
    OpEntry("kron", samples=_s(lambda m: Sample(m((2, 2)), m((3, 2))), lambda m: Sample(m((3,)),
                                                                                       m((2,))),
                               lambda m: Sample(m((2, 3)), m((2,))),
                               lambda m: Sample(m((2, 1, 2)), m((2, 2)))),
            dtypes=BASIC, grad=True, out=True, family=FAMILY),
    OpEntry("block_diag", samples=_s(lambda m: Sample(m((2, 2)), m((3,)), m(())),
                                     lambda m: Sample(m((1, 3)), m((2, 1)))),
            dtypes=BASIC, grad=True, method=False, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2, 2, 2))))]),
    OpEntry("einsum", samples=_einsum_samples, dtypes=FLOATS, grad=True, method=False,
            family=FAMILY, tol=_TOL, check_grad_fn=False, gradgrad_samples=_einsum_gradgrad,
            errors=lambda make: [ErrorSample(Sample("ij,jk", make((2, 3)), make((4, 2)))),
                                 ErrorSample(Sample("ij", make((2, 3)), make((3,)))),
                                 ErrorSample(Sample("ijk", make((2, 3))))]),
    OpEntry("tensordot", samples=_tensordot_samples, dtypes=FLOATS + INTS, grad=True,
            method=False, out=True, family=FAMILY, tol=_TOL,
            errors=lambda make: [ErrorSample(Sample(make((3, 4)), make((5, 2)), 1))]),
    OpEntry("cdist", samples=_cdist_samples, dtypes=FLOATS, grad=True, method=False,
            family=FAMILY, tol={"float32": (1e-4, 1e-4)}, check_grad_fn=False,
            errors=lambda make: [ErrorSample(Sample(make((3,)), make((2, 3)))),
                                 ErrorSample(Sample(make((2, 3)), make((2, 4)))),
                                 ErrorSample(Sample(make((2, 3)), make((2, 3)), -1.0)),
                                 ErrorSample(Sample(make((2, 3), "int64"),
                                                    make((2, 3), "int64")))]),
    OpEntry("cross", samples=_s(lambda m: Sample(m((4, 3)), m((4, 3)), 1),
                                lambda m: Sample(m((3, 2)), m((3, 2)), dim=0),
                                lambda m: Sample(m((2, 3)), m((1, 3)), -1)),
            dtypes=FLOATS + INTS, grad=True, out=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2, 2)), make((2, 2)), 1))]),
    OpEntry("vander", samples=_s(lambda m: Sample(m((4,))), lambda m: Sample(m((3,)), 5),
                                 lambda m: Sample(m((3,)), N=2, increasing=True),
                                 lambda m: Sample(m((3,)), 0)),
            dtypes=FLOATS + INTS, method=False, family=FAMILY, tol=_TOL,
            errors=lambda make: [ErrorSample(Sample(make((2, 2))))]),
]
