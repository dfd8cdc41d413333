"""cinder.save/load against torch.save/load: each writes, the other reads, both formats."""

import io
import mmap
import os
import pathlib
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
import torch

import cinder

from .helpers import (FIXTURES, assert_same, reference_objects, replace_record, save_bytes,
                      shares_storage, zip_records)

FORMATS = {"zip": {}, "legacy": {"_use_new_zipfile_serialization": False}}


# ----------------------------------------------------------------------------------------------
# PyTorch writes, cinder reads
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["torch_zip.pt", "torch_legacy.pt"])
def test_fixture_written_by_torch_loads(name):
    path = os.path.join(FIXTURES, name)
    c, t = cinder.load(path), torch.load(path)
    assert_same(c, t)
    # Views saved once come back sharing one storage, as in PyTorch.
    for view in ("row_view", "transposed", "strided"):
        assert shares_storage(c[view], c["base"]) and shares_storage(t[view], t["base"])
    c["base"][1, 0] = 100.0
    assert c["row_view"][0].item() == 100.0 and c["transposed"][0, 1].item() == 100.0


def test_fixture_module_and_optimizer_state_dicts():
    c = cinder.load(os.path.join(FIXTURES, "torch_zip.pt"))
    assert type(c["model"]).__name__ == "OrderedDict"
    assert c["model"]._metadata["1"] == {"version": 2}
    assert c["model"]["1.num_batches_tracked"].dtype is cinder.int64
    assert set(c["optimizer"]["state"]) == {0, 1, 2, 3}
    assert c["optimizer"]["param_groups"][0]["momentum"] == 0.9


def test_pytorch_03_era_legacy_state_dict():
    path = os.path.join(FIXTURES, "torch03_state_dict.pt")
    c, t = cinder.load(path), torch.load(path)
    assert_same(c, t)
    assert list(c) == ["weight", "bias"]


def test_pytorch_03_era_parameter_with_tuple_state():
    """PyTorch 0.3 pickled a Parameter as Parameter(data) plus a BUILD of (requires_grad,
    volatile, backward_hooks)."""
    from .make_fixtures import _global, _tensor_03, legacy_bytes
    body = (b"\x80\x02" + _global("torch.nn.parameter", "Parameter") + b"(" +
            _tensor_03("5", 2, (2,), (1,)) + b"tR(\x89\x89" + _global("collections",
                                                                "OrderedDict")
            + b")Rtb.")
    data = legacy_bytes(body, ["5"], [struct.pack("<2f", 1.5, -2.0)])
    c, t = cinder.load(io.BytesIO(data)), torch.load(io.BytesIO(data))
    assert_same(c, t)
    assert isinstance(c, cinder.nn.Parameter) and not c.requires_grad


# ----------------------------------------------------------------------------------------------
# cinder writes, PyTorch reads (with its default weights_only=True)
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
def test_cinder_checkpoint_loads_in_torch(fmt):
    data = save_bytes(cinder, reference_objects(cinder), **FORMATS[fmt])
    t = torch.load(io.BytesIO(data))
    assert_same(cinder.load(io.BytesIO(data)), t)
    assert_same(reference_objects(cinder), t)
    for view in ("row_view", "transposed", "strided"):
        assert shares_storage(t[view], t["base"])


@pytest.mark.parametrize("fmt", FORMATS)
def test_torch_objects_survive_a_cinder_round_trip(fmt):
    """torch.save → cinder.load → cinder.save → torch.load gives back the same objects,
    including state_dict _metadata and optimizer state."""
    original = torch.load(os.path.join(FIXTURES, "torch_zip.pt"))
    again = save_bytes(cinder, cinder.load(os.path.join(FIXTURES, "torch_zip.pt")),
                       **FORMATS[fmt])
    back = torch.load(io.BytesIO(again))
    assert_same(back, original)          # torch vs torch: same dict layout, tensors, metadata
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    model.load_state_dict(back["model"])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt.load_state_dict(back["optimizer"])


