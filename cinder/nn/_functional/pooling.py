"""``nn.functional``, max / average / adaptive / power-average / fractional pooling and unpooling.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""

from ...ops.nn import pool as _pool
from ...ops.nn._utils import ntuple as _ntuple
from ... import ops as _o

__all__ = ["max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool1d", "max_pool2d", "max_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d",
           "lp_pool1d", "lp_pool2d", "lp_pool3d", "fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]


max_pool1d_with_indices = _pool.max_pool1d_with_indices
max_pool2d_with_indices = _pool.max_pool2d_with_indices
max_pool3d_with_indices = _pool.max_pool3d_with_indices
avg_pool1d = _pool.avg_pool1d
avg_pool2d = _pool.avg_pool2d
avg_pool3d = _pool.avg_pool3d


def _max_pool_fn(with_indices, values_only, name):
    def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=False):
        if not return_indices:
            return values_only(input, kernel_size, stride, padding, dilation, ceil_mode)
        return with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)

    max_pool.__name__ = max_pool.__qualname__ = name
    max_pool.__doc__ = (f"{name[-2]}-d max pooling; with ``return_indices`` also the flat "
                        "per-channel positions of the maxima (for ``max_unpool``).")
    return max_pool


max_pool1d = _max_pool_fn(max_pool1d_with_indices, _pool.max_pool1d, "max_pool1d")
max_pool2d = _max_pool_fn(max_pool2d_with_indices, _pool.max_pool2d, "max_pool2d")
max_pool3d = _max_pool_fn(max_pool3d_with_indices, _pool.max_pool3d, "max_pool3d")

adaptive_avg_pool1d = _pool.adaptive_avg_pool1d
adaptive_avg_pool2d = _pool.adaptive_avg_pool2d
adaptive_avg_pool3d = _pool.adaptive_avg_pool3d


def _adaptive_max_fn(kernel, name):
    def adaptive_max_pool(input, output_size, return_indices=False):
        values, indices = kernel(input, output_size)
        return (values, indices) if return_indices else values

    adaptive_max_pool.__name__ = adaptive_max_pool.__qualname__ = name
    adaptive_max_pool.__doc__ = (f"Adaptive {name[-2]}-d max pooling to ``output_size``; with "
                                 "``return_indices`` also the positions of the maxima.")
    return adaptive_max_pool


adaptive_max_pool1d = _adaptive_max_fn(_pool.adaptive_max_pool1d, "adaptive_max_pool1d")
adaptive_max_pool2d = _adaptive_max_fn(_pool.adaptive_max_pool2d, "adaptive_max_pool2d")
adaptive_max_pool3d = _adaptive_max_fn(_pool.adaptive_max_pool3d, "adaptive_max_pool3d")
adaptive_max_pool1d_with_indices = _pool.adaptive_max_pool1d
adaptive_max_pool2d_with_indices = _pool.adaptive_max_pool2d
adaptive_max_pool3d_with_indices = _pool.adaptive_max_pool3d


def _unpool_output_size(input, kernel_size, stride, padding, output_size, nd):
    """The unpooled size: the inverse of the pooling size formula, or ``output_size`` (which
    may include the batch and channel dims) after checking it is reachable."""
    k = _ntuple(kernel_size, nd, "kernel_size")
    s = k if stride is None else _ntuple(stride, nd, "stride")
    p = _ntuple(padding, nd, "padding")
    spatial = input.shape[-nd:]
    default = [(n - 1) * ss - 2 * pp + kk for n, ss, pp, kk in zip(spatial, s, p, k)]
    if output_size is None:
        return default
    size = list(output_size)
    if len(size) == nd + 2 or (len(size) == nd + 1 and input.dim() == nd + 1):
        size = size[-nd:]
    if len(size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                         f"elements, but it has a length of '{len(size)}'")
    for d, (want, base, ss) in enumerate(zip(size, default, s)):
        if not base - ss < want < base + ss:
            raise ValueError(f'invalid output_size "{size}" (dim {d} must be between '
                             f'{base - ss} and {base + ss})')
    return size


def _max_unpool_fn(nd):
    def max_unpool(input, indices, kernel_size, stride=None, padding=0, output_size=None):
        size = _unpool_output_size(input, kernel_size, stride, padding, output_size, nd)
        if nd == 1:
            return _pool.max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1],
                                    2).squeeze(-1)
        return _pool.max_unpool(input, indices, size, nd)

    max_unpool.__name__ = max_unpool.__qualname__ = f"max_unpool{nd}d"
    max_unpool.__doc__ = (f"Partial inverse of max_pool{nd}d: each value goes to its index in a "
                          "zero tensor of the unpooled size.")
    return max_unpool


max_unpool1d, max_unpool2d, max_unpool3d = (_max_unpool_fn(n) for n in (1, 2, 3))


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd):
    """Power-average pooling: (sum over the window of x**p) ** (1/p), computed as PyTorch
    does from an average pool (sign and relu keep the root real)."""
    k = _ntuple(kernel_size, nd, "kernel_size")
    pool = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    if stride is not None:
        out = pool(input.pow(norm_type), k, stride, 0, ceil_mode)
    else:
        out = pool(input.pow(norm_type), k, padding=0, ceil_mode=ceil_mode)
    count = 1
    for v in k:
        count *= v
    return (out.sign() * out.abs().relu()).mul(count).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-d power-average pooling (p = ``norm_type``)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-d power-average pooling (p = ``norm_type``)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-d power-average pooling (p = ``norm_type``)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


def _fractional_fn(nd):
    name = f"fractional_max_pool{nd}d"

    def fractional_max_pool(input, kernel_size, output_size=None, output_ratio=None,
                            return_indices=False, _random_samples=None):
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an "
                             "output_ratio")
        k = _ntuple(kernel_size, nd, "kernel_size")
        if output_size is None:
            # (PyTorch's 2-d version takes len() of the ratio, so a bare float is a TypeError.)
            if nd == 2 and len(output_ratio) > 2:
                raise ValueError("fractional_max_pool2d requires output_ratio to either be a "
                                 "single Int or tuple of Ints.")
            ratio = output_ratio if isinstance(output_ratio, (list, tuple)) else \
                (output_ratio,) * nd
            if len(ratio) == 1:
                ratio = tuple(ratio) * nd
            output_size = [int(input.size(-nd + i) * ratio[i]) for i in range(nd)]
        size = _ntuple(output_size, nd, "output_size")
        if _random_samples is None:
            batch = 1 if input.dim() == nd + 1 else input.size(0)
            _random_samples = _o.FUNCTIONS["rand"](batch, input.size(-nd - 1), nd,
                                                   dtype=input.dtype)
        values, indices = _pool.fractional_max_pool(input, k, size, _random_samples)
        return (values, indices) if return_indices else values

    fractional_max_pool.__name__ = fractional_max_pool.__qualname__ = name
    fractional_max_pool.__doc__ = (
        f"{nd}-d fractional max pooling: windows of ``kernel_size`` at pseudo-random starts "
        "(drawn with ``torch.rand`` unless ``_random_samples`` is given) so that the output "
        "has ``output_size`` or ``output_ratio`` times the input size.")
    return fractional_max_pool


fractional_max_pool2d = _fractional_fn(2)
fractional_max_pool3d = _fractional_fn(3)
fractional_max_pool2d_with_indices = fractional_max_pool2d
fractional_max_pool3d_with_indices = fractional_max_pool3d
