"""Memory exchange against PyTorch: ``from_dlpack``/``to_dlpack`` (NumPy arrays, capsules,
PyTorch tensors, and back), ``frombuffer`` sharing a writable buffer, ``from_file`` with
``shared=True`` writing through to the file."""

import gc

import numpy as np
import pytest
import torch

import cinder

LIBS = (torch, cinder)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.uint8,
                                   np.bool_, np.complex64])
def test_from_dlpack_shares_numpy_memory(dtype):
    for lib in LIBS:
        a = np.arange(6).reshape(2, 3).astype(dtype)
        t = lib.from_dlpack(a)
        assert str(t.dtype) == str(torch.from_dlpack(a.copy()).dtype)
        assert tuple(t.shape) == (2, 3)
        if dtype is not np.bool_:
            t[0, 0] = 5
            assert a[0, 0] == 5


def test_capsule_round_trips():
    for lib in LIBS:
        src = lib.arange(4.)
        back = lib.from_dlpack(lib.to_dlpack(src))
        gc.collect()
        back[1] = 9
        assert src.tolist() == [0.0, 9.0, 2.0, 3.0]


def test_exchange_with_pytorch_both_ways():
    c = cinder.arange(4.)
    t = torch.from_dlpack(c)
    t[0] = 7
    assert c.tolist() == [7.0, 1.0, 2.0, 3.0]
    t2 = torch.arange(3, dtype=torch.int64)
    c2 = cinder.from_dlpack(t2)
    c2[2] = -1
    assert t2.tolist() == [0, 1, -1] and c2.dtype == cinder.int64
    c3 = cinder.from_dlpack(torch.to_dlpack(torch.ones(2, 2).t()))
    gc.collect()
    assert c3.stride() == (1, 2) and c3.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    np.testing.assert_array_equal(np.from_dlpack(cinder.ones(2)), np.ones(2))


def test_export_of_a_tensor_requiring_grad_is_refused():
    for lib in LIBS:
        with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
            lib.ones(2, requires_grad=True).__dlpack__()
        assert lib.ones(2).__dlpack_device__()[0] == 1


def test_frombuffer_shares_a_writable_buffer():
    for lib in LIBS:
        buf = bytearray(np.arange(4, dtype=np.float32).tobytes())
        t = lib.frombuffer(buf, dtype=lib.float32, offset=4, count=2)
        t[0] = 10
        assert np.frombuffer(buf, dtype=np.float32).tolist() == [0.0, 10.0, 2.0, 3.0]


def test_from_file_shared_writes_back(tmp_path):
    for lib in LIBS:
        path = tmp_path / f"{lib.__name__}.bin"
        np.arange(6, dtype=np.float32).tofile(path)
        shared = lib.from_file(str(path), True, 3)
        shared[0] = 42
        private = lib.from_file(str(path), False, 3)
        private[1] = -1
        assert np.fromfile(path, dtype=np.float32)[:3].tolist() == [42.0, 1.0, 2.0]
        del shared
        gc.collect()


def test_buffer_errors_come_in_pytorchs_order(tmp_path):
    missing = str(tmp_path / "missing.bin")
    for lib in LIBS:
        # a file that cannot be opened is reported before a dtype that cannot require grad
        with pytest.raises(RuntimeError, match="unable to open file"):
            lib.from_file(missing, size=3, dtype=lib.int64, requires_grad=True)
        with pytest.raises(ValueError, match="must not be 0"):
            lib.frombuffer(bytearray(), dtype=lib.int64, requires_grad=True)
        with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
            lib.frombuffer(bytearray(16), dtype=lib.int64, requires_grad=True)
        assert lib.frombuffer(bytearray(8), dtype=lib.float32, requires_grad=True).requires_grad
