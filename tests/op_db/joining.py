"""Shape and joining ops (cinder/ops/joining.py): repeat/tile/repeat_interleave, roll/rot90,
flips, stacks and splits, meshgrid, broadcasting helpers, atleast_Nd, ravel, view_as_real /
view_as_complex, cartesian_prod, combinations and the ``*_copy`` forms of view ops."""

from . import BASIC, FLOATS, HALFS, ErrorSample, OpEntry, Sample

FAMILY = "joining"


def _s(*samples):
    return lambda dtype, make: [f(make) for f in samples]


def _repeat_samples(dtype, make):
    x = make((2, 3))
    return [Sample(x, 2, 1), Sample(x, (1, 3)), Sample(x, 2, 2, 2), Sample(make(()), 3),
            Sample(make((3,), layout="strided"), [2, 2]), Sample(x, 0, 2)]


def _tile_samples(dtype, make):
    x = make((2, 3))
    return [Sample(x, (2,)), Sample(x, (2, 2)), Sample(x, (3, 1, 2)), Sample(make((3,)), [2])]


def _repeat_interleave_samples(dtype, make):
    x = make((2, 3))
    return [Sample(x, 2), Sample(x, 2, 0), Sample(x, 3, dim=-1),
            Sample(x, make((3,), "int64", values=[1, 0, 2]), 1),
            Sample(x, make((2,), "int64", values=[2, 1]), dim=0), Sample(make(()), 3)]


def _roll_samples(dtype, make):
    x = make((3, 4))
    return [Sample(x, 1), Sample(x, -2, 1), Sample(x, (1, 2), (0, 1)), Sample(x, 5, 0),
            Sample(make((3, 4), layout="transposed"), 3)]


def _rot90_samples(dtype, make):
    x = make((2, 3))
    return [Sample(x), Sample(x, 2), Sample(x, -1), Sample(x, 3, [1, 0]),
            Sample(make((2, 3, 4)), 1, (0, 2))]


def _list_samples(shapes_list):
    def gen(dtype, make):
        return [Sample([make(s) for s in shapes]) for shapes in shapes_list]
    return gen


def _split_samples(dim):
    def gen(dtype, make):
        shape = [4, 6, 4][:dim + 1] if dim else [4, 6]
        shape = {0: (4, 6), 1: (4, 6), 2: (2, 3, 4)}[dim]
        x = make(shape)
        out = [Sample(x, 2), Sample(x, [1, 3])]
        if dim == 1:
            out.append(Sample(make((6,)), 3))
        return out
    return gen


def _meshgrid_samples(dtype, make):
    a, b, c = make((3,)), make((2,)), make(())
    return [Sample(a, b, indexing="ij"), Sample(a, b, indexing="xy"), Sample([a, b, c],
                                                                             indexing="ij"),
            Sample(a, indexing="xy"), Sample(a, b, c, indexing="xy")]


def _view_as_complex_samples(dtype, make):
    return [Sample(make((3, 2))), Sample(make((2, 4, 2))), Sample(make((2,)))]


