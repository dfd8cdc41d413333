"""Every row of the module database (tests/nn/module_db) against PyTorch.

For each row: build the module in both libraries after the same ``manual_seed`` and compare
every initial parameter and buffer bit for bit, the state_dict keys and the repr; load
PyTorch's state_dict into cinder; then, in train and eval mode and for each dtype, compare the
outputs and the gradients of every input and parameter; bad inputs raise PyTorch's exception
type
and message.
"""

import warnings

import numpy as np
import pytest
import torch

import cinder

from .module_db import ROWS


def _ids(rows):
    seen = {}
    out = []
    for r in rows:
        n = seen.get(r.id, 0)
        seen[r.id] = n + 1
        out.append(r.id if n == 0 else f"{r.id}#{n}")
    return out


def build_both(row):
    torch.manual_seed(0)
    t_mod = row.build(torch)
    cinder.manual_seed(0)
    c_mod = row.build(cinder)
    return c_mod, t_mod


def as_numpy(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_construction(row):
    """Same state_dict keys, bit-identical initial values, same buffers and repr."""
    c_mod, t_mod = build_both(row)
    c_sd, t_sd = c_mod.state_dict(), t_mod.state_dict()
    assert list(c_sd) == list(t_sd)
    for k in t_sd:
        assert c_sd[k].dtype.__repr__().split(".")[-1] == repr(t_sd[k].dtype).split(".")[-1], k
        assert np.array_equal(as_numpy(c_sd[k]), as_numpy(t_sd[k])), f"initial {k} differs"
    assert [n for n, _ in c_mod.named_buffers()] == [n for n, _ in t_mod.named_buffers()]
    assert [n for n, _ in c_mod.named_parameters()] == [n for n, _ in t_mod.named_parameters()]
    if row.check_repr:
        assert repr(c_mod) == repr(t_mod)


def make_inputs(row, lib, dtype, seed=0):
    arrays = row.inputs(np.random.default_rng(seed))
    if not isinstance(arrays, tuple):
        arrays = (arrays,)
    out = []
    for i, a in enumerate(arrays):
        if a.dtype.kind == "f":
            t = lib.from_numpy(np.ascontiguousarray(a.astype(dtype)))
            if row.grad and (row.leaves is None or i in row.leaves):
                t.requires_grad_(True)
        else:
            t = lib.from_numpy(np.ascontiguousarray(a))
        out.append(t)
    return out


def _call(row, mod, lib, inputs):
    if row.random:
        lib.manual_seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mod(*inputs)


def _loss_of(lib, out, seed):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    rng = np.random.default_rng(seed)
    total = None
    for o in outs:
        if isinstance(o, lib.Tensor) and o.requires_grad:
            w = lib.from_numpy(rng.uniform(0.5, 1.5, size=tuple(o.shape))).to(o.dtype)
            term = (o * w).sum()
            total = term if total is None else total + term
    return total


def _close(c, t, tol, where):
    rtol, atol = tol
    np.testing.assert_allclose(as_numpy(c), as_numpy(t), rtol=rtol, atol=atol, err_msg=where)


FORWARD = [pytest.param(r, d, m, id=f"{i}-{d}-{m}") for r, i in zip(ROWS, _ids(ROWS))
           if r.inputs is not None for d in r.dtypes for m in ("train", "eval")]


@pytest.mark.parametrize("row,dtype,mode", FORWARD)
def test_forward_backward(row, dtype, mode):
    c_mod, t_mod = build_both(row)
    c_mod.load_state_dict({k: cinder.from_numpy(as_numpy(v).copy())
                           for k, v in t_mod.state_dict().items()})
    if dtype == "float64":
        c_mod.double()
        t_mod.double()
    c_mod.train(mode == "train")
    t_mod.train(mode == "train")
    c_in, t_in = make_inputs(row, cinder, dtype), make_inputs(row, torch, dtype)
    c_out, t_out = _call(row, c_mod, cinder, c_in), _call(row, t_mod, torch, t_in)
    tol = row.tol[dtype]
    c_outs = c_out if isinstance(c_out, tuple) else (c_out,)
    t_outs = t_out if isinstance(t_out, tuple) else (t_out,)
    for i, (c, t) in enumerate(zip(c_outs, t_outs)):
        assert tuple(c.shape) == tuple(t.shape), f"output {i} shape"
        assert repr(c.dtype).split(".")[-1] == repr(t.dtype).split(".")[-1]
        _close(c, t, tol, f"output {i}")
    t_loss = _loss_of(torch, t_out, 1)
    if t_loss is None:
        return
    _loss_of(cinder, c_out, 1).backward()
    t_loss.backward()
    for i, (c, t) in enumerate(zip(c_in, t_in)):
        if t.grad is not None:
            _close(c.grad, t.grad, tol, f"grad of input {i}")
    c_params = dict(c_mod.named_parameters())
    for name, tp in t_mod.named_parameters():
        if tp.grad is not None:
            _close(c_params[name].grad, tp.grad, tol, f"grad of {name}")


ERRORS = [pytest.param(r, e, id=f"{i}-{k}") for r, i in zip(ROWS, _ids(ROWS))
          for k, e in enumerate(r.errors)]


@pytest.mark.parametrize("row,bad", ERRORS)
def test_bad_input(row, bad):
    c_mod, t_mod = build_both(row)
    arrays = bad(np.random.default_rng(0))
    arrays = arrays if isinstance(arrays, tuple) else (arrays,)
    t_args = [torch.from_numpy(a.astype(np.float32) if a.dtype.kind == "f" else a)
              for a in arrays]
    c_args = [cinder.from_numpy(a.astype(np.float32) if a.dtype.kind == "f" else a)
              for a in arrays]
    with pytest.raises(Exception) as t_exc:
        t_mod(*t_args)
    with pytest.raises(Exception) as c_exc:
        c_mod(*c_args)
    assert type(c_exc.value).__name__ == type(t_exc.value).__name__, \
        f"cinder: {c_exc.value!r}; torch: {t_exc.value!r}"
    assert str(c_exc.value) == str(t_exc.value)
