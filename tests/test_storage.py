"""Storages against PyTorch: ``untyped_storage()``, the typed ``storage()``, memory sharing,
``storage_offset``/``data_ptr``, ``resize_``/``resize_as_``/``set_`` and ``Tensor(storage)``,
with the book's "internal structure" section (1.1.3) run on both libraries.
"""

import warnings

import pytest
import torch

import cinder
from oracle import outcome, warnings_in_fresh_process

LIBS = (torch, cinder)


STORAGE_EXPRS = [
    "L.zeros(2, 3).untyped_storage().nbytes()", "L.zeros(2, 3).untyped_storage().size()",
    "len(L.zeros(2, 3).untyped_storage())",
    "L.zeros(2, 3, dtype=L.float64)[1].untyped_storage().nbytes()",
    "L.zeros(2, 3).untyped_storage().element_size()", "L.zeros(2, 3).untyped_storage().device",
    "L.zeros(2, 3).untyped_storage().type()", "L.zeros(2, 3).untyped_storage().is_cuda",
    "L.tensor([1, 2], dtype=L.uint8).untyped_storage().tolist()",
    "L.tensor([1, 2], dtype=L.int16).untyped_storage().tolist()",
    "L.tensor([1, 2], dtype=L.int16).untyped_storage()",
    "str(L.tensor([1, 2], dtype=L.int16).untyped_storage())",
    "L.tensor([1, 2], dtype=L.int16).untyped_storage()[1:3]",
    "L.tensor([1, 2], dtype=L.int16).untyped_storage()[-1]",
    "L.tensor([1, 2], dtype=L.int16).untyped_storage()[4]",
    "list(L.tensor([1], dtype=L.int16).untyped_storage())",
    "(lambda u: u[1:3].data_ptr() - u.data_ptr())(L.zeros(2).untyped_storage())",
    "(lambda u: u.cpu() is u)(L.zeros(2).untyped_storage())",
    "L.zeros(2).untyped_storage().is_shared()",
    "L.UntypedStorage(3).nbytes()", "L.UntypedStorage([1, 2, 3]).tolist()",
    "L.UntypedStorage(4).fill_(1).tolist()", "L.UntypedStorage(3).device",
    "L.zeros(3).untyped_storage().copy_(L.ones(3).untyped_storage()).tolist()[:4]",
    "L.zeros(2).untyped_storage().resize_(3).nbytes()",
    ("(lambda u: (u.clone().data_ptr() != u.data_ptr(), u.clone().tolist()))"
    "(L.ones(1, dtype=L.int16).untyped_storage())"),
    "L.tensor([1., 2.]).storage()", "L.tensor([1, 2]).storage()",
    "L.tensor([True, False]).storage()", "L.tensor([1+2j]).storage()",
    "L.tensor([1.5, 2, -3.25e-5]).storage()", "L.tensor([], dtype=L.float32).storage()",
    "L.tensor([1.5], dtype=L.float16).storage()", "str(L.tensor([1, 2]).storage())",
    "L.tensor([1, 2]).storage().dtype", "L.tensor([1, 2]).storage().size()",
    "len(L.tensor([1, 2]).storage())", "L.tensor([1, 2]).storage().tolist()",
    "L.tensor([1, 2]).storage()[1]", "type(L.tensor([1., 2]).storage()[1]).__name__",
    "L.tensor([1, 2]).storage()[-1]", "L.tensor([1, 2]).storage()[2]",
    "L.tensor([1., 2., 3.]).storage()[1:]", "L.tensor([1, 2]).storage().element_size()",
    "L.tensor([1, 2]).storage().nbytes()", "L.tensor([1, 2])[1:].storage().size()",
    "L.tensor([1, 2])[1:].storage().tolist()", "type(L.tensor([1, 2]).storage()).__name__",
    "type(L.tensor([1, 2]).untyped_storage()).__name__", "L.tensor([1., 2.]).storage().device",
    "L.tensor([1., 2.]).storage().type()", "L.tensor([1., 2.]).storage().is_cuda",
    "L.tensor([1, 2]).untyped_storage().data_ptr() == L.tensor([1, 2]).data_ptr()",
    "(lambda t: t.storage().data_ptr() == t.untyped_storage().data_ptr())(L.zeros(3))",
    "(lambda t: t[1:].untyped_storage().data_ptr() == t.data_ptr())(L.zeros(3))",
    "list(L.tensor([1, 2]).storage())", "L.tensor([1., 2., 3.]).storage().tolist()",
    "L.FloatStorage", "L.LongStorage", "L.FloatStorage(3).size()", "L.FloatStorage([1, 2])",
    "L.LongStorage(2).size()", "type(L.FloatStorage(2)).__name__", "L.TypedStorage(3).dtype",
    "L.TypedStorage([1, 2, 3], dtype=L.int32).tolist()", "L.FloatStorage([1, 2]).tolist()",
    "isinstance(L.zeros(2).storage(), L.FloatStorage)",
    "isinstance(L.zeros(2).storage(), L.LongStorage)",
    "isinstance(L.zeros(2).storage(), L.TypedStorage)",
    "isinstance(L.zeros(2).untyped_storage(), L.UntypedStorage)",
    ("(lambda s: (s.clone().data_ptr() != s.data_ptr(), s.clone().tolist()))"
    "(L.ones(2).storage())"),
    "L.zeros(3).storage().fill_(2.5).tolist()",
    "pickle.loads(pickle.dumps(L.tensor([1., 2.]).storage())).tolist()",
    "L.zeros(2).storage().double().dtype", "L.zeros(2).storage().long().tolist()",
    "L.zeros(2).storage().float().dtype", "L.tensor([1.5]).storage().int().tolist()",
    "L.zeros(2).storage().pickle_storage_type()", "L.is_storage(L.zeros(1).untyped_storage())",
    "L.is_storage(L.zeros(1).storage())", "L.is_storage(L.zeros(1))",
    "L.zeros(3).storage().resize_(5)", "len(L.zeros(3).storage()._untyped_storage)",
]


