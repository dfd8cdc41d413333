"""``torch.utils.checkpoint`` against PyTorch: same outputs and gradients (inputs and
parameters) as PyTorch's checkpoint, in both variants, with dropout replayed on recomputation."""

import warnings

import numpy as np
import pytest
import torch

import cinder

LIBS = (torch, cinder)


def _net(lib):
    lib.manual_seed(0)
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.3), nn.Tanh(), nn.Linear(8, 8),
                         nn.ReLU(), nn.Linear(8, 2))


def _x(lib, requires_grad=True):
    data = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    return lib.tensor(data, requires_grad=requires_grad)


def _close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def _grads(lib, run):
    """Output and every gradient after ``run(net, x)`` and a backward of its sum."""
    net, x = _net(lib), _x(lib)
    lib.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = run(lib, net, x)
    y.sum().backward()
    return [y, x.grad] + [p.grad for p in net.parameters()]


@pytest.mark.parametrize("reentrant", [True, False])
def test_same_gradients_as_pytorch_and_as_no_checkpoint(reentrant):
    def checkpointed(lib, net, x):
        return lib.utils.checkpoint.checkpoint(net, x, use_reentrant=reentrant)

    def plain(lib, net, x):
        return net(x)

    for ours, theirs in zip(_grads(cinder, checkpointed), _grads(torch, checkpointed)):
        _close(ours, theirs)
    for ours, plain_run in zip(_grads(cinder, checkpointed), _grads(cinder, plain)):
        _close(ours, plain_run)                  # dropout masks replayed when recomputing


def test_sequential_segments():
    def run(lib, net, x):
        return lib.utils.checkpoint.checkpoint_sequential(net, 3, x, use_reentrant=False)

    for ours, theirs in zip(_grads(cinder, run), _grads(torch, run)):
        _close(ours, theirs)


@pytest.mark.parametrize("reentrant", [True, False])
def test_no_argument_requires_grad(reentrant):
    """Reentrant: no graph (and a warning); non-reentrant: parameters still get gradients,
    also through autograd.grad."""
    results = []
    for lib in LIBS:
        net, x = _net(lib), _x(lib, requires_grad=False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = lib.utils.checkpoint.checkpoint(net, x, use_reentrant=reentrant)
        messages = [str(w.message) for w in caught]
        grads = (lib.autograd.grad(y.sum(), list(net.parameters())) if y.requires_grad
                 else [])
        results.append((y.requires_grad, messages, grads))
    (req_c, msg_c, grads_c), (req_t, msg_t, grads_t) = results[1], results[0]
    assert req_c == req_t and msg_c == msg_t
    assert len(grads_c) == len(grads_t)
    for ours, theirs in zip(grads_c, grads_t):
        _close(ours, theirs)


def test_keyword_arguments_and_tuple_outputs():
    def f(a, b, scale=1.0):
        return a * scale, (a + b).sin()

    grads = []
    for lib in LIBS:
        a = lib.tensor([0.5, -1.0], requires_grad=True)
        b = lib.tensor([2.0, 0.25])
        o1, o2 = lib.utils.checkpoint.checkpoint(f, a, b, use_reentrant=False, scale=3.0)
        (o1.sum() + o2.sum()).backward()
        grads.append(a.grad)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
            lib.utils.checkpoint.checkpoint(f, a, b, use_reentrant=True, scale=3.0)
    _close(grads[1], grads[0])


def test_under_no_grad_and_default_variant_warning():
    for lib in LIBS:
        net, x = _net(lib), _x(lib)
        with lib.no_grad():
            assert not lib.utils.checkpoint.checkpoint(net, x, use_reentrant=False).requires_grad
        with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
            lib.utils.checkpoint.checkpoint(net, x)
        with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
            lib.utils.checkpoint.checkpoint(net, x, use_reentrant=True, debug=True)
