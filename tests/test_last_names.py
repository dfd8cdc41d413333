"""The last torch names of issue 6 (tests/op_db/last_names.py through the generic runners of
tests/test_ops.py), and what those runners cannot check: lobpcg against SciPy, the
embedding_bag bookkeeping through F.embedding_bag, vmap's batched random draws, the uint64
dtype behind hash_tensor, and Tensor.index (left out)."""

import numpy as np
import pytest
import scipy.linalg
import test_ops as R
import torch
from op_db import last_names

import cinder

ENTRIES = last_names.ENTRIES


@pytest.mark.parametrize("entry,dtype,sample", R.sample_cases(
    lambda e: True, lambda e: e.dtypes, entries=ENTRIES))
def test_forward(entry, dtype, sample):
    R.test_forward(entry, dtype, sample)


@pytest.mark.parametrize("entry,dtype,sample", R.sample_cases(
    lambda e: e.grad, lambda e: e.grad_dtypes, R.has_leaves, entries=ENTRIES))
def test_grad(entry, dtype, sample):
    R.test_grad(entry, dtype, sample)


@pytest.mark.parametrize("entry,dtype,sample", R.sample_cases(
    lambda e: e.grad and "float64" in e.grad_dtypes, lambda e: ("float64",),
    lambda s: R.has_leaves(s, nonempty=True),
    entries=ENTRIES))
def test_gradcheck(entry, dtype, sample):
    R.test_gradcheck(entry, dtype, sample)


@pytest.mark.parametrize("entry,dtype", [
    pytest.param(e, d, id=f"{e.name}-{d}") for e in ENTRIES if e.method for d in e.dtypes[:2]])
def test_method(entry, dtype):
    R.test_method(entry, dtype)


@pytest.mark.parametrize("entry,dtype", [
    pytest.param(e, d, id=f"{e.name}-{d}") for e in ENTRIES if e.out for d in e.dtypes[:2]])
def test_out(entry, dtype):
    R.test_out(entry, dtype)


@pytest.mark.parametrize("entry,error", [
    pytest.param(e, err, id=f"{e.name}:{err!r}") for e in ENTRIES for err in e.error_list()])
def test_error(entry, error):
    R.test_error(entry, error)


# ----------------------------------------------------------------------------------------------
# lobpcg against SciPy's dense solver
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("generalized", [False, True])
def test_lobpcg_matches_scipy_eigh(largest, method, generalized):
    if method == "basic" and generalized:
        pytest.skip("PyTorch's basic method with B can return a repeated eigenvalue (cinder "
                    "does the same: compared with PyTorch in op_db/last_names.py)")
    rng = np.random.default_rng(5)
    m, k = 24, 3
    q = np.linalg.qr(rng.standard_normal((m, m)))[0]
    a = (q * np.linspace(1, 60, m)) @ q.T
    a = (a + a.T) / 2
    b = np.eye(m) + np.diag(rng.random(m)) * 0.5 if generalized else None
    cinder.manual_seed(0)
    E, X = cinder.lobpcg(cinder.from_numpy(a), k=k, largest=largest, method=method,
                         B=None if b is None else cinder.from_numpy(b))
    ref = scipy.linalg.eigh(a, b, eigvals_only=True)
    want = ref[::-1][:k] if largest else ref[:k]
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-9)
    # the eigenvectors solve the (generalized) problem
    bx = X.numpy() if b is None else b @ X.numpy()
    np.testing.assert_allclose(a @ X.numpy(), bx * E.numpy(), atol=1e-6)


def test_lobpcg_float32():
    a = last_names._spd("float32", 30, 4).array
    cinder.manual_seed(0)
    E, X = cinder.lobpcg(cinder.from_numpy(a), k=2)
    assert E.dtype is cinder.float32 and X.dtype is cinder.float32
    ref = scipy.linalg.eigh(a.astype(np.float64), eigvals_only=True)[::-1][:2]
    np.testing.assert_allclose(E.numpy(), ref, rtol=1e-4)


def test_lobpcg_tracker_sees_every_iteration():
    a = last_names._spd("float64", 15, 1).array
    steps = []
    cinder.manual_seed(0)
    cinder.lobpcg(cinder.from_numpy(a), k=2, tracker=lambda w: steps.append(w.ivars["istep"]))
    torch_steps = []
    torch.manual_seed(0)
    torch.lobpcg(torch.from_numpy(a), k=2, tracker=lambda w: torch_steps.append(
        w.ivars["istep"]))
    assert steps == torch_steps and len(steps) > 1