@pytest.mark.parametrize("expr", STORAGE_EXPRS)
def test_storage_api(expr):
    assert outcome(expr, cinder) == outcome(expr, torch), expr


def test_writes_through_storages_reach_tensors():
    res = []
    for L in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = L.tensor([1.0, 2.0, 3.0])
            x.storage()[0] = 9
            s = x.storage()
            s[1:3] = 5
            u = x.untyped_storage()
            u[0:4] = L.tensor([-2.0]).untyped_storage()[0:4].tolist() and 0
            y = L.tensor([1, 2], dtype=L.int16)
            y.untyped_storage()[0] = 7
            res.append((x.tolist(), y.tolist()))
    assert res[0] == res[1]


BOOK_STORAGE = """
a = L.arange(0, 6)
out.append(a.storage())
b = a.view(2, 3)
out.append(b.storage())
out.append(id(b.storage()) == id(a.storage()))
a[1] = 100
out.append(b)
c = a[2:]
out.append(c.storage())
out.append(c.data_ptr() - a.data_ptr())
c[0] = -100
out.append(a)
d = L.LongTensor(c.storage())
d[0] = 6666
out.append(b)
out.append(id(a.storage()) == id(b.storage()) == id(c.storage()) == id(d.storage()))
out.append((a.storage_offset(), c.storage_offset(), d.storage_offset()))
e = b[::2, ::2]
out.append(id(e.storage()) == id(a.storage()))
out.append((b.stride(), e.stride()))
out.append(e.is_contiguous())
out.append(e.contiguous().is_contiguous())
out.append(e.contiguous().untyped_storage().data_ptr() != a.untyped_storage().data_ptr())
"""


def test_book_internal_structure_section():
    outputs = []
    for L in LIBS:
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(BOOK_STORAGE, {"L": L, "out": out, "repr": repr})
        outputs.append([repr(o) for o in out])
    assert outputs[1] == outputs[0]


# ----------------------------------------------------------------------------------------------
# resize_, resize_as_, set_, Tensor(storage)
# ----------------------------------------------------------------------------------------------

