"""softmax / log_softmax of float16 and bfloat16 over every dim, bit for bit against PyTorch.

Over a dim that is not the last, PyTorch's CPU kernel splits the (outer, inner) positions into
one chunk per intra-op thread and runs each stretch of an inner row a vector at a time; the
positions left over go through a scalar loop that rounds ``exp(x - max)`` to the tensor's dtype
before dividing by the float32 sum. Which positions those are depends on the thread count, so
both libraries run with the same one. log_softmax keeps everything in float32 there.
"""

import numpy as np
import pytest
import torch

import cinder
import cinder.nn.functional as CF
import torch.nn.functional as TF

CASES = [((4, 5, 3), 1), ((4, 5, 3), 0), ((3, 40, 37), 1), ((2, 7, 64), 1), ((6, 33), 0),
         ((3, 6, 4, 5), 1), ((5, 70), 0), ((7, 9, 11, 3), 2), ((2, 5, 96), -2), ((9, 4), -1)]


@pytest.fixture(params=[1, 2, 3], ids=lambda n: f"threads{n}")
def threads(request):
    before_t, before_c = torch.get_num_threads(), cinder.get_num_threads()
    torch.set_num_threads(request.param)
    cinder.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(before_t)
    cinder.set_num_threads(before_c)


def _bits(t):
    if isinstance(t, torch.Tensor):
        return t.view(torch.int16).numpy()
    return t._data.view(np.int16)


def _inputs(shape, seed, dtype=None):
    x = (np.random.RandomState(seed).randn(*shape) * 3).astype(np.float32)
    t, c = torch.from_numpy(x), cinder.from_numpy(x)
    if dtype is not None:
        t, c = t.to(getattr(torch, dtype)), c.to(getattr(cinder, dtype))
    return t, c


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_bits_every_dim(fn, dtype, case, threads):
    shape, dim = CASES[case]
    t, c = _inputs(shape, case, dtype)
    expected = getattr(torch, fn)(t, dim)
    got = getattr(cinder, fn)(c, dim)
    assert got.dtype == getattr(cinder, dtype)
    np.testing.assert_array_equal(_bits(got), _bits(expected))
    # the method and nn.functional forms take the same path
    np.testing.assert_array_equal(_bits(getattr(c, fn)(dim)), _bits(expected))
    np.testing.assert_array_equal(_bits(getattr(CF, fn)(c, dim=dim)), _bits(expected))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("dim", [0, 1])
def test_dtype_argument(fn, dtype, dim, threads):
    """``F.softmax(x, dim, dtype=)`` casts a float32 input first, then runs the reduced kernel."""
    t, c = _inputs((6, 35), 11 + dim)
    expected = getattr(TF, fn)(t, dim, dtype=getattr(torch, dtype))
    got = getattr(CF, fn)(c, dim, dtype=getattr(cinder, dtype))
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(_bits(got), _bits(expected))
