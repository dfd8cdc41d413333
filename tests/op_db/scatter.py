"""Scatter/gather-style indexing (cinder/ops/scatter.py) and the diagonal/triangle family
(cinder/ops/diagonal.py). Index samples include repeated positions, so accumulation order and
the reductions over duplicates are exercised."""


from . import BASIC, FLOATS, HALFS, INTS, ErrorSample, OpEntry, Sample

FAMILY = "scatter"


def _idx(make, shape, high, values=None):
    return make(shape, "int64", low=0, high=high, values=values)


def _scatter_reduce_samples(dtype, make):
    out = []
    x = make((3, 4), low=1, high=3)
    src = make((2, 4), low=1, high=3)
    index = _idx(make, (2, 4), 3, values=[[0, 1, 2, 0], [2, 1, 0, 0]])
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        out.append(Sample(x, 0, index, src, reduce))
        out.append(Sample(x, 0, index, src, reduce, include_self=False))
    idx1 = _idx(make, (3, 2), 4, values=[[0, 0], [3, 1], [2, 2]])
    out.append(Sample(x, 1, idx1, make((3, 5), low=1, high=3), "sum")
               .skip("grad", "PyTorch's own backward refuses a src larger than index")
               .skip("gradcheck", "as for grad"))
    out.append(Sample(x, -1, idx1, make((3, 2), low=1, high=3), "amax", include_self=False))
    # prod with zeros in self and src: one zero and two zeros landing on the same position
    xz = make((3, 4), values=[[2, 0, 1, 3], [0, 2, 2, 1], [1, 3, 0, 2]])
    srcz = make((2, 4), values=[[0, 2, 1, 0], [3, 0, 0, 0]])
    for keep in (True, False):
        out.append(Sample(xz, 0, index, srcz, "prod", include_self=keep))
    return out


def _index_samples(op):
    def gen(dtype, make):
        x = make((4, 3))
        idx = make((3,), "int64", values=[2, 0, 2] if op in ("index_add", "index_reduce")
                   else [2, 0, 3])
        src0, src1 = make((3, 3)), make((4, 3))
        idx1 = make((3,), "int64", values=[1, 1, 0] if op in ("index_add", "index_reduce")
                    else [2, 1, 0])
        if op == "index_fill":
            return [Sample(x, 0, idx, 1.5 if dtype in FLOATS else 2), Sample(x, 1, idx1, 0),
                    Sample(x, -1, make((0,), "int64"), 3), Sample(x, 0, idx, make(()))]
        if op == "index_reduce":
            return [Sample(x, 0, idx, src0, r, **kw) for r in ("prod", "mean", "amax", "amin")
                    for kw in ({}, {"include_self": False})] + \
                [Sample(x, 1, idx1, make((4, 3)), "amax")] + \
                [Sample(make((4, 3), values=[[2, 0, 1], [0, 2, 2], [1, 3, 0], [2, 1, 3]]), 0,
                        idx, make((3, 3), values=[[0, 2, 1], [3, 0, 0], [0, 1, 2]]), "prod",
                        include_self=keep) for keep in (True, False)]
        out = [Sample(x, 0, idx, src0), Sample(x, 1, idx1, src1),
               Sample(make((5,)), 0, make((2,), "int64", values=[4, 0]), make((2,)))]
        if op == "index_add":
            out.append(Sample(x, 0, idx, src0, alpha=2))
        return out
    return gen


def _index_errors(op):
    def gen(make):
        x = make((4, 3))
        bad = [ErrorSample(Sample(x, 0, make((2,), "int64", values=[0, 9]), make((2, 3)))),
               ErrorSample(Sample(x, 0, make((2,), "float32"), make((2, 3))))]
        if op in ("index_add", "index_copy"):
            bad.append(ErrorSample(Sample(x, 0, make((2,), "int64", values=[0, 1]),
                                          make((2, 2)))))
        if op == "index_fill":
            bad = [ErrorSample(Sample(x, 0, make((2,), "int64", values=[0, 9]), 1.0)),
                   ErrorSample(Sample(x, 0, make((2,), "int64", values=[0, 1]), make((2,))))]
        return bad
    return gen