RESIZE_EXPRS = [
    "(lambda a: (a.resize_(2, 2).tolist(), a._version, a.stride()))(L.arange(6))",
    ("(lambda b: (b.resize_(1, 3).tolist(), b._version, b._base is not None))"
    "(L.arange(6).view(2, 3))"),
    "(lambda b: (b.resize_(3, 3).shape, b[:2].tolist()))(L.arange(6).view(2, 3))",
    "(lambda z: (z.resize_(2).tolist(), z.storage_offset()))(L.arange(6.).view(2, 3)[:, 1:])",
    ("(lambda z: (z.resize_(6).storage_offset(), z.untyped_storage().nbytes(), z[:4].tolist()))"
    "(L.arange(6.)[2:])"),
    "L.zeros(2, 3).t().resize_(3, 2).stride()", "L.zeros(2, 3).t().resize_(6).stride()",
    "L.zeros(2, 3).resize_as_(L.zeros(3, 1)).stride()",
    "L.zeros(2, 3).resize_(L.Size([3, 2])).shape", "L.zeros(2, 3).resize_((1, 6)).shape",
    "L.zeros(3, requires_grad=True).resize_(2)", "(L.zeros(3, requires_grad=True) * 1).resize_(2)",
    "L.zeros(3, requires_grad=True).resize_as_(L.zeros(2))", "L.zeros(3).resize_(-1)",
    ("(lambda y, z: (z.set_(y)._version, z.data_ptr() == y.data_ptr(), z.shape, z.stride()))"
    "(L.arange(6.), L.zeros(1))"),
    ("(lambda y, z: (z.set_(y.untyped_storage(), 1, (2, 2), (1, 2)), z._version))"
    "(L.arange(6.), L.zeros(1))"),
    "(lambda y, z: z.set_(y.storage()))(L.arange(6.), L.zeros(1))",
    "(lambda y, z: z.set_(y.untyped_storage()))(L.arange(6.), L.zeros(1))",
    "(lambda y, z: z.set_(y.untyped_storage(), 2))(L.arange(6.), L.zeros(1))",
    "(lambda y, z: z.set_(y, 2))(L.arange(6.), L.zeros(1))",
    ("(lambda y, z: (z.set_(y, 2, (2,), (2,)), z.storage_offset(), z.data_ptr() - y.data_ptr()))"
    "(L.arange(6.), L.zeros(1))"),
    "L.zeros(1, dtype=L.int64).set_(L.arange(6.))",
    "L.zeros(1, dtype=L.int64).set_(L.arange(6.).storage())",
    "(lambda z: (z.set_(), z.shape, z.stride(), z._version))(L.zeros(2))",
    "L.zeros(3, requires_grad=True).set_()",
    "L.zeros(3, requires_grad=True).set_(L.zeros(2))",
    ("(lambda y: (L.Tensor(y.untyped_storage()), L.Tensor(y.untyped_storage()).data_ptr() == "
    "y.data_ptr()))(L.arange(4.))"),
    "L.LongTensor(L.zeros(2, dtype=L.int64).untyped_storage())",
    "L.Tensor(L.zeros(2, dtype=L.int64).storage())",
    "L.LongTensor(L.zeros(2, dtype=L.int64).storage())",
    "L.Tensor(L.zeros(2).storage()).shape",
    "(lambda s: L.Tensor(s).storage_offset())(L.arange(6.)[2:].storage())",
    "L.zeros(2, dtype=L.int32).new(L.zeros(2, dtype=L.int32).untyped_storage())",
]


@pytest.mark.parametrize("expr", RESIZE_EXPRS)
def test_resize_set_and_storage_constructors(expr):
    assert outcome(expr, cinder) == outcome(expr, torch), expr


def test_set_shares_memory_with_the_source():
    res = []
    for L in LIBS:
        y = L.arange(6.0)
        z = L.zeros(1)
        z.set_(y.untyped_storage(), 1, (2, 2), (1, 2))
        z[0, 0] = -1
        w = L.Tensor(y.untyped_storage())
        w[5] = 50
        res.append((y.tolist(), z.tolist(), w.tolist()))
    assert res[0] == res[1]


def test_typed_storage_deprecation_warning_matches_torch():
    # PyTorch warns on the first use only, so each library runs in a fresh interpreter.
    code = "L.arange(3).storage()"
    expected = warnings_in_fresh_process("torch", code)
    assert "TypedStorage is deprecated" in expected
    assert warnings_in_fresh_process("cinder", code) == expected
