"""Entries for the nn kernels PyTorch publishes on ``torch`` itself (``torch.kl_div``,
``torch.cosine_similarity``, ``torch.instance_norm``, ``torch.selu_``...), called as
``lib.<name>`` with PyTorch's positional signatures and integer reductions. Run by
tests/test_coverage_ops.py."""

import numpy as np

from . import FLOATS, HALFS, ErrorSample, OpEntry, Sample, T

FAMILY = "nn_torch"


def _pair(shape=(3, 4), **kw):
    def gen(dtype, make):
        return [Sample(make(shape), make(shape), **kw)]
    return gen


def _distance_samples(dtype, make):
    return [Sample(make((3, 4)), make((3, 4))), Sample(make((3, 4)), make((4,))),
            Sample(make((2, 3, 4)), make((2, 3, 4)), 1.5, 1e-6, True),
            Sample(make((5,)), make((5,)), 1.0)]


def _cosine_samples(dtype, make):
    return [Sample(make((3, 4)), make((3, 4))), Sample(make((3, 4)), make((1, 4)), 1),
            Sample(make((2, 3, 4)), make((2, 3, 4)), -1, 1e-6),
            Sample(make((3, 4)), make((3, 4), values=[0.0] * 12)).skip(
                "gradcheck", "the norm of a zero vector has no derivative")]


def _pdist_samples(dtype, make):
    return [Sample(make((4, 3))), Sample(make((5, 2)), 1.0), Sample(make((3, 4)), 3.0),
            Sample(make((1, 3)))]


def _pdist_errors(make):
    return [ErrorSample(Sample(make((2, 3, 4))), match="pdist only supports 2D tensors"),
            ErrorSample(Sample(make((3, 4)), -1.0), match="non-negative p")]


def _reductions(make_args):
    """One sample per reduction (default, 0, 1, 2) of the arguments ``make_args(make)``."""
    def gen(dtype, make):
        args = make_args(make)
        return [Sample(*args)] + [Sample(*args, reduction=r) for r in (0, 1, 2)]
    return gen


def _sign(make, shape):
    return make(shape, grad=False, values=[(-1) ** i for i in range(_numel(shape))])


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _kl_samples(dtype, make):
    logp, q = make((3, 4), low=-3, high=-0.1), make((3, 4), low=0, high=1)
    q0 = make((3, 4), values=[0.0, 0.5] * 6)
    return [Sample(logp, q), Sample(logp, q, 1), Sample(logp, q0, 2).skip(
        "gradcheck", "d/dq of 0 * log 0 is NaN, in PyTorch too"),
            Sample(logp, make((3, 4), low=-2, high=0), 1, log_target=True)]


def _poisson_samples(dtype, make):
    x, t = make((3, 4), low=-1, high=1), make((3, 4), low=0, high=4)
    xp = make((3, 4), low=0.1, high=3)
    return [Sample(x, t, True, False, 1e-8, 0), Sample(x, t, True, True, 1e-8, 1),
            Sample(xp, t, False, False, 1e-8, 2), Sample(xp, t, False, True, 1e-6, 1)]


def _triplet_samples(dtype, make):
    a, p, n = make((3, 4)), make((3, 4)), make((3, 4))
    return [Sample(a, p, n), Sample(a, p, n, 0.5, 1.0, 1e-6, True, 1),
            Sample(a, p, n, 2.0, 3.0, 1e-6, False, 2)]


def _triplet_errors(make):
    return [ErrorSample(Sample(make((3, 4)), make((3, 4)), make((4,))),
                        match="same number of dimensions")]


def _cos_emb_errors(make):
    return [ErrorSample(Sample(make((3, 4)), make((3, 4)), make((3, 4))),
                        match="0D or 1D target tensor expected"),
            ErrorSample(Sample(make((3, 4, 2)), make((3, 4, 2)), make((3,))),
                        match="1D target tensor expects 2D input tensors")]


def _margin_errors(make):
    return [ErrorSample(Sample(make((3, 4)), make((3,)), make((3, 4))),
                        match="must match the size of tensor")]


def _bilinear_samples(dtype, make):
    return [Sample(make((3, 4)), make((3, 5)), make((2, 4, 5)), make((2,))),
            Sample(make((2, 3, 4)), make((2, 3, 5)), make((6, 4, 5))),
            Sample(make((4,)), make((5,)), make((2, 4, 5)), make((2,)))]


def _bilinear_errors(make):
    return [ErrorSample(Sample(make((3, 4)), make((2, 5)), make((2, 4, 5))),
                        match="batch dimensions do not match"),
            ErrorSample(Sample(make((3, 3)), make((3, 5)), make((2, 4, 5))),
                        match="input1 size does not match")]