def test_pickle_matches_torch_byte_for_byte():
    a = np.arange(4, dtype=np.float32)

    def make(L):
        base = L.tensor(a)
        return OrderedDict([
            ("w", base), ("v", base[1:]), ("p", L.nn.Parameter(L.tensor(a))),
            ("frozen", L.nn.Parameter(L.tensor(a), requires_grad=False)),
            ("t", L.arange(12.).reshape(3, 4).t()), ("s", L.tensor(3)), ("e", L.zeros(0, 3)),
            ("offset", L.zeros(70000)[300:]), ("rg", L.ones(2, requires_grad=True)),
            ("again", base), ("ints", [2 ** 40, -5, 70000, -(2 ** 40), 255, 256]),
            ("tagged", L.ones(1))])
    c, t = save_bytes(cinder, make(cinder)), save_bytes(torch, make(torch))
    zc, zt = zipfile.ZipFile(io.BytesIO(c)), zipfile.ZipFile(io.BytesIO(t))
    assert zc.namelist() == zt.namelist()
    assert zc.read("archive/data.pkl") == zt.read("archive/data.pkl")
    for info in zc.infolist():          # payloads 64-byte aligned, STORED, as PyTorch writes
        assert info.compress_type == zipfile.ZIP_STORED
        name_len, extra_len = struct.unpack_from("<HH", c, info.header_offset + 26)
        assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0


def test_every_dtype_round_trips_both_ways():
    names = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
             "uint8", "bool", "complex64", "complex128"]
    data = np.array([0.5, -1.25, 3.0, 0.0])

    def make(L):
        return {n: L.tensor(data).to(getattr(L, n)) for n in names}
    assert_same(torch.load(io.BytesIO(save_bytes(cinder, make(cinder)))), make(torch))
    assert_same(cinder.load(io.BytesIO(save_bytes(torch, make(torch)))), make(torch))


# ----------------------------------------------------------------------------------------------
# Files: paths, pathlib, file objects; archive names; atomic replacement
# ----------------------------------------------------------------------------------------------
def test_disable_byteorder_record_matches_torch():
    c = zip_records(save_bytes(cinder, {"x": cinder.ones(1)}, _disable_byteorder_record=True))
    t = zip_records(save_bytes(torch, {"x": torch.ones(1)}, _disable_byteorder_record=True))
    assert c == t and c[-2] == "archive/byteorder"


def test_paths_pathlib_and_file_objects(tmp_path):
    obj = {"x": cinder.arange(5.)}
    cinder.save(obj, str(tmp_path / "a.pt"))
    cinder.save(obj, tmp_path / "b.pt")
    with open(tmp_path / "c.pt", "wb") as f:
        cinder.save(obj, f)
    for name in ("a.pt", "b.pt", "c.pt"):
        for source in (str(tmp_path / name), tmp_path / name, open(tmp_path / name, "rb")):
            assert_same(cinder.load(source), torch.load(tmp_path / name))
            if hasattr(source, "close"):
                source.close()
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_archive_name_follows_the_file_name(tmp_path):
    (tmp_path / "d").mkdir()
    cinder.save({"x": cinder.ones(1)}, tmp_path / "d" / "my.model.pth")
    torch.save({"x": torch.ones(1)}, tmp_path / "t.model.pth")
    with zipfile.ZipFile(tmp_path / "d" / "my.model.pth") as zc, \
            zipfile.ZipFile(tmp_path / "t.model.pth") as zt:
        assert [n.replace("my.model/", "") for n in zc.namelist()] == \
            [n.replace("t.model/", "") for n in zt.namelist()]


def test_missing_parent_directory_error_matches_torch(tmp_path):
    path = str(tmp_path / "nope" / "x.pt")
    errors = []
    for lib in (torch, cinder):
        with pytest.raises(RuntimeError) as info:
            lib.save({}, path)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_save_through_a_symlink_keeps_the_link_and_the_mode(tmp_path):
    target = tmp_path / "real.pt"
    cinder.save({"v": cinder.zeros(1)}, target)
    os.chmod(target, 0o640)
    link = tmp_path / "link.pt"
    link.symlink_to(target)
    cinder.save({"v": cinder.ones(1)}, link)
    assert link.is_symlink() and torch.load(target)["v"].tolist() == [1.0]
    assert os.stat(target).st_mode & 0o777 == 0o640


