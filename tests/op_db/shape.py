"""Joining ops (cinder/ops/shape.py): cat / concat / concatenate (dtype promotion, legacy empty
1-d tensors), stack, hstack, vstack / row_stack."""

from . import GRAD_C, WITH_HALF, ErrorSample, OpEntry, Sample

FAMILY = "shape"


def _cat_samples(dtype, make):
    return [
        Sample([make((2, 3)), make((4, 3))]),
        Sample([make((2, 3)), make((2, 1)), make((2, 2))], 1),
        Sample([make((2, 3)), make((2, 2))], dim=-1),
        Sample([make((2, 3, 4)), make((2, 1, 4), layout="transposed")], 1),
        Sample((make((3,)), make((2,)), make((0,)))),
        Sample([make((2, 3))]),
        Sample([make((2, 3)), make((0,))]),                    # legacy empty 1-d is skipped
        Sample([make((0,)), make((2, 3)), make((0,))], 1),
        Sample([make((0, 3)), make((2, 3))]),
        Sample([make((2, 3)), make((2, 3), "float64")]),       # dtypes promote
        Sample([make((2, 3), "int64"), make((1, 3))]),
        Sample([make((2, 3), "bool"), make((1, 3))]),
        Sample([make((2, 3)), make((2, 3), layout="strided")], 1),
    ]


def _cat_errors(make):
    return [
        ErrorSample(Sample([]), match="expected a non-empty list of Tensors"),
        ErrorSample(Sample([make((2, 3)), make((2, 4))]), match="Sizes of tensors must match"),
        ErrorSample(Sample([make((2, 3)), make((3,))]),
                    match="Tensors must have same number of dimensions"),
        ErrorSample(Sample([make(()), make(())]), match="zero-dimensional tensor"),
        ErrorSample(Sample([make((2, 3)), make((2, 3))], 2), match="Dimension out of range"),
        ErrorSample(Sample(make((2, 3)))),
        ErrorSample(Sample([make((2, 3)), 1.0])),
    ]


def _stack_samples(dtype, make):
    return [
        Sample([make((2, 3)), make((2, 3))]),
        Sample([make((2, 3)), make((2, 3)), make((2, 3))], 1),
        Sample([make((2, 3)), make((2, 3), layout="transposed")], -1),
        Sample([make(()), make(())]),
        Sample((make((0, 2)), make((0, 2))), 1),
        Sample([make((3,))]),
        Sample([make((2,)), make((2,), "float64")]),
        Sample([make((2,), "int32"), make((2,))], dim=0),
    ]


def _stack_errors(make):
    return [ErrorSample(Sample([]), match="stack expects a non-empty TensorList"),
            ErrorSample(Sample([make((2, 3)), make((3, 2))]),
                        match="stack expects each tensor to be equal size"),
            ErrorSample(Sample([make((2, 3)), make((2, 3))], 3), match="Dimension out of range"),
            ErrorSample(Sample(make((2, 3))))]


def _hstack_samples(dtype, make):
    return [Sample([make((3,)), make((2,))]), Sample([make((2, 3)), make((2, 1))]),
            Sample([make(()), make(())]), Sample([make(()), make((2,))]),
            Sample([make((2, 1, 3)), make((2, 2, 3))]),
            Sample([make((2, 3)), make((2, 1), "float64")])]


def _vstack_samples(dtype, make):
    return [Sample([make((3,)), make((3,))]), Sample([make((2, 3)), make((1, 3))]),
            Sample([make(()), make(())]), Sample([make((3,)), make((2, 3))]),
            Sample([make((2, 2, 3)), make((1, 2, 3))]),
            Sample([make((2, 3)), make((3,), "int64")])]


def _stack_like_errors(make):
    return [ErrorSample(Sample([])), ErrorSample(Sample([make((2, 3)), make((3, 2))]))]


def _entry(name, samples, errors):
    return OpEntry(name, samples=samples, errors=errors, dtypes=WITH_HALF + ("complex64",),
                   grad=True, method=False, out=True, family=FAMILY,
                   grad_dtypes=GRAD_C)


# The view aliases (views.py registers them; tests/test_views.py covers the ops they alias).
def _swap_samples(dtype, make):
    return [Sample(make((2, 3, 4)), 0, 2), Sample(make((2, 3)), -1, 0),
            Sample(make((3, 4), layout="transposed"), 0, 1), Sample(make(()), 0, 0)]


def _moveaxis_samples(dtype, make):
    return [Sample(make((2, 3, 4)), 0, 2), Sample(make((2, 3, 4)), (0, 1), (2, 0)),
            Sample(make((3, 4), layout="transposed"), -1, 0)]


def _alias_errors(make):
    return [ErrorSample(Sample(make((2, 3)), 0, 2), match="Dimension out of range")]


def _view_alias(name, samples):
    return OpEntry(name, samples=samples, errors=_alias_errors, dtypes=("float32", "int64"),
                   grad=True, check_strides=True, family=FAMILY)


def _flip_samples(dtype, make):
    x = make((2, 3, 4))
    return [Sample(x, (0,)), Sample(x, (0, 2)), Sample(x, [-1]), Sample(x, (0, 1, 2)),
            Sample(make((4, 3), layout="transposed"), (1,)), Sample(make(()), ()),
            Sample(make((0, 3)), [1])]


def _flip_errors(make):
    return [ErrorSample(Sample(make((2, 3)), 2)), ErrorSample(Sample(make((2, 3)), (0, 0))),
            ErrorSample(Sample(make((2, 3)), (2,))), ErrorSample(Sample(make((2, 3)), 0, 1))]


ENTRIES = [
    OpEntry("flip", samples=_flip_samples, errors=_flip_errors, dtypes=WITH_HALF, grad=True,
            grad_dtypes=GRAD_C, check_strides=True, family=FAMILY),
    _view_alias("swapaxes", _swap_samples),
    _view_alias("swapdims", _swap_samples),
    _view_alias("moveaxis", _moveaxis_samples),
    _entry("cat", _cat_samples, _cat_errors),
    _entry("concat", _cat_samples, _cat_errors),
    _entry("concatenate", _cat_samples, _cat_errors),
    _entry("stack", _stack_samples, _stack_errors),
    _entry("hstack", _hstack_samples, _stack_like_errors),
    _entry("vstack", _vstack_samples, _stack_like_errors),
    _entry("row_stack", _vstack_samples, _stack_like_errors),
]
