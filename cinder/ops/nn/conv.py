"""Convolutions (1-3d, plain and transposed) and im2col/col2im, as im2col + one GEMM per group.

A convolution reads every window of the (padded) input. ``windows`` gives all of them as one
strided view; copying that view into a (groups, C/g * K, N * L) matrix is the im2col step, and
one batched matmul against the (groups, O/g, C/g * K) weight matrix does all the arithmetic in
BLAS. The backward pass is the same machinery transposed: GEMMs give the window gradients, and
``add_windows`` adds them back (one strided add per kernel offset) — the col2im step.

A transposed convolution is the input-gradient of a convolution, so it reuses the same three
array functions with their roles swapped.
"""

import numpy as np

from ... import _dtype as D
from ...autograd import grad_mode
from ..._tensor import Tensor
from .._layouts import as_format, plain, row_major, suggested_format
from .._prep import xp_of
from .._registry import needs_grad, node_class, record, register
from ._utils import add_windows, adjoint_node, like, ntuple, windows

# ----------------------------------------------------------------------------------------------
# Array-level building blocks (backend arrays in, backend arrays out)
# ----------------------------------------------------------------------------------------------


def pad_zeros(xp, arr, lo, hi):
    """``arr`` (N, C, *spatial) with ``lo``/``hi`` zeros before/after each spatial dim."""
    if not any(lo) and not any(hi):
        return arr
    shape = arr.shape[:2] + tuple(n + a + b for n, a, b in zip(arr.shape[2:], lo, hi))
    out = xp.zeros(shape, dtype=arr.dtype)
    out[(Ellipsis,) + tuple(slice(a, a + n) for a, n in zip(lo, arr.shape[2:]))] = arr
    return out


def out_size(size, k, stride, dilation, lo, hi):
    """Output length of a window sweep along one dim (floor mode)."""
    return (size + lo + hi - dilation * (k - 1) - 1) // stride + 1


def im2col(xp, arr, ksize, stride, dilation, lo, hi, out, groups):
    """The im2col matrix (groups, C/g * K, N * L) of ``arr`` (N, C, *spatial)."""
    n, c = arr.shape[:2]
    if all(k == 1 for k in ksize) and all(s == 1 for s in stride) and not any(lo) \
            and not any(hi):
        # 1x1 convolution: the input already is the matrix (after moving N next to L).
        mat = arr.reshape(n, c, -1).transpose(1, 0, 2)
    else:
        view = windows(xp, pad_zeros(xp, arr, lo, hi), ksize, stride, dilation, out)
        nd = len(ksize)
        # (N, C, *k, *out) -> (C, *k, N, *out): N moves next to the output positions.
        order = (1,) + tuple(range(2, 2 + nd)) + (0,) + tuple(range(2 + nd, 2 + 2 * nd))
        mat = view.transpose(order)
    return xp.ascontiguousarray(mat).reshape(groups, -1, n * int(np.prod(out, dtype=np.int64)))


def col2im(xp, cols, channels, ksize, n, out, stride, dilation, lo, size):
    """The adjoint of ``im2col``: (groups, C/g * K, N * L) window values summed back into an
    (N, C, *size) array (``lo`` is the padding that ``im2col`` added before each dim)."""
    nd = len(ksize)
    full = tuple(max(s + a, (o - 1) * st + d * (k - 1) + 1)
                 for s, a, o, st, d, k in zip(size, lo, out, stride, dilation, ksize))
    view = cols.reshape((channels,) + tuple(ksize) + (n,) + tuple(out))
    view = view.transpose((1 + nd, 0) + tuple(range(1, 1 + nd)) +
                          tuple(range(2 + nd, 2 + 2 * nd)))
    target = xp.zeros((n, channels) + full, dtype=cols.dtype)
    add_windows(target, view, ksize, stride, dilation, out)
    crop = (slice(None), slice(None)) + tuple(slice(a, a + s) for a, s in zip(lo, size))
    return target[crop]


