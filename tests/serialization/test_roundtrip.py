"""cinder.save/load against torch.save/load: each writes, the other reads, both formats."""

import io
import os
import pathlib
import pickle
import struct
import zipfile

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
        return {"w": L.tensor(a), "v": L.tensor(a)[1:], "p": L.nn.Parameter(L.tensor(a))}
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
    assert str(t_info.value).split("\n\nCheck the documentation")[0] in str(c_info.value)
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
        pytest.skip("cinder.nn.Linear comes from the nn branch (h/nncore)")
    torch.manual_seed(0)
    t_model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    c_model = cinder.load(io.BytesIO(save_bytes(torch, t_model)), weights_only=False)
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
