"""Turning what users pass (cinder tensors, NumPy arrays, numbers) into NumPy arrays."""

import numpy as np
from ..._tensor import Tensor


def make_np(x):
    """A NumPy array of ``x``: tensors are detached and copied to the host."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, Tensor):
        return x.detach().numpy(force=True)
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def convert_to_HWC(tensor, input_format):
    """An image array in ``input_format`` (any of CHW, HWC, HW, NCHW, NHWC...) as HWC
    (a batch becomes one grid)."""
    input_format = input_format.upper()
    if len(set(input_format)) != len(input_format):
        raise AssertionError(f"You can not use the same dimension shordhand twice. "
                             f"input_format: {input_format}")
    if len(tensor.shape) != len(input_format):
        raise AssertionError(f"size of input tensor and input format are different. "
                             f"tensor shape: {tensor.shape}, input_format: {input_format}")
    if len(input_format) == 4:
        nchw = tensor.transpose([input_format.find(c) for c in "NCHW"])
        return grid_chw(nchw).transpose(1, 2, 0)
    if len(input_format) == 3:
        hwc = tensor.transpose([input_format.find(c) for c in "HWC"])
        return np.concatenate([hwc, hwc, hwc], 2) if hwc.shape[2] == 1 else hwc
    hw = tensor.transpose([input_format.find(c) for c in "HW"])
    return np.stack([hw, hw, hw], 2)


def grid_chw(nchw, ncols=8):
    """Tile (N, C, H, W) into a (3, rows*H, cols*W) grid, no padding (TensorBoard's layout)."""
    if nchw.shape[1] == 1:
        nchw = np.concatenate([nchw, nchw, nchw], 1)
    n, c, h, w = nchw.shape
    ncols = min(n, ncols)
    nrows = int(np.ceil(float(n) / ncols))
    canvas = np.zeros((c, h * nrows, w * ncols), dtype=nchw.dtype)
    for i in range(n):                  # one block copy per image
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = nchw[i]
    return canvas


def prepare_video(v):
    """(N, T, C, H, W) -> (T, H', W', C) with the batch tiled into a grid per frame."""
    n, t, c, h, w = v.shape
    if v.dtype == np.uint8:
        v = np.float32(v) / 255.0
    rows = 2 ** ((min(n, 16) - 1).bit_length() // 2) if n > 1 else 1
    cols = int(np.ceil(n / rows))
    if rows * cols > n:
        v = np.concatenate([v, np.zeros((rows * cols - n, t, c, h, w))], axis=0)
    v = v.reshape(rows, cols, t, c, h, w).transpose(2, 0, 4, 1, 5, 3)
    return v.reshape(t, rows * h, cols * w, c)