def _instance_samples(dtype, make):
    x = make((2, 3, 5))
    w, b = make((3,)), make((3,))
    rm, rv = make((3,), grad=False), make((3,), low=0.5, high=2, grad=False)
    return [Sample(x, w, b, None, None, True, 0.1, 1e-5, False),
            Sample(make((2, 3, 4, 4)), None, None, rm, rv, True, 0.2, 1e-5, False),
            Sample(x, w, b, rm, rv, False, 0.1, 1e-3, False)]


def _update_stats_samples(dtype, make):
    rm, rv = make((3,), grad=False), make((3,), low=0.5, high=2, grad=False)
    return [Sample(make((4, 3, 5), grad=False), rm, rv, 0.1),
            Sample(make((6, 3), grad=False), None, None, 0.3)]


def _except_dim_samples(dtype, make):
    x = make((3, 4, 5))
    return [Sample(x), Sample(x, 2, 1), Sample(x, 3, 2), Sample(x, 2, -1), Sample(make((4,)))]


def _frobenius_samples(dtype, make):
    x = make((3, 4, 5))
    return [Sample(x, [1, 2]), Sample(x, 0, True), Sample(x, (0, 2))]


def _frobenius_errors(make):
    return [ErrorSample(Sample(make((2, 3, 4)), [0, 1, 2]), match="at most 2 dimensions")]


def _nuclear_samples(dtype, make):
    return [Sample(make((4, 3))), Sample(make((4, 3)), True), Sample(make((2, 4, 3)), (0, 2)),
            Sample(make((2, 4, 3))), Sample(make((3, 4)), (0, 1), True)]


def _act_samples(*extra):
    def gen(dtype, make):
        return [Sample(make((3, 4)), *extra), Sample(make(()), *extra)]
    return gen


def _shuffle_samples(dtype, make):
    return [Sample(make((2, 6, 3)), 3), Sample(make((1, 4, 2, 2)), 2), Sample(make((2, 6)), 1)]


def _shuffle_errors(make):
    return [ErrorSample(Sample(make((2, 6)), 2), match="expects input with > 2 dims"),
            ErrorSample(Sample(make((2, 6, 3)), 4), match="divisible by groups"),
            ErrorSample(Sample(make((2, 6, 3)), 0), match="must be positive")]


def _clone_first(name):
    """Call the in-place ``torch.<name>`` on a copy (leaves cannot be modified in place)."""
    def call(lib, x, *args):
        return getattr(lib, name)(x.clone(), *args)
    return call


def _entry(name, samples, errors=None, grad=True, dtypes=FLOATS, **kw):
    return OpEntry(name, samples=samples, errors=errors, grad=grad, dtypes=dtypes, method=False,
                   family=FAMILY, **kw)


def _dropout_samples(dtype, make):
    # deterministic cases only (seeded masks: tests/test_coverage_nn.py)
    return [Sample(make((3, 4)), 0.5, False), Sample(make((3, 4)), 0.0, True),
            Sample(make((2, 3)), 0.0, None)]


def _cell_samples(gates, lstm=False):
    def gen(dtype, make):
        x, h, c = make((3, 4), low=-1, high=1), make((3, 5), low=-1, high=1), make((3, 5))
        w_ih, w_hh = make((gates * 5, 4), low=-0.5, high=0.5), make((gates * 5, 5), low=-0.5,
                                                                    high=0.5)
        b_ih, b_hh = make((gates * 5,)), make((gates * 5,))
        state = (h, c) if lstm else h
        return [Sample(x, state, w_ih, w_hh, b_ih, b_hh), Sample(x, state, w_ih, w_hh)]
    return gen


