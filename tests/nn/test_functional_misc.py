"""nn.functional helpers without an op of their own (one_hot, normalize, pdist, distances,
gumbel_softmax, implicit-dim softmax, dropout warnings) against PyTorch."""

import warnings

import numpy as np
import pytest
import torch

import cinder

RNG = np.random.default_rng(0)
X = RNG.uniform(-2, 2, (4, 5)).astype(np.float32)
Y = RNG.uniform(-2, 2, (4, 5)).astype(np.float32)


def both(fn):
    """``fn(lib)`` in each library: (cinder result, torch result)."""
    return fn(cinder), fn(torch)


def close(c, t, atol=1e-5):
    assert tuple(c.shape) == tuple(t.shape)
    assert str(c.dtype) == str(t.dtype)
    np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=atol)


def grads_close(fn, *arrays):
    """fn(lib, *leaves) -> tensor; compares values and the gradients of every leaf."""
    outs = []
    for lib in (cinder, torch):
        leaves = [lib.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
        out = fn(lib, *leaves)
        out.backward(lib.ones_like(out))
        outs.append((out, [leaf.grad for leaf in leaves]))
    close(outs[0][0], outs[1][0])
    for c, t in zip(outs[0][1], outs[1][1]):
        close(c, t, atol=1e-4)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_normalize_pdist_pairwise(p):
    grads_close(lambda lib, x: lib.nn.functional.normalize(x, p=p, dim=1), X)
    grads_close(lambda lib, x: lib.nn.functional.normalize(x, p=p, dim=0), X)
    grads_close(lambda lib, x: lib.nn.functional.pdist(x, p=p), X)
    grads_close(lambda lib, x, y: lib.nn.functional.pairwise_distance(x, y, p=p), X, Y)


def test_pairwise_distance_node_and_norm_strings():
    """pairwise_distance reduces with ATen's norm (cinder's private ``_norm`` op), whose node
    PyTorch names NormBackward1, 0-d inputs included; torch.norm sends "nuc" and unknown
    names to matrix_norm."""
    for x, y in ((X, Y), (X[0, 0], Y[0, 0])):
        c, t = (lib.nn.functional.pairwise_distance(
            lib.from_numpy(np.array(x)).requires_grad_(), lib.from_numpy(np.array(y)), p=3)
            for lib in (cinder, torch))
        assert c.grad_fn.name() == t.grad_fn.name() == "NormBackward1"
        close(c, t)
    c, t = both(lambda lib: lib.norm(lib.from_numpy(X), "nuc"))
    close(c, t)
    c, t = both(lambda lib: lib.norm(lib.from_numpy(X[None]), "nuc", dim=(1, 2), keepdim=True))
    close(c, t)
    for lib in (cinder, torch):
        with pytest.raises(RuntimeError, match="Order abc not supported"):
            lib.norm(lib.from_numpy(X), "abc")


def test_cosine_similarity():
    grads_close(lambda lib, x, y: lib.nn.functional.cosine_similarity(x, y), X, Y)
    grads_close(lambda lib, x, y: lib.nn.functional.cosine_similarity(x, y[:1], dim=1), X, Y)
    zeros = np.zeros((2, 5), np.float32)
    c, t = both(lambda lib: lib.nn.functional.cosine_similarity(lib.from_numpy(zeros),
                                                                lib.from_numpy(X[:2])))
    close(c, t)


def test_one_hot():
    idx = np.array([[0, 3], [2, 1]])
    c, t = both(lambda lib: lib.nn.functional.one_hot(lib.from_numpy(idx)))
    assert c.tolist() == t.tolist() and str(c.dtype) == str(t.dtype)
    c, t = both(lambda lib: lib.nn.functional.one_hot(lib.from_numpy(idx), 6))
    assert c.tolist() == t.tolist()
    for bad in (lambda lib: lib.nn.functional.one_hot(lib.from_numpy(idx), 2),
                lambda lib: lib.nn.functional.one_hot(lib.tensor([-1, 0])),
                lambda lib: lib.nn.functional.one_hot(lib.tensor([1.0]))):
        with pytest.raises(Exception) as ce:
            bad(cinder)
        with pytest.raises(Exception) as te:
            bad(torch)
        assert type(ce.value) is type(te.value) or \
            type(ce.value).__name__ == type(te.value).__name__
        assert str(ce.value) == str(te.value)


def test_gumbel_softmax_matches_after_seed():
    for hard in (False, True):
        c, t = both(lambda lib, hard=hard: (lib.manual_seed(5), lib.nn.functional.gumbel_softmax(
            lib.from_numpy(X), tau=0.5, hard=hard))[1])
        close(c, t)
        assert np.allclose(c.sum(-1).numpy(), 1)


def _warned(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(x.message) for x in w]


@pytest.mark.parametrize("name", ["softmax", "softmin", "log_softmax"])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 3, 4), (2, 3, 4, 5)])
def test_implicit_dim_softmax(name, shape):
    a = RNG.uniform(-2, 2, shape).astype(np.float32)
    (c, cw), (t, tw) = both(lambda lib: _warned(
        lambda: getattr(lib.nn.functional, name)(lib.from_numpy(a))))
    close(c, t)
    assert cw == tw


@pytest.mark.parametrize("fn,shape", [("dropout2d", (2, 3, 4)), ("dropout2d", (2, 3)),
                                      ("dropout3d", (2, 3, 4)), ("dropout1d", (2, 3)),
                                      ("dropout2d", (2, 3, 4, 4))])
def test_feature_dropout_shapes_and_warnings(fn, shape):
    a = RNG.uniform(1, 2, shape).astype(np.float32)

    def run(lib):
        lib.manual_seed(3)
        return _warned(lambda: getattr(lib.nn.functional, fn)(lib.from_numpy(a), 0.5))
    (c, cw), (t, tw) = both(run)
    close(c, t)
    assert cw == tw


def test_dropout_module_masks_bit_for_bit():
    a = RNG.uniform(1, 2, (64, 32)).astype(np.float32)

    def run(lib):
        lib.manual_seed(11)
        m = lib.nn.Dropout(0.3)
        first = m(lib.from_numpy(a))
        second = m(lib.from_numpy(a))
        m.eval()
        return first, second, m(lib.from_numpy(a))
    c, t = both(run)
    for ci, ti in zip(c, t):
        assert np.array_equal(ci.numpy(), ti.numpy())


def test_legacy_reduction_arguments_warn_like_pytorch():
    a, b = X, Y

    def run(lib):
        return _warned(lambda: lib.nn.MSELoss(size_average=False)(lib.from_numpy(a),
                                                                  lib.from_numpy(b)))
    (c, cw), (t, tw) = both(run)
    close(c, t, atol=1e-4)
    assert cw == tw
    (c, cw), (t, tw) = both(lambda lib: _warned(lambda: lib.nn.functional.l1_loss(
        lib.from_numpy(a), lib.from_numpy(b), reduce=False)))
    close(c, t)
    assert cw == tw
