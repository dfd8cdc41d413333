"""The gradient layout contract against PyTorch: a leaf's ``.grad`` takes the leaf's strides
(row-major for leaves that are not dense), whether backward copies or keeps the gradient it
made, under ``create_graph`` too; ``torch.autograd.enforce_grad_layout_policy(False)`` lets a
kept gradient keep its own strides; accumulating into a ``.grad`` of another layout warns
once."""

import warnings

import numpy as np
import pytest
import torch

import cinder

LIBS = pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
ONES = np.ones((4, 2, 3), dtype=np.float32)


def _leaf(lib, kind):
    if kind == "permuted":
        return lib.zeros(2, 3, 4).permute(2, 0, 1).requires_grad_()
    if kind == "channels_last":
        return lib.zeros(2, 3, 4, 5).to(memory_format=lib.channels_last).requires_grad_()
    if kind == "expanded":
        return lib.zeros(3, 1).expand(3, 4).requires_grad_()
    if kind == "sliced":
        return lib.zeros(6, 4)[::2].requires_grad_()
    return lib.zeros(3, 4).t().requires_grad_()


def _strides(scenario):
    got, expected = scenario(cinder), scenario(torch)
    assert got == expected
    return got


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
@pytest.mark.parametrize("kind", ["permuted", "channels_last", "expanded", "sliced", "t"])
def test_first_gradient_takes_the_leaf_layout(kind):
    def scenario(lib):
        kept = _leaf(lib, kind)
        (kept * 2).sum().backward()             # a gradient backward made: kept or copied
        copied = _leaf(lib, kind)
        (copied * 2).backward(lib.ones(copied.shape))   # a gradient the caller holds
        graph = _leaf(lib, kind)
        seed = lib.ones(graph.shape, requires_grad=True)
        (graph * 2).backward(seed, create_graph=True)
        return kept.grad.stride(), copied.grad.stride(), graph.grad.stride()
    _strides(scenario)


def test_relaxed_policy_keeps_the_gradient_as_made():
    def scenario(lib):
        assert lib.autograd.grad_mode.enforce_grad_layout_policy is \
            lib.autograd.enforce_grad_layout_policy
        p = _leaf(lib, "permuted")
        with lib.autograd.enforce_grad_layout_policy(False):
            (p * 2).sum().backward()
            relaxed = p.grad.stride()
            q = _leaf(lib, "permuted")
            (q + 1).backward(lib.ones(4, 2, 3))     # the caller's gradient: copied
            copied = q.grad.stride()

        @lib.autograd.enforce_grad_layout_policy(False)
        def step(t):
            (t * 2).sum().backward()
        r = _leaf(lib, "permuted")
        step(r)
        s = _leaf(lib, "permuted")
        (s * 2).sum().backward()                # the policy is back on outside
        return relaxed, copied, r.grad.stride(), s.grad.stride()
    assert _strides(scenario) == ((6, 3, 1), (1, 12, 4), (6, 3, 1), (1, 12, 4))


@LIBS
def test_switch_as_a_function(lib):
    p = _leaf(lib, "permuted")
    lib.autograd.enforce_grad_layout_policy(False)
    try:
        (p * 2).sum().backward()
        assert p.grad.stride() == (6, 3, 1)
    finally:
        lib.autograd.enforce_grad_layout_policy(True)
    p.grad = None
    (p * 2).sum().backward()
    assert p.grad.stride() == (1, 12, 4)


def test_accumulating_into_another_layout_warns_once():
    message = ("grad and param do not obey the gradient layout contract. This is not an "
               "error, but may impair performance.\ngrad.sizes() = [4, 2, 3], strides() = "
               "[6, 3, 1]\nparam.sizes() = [4, 2, 3], strides() = [1, 12, 4]")
    cinder.autograd.graph._LAYOUT_WARNED[0] = False       # once per process: start afresh
    p = _leaf(cinder, "permuted")
    p.grad = cinder.zeros(4, 2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (p * 2).sum().backward()
        (p * 2).sum().backward()
    layout = [str(w.message) for w in caught if "layout contract" in str(w.message)]
    assert layout == [message]
    np.testing.assert_array_equal(p.grad.numpy(), 4 * ONES)
    assert p.grad.stride() == (6, 3, 1)        # accumulated in place: its layout stays


@LIBS
def test_row_major_leaves_keep_the_gradient_backward_made(lib):
    w = lib.zeros(8, 8, requires_grad=True)
    (w @ lib.ones(8, 8)).sum().backward()
    assert w.grad.stride() == (8, 1) and w.grad.is_contiguous()