def as_gemm(xp, arr, groups):
    """(N, C, *spatial) -> (groups, C/g, N * L), the layout GEMM results are read/written in."""
    n, c = arr.shape[:2]
    mat = arr.reshape(n, c, -1).transpose(1, 0, 2)
    return xp.ascontiguousarray(mat).reshape(groups, c // groups, -1)


def from_gemm(xp, mat, n, spatial):
    """(groups, C/g, N * L) -> a contiguous (N, C, *spatial) array."""
    c = mat.shape[0] * mat.shape[1]
    arr = mat.reshape((c, n) + tuple(spatial))
    return xp.ascontiguousarray(arr.swapaxes(0, 1))


def weight_matrix(w, groups, transposed):
    """The weight as (groups, rows, cols) for ``rows x cols`` GEMMs producing output
    channels: (g, O/g, C/g*K) for a convolution; (g, Cout/g*K, Cin/g) for a transposed one."""
    if not transposed:
        return w.reshape(groups, w.shape[0] // groups, -1)
    cin = w.shape[0]
    return w.reshape(groups, cin // groups, -1).transpose(0, 2, 1)


# ----------------------------------------------------------------------------------------------
# Forward and backward kernels on arrays
# ----------------------------------------------------------------------------------------------

class ConvGeometry:
    """Everything about one convolution call except the arrays: kernel, stride, padding
    (before/after each dim), dilation, groups, and the sizes of input and output."""

    __slots__ = ("ksize", "stride", "lo", "hi", "dilation", "groups", "in_size", "out_size",
                 "transposed", "output_padding")

    def __init__(self, ksize, stride, lo, hi, dilation, groups, in_size, transposed,
                 output_padding):
        self.ksize, self.stride, self.lo, self.hi = ksize, stride, lo, hi
        self.dilation, self.groups, self.in_size = dilation, groups, in_size
        self.transposed, self.output_padding = transposed, output_padding
        if transposed:
            self.out_size = tuple((n - 1) * s - a - b + d * (k - 1) + p + 1 for n, s, a, b, d, k, p
                                  in zip(in_size, stride, lo, hi, dilation, ksize,
                                         output_padding))
        else:
            self.out_size = tuple(out_size(n, k, s, d, a, b) for n, k, s, d, a, b
                                  in zip(in_size, ksize, stride, dilation, lo, hi))


def conv_forward(xp, x, w, geo):
    """Plain convolution of x (N, C, *in) with w (O, C/g, *k): ((N, O, *out), cols), where
    cols is the im2col matrix (reusable by the weight gradient): per sample, (N, g, C/g * K,
    L), for large outputs; batch-wide, (g, C/g * K, N * L), for small ones."""
    n = x.shape[0]
    length = int(np.prod(geo.out_size, dtype=np.int64))
    wm = weight_matrix(w, geo.groups, False)
    if length >= _PER_SAMPLE_MIN:
        # Large outputs: one GEMM per sample writes (O, L) blocks straight into the NCHW
        # result, and the im2col copy reads the input in its own order.
        cols = _cols_per_sample(xp, x, geo)
        return xp.matmul(wm, cols).reshape((n, -1) + tuple(geo.out_size)), cols
    # Small outputs (deep layers): one GEMM over the whole batch keeps BLAS efficient.
    cols = _cols_of_input(xp, x, geo)
    return from_gemm(xp, xp.matmul(wm, cols), n, geo.out_size), cols


# Output positions per sample from which per-sample GEMMs beat one batch-wide GEMM plus the
# transposing copy of its result (forward), and from which the per-sample input gradient
# (contiguous col2im adds) beats the batch-wide one; measured on LeNet/ResNet-18 layers.
_PER_SAMPLE_MIN = 256
_PER_SAMPLE_GRAD_MIN = 256


def _cols_per_sample(xp, x, geo):
    """The im2col matrix in (N, groups, C/g * K, L) layout."""
    n = x.shape[0]
    if all(k == 1 for k in geo.ksize) and all(s == 1 for s in geo.stride) and \
            not any(geo.lo) and not any(geo.hi):
        return x.reshape(n, geo.groups, -1, int(np.prod(geo.out_size)))
    view = windows(xp, pad_zeros(xp, x, geo.lo, geo.hi), geo.ksize, geo.stride, geo.dilation,
                   geo.out_size)
    return xp.ascontiguousarray(view).reshape(n, geo.groups, -1,
                                              int(np.prod(geo.out_size, dtype=np.int64)))


def _cols_of_input(xp, x, geo):
    return im2col(xp, x, geo.ksize, geo.stride, geo.dilation, geo.lo, geo.hi, geo.out_size,
                  geo.groups)


def conv_input_grad(xp, gy, w, geo):
    """Gradient of a plain convolution with respect to its input."""
    n = gy.shape[0]
    wm = weight_matrix(w, geo.groups, False)
    cin = w.shape[1] * geo.groups
    length = int(np.prod(geo.out_size, dtype=np.int64))
    if all(st == 1 for st in geo.stride) and len(geo.out_size) > 1:
        return _input_grad_wide(xp, gy, wm, geo, cin)
    if length >= _PER_SAMPLE_GRAD_MIN:
        # Per-sample GEMMs give the window gradients already in (N, C, *k, *out) order, so
        # col2im adds contiguous blocks.
        g = gy.reshape(n, geo.groups, -1, length)
        gcols = xp.matmul(wm.transpose(0, 2, 1), g)
        view = gcols.reshape((n, cin) + tuple(geo.ksize) + tuple(geo.out_size))
        padded = tuple(s + a + b for s, a, b in zip(geo.in_size, geo.lo, geo.hi))
        target = xp.zeros((n, cin) + padded, dtype=gcols.dtype)
        add_windows(target, view, geo.ksize, geo.stride, geo.dilation, geo.out_size)
        return target[(slice(None), slice(None)) + tuple(
            slice(a, a + s) for a, s in zip(geo.lo, geo.in_size))]
    gcols = xp.matmul(wm.transpose(0, 2, 1), as_gemm(xp, gy, geo.groups))
    return col2im(xp, gcols, cin, geo.ksize, n, geo.out_size, geo.stride, geo.dilation, geo.lo,
                  geo.in_size)


def _input_grad_wide(xp, gy, wm, geo, cin):
    """Input gradient of a stride-1 convolution with a col2im of long contiguous adds.

    The output gradient is zero-padded so each output row is as wide as a padded input row
    (likewise every dim after the first). Then the window gradients of one kernel offset
    land on one *contiguous* run of the flattened padded input, starting at that offset:
    the zero columns only add zeros to positions of the neighbouring row. So col2im is one
    long add per kernel offset instead of one short add per output row.
    """
    n, nd = gy.shape[0], len(geo.ksize)
    padded = tuple(s + a + b for s, a, b in zip(geo.in_size, geo.lo, geo.hi))
    rows = (geo.out_size[0],) + padded[1:]              # the widened output block
    plane = [int(np.prod(padded[i + 1:], dtype=np.int64)) for i in range(nd)]
    wide_len = int(np.prod(rows, dtype=np.int64))
    # (O, N, *rows): the GEMM layout of the widened output gradient (zeros outside *out).
    wide = xp.zeros((gy.shape[1], n) + rows, dtype=gy.dtype)
    wide[(slice(None), slice(None)) + tuple(slice(0, o) for o in geo.out_size)] = \
        gy.swapaxes(0, 1)
    wide = wide.reshape(geo.groups, -1, n * wide_len)
    gcols = xp.matmul(wm.transpose(0, 2, 1), wide)      # (g, C/g * K, N * wide_len)
    gcols = gcols.reshape(cin, -1, n, wide_len)
    total = int(np.prod(padded, dtype=np.int64))
    spill = sum(d * (k - 1) * p for d, k, p in zip(geo.dilation[1:], geo.ksize[1:], plane[1:]))
    target = xp.zeros((n, cin, total + spill), dtype=gcols.dtype)
    for j, offset in enumerate(np.ndindex(*geo.ksize)):
        start = sum(o * d * p for o, d, p in zip(offset, geo.dilation, plane))
        target[:, :, start:start + wide_len] += gcols[:, j].swapaxes(0, 1)
    target = target[:, :, :total].reshape((n, cin) + padded)
    return target[(slice(None), slice(None)) + tuple(
        slice(a, a + s) for a, s in zip(geo.lo, geo.in_size))]


def conv_weight_grad(xp, gy, x, geo, wshape):
    """Gradient of a plain convolution with respect to its weight."""
    cols = _cols_of_input(xp, x, geo)
    gw = xp.matmul(as_gemm(xp, gy, geo.groups), cols.transpose(0, 2, 1))
    return gw.reshape(wshape)


def convT_forward(xp, x, w, geo):
    """Transposed convolution of x (N, Cin, *in) with w (Cin, Cout/g, *k): (N, Cout, *out)."""
    n = x.shape[0]
    gcols = xp.matmul(weight_matrix(w, geo.groups, True), as_gemm(xp, x, geo.groups))
    cout = w.shape[1] * geo.groups
    return xp.ascontiguousarray(col2im(xp, gcols, cout, geo.ksize, n, geo.in_size, geo.stride,
                                       geo.dilation, geo.lo, geo.out_size))


def convT_input_grad(xp, gy, w, geo):
    """Gradient of a transposed convolution with respect to its input: a plain convolution
    of the output gradient, read over the input's positions."""
    n = gy.shape[0]
    cols = im2col(xp, gy, geo.ksize, geo.stride, geo.dilation, geo.lo,
                  _hi_for(geo), geo.in_size, geo.groups)
    wm = weight_matrix(w, geo.groups, True).transpose(0, 2, 1)
    return from_gemm(xp, xp.matmul(wm, cols), n, geo.in_size)


def convT_weight_grad(xp, gy, x, geo, wshape):
    """Gradient of a transposed convolution with respect to its weight."""
    cols = im2col(xp, gy, geo.ksize, geo.stride, geo.dilation, geo.lo,
                  _hi_for(geo), geo.in_size, geo.groups)
    gw = xp.matmul(as_gemm(xp, x, geo.groups), cols.transpose(0, 2, 1))
    return gw.reshape(wshape)


def _hi_for(geo):
    """Padding after each dim that lets the windows of a transposed convolution's output cover
    all of its input positions (the output_padding tail is read by no window)."""
    return tuple(max(0, (n - 1) * s + d * (k - 1) + 1 - a - o)
                 for n, s, d, k, a, o in zip(geo.in_size, geo.stride, geo.dilation, geo.ksize,
                                             geo.lo, geo.out_size))


# ----------------------------------------------------------------------------------------------
# The op: torch.convolution (and its conv1d/2d/3d, conv_transpose1d/2d/3d front ends)
# ----------------------------------------------------------------------------------------------

def _compute(t, arr):
    """The array a kernel computes on (half types widen to float32; see float_kernel_dtype)."""
    if t._dtype in (D.float16, D.bfloat16):
        return arr.astype(np.float32)
    return arr


def _input_grad(grad, s):
    if grad_mode.STATE.grad_enabled:          # create_graph=True: stay differentiable
        return _input_grad_as_conv(grad, s.weight, s.geo)
    xp = xp_of(grad)
    gy, w = _compute(grad, grad._data), _compute(grad, s.weight._data)
    fn = convT_input_grad if s.geo.transposed else conv_input_grad
    return like(fn(xp, gy, w, s.geo), grad, s.input_dtype)


def _weight_grad(grad, s):
    if grad_mode.STATE.grad_enabled:          # create_graph=True: stay differentiable
        geo = s.geo
        if geo.transposed:       # the roles of input and output gradient swap
            return _weight_grad_as_conv(grad, s.input, geo.ksize, geo.stride, geo.dilation,
                                        geo.lo, _hi_for(geo), geo.groups, geo.in_size)
        return _weight_grad_as_conv(s.input, grad, geo.ksize, geo.stride, geo.dilation,
                                    geo.lo, geo.hi, geo.groups, geo.out_size)
    xp = xp_of(grad)
    gy = _compute(grad, grad._data)
    if s.cols is not None and s.cols.ndim == 3:
        # The forward's batch-wide im2col matrix: one GEMM, no second im2col copy.
        gw = xp.matmul(as_gemm(xp, gy, s.geo.groups), s.cols.transpose(0, 2, 1))
        return like(gw.reshape(s.weight_shape), grad, s.input_dtype)
    if s.cols is not None:
        # The forward's per-sample im2col matrix: sum over samples of gy_n @ cols_n^T.
        g = gy.reshape(gy.shape[0], s.geo.groups, -1, s.cols.shape[-1])
        gw = xp.matmul(g, s.cols.transpose(0, 1, 3, 2)).sum(axis=0)
        return like(gw.reshape(s.weight_shape), grad, s.input_dtype)
    x = _compute(grad, s.input._data)
    fn = convT_weight_grad if s.geo.transposed else conv_weight_grad
    return like(fn(xp, gy, x, s.geo, s.weight_shape), grad, s.input_dtype)


def _bias_grad(grad, s):
    axes = (0,) + tuple(range(2, grad._data.ndim))
    if grad_mode.STATE.grad_enabled:
        return grad.sum(axes)
    return like(_compute(grad, grad._data).sum(axis=axes), grad)


# Double backward: with create_graph=True the gradients are computed by convolution ops
# themselves (recorded like any op), so they can be differentiated again.

def _input_grad_as_conv(grad, weight, geo):
    """Input gradient as a recorded op: a transposed convolution of ``grad`` for a plain
    convolution, a plain convolution of ``grad`` for a transposed one."""
    if geo.transposed:
        return _convolution(grad, weight, None, geo.stride, geo.lo, _hi_for(geo), geo.dilation,
                            False, 0, geo.groups)
    reach = tuple((o - 1) * s - a - b + d * (k - 1) + 1 for o, s, a, b, d, k in
                  zip(geo.out_size, geo.stride, geo.lo, geo.hi, geo.dilation, geo.ksize))
    extra = tuple(n - r for n, r in zip(geo.in_size, reach))      # rows no window reached
    out = _convolution(grad, weight, None, geo.stride, geo.lo, geo.hi, geo.dilation, True,
                       tuple(min(e, s - 1) if e > 0 else 0 for e, s in zip(extra, geo.stride)),
                       geo.groups)
    if tuple(out.shape[2:]) != tuple(geo.in_size):
        pad = []
        for n, m in zip(reversed(geo.in_size), reversed(out.shape[2:])):
            pad += [0, n - m]
        from .pad import constant_pad_nd
        out = constant_pad_nd(out, pad)
    return out


def _weight_grad_as_conv(x, gy, ksize, stride, dilation, lo, hi, groups, out_size):
    """Weight gradient as a recorded op: the correlation of the input with the output
    gradient, i.e. a convolution with batch and channels swapped, stride and dilation
    exchanged, cropped to the kernel size."""
    n, c = x.shape[:2]
    o = gy.shape[1]
    nd = len(ksize)
    sp = tuple(range(3, 3 + nd))
    # (N, C, *) -> (C/g, g*N, *): samples become channels, grouped like the weight.
    xs = x.reshape((n, groups, c // groups) + tuple(x.shape[2:])).permute(
        (2, 1, 0) + sp).reshape((c // groups, groups * n) + tuple(x.shape[2:]))
    gs = gy.reshape((n, groups, o // groups) + tuple(gy.shape[2:])).permute(
        (1, 2, 0) + sp).reshape((o, n) + tuple(gy.shape[2:]))
    corr = _convolution(xs, gs, None, dilation, lo, hi, stride, False, 0, groups)
    corr = corr[(slice(None), slice(None)) + tuple(slice(0, k) for k in ksize)]
    w = corr.reshape((c // groups, groups, o // groups) + tuple(ksize)).permute(
        (1, 2, 0) + sp)
    return w.reshape((o, c // groups) + tuple(ksize))


ConvolutionNode = node_class("ConvolutionBackward0", {
    "input": _input_grad, "weight": _weight_grad, "bias": _bias_grad},
    saves_also=("input", "weight", "geo", "weight_shape", "input_dtype", "cols"))


def _conv_checks(input, weight, bias, transposed, groups):
    nd = weight._data.ndim
    if input._data.ndim != nd:
        raise RuntimeError(f"Expected {nd}-dimensional input for {nd}-dimensional weight "
                           f"{list(weight.shape)}, but got {input._data.ndim}-dimensional input "
                           f"of size {list(input.shape)} instead")
    if input._dtype is not weight._dtype:
        if input._dtype.category == D.FLOATING and weight._dtype.category == D.FLOATING and \
                D.float16 in (input._dtype, weight._dtype):
            raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) "
                               "should be the same or input should be a MKLDNN tensor and weight "
                               "is a dense tensor")
        raise RuntimeError(f"expected scalar type {input._dtype.scalar_name} but found "
                           f"{weight._dtype.scalar_name}")
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({input._dtype.cpp_name}) and bias type "
                           f"({bias._dtype.cpp_name}) should be the same")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if not transposed and weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(weight.shape)}] "
                           "instead")
    channels = weight.shape[0] if transposed else weight.shape[1] * groups
    if input.shape[1] != channels:
        kind = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(f"Given {kind}, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {channels} channels, but got "
                           f"{input.shape[1]} channels instead")
    nout = weight.shape[1] * groups if transposed else weight.shape[0]
    if bias is not None and (bias._data.ndim != 1 or bias.shape[0] != nout):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {nout} elements, but got bias of size "
                           f"{list(bias.shape)} instead")


def _geometry(input, weight, stride, lo, hi, dilation, transposed, output_padding, groups):
    nd = weight._data.ndim - 2
    stride = ntuple(stride, nd, "stride")
    dilation = ntuple(dilation, nd, "dilation")
    output_padding = ntuple(output_padding, nd, "output_padding")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if any(p < 0 for p in lo + hi):
        raise RuntimeError("negative padding is not supported")
    ksize = tuple(weight.shape[2:])
    in_size = tuple(input.shape[2:])
    if transposed:
        if any(p >= s and p >= d for p, s, d in zip(output_padding, stride, dilation)):
            names = ("height", "width") if nd == 2 else ("depth", "height", "width")[-nd:] \
                if nd == 3 else ("width",)
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                + " ".join(f"output_padding_{n}: {p}" for n, p in zip(names, output_padding))
                + " " + " ".join(f"stride_{n}: {s}" for n, s in zip(names, stride))
                + " " + " ".join(f"dilation_{n}: {d}" for n, d in zip(names, dilation)))
    else:
        padded = tuple(n + a + b for n, a, b in zip(in_size, lo, hi))
        eff = tuple(d * (k - 1) + 1 for d, k in zip(dilation, ksize))
        if any(p < e for p, e in zip(padded, eff)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                f"Kernel size: ({' x '.join(map(str, eff))}). Kernel size can't be greater "
                "than actual input size")
    return ConvGeometry(ksize, stride, lo, hi, dilation, groups, in_size, transposed,
                        output_padding)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """N-d convolution (``transposed=False``) or transposed convolution of a batched input
    (N, C, *spatial) with ``weight``; the kernel behind every conv function and module."""
    nd = weight._data.ndim - 2
    pad = ntuple(padding, nd, "padding")
    return _convolution(input, weight, bias, stride, pad, pad, dilation, transposed,
                        output_padding, groups)


def _convolution(input, weight, bias, stride, lo, hi, dilation, transposed, output_padding,
                 groups):
    """``convolution`` with separate padding before (``lo``) and after (``hi``) each dim, which
    padding='same' needs when the total padding is odd."""
    _conv_checks(input, weight, bias, transposed, groups)
    geo = _geometry(input, weight, stride, lo, hi, dilation, transposed, output_padding, groups)
    xp = xp_of(input)
    x, w = _compute(input, input._data), _compute(input, weight._data)
    if transposed:
        y, cols = convT_forward(xp, x, w, geo), None
    else:
        y, cols = conv_forward(xp, x, w, geo)
    if bias is not None:
        y += _compute(input, bias._data).reshape((-1,) + (1,) * (y.ndim - 2))
    result = like(_conv_layout(y, input._data, weight._data, input._dtype), input)
    if needs_grad(input, weight, bias):
        keep = cols if weight._requires_grad else None
        record(ConvolutionNode, (input, weight, bias), (result,), input=input, weight=weight,
               geo=geo, weight_shape=weight._data.shape, input_dtype=input._dtype, cols=keep)
    return result


def _conv_layout(y, x, w, dtype):
    """The output ``y`` in PyTorch's layout: channels-last when the input or the weight is
    (its CPU backends pick the layout from both), channels_last_3d only for float32 and
    bfloat16 (the other 3-d kernels are row-major)."""
    if y.ndim < 4 or plain(x) and plain(w):
        return y
    if y.ndim == 5 and dtype not in (D.float32, D.bfloat16):
        return row_major(y)
    fmt = suggested_format(x)
    if fmt == "contiguous_format":
        fmt = suggested_format(w)
    return as_format(y, fmt)


register("convolution", convolution, method=False, family="nn.conv", nodes=(ConvolutionNode,))


# ----------------------------------------------------------------------------------------------
# conv1d/2d/3d and conv_transpose1d/2d/3d: batching and padding='same'/'valid'
# ----------------------------------------------------------------------------------------------

def _batched(input, nd, name):
    """Accept an unbatched (C, *spatial) input by adding a batch dim (removed afterwards)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, ...)")
    if input._data.ndim == nd + 1:
        return input.unsqueeze(0), True
    if input._data.ndim != nd + 2:
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    return input, False


def _same_padding(weight, dilation, stride, nd):
    """Per-dim (before, after) padding that keeps the output the input's size."""
    if any(s != 1 for s in ntuple(stride, nd, "stride")):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for d, k in zip(ntuple(dilation, nd, "dilation"), weight.shape[2:])]
    lo = tuple(t // 2 for t in total)
    return lo, tuple(t - a for t, a in zip(total, lo))


def _make_conv(nd):
    name = f"conv{nd}d"

    def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        x, unbatched = _batched(input, nd, name)
        if isinstance(padding, str):
            if padding == "valid":
                lo = hi = (0,) * nd
            elif padding == "same":
                lo, hi = _same_padding(weight, dilation, stride, nd)
            else:
                raise RuntimeError(f"Invalid padding string: '{padding}'")
        else:
            lo = hi = ntuple(padding, nd, "padding")
        y = _convolution(x, weight, bias, stride, lo, hi, dilation, False, 0, groups)
        return y.squeeze(0) if unbatched else y

    conv.__name__ = conv.__qualname__ = name
    conv.__doc__ = (f"{nd}-d convolution of ``input`` (N, C_in, *{nd} spatial dims, or unbatched "
                    "without N) with ``weight`` (C_out, C_in/groups, *kernel) and optional "
                    "``bias`` (C_out). ``padding`` may be an int, a tuple, 'valid' or 'same'.")
    return conv


def _make_conv_transpose(nd):
    name = f"conv_transpose{nd}d"

    def conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                       groups=1, dilation=1):
        x, unbatched = _batched(input, nd, name)
        pad = ntuple(padding, nd, "padding")
        y = _convolution(x, weight, bias, stride, pad, pad, dilation, True, output_padding,
                         groups)
        return y.squeeze(0) if unbatched else y

    conv_transpose.__name__ = conv_transpose.__qualname__ = name
    conv_transpose.__doc__ = (
        f"{nd}-d transposed convolution (the gradient of conv{nd}d with respect to its input) "
        "of ``input`` (N, C_in, *spatial) with ``weight`` (C_in, C_out/groups, *kernel).")
    return conv_transpose


conv1d, conv2d, conv3d = (_make_conv(n) for n in (1, 2, 3))
conv_transpose1d, conv_transpose2d, conv_transpose3d = (_make_conv_transpose(n)
                                                         for n in (1, 2, 3))
for _fn in (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d):
    register(_fn.__name__, _fn, method=False, family="nn.conv")


def conv_tbc(input, weight, bias, pad=0):
    """1-d convolution in (time, batch, channel) layout with a (k, C_in, C_out) weight."""
    x = input.permute(1, 2, 0)
    w = weight.permute(2, 1, 0)
    return conv1d(x, w, bias, padding=pad).permute(2, 0, 1)


register("conv_tbc", conv_tbc, method=False, family="nn.conv")


# ----------------------------------------------------------------------------------------------
# im2col / col2im (F.unfold / F.fold)
# ----------------------------------------------------------------------------------------------

def _unfold_geometry(size, kernel_size, dilation, padding, stride):
    k = ntuple(kernel_size, 2, "kernel_size")
    d, p, s = (ntuple(v, 2, n) for v, n in ((dilation, "dilation"), (padding, "padding"),
                                             (stride, "stride")))
    return ConvGeometry(k, s, p, p, d, 1, tuple(size), False, (0, 0))


def _im2col_grad(grad, s):
    xp = xp_of(grad)
    g = s.geo
    n = grad.shape[0]
    gcols = _compute(grad, grad._data).reshape(n, -1, int(np.prod(g.out_size)))
    gcols = xp.ascontiguousarray(gcols.transpose(1, 0, 2)).reshape(1, -1, n * gcols.shape[2])
    c = s.channels
    return like(col2im(xp, gcols, c, g.ksize, n, g.out_size, g.stride, g.dilation, g.lo,
                       g.in_size), grad)


def _im2col_adjoint(gg, sv):
    g = sv.geo
    return im2col_op(gg, g.ksize, g.dilation, g.lo, g.stride)


Im2ColNode = adjoint_node("Im2ColBackward0", {"self": _im2col_grad},
                          saves_also=("geo", "channels"), adjoint=_im2col_adjoint)


def im2col_op(input, kernel_size, dilation, padding, stride):
    """Every sliding block of a (N, C, H, W) input as columns: (N, C*kh*kw, L)."""
    xp = xp_of(input)
    geo = _unfold_geometry(input.shape[2:], kernel_size, dilation, padding, stride)
    if any(o <= 0 for o in geo.out_size):
        raise RuntimeError(
            f"Given input with spatial size ({input.shape[2]}, {input.shape[3]}), "
            f"kernel_size=({geo.ksize[0]}, {geo.ksize[1]}), dilation=({geo.dilation[0]}, "
            f"{geo.dilation[1]}), padding=({geo.lo[0]}, {geo.lo[1]}), calculated shape of the "
            f"array of sliding blocks as ({geo.out_size[0]}, {geo.out_size[1]}), but its "
            "components must be at least one.")
    n, c = input.shape[:2]
    cols = im2col(xp, input._data, geo.ksize, geo.stride, geo.dilation, geo.lo, geo.hi,
                  geo.out_size, 1)
    out = cols.reshape(-1, n, int(np.prod(geo.out_size))).transpose(1, 0, 2)
    result = like(xp.ascontiguousarray(out), input)
    if needs_grad(input):
        record(Im2ColNode, (input,), (result,), geo=geo, channels=c)
    return result


def _col2im_grad(grad, s):
    xp = xp_of(grad)
    g = s.geo
    n = grad.shape[0]
    cols = im2col(xp, grad._data, g.ksize, g.stride, g.dilation, g.lo, g.hi, g.out_size, 1)
    out = cols.reshape(-1, n, int(np.prod(g.out_size))).transpose(1, 0, 2)
    return like(xp.ascontiguousarray(out), grad)


def _col2im_adjoint(gg, sv):
    g = sv.geo
    return col2im_op(gg, g.in_size, g.ksize, g.dilation, g.lo, g.stride)


Col2ImNode = adjoint_node("Col2ImBackward0", {"self": _col2im_grad}, saves_also=("geo",),
                          adjoint=_col2im_adjoint)


def col2im_op(input, output_size, kernel_size, dilation, padding, stride):
    """Sum columns (N, C*kh*kw, L) back into a (N, C, *output_size) image (overlaps add)."""
    xp = xp_of(input)
    geo = _unfold_geometry(ntuple(output_size, 2, "output_size"), kernel_size, dilation,
                           padding, stride)
    n, ck, length = input.shape
    kk = geo.ksize[0] * geo.ksize[1]
    if ck % kk:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={ck} and kernel_size=({geo.ksize[0]}, "
            f"{geo.ksize[1]})")
    if int(np.prod(geo.out_size)) != length or any(o <= 0 for o in geo.out_size):
        raise RuntimeError(
            f"Given output_size=({geo.in_size[0]}, {geo.in_size[1]}), kernel_size=("
            f"{geo.ksize[0]}, {geo.ksize[1]}), dilation=({geo.dilation[0]}, {geo.dilation[1]}),"
            f" padding=({geo.lo[0]}, {geo.lo[1]}), stride=({geo.stride[0]}, {geo.stride[1]}), "
            f"expected size of input's dimension 2 to match the calculated number of sliding "
            f"blocks {geo.out_size[0]} * {geo.out_size[1]} = {int(np.prod(geo.out_size))}, but "
            f"got input.size(2)={length}.")
    cols = xp.ascontiguousarray(input._data.transpose(1, 0, 2)).reshape(1, ck, n * length)
    out = col2im(xp, cols, ck // kk, geo.ksize, n, geo.out_size, geo.stride, geo.dilation,
                 geo.lo, geo.in_size)
    result = like(xp.ascontiguousarray(out), input)
    if needs_grad(input):
        record(Col2ImNode, (input,), (result,), geo=geo)
    return result


register("im2col", im2col_op, method=False, function_too=False, family="nn.conv",
         nodes=(Im2ColNode,))
register("col2im", col2im_op, method=False, function_too=False, family="nn.conv",
         nodes=(Col2ImNode,))