def test_failed_save_keeps_the_previous_file(tmp_path):
    class Unpicklable:
        def __reduce__(self):
            raise RuntimeError("boom")
    path = tmp_path / "ckpt.pt"
    cinder.save({"v": cinder.tensor([1., 2.])}, path)
    with pytest.raises(RuntimeError, match="boom"):
        cinder.save({"v": cinder.zeros(2), "bad": Unpicklable()}, path)
    assert cinder.load(path)["v"].tolist() == [1.0, 2.0]
    assert os.listdir(tmp_path) == ["ckpt.pt"]


# ----------------------------------------------------------------------------------------------
# map_location, mmap
# ----------------------------------------------------------------------------------------------
def cuda_tagged_checkpoint():
    """A PyTorch checkpoint whose storage is tagged 'cuda:0' (made on a CPU-only machine)."""
    data = save_bytes(torch, {"w": torch.arange(3.)})
    pkl = zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
    pkl = pkl.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    return replace_record(data, "archive/data.pkl", pkl)


@pytest.mark.skipif(cinder.cuda.is_available(), reason="checks the CPU-only error")
def test_cuda_checkpoint_without_cuda_raises_torchs_error():
    data = cuda_tagged_checkpoint()
    with pytest.raises(RuntimeError) as t_info:
        torch.load(io.BytesIO(data))
    with pytest.raises(RuntimeError) as c_info:
        cinder.load(io.BytesIO(data))
    assert str(t_info.value) in str(c_info.value)


@pytest.mark.parametrize("make_map", [
    lambda L: "cpu", lambda L: L.device("cpu"), lambda L: {"cuda:0": "cpu"},
    lambda L: (lambda storage, location: storage)])
def test_map_location_forms(make_map):
    data = cuda_tagged_checkpoint()
    c = cinder.load(io.BytesIO(data), map_location=make_map(cinder))
    t = torch.load(io.BytesIO(data), map_location=make_map(torch))
    assert_same(c, t)
    assert c["w"].device == cinder.device("cpu")


def test_map_location_callable_sees_the_location_tag():
    seen = {}

    def record(lib):
        def fn(storage, location):
            seen.setdefault(lib.__name__, []).append(location)
            return None if location == "cpu" else storage
        return fn
    data = cuda_tagged_checkpoint()
    assert_same(cinder.load(io.BytesIO(data), map_location=record(cinder)),
                torch.load(io.BytesIO(data), map_location=record(torch)))
    assert seen["cinder"] == seen["torch"] == ["cuda:0"]


def test_mmap_load_is_copy_on_write(tmp_path):
    path = tmp_path / "m.pt"
    base = cinder.arange(1000.)
    cinder.save({"w": base, "v": base[10:20]}, path)
    before = path.read_bytes()
    c = cinder.load(path, mmap=True)
    assert_same(c, torch.load(path, mmap=True))
    assert shares_storage(c["w"], c["v"])
    c["w"][10] = -1.0                     # private to this process: the file is unchanged
    assert c["v"][0].item() == -1.0 and path.read_bytes() == before


def test_mmap_shared_writes_reach_the_file(tmp_path):
    path = tmp_path / "shared.pt"
    cinder.save({"w": cinder.zeros(4)}, path)
    assert cinder.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
    with cinder.serialization.set_default_mmap_options(mmap.MAP_SHARED):
        loaded = cinder.load(path, mmap=True)
        loaded["w"][2] = 5.0
        del loaded
    assert cinder.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
    assert torch.load(path)["w"].tolist() == [0.0, 0.0, 5.0, 0.0]
    with pytest.raises(ValueError, match="expected mmap.MAP_PRIVATE or mmap.MAP_SHARED"):
        cinder.serialization.set_default_mmap_options(12345)


def test_mmap_errors_match_torch(tmp_path):
    legacy = tmp_path / "legacy.pt"
    cinder.save({"w": cinder.ones(2)}, legacy, _use_new_zipfile_serialization=False)
    for f, exc in ((io.BytesIO(save_bytes(cinder, {})), ValueError), (str(legacy), RuntimeError)):
        messages = []
        for lib in (torch, cinder):
            if hasattr(f, "seek"):
                f.seek(0)
            with pytest.raises(exc) as info:
                lib.load(f, mmap=True)
            messages.append(str(info.value))
        assert messages[0] in messages[1]


