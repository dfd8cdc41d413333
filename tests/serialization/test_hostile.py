"""Hostile checkpoints loaded with default arguments: no code runs, nothing large is allocated,
and the error names the file.

Each payload tries to create a canary file (by a shell command, eval, exec, an import with a
side effect, a class in ``__main__``...). After every load the canary must not exist.
"""

import io
import os
import pickle
import struct
import sys
import tracemalloc
import zipfile

import pytest
import torch

import cinder

LIMIT = 100 * 1024 * 1024
MAGIC = 0x1950A86A20F9469CFC6C


def dump_args(args):
    """Pickle opcodes that push ``args`` (a tuple), without PROTO/STOP."""
    return pickle.dumps(args, protocol=2)[2:-1]


def call(module, name, *args):
    """A protocol-2 pickle whose result is ``module.name(*args)``."""
    return b"\x80\x02c" + f"{module}\n{name}\n".encode() + dump_args(args) + b"R."


def tensor_pickle(key="0", numel=4, size=(4,), stride=(1,), offset=0, dtype="FloatStorage",
                  extra_pid=()):
    """A pickle of ``{'w': _rebuild_tensor_v2(storage, ...)}`` with chosen fields."""
    pid = dump_args(("storage", "@", key, "cpu", numel) + extra_pid)
    pid = pid.replace(b"X\x01\x00\x00\x00@", f"ctorch\n{dtype}\n".encode())
    args = (pid + b"Q" + dump_args(offset) + dump_args(size) + dump_args(stride) + b"\x89"
            + b"ccollections\nOrderedDict\n)R")
    return (b"\x80\x02}X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n(" + args
            + b"tRs.")


def zip_checkpoint(pkl, records=None):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pkl)
        for name, data in (records or {}).items():
            z.writestr(name, data)
        z.writestr("archive/version", "3\n")
    return out.getvalue()


