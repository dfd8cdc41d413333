"""Write the checkpoint fixtures that tests/serialization loads, using real PyTorch.

Run from the repository root:  python tests/serialization/make_fixtures.py

* ``torch_zip.pt``     torch.save(...) of ``reference_objects(torch)`` (the zip format)
* ``torch_legacy.pt``  the same with ``_use_new_zipfile_serialization=False`` (legacy format)
* ``torch03_state_dict.pt``  a legacy file laid out the way PyTorch 0.3 under Python 2 wrote a
  state_dict: byte-string keys (SHORT_BINSTRING) and the 4-argument ``_rebuild_tensor``.
  PyTorch 0.3 cannot be installed here, so its pickle is assembled opcode by opcode; real
  torch 2.13 loads it (checked below), which is what makes it a faithful stand-in.

Everything is built from ``arange`` and fixed seeds, so the tests rebuild the same objects
with ``reference_objects(torch)`` and compare values.
"""

import io
import os
import pickle
import struct

import torch

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def reference_objects(lib):
    """One object exercising every kind of content a checkpoint holds."""
    base = lib.arange(12, dtype=lib.float32).reshape(3, 4)
    dtypes = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
              "uint8", "bool", "complex64", "complex128"]
    by_dtype = {name: (lib.arange(6) % 3).to(getattr(lib, name)) for name in dtypes}
    return {
        "base": base,
        "row_view": base[1],                 # shares base's storage, offset 4
        "transposed": base.t(),              # non-contiguous view of the same storage
        "strided": base[:, ::2],
        "scalar": lib.tensor(7, dtype=lib.int64),
        "empty": lib.zeros(0, 3),
        "param": lib.nn.Parameter(lib.arange(3, dtype=lib.float32)),
        "frozen_param": lib.nn.Parameter(lib.ones(2), requires_grad=False),
        "needs_grad": lib.ones(2, requires_grad=True),
        "dtypes": by_dtype,
        "nested": [1, 2.5, "text", None, True, (lib.tensor([1, 2]), {"k": b"bytes"})],
        "meta": {"epoch": 3, "lr": 0.1, "size": lib.Size([2, 3]), "dtype": lib.float16},
    }


def module_objects():
    """A state_dict with _metadata (BatchNorm has version 2) and an optimizer state_dict."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(5, 3)).sum().backward()
    opt.step()
    return {"model": model.state_dict(), "optimizer": opt.state_dict()}


def fixture_object():
    return {**reference_objects(torch), **module_objects()}


# ----------------------------------------------------------------------------------------------
# A PyTorch 0.3 / Python 2 style legacy file, assembled by hand
# ----------------------------------------------------------------------------------------------
def _short_binstring(s):
    data = s.encode("ascii")
    return b"U" + bytes([len(data)]) + data


def _global(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _tensor_03(key, numel, size, stride):
    """``_rebuild_tensor(storage, 0, size, stride)`` with a 6-field persistent id."""
    pid = (b"(" + _short_binstring("storage") + _global("torch", "FloatStorage")
           + _short_binstring(key) + _short_binstring("cpu") + b"K" + bytes([numel]) + b"N"
           + b"tQ")
    size_t = b"(" + b"".join(b"K" + bytes([n]) for n in size) + b"t"
    stride_t = b"(" + b"".join(b"K" + bytes([n]) for n in stride) + b"t"
    return _global("torch._utils", "_rebuild_tensor") + b"(" + pid + b"K\x00" + size_t \
        + stride_t + b"tR"


def torch03_state_dict_bytes():
    """Bytes of a 0.3-era ``torch.save(linear.state_dict(), f)`` for Linear(3, 2)."""
    dump = lambda obj: pickle.dumps(obj, protocol=2)  # noqa: E731
    head = dump(0x1950A86A20F9469CFC6C) + dump(1001) + dump(
        {"protocol_version": 1001, "little_endian": True,
         "type_sizes": {"short": 2, "int": 4, "long": 8}})
    body = (b"\x80\x02" + _global("collections", "OrderedDict") + b")R(" +
            _short_binstring("weight") + _tensor_03("94061", 6, (2, 3), (3, 1)) +
            _short_binstring("bias") + _tensor_03("94062", 2, (2,), (1,)) + b"u.")
    keys = b"\x80\x02](" + _short_binstring("94061") + _short_binstring("94062") + b"e."
    weight = struct.pack("<q", 6) + struct.pack("<6f", *[i / 10 for i in range(6)])
    bias = struct.pack("<q", 2) + struct.pack("<2f", -1.0, 1.0)
    return head + body + keys + weight + bias


def main():
    os.makedirs(HERE, exist_ok=True)
    obj = fixture_object()
    torch.save(obj, os.path.join(HERE, "torch_zip.pt"))
    torch.save(obj, os.path.join(HERE, "torch_legacy.pt"), _use_new_zipfile_serialization=False)
    old = torch03_state_dict_bytes()
    loaded = torch.load(io.BytesIO(old))          # real PyTorch accepts the hand-made file
    assert list(loaded) == ["weight", "bias"] and loaded["weight"].shape == (2, 3)
    with open(os.path.join(HERE, "torch03_state_dict.pt"), "wb") as f:
        f.write(old)
    for name in sorted(os.listdir(HERE)):
        print(name, os.path.getsize(os.path.join(HERE, name)))


if __name__ == "__main__":
    main()