# ----------------------------------------------------------------------------------------------
# pickle_module, pickle_protocol, weights_only and the safe-globals API
# ----------------------------------------------------------------------------------------------
def test_pickle_protocol_and_module():
    obj = {"w": cinder.arange(3.)}
    data = save_bytes(cinder, obj, pickle_protocol=4)
    assert torch.load(io.BytesIO(data), weights_only=False)["w"].tolist() == [0.0, 1.0, 2.0]
    assert cinder.load(io.BytesIO(data), pickle_module=pickle)["w"].tolist() == [0.0, 1.0, 2.0]
    # Like PyTorch, the restricted loader only reads protocol 2.
    for lib in (torch, cinder):
        with pytest.raises(pickle.UnpicklingError, match="Unsupported operand 149"), \
                pytest.warns(UserWarning, match="Detected pickle protocol 4 in the checkpoint"):
            lib.load(io.BytesIO(data))
        with pytest.raises(RuntimeError, match="Can not safely load weights when explicit "):
            lib.load(io.BytesIO(data), pickle_module=pickle, weights_only=True)


class Config:
    """A user class saved inside a checkpoint (weights_only refuses it by default)."""

    def __init__(self, depth):
        self.depth = depth


def test_user_class_refused_by_default_then_allowed():
    data = save_bytes(cinder, {"cfg": Config(3), "w": cinder.ones(1)})
    with pytest.raises(pickle.UnpicklingError) as t_info:
        torch.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as c_info:
        cinder.load(io.BytesIO(data))
    assert str(t_info.value) in str(c_info.value)
    with cinder.serialization.safe_globals([Config]):
        assert cinder.serialization.get_safe_globals() == [Config]
        assert cinder.load(io.BytesIO(data))["cfg"].depth == 3
    assert cinder.serialization.get_safe_globals() == []
    cinder.serialization.add_safe_globals([(Config, f"{__name__}.Config")])
    try:
        assert cinder.load(io.BytesIO(data))["cfg"].depth == 3
    finally:
        cinder.serialization.clear_safe_globals()
    assert cinder.load(io.BytesIO(data), weights_only=False)["cfg"].depth == 3


def test_torch_globals_map_to_cinder_without_weights_only():
    data = save_bytes(torch, [torch.Size([2, 3]), torch.device("cpu"), torch.float16,
                              torch.nn.Parameter(torch.ones(2))])
    size, dev, dtype, param = cinder.load(io.BytesIO(data), weights_only=False)
    assert isinstance(size, cinder.Size) and dev == cinder.device("cpu")
    assert dtype is cinder.float16 and isinstance(param, cinder.nn.Parameter)


