"""Write the checkpoint fixtures that tests/serialization loads, using real PyTorch.

Run from the repository root:  python tests/serialization/make_fixtures.py

* ``torch_zip.pt``     torch.save(...) of ``reference_objects(torch)`` (the zip format)
* ``torch_legacy.pt``  the same with ``_use_new_zipfile_serialization=False`` (legacy format)
* ``torch01_tar.pt``  the PyTorch 0.1 tar format (storages, tensors and pickle members),
  assembled by hand for the same reason; torch 2.13 loads it with ``weights_only=False``.
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
import tarfile

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


def legacy_bytes(body, keys, payloads):
    """A legacy file around the object pickle ``body``: header pickles, then the key list
    and each storage's float32 bytes (``payloads``) with its element count."""
    dump = lambda obj: pickle.dumps(obj, protocol=2)  # noqa: E731
    head = dump(0x1950A86A20F9469CFC6C) + dump(1001) + dump(
        {"protocol_version": 1001, "little_endian": True,
         "type_sizes": {"short": 2, "int": 4, "long": 8}})
    key_list = b"\x80\x02](" + b"".join(_short_binstring(k) for k in keys) + b"e."
    data = b"".join(struct.pack("<q", len(p) // 4) + p for p in payloads)
    return head + body + key_list + data


def torch03_state_dict_bytes():
    """Bytes of a 0.3-era ``torch.save(linear.state_dict(), f)`` for Linear(3, 2)."""
    body = (b"\x80\x02" + _global("collections", "OrderedDict") + b")R(" +
            _short_binstring("weight") + _tensor_03("94061", 6, (2, 3), (3, 1)) +
            _short_binstring("bias") + _tensor_03("94062", 2, (2,), (1,)) + b"u.")
    return legacy_bytes(body, ["94061", "94062"],
                        [struct.pack("<6f", *[i / 10 for i in range(6)]),
                         struct.pack("<2f", -1.0, 1.0)])


def _pickle_with_global(values, module, name):
    """A protocol-2 pickle of tuple ``values`` whose "@" item is the GLOBAL module.name."""
    body = pickle.dumps(values, protocol=2)
    return body.replace(b"X\x01\x00\x00\x00@", _global(module, name))


def torch01_tar_bytes():
    """A PyTorch 0.1 (tar) checkpoint of ``{'weight': <2x3 tensor>, 'step': 7}``, assembled
    member by member the way ``torch.serialization``'s tar reader expects it."""
    dump = lambda obj: pickle.dumps(obj, protocol=2)  # noqa: E731
    values = struct.pack("<6f", *[i / 4 for i in range(6)])
    storages = (dump(1) + _pickle_with_global((0, "cpu", "@"), "torch", "FloatStorage")
                + struct.pack("<q", 6) + values + dump([]))
    tensors = (dump(1) + _pickle_with_global((1, 0, "@"), "torch", "FloatTensor")
               + struct.pack("<ii", 2, 0) + struct.pack("<qq", 2, 3) + struct.pack("<qq", 3, 1)
               + struct.pack("<q", 0))
    obj = b"\x80\x02}(X\x06\x00\x00\x00weightX\x01\x00\x00\x001QX\x04\x00\x00\x00stepK\x07u."
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in (("sys_info", dump({"protocol_version": 1000, "little_endian": True,
                                              "type_sizes": {"short": 2, "int": 4,
                                                             "long": 8}})),
                           ("storages", storages), ("tensors", tensors), ("pickle", obj)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


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
    tar_path = os.path.join(HERE, "torch01_tar.pt")
    with open(tar_path, "wb") as f:
        f.write(torch01_tar_bytes())
    loaded = torch.load(tar_path, weights_only=False)   # PyTorch's tar reader (paths only)
    assert loaded["step"] == 7 and loaded["weight"].shape == (2, 3)
    for name in sorted(os.listdir(HERE)):
        print(name, os.path.getsize(os.path.join(HERE, name)))


if __name__ == "__main__":
    main()
