"""The Tensor API against PyTorch: dtypes, default dtype, Size, the NumPy bridge, Python
protocols, typed and legacy constructors, ``.type()`` and the book's tensor examples.

Most checks are expressions in ``L`` (the library); each is evaluated once with ``L = torch`` and
once with ``L = cinder`` and the outcomes compared: the ``repr`` of the value, or the exception
type and message.
"""

import warnings

import numpy as np
import pytest
import torch

import cinder
from oracle import check, warnings_in_fresh_process

LIBS = (torch, cinder)


DTYPE_EXPRS = [
    "L.float32", "L.float", "L.double", "L.half", "L.long", "L.int", "L.short", "L.cfloat",
    "L.cdouble", "L.bool", "L.uint8", "L.int8", "L.bfloat16", "L.complex128",
    "L.float32 is L.float", "L.float64 is L.double", "L.int64 is L.long",
    "str(L.int64)", "repr(L.float16)", "L.float32.itemsize", "L.complex64.itemsize",
    "L.bool.itemsize", "L.bfloat16.itemsize",
    "L.float32.is_floating_point", "L.bfloat16.is_floating_point", "L.int32.is_floating_point",
    "L.complex64.is_complex", "L.float32.is_complex", "L.int8.is_signed", "L.uint8.is_signed",
    "L.bool.is_signed", "L.complex64.is_signed", "L.float32.to_complex()",
    "L.complex128.to_real()", "L.float32.to_real()", "L.float64 == L.float64",
    "L.float32 == L.float64", "hash(L.float32) == hash(L.float)",
    "pickle.loads(pickle.dumps(L.float16)) is L.float16", "L.promote_types(L.int32, L.float16)",
    "L.promote_types(L.uint8, L.int8)", "L.get_default_dtype()",
    "L.tensor(1.5).dtype", "L.tensor(1).dtype", "L.tensor(True).dtype", "L.tensor(1j).dtype",
    "L.zeros(1).is_floating_point()", "L.zeros(1, dtype=L.int32).is_floating_point()",
    "L.zeros(1, dtype=L.complex64).is_complex()", "L.is_floating_point(L.zeros(1))",
    "L.is_complex(L.zeros(1))", "L.zeros(1, dtype=L.uint8).is_signed()",
    "L.zeros(2, 3).element_size()", "L.zeros(2, 3, dtype=L.float64).nbytes",
    "L.zeros(2, 3).itemsize", "L.zeros(2, dtype=L.int16).element_size()",
]


@pytest.mark.parametrize("expr", DTYPE_EXPRS)
def test_dtypes(expr):
    check(expr)


def test_set_default_tensor_type_warns_like_torch():
    code = "L.set_default_tensor_type('torch.DoubleTensor')"
    expected = warnings_in_fresh_process("torch", code)
    assert "deprecated" in expected
    assert warnings_in_fresh_process("cinder", code) == expected


def _default_dtype_effects(lib, dtype):
    old = lib.get_default_dtype()
    try:
        lib.set_default_dtype(dtype)
        return (repr(lib.get_default_dtype()), repr(lib.tensor([1.5]).dtype),
                repr(lib.zeros(1).dtype), repr(lib.tensor([1j]).dtype),
                repr(lib.Tensor(2).dtype), repr(lib.arange(0.0, 1.0).dtype),
                repr(lib.tensor([1]).dtype))
    finally:
        lib.set_default_dtype(old)


@pytest.mark.parametrize("name", ["float64", "float32"])
def test_set_default_dtype(name):
    assert _default_dtype_effects(cinder, getattr(cinder, name)) == \
        _default_dtype_effects(torch, getattr(torch, name))
    assert cinder.get_default_dtype() is cinder.float32


@pytest.mark.parametrize("expr", ["L.set_default_dtype(L.int64)",
                                  "L.set_default_dtype(L.complex64)",
                                  "L.set_default_dtype('a')"])
def test_set_default_dtype_errors(expr):
    try:
        check(expr)
    finally:
        torch.set_default_dtype(torch.float32)
        cinder.set_default_dtype(cinder.float32)


