"""``torch.cuda`` bookkeeping against PyTorch's CUDA build: devices, properties, streams,
events, the stream context, memory counters, bad ordinals, pinned memory and asynchronous
copies, and DataLoader ``pin_memory=True``.

Marked ``gpu``: skipped without CuPy and a CUDA device. On the GPU machine the oracle is
PyTorch 2.11 built for CUDA (not 2.13); the behaviours compared here are the same in both.
"""

import numpy as np
import pytest
import torch

import cinder
from oracle import outcome

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cinder.cuda.is_available() or not torch.cuda.is_available(),
                       reason="needs CuPy, a CUDA GPU and PyTorch built for CUDA"),
]

LIBS = (torch, cinder)


@pytest.mark.parametrize("expr", [
    "L.cuda.is_available()", "L.cuda.device_count()", "L.cuda.current_device()",
    "L.cuda.get_device_name()", "L.cuda.get_device_name(0)", "L.cuda.get_device_capability()",
    "L.cuda.get_device_capability('cuda:0')", "L.cuda.is_initialized()",
    "L.cuda.set_device(0)", "L.cuda.synchronize()", "L.cuda.synchronize('cuda:0')",
    "L.cuda.current_stream().device", "L.cuda.current_stream() == L.cuda.default_stream()",
    "L.cuda.default_stream().cuda_stream", "L.cuda.Stream().query()",
    "L.cuda.Stream() == L.cuda.current_stream()", "L.cuda.Event().query()",
    "L.zeros(2).to('cuda:1')", "L.zeros(2, device=L.device('cuda', 1))",
    "L.cuda.set_device(1)", "L.cuda.get_device_properties(3)",
    "L.zeros(2).pin_memory().is_pinned()", "L.zeros(2).is_pinned()",
    "L.zeros(2).pin_memory().untyped_storage().is_pinned()",
    "L.zeros(2, device='cuda').pin_memory()", "L.ones(3).pin_memory().device",
    "(lambda p: p.pin_memory() is p)(L.zeros(2).pin_memory())",
    "L.zeros(2, device='cuda').is_pinned()",
    # every device argument goes through torch.cuda._utils._get_device_index
    "L.cuda.set_device('cuda:0')", "L.cuda.set_device(L.device('cuda', 0))",
    "L.cuda.set_device(L.cuda.device(0))", "L.cuda.set_device(None)",
    "L.cuda.set_device('cpu')", "L.cuda.synchronize(L.cuda.device(0))",
    "L.cuda.current_stream(L.cuda.device(0)).device", "L.cuda.default_stream('cuda').device",
    "L.cuda.Stream('cuda:0').device", "L.cuda.Stream('cpu')",
    "type(L.cuda.memory_allocated(L.cuda.device(0)))", "type(L.cuda.memory_stats('cuda:0'))",
    "L.cuda.get_device_capability(L.device('cuda'))",
    "(lambda d: (d.idx, d.prev_idx))(L.cuda.device('cuda:0'))",
])
def test_cuda_api_matches_torch(expr):
    got, want = outcome(expr, cinder), outcome(expr, torch)
    if want[0] == "raises":
        assert got[:2] == want[:2], expr       # the type; messages may carry CUDA's own text
    else:
        assert got == want, expr


def test_device_properties_match_torch():
    c, t = cinder.cuda.get_device_properties(0), torch.cuda.get_device_properties(0)
    for name in ("name", "major", "minor", "total_memory", "multi_processor_count",
                 "L2_cache_size", "warp_size", "is_integrated", "is_multi_gpu_board"):
        assert getattr(c, name) == getattr(t, name), name


def test_invalid_ordinal_message_matches_torch():
    for lib in LIBS:
        with pytest.raises(lib.AcceleratorError, match="invalid device ordinal") as info:
            lib.zeros(2, device="cuda:7")
        assert isinstance(info.value, RuntimeError)


def test_device_context_and_device_of():
    with cinder.cuda.device(0):
        assert cinder.cuda.current_device() == 0
    x = cinder.zeros(2, device="cuda")
    with cinder.cuda.device_of(x):
        assert cinder.cuda.current_device() == 0
    with cinder.cuda.device_of(cinder.zeros(2)):      # CPU tensor: nothing changes
        assert cinder.cuda.current_device() == 0