def _take_samples(dtype, make):
    x = make((3, 4))
    return [Sample(x, make((2, 2), "int64", values=[[0, 11], [5, -1]])),
            Sample(make(()), make((3,), "int64", values=[0, 0, -1])),
            Sample(x, make((0,), "int64")), Sample(make((4, 3), layout="transposed"),
                                                   make((3,), "int64", values=[1, 2, 7]))]


def _put_samples(dtype, make):
    x = make((3, 4))
    idx = make((3,), "int64", values=[0, 5, 11])
    dup = make((4,), "int64", values=[1, 1, -1, 2])
    return [Sample(x, idx, make((3,))), Sample(x, dup, make((4,)), accumulate=True),
            Sample(x, make((2, 2), "int64", values=[[0, 1], [2, 3]]), make((2, 2)))]


def _take_along_samples(dtype, make):
    x = make((3, 4))
    return [Sample(x, make((3, 2), "int64", low=0, high=4), 1),
            Sample(x, make((1, 4), "int64", low=0, high=3), 0),
            Sample(x, make((5,), "int64", low=0, high=12)),
            Sample(x, make((3, 1), "int64", low=0, high=4), -1)]


def _masked_scatter_samples(dtype, make):
    x = make((3, 4))
    m = make((3, 4), "bool")
    return [Sample(x, m, make((12,))), Sample(x, make((4,), "bool"), make((3, 5))),
            Sample(make((2, 3)), make((2, 3), "bool"), make((2, 3)))]


def _diag_samples(dtype, make):
    return [Sample(make((4,))), Sample(make((4,)), 1), Sample(make((3,)), -2),
            Sample(make((3, 4))), Sample(make((3, 4)), 1), Sample(make((4, 3)), -1),
            Sample(make((3, 5), layout="transposed"), 2)]


def _diag_embed_samples(dtype, make):
    return [Sample(make((2, 3))), Sample(make((2, 3)), 1), Sample(make((3,)), -1, 0, 1),
            Sample(make((2, 3)), 0, 0, 2), Sample(make((2, 3)), 1, 2, 0),
            Sample(make((2, 2, 3)), 0, 1, 3)]


def _diagonal_scatter_samples(dtype, make):
    return [Sample(make((3, 3)), make((3,))), Sample(make((3, 4)), make((3,)), 1),
            Sample(make((4, 3)), make((2,)), -2), Sample(make((2, 3, 4)), make((2, 3)), 0, 1, 2)]


def _select_scatter_samples(dtype, make):
    return [Sample(make((3, 4)), make((4,)), 0, 1), Sample(make((3, 4)), make((3,)), 1, -1),
            Sample(make((2, 3, 4)), make((2, 4)), 1, 2)]


def _slice_scatter_samples(dtype, make):
    return [Sample(make((6, 4)), make((2, 4)), 0, 2, 4), Sample(make((3, 6)), make((3, 3)), 1,
                                                              None, None, 2),
            Sample(make((4, 4)), make((4, 4))), Sample(make((5, 2)), make((2, 2)), 0, 1, 5, 3)]


def _tri_samples(dtype, make):
    return [Sample(make((4, 5))), Sample(make((4, 5)), 1), Sample(make((4, 5)), -2),
            Sample(make((2, 3, 3))), Sample(make((3, 4), layout="transposed"), 1),
            Sample(make((0, 3)))]


def _fill_diagonal_samples(dtype, make):
    v = 2 if dtype != "bool" else True
    return [Sample(make((3, 3)), v), Sample(make((5, 2)), v), Sample(make((7, 2)), v, True),
            Sample(make((2, 4)), v), Sample(make((2, 2, 2)), v)]


def _fill_diagonal_call(lib, x, *args, **kwargs):
    return x.clone().fill_diagonal_(*args, **kwargs)


def _needs_2d(make):
    return [ErrorSample(Sample(make((3,))))]