def _net_samples(gates, lstm=False):
    """2 layers, both directions, with and without biases, batch-first or not; and the packed
    form (rows of a (T=3, B=2) sequence, batch sizes [2, 2, 1])."""
    def gen(dtype, make):
        def params(layers, dirs, in_size, bias):
            out = []
            for layer in range(layers):
                for _ in range(dirs):
                    size = in_size if layer == 0 else 3 * dirs
                    out += [make((gates * 3, size), low=-0.5, high=0.5),
                            make((gates * 3, 3), low=-0.5, high=0.5)]
                    if bias:
                        out += [make((gates * 3,), low=-0.5, high=0.5),
                                make((gates * 3,), low=-0.5, high=0.5)]
            return tuple(out)

        def state(layers, dirs, batch):
            h = make((layers * dirs, batch, 3), low=-1, high=1)
            return (h, make((layers * dirs, batch, 3), low=-1, high=1)) if lstm else h
        x = make((4, 2, 2), low=-1, high=1)
        samples = [Sample(x, state(2, 2, 2), params(2, 2, 2, True), True, 2, 0.0, True, True,
                          False).skip("gradcheck", "slow; its gradients are compared with "
                                      "PyTorch's, and the smaller samples are gradchecked"),
                   Sample(make((2, 4, 2), low=-1, high=1), state(1, 1, 2), params(1, 1, 2, False),
                          False, 1, 0.0, False, False, True)]
        sizes = T(np.array([2, 2, 1]), "int64", grad=False)
        samples.append(Sample(make((5, 2), low=-1, high=1), sizes, state(1, 2, 2),
                              params(1, 2, 2, True), True, 1, 0.0, False, True))
        return samples
    return gen


def _affine_samples(dtype, make):
    return [Sample(make((2, 2, 3)), [2, 3, 4, 5], False),
            Sample(make((1, 2, 3)), [1, 1, 3, 2], True),
            Sample(make((2, 3, 4)), [2, 1, 2, 3, 4], False),
            Sample(make((1, 2, 3)), [1, 1, 1, 4], False)]


ENTRIES = [
    # pairwise_distance ends in ATen's norm (NormBackward1, cinder's private ``_norm``); pdist
    # is a composite here: its gradients are compared, not PyTorch's fused PdistBackward0
    _entry("pairwise_distance", _distance_samples),
    _entry("cosine_similarity", _cosine_samples),
    _entry("pdist", _pdist_samples, _pdist_errors, check_grad_fn=False),
    _entry("kl_div", _kl_samples),
    _entry("poisson_nll_loss", _poisson_samples),
    _entry("margin_ranking_loss",
           _reductions(lambda make: (make((3, 4)), make((3, 4)), _sign(make, (3, 4)), 0.3)),
           _margin_errors),
    _entry("hinge_embedding_loss",
           _reductions(lambda make: (make((3, 4)), _sign(make, (3, 4)), 0.7))),
    _entry("cosine_embedding_loss",
           _reductions(lambda make: (make((3, 4)), make((3, 4)), _sign(make, (3,)), 0.2)),
           _cos_emb_errors),
    _entry("triplet_margin_loss", _triplet_samples, _triplet_errors),
    _entry("bilinear", _bilinear_samples, _bilinear_errors),
    _entry("instance_norm", _instance_samples),
    _entry("batch_norm_update_stats", _update_stats_samples, grad=False),
    _entry("norm_except_dim", _except_dim_samples, check_grad_fn=False),
    _entry("frobenius_norm", _frobenius_samples, _frobenius_errors, check_grad_fn=False),
    _entry("nuclear_norm", _nuclear_samples, grad_tol={"float32": (1e-4, 1e-4)},
           check_grad_fn=False),
    _entry("selu_", _act_samples(), call=_clone_first("selu_"), dtypes=FLOATS + HALFS,
           grad_dtypes=FLOATS),
    _entry("celu_", _act_samples(0.7), call=_clone_first("celu_"), dtypes=FLOATS + HALFS,
           grad_dtypes=FLOATS),
    _entry("threshold_", _act_samples(0.1, -2.0), call=_clone_first("threshold_"),
           dtypes=FLOATS + ("int64",), grad_dtypes=FLOATS),
    _entry("native_dropout", _dropout_samples),
    _entry("rnn_tanh_cell", _cell_samples(1), check_grad_fn=False),
    _entry("rnn_relu_cell", _cell_samples(1), check_grad_fn=False),
    _entry("gru_cell", _cell_samples(3), check_grad_fn=False),
    _entry("lstm_cell", _cell_samples(4, lstm=True), check_grad_fn=False),
    _entry("rnn_tanh", _net_samples(1), check_grad_fn=False),
    _entry("rnn_relu", _net_samples(1), check_grad_fn=False),
    _entry("gru", _net_samples(3), check_grad_fn=False),
    _entry("lstm", _net_samples(4, lstm=True), check_grad_fn=False),
    _entry("affine_grid_generator", _affine_samples, check_grad_fn=False),
    _entry("channel_shuffle", _shuffle_samples, _shuffle_errors, dtypes=FLOATS + ("int64",)),
    # no derivative in PyTorch (tests/test_coverage_nn.py checks that backward refuses)
    _entry("native_channel_shuffle", _shuffle_samples, dtypes=FLOATS + ("int64",), grad=False),
]
