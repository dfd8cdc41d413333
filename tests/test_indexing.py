"""Indexing against PyTorch: ``t[key]``, ``t[key] = value`` and the indexing ops.

Each key is built by a function of the library (so tensor indices are real torch / cinder
tensors made from the same data) and applied to tensors made from one NumPy array. Compared:
values, dtype, shape, ``stride()``, whether the result is a view (shares storage, ``_base``) and
at which offset, the ``grad_fn`` name, gradients, the base's ``_version``, and errors.
"""

import warnings

import numpy as np
import pytest
import torch

import cinder

LIBS = (torch, cinder)
ARR = np.arange(60, dtype=np.float64).reshape(3, 4, 5) / 7.0


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return None, (type(e).__name__, str(e))


def _weights(lib, shape, seed=3):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape))


# name -> key builder
GET_KEYS = {
    "int": lambda L: 1,
    "negative_int": lambda L: -1,
    "numpy_int": lambda L: np.int64(2),
    "int_tuple": lambda L: (1, 2),
    "all_ints": lambda L: (0, 1, 2),
    "slice": lambda L: slice(1, None),
    "slice_step": lambda L: slice(None, None, 2),
    "slice_full": lambda L: slice(None),
    "slice_negative": lambda L: slice(-2, None),
    "slice_beyond": lambda L: slice(1, 100),
    "slice_tensor_bounds": lambda L: slice(L.tensor(1), L.tensor(3)),
    "tuple_full_slice": lambda L: (slice(None),),
    "tuple_two_full": lambda L: (slice(None), slice(None)),
    "tuple_slice_0_n": lambda L: (slice(0, 3),),
    "slices_with_steps": lambda L: (slice(None), slice(1, None, 2), slice(None, None, 3)),
    "none": lambda L: None,
    "none_middle": lambda L: (slice(None), None, 1),
    "none_none": lambda L: (None, None),
    "ellipsis": lambda L: Ellipsis,
    "ellipsis_int": lambda L: (Ellipsis, 1),
    "ellipsis_none": lambda L: (Ellipsis, None),
    "int_ellipsis_int": lambda L: (0, Ellipsis, 2),
    "empty_tuple": lambda L: (),
    "zero_d_tensor": lambda L: L.tensor(1),
    "zero_d_tensor_slice": lambda L: (L.tensor(1), slice(None)),
    "zero_d_tensors": lambda L: (L.tensor(2), L.tensor(3)),
    "true": lambda L: True,
    "false": lambda L: False,
    "true_int": lambda L: (True, 0),
    "zero_d_bool_tensor": lambda L: L.tensor(True),
    "mask_full": lambda L: L.tensor(ARR > 4),
    "mask_partial": lambda L: L.tensor((ARR > 4)[:, :, 0]),
    "mask_1d": lambda L: L.tensor([True, False, True]),
    "mask_uint8": lambda L: L.tensor([1, 0, 1], dtype=L.uint8),
    "mask_then_slice": lambda L: (L.tensor([True, False, True]), slice(0, 2)),
    "mask_after_int": lambda L: (0, L.tensor([True, False, True, False])),
    "mask_2d_then_slice": lambda L: (L.tensor(np.ones((3, 4), bool)), slice(1, 3)),
    "list_of_bools": lambda L: [True, False, True],
    "long_tensor": lambda L: L.tensor([2, 0, 2]),
    "int32_tensor": lambda L: L.tensor([1, 0], dtype=L.int32),
    "long_2d": lambda L: L.tensor([[0, 1], [1, 2]]),
    "negative_long": lambda L: L.tensor([-1, -3]),
    "list": lambda L: [0, 2],
    "nested_list": lambda L: [[0, 1], [2, 2]],
    "tuple_in_tuple": lambda L: ((0, 1),),
    "list_of_lists_as_tuple": lambda L: [[0, 1], [1, 2]],
    "list_with_slice": lambda L: [[0, 1], slice(None)],
    "range": lambda L: range(2),
    "numpy_array": lambda L: np.array([2, 1]),
    "empty_list": lambda L: [],
    "empty_long": lambda L: L.tensor([], dtype=L.int64),
    "adv_adjacent": lambda L: ([0, 2], [1, 3]),
    "adv_separated": lambda L: ([0, 2], slice(None), [1, 3]),
    "adv_middle": lambda L: (slice(None), [0, 1], slice(None)),
    "adv_last": lambda L: (slice(None), slice(None), [4, 0]),
    "adv_broadcast": lambda L: (L.tensor([[0], [2]]), slice(1, 3), L.tensor([1, 4])),
    "adv_int_separated": lambda L: (1, slice(None), [0, 2]),
    "adv_int_between": lambda L: ([0, 1], 1, [2, 3]),
    "adv_ellipsis": lambda L: (Ellipsis, [0, 4]),
    "adv_ellipsis_both": lambda L: ([0, 1], Ellipsis, [1, 2]),
    "adv_none": lambda L: (None, [0, 1]),
    "adv_none_between": lambda L: ([0, 1], None, [1, 2]),
    "adv_slice_step": lambda L: (slice(None, None, 2), [3, 1]),
    "adv_repeated": lambda L: [1, 1, 0, 1],
    "adv_tensor_and_list": lambda L: (L.tensor([0, 2]), [3, 3]),
    "zero_d_then_list": lambda L: (L.tensor(2), L.tensor([0, 1])),
}