ENTRIES = [
    OpEntry("repeat", call=lambda lib, x, *a: x.repeat(*a), samples=_repeat_samples,
            dtypes=BASIC + HALFS, grad=True, method=False, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2, 3)), 2))]),
    OpEntry("tile", samples=_tile_samples, dtypes=BASIC, grad=True, family=FAMILY),
    OpEntry("repeat_interleave", samples=_repeat_interleave_samples, dtypes=BASIC, grad=True,
            family=FAMILY, errors=lambda make: [
                ErrorSample(Sample(make((2, 3)), make((2,), "int64", values=[1, 1]), 1)),
                ErrorSample(Sample(make((2, 3)), -1))]),
    OpEntry("repeat_interleave", samples=_s(lambda m: Sample(m((3,), "int64", values=[2, 0, 1]))),
            dtypes=("int64",), family=FAMILY, method=False),
    OpEntry("roll", samples=_roll_samples, dtypes=BASIC, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2, 3)), (1, 2), 0))]),
    OpEntry("rot90", samples=_rot90_samples, dtypes=BASIC, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2, 3)), 1, (0, 0))),
                                 ErrorSample(Sample(make((2, 3)), 1, (0, 1, 2))),
                                 ErrorSample(Sample(make((3,))))]),
    OpEntry("fliplr", samples=_s(lambda m: Sample(m((2, 3))), lambda m: Sample(m((2, 3, 2)))),
            dtypes=BASIC, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((3,))))]),
    OpEntry("flipud", samples=_s(lambda m: Sample(m((2, 3))), lambda m: Sample(m((4,)))),
            dtypes=BASIC, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make(())))]),
    OpEntry("dstack", samples=_list_samples([[(3,), (3,)], [(2, 3), (2, 3)], [(2, 3, 1), (2, 3, 2)],
                                             [(), ()]]),
            dtypes=BASIC, grad=True, out=True, method=False, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample([])),
                                 ErrorSample(Sample([make((2,)), make((3,))]))]),
    OpEntry("column_stack", samples=_list_samples([[(3,), (3,)], [(3, 2), (3,)], [(), ()]]),
            dtypes=BASIC, grad=True, out=True, method=False, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample([]))]),
    OpEntry("hsplit", samples=_split_samples(1), dtypes=BASIC, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((4, 6)), 4)),
                                 ErrorSample(Sample(make(()), 1))]),
    OpEntry("vsplit", samples=_split_samples(0), dtypes=BASIC, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((6,)), 2))]),
    OpEntry("dsplit", samples=_split_samples(2), dtypes=BASIC, grad=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2, 3)), 2))]),
    OpEntry("meshgrid", samples=_meshgrid_samples, dtypes=BASIC, grad=True, method=False,
            family=FAMILY, errors=lambda make: [
                ErrorSample(Sample(make((2, 2)), make((2,)), indexing="ij")),
                ErrorSample(Sample(make((2,)), make((2,)), indexing="yx"))]),
    OpEntry("broadcast_tensors", samples=_s(lambda m: Sample(m((3, 1)), m((4,))),
                                            lambda m: Sample(m(()), m((2, 2)), m((1, 2)))),
            dtypes=BASIC, grad=True, method=False, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((3,)), make((4,))))]),
    OpEntry("broadcast_shapes", samples=_s(lambda m: Sample((3, 1), (4,)),
                                           lambda m: Sample((2, 1, 3), (5, 1), 3),
                                           lambda m: Sample()),
            dtypes=("float32",), method=False, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample((3,), (4,)))]),
] + [
    OpEntry(name, samples=_s(lambda m: Sample(m(())), lambda m: Sample(m((3,))),
                             lambda m: Sample(m((2, 3))), lambda m: Sample(m((2, 3, 4))),
                             lambda m: Sample(m(()), m((2,))), lambda m: Sample([m((2,)), m(())])),
            dtypes=BASIC, grad=True, method=False, family=FAMILY)
    for name in ("atleast_1d", "atleast_2d", "atleast_3d")
] + [
    OpEntry("ravel", samples=_s(lambda m: Sample(m((2, 3))), lambda m: Sample(m(())),
                                lambda m: Sample(m((3, 4), layout="transposed"))),
            dtypes=BASIC, grad=True, family=FAMILY),
    OpEntry("view_as_real", samples=_s(lambda m: Sample(m((3,))), lambda m: Sample(m((2, 3))),
                                       lambda m: Sample(m(()))),
            dtypes=("complex64", "complex128"), grad=True, grad_dtypes=("complex64",),
            method=False, family=FAMILY, check_strides=True,
            errors=lambda make: [ErrorSample(Sample(make((3,))))]),
    OpEntry("view_as_complex", samples=_view_as_complex_samples, dtypes=FLOATS, grad=True,
            method=False, family=FAMILY, check_strides=True,
            errors=lambda make: [ErrorSample(Sample(make((3, 3)))),
                                 ErrorSample(Sample(make((2, 2), "int64")))],
            skips={"forward": ("cinder has no complex32 (chalf) dtype", ("float16",))}),
    OpEntry("cartesian_prod", samples=_s(lambda m: Sample(m((3,)), m((2,))),
                                         lambda m: Sample(m((2,)), m((2,)), m((3,))),
                                         lambda m: Sample(m((3,)))),
            dtypes=BASIC, grad=True, method=False, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2, 2)), make((2,))))]),
    OpEntry("combinations", samples=_s(lambda m: Sample(m((4,))), lambda m: Sample(m((4,)), 3),
                                       lambda m: Sample(m((3,)), 2, True),
                                       lambda m: Sample(m((3,)), r=1)),
            dtypes=BASIC, grad=True, method=False, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2, 2))))]),
    OpEntry("narrow_copy", samples=_s(lambda m: Sample(m((4, 3)), 0, 1, 2),
                                      lambda m: Sample(m((4, 3)), -1, 0, 3)),
            dtypes=BASIC, grad=True, family=FAMILY),
    OpEntry("expand_copy", samples=_s(lambda m: Sample(m((3,)), (2, 3)),
                                      lambda m: Sample(m((3, 1)), (3, 4))),
            dtypes=BASIC, grad=True, method=False, out=True, family=FAMILY),
    OpEntry("permute_copy", samples=_s(lambda m: Sample(m((2, 3, 4)), (2, 0, 1))),
            dtypes=BASIC, grad=True, method=False, out=True, family=FAMILY),
    OpEntry("transpose_copy", samples=_s(lambda m: Sample(m((2, 3)), 0, 1)),
            dtypes=FLOATS, grad=True, method=False, family=FAMILY),
    OpEntry("unbind_copy", samples=_s(lambda m: Sample(m((2, 3)), 1)),
            dtypes=FLOATS, grad=True, method=False, family=FAMILY),
    OpEntry("view_copy", samples=_s(lambda m: Sample(m((2, 3)), (3, 2))),
            dtypes=FLOATS, grad=True, method=False, family=FAMILY),
    OpEntry("t_copy", samples=_s(lambda m: Sample(m((2, 3)))), dtypes=FLOATS, grad=True,
            method=False, family=FAMILY),
    OpEntry("squeeze_copy", samples=_s(lambda m: Sample(m((2, 1, 3))),
                                       lambda m: Sample(m((1, 3)), 0)),
            dtypes=FLOATS, grad=True, method=False, family=FAMILY),
    OpEntry("unsqueeze_copy", samples=_s(lambda m: Sample(m((2, 3)), 1)), dtypes=FLOATS,
            grad=True, method=False, family=FAMILY),
    OpEntry("select_copy", samples=_s(lambda m: Sample(m((2, 3)), 1, 2)), dtypes=FLOATS,
            grad=True, method=False, family=FAMILY),
    OpEntry("split_copy", samples=_s(lambda m: Sample(m((5, 3)), 2)), dtypes=FLOATS, grad=True,
            method=False, family=FAMILY),
    OpEntry("split_with_sizes_copy", samples=_s(lambda m: Sample(m((5, 3)), [2, 3])),
            dtypes=FLOATS, grad=True, method=False, family=FAMILY),
    OpEntry("unfold_copy", samples=_s(lambda m: Sample(m((6,)), 0, 2, 2)), dtypes=FLOATS,
            grad=True, method=False, family=FAMILY),
    OpEntry("as_strided_copy", samples=_s(lambda m: Sample(m((6,)), (2, 2), (2, 1))),
            dtypes=FLOATS, grad=True, method=False, family=FAMILY),
    OpEntry("view_as_real_copy", samples=_s(lambda m: Sample(m((3,)))), dtypes=("complex64",),
            grad=True, grad_dtypes=("complex64",), method=False, family=FAMILY),
]
