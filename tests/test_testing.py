"""cinder.testing (torch.testing): assert_close passes and fails where PyTorch's does, with the
same exception type and message; make_tensor respects shape, dtype, range and flags."""

import pytest
from oracle import check

import cinder


@pytest.mark.parametrize("args", [
    "L.tensor([1., 2, 3]), L.tensor([1., 2.5, 3])", "L.tensor([1, 2, 3]), L.tensor([1, 3, 3])",
    "L.tensor([1., 2]), L.tensor([1., 2, 3])", "L.tensor([1.]), L.tensor([1.], dtype=L.float64)",
    "1.0, 1.5", "1, 2", "[L.tensor(1.), L.tensor(2.)], [L.tensor(1.), L.tensor(3.)]",
    "{'a': L.tensor(1.)}, {'a': L.tensor(2.)}", "L.tensor([1.]), L.tensor([1.]), rtol=0.1",
    "[1, 2], [1, 2, 3]", "L.tensor([[1., 2], [3, 4]]), L.tensor([[1., 2], [3, 5]]), msg='no'",
    "L.tensor(float('nan')), L.tensor(float('nan'))",
    "L.tensor([float('nan'), 1.]), L.tensor([float('nan'), 1.]), equal_nan=True",
    "L.tensor([1.]), [1.]", "L.tensor([1., 2.]), L.tensor([1., 2.000001])",
    "L.tensor([1., 2.], dtype=L.float64), L.tensor([1., 2.001], dtype=L.float64)",
    "L.tensor([1., 2.]), L.tensor([1.1, 2.]), rtol=0.2, atol=0.0",
    "L.tensor([1., 2.]), L.tensor([1, 2])", "L.tensor([1., 2.]), L.tensor([1, 2]), "
    "check_dtype=False", "L.tensor([True, False]), L.tensor([True, True])",
    "L.zeros(2, 3).t(), L.zeros(3, 2), check_stride=True",
    "(L.tensor([1.]), 2.0), (L.tensor([1.]), 2.0)",
])
def test_assert_close_like_pytorch(args):
    check(f"L.testing.assert_close({args})")


def test_make_tensor():
    t = cinder.testing.make_tensor(3, 4, dtype=cinder.float64, low=-2, high=3)
    assert t.shape == (3, 4) and t.dtype is cinder.float64
    assert bool(((t >= -2) & (t < 3)).all())
    i = cinder.testing.make_tensor((50,), dtype=cinder.int64, low=1, high=4, exclude_zero=True)
    assert bool(((i >= 1) & (i <= 4)).all())
    b = cinder.testing.make_tensor(5, dtype=cinder.bool)
    assert b.dtype is cinder.bool
    n = cinder.testing.make_tensor(2, 6, dtype=cinder.float32, noncontiguous=True,
                                   requires_grad=True)
    assert not n.is_contiguous() and n.requires_grad and n.shape == (2, 6)
    z = cinder.testing.make_tensor(200, dtype=cinder.float32, low=-1, high=1, exclude_zero=True)
    assert bool((z != 0).all())
    with pytest.raises(ValueError):
        cinder.testing.make_tensor(2, dtype=cinder.float32, low=3, high=1)
