"""View ops against PyTorch: layout, memory sharing, ``_base``, version counters, gradients.

Every case runs one function on a torch tensor and on a cinder tensor built from the same NumPy
array, then compares what PyTorch guarantees about views: values, shape, ``stride()``,
``storage_offset()``, ``is_contiguous()``, whether the result shares the input's storage (and at
which byte offset), whether ``_base`` is the input, that an in-place change through the view
bumps the base's ``_version``, the ``grad_fn`` name, and the gradient of a weighted sum.
"""

import warnings

import numpy as np
import pytest
import torch

import cinder

LIBS = (torch, cinder)


def _array(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-9, 10, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def _as_tuple(y):
    return tuple(y) if isinstance(y, (tuple, list)) else (y,)


def _layout(y, x):
    """Everything PyTorch fixes about ``y``, a (possible) view of ``x``."""
    rows = []
    for v in _as_tuple(y):
        shares = v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        rows.append({
            "shape": tuple(v.shape),
            "dtype": str(v.dtype),
            "stride": tuple(v.stride()),
            "offset": v.storage_offset(),
            "contiguous": v.is_contiguous(),
            "shares_storage": shares,
            "byte_delta": v.data_ptr() - x.data_ptr() if shares and v.numel() else None,
            "null_data_ptr": v.data_ptr() == 0,
            "base_is_input": v._base is x,
            "is_view": v._is_view(),
            "values": v.detach().numpy().tolist(),
        })
    return rows


def _run(lib, fn, arr):
    x = lib.tensor(arr)
    return x, _quiet(fn, x, lib)


def _outcome(fn):
    """(result, None) or (None, (exception type name, message))."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return None, (type(e).__name__, str(e))


# (name, input shape, dtype, function of (tensor, library))
CASES = [
    ("view", (2, 3, 4), np.float32, lambda x, L: x.view(6, 4)),
    ("view_minus1", (2, 3, 4), np.float32, lambda x, L: x.view(-1, 2)),
    ("view_tuple", (2, 3, 4), np.float32, lambda x, L: x.view((4, 6))),
    ("view_size", (2, 3, 4), np.float32, lambda x, L: x.view(L.Size([24]))),
    ("view_of_slice", (4, 6), np.float32, lambda x, L: x[1:3].view(3, 4)),
    ("view_noncontig_ok", (4, 6), np.float32, lambda x, L: x[:, :4].view(4, 2, 2)),
    ("view_dtype_same_size", (2, 3), np.float32, lambda x, L: x.view(L.int32)),
    ("view_dtype_smaller", (2, 3), np.float32, lambda x, L: x.view(L.int16)),
    ("view_dtype_larger", (2, 4), np.float32, lambda x, L: x.view(L.float64)),
    ("view_dtype_uint8", (3,), np.int64, lambda x, L: x.view(L.uint8)),
    ("view_as", (2, 3, 4), np.float32, lambda x, L: x.view_as(L.zeros(4, 6))),
    ("reshape_contig", (2, 3, 4), np.float32, lambda x, L: x.reshape(4, -1)),
    ("reshape_alias", (2, 3, 4), np.float32, lambda x, L: x[:, :, ::2].reshape(2, 6)),
    ("reshape_alias_slice", (2, 3, 4), np.float32, lambda x, L: x[:, :1].reshape(2, 4)),
    ("reshape_copy", (2, 3, 4), np.float32, lambda x, L: x.transpose(0, 1).reshape(-1)),
    ("reshape_copy2", (2, 3, 4), np.float32, lambda x, L: x.permute(2, 0, 1).reshape(4, 6)),
    ("reshape_as", (2, 3, 4), np.float32, lambda x, L: x.reshape_as(L.zeros(6, 4))),
    ("reshape_0d", (), np.float32, lambda x, L: x.reshape(1, 1)),
    ("as_strided", (2, 3, 4), np.float32, lambda x, L: x.as_strided((3, 3), (1, 2), 1)),
    ("as_strided_default_offset", (4, 6), np.float32,
     lambda x, L: x[1:].as_strided((2, 2), (6, 1))),
    ("as_strided_overlap", (10,), np.float32, lambda x, L: x.as_strided((4, 3), (2, 1))),
    ("expand", (2, 1, 4), np.float32, lambda x, L: x.expand(2, 5, 4)),
    ("expand_new_dims", (3, 1), np.float32, lambda x, L: x.expand(2, 3, 4)),
    ("expand_minus1", (3, 1), np.float32, lambda x, L: x.expand(-1, 6)),
    ("expand_as", (1, 4), np.float32, lambda x, L: x.expand_as(L.zeros(3, 4))),
    ("expand_0d", (), np.float32, lambda x, L: x.expand(2, 2)),
    ("broadcast_to", (3, 1), np.float32, lambda x, L: L.broadcast_to(x, (2, 3, 5))),
    ("transpose", (2, 3, 4), np.float32, lambda x, L: x.transpose(0, 2)),
    ("transpose_neg", (2, 3, 4), np.float32, lambda x, L: x.transpose(-1, -2)),
    ("transpose_same", (2, 3), np.float32, lambda x, L: x.transpose(1, 1)),
    ("swapaxes", (2, 3, 4), np.float32, lambda x, L: x.swapaxes(0, 1)),
    ("t_2d", (2, 3), np.float32, lambda x, L: x.t()),
    ("t_1d", (3,), np.float32, lambda x, L: x.t()),
    ("T_2d", (2, 3), np.float32, lambda x, L: x.T),
    ("T_3d", (2, 3, 4), np.float32, lambda x, L: x.T),
    ("mT", (2, 3, 4), np.float32, lambda x, L: x.mT),
    ("H_real", (2, 3), np.float32, lambda x, L: x.H),
    ("mH_real", (2, 3, 4), np.float32, lambda x, L: x.mH),
    ("adjoint_real", (2, 3, 4), np.float32, lambda x, L: x.adjoint()),
    ("permute", (2, 3, 4), np.float32, lambda x, L: x.permute(2, 0, 1)),
    ("permute_tuple_neg", (2, 3, 4), np.float32, lambda x, L: x.permute((-1, 0, 1))),
    ("permute_identity", (2, 3), np.float32, lambda x, L: x.permute(0, 1)),
    ("squeeze_all", (2, 1, 3, 1), np.float32, lambda x, L: x.squeeze()),
    ("squeeze_dim", (2, 1, 3, 1), np.float32, lambda x, L: x.squeeze(1)),
    ("squeeze_dim_noop", (2, 1, 3, 1), np.float32, lambda x, L: x.squeeze(0)),
    ("squeeze_dims_tuple", (1, 2, 1, 3, 1), np.float32, lambda x, L: x.squeeze((0, 2, 3))),
    ("squeeze_neg", (2, 1, 3, 1), np.float32, lambda x, L: x.squeeze(-1)),
    ("squeeze_0d", (), np.float32, lambda x, L: x.squeeze()),
    ("unsqueeze", (2, 3), np.float32, lambda x, L: x.unsqueeze(1)),
    ("unsqueeze_neg", (2, 3), np.float32, lambda x, L: x.unsqueeze(-1)),
    ("unsqueeze_front", (2, 3), np.float32, lambda x, L: x.unsqueeze(0)),
    ("unsqueeze_noncontig", (4, 6), np.float32, lambda x, L: x[:, ::2].unsqueeze(1)),
    ("narrow", (2, 3, 4), np.float32, lambda x, L: x.narrow(2, 1, 2)),
    ("narrow_neg_start", (5, 2), np.float32, lambda x, L: x.narrow(0, -3, 2)),
    ("select", (2, 3, 4), np.float32, lambda x, L: x.select(1, -1)),
    ("select_1d", (5,), np.float32, lambda x, L: x.select(0, 3)),
    ("unfold", (2, 3, 5), np.float32, lambda x, L: x.unfold(2, 2, 1)),
    ("unfold_step", (7,), np.float32, lambda x, L: x.unfold(0, 3, 2)),
    ("unfold_dim0", (6, 2), np.float32, lambda x, L: x.unfold(0, 2, 3)),
    ("flatten", (2, 3, 4), np.float32, lambda x, L: x.flatten()),
    ("flatten_range", (2, 3, 4, 5), np.float32, lambda x, L: x.flatten(1, 2)),
    ("flatten_noncontig", (2, 3, 4), np.float32, lambda x, L: x.transpose(0, 2).flatten()),
    ("flatten_0d", (), np.float32, lambda x, L: x.flatten()),
    ("unflatten", (2, 12), np.float32, lambda x, L: x.unflatten(1, (3, 4))),
    ("unflatten_minus1", (2, 12), np.float32, lambda x, L: x.unflatten(-1, (2, -1))),
    ("movedim", (2, 3, 4), np.float32, lambda x, L: x.movedim(0, -1)),
    ("movedim_multi", (2, 3, 4, 5), np.float32, lambda x, L: x.movedim((0, 1), (3, 0))),
    ("moveaxis", (2, 3, 4), np.float32, lambda x, L: L.moveaxis(x, 2, 0)),
    ("diagonal", (3, 4), np.float32, lambda x, L: x.diagonal()),
    ("diagonal_offset", (3, 4), np.float32, lambda x, L: x.diagonal(1)),
    ("diagonal_neg_offset", (4, 3), np.float32, lambda x, L: x.diagonal(-2)),
    ("diagonal_dims", (2, 3, 4), np.float32, lambda x, L: x.diagonal(1, 1, 2)),
    ("diagonal_dims_rev", (2, 3, 4), np.float32, lambda x, L: x.diagonal(0, 2, 0)),
    ("diagonal_empty", (3, 4), np.float32, lambda x, L: x.diagonal(5)),
    # along an expanded (zero-stride) dim the diagonal starts in place
    ("diagonal_expanded_cols", (3, 1), np.float32, lambda x, L: x.expand(3, 4).diagonal(1)),
    ("diagonal_expanded_rows", (1, 4), np.float32, lambda x, L: x.expand(3, 4).diagonal(-1)),
    ("unbind", (2, 3, 4), np.float32, lambda x, L: x.unbind(1)),
    ("unbind_1d", (3,), np.float32, lambda x, L: L.unbind(x)),
    ("split", (2, 3, 5), np.float32, lambda x, L: x.split(2, 2)),
    ("split_sizes", (2, 3, 5), np.float32, lambda x, L: x.split([1, 4], 2)),
    ("split_sizes_zero", (4, 2), np.float32, lambda x, L: L.split(x, [0, 3, 1])),
    ("split_with_sizes", (6,), np.float32, lambda x, L: x.split_with_sizes([2, 4])),
    ("chunk", (2, 3, 4), np.float32, lambda x, L: x.chunk(2, 1)),
    ("chunk_uneven", (7, 2), np.float32, lambda x, L: L.chunk(x, 3)),
    ("chunk_more_than_size", (2, 3), np.float32, lambda x, L: x.chunk(5, 1)),
    ("tensor_split_sections", (2, 3, 4), np.float32, lambda x, L: x.tensor_split(3, 2)),
    ("tensor_split_uneven", (7,), np.float32, lambda x, L: L.tensor_split(x, 3)),
    ("tensor_split_indices", (2, 3, 5), np.float32, lambda x, L: x.tensor_split([1, 3], 2)),
    ("tensor_split_indices_oob", (6,), np.float32, lambda x, L: x.tensor_split([2, 9, 1])),
    ("slice_steps", (4, 6), np.float32, lambda x, L: x[1:, ::2]),
    ("slice_step3", (10,), np.float32, lambda x, L: x[1:9:3]),
    ("slice_negative", (4, 6), np.float32, lambda x, L: x[-3:-1, -4:]),
    ("slice_empty", (4, 6), np.float32, lambda x, L: x[3:1]),
    ("slice_then_view", (4, 6), np.float32, lambda x, L: x[1:3].view(-1)[::2]),
    ("chain_three", (2, 3, 4), np.float32,
     lambda x, L: x.transpose(0, 1).unsqueeze(0).narrow(3, 1, 2)),
    ("int_view", (2, 3, 4), np.int64, lambda x, L: x.permute(1, 0, 2)[1]),
    ("float64_view", (3, 4), np.float64, lambda x, L: x.t().unsqueeze(0)),
]

CASE_IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name,shape,dtype,fn", CASES, ids=CASE_IDS)
def test_view_layout_matches_torch(name, shape, dtype, fn):
    arr = _array(shape, dtype)
    tx, ty = _run(torch, fn, arr)
    cx, cy = _run(cinder, fn, arr)
    assert len(_as_tuple(ty)) == len(_as_tuple(cy))
    assert _layout(cy, cx) == _layout(ty, tx)


def _inplace_through_view(lib, fn, arr):
    x = lib.tensor(arr)
    y = _as_tuple(_quiet(fn, x, lib))
    target = next((v for v in y if v.numel()), None)
    if target is None:
        return None
    before = x._version
    target.zero_()
    return (before, x._version, target._version, x.numpy().tolist(),
            [v._version for v in y])


@pytest.mark.parametrize("name,shape,dtype,fn", CASES, ids=CASE_IDS)
def test_inplace_on_view_bumps_shared_version(name, shape, dtype, fn):
    arr = _array(shape, dtype)
    assert _inplace_through_view(cinder, fn, arr) == _inplace_through_view(torch, fn, arr)


def _grad_of_view(lib, fn, arr, leaf):
    x = lib.tensor(arr, requires_grad=True)
    h = x if leaf else x * 2
    y = _as_tuple(_quiet(fn, h, lib))
    names = [None if v.grad_fn is None else v.grad_fn.name() for v in y]
    rng = np.random.default_rng(1)
    total = None
    for v in y:
        w = lib.tensor(rng.standard_normal(tuple(v.shape)).astype(arr.dtype))
        term = (v * w).sum()
        total = term if total is None else total + term
    total.backward()
    return names, x.grad.numpy()


GRAD_CASES = [c for c in CASES if c[2] in (np.float32, np.float64) and "dtype" not in c[0]]


@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "nonleaf"])
@pytest.mark.parametrize("name,shape,dtype,fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradient_through_view(name, shape, dtype, fn, leaf):
    arr = _array(shape, dtype)
    t_names, t_grad = _grad_of_view(torch, fn, arr, leaf)
    c_names, c_grad = _grad_of_view(cinder, fn, arr, leaf)
    assert c_names == t_names
    np.testing.assert_allclose(c_grad, t_grad, rtol=1e-5, atol=1e-6)


def test_view_of_leaf_keeps_base_and_requires_grad():
    arr = _array((2, 3))
    res = []
    for L in LIBS:
        x = L.tensor(arr, requires_grad=True)
        v = x.view(3, 2)
        res.append((v._base is x, v.requires_grad, v.is_leaf, v.grad_fn.name(),
                    v.grad_fn.next_functions[0][0].name(),
                    v.grad_fn.next_functions[0][0].variable is x))
    assert res[0] == res[1]


def test_view_dtype_is_not_differentiable_and_has_no_base():
    arr = _array((2, 4))
    res = []
    for L in LIBS:
        x = L.tensor(arr, requires_grad=True)
        h = x * 1
        v = h.view(L.float32)
        w = h.view(L.int32)
        res.append((v._base is None, v.requires_grad, v.grad_fn is None, w.requires_grad,
                    w._base is None))
    assert res[0] == res[1]


def test_chained_views_share_root_base():
    arr = _array((4, 6))
    res = []
    for L in LIBS:
        x = L.tensor(arr)
        a = x[1:]
        b = a.view(-1)
        c = b[::3]
        d = c.unsqueeze(0)
        res.append(tuple(v._base is x for v in (a, b, c, d)))
    assert res[0] == res[1] == (True,) * 4


def test_data_ptr_delta_of_slices_is_in_bytes():
    arr = np.arange(6, dtype=np.int64)
    res = []
    for L in LIBS:
        a = L.tensor(arr)
        c = a[2:]
        res.append((c.data_ptr() - a.data_ptr(), c.storage_offset(),
                    c.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()))
    assert res[0] == res[1]


def test_writes_through_views_reach_the_base():
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = []
    for L in LIBS:
        x = L.tensor(arr)
        x.t()[1].fill_(-1)
        x.diagonal()[:] = 7
        x.view(-1)[::5] = 9
        x.unfold(1, 2, 2)[0, 1, 0] = 100
        x.as_strided((2,), (3,), 2)[1] = 55
        out.append(x.numpy().tolist())
    assert out[0] == out[1]


def test_expand_has_zero_strides_and_writes_share_memory():
    arr = _array((3, 1))
    res = []
    for L in LIBS:
        x = L.tensor(arr)
        e = x.expand(2, 3, 4)
        x[1, 0] = 5.0
        res.append((e.stride(), e.numpy().tolist(), e.is_contiguous()))
    assert res[0] == res[1]


# ----------------------------------------------------------------------------------------------
# Errors: same exception type and message as PyTorch
# ----------------------------------------------------------------------------------------------

ERROR_CASES = [
    ("view_incompatible_stride", (2, 3, 4), lambda x, L: x.transpose(0, 1).view(-1)),
    ("view_bad_numel", (2, 3), lambda x, L: x.view(4, 2)),
    ("view_two_minus1", (2, 3), lambda x, L: x.view(-1, -1)),
    ("view_bad_size", (2, 3), lambda x, L: x.view(-2, 3)),
    ("view_dtype_0d", (), lambda x, L: x.view(L.float16)),
    ("view_dtype_indivisible", (3,), lambda x, L: x.view(L.float64)),
    ("view_dtype_stride", (4,), lambda x, L: x[::2].view(L.float64)),
    ("view_dtype_stride_small", (2, 2), lambda x, L: x.t().view(L.float16)),
    ("reshape_bad", (2, 3), lambda x, L: x.reshape(5)),
    ("reshape_minus1_zero", (0, 3), lambda x, L: x.reshape(0, -1)),
    ("as_strided_oob", (2, 3), lambda x, L: x.as_strided((3, 3), (3, 1))),
    ("as_strided_len_mismatch", (2, 3), lambda x, L: x.as_strided((3, 2), (1,))),
    ("expand_fewer_sizes", (2, 3), lambda x, L: x.expand(3)),
    ("expand_mismatch", (2, 3), lambda x, L: x.expand(2, 4)),
    ("expand_leading_minus1", (3,), lambda x, L: x.expand(-1, 3)),
    ("transpose_oob", (2, 3), lambda x, L: x.transpose(0, 2)),
    ("t_3d", (2, 3, 4), lambda x, L: x.t()),
    ("mT_1d", (3,), lambda x, L: x.mT),
    ("H_3d", (2, 3, 4), lambda x, L: x.H),
    ("H_1d", (3,), lambda x, L: x.H),
    ("permute_wrong_len", (2, 3), lambda x, L: x.permute(0)),
    ("permute_dup", (2, 3), lambda x, L: x.permute(0, 0)),
    ("squeeze_oob", (2, 1), lambda x, L: x.squeeze(2)),
    ("squeeze_dup", (1, 1), lambda x, L: x.squeeze((0, 0))),
    ("unsqueeze_oob", (2, 3), lambda x, L: x.unsqueeze(3)),
    ("narrow_too_long", (4,), lambda x, L: x.narrow(0, 2, 3)),
    ("narrow_start_oob", (4,), lambda x, L: x.narrow(0, 5, 0)),
    ("narrow_0d", (), lambda x, L: x.narrow(0, 0, 1)),
    ("select_oob", (2, 3), lambda x, L: x.select(1, 3)),
    ("select_neg_oob", (2, 3), lambda x, L: x.select(0, -3)),
    ("select_0d", (), lambda x, L: x.select(0, 0)),
    ("unfold_too_big", (4,), lambda x, L: x.unfold(0, 5, 1)),
    ("unfold_bad_step", (4,), lambda x, L: x.unfold(0, 2, 0)),
    ("flatten_bad_range", (2, 3, 4), lambda x, L: x.flatten(2, 1)),
    ("unflatten_bad", (2, 12), lambda x, L: x.unflatten(1, (5, 2))),
    ("movedim_dup", (2, 3, 4), lambda x, L: x.movedim((0, 0), (1, 2))),
    ("movedim_len", (2, 3, 4), lambda x, L: x.movedim((0, 1), (1,))),
    ("diagonal_same_dims", (3, 3), lambda x, L: x.diagonal(0, 1, 1)),
    ("unbind_0d", (), lambda x, L: x.unbind()),
    ("split_bad_sizes", (5,), lambda x, L: x.split([2, 2])),
    ("split_negative", (5,), lambda x, L: x.split(-1)),
    ("chunk_zero", (5,), lambda x, L: x.chunk(0)),
    ("tensor_split_zero", (5,), lambda x, L: x.tensor_split(0)),
    ("tensor_split_0d", (), lambda x, L: x.tensor_split(2)),
]


@pytest.mark.parametrize("name,shape,fn", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_view_errors_match_torch(name, shape, fn):
    arr = _array(shape)
    _, t_err = _outcome(lambda: _run(torch, fn, arr))
    _, c_err = _outcome(lambda: _run(cinder, fn, arr))
    assert t_err is not None, "torch accepted the call; the case is wrong"
    assert c_err == t_err


def test_view_error_advises_reshape():
    messages = []
    for lib in (torch, cinder):
        with pytest.raises(RuntimeError, match=r"Use \.reshape\(\.\.\.\) instead") as info:
            lib.zeros(2, 3).t().view(6)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


_T_WARNINGS_SCRIPT = """
import warnings, sys
import {lib} as L
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    L.zeros(2, 3, 4).T
    L.zeros(()).T
    L.zeros(2, 3).T
for m in w:
    print(str(m.message).split(" (Triggered internally")[0])
"""


def test_T_deprecation_warnings_match():
    # PyTorch warns only once per process, so each library runs in a fresh interpreter.
    import subprocess
    import sys
    out = [subprocess.run([sys.executable, "-c", _T_WARNINGS_SCRIPT.format(lib=lib)],
                          capture_output=True, text=True, check=True).stdout
           for lib in ("torch", "cinder")]
    assert out[1] == out[0]
    assert len(out[0].splitlines()) == 2


# -- in-place view methods and real/imag ------------------------------------------------------

_INPLACE_VIEWS = {
    "t_": lambda y: y.squeeze_(1).t_(),
    "transpose_": lambda y: y.transpose_(0, 2),
    "swapaxes_": lambda y: y.swapaxes_(0, 2),
    "swapdims_": lambda y: y.swapdims_(2, 0),
    "squeeze_": lambda y: y.squeeze_(),
    "squeeze_dim": lambda y: y.squeeze_(1),
    "squeeze_dims": lambda y: y.squeeze_((1,)),
    "unsqueeze_": lambda y: y.unsqueeze_(0),
    "as_strided_": lambda y: y.as_strided_((2, 2), (1, 2)),
}


def _inplace_view_record(lib, op, requires_grad):
    base = lib.tensor(np.arange(6, dtype=np.float32).reshape(2, 1, 3) + 1,
                      requires_grad=requires_grad)
    y = base * 2 if requires_grad else base.clone()
    v0 = y._version
    ptr = y.data_ptr()
    ret = _INPLACE_VIEWS[op](y)
    rec = [ret is y, tuple(y.shape), y.stride(), y._version - v0, y.data_ptr() == ptr,
           y.tolist() if not requires_grad else y.detach().tolist()]
    if requires_grad:
        rec.append(y.grad_fn.name())
        (y * lib.arange(y.numel(), dtype=lib.float32).reshape(y.shape)).sum().backward()
        rec.append(base.grad.tolist())
    return rec


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("op", list(_INPLACE_VIEWS))
def test_inplace_views_match_torch(op, requires_grad):
    got = _inplace_view_record(cinder, op, requires_grad)
    want = _inplace_view_record(torch, op, requires_grad)
    assert got == want


def test_inplace_view_on_leaf_requiring_grad_is_refused():
    for lib in (torch, cinder):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            lib.ones(2, 3, requires_grad=True).t_()


def _real_imag_record(lib):
    z = lib.tensor(np.array([1 + 2j, -3 + 0.5j], dtype=np.complex64), requires_grad=True)
    w = z * 1
    re, im = w.real, w.imag
    rec = [re.tolist(), im.tolist(), re.dtype == lib.float32, re._base is w, im._base is w,
           re.stride(), im.stride(), re.grad_fn.name(), im.grad_fn.name()]
    (re * 2 + im * 3).sum().backward()
    rec.append(z.grad.tolist())
    r = lib.ones(2)
    rec.append(r.real is r)
    c = lib.tensor(np.array([1 + 1j], dtype=np.complex64))
    c.real.add_(1)
    rec.append(c.tolist())
    rec.append(lib.real(c).tolist())
    return rec


def test_real_imag_match_torch():
    assert _real_imag_record(cinder) == _real_imag_record(torch)


def test_imag_of_real_tensor_raises_like_torch():
    for lib in (torch, cinder):
        with pytest.raises(RuntimeError, match="imag is not implemented for tensors with "
                                               "non-complex dtypes"):
            _ = lib.ones(2).imag