def _get(lib, name, requires_grad):
    x = lib.tensor(ARR, requires_grad=requires_grad)
    h = x * 1.0 if requires_grad else x
    key = GET_KEYS[name](lib)
    y = _quiet(h.__getitem__, key)
    shares = y.untyped_storage().data_ptr() == h.untyped_storage().data_ptr()
    info = {
        "values": y.detach().numpy().tolist(),
        "dtype": str(y.dtype),
        "shape": tuple(y.shape),
        "stride": y.stride(),
        "shares": shares,
        "offset": y.storage_offset() if shares else None,
        "base_is_input": y._base is h,
        "contiguous": y.is_contiguous(),
    }
    if requires_grad:
        info["grad_fn"] = y.grad_fn.name()
        info["next"] = [None if n is None else n.name() for n, _ in y.grad_fn.next_functions]
        (y * _weights(lib, tuple(y.shape))).sum().backward()
        info["grad"] = np.round(x.grad.numpy(), 12).tolist()
    return info


@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "grad"])
@pytest.mark.parametrize("name", list(GET_KEYS))
def test_getitem_matches_torch(name, requires_grad):
    assert _get(cinder, name, requires_grad) == _get(torch, name, requires_grad)


def test_getitem_on_leaf_grad_fn_and_accumulation():
    res = []
    for L in LIBS:
        x = L.tensor(ARR, requires_grad=True)
        y = x[[0, 0, 2], 1]
        z = x[0]
        (y.sum() * 2 + z.sum()).backward()
        res.append((y.grad_fn.name(), z.grad_fn.name(), x.grad.numpy().tolist()))
    assert res[0] == res[1]


def test_repeated_index_gradients_accumulate():
    res = []
    for L in LIBS:
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x[L.tensor([0, 0, 2, 0])].sum().backward()
        res.append(x.grad.tolist())
    assert res[0] == res[1] == [3.0, 0.0, 1.0]


def test_basic_index_result_is_view_that_writes_through():
    res = []
    for L in LIBS:
        x = L.tensor(ARR)
        v = x[1, ::2]
        v[0, 0] = -1.0
        w = x[[1]]
        w[0, 0, 0] = 99.0           # a copy: the base does not change
        res.append((x.numpy().tolist(), x._version, v._version, w._version))
    assert res[0] == res[1]


