"""The limited unsigned dtypes (uint16, uint32, uint64) against PyTorch 2.13's CPU kernels.

PyTorch builds only some kernels for these types; cinder's op table says which ops refuse them
(``cinder/ops/limited_uint.py``). The sweep runs every op_db entry that has integer samples
with its integer tensors made unsigned (all of them, and only the first one, so the other
operand keeps its signed type and promotion decides), plus the Python operators, mixed
operands, empty inputs, layout-dependent kernels and factories. PyTorch's outcome is the
oracle: the same exception type and, for the kernel and promotion refusals, the same message;
otherwise the same result (dtype, shape, values).
"""

import re
import warnings

import numpy as np
import pytest
import torch
from op_db import T, Sample, assert_same, build

import cinder
from test_ops import ENTRIES

UINTS = ("uint16", "uint32", "uint64")
_SIGNED = ("int64", "int32", "int16", "int8", "uint8")
# messages compared word for word (the others, e.g. an index argument's dtype check, by type)
_EXACT = re.compile(r"not implemented for|Promotion for uint16")


def _unsigned(v, ud, budget, sources=_SIGNED):
    """``v`` with its tensors of a ``sources`` dtype (the first ``budget[0]`` of them) made
    ``ud`` (float values rounded, all of them made non-negative)."""
    if isinstance(v, T):
        if v.dtype in sources and budget[0] > 0:
            budget[0] -= 1
            values = np.nan_to_num(np.abs(np.round(v.array.astype(np.float64))))
            return T(np.minimum(values, 2**15).astype(ud), ud, v.layout, grad=False)
        return v
    if isinstance(v, list):
        return [_unsigned(x, ud, budget, sources) for x in v]
    if isinstance(v, tuple):
        return tuple(_unsigned(x, ud, budget, sources) for x in v)
    if isinstance(v, dict):
        return {k: _unsigned(x, ud, budget, sources) for k, x in v.items()}
    return v


# (mode, source dtypes, how many tensors are made unsigned): all integer tensors; only the
# first (the other operand keeps its signed type); the float tensors of float-only entries
_MODES = (("all", _SIGNED, 99), ("first", _SIGNED, 1), ("float", ("float32",), 99))


def _sweep_cases():
    cases = []
    for e in ENTRIES:
        src = next((d for d in ("int64", "int32") if d in e.dtypes), None)
        modes = _MODES[:2]
        if src is None:
            if "float32" not in e.dtypes:
                continue
            src, modes = "float32", _MODES[2:]
        for i, s in enumerate(e.sample_list(src)[: 2 if src != "float32" else 1]):
            for mode, sources, n in modes:
                if mode == "first" and i:
                    continue
                budget = [n]
                _unsigned((s.args, s.kwargs), "uint64", budget, sources)
                if budget[0] == n:  # no tensor to convert in this sample
                    continue
                for ud in UINTS:
                    cases.append(
                        pytest.param(e, s, ud, (sources, n), id=f"{e.name}-{i}-{mode}-{ud}")
                    )
    return cases


def _call(lib, entry, sample, ud, sources, n):
    budget = [n]
    args, kwargs = _unsigned((sample.args, sample.kwargs), ud, budget, sources)
    args, kwargs, _ = build(lib, Sample(*args, **kwargs))
    return _outcome(lambda: entry.call(lib, *args, **kwargs))


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as exc:  # noqa: BLE001 -- compared with PyTorch's below
            return None, exc


def _same_outcome(c, t, tol=None):
    (c_out, c_exc), (t_out, t_exc) = c, t
    if t_exc is not None:
        assert c_exc is not None, (
            f"PyTorch raised {type(t_exc).__name__}: {t_exc}; cinder returned {c_out!r}"
        )
        assert type(c_exc).__name__ == type(t_exc).__name__, f"{c_exc!r} vs PyTorch's {t_exc!r}"
        if _EXACT.search(str(t_exc)):
            assert str(c_exc).split("\n")[0] == str(t_exc).split("\n")[0]
        return
    if c_exc is not None:
        raise AssertionError(f"cinder raised {c_exc!r}; PyTorch returned") from c_exc
    if tol is None:
        assert_same(c_out, t_out)
    else:
        assert_same(c_out, t_out, tol)


# PyTorch checks an index argument's dtype before the kernel's; cinder's index_fill raises
# RuntimeError there where PyTorch raises IndexError (an index-check difference of its own).
_INDEX_CHECK_TYPE = {"index_fill"}