def test_stream_context_routes_work_and_restores():
    s = cinder.cuda.Stream()
    before = cinder.cuda.current_stream()
    with cinder.cuda.stream(s):
        assert cinder.cuda.current_stream() == s
        y = cinder.ones(1000, device="cuda") * 3
    assert cinder.cuda.current_stream() == before
    s.synchronize()
    assert s.query()
    cinder.cuda.current_stream().wait_stream(s)
    assert float(y.sum()) == 3000.0


def test_events_time_work():
    start, end = cinder.cuda.Event(enable_timing=True), cinder.cuda.Event(enable_timing=True)
    start.record()
    a = cinder.randn(512, 512, device="cuda")
    for _ in range(5):
        a = a @ a / 512
    end.record()
    end.synchronize()
    assert end.query()
    assert start.elapsed_time(end) > 0
    ev = cinder.cuda.Event()
    ev.record(cinder.cuda.current_stream())
    ev.wait()
    ev.synchronize()


def test_memory_counters_follow_allocations():
    """The counters move as PyTorch's do: a new tensor raises ``memory_allocated`` by its
    (512-byte rounded) size, freeing it lowers it, the peak stays until reset."""
    cinder.cuda.empty_cache()
    for lib in LIBS:
        lib.cuda.synchronize()
        base = lib.cuda.memory_allocated()
        lib.cuda.reset_peak_memory_stats()
        x = lib.empty(1 << 20, device="cuda")              # 4 MiB
        grown = lib.cuda.memory_allocated() - base
        assert grown == 4 << 20, lib.__name__
        assert lib.cuda.max_memory_allocated() >= base + (4 << 20)
        assert lib.cuda.memory_reserved() >= lib.cuda.memory_allocated()
        assert lib.cuda.max_memory_reserved() >= lib.cuda.memory_reserved()
        del x
        assert lib.cuda.memory_allocated() == base, lib.__name__
        assert lib.cuda.max_memory_allocated() >= base + (4 << 20)
        lib.cuda.reset_peak_memory_stats()
        assert lib.cuda.max_memory_allocated() == base
        stats = lib.cuda.memory_stats()
        assert stats["allocated_bytes.all.current"] == base
        lib.cuda.empty_cache()
        free, total = lib.cuda.mem_get_info()
        assert 0 < free <= total


def test_pinned_async_copy_keeps_values():
    """``pin_memory()`` gives page-locked memory; ``to('cuda', non_blocking=True)`` from it
    is an asynchronous copy on the current stream whose values arrive intact."""
    a = np.random.default_rng(0).standard_normal((256, 1024)).astype(np.float32)
    p = cinder.from_numpy(a).pin_memory()
    assert p.is_pinned() and not cinder.from_numpy(a).is_pinned()
    s = cinder.cuda.Stream()
    with cinder.cuda.stream(s):
        g = p.to("cuda", non_blocking=True)
        h = p.cuda(non_blocking=True) * 2
    s.synchronize()
    np.testing.assert_array_equal(g.cpu().numpy(), a)
    np.testing.assert_array_equal(h.cpu().numpy(), a * 2)
    out = cinder.empty(256, 1024, device="cuda")
    out.copy_(p, non_blocking=True)
    np.testing.assert_array_equal(out.cpu().numpy(), a)


def test_dataloader_pins_batches():
    """DataLoader(pin_memory=True) hands out pinned batches (its pin thread with workers),
    as PyTorch's does when CUDA is available."""
    for lib in LIBS:
        data = lib.utils.data.TensorDataset(lib.arange(40.0).reshape(20, 2), lib.arange(20))
        for workers in (0, 2):
            loader = lib.utils.data.DataLoader(data, batch_size=8, pin_memory=True,
                                               num_workers=workers)
            batches = list(loader)
            assert all(x.is_pinned() and y.is_pinned() for x, y in batches), lib.__name__
            moved = [x.to("cuda", non_blocking=True) for x, _ in batches]
            lib.cuda.synchronize()
            assert float(sum(m.sum() for m in moved)) == float(sum(range(40)))


def test_data_parallel_on_one_gpu_is_the_module():
    for lib in LIBS:
        lib.manual_seed(0)
        inner = lib.nn.Linear(3, 2).cuda()
        dp = lib.nn.DataParallel(inner)
        assert dp.module is inner
        assert list(dp.state_dict()) == ["module.weight", "module.bias"]
        out = dp(lib.ones(4, 3, device="cuda"))
        assert out.device.type == "cuda" and tuple(out.shape) == (4, 2)
