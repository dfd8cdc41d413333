"""Comparing what cinder and PyTorch load, object by object."""

import io
import os
import zipfile
from collections import OrderedDict

import numpy as np
import torch

import cinder

from .make_fixtures import reference_objects  # noqa: F401

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def values(t):
    """A tensor's values as a NumPy array (bfloat16 widened, which PyTorch's numpy() refuses)."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy()
    t = t.detach()
    return (t.float() if t.dtype == cinder.bfloat16 else t).numpy()


def assert_same(c, t, path="obj"):
    """``c`` (cinder) holds what ``t`` (PyTorch) holds: types, keys, tensors' dtype, shape,
    strides, storage offset, requires_grad, Parameter-ness and values."""
    if isinstance(t, torch.Tensor):
        assert isinstance(c, (cinder.Tensor, torch.Tensor)), path
        assert str(c.dtype) == str(t.dtype), path
        assert tuple(c.shape) == tuple(t.shape), path
        assert c.stride() == t.stride(), path
        assert c.storage_offset() == t.storage_offset(), path
        assert c.requires_grad == t.requires_grad, path
        assert isinstance(c, (cinder.nn.Parameter, torch.nn.Parameter)) == \
            isinstance(t, torch.nn.Parameter), path
        np.testing.assert_array_equal(values(c), values(t), err_msg=path)
    elif isinstance(t, dict):
        assert type(c).__name__ == type(t).__name__, path
        assert list(c) == list(t), path
        for k in t:
            assert_same(c[k], t[k], f"{path}[{k!r}]")
        if hasattr(t, "_metadata"):
            assert c._metadata == t._metadata, path
    elif isinstance(t, (list, tuple)):
        assert type(c).__name__ == type(t).__name__ and len(c) == len(t), path
        for i, (a, b) in enumerate(zip(c, t)):
            assert_same(a, b, f"{path}[{i}]")
    elif isinstance(t, (torch.dtype, torch.device)):
        assert str(c) == str(t), path
    else:
        assert type(c) is type(t) and c == t, path


def shares_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def save_bytes(lib, obj, **kwargs):
    buf = io.BytesIO()
    lib.save(obj, buf, **kwargs)
    return buf.getvalue()


def zip_records(data):
    return zipfile.ZipFile(io.BytesIO(data)).namelist()


def replace_record(data, name, new):
    """A copy of zip checkpoint ``data`` with record ``name`` replaced by ``new``."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, new if info.filename == name else src.read(info))
    return out.getvalue()


def ordered(items):
    return OrderedDict(items)