@pytest.mark.parametrize("entry,sample,ud,mode", _sweep_cases())
def test_op_db_sweep(entry, sample, ud, mode):
    t = _call(torch, entry, sample, ud, *mode)
    c = _call(cinder, entry, sample, ud, *mode)
    if entry.name in _INDEX_CHECK_TYPE and t[1] is not None and "index" in str(t[1]):
        assert c[1] is not None
        return
    _same_outcome(c, t, entry.tol)


# ----------------------------------------------------------------------------------------------
# Operators, mixed operands, empty inputs, layouts, factories: f(lib, a, b, U) per case, where
# ``a`` is a 1-d unsigned tensor, ``b`` a 2-d one and U the unsigned dtype.
# ----------------------------------------------------------------------------------------------


def _long(lib, v):
    return lib.tensor(v)


CASES = {
    # operators
    "a+a": lambda L, a, b, U: a + a,
    "a-a": lambda L, a, b, U: a - a,
    "a*a": lambda L, a, b, U: a * a,
    "a/a": lambda L, a, b, U: a / a,
    "a//a": lambda L, a, b, U: a // a,
    "a%a": lambda L, a, b, U: a % a,
    "a**2": lambda L, a, b, U: a**2,
    "2**a": lambda L, a, b, U: 2**a,
    "-a": lambda L, a, b, U: -a,
    "+a": lambda L, a, b, U: +a,
    "abs(a)": lambda L, a, b, U: abs(a),
    "~a": lambda L, a, b, U: ~a,
    "a&a": lambda L, a, b, U: a & a,
    "a|1": lambda L, a, b, U: a | 1,
    "a^a": lambda L, a, b, U: a ^ a,
    "a<<1": lambda L, a, b, U: a << 1,
    "a>>1": lambda L, a, b, U: a >> 1,
    "1<<a": lambda L, a, b, U: 1 << a,
    "a>1": lambda L, a, b, U: a > 1,
    "a<a": lambda L, a, b, U: a < a,
    "a==a": lambda L, a, b, U: a == a,
    "a!=1": lambda L, a, b, U: a != 1,
    "a@a": lambda L, a, b, U: a @ a,
    "b@a": lambda L, a, b, U: b.T @ a[:3],
    "b@b.T": lambda L, a, b, U: b @ b.T,
    "1-a": lambda L, a, b, U: 1 - a,
    "2/a": lambda L, a, b, U: 2 / a,
    "2//a": lambda L, a, b, U: 2 // a,
    "a+=a": lambda L, a, b, U: a.clone().__iadd__(a),
    "a*=2": lambda L, a, b, U: a.clone().__imul__(2),
    "a<<=1": lambda L, a, b, U: a.clone().__ilshift__(1),
    # the other operand decides
    "a+long": lambda L, a, b, U: a + _long(L, [1, 2, 3, 4]),
    "a*long": lambda L, a, b, U: a * _long(L, [1, 2, 3, 4]),
    "a*uint8": lambda L, a, b, U: a * _long(L, [1, 2, 3, 4]).to(L.uint8),
    "a==long": lambda L, a, b, U: a == _long(L, [1, 2, 3, 4]),
    "a&long": lambda L, a, b, U: a & _long(L, [1, 2, 3, 4]),
    "a+float": lambda L, a, b, U: a + _long(L, [1, 2, 3, 4]).float(),
    "float*a": lambda L, a, b, U: _long(L, [1, 2, 3, 4]).double() * a,
    "a+2.5": lambda L, a, b, U: a + 2.5,
    "a*2.5": lambda L, a, b, U: a * 2.5,
    "a+0d_long": lambda L, a, b, U: a + L.tensor(1),
    "a+0d_float": lambda L, a, b, U: a + L.tensor(0.5),
    "a>0.5": lambda L, a, b, U: a > 0.5,
    "a.pow(2.5)": lambda L, a, b, U: a.pow(2.5),
    "long+=a": lambda L, a, b, U: _long(L, [1, 2, 3, 4]).__iadd__(a),
    "float*=a": lambda L, a, b, U: _long(L, [1, 2, 3, 4]).float().__imul__(a),
    "cat_mixed": lambda L, a, b, U: L.cat([a, _long(L, [1])]),
    "where_mixed": lambda L, a, b, U: L.where(
        a > 0 if False else a == a, a, _long(L, [1, 2, 3, 4])
    ),
    "promote_types": lambda L, a, b, U: L.promote_types(U, L.int64),
    "promote_float": lambda L, a, b, U: L.promote_types(U, L.float16),
    "result_type": lambda L, a, b, U: L.result_type(a, 2.5),
    # reductions, kernels chosen by the arguments
    "sum": lambda L, a, b, U: a.sum(),
    "sum(dtype=U)": lambda L, a, b, U: a.sum(dtype=U),
    "prod": lambda L, a, b, U: a.prod(),
    "cumsum": lambda L, a, b, U: a.cumsum(0),
    "max()": lambda L, a, b, U: a.max(),
    "max(0)": lambda L, a, b, U: b.max(0),
    "max(a,a)": lambda L, a, b, U: L.max(a, a),
    "min(0)": lambda L, a, b, U: b.min(1),
    "median()": lambda L, a, b, U: a.median(),
    "median(0)": lambda L, a, b, U: b.median(0),
    "clamp(min)": lambda L, a, b, U: a.clamp(min=1),
    "clamp(max)": lambda L, a, b, U: a.clamp(max=1),
    "clamp(0,2)": lambda L, a, b, U: a.clamp(0, 2),
    "clamp(T,T)": lambda L, a, b, U: a.clamp(a, a),
    "clamp(min=T)": lambda L, a, b, U: a.clamp(min=a),
    "clamp_max(T)": lambda L, a, b, U: a.clamp_max(a),
    "div(floor)": lambda L, a, b, U: a.div(a, rounding_mode="floor"),
    "div(trunc)": lambda L, a, b, U: a.div(a, rounding_mode="trunc"),
    "count_nonzero()": lambda L, a, b, U: b.count_nonzero(),
    "count_nonzero(0)": lambda L, a, b, U: b.count_nonzero(0),
    "inner1": lambda L, a, b, U: L.inner(a, a),
    "inner2": lambda L, a, b, U: L.inner(b, b),
    "bmm": lambda L, a, b, U: L.bmm(b[None], b.T[None]),
    "einsum": lambda L, a, b, U: L.einsum("i,i->", a, a),
    "lerp": lambda L, a, b, U: a.lerp(a, 0.5),
    "sort": lambda L, a, b, U: a.sort(),
    "unique": lambda L, a, b, U: L.unique(a),
    "fill_": lambda L, a, b, U: a.clone().fill_(7),
    "a[1:]": lambda L, a, b, U: a[1:],
    "b[:,1]": lambda L, a, b, U: b[:, 1],
    "sqrt": lambda L, a, b, U: a.sqrt(),
    "mean": lambda L, a, b, U: a.mean(),
    "nonzero": lambda L, a, b, U: a.nonzero(),
    "masked_fill": lambda L, a, b, U: a.masked_fill(a == 1, 0),
    # layout and emptiness choose whether the typed kernel runs at all
    "flip(0)_2d": lambda L, a, b, U: b.flip(0),
    "flip(1)_2d": lambda L, a, b, U: b.flip(1),
    "flip(0)_T": lambda L, a, b, U: b.T.flip(0),
    "flip(1)_T": lambda L, a, b, U: b.T.flip(1),
    "flip_1d": lambda L, a, b, U: a.flip(0),
    "fliplr": lambda L, a, b, U: b.fliplr(),
    "flipud": lambda L, a, b, U: b.flipud(),
    "rot90": lambda L, a, b, U: b.rot90(),
    "rot90_2": lambda L, a, b, U: b.rot90(2),
    "rot90_3": lambda L, a, b, U: b.rot90(3),
    "index_select_1d": lambda L, a, b, U: a.index_select(0, L.tensor([0, 2])),
    "index_select_2d": lambda L, a, b, U: b.index_select(1, L.tensor([0, 2])),
    "repeat_interleave": lambda L, a, b, U: b.repeat_interleave(2),
    "repeat_interleave_U": lambda L, a, b, U: L.tensor([1, 2]).repeat_interleave(
        L.tensor([1, 2]).to(U)
    ),
    "empty+": lambda L, a, b, U: a[:0] + a[:0],
    "empty_mm": lambda L, a, b, U: b[:0] @ b.T,
    "empty_bmm": lambda L, a, b, U: L.bmm(b[None, :0], b.T[None]),
    "empty_tril": lambda L, a, b, U: b[:0].tril(),
    "empty_argmax": lambda L, a, b, U: b[:0].argmax(1),
    "empty_max": lambda L, a, b, U: b[:0].max(0),
    "empty_topk": lambda L, a, b, U: a[:0].topk(0),
    "empty_dot": lambda L, a, b, U: a[:0].dot(a[:0]),
    # the argument and shape checks come before the kernel's dtype
    "mm_bad_shapes": lambda L, a, b, U: b @ b,
    "vdot_2d": lambda L, a, b, U: L.vdot(b, b),
    "topk_no_k": lambda L, a, b, U: a.topk(),
    "tril_tensor_diagonal": lambda L, a, b, U: b.tril(b),
    "add_bad_broadcast": lambda L, a, b, U: b + a[:3],
    "tensordot_full": lambda L, a, b, U: L.tensordot(b, b),
    "tensordot_1": lambda L, a, b, U: L.tensordot(b, b.T, dims=1),
    "histogram": lambda L, a, b, U: L.histogram(a),
    "histogram_range": lambda L, a, b, U: L.histogram(a, 3, range=(0.0, 3.0)),
    "hash_tensor": lambda L, a, b, U: L.hash_tensor(a),
    # factories
    "arange": lambda L, a, b, U: L.arange(3, dtype=U),
    "linspace": lambda L, a, b, U: L.linspace(0, 3, 4, dtype=U),
    "eye": lambda L, a, b, U: L.eye(2, dtype=U),
    "randperm": lambda L, a, b, U: L.randperm(3, dtype=U),
    "zeros": lambda L, a, b, U: L.zeros(2, dtype=U),
    "full": lambda L, a, b, U: L.full((2,), 3, dtype=U),
    "tensor": lambda L, a, b, U: L.tensor([1, 2], dtype=U),
}


