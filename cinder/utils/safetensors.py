"""Read and write ``.safetensors`` files: named tensors with no pickle at all.

The format (from the ``safetensors`` project): an 8-byte little-endian header length N, then N
bytes of JSON mapping each name to ``{"dtype": "F32", "shape": [...], "data_offsets": [begin,
end]}`` (plus an optional ``"__metadata__"`` dict of strings), padded with spaces to a multiple
of 8, then the raw little-endian bytes of every tensor. The API mirrors ``safetensors.torch``:
``save_file``/``load_file``/``save``/``load`` and the lazy ``safe_open``.
"""

import json
import mmap
import os
import struct

import numpy as np

from .. import _dtype as D
from .._device import device as device_cls
from .._tensor import Tensor, make_tensor

__all__ = ["save_file", "load_file", "save", "load", "safe_open", "SafetensorError"]

_CODES = {D.float64: "F64", D.float32: "F32", D.float16: "F16", D.bfloat16: "BF16",
          D.int64: "I64", D.int32: "I32", D.int16: "I16", D.int8: "I8", D.uint8: "U8",
          D.bool: "BOOL", D.complex64: "C64"}
_DTYPES = {code: dtype for dtype, code in _CODES.items()}
# The library writes tensors in descending order of its dtype enum, then by name.
_RANK = {code: i for i, code in enumerate(["BOOL", "U8", "I8", "I16", "F16", "BF16", "I32",
                                           "F32", "C64", "F64", "I64"])}
_MAX_HEADER = 100_000_000          # the safetensors library's own limit


class SafetensorError(Exception):
    """A file that is not valid safetensors (named like the library's exception)."""


# ----------------------------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------------------------
def _serialize(tensors, metadata):
    """The header bytes and the list of per-tensor byte buffers, in file order."""
    if not isinstance(tensors, dict):
        raise TypeError(f"tensors must be a dict of name -> Tensor, got {type(tensors)}")
    if metadata is not None and not all(isinstance(k, str) and isinstance(v, str)
                                        for k, v in metadata.items()):
        raise SafetensorError("metadata must map str to str")
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected torch.Tensor but received "
                             f"{type(t)}")
        if t.dtype not in _CODES:
            raise SafetensorError(f"dtype {t.dtype} cannot be stored in safetensors")
    order = sorted(tensors, key=lambda k: (-_RANK[_CODES[tensors[k].dtype]], k))
    header, buffers, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = dict(sorted(metadata.items()))
    for name in order:
        t = tensors[name]
        data = np.ascontiguousarray(t.detach().cpu()._data)    # bfloat16 included
        raw = data.reshape(-1).view(np.uint8)
        header[name] = {"dtype": _CODES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + raw.size]}
        buffers.append(raw)
        offset += raw.size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, buffers


def save(tensors, metadata=None):
    """The bytes of a safetensors file holding ``tensors`` (a dict of name -> Tensor)."""
    head, buffers = _serialize(tensors, metadata)
    return head + b"".join(buf.tobytes() for buf in buffers)


def save_file(tensors, filename, metadata=None):
    """Write ``tensors`` (dict of name -> Tensor) and optional str metadata to ``filename``."""
    head, buffers = _serialize(tensors, metadata)
    with open(filename, "wb") as f:
        f.write(head)
        for buf in buffers:
            f.write(memoryview(buf))


# ----------------------------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------------------------
def _parse_header(buf, name):
    """(header dict, start of the data) from a buffer holding the file, checked throughout."""
    if len(buf) < 8:
        raise SafetensorError(f"Error while deserializing header: header too small ({name})")
    (n,) = struct.unpack_from("<Q", buf, 0)
    if n > _MAX_HEADER or 8 + n > len(buf):
        raise SafetensorError(f"Error while deserializing header: header too large ({name})")
    try:
        header = json.loads(bytes(buf[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise SafetensorError(f"Error while deserializing header: invalid JSON in header: {e} "
                              f"({name})") from None
    if not isinstance(header, dict):
        raise SafetensorError(f"Error while deserializing header: not a JSON object ({name})")
    data_len = len(buf) - 8 - n
    for key, info in header.items():
        if key != "__metadata__":
            _check_entry(key, info, data_len, name)
    return header, 8 + n


def _check_entry(key, info, data_len, name):
    try:
        dtype = _DTYPES[info["dtype"]]
        shape = [int(s) for s in info["shape"]]
        begin, end = (int(v) for v in info["data_offsets"])
    except (KeyError, TypeError, ValueError):
        raise SafetensorError(f"Error while deserializing header: bad entry for tensor {key!r} "
                              f"({name})") from None
    numel = 1
    for s in shape:
        if s < 0:
            raise SafetensorError(f"negative dimension in tensor {key!r} ({name})")
        numel *= s
    if not 0 <= begin <= end <= data_len or end - begin != numel * dtype.itemsize:
        raise SafetensorError(f"Error while deserializing header: InvalidOffset({key!r}) "
                              f"({name})")


def _tensor_from(buf, start, info, device, copy):
    dtype = _DTYPES[info["dtype"]]
    begin, end = info["data_offsets"]
    raw = np.frombuffer(buf, np.uint8, end - begin, start + begin)
    arr = raw.view(dtype.numpy_dtype).reshape(info["shape"])
    if copy:
        arr = arr.copy()
    t = make_tensor(arr, dtype)
    return t if device_cls(device).type == "cpu" else t.to(device)


def load(data):
    """The tensors (dict of name -> Tensor) held in safetensors bytes ``data``."""
    header, start = _parse_header(memoryview(data), "<bytes>")
    return {k: _tensor_from(data, start, v, "cpu", True) for k, v in header.items()
            if k != "__metadata__"}


def load_file(filename, device="cpu"):
    """The tensors (dict of name -> Tensor) stored in the safetensors file ``filename``."""
    with safe_open(filename, framework="pt", device=device) as f:
        return {k: f.get_tensor(k) for k in f.keys()}


class safe_open:
    """Lazy access to a safetensors file: ``keys()``, ``get_tensor(name)``, ``metadata()``.

    The file is memory-mapped; ``get_tensor`` copies out only the tensor asked for.
    """

    def __init__(self, filename, framework="pt", device="cpu"):
        if framework not in ("pt", "torch", "np", "numpy"):
            raise SafetensorError(f"framework {framework!r} is not supported by cinder")
        self._name = os.fspath(filename)
        self._device = device
        with open(self._name, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < 8:
                raise SafetensorError(f"Error while deserializing header: header too small "
                                      f"({self._name})")
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        self._header, self._start = _parse_header(memoryview(self._map), self._name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._header = {}

    def keys(self):
        return sorted(k for k in self._header if k != "__metadata__")

    def metadata(self):
        return self._header.get("__metadata__")

    def get_tensor(self, name):
        if name not in self._header or name == "__metadata__":
            raise SafetensorError(f"File does not contain tensor {name}")
        return _tensor_from(self._map, self._start, self._header[name], self._device, True)