def test_whole_module_pickles_map_between_torch_and_cinder():
    linear = getattr(cinder.nn, "Linear", None)
    if linear is None:
        pytest.skip("cinder.nn.Linear is not available")
    torch.manual_seed(0)
    t_model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    data = save_bytes(torch, t_model)
    for lib in (torch, cinder):           # a whole module needs weights_only=False in both
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.container"
                                                         ".Sequential was not an allowed"):
            lib.load(io.BytesIO(data))
    with cinder.serialization.safe_globals([cinder.nn.Sequential, cinder.nn.Linear,
                                            cinder.nn.ReLU]):
        allowed = cinder.load(io.BytesIO(data))     # cinder classes allowlisted by torch name
    assert type(allowed[1]).__name__ == "ReLU"
    c_model = cinder.load(io.BytesIO(data), weights_only=False)
    assert type(c_model[0]).__module__ == "cinder.nn.modules.linear"
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(c_model(cinder.tensor(x)).detach().numpy(),
                               t_model(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    back = torch.load(io.BytesIO(save_bytes(cinder, c_model)), weights_only=False)
    assert type(back[0]) is torch.nn.Linear
    np.testing.assert_array_equal(back[0].weight.detach().numpy(),
                                  t_model[0].weight.detach().numpy())


# ----------------------------------------------------------------------------------------------
# skip_data, register_package, errors on save
# ----------------------------------------------------------------------------------------------
def test_skip_data_writes_sized_records_without_bytes():
    obj = {"w": cinder.arange(1., 5.)}
    with cinder.serialization.skip_data():
        data = save_bytes(cinder, obj)
    assert len(data) == len(save_bytes(cinder, obj))
    assert torch.load(io.BytesIO(data))["w"].tolist() == [0.0] * 4
    with cinder.serialization.skip_data():
        loaded = cinder.load(io.BytesIO(save_bytes(cinder, obj)))
    assert loaded["w"].shape == (4,)


def test_register_package_restores_custom_locations():
    calls = []

    def deserializer(storage, location):
        if location == "vault":
            calls.append(location)
            return storage
        return None
    cinder.serialization.register_package(5, lambda storage: None, deserializer)
    try:
        data = save_bytes(torch, {"w": torch.ones(2)})
        pkl = zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
        pkl = pkl.replace(b"X\x03\x00\x00\x00cpu", b"X\x05\x00\x00\x00vault")
        loaded = cinder.load(io.BytesIO(replace_record(data, "archive/data.pkl", pkl)))
    finally:
        cinder.serialization._package_registry[:] = [
            entry for entry in cinder.serialization._package_registry if entry[0] != 5]
    assert calls == ["vault"] and loaded["w"].tolist() == [1.0, 1.0]


def test_same_memory_as_two_dtypes_is_refused_like_torch():
    for lib in (torch, cinder):
        t = lib.ones(2)
        with pytest.raises(RuntimeError, match="view the same data as different types"):
            lib.save([t, t.view(lib.int32)], io.BytesIO())


def test_zip_records_match_torch_for_a_path(tmp_path):
    cinder.save({"x": cinder.ones(2)}, tmp_path / "ex.pt")
    torch.save({"x": torch.ones(2)}, tmp_path / "tx.pt")
    assert zip_records((tmp_path / "ex.pt").read_bytes()) == \
        [n.replace("tx/", "ex/") for n in zip_records((tmp_path / "tx.pt").read_bytes())]
    assert isinstance(pathlib.Path(tmp_path / "ex.pt"), os.PathLike)


@pytest.mark.gpu
@pytest.mark.skipif(not cinder.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_tensors_save_tagged_and_load_mapped():
    data = save_bytes(cinder, {"w": cinder.arange(3.).cuda()})
    pkl = zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
    assert b"cuda:0" in pkl
    assert torch.load(io.BytesIO(data), map_location="cpu")["w"].tolist() == [0.0, 1.0, 2.0]
    on_gpu = cinder.load(io.BytesIO(save_bytes(torch, {"w": torch.arange(3.)})),
                         map_location="cuda")
    assert on_gpu["w"].device.type == "cuda" and on_gpu["w"].tolist() == [0.0, 1.0, 2.0]


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("fmt", FORMATS)
def test_storages_saved_directly(fmt):
    def make(L):
        t = L.arange(4.)
        return {"typed": t.storage(), "untyped": L.arange(3.).untyped_storage(), "t": t}
    for writer, reader in ((cinder, torch), (torch, cinder)):
        loaded = reader.load(io.BytesIO(save_bytes(writer, make(writer), **FORMATS[fmt])))
        expected = make(reader)
        assert loaded["typed"].tolist() == expected["typed"].tolist()
        assert loaded["untyped"].tolist() == expected["untyped"].tolist()
        assert str(loaded["typed"].dtype) == "torch.float32"
        assert loaded["typed"].data_ptr() == loaded["t"].data_ptr()


def test_pytorch_01_tar_format():
    path = os.path.join(FIXTURES, "torch01_tar.pt")
    c, t = cinder.load(path, weights_only=False), torch.load(path, weights_only=False)
    assert_same(c, t)
    messages = []
    for lib in (torch, cinder):      # the tar format needs weights_only=False in both
        with pytest.raises(RuntimeError) as info:
            lib.load(path)
        messages.append(str(info.value))
    assert messages[0] in messages[1]


def test_saving_a_class_whose_module_cannot_be_imported_fails_as_in_pytorch():
    """A whole model whose class lives in a module pickle cannot import (a script run under
    another ``__name__``): the same PicklingError text as PyTorch's (C) pickler."""
    messages = []
    for lib in (cinder, torch):
        cls = type("Net", (lib.nn.Module,), {"__module__": "__no_such_module__"})
        with pytest.raises(pickle.PicklingError) as info:
            lib.save(cls(), io.BytesIO())
        messages.append(str(info.value).replace("torch", "cinder"))
    assert messages[0] == messages[1]