def _inputs(lib, ud):
    U = getattr(lib, ud)
    a = lib.from_numpy(np.array([1, 2, 3, 4], dtype=ud))
    b = lib.from_numpy(np.arange(1, 13, dtype=ud).reshape(3, 4))
    return a, b, U


@pytest.mark.parametrize("ud", UINTS)
@pytest.mark.parametrize("case", list(CASES))
def test_calls(case, ud):
    fn = CASES[case]
    t = _outcome(lambda: fn(torch, *_inputs(torch, ud)))
    c = _outcome(lambda: fn(cinder, *_inputs(cinder, ud)))
    if isinstance(t[0], torch.dtype):
        assert t[1] is None and c[1] is None and str(c[0]) == str(t[0])
        return
    _same_outcome(c, t, {"float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)})


@pytest.mark.parametrize("ud", UINTS)
def test_dtype_objects(ud):
    """The dtypes themselves: names, properties, numpy round trips."""
    t, c = getattr(torch, ud), getattr(cinder, ud)
    assert repr(c) == repr(t)
    assert c.is_signed == t.is_signed and c.itemsize == t.itemsize
    assert c.is_floating_point == t.is_floating_point
    x = np.array([0, 1, np.iinfo(ud).max], dtype=ud)
    tc, tt = cinder.from_numpy(x), torch.from_numpy(x)
    assert str(tc.dtype) == str(tt.dtype) and tc.type() == tt.type()
    assert tc.tolist() == tt.tolist()
    np.testing.assert_array_equal(tc.numpy(), tt.numpy())
    assert repr(tc) == repr(tt)
    assert cinder.iinfo(c).max == torch.iinfo(t).max


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("ud", UINTS)
def test_load_pytorch_checkpoint(ud, weights_only):
    """PyTorch saves these tensors with ``_rebuild_tensor_v3`` (untyped storage + dtype)."""
    import io

    buf = io.BytesIO()
    x = np.array([0, 7, np.iinfo(ud).max], dtype=ud)
    torch.save({"x": torch.from_numpy(x)[1:]}, buf)
    buf.seek(0)
    got = cinder.load(buf, weights_only=weights_only)["x"]
    assert str(got.dtype) == f"torch.{ud}"
    assert got.tolist() == x[1:].tolist() and got.storage_offset() == 1


@pytest.mark.parametrize("ud", UINTS)
def test_save_for_pytorch(ud):
    """cinder writes them as PyTorch does (``_rebuild_tensor_v3``): torch.load reads the views
    back sharing one storage, and so does cinder.load."""
    import io

    x = cinder.from_numpy(np.array([1, 2, np.iinfo(ud).max], dtype=ud))
    buf = io.BytesIO()
    cinder.save({"view": x[1:], "whole": x, "other": cinder.ones(2)}, buf)
    for lib in (torch, cinder):
        buf.seek(0)
        got = lib.load(buf)
        assert str(got["view"].dtype) == f"torch.{ud}"
        assert got["view"].tolist() == [2, int(np.iinfo(ud).max)]
        assert got["view"].storage_offset() == 1
        assert got["view"].untyped_storage().data_ptr() == got["whole"].untyped_storage().data_ptr()
        assert got["other"].tolist() == [1.0, 1.0]