def _default_tensor_type(lib, t):
    """The book's section: set_default_tensor_type, then build and convert tensors."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.set_default_tensor_type(t)
        a = lib.Tensor(2, 3)
        result = [repr(a.dtype), repr(lib.get_default_dtype()), repr(lib.tensor([1.5]).dtype),
                   repr(lib.zeros(2).dtype), repr(lib.rand(2).dtype)]
        a = lib.zeros(2, 3)
        b = a.float()
        result += [repr(b.dtype), repr(a.type_as(b)), repr(a.new(2, 3).dtype),
                   repr(lib.zeros_like(a)), repr(lib.zeros_like(a, dtype=lib.int16)),
                   repr(a.new_ones(4, 5, dtype=lib.int)), repr(a.new_tensor([3, 4]))]
        return result
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.set_default_tensor_type("torch.FloatTensor")


@pytest.mark.parametrize("kind", ["torch.DoubleTensor", "DoubleTensor class", "torch.HalfTensor",
                                  "torch.LongTensor", "torch.cuda.FloatTensor", "foo",
                                  "torch.Foo", "dtype"])
def test_set_default_tensor_type(kind):
    def arg(lib):
        return {"DoubleTensor class": lib.DoubleTensor, "dtype": lib.float64}.get(kind, kind)
    try:
        assert _default_tensor_type(cinder, arg(cinder)) == _default_tensor_type(torch, arg(torch))
    finally:
        assert cinder.get_default_dtype() is cinder.float32
        assert torch.get_default_dtype() is torch.float32


SIZE_EXPRS = [
    "L.Size([2, 3])", "repr(L.Size([]))", "str(L.zeros(2, 3).shape)", "L.Size([2, 3]).numel()",
    "L.Size([]).numel()", "L.zeros(2, 0, 3).shape.numel()", "L.Size([2, 3])[1:]",
    "L.Size([2, 3])[0]", "L.Size([2, 3])[-1]", "L.Size([2, 3]) + (4,)", "(1,) + L.Size([2, 3])",
    "L.Size([2, 3]) + L.Size([4])", "L.Size([2, 3]) * 2", "L.Size([2, 3]) == (2, 3)",
    "L.Size([2, 3]) == [2, 3]", "isinstance(L.Size([1]), tuple)", "L.Size((L.tensor(2), 3))",
    "L.Size([2.0])", "L.Size(['a'])", "type(L.Size([2, 3]) + (4,)).__name__",
    "type(L.Size([2, 3])[1:]).__name__", "type(L.zeros(2, 3).shape).__name__",
    "L.zeros(2, 3).size(-1)", "L.zeros(2, 3).size(2)", "L.zeros(2, 3).size()",
    "pickle.loads(pickle.dumps(L.Size([2, 3])))", "hash(L.Size([2, 3])) == hash((2, 3))",
    "L.Size([2, 3]).count(2)", "L.Size([2, 3]).index(3)", "list(L.Size([4, 5]))",
    "L.zeros(2, 3).dim()", "L.zeros(2, 3).ndimension()", "L.zeros(2, 3).ndim",
    "L.zeros(2, 3).nelement()", "L.numel(L.zeros(2, 3))", "len(L.zeros(4, 2))",
    "L.Size([2, 3]) + [4]",
]


@pytest.mark.parametrize("expr", SIZE_EXPRS)
def test_size(expr):
    check(expr)


NUMPY_EXPRS = [
    "L.tensor([1.5, 2]).numpy()", "L.tensor([1.5, 2]).numpy().dtype",
    "L.tensor([1.5, 2], requires_grad=True).numpy()",
    "L.tensor([1.5, 2], requires_grad=True).detach().numpy()",
    "L.tensor([1.5, 2], requires_grad=True).numpy(force=True)",
    "np.asarray(L.tensor([1, 2]))", "np.asarray(L.tensor([1, 2])).dtype",
    "np.array(L.tensor([1., 2.]), dtype=np.int32)",
    "np.asarray(L.tensor([1.5, 2], requires_grad=True))", "np.exp(L.tensor([0., 1.]))",
    "L.tensor([[1., 2.], [3., 4.]]).t().numpy().strides",
    "L.from_numpy(np.arange(6.0).reshape(2, 3)).t().numpy().flags['C_CONTIGUOUS']",
    "L.from_numpy(np.array([1, 2], dtype=np.int16)).dtype",
    "L.from_numpy(np.array([1, 2], dtype=np.uint8)).dtype",
    "L.from_numpy(np.array(5.0))",
]


@pytest.mark.parametrize("expr", NUMPY_EXPRS)
def test_numpy_bridge(expr):
    check(expr)


def test_numpy_shares_memory_both_ways():
    res = []
    for L in LIBS:
        a = np.ones((2, 3), dtype=np.float32)
        b = L.from_numpy(a)
        c = L.Tensor(a)
        a[0, 1] = 100
        n = b.numpy()
        n[1, 2] = -1
        d = L.Tensor(np.ones((2, 3)))           # float64 data: copied into float32
        e = L.tensor(a)
        a[0, 0] = 7
        res.append((repr(b), repr(c), repr(d), repr(e), np.shares_memory(n, a),
                    b.data_ptr() == c.data_ptr(), repr(L.from_numpy(np.arange(3))[1:])))
    assert res[0] == res[1]


PROTOCOL_EXPRS = [
    "L.tensor(3.5).item()", "L.tensor([3]).item()", "L.tensor([[3]]).item()",
    "L.tensor([1, 2]).item()", "L.tensor([]).item()", "L.tensor(True).item()",
    "type(L.tensor(2, dtype=L.int32).item()).__name__",
    "type(L.tensor(2.0, dtype=L.float16).item()).__name__", "L.tensor(1+2j).item()",
    "L.tensor([[1, 2], [3, 4]]).tolist()", "L.tensor(5).tolist()", "L.tensor([1.5]).tolist()",
    "L.tensor([True]).tolist()", "int(L.tensor(3.7))", "int(L.tensor([3.7]))",
    "int(L.tensor([3.7, 1]))", "float(L.tensor(3))", "float(L.tensor([1, 2]))",
    "bool(L.tensor(0.0))", "bool(L.tensor([1, 2]))", "bool(L.tensor([]))",
    "complex(L.tensor(2.0))", "complex(L.tensor(1+1j))", "L.tensor(3).__index__()",
    "[0, 1, 2, 3, 4][L.tensor(3)]", "[0, 1, 2, 3, 4][L.tensor(3.0)]",
    "[0, 1, 2, 3, 4][L.tensor([3])]", "range(10)[L.tensor(2, dtype=L.int8)]",
    "len(L.tensor(3))", "list(L.tensor([1, 2]))", "list(L.tensor(3))",
    "[t.shape for t in L.zeros(2, 3)]", "2 in L.tensor([1, 2])", "5 in L.tensor([1, 2])",
    "L.tensor([1]) in L.tensor([1, 2])", "'a' in L.tensor([1, 2])", "[1] in L.tensor([1, 2])",
    "(lambda t: hash(t) == hash(t) and {t: 1}[t])(L.tensor([1, 2]))",
    "(lambda a, b: len({a, b}))(L.tensor(1), L.tensor(1))",
    "format(L.tensor(3.14159), '.2f')", "format(L.tensor([3.14159]), '.2f')",
    "'{}'.format(L.tensor(2))", "'{:>6}'.format(L.tensor(2))", "f'{L.tensor(0.5):.3f}'",
    "copy.deepcopy(L.tensor([1., 2.], requires_grad=True))", "copy.copy(L.tensor([1., 2.]))",
    "pickle.loads(pickle.dumps(L.tensor([1., 2.])))",
    "copy.deepcopy(L.tensor([1., 2.], requires_grad=True) * 2)",
    "L.is_tensor(L.zeros(1))", "L.is_tensor(np.zeros(1))", "L.is_nonzero(L.tensor([1.5]))",
    "L.is_nonzero(L.tensor([1, 2]))", "L.is_nonzero(L.tensor([]))",
    "L.zeros(2).is_leaf", "L.zeros(2).requires_grad", "L.zeros(2).grad", "L.zeros(2).grad_fn",
    "L.zeros(2, 3).layout", "L.zeros(2).is_shared()", "L.zeros(2).is_pinned()",
    "L.zeros(2).is_sparse", "L.zeros(2).is_quantized", "L.zeros(2).is_meta",
    "L.zeros(2).is_cpu", "L.zeros(2).is_cuda", "L.zeros(2).get_device()", "L.zeros(2).device",
]


@pytest.mark.parametrize("expr", PROTOCOL_EXPRS)
def test_python_protocols(expr):
    check(expr)


TYPE_EXPRS = [
    "L.zeros(2, 3).type()", "L.zeros(2, 3, dtype=L.int64).type()",
    "L.zeros(2, 3).type(L.float64).dtype", "L.zeros(2, 3).type('torch.IntTensor').dtype",
    "L.zeros(2, 3).type(L.LongTensor).dtype", "L.zeros(2, 3).type('torch.Foo')",
    "(lambda t: t.type(L.float32) is t)(L.zeros(2))",
    "(lambda t: t.type(L.float64) is t)(L.zeros(2))",
    "(lambda t: t.type('torch.FloatTensor') is t)(L.zeros(2))",
    "L.zeros(2, 3).long().type()", "L.zeros(2, 3).half().type()", "L.zeros(2, 3).bool().type()",
    "L.zeros(2, 3).byte().type()", "L.zeros(2, 3).char().type()", "L.zeros(2, 3).short().type()",
    "L.zeros(2, 3).int().type()", "L.zeros(2, 3).bfloat16().type()",
    "L.zeros(2, dtype=L.complex64).type()", "L.zeros(2, dtype=L.complex128).type()",
    "L.zeros(2).double().type()",
]


@pytest.mark.parametrize("expr", TYPE_EXPRS)
def test_type_strings_and_conversions(expr):
    check(expr)


CONSTRUCTOR_EXPRS = [
    "L.FloatTensor(2, 3).shape", "L.FloatTensor(2, 3).dtype", "L.LongTensor([1, 2])",
    "L.FloatTensor([[1, 2]])", "L.DoubleTensor(L.Size([2])).shape", "L.IntTensor(2.5)",
    "L.FloatTensor(L.zeros(2, dtype=L.float64))", "L.FloatTensor(L.zeros(2, dtype=L.int64))",
    "L.FloatTensor(L.zeros(2))", "L.FloatTensor(np.zeros(2))",
    "L.Tensor(2, 3).dtype", "L.Tensor(2, 3).shape", "L.Tensor([1, 2])", "L.Tensor()",
    "L.Tensor(np.array([1, 2]))", "L.Tensor(np.array([1.5, 2], dtype=np.float32))",
    "L.Tensor(3.5)", "L.Tensor('a')", "L.Tensor([[1, 2], [3]])", "L.Tensor(2, dtype=L.float64)",
    "L.Tensor(2, 3, foo=1)", "L.FloatTensor([1], requires_grad=True)",
    "L.Tensor(2, device='cpu').shape", "L.Tensor((2, 3))", "L.Tensor(L.Size([2, 3])).shape",
    "L.Tensor(L.tensor([1, 2]))", "L.LongTensor(L.tensor([1, 2]))", "L.Tensor(-1)",
    "L.Tensor(2, 3.0)", "L.Tensor([1, 'a'])", "L.Tensor([1, None])", "L.Tensor(None)",
    "L.Tensor(range(3))", "L.Tensor(L.Size([])).shape", "L.Tensor(())", "L.Tensor([[]])",
    "L.Tensor(np.float64(2.5))", "L.Tensor([L.tensor(1.), L.tensor(2.)])",
    "L.Tensor(2, 0).shape", "L.Tensor([]).shape", "L.Tensor(2, 3, device='cuda')",
    "L.BoolTensor([1, 0])", "L.HalfTensor(2).dtype", "L.BFloat16Tensor(2).dtype",
    "L.ByteTensor([1, 2])", "L.CharTensor([1, 2])", "L.ShortTensor([1, 2])",
    "(lambda t: L.Tensor(t) is t)(L.zeros(2))",
    "(lambda t: L.Tensor(t).data_ptr() == t.data_ptr())(L.zeros(2))",
    ("(lambda t: (L.Tensor(t)._base is t, L.Tensor(t).requires_grad, L.Tensor(t).grad_fn.name()))"
    "(L.zeros(2, requires_grad=True))"),
    "L.Tensor(np.array([1, 2], dtype=np.float32)[::2]).stride()",
    "L.Tensor(np.ones((2, 2), dtype=np.float32).T).stride()",
    "L.Tensor(np.arange(6, dtype=np.float32)[2:]).storage_offset()",
    "L.Tensor(np.array(3., dtype=np.float32))",
    "L.zeros(2, dtype=L.int32).new(2, 3).dtype", "L.zeros(2, dtype=L.int32).new([1.7, 2])",
    "L.zeros(2, dtype=L.int32).new(L.zeros(2))", "L.zeros(2, dtype=L.int32).new()",
    "L.zeros(2, dtype=L.int32).new(np.array([1, 2]))",
    "L.zeros(2, dtype=L.int32).new((2, 3)).shape", "L.zeros(2).new(L.Size([2, 3])).shape",
    "L.zeros(2).new(2, dtype=L.float64)",
    "isinstance(L.zeros(2), L.FloatTensor)",
    "isinstance(L.zeros(2, dtype=L.float64), L.FloatTensor)",
    "isinstance(L.zeros(2, dtype=L.float64), L.DoubleTensor)", "isinstance(L.zeros(2), L.Tensor)",
    "isinstance(L.zeros(2), L.cuda.FloatTensor)", "isinstance(L.LongTensor([1]), L.LongTensor)",
    "L.FloatTensor", "L.cuda.FloatTensor", "L.FloatTensor.__name__", "L.FloatTensor.dtype",
    "L.LongTensor.is_cuda", "L.cuda.LongTensor.is_cuda", "L.cuda.FloatTensor(2)",
    "L.cuda.FloatTensor([1, 2])", "L.cuda.LongTensor()",
    "type(L.FloatTensor(2)).__name__", "type(L.Tensor([1])).__name__",
]


@pytest.mark.parametrize("expr", CONSTRUCTOR_EXPRS)
def test_typed_and_legacy_constructors(expr):
    check(expr)


MISC_EXPRS = [
    "L.zeros(2, 3).is_contiguous()", "L.zeros(2, 3).t().contiguous().is_contiguous()",
    "(lambda t: t.contiguous() is t)(L.zeros(2, 3))",
    "(lambda t: t.clone().data_ptr() != t.data_ptr())(L.zeros(2, 3))",
    "L.zeros(2, 3).t().clone().stride()", "L.zeros(2, 3)[:, ::2].clone().stride()",
    "L.zeros(2, 3).t().contiguous().stride()",
    "L.zeros(2, 3).is_set_to(L.zeros(2, 3))",
    "(lambda t: t.is_set_to(t.view(2, 3)))(L.zeros(2, 3))",
    "(lambda t: t.is_set_to(t[:]))(L.zeros(2, 3))",
    "L.zeros(0, 3).stride()", "L.zeros(3, 0, 2).stride()", "L.empty(0).data_ptr()",
    "L.zeros(2, 1, 3).stride()", "L.ones(1, 1).stride()", "L.zeros(()).stride()",
    "L.zeros(2, 0).is_contiguous()",
]


@pytest.mark.parametrize("expr", MISC_EXPRS)
def test_layout_queries(expr):
    check(expr)


# ----------------------------------------------------------------------------------------------
# The book's chapter 3 (section 1.1) and the notebook, run on both libraries
# ----------------------------------------------------------------------------------------------

BOOK_TENSOR = """
b = L.Tensor([[1, 2, 3], [4, 5, 6]])
out.append(b)
b = L.tensor([[1, 2, 3], [4, 5, 6]])
out.append(b)
out.append(b.tolist())
b_size = b.size()
out.append(b_size)
out.append(b.numel())
c = L.Tensor(b_size)
d = L.Tensor((2, 3))
out.append((c.shape, d))
out.append(c.shape)
out.append(L.ones(2, 3))
out.append(L.zeros(2, 3))
out.append(L.arange(1, 6, 2))
out.append(L.linspace(1, 10, 3))
out.append(L.eye(2, 3, dtype=L.int))
scalar = L.tensor(3.14159)
out.append('scalar: %s, shape of sclar: %s' % (scalar, scalar.shape))
vector = L.tensor([1, 2])
out.append('vector: %s, shape of vector: %s' % (vector, vector.shape))
tensor = L.Tensor(1, 2)
out.append(tensor.shape)
matrix = L.tensor([[0.1, 1.2], [2.2, 3.1], [4.9, 5.2]])
out.append((matrix, matrix.shape))
out.append(L.tensor([[0.11111, 0.222222, 0.3333333]], dtype=L.float64, device=L.device('cpu')))
empty_tensor = L.tensor([])
out.append(empty_tensor.shape)
a = L.arange(0, 6)
out.append(a.view(2, 3))
b = a.view(-1, 3)
out.append(b.shape)
out.append(b.unsqueeze(1))
out.append(b[:, None].shape)
out.append(b.unsqueeze(-2))
c = b.view(1, 1, 1, 2, 3)
out.append(c.squeeze(0))
out.append(c.squeeze())
a[1] = 100
out.append(b)
b.resize_(1, 3)
out.append(b)
b.resize_(3, 3)
out.append((b.shape, b[:2]))
"""

BOOK_BROADCAST = """
a = L.ones(3, 2)
b = L.zeros(2, 3, 1)
out.append(a + b)
out.append(a[None].expand(2, 3, 2) + b.expand(2, 3, 2))
e = a.unsqueeze(0).expand(10000000000000, 3, 2)
out.append((e.shape, e.stride()))
a = L.randn(3, 4)
out.append(a.device)
device = L.device('cpu')
out.append(a.to(device) is a)
"""

NOTEBOOK_TENSOR = """
x = L.Tensor(L.randn(3, 2))
out.append(x.shape)
out.append(L.is_tensor(x))
out.append(L.is_storage(x))
out.append(L.numel(x))
out.append(L.eye(5, 2))
L.eye(5, 2, out=x)
out.append(x)
a = np.array([1, 2, 3])
x = L.from_numpy(a)
out.append(x)
x[0] = 100
out.append(a)
out.append(L.linspace(start=1, end=100, steps=10))
out.append(L.logspace(start=1, end=4, steps=10))
out.append(L.ones(2, 5))
out.append(L.range(1, 4, step=1))
out.append(L.zeros(2, 3))
x = L.tensor([[0.2282, 2.0519, 0.1840], [-1.5891, -0.3069, -0.5706]])
out.append(L.cat((x, x, x), 0))
out.append(L.cat((x, x, x), 1))
y = L.cat((x, x, x), 1)
out.append(L.chunk(y, 2))
out.append(L.chunk(y, 3, dim=1))
out.append(y.size())
"""


@pytest.mark.parametrize("name,code", [("book_tensor", BOOK_TENSOR),
                                       ("book_broadcast", BOOK_BROADCAST),
                                       ("notebook_tensor", NOTEBOOK_TENSOR)])
def test_seed_snippets_print_the_same(name, code):
    outputs = []
    for L in LIBS:
        out = _Printed()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(code, {"L": L, "np": np, "out": out})
        outputs.append(out)
    assert outputs[1] == outputs[0]


class _Printed(list):
    """Records the repr of each value when it is appended (as a notebook prints a cell)."""

    def append(self, value):
        super().append(repr(value))


@pytest.mark.parametrize("expr", ["L.finfo(L.float32)", "L.finfo(L.float64)", "L.finfo(L.float16)",
                                  "L.finfo(L.bfloat16)", "L.finfo()", "L.finfo(L.complex64)",
                                  "L.iinfo(L.int8)", "L.iinfo(L.uint8)", "L.iinfo(L.int64)",
                                  "L.iinfo(L.int32)", "L.finfo(L.int64)", "L.iinfo(L.float32)"])
def test_finfo_iinfo(expr):
    got = {}
    for name, L in (("torch", torch), ("cinder", cinder)):
        try:
            got[name] = repr(eval(expr, {"L": L}))
        except Exception as e:
            got[name] = type(e).__name__
    assert got["cinder"] == got["torch"]


# Assigning .data: PyTorch refuses a non-tensor, and an integer tensor for a tensor that requires
# grad (an nn.Parameter, say); a plain tensor takes any dtype.
DATA_SETTER = [
    "(lambda t: setattr(t, 'data', L.tensor([1, 2])) or t)(L.randn(2, requires_grad=True))",
    "(lambda t: setattr(t, 'data', L.tensor([1, 2])) or t)(L.nn.Parameter(L.randn(2)))",
    "(lambda t: setattr(t, 'data', L.tensor([1, 2])) or t)(L.randn(2))",
    "(lambda t: setattr(t, 'data', 3) or t)(L.randn(2))",
    ("(lambda t: setattr(t, 'data', L.ones(3, dtype=L.float64)) or t)"
     "(L.zeros(2, requires_grad=True))"),
]


@pytest.mark.parametrize("expr", DATA_SETTER)
def test_data_setter(expr):
    check(expr)