def test_book_indexing_examples():
    """Section 1.1.1.3/1.1.1.4 of the book: results and printed forms."""
    out = []
    for L in LIBS:
        a = L.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) - 5)
        x = L.arange(0, 27).view(3, 3, 3)
        lines = [repr(a[0]), repr(a[:, 0]), repr(a[0][2]), repr(a[0, -1]), repr(a[:2]),
                 repr(a[:2, 0:2]), repr(a[0:1, :2]), repr(a[0, :2]), str(a[None].shape),
                 str(a[:, None, :].shape), str(a[:, None, :, None, None].shape), repr(a > 1),
                 repr(a[a > 1]), repr(a[L.LongTensor([0, 1])]),
                 repr(x[[1, 2], [1, 2], [2, 0]]), repr(x[[2, 1, 0], [0], [1]]),
                 repr(x[[0, 2], ...]), repr(a[0, 0].item()), str(a[0:1, 0:1, None].shape)]
        out.append(lines)
    assert out[0] == out[1]


# ----------------------------------------------------------------------------------------------
# t[key] = value
# ----------------------------------------------------------------------------------------------

# (name, key builder, value builder (None: a Python float), value needs grad)
SET_CASES = [
    ("int_scalar", lambda L: 1, None),
    ("int_tensor_row", lambda L: 0, lambda L: L.tensor(np.ones((4, 5)) * 2)),
    ("broadcast_row", lambda L: 0, lambda L: L.tensor(np.arange(5.0))),
    ("leading_ones_value", lambda L: 0, lambda L: L.tensor(np.ones((1, 1, 5)))),
    ("slice_scalar", lambda L: slice(1, None), None),
    ("full_slice_scalar", lambda L: slice(None), None),
    ("ellipsis_scalar", lambda L: Ellipsis, None),
    ("ellipsis_tensor", lambda L: Ellipsis, lambda L: L.tensor(np.ones((4, 5)))),
    ("step_slice_tensor", lambda L: (slice(None), slice(None, None, 2)),
     lambda L: L.tensor(np.full((3, 2, 5), 3.0))),
    ("zero_d_value", lambda L: (0, 1), lambda L: L.tensor(5.0, dtype=L.float64)),
    ("none_key", lambda L: None, None),
    ("true_key", lambda L: True, None),
    ("false_key", lambda L: False, None),
    ("mask_scalar", lambda L: L.tensor(ARR > 4), None),
    ("mask_rows_broadcast", lambda L: L.tensor([True, False, True]),
     lambda L: L.tensor(np.arange(5.0))),
    ("mask_rows_tensor", lambda L: L.tensor([True, False, True]),
     lambda L: L.tensor(np.ones((2, 4, 5)))),
    ("long_index", lambda L: L.tensor([2, 0]), lambda L: L.tensor(np.ones((2, 4, 5)))),
    ("list_index_scalar", lambda L: [0, 2], None),
    ("adv_pairs", lambda L: ([0, 2], [1, 3]), lambda L: L.tensor(np.array([[7.0] * 5, [8.0] * 5]))),
    ("adv_with_int", lambda L: (0, [0, 1]), lambda L: L.tensor(np.arange(5.0))),
    ("adv_after_slice", lambda L: (slice(None), [0, 0]), lambda L: L.tensor(np.ones(5))),
    ("adv_separated", lambda L: ([0, 1], slice(None), [1, 2]),
     lambda L: L.tensor(np.arange(8.0).reshape(2, 4))),
    ("zero_d_index", lambda L: L.tensor(2), lambda L: L.tensor(np.ones(5) * 4)),
]


def _set(lib, key_fn, value_fn):
    x = lib.tensor(ARR)
    value = 9.5 if value_fn is None else value_fn(lib)
    before = x._version
    _quiet(x.__setitem__, key_fn(lib), value)
    return x.numpy().tolist(), x._version - before


@pytest.mark.parametrize("name,key_fn,value_fn", SET_CASES, ids=[c[0] for c in SET_CASES])
def test_setitem_values_match_torch(name, key_fn, value_fn):
    assert _set(cinder, key_fn, value_fn) == _set(torch, key_fn, value_fn)