def deflated_bomb():
    """A checkpoint whose 16-byte storage record is DEFLATED and claims 2 GB inflated."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("archive/data.pkl", tensor_pickle(numel=2 ** 29, size=(2 ** 29,)))
        z.writestr("archive/data/0", b"\0" * 16, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("archive/version", "3\n")
    data = bytearray(out.getvalue())
    central = data.rfind(b"PK\x01\x02", 0, data.rfind(b"archive/data/0"))
    struct.pack_into("<I", data, central + 24, 2 ** 31)        # uncompressed size
    return bytes(data)


def legacy_checkpoint(pkl, keys=(), data=b""):
    head = b"".join(pickle.dumps(x, protocol=2) for x in (MAGIC, 1001, {
        "protocol_version": 1001, "little_endian": True,
        "type_sizes": {"short": 2, "int": 4, "long": 4}}))
    return head + pkl + pickle.dumps(list(keys), protocol=2) + data


class Evil:
    """Stands for a class in ``__main__``: building it would create the canary."""

    canary = None

    def __init__(self, *args):
        open(Evil.canary, "w").close()

    def __setstate__(self, state):
        open(Evil.canary, "w").close()


def hostile_files(canary, module_dir):
    canary = str(canary)
    touch = f"touch {canary}"
    write = f"open({canary!r}, 'w').close()"
    with open(os.path.join(module_dir, "canary_module.py"), "w") as f:
        f.write(f"open({canary!r}, 'w').close()\n")
    files = {
        "os.system": zip_checkpoint(call("os", "system", touch)),
        "posix.system": zip_checkpoint(call("posix", "system", touch)),
        "nt.system": zip_checkpoint(call("nt", "system", touch)),
        "builtins.eval": zip_checkpoint(call("builtins", "eval", write)),
        "__builtin__.eval (python 2 name)": zip_checkpoint(call("__builtin__", "eval", write)),
        "builtins.exec": zip_checkpoint(call("builtins", "exec", write)),
        "builtins.getattr": zip_checkpoint(
            b"\x80\x02cbuiltins\ngetattr\ncos\nsystem\n" + b"X\x06\x00\x00\x00system\x86R."),
        "builtins.__import__": zip_checkpoint(call("builtins", "__import__", "canary_module")),
        "subprocess.call": zip_checkpoint(call("subprocess", "call", ["touch", canary])),
        "subprocess.Popen": zip_checkpoint(call("subprocess", "Popen", ["touch", canary])),
        "importlib.import_module": zip_checkpoint(
            call("importlib", "import_module", "canary_module")),
        "__main__ class via REDUCE": zip_checkpoint(call("__main__", "Evil")),
        "__main__ class via NEWOBJ": zip_checkpoint(
            b"\x80\x02c__main__\nEvil\n)\x81}b."),
        "numpy._core reconstruct": zip_checkpoint(
            call("numpy._core.multiarray", "_reconstruct", 0, (0,), b"b")),
        "numpy.core reconstruct": zip_checkpoint(
            call("numpy.core.multiarray", "_reconstruct", 0, (0,), b"b")),
        "pickle.loads inside": zip_checkpoint(
            call("pickle", "loads", call("os", "system", touch))),
        "torch.load inside": zip_checkpoint(call("torch.serialization", "load", "x.pt")),
        "functools.partial": zip_checkpoint(call("functools", "partial", 1)),
        "bytearray of 10 GB": zip_checkpoint(call("builtins", "bytearray", 10 ** 10)),
        "FloatStorage(5*10**7) via REDUCE": zip_checkpoint(
            call("torch", "FloatStorage", 5 * 10 ** 7)),
        "Tensor(10**4, 10**4) via REDUCE": zip_checkpoint(call("torch", "Tensor", 10 ** 4,
                                                                10 ** 4)),
        "Tensor(10**4, 10**4) via NEWOBJ": zip_checkpoint(
            b"\x80\x02ctorch\nTensor\n" + dump_args((10 ** 4, 10 ** 4)) + b"\x81."),
        "huge declared storage": zip_checkpoint(
            tensor_pickle(numel=10 ** 12, size=(10 ** 12,)), {"archive/data/0": b"\0" * 16}),
        "deflated record claiming 2 GB": deflated_bomb(),
        "view past the storage": zip_checkpoint(
            tensor_pickle(numel=4, size=(10 ** 9,)), {"archive/data/0": b"\0" * 16}),
        "negative stride": zip_checkpoint(
            tensor_pickle(numel=4, size=(2,), stride=(-1,), offset=3),
            {"archive/data/0": b"\0" * 16}),
        "path traversal key": zip_checkpoint(
            tensor_pickle(key="../../../etc/passwd"), {"archive/data/0": b"\0" * 16}),
        "missing data record": zip_checkpoint(tensor_pickle(key="7")),
        "short data record": zip_checkpoint(tensor_pickle(numel=1000, size=(1000,)),
                                            {"archive/data/0": b"\0" * 16}),
        "persistent id that is not a storage": zip_checkpoint(
            b"\x80\x02X\x06\x00\x00\x00systemQ."),
        "legacy: os.system": legacy_checkpoint(call("os", "system", touch)),
        "legacy: huge declared storage": legacy_checkpoint(
            tensor_pickle(key="1", numel=10 ** 12, size=(4,), extra_pid=(None,)), ["1"],
            struct.pack("<q", 10 ** 12)),
        "legacy: short data": legacy_checkpoint(
            tensor_pickle(key="1", numel=4, extra_pid=(None,)), ["1"],
            struct.pack("<q", 4) + b"\0" * 5),
        "legacy: bad magic": pickle.dumps(12345, protocol=2) + call("os", "system", touch),
    }
    return files


@pytest.fixture
def canary(tmp_path, monkeypatch):
    path = tmp_path / "canary"
    Evil.canary = str(path)
    monkeypatch.setattr(sys.modules["__main__"], "Evil", Evil, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    return path


def test_at_least_twenty_hostile_kinds(tmp_path):
    assert len(hostile_files(tmp_path / "c", str(tmp_path))) >= 20


@pytest.mark.parametrize("kind", list(hostile_files("/nonexistent/c", "/tmp")))
def test_hostile_file_runs_nothing_and_allocates_little(kind, canary, tmp_path):
    data = hostile_files(canary, str(tmp_path))[kind]
    path = tmp_path / "hostile.pt"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with pytest.raises((pickle.UnpicklingError, RuntimeError)) as info:
            cinder.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not canary.exists(), f"{kind}: code ran"
    assert peak < LIMIT, f"{kind}: {peak} bytes allocated"
    assert str(path) in str(info.value)
    assert "canary_module" not in sys.modules


@pytest.mark.parametrize("kind", ["os.system", "builtins.eval", "subprocess.call",
                                  "__main__ class via REDUCE", "numpy._core reconstruct",
                                  "legacy: os.system"])
def test_torch_refuses_the_same_files_with_the_same_error_type(kind, canary, tmp_path):
    data = hostile_files(canary, str(tmp_path))[kind]
    errors = []
    for lib in (torch, cinder):
        with pytest.raises(Exception) as info:
            lib.load(io.BytesIO(data))
        errors.append(type(info.value))
    assert issubclass(errors[1], errors[0])
    assert not canary.exists()


@pytest.mark.parametrize("kind", ["os.system", "builtins.eval", "builtins.exec",
                                  "subprocess.call", "importlib.import_module",
                                  "__main__ class via REDUCE", "legacy: os.system"])
def test_control_the_payloads_do_run_when_loading_unsafely(kind, canary, tmp_path):
    """The table is not toothless: with weights_only=False the same files do run their code."""
    path = tmp_path / "hostile.pt"
    path.write_bytes(hostile_files(canary, str(tmp_path))[kind])
    try:
        cinder.load(path, weights_only=False)
    except Exception:  # noqa: BLE001 - only the side effect matters here
        pass
    sys.modules.pop("canary_module", None)
    assert canary.exists()


def test_control_the_crafted_tensor_pickle_is_valid():
    data = zip_checkpoint(tensor_pickle(), {"archive/data/0": struct.pack("<4f", 1, 2, 3, 4)})
    assert cinder.load(io.BytesIO(data))["w"].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert torch.load(io.BytesIO(data))["w"].tolist() == [1.0, 2.0, 3.0, 4.0]
    legacy = legacy_checkpoint(tensor_pickle(key="1", extra_pid=(None,)), ["1"],
                               struct.pack("<q", 4) + struct.pack("<4f", 1, 2, 3, 4))
    assert cinder.load(io.BytesIO(legacy))["w"].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert torch.load(io.BytesIO(legacy))["w"].tolist() == [1.0, 2.0, 3.0, 4.0]