def test_lobpcg_grad_fn_and_b_refused_in_backward():
    a = last_names._spd("float64", 15, 1).array
    b = np.eye(15)
    for lib in (torch, cinder):
        A = lib.from_numpy(a.copy()).requires_grad_()
        E, _ = lib.lobpcg(A, k=2)
        assert type(E.grad_fn).__name__ == "LOBPCGAutogradFunctionBackward"
        E, _ = lib.lobpcg(A, k=2, B=lib.from_numpy(b))
        with pytest.raises(ValueError, match="B != I"):
            E.sum().backward()


# ----------------------------------------------------------------------------------------------
# segment_reduce: the backward is written in cinder ops, so it has second derivatives
# (PyTorch's raises "derivative for aten::_segment_reduce_backward is not implemented")
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_segment_reduce_second_derivatives(reduce):
    x = cinder.from_numpy(np.random.default_rng(0).standard_normal((5, 3))).requires_grad_()
    lengths = cinder.tensor([2, 3])
    assert cinder.autograd.gradgradcheck(
        lambda t: cinder.segment_reduce(t, reduce, lengths=lengths) ** 2, (x,))


# ----------------------------------------------------------------------------------------------
# embedding_bag through nn.functional
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_functional_embedding_bag_float32_fast_path(mode):
    """float32 rows take PyTorch's index-select path, whose last bag stops at the final
    offset with include_last_offset."""
    w = np.random.default_rng(2).standard_normal((6, 3)).astype(np.float32)
    res = []
    for lib in (torch, cinder):
        out = lib.nn.functional.embedding_bag(
            lib.tensor([1, 2, 4, 5, 4, 3, 2, 0]), lib.from_numpy(w.copy()),
            lib.tensor([0, 2, 2, 5]), mode=mode, include_last_offset=True)
        res.append(out.numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=1e-6)


# ----------------------------------------------------------------------------------------------
# vmap(randomness='different'): one batched draw per random factory call
# ----------------------------------------------------------------------------------------------

def _vmap_cases(lib):
    return [
        lambda x: lib.randn(20) + x,            # >= 16 values: PyTorch's vectorised normal
        lambda x: lib.randn(2, 9) + x,
        lambda x: lib.rand((20,)) + x,
        lambda x: lib.randint(0, 10, (20,)) + x,
        lambda x: lib.randint(10, size=(17,)) + x,
        lambda x: lib.normal(2.0, 3.0, (20,)) + x,
        lambda x: lib.randn_like(x.expand(20)) + x,
        lambda x: lib.randn(20) * lib.rand(3).sum() + lib.randn(7)[:1] + x,
    ]


@pytest.mark.parametrize("case", range(len(_vmap_cases(torch))))
def test_vmap_different_randomness_matches_torch(case):
    out = []
    for lib in (torch, cinder):
        lib.manual_seed(0)
        res = lib.func.vmap(_vmap_cases(lib)[case], randomness="different")(lib.zeros(4))
        out.append((res.numpy(), lib.rand(2).numpy()))     # and the stream afterwards
    np.testing.assert_array_equal(out[1][0], out[0][0])
    np.testing.assert_array_equal(out[1][1], out[0][1])


def test_vmap_different_rows_differ_and_same_rows_agree():
    cinder.manual_seed(1)
    diff = cinder.func.vmap(lambda x: cinder.randn(20) + x, randomness="different")(
        cinder.zeros(3))
    same = cinder.func.vmap(lambda x: cinder.randn(20) + x, randomness="same")(cinder.zeros(3))
    assert not cinder.equal(diff[0], diff[1])
    assert cinder.equal(same[0], same[2])


# ----------------------------------------------------------------------------------------------
# the uint64 dtype hash_tensor returns; Tensor.index
# ----------------------------------------------------------------------------------------------

def test_uint64_limited_support():
    big = np.array([1, 2 ** 63 + 5], dtype=np.uint64)
    for lib in (torch, cinder):
        u = lib.from_numpy(big.copy())
        assert str(u.dtype) == "torch.uint64" and u.dtype.is_signed is False
        assert repr(u) == "tensor([                  1, 9223372036854775813], dtype=torch.uint64)"
        assert u.tolist() == [1, 2 ** 63 + 5] and u.type() == "torch.UInt64Tensor"
        with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64"):
            lib.promote_types(lib.uint64, lib.int64)
    assert cinder.iinfo(cinder.uint64).max == torch.iinfo(torch.uint64).max


def test_hash_tensor_equal_values_equal_hashes():
    a = cinder.tensor([[1.5, -2.0], [3.0, 4.0]])
    assert cinder.equal(a.hash_tensor(), a.double().hash_tensor())
    assert a.hash_tensor().dtype is cinder.uint64
    assert not a.requires_grad_().hash_tensor().requires_grad


def test_tensor_index_is_listed_as_left_out():
    with pytest.raises(AttributeError, match="first-class dimensions"):
        _ = cinder.zeros(2).index