def _set_grad(lib, key_fn, value_fn):
    a = lib.tensor(ARR, requires_grad=True)
    x = a * 2.0
    if value_fn is None:
        v = None
        value = 9.5
    else:
        v = value_fn(lib).requires_grad_()
        value = v * 3.0
    _quiet(x.__setitem__, key_fn(lib), value)
    name = x.grad_fn.name()
    (x * _weights(lib, x.shape)).sum().backward()
    grads = [np.round(a.grad.numpy(), 12).tolist()]
    if v is not None:
        grads.append(np.round(v.grad.numpy(), 12).tolist())
    return name, x.requires_grad, grads


SET_GRAD_CASES = [pytest.param(*c, id=c[0]) for c in SET_CASES]


@pytest.mark.parametrize("name,key_fn,value_fn", SET_GRAD_CASES)
def test_setitem_autograd_matches_torch(name, key_fn, value_fn):
    assert _set_grad(cinder, key_fn, value_fn) == _set_grad(torch, key_fn, value_fn)


def test_setitem_into_fresh_tensor_makes_it_require_grad():
    res = []
    for L in LIBS:
        w = L.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        out = L.zeros(4, 3, dtype=L.float64)
        for i in range(2):
            h = w[i] * (i + 1)
            out[i + 1] = h
        info = (out.requires_grad, out.is_leaf, out.grad_fn.name(), out._version)
        (out * _weights(L, (4, 3))).sum().backward()
        res.append(info + (w.grad.numpy().tolist(),))
    assert res[0] == res[1]


def test_setitem_then_view_grad_fn_names():
    res = []
    for L in LIBS:
        a = L.tensor(np.arange(6.0), requires_grad=True)
        x = a.clone()
        v = x[:3]
        v.mul_(2)
        res.append((x.grad_fn.name(), v.grad_fn.name(), x._version, v._version))
        (x * L.arange(6.0, dtype=L.float64)).sum().backward()
        res.append(a.grad.tolist())
    assert res[:2] == res[2:]


def test_setitem_with_dtype_conversion():
    res = []
    for L in LIBS:
        x = L.zeros(4, dtype=L.int64)
        x[0] = 2.7
        x[1] = L.tensor(3.9)
        x[2:] = L.tensor([-1.5, 8.2])
        b = L.zeros(3, dtype=L.bool)
        b[1] = 5
        res.append((x.tolist(), b.tolist()))
    assert res[0] == res[1]


# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------

GET_ERRORS = {
    "int_out_of_range": lambda L, x: x[5],
    "negative_out_of_range": lambda L, x: x[-4],
    "second_dim_out_of_range": lambda L, x: x[0, 4],
    "after_none_out_of_range": lambda L, x: x[None, 5],
    "slice_then_int_oob": lambda L, x: x[:, 7],
    "list_out_of_range": lambda L, x: x[[5]],
    "tensor_out_of_range": lambda L, x: x[L.tensor([0, 5])],
    "adv_second_dim_oob": lambda L, x: x[[0, 1], [0, 9]],
    "adv_after_slice_oob": lambda L, x: x[:, L.tensor([4])],
    "zero_d_tensor_oob": lambda L, x: x[L.tensor(5)],
    "too_many": lambda L, x: x[0, 0, 0],
    "too_many_mask": lambda L, x: x[L.tensor(np.ones((3, 4), bool)), 0],
    "float_tensor": lambda L, x: x[L.tensor([0.5])],
    "float_0d_tensor": lambda L, x: x[L.tensor(1.0)],
    "float_index": lambda L, x: x[1.5],
    "dict_index": lambda L, x: x[{1: 2}],
    "mask_wrong_shape": lambda L, x: x[L.tensor([True, False])],
    "mask_wrong_2d": lambda L, x: x[L.tensor([[True, False]])],
    "broadcast_mismatch": lambda L, x: x[[0, 1], [0, 1, 2]],
    "mask_and_long_mismatch": lambda L, x: x[L.tensor([True, False, True]), L.tensor([0, 1, 2])],
    "negative_step": lambda L, x: x[::-1],
    "zero_step": lambda L, x: x[::0],
    "index_0d_with_int": lambda L, x: x[0][0][0],
    "index_0d_in_tuple": lambda L, x: x[0, 0][0, ],
    "str_index": lambda L, x: x["a"],
}


