"""cinder.utils.safetensors against the safetensors package (files written by either)."""

import io
import struct

import numpy as np
import pytest
import torch

import cinder
from cinder.utils import safetensors as cst

from .helpers import assert_same

st_torch = pytest.importorskip("safetensors.torch")
st_numpy = pytest.importorskip("safetensors.numpy")

DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64"]


def tensors(lib):
    base = np.arange(-3, 9).reshape(3, 4) / 2
    out = {name: lib.tensor(base).to(getattr(lib, name)) for name in DTYPES}
    out["scalar"] = lib.tensor(2.5)
    out["empty"] = lib.zeros(0, 2)
    out["transposed"] = lib.tensor(base).t()     # written contiguous
    return out


def test_files_are_byte_identical_to_the_library(tmp_path):
    meta = {"format": "pt"}        # one key: the library orders several in hash order
    cst.save_file(tensors(cinder), tmp_path / "c.safetensors", metadata=meta)
    st_torch.save_file({k: v.contiguous() for k, v in tensors(torch).items()},
                       str(tmp_path / "t.safetensors"), metadata=meta)
    assert (tmp_path / "c.safetensors").read_bytes() == (tmp_path / "t.safetensors").read_bytes()
    assert cst.save(tensors(cinder), meta) == (tmp_path / "t.safetensors").read_bytes()


def test_library_reads_cinder_files(tmp_path):
    cst.save_file(tensors(cinder), tmp_path / "c.safetensors")
    loaded = st_torch.load_file(str(tmp_path / "c.safetensors"))
    assert_same({k: loaded[k] for k in tensors(torch)},
                {k: v.contiguous() for k, v in tensors(torch).items()})


def test_cinder_reads_library_files(tmp_path):
    path = str(tmp_path / "t.safetensors")
    st_torch.save_file({k: v.contiguous() for k, v in tensors(torch).items()}, path,
                       metadata={"a": "b"})
    c, t = cst.load_file(path), st_torch.load_file(path)
    assert_same({k: c[k] for k in sorted(c)}, {k: t[k] for k in sorted(t)})
    with cst.safe_open(path, framework="pt") as f:
        assert f.metadata() == {"a": "b"}
        assert sorted(f.keys()) == sorted(tensors(torch))
        assert f.get_tensor("int16").tolist() == tensors(torch)["int16"].tolist()
    arrays = {"x": np.arange(6, dtype=np.int32).reshape(2, 3)}
    st_numpy.save_file(arrays, str(tmp_path / "n.safetensors"))
    assert cst.load_file(tmp_path / "n.safetensors")["x"].tolist() == arrays["x"].tolist()
    assert cst.load(st_numpy.save(arrays))["x"].dtype is cinder.int32


def corrupt_files(good):
    (n,) = struct.unpack_from("<Q", good)
    header = good[8:8 + n]
    return {
        "empty": b"",
        "header length past the end": struct.pack("<Q", 10 ** 6) + good[8:],
        "huge header length": struct.pack("<Q", 2 ** 62) + good[8:],
        "not JSON": good[:8] + b"{" * n + good[8 + n:],
        "JSON list": struct.pack("<Q", 8) + b"[1,2,3] ",
        "truncated data": good[:-3],
        "offsets beyond the data": good[:8] + header.replace(b"[0,", b"[9999,") + good[8 + n:],
        "unknown dtype": good[:8] + header.replace(b'"F32"', b'"Q32"') + good[8 + n:],
    }


@pytest.mark.parametrize("kind", list(corrupt_files(cst.save({"w": cinder.ones(4)}))))
def test_corrupt_files_raise_errors_naming_the_file(kind, tmp_path):
    data = corrupt_files(cst.save({"w": cinder.ones(4)}))[kind]
    path = tmp_path / "broken.safetensors"
    path.write_bytes(data)
    with pytest.raises(cst.SafetensorError) as info:
        cst.load_file(path)
    assert str(path) in str(info.value)
    with pytest.raises(Exception) as lib_info:      # the library refuses them too
        st_torch.load(data)
    assert type(lib_info.value).__name__ == "SafetensorError"


def test_bad_input_on_save():
    with pytest.raises(ValueError, match="expected torch.Tensor"):
        cst.save({"w": [1, 2]})
    with pytest.raises(cst.SafetensorError):
        cst.save({"w": cinder.ones(1)}, metadata={"epoch": 3})
    assert isinstance(io.BytesIO(cst.save({})).read(8), bytes)