_INDEX_DTYPES = FLOATS + INTS
ENTRIES = [
    OpEntry("scatter_reduce", samples=_scatter_reduce_samples, dtypes=_INDEX_DTYPES, grad=True,
            inplace=True, out=True, family=FAMILY,
            errors=lambda make: [
                ErrorSample(Sample(make((3,)), 0, make((2,), "int64", values=[0, 1]), make((2,)),
                                   "foo")),
                ErrorSample(Sample(make((3,)), 0, make((2,), "int64", values=[0, 5]), make((2,)),
                                   "sum")),
                ErrorSample(Sample(make((3,)), 0, make((2,), "int64", values=[0, 1]),
                                   make((2,), "float64"), "sum"))]),
] + [
    OpEntry(op, samples=_index_samples(op), dtypes=_INDEX_DTYPES, grad=True, inplace=True,
            out=op != "index_fill", errors=_index_errors(op), family=FAMILY)
    for op in ("index_add", "index_copy", "index_fill", "index_reduce")
] + [
    OpEntry("take", samples=_take_samples, dtypes=BASIC, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2,)), make((1,), "int64", values=[5]))),
                                 ErrorSample(Sample(make((2,)), make((1,), "int32")))]),
    OpEntry("put", samples=_put_samples, dtypes=BASIC, grad=True, inplace=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2,)), make((1,), "int64", values=[5]),
                                                    make((1,)))),
                                 ErrorSample(Sample(make((2,)), make((2,), "int64", low=0,
                                                                     high=2), make((3,))))]),
    OpEntry("take_along_dim", samples=_take_along_samples, dtypes=BASIC, grad=True, out=True,
            family=FAMILY, errors=lambda make: [
                ErrorSample(Sample(make((2, 3)), make((2,), "int64", low=0, high=2), 0))]),
    OpEntry("masked_scatter", samples=_masked_scatter_samples, dtypes=BASIC, grad=True,
            inplace=True, family=FAMILY, errors=lambda make: [
                ErrorSample(Sample(make((3,)), make((3,), "int64"), make((3,)))),
                ErrorSample(Sample(make((3,)), make((3,), values=[True, True, True],
                                                    dtype="bool"), make((2,))))]),
    OpEntry("argwhere", samples=lambda dtype, make: [Sample(make((3, 4), low=-1, high=2)),
                                                     Sample(make(())), Sample(make((0, 2)))],
            dtypes=BASIC, family=FAMILY),
    OpEntry("diag", samples=_diag_samples, dtypes=BASIC + HALFS, grad=True, out=True,
            family=FAMILY, errors=lambda make: [ErrorSample(Sample(make((2, 2, 2))))]),
    OpEntry("diagflat", samples=lambda dtype, make: [Sample(make((3,))), Sample(make((2, 2)), 1),
                                                     Sample(make((3,)), -1)],
            dtypes=BASIC, grad=True, family=FAMILY),
    OpEntry("diag_embed", samples=_diag_embed_samples, dtypes=BASIC, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2, 3)), 0, 1, 1))]),
    OpEntry("diagonal_copy", samples=_diagonal_scatter_samples, dtypes=FLOATS, method=False,
            call=lambda lib, x, src, *a, **kw: lib.diagonal_copy(x, *a, **kw), grad=True,
            out=True,
            family=FAMILY),
    OpEntry("diagonal_scatter", samples=_diagonal_scatter_samples, dtypes=BASIC, grad=True,
            family=FAMILY, errors=lambda make: [ErrorSample(Sample(make((3, 3)), make((2,))))]),
    OpEntry("select_scatter", samples=_select_scatter_samples, dtypes=BASIC, grad=True,
            family=FAMILY, errors=lambda make: [ErrorSample(Sample(make((3, 3)), make((2,)), 0,
                                                                   0))]),
    OpEntry("slice_scatter", samples=_slice_scatter_samples, dtypes=BASIC, grad=True,
            family=FAMILY, errors=lambda make: [ErrorSample(Sample(make((3, 3)), make((2, 3))))]),
    OpEntry("tril", samples=_tri_samples, dtypes=BASIC + HALFS, grad=True, inplace=True,
            out=True, family=FAMILY, errors=_needs_2d),
    OpEntry("triu", samples=_tri_samples, dtypes=BASIC + HALFS, grad=True, inplace=True,
            out=True, family=FAMILY, errors=_needs_2d),
    OpEntry("fill_diagonal_", samples=_fill_diagonal_samples, dtypes=BASIC, method=False,
            call=_fill_diagonal_call, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((3,)), 1.0)),
                                 ErrorSample(Sample(make((2, 3, 2)), 1.0))]),
]