@pytest.mark.parametrize("name", list(GET_ERRORS))
def test_getitem_errors_match_torch(name):
    arr = np.arange(12.0).reshape(3, 4)
    _, t_err = _outcome(lambda: _quiet(GET_ERRORS[name], torch, torch.tensor(arr)))
    _, c_err = _outcome(lambda: _quiet(GET_ERRORS[name], cinder, cinder.tensor(arr)))
    assert t_err is not None
    assert c_err == t_err


SET_ERRORS = {
    "list_value": lambda L, x: x.__setitem__(0, [1, 2, 3, 4]),
    "ndarray_value": lambda L, x: x.__setitem__(0, np.ones(4)),
    "none_value": lambda L, x: x.__setitem__(0, None),
    "str_value": lambda L, x: x.__setitem__(0, "a"),
    "complex_into_float": lambda L, x: x.__setitem__(0, 1 + 2j),
    "basic_shape_mismatch": lambda L, x: x.__setitem__(0, L.ones(3)),
    "basic_too_many_dims": lambda L, x: x.__setitem__(0, L.ones(2, 1, 4)),
    "adv_shape_mismatch": lambda L, x: x.__setitem__([0, 1], L.ones(3)),
    "mask_shape_mismatch": lambda L, x: x.__setitem__(L.tensor([True, False, True]),
                                                      L.ones(3, 4)),
    "adv_dtype_mismatch": lambda L, x: x.__setitem__([0, 1], L.ones(2, 4, dtype=L.float64)),
    "int_out_of_range": lambda L, x: x.__setitem__(5, 1.0),
    "list_out_of_range": lambda L, x: x.__setitem__([5], 1.0),
    "leaf_requires_grad": lambda L, x: x.requires_grad_().__setitem__(0, 1.0),
    "leaf_requires_grad_adv": lambda L, x: x.requires_grad_().__setitem__([0], 1.0),
    "leaf_requires_grad_all": lambda L, x: x.requires_grad_().__setitem__(Ellipsis, 1.0),
}


@pytest.mark.parametrize("name", list(SET_ERRORS))
def test_setitem_errors_match_torch(name):
    arr = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    _, t_err = _outcome(lambda: SET_ERRORS[name](torch, torch.tensor(arr)))
    _, c_err = _outcome(lambda: SET_ERRORS[name](cinder, cinder.tensor(arr)))
    assert t_err is not None
    assert c_err == t_err


def test_out_of_range_message_is_pytorchs():
    messages = []
    for lib in (torch, cinder):
        with pytest.raises(IndexError) as info:
            lib.zeros(3)[5]
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# ----------------------------------------------------------------------------------------------
# masked_fill, index_select, gather, scatter_add, nonzero, masked_select, index_put_
# ----------------------------------------------------------------------------------------------

M = np.arange(12.0).reshape(3, 4) - 4.5
MASK = (np.arange(12).reshape(3, 4) % 3) == 0

