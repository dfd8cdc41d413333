"""nn.functional entries for the kernels in cinder/ops/nn/ (activation, loss, dropout).

Each entry calls ``lib.nn.functional.<fn>`` so the same call runs in both libraries; the generic
runners of tests/test_ops.py (forward values, dtypes PyTorch refuses, gradients, float64
gradcheck, errors) run them from tests/nn/test_functional.py. Entry names are the op-table
names, so the op coverage test finds them.
"""

import numpy as np

from . import FLOATS, HALFS, ErrorSample, OpEntry, Sample

FAMILY = "nn"
ACT_DTYPES = FLOATS + HALFS + ("int64",)
HALF_TOL = {"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}


def _F(name, **fixed):
    def call(lib, *args, **kwargs):
        return getattr(lib.nn.functional, name)(*args, **fixed, **kwargs)
    return call


def act_samples(*param_sets, low=-4, high=4):
    """Shapes 0-d, 1-d, 2-d, empty, transposed and strided; one sample per extra kwargs set."""
    def gen(dtype, make):
        def a(shape, **kw):
            return make(shape, low=low, high=high, **kw)
        out = [Sample(a(())), Sample(a((5,))), Sample(a((2, 3))), Sample(a((0,))),
               Sample(a((3, 4), layout="transposed")), Sample(a((2, 6), layout="strided"))]
        for kw in param_sets:
            out.append(Sample(a((3, 4)), **kw))
        return out
    return gen


def act(op_name, fn=None, *params, dtypes=ACT_DTYPES, skips=None, **fixed):
    return OpEntry(op_name, call=_F(fn or op_name, **fixed), samples=act_samples(*params),
                   dtypes=dtypes, method=False, grad=True, tol=HALF_TOL, skips=skips,
                   family=FAMILY)


def _softmax_samples(dtype, make):
    return [Sample(make((2, 5)), 1), Sample(make((2, 5)), 0), Sample(make((3, 4, 2)), -1),
            Sample(make(()), 0), Sample(make((0, 3)), 1),
            Sample(make((3, 4), layout="transposed"), 1),
            Sample(make((2, 3)), 1, dtype=_dt("float64"))]


def _dt(name):
    from . import Dtype
    return Dtype(name)


def _softmax_errors(make):
    return [ErrorSample(Sample(make((2, 3)), 2), match="Dimension out of range"),
            ErrorSample(Sample(make((2, 3), "int64"), 1), match="not implemented")]


def _prelu_samples(dtype, make):
    return [Sample(make((2, 3, 4)), make((3,), low=0, high=0.5)),
            Sample(make((2, 3)), make((1,), low=0, high=0.5)),
            Sample(make((5,)), make((1,), low=0, high=0.5))]


def _prelu_errors(make):
    return [ErrorSample(Sample(make((2, 3, 4)), make((2,))), match="Mismatch of parameter")]


def _glu_errors(make):
    return [ErrorSample(Sample(make((3, 5))), match="Halving dimension must be even")]


ACTIVATIONS = [
    act("gelu", "gelu", {"approximate": "tanh"}),
    act("silu"),
    act("mish"),
    act("elu", "elu", {"alpha": 0.5}),
    act("selu"),
    act("celu", "celu", {"alpha": 0.7}),
    act("leaky_relu", "leaky_relu", {"negative_slope": 0.2}),
    act("hardtanh", "hardtanh", {"min_val": -2.0, "max_val": 3.0}, dtypes=FLOATS + HALFS),
    act("hardsigmoid"),
    act("hardswish"),
    act("softplus", "softplus", {"beta": 2.0, "threshold": 3.0}),
    act("softshrink", "softshrink", {"lambd": 1.5}),
    act("hardshrink", "hardshrink", {"lambd": 1.5}),
    act("log_sigmoid", "logsigmoid"),
    OpEntry("threshold", call=_F("threshold"), method=False, grad=True, family=FAMILY,
            samples=lambda dtype, make: [Sample(make((3, 4)), 0.5, 2.0),
                                         Sample(make((5,)), -1.0, 0.0)],
            dtypes=FLOATS + ("int64",)),
    OpEntry("prelu", call=_F("prelu"), samples=_prelu_samples, dtypes=FLOATS, method=False,
            grad=True, errors=_prelu_errors, family=FAMILY),
    OpEntry("softmax", call=_F("softmax"), samples=_softmax_samples, dtypes=FLOATS + HALFS,
            method=False, grad=True, errors=_softmax_errors, tol=HALF_TOL, family=FAMILY),
    OpEntry("log_softmax", call=_F("log_softmax"), samples=_softmax_samples,
            dtypes=FLOATS + HALFS, method=False, grad=True, errors=_softmax_errors,
            tol=HALF_TOL, family=FAMILY),
    OpEntry("glu", call=_F("glu"), method=False, grad=True, family=FAMILY, dtypes=FLOATS,
            samples=lambda dtype, make: [Sample(make((3, 4))), Sample(make((4, 3)), dim=0)],
            errors=_glu_errors, check_grad_fn=False),
    OpEntry("rrelu", call=_F("rrelu"), method=False, grad=True, family=FAMILY, dtypes=FLOATS,
            samples=lambda dtype, make: [Sample(make((3, 4))),
                                         Sample(make((3, 4)), 0.2, 0.4)]),
]


# ----------------------------------------------------------------------------------------------
# Losses
# ----------------------------------------------------------------------------------------------

REDUCTIONS = ("mean", "sum", "none")


def _pair_samples(low=-3, high=3, tlow=-3, thigh=3, **extra):
    def gen(dtype, make):
        out = []
        for r in REDUCTIONS:
            out.append(Sample(make((3, 4), low=low, high=high),
                              make((3, 4), low=tlow, high=thigh), reduction=r, **extra))
        out.append(Sample(make((5,), low=low, high=high), make((5,), low=tlow, high=thigh),
                          **extra))
        return out
    return gen


def _ce_samples(dtype, make):
    def target(shape, c):
        return make(shape, "int64", low=0, high=c, grad=False)
    w = make((5,), low=0.5, high=2, grad=False)
    return [
        Sample(make((4, 5)), target((4,), 5)),
        Sample(make((4, 5)), target((4,), 5), reduction="sum"),
        Sample(make((4, 5)), target((4,), 5), reduction="none"),
        Sample(make((4, 5)), target((4,), 5), weight=w),
        Sample(make((4, 5)), make((4,), "int64", values=[1, -100, 3, 0], grad=False)),
        Sample(make((4, 5)), target((4,), 5), label_smoothing=0.2),
        Sample(make((4, 5)), target((4,), 5), label_smoothing=0.1, weight=w),
        Sample(make((2, 5, 3)), target((2, 3), 5)),
        Sample(make((2, 5, 2, 2)), target((2, 2, 2), 5), reduction="none"),
        Sample(make((5,)), target((), 5)),
        Sample(make((4, 5)), make((4, 5), low=0, high=1, grad=False)),
        Sample(make((4, 5)), make((4, 5), low=0, high=1, grad=False), label_smoothing=0.3,
               weight=w),
    ]


def _ce_errors(make):
    return [
        ErrorSample(Sample(make((3, 5)), make((3,), "float32")), match="expected target dtype"),
        ErrorSample(Sample(make((3, 5)), make((2,), "int64", low=0, high=5)),
                    match="Expected input batch_size"),
        ErrorSample(Sample(make((3, 5)), make((3,), "int64", values=[1, 2, 7])),
                    match="out of bounds"),
        ErrorSample(Sample(make((3, 5)), make((3,), "int64", low=0, high=5),
                           reduction="bogus"), match="not a valid value for reduction"),
        ErrorSample(Sample(make((3, 5)), make((3,), "int64", low=0, high=5),
                           weight=make((3,))), match="weight tensor should be defined"),
    ]


def _nll_samples(dtype, make):
    def target(shape, c):
        return make(shape, "int64", low=0, high=c, grad=False)
    return [Sample(make((4, 5)), target((4,), 5)),
            Sample(make((4, 5)), target((4,), 5), reduction="none",
                   weight=make((5,), low=0.5, high=2, grad=False)),
            Sample(make((2, 5, 3, 2)), target((2, 3, 2), 5)),
            Sample(make((4, 5)), make((4,), "int64", values=[1, 2, 2, 0], grad=False),
                   ignore_index=2)]


def _bce_samples(dtype, make):
    return [Sample(make((3, 4), low=0.05, high=0.95), make((3, 4), low=0, high=1),
                   reduction=r) for r in REDUCTIONS] + [
        Sample(make((3, 4), low=0.05, high=0.95), make((3, 4), low=0, high=1),
               weight=make((4,), low=0.5, high=2, grad=False))]


def _bcel_samples(dtype, make):
    return [Sample(make((3, 4)), make((3, 4), low=0, high=1), reduction=r)
            for r in REDUCTIONS] + [
        Sample(make((3, 4)), make((3, 4), low=0, high=1),
               weight=make((4,), low=0.5, high=2, grad=False),
               pos_weight=make((4,), low=0.5, high=3, grad=False))]


def _bce_errors(make):
    return [ErrorSample(Sample(make((3, 4), low=1.5, high=2), make((3, 4), low=0, high=1)),
                        match="between 0 and 1"),
            ErrorSample(Sample(make((3, 4), low=0, high=1), make((4,), low=0, high=1)),
                        match="different to the input size")]


def _ctc_samples(dtype, make):
    rng = np.random.default_rng(5)
    lp = np.log(rng.dirichlet(np.ones(5), size=(10, 3)))
    from . import T
    lp_t = T(lp.astype(dtype if dtype != "float64" else np.float64), dtype)
    targets = make((3, 4), "int64", low=1, high=5, grad=False)
    il = make((3,), "int64", values=[10, 9, 7], grad=False)
    tl = make((3,), "int64", values=[4, 2, 3], grad=False)
    return [Sample(lp_t, targets, il, tl, reduction=r) for r in REDUCTIONS] + [
        Sample(lp_t, targets, il, make((3,), "int64", values=[4, 4, 4], grad=False),
               zero_infinity=True)]


LOSSES = [
    OpEntry("mse_loss", call=_F("mse_loss"), samples=_pair_samples(), dtypes=FLOATS,
            method=False, grad=True, family=FAMILY),
    OpEntry("smooth_l1_loss", call=_F("smooth_l1_loss"), samples=_pair_samples(beta=0.7),
            dtypes=FLOATS, method=False, grad=True, family=FAMILY),
    OpEntry("huber_loss", call=_F("huber_loss"), samples=_pair_samples(delta=0.8),
            dtypes=FLOATS, method=False, grad=True, family=FAMILY),
    OpEntry("soft_margin_loss", call=_F("soft_margin_loss"), samples=_pair_samples(),
            dtypes=FLOATS, method=False, grad=True, family=FAMILY),
    OpEntry("binary_cross_entropy", call=_F("binary_cross_entropy"), samples=_bce_samples,
            dtypes=FLOATS, method=False, grad=True, errors=_bce_errors, family=FAMILY,
            skips={"gradcheck": "the target gradient is clamped at log(1e-100)"}),
    OpEntry("binary_cross_entropy_with_logits", call=_F("binary_cross_entropy_with_logits"),
            samples=_bcel_samples, dtypes=FLOATS, method=False, grad=True, family=FAMILY),
    OpEntry("nll_loss_nd", call=_F("nll_loss"), samples=_nll_samples, dtypes=FLOATS,
            method=False, grad=True, errors=_ce_errors, family=FAMILY),
    OpEntry("cross_entropy", call=_F("cross_entropy"), samples=_ce_samples, dtypes=FLOATS,
            method=False, grad=True, errors=_ce_errors, family=FAMILY, check_grad_fn=False),
    OpEntry("ctc_loss", call=_F("ctc_loss"), samples=_ctc_samples, dtypes=FLOATS,
            method=False, grad=True, family=FAMILY,
            skips={"gradcheck": "PyTorch's CTC gradient assumes log_softmax inputs (it is the "
                                "logits' gradient), so it is not the finite difference"}),
]


# ----------------------------------------------------------------------------------------------
# Dropout (bit-for-bit masks after the same seed)
# ----------------------------------------------------------------------------------------------

def _seeded(fn, **fixed):
    def call(lib, *args, **kwargs):
        lib.manual_seed(123)
        return getattr(lib.nn.functional, fn)(*args, **fixed, **kwargs)
    return call


def _drop_samples(dtype, make):
    return [Sample(make((4, 6)), 0.3), Sample(make((2, 3, 4)), 0.5),
            Sample(make((4, 6)), 0.0), Sample(make((4, 6)), 1.0),
            Sample(make((4, 6)), 0.3, training=False), Sample(make((0, 3)), 0.4)]


def _drop_errors(make):
    return [ErrorSample(Sample(make((3,)), 1.5), match="between 0 and 1")]


def _drop(op_name, fn, **fixed):
    return OpEntry(op_name, call=_seeded(fn, **fixed), samples=_drop_samples,
                   dtypes=FLOATS, method=False, grad=True, errors=_drop_errors, family=FAMILY,
                   check_grad_fn=False, skips={"gradcheck": "random"})


def _inplace_drop(op_name, fn, **fixed):
    # in-place on a fresh copy, so the leaf itself is not modified
    def call(lib, x, p, **kwargs):
        lib.manual_seed(123)
        return getattr(lib.nn.functional, fn)(x.clone(), p, inplace=True, **fixed, **kwargs)
    return OpEntry(op_name, call=call, samples=_drop_samples, dtypes=FLOATS, method=False,
                   grad=True, family=FAMILY, check_grad_fn=False,
                   skips={"gradcheck": "random"})


DROPOUT = [
    _drop("dropout", "dropout"),
    _inplace_drop("dropout_", "dropout"),
    _drop("alpha_dropout", "alpha_dropout", training=True),
    _inplace_drop("alpha_dropout_", "alpha_dropout", training=True),
    _drop("feature_dropout", "dropout1d"),
    _inplace_drop("feature_dropout_", "dropout1d"),
    _drop("feature_alpha_dropout", "feature_alpha_dropout", training=True),
    _inplace_drop("feature_alpha_dropout_", "feature_alpha_dropout", training=True),
    OpEntry("rrelu_", call=lambda lib, x, **kw: (lib.manual_seed(1), lib.nn.functional.rrelu(
        x.clone(), training=True, inplace=True, **kw))[1], samples=act_samples(),
        dtypes=FLOATS, method=False, grad=True, family=FAMILY, check_grad_fn=False,
        skips={"gradcheck": "random"}),
]

# ----------------------------------------------------------------------------------------------
# Linear (the fused 2-d kernel; other ranks go through matmul)
# ----------------------------------------------------------------------------------------------

def _linear_samples(dtype, make):
    return [Sample(make((4, 3)), make((5, 3)), make((5,))),
            Sample(make((4, 3), layout="transposed"), make((5, 3)), make((5,))),
            Sample(make((0, 3)), make((2, 3)), make((2,))),
            Sample(make((2, 4, 3)), make((5, 3)), make((5,))),
            Sample(make((4, 3)), make((5, 3)))]


def _linear_errors(make):
    return [ErrorSample(Sample(make((4, 3)), make((5, 2)), make((5,))),
                        match="cannot be multiplied")]


LINEAR = [
    OpEntry("linear_2d", call=_F("linear"), samples=_linear_samples, dtypes=FLOATS,
            method=False, grad=True, errors=_linear_errors, family=FAMILY),
]

ENTRIES = ACTIVATIONS + LOSSES + DROPOUT + LINEAR
