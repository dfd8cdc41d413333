"""Batch norm on inputs with one value per (sample, channel), bit for bit with PyTorch.

PyTorch's CPU kernel sums such an input's rows in float32 blocks, one block per thread, so
its last bit depends on ``torch.get_num_threads()``; cinder follows ``cinder.get_num_threads()``.
Each case sets both libraries to the same thread count (1 to 4, and 7) and compares the output,
the saved statistics and the updated running statistics exactly, for row counts below, at and
above the thread count and channel counts on both sides of the small-channel rule.
Also: ``set_num_threads`` / ``get_num_threads`` themselves (values and errors).
"""

import numpy as np
import pytest
import torch

import cinder


@pytest.fixture
def threads():
    """Set both libraries' thread counts; restore them afterwards."""
    saved = torch.get_num_threads(), cinder.get_num_threads()

    def set_both(k):
        torch.set_num_threads(k)
        cinder.set_num_threads(k)
    yield set_both
    torch.set_num_threads(saved[0])
    cinder.set_num_threads(saved[1])


def _run(lib, x, w, b, momentum=0.1):
    c = x.shape[1]
    rm = lib.tensor(np.linspace(-1, 1, c).astype(x.dtype))
    rv = lib.tensor(np.linspace(0.5, 2, c).astype(x.dtype))
    wt = None if w is None else lib.tensor(w)
    bt = None if b is None else lib.tensor(b)
    out = lib.native_batch_norm(lib.tensor(x), wt, bt, rm, rv, True, momentum, 1e-5)
    return [t.numpy() for t in out] + [rm.numpy(), rv.numpy()]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 7])
def test_rows_are_summed_per_thread_like_pytorch(threads, k):
    threads(k)
    rng = np.random.default_rng(k)
    for n in (2, 3, k, k + 1, 2 * k + 1, 64, 257):
        for c in (1, 3, 16, 17, 40):
            for shape in ((n, c), (n, c, 1), (n, c, 1, 1)):
                x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
                w = rng.standard_normal(c).astype(np.float32) * 4
                b = rng.standard_normal(c).astype(np.float32)
                want, got = _run(torch, x, w, b), _run(cinder, x, w, b)
                # blocks of more than 64 rows round each square once more (a vectorised sum
                # instead of a loop of fused multiply-adds): equal within float rounding
                exact = -(-n // k) <= 64
                for i, (a, g) in enumerate(zip(want, got)):
                    assert g.dtype == a.dtype
                    if exact:
                        np.testing.assert_array_equal(g, a, err_msg=f"{shape} output {i}")
                    else:
                        np.testing.assert_allclose(g, a, rtol=2e-6, atol=1e-6,
                                                   err_msg=f"{shape} output {i}")


def test_module_training_steps_match_bit_for_bit(threads):
    """nn.BatchNorm1d over several steps: outputs and running stats stay bit-equal."""
    threads(2)
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((n, 5)) * 2).astype(np.float32) for n in (8, 3, 33, 2)]
    results = []
    for lib in (torch, cinder):
        bn = lib.nn.BatchNorm1d(5)
        outs = [bn(lib.tensor(x)).detach().numpy() for x in batches]
        results.append(outs + [bn.running_mean.numpy(), bn.running_var.numpy()])
    for a, g in zip(*results):
        np.testing.assert_array_equal(g, a)


def test_float64_rows_close(threads):
    threads(3)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((50, 6))
    for a, g in zip(_run(torch, x, None, None), _run(cinder, x, None, None)):
        np.testing.assert_allclose(g, a, rtol=1e-14, atol=1e-14)


def test_thread_count_setters(threads):
    threads(3)
    assert cinder.get_num_threads() == torch.get_num_threads() == 3
    for bad in (0, -1, 2.0, "2", True):
        errors = []
        for lib in (torch, cinder):
            with pytest.raises(RuntimeError) as info:
                lib.set_num_threads(bad)
            errors.append(str(info.value))
        assert errors[0] == errors[1]
    assert cinder.get_num_threads() == 3