OP_CASES = {
    "masked_fill": lambda L, x: x.masked_fill(L.tensor(MASK), -1.0),
    "masked_fill_broadcast": lambda L, x: x.masked_fill(L.tensor([True, False, True, False]), 2),
    "masked_fill_tensor_value": lambda L, x: x.masked_fill(L.tensor(MASK), L.tensor(7.0)),
    "masked_fill_inplace": lambda L, x: x.clone().masked_fill_(L.tensor(MASK), 0.5),
    "index_select_0": lambda L, x: x.index_select(0, L.tensor([2, 0, 2])),
    "index_select_1": lambda L, x: L.index_select(x, 1, L.tensor([3, 1])),
    "index_select_int32": lambda L, x: x.index_select(1, L.tensor([0], dtype=L.int32)),
    "gather_1": lambda L, x: x.gather(1, L.tensor([[0, 0], [1, 0], [3, 2]])),
    "gather_0": lambda L, x: L.gather(x, 0, L.tensor([[0, 1, 2, 0]])),
    "gather_int32": lambda L, x: x.gather(1, L.tensor([[0], [3], [1]], dtype=L.int32)),
    "gather_wider_index": lambda L, x: x[:1].gather(1, L.tensor([[0, 1, 1, 3, 3]])),
    "scatter_value": lambda L, x: x.scatter(1, L.tensor([[0], [1], [2]]), -2.0),
    "scatter_src": lambda L, x: L.scatter(x, 0, L.tensor([[2, 0, 1, 1]]), x * 3),
    "scatter_inplace_add": lambda L, x: x.clone().scatter_(1, L.tensor([[0, 0]]), 2.0,
                                                            reduce="add"),
    "scatter_add": lambda L, x: x.scatter_add(0, L.tensor([[0, 1, 0, 0], [2, 2, 0, 1]]),
                                              x[:2] * 10),
    "scatter_add_inplace": lambda L, x: x.clone().scatter_add_(
        1, L.tensor([[0, 0], [1, 1], [3, 3]]), x[:, :2]),
    "nonzero": lambda L, x: (x > 0).nonzero(),
    "nonzero_tuple": lambda L, x: L.nonzero(x > 0, as_tuple=True),
    "nonzero_1d": lambda L, x: x[0].nonzero(),
    "masked_select": lambda L, x: x.masked_select(L.tensor(MASK)),
    "masked_select_broadcast": lambda L, x: L.masked_select(x, L.tensor([True, False, True,
                                                                         False])),
    "index_put_": lambda L, x: x.clone().index_put_((L.tensor([0, 2]), L.tensor([1, 1])),
                                                   L.tensor([5.0, 6.0], dtype=L.float64)),
    "index_put_accumulate": lambda L, x: x.clone().index_put_(
        (L.tensor([0, 0, 2]),), L.tensor(1.0, dtype=L.float64), accumulate=True),
    "index_put_list": lambda L, x: x.clone().index_put_(
        [L.tensor([0, 0]), L.tensor([1, 1])], L.tensor([1.0, 2.0], dtype=L.float64),
        accumulate=True),
    "index_put_mask": lambda L, x: L.index_put(x, (L.tensor([True, False, True]),),
                                               L.tensor(7.0, dtype=L.float64)),
}


def _op_outcome(lib, fn):
    x = lib.tensor(M)
    out = fn(lib, x)
    outs = out if isinstance(out, tuple) else (out,)
    return [(o.numpy().tolist(), str(o.dtype), tuple(o.shape), o.stride()) for o in outs]


@pytest.mark.parametrize("name", list(OP_CASES))
def test_indexing_ops_match_torch(name):
    assert _op_outcome(cinder, OP_CASES[name]) == _op_outcome(torch, OP_CASES[name])


GRAD_OPS = {
    "masked_fill": lambda L, x: x.masked_fill(L.tensor(MASK), -1.0),
    "index_select": lambda L, x: x.index_select(0, L.tensor([2, 0, 2])),
    "gather": lambda L, x: x.gather(1, L.tensor([[0, 0], [1, 0], [3, 2]])),
    "scatter_add_src": lambda L, x: L.zeros(3, 4, dtype=L.float64).scatter_add(
        1, L.tensor([[0, 0, 1, 1], [2, 2, 2, 2], [3, 0, 3, 0]]), x * 2),
    "masked_select": lambda L, x: x.masked_select(L.tensor(MASK)),
    "masked_select_broadcast": lambda L, x: x[:1].masked_select(L.tensor(MASK)),
    "scatter_src": lambda L, x: L.zeros(3, 4, dtype=L.float64).scatter(
        1, L.tensor([[0, 1, 2, 3], [2, 3, 0, 1], [3, 0, 1, 2]]), x * 2),
    "scatter_src_bigger": lambda L, x: L.zeros(3, 4, dtype=L.float64).scatter(
        1, L.tensor([[0, 1], [2, 3], [3, 0]]), x * 2),
    "scatter_self": lambda L, x: (x * 1).scatter(1, L.tensor([[0, 1], [2, 3], [3, 0]]), 0.5),
    "index_put": lambda L, x: L.index_put(x * 1, (L.tensor([0, 0, 2]),), x[1] * 3,
                                          accumulate=True),
}


def _op_grad(L, name):
    x = L.tensor(M, requires_grad=True)
    y = GRAD_OPS[name](L, x)
    (y * _weights(L, tuple(y.shape))).sum().backward()
    return y.grad_fn.name(), np.round(x.grad.numpy(), 12).tolist()


@pytest.mark.parametrize("name", list(GRAD_OPS))
def test_indexing_op_gradients_match_torch(name):
    # src larger than index is an error in PyTorch's backward; it must be the same error here.
    assert _outcome(lambda: _op_grad(cinder, name)) == _outcome(lambda: _op_grad(torch, name))


OP_ERRORS = {
    "masked_fill_float_mask": lambda L, x: x.masked_fill(L.tensor(MASK).float(), 1.0),
    "masked_fill_1d_value": lambda L, x: x.masked_fill(L.tensor(MASK), L.tensor([1.0])),
    "index_select_float_index": lambda L, x: x.index_select(0, L.tensor([0.0])),
    "index_select_2d_index": lambda L, x: x.index_select(0, L.tensor([[0]])),
    "gather_int16_index": lambda L, x: x.gather(1, L.tensor([[0]], dtype=L.int16)),
    "gather_too_big": lambda L, x: x.gather(1, L.tensor([[0]] * 4)),
    "gather_negative": lambda L, x: x.gather(1, L.tensor([[-1]])),
    "scatter_src_too_small": lambda L, x: x.scatter(1, L.tensor([[0, 1]]), L.ones(1, 1)),
    "scatter_dtype": lambda L, x: x.scatter(1, L.tensor([[0, 1]]), L.ones(1, 2)),
    "scatter_oob": lambda L, x: x.scatter(1, L.tensor([[5]]), 1.0),
    "gather_oob": lambda L, x: x.gather(1, L.tensor([[0], [7], [0]])),
    "gather_dims": lambda L, x: x.gather(1, L.tensor([0])),
    "index_put_not_tuple": lambda L, x: x.index_put_(L.tensor([0]), L.tensor(1.0)),
    "index_put_dtype": lambda L, x: x.index_put_((L.tensor([0]),), L.tensor(1.0)),
}


@pytest.mark.parametrize("name", list(OP_ERRORS))
def test_indexing_op_errors_match_torch(name):
    _, t_err = _outcome(lambda: OP_ERRORS[name](torch, torch.tensor(M)))
    _, c_err = _outcome(lambda: OP_ERRORS[name](cinder, cinder.tensor(M)))
    assert t_err is not None
    assert c_err == t_err


def test_notebook_gather_examples():
    """The notebook's torch.gather cells and the book's gather/scatter_ section."""
    out = []
    for L in LIBS:
        t = L.Tensor([[1, 2], [3, 4]])
        a = L.arange(0, 16).view(4, 4)
        index = L.LongTensor([[0, 1, 2, 3], [3, 2, 1, 0]]).t()
        b = a.gather(1, index)
        c = L.zeros(4, 4)
        lines = [repr(L.gather(t, 1, L.LongTensor([[0, 0], [1, 0]]))),
                 repr(L.gather(t, 0, L.LongTensor([[0, 0], [1, 0]]))),
                 repr(a.gather(0, L.LongTensor([[0, 1, 2, 3]]))),
                 repr(a.gather(1, L.LongTensor([[3, 2, 1, 0]]).t())),
                 repr(b), repr(c.scatter_(1, index, b.float()))]
        out.append(lines)
    assert out[0] == out[1]
