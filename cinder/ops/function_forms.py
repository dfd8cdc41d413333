"""``torch.<op>_(input, ...)``: PyTorch also exposes many in-place methods as functions
(``torch.abs_(t)`` is ``t.abs_()``), plus a few predicates and helpers (``is_conj``,
``is_same_size``, ``unsafe_split``...). Each is published here as a thin call of the Tensor
method that the op table already generates, so there is one implementation."""

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ._registry import FUNCTIONS, register
from ._prep import wrap

# The in-place functions of torch.* (PyTorch 2.13) whose Tensor method cinder has.
_INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_",
    "clamp_", "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_",
    "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_",
    "floor_", "frac_", "gcd_", "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_",
    "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_",
    "relu_", "resize_as_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_",
    "square_", "tan_", "tanh_", "trunc_", "xlogy_",
)


def _function_of(method_name):
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{method_name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}")
        return getattr(input, method_name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = method_name
    fn.__doc__ = f"``torch.{method_name}(input, ...)`` is ``input.{method_name}(...)``."
    return fn


for _name in _INPLACE_FUNCTIONS:
    if hasattr(Tensor, _name) and _name not in FUNCTIONS:
        register(_name, _function_of(_name), method=False, family="function_forms")


def is_conj(input):
    """Whether ``input`` is a lazily conjugated view (never, in cinder: conj is eager)."""
    return False


def is_neg(input):
    """Whether ``input`` is a lazily negated view (never, in cinder)."""
    return False


def is_same_size(input, other):
    """Whether the two tensors have the same shape."""
    return input._data.shape == other._data.shape


def is_nonzero(input):
    """The truth value of a one-element tensor (an error for any other size)."""
    n = input._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(-1)[0])


register("is_conj", is_conj, family="function_forms")
register("is_neg", is_neg, family="function_forms")
register("is_same_size", is_same_size, family="function_forms")
register("is_nonzero", is_nonzero, family="function_forms")
def unsafe_chunk(input, chunks, dim=0):
    """``chunk`` (cinder's views are always safe to use)."""
    return input.chunk(chunks, dim)


def unsafe_split(input, split_size, dim=0):
    """``split`` (cinder's views are always safe to use)."""
    return input.split(split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split_with_sizes`` (cinder's views are always safe to use)."""
    return input.split_with_sizes(split_sizes, dim)


for _fn in (unsafe_chunk, unsafe_split, unsafe_split_with_sizes):
    register(_fn.__name__, _fn, family="function_forms")


def _apply_(self, callable):
    """Applies the Python ``callable`` to every element in place (CPU tensors only, slow:
    one Python call per element, as in PyTorch)."""
    if self._device.type != "cpu":
        raise TypeError("apply_ is only implemented on CPU tensors")
    import numpy as np
    values = [callable(v) for v in self._data.reshape(-1).tolist()]
    self._data[...] = np.asarray(values, dtype=self._data.dtype).reshape(self._data.shape)
    self._bump_version()
    return self


def _map_elements(self, others, callable, name):
    """``self[i] = callable(self[i], *(o[i] for o in others))`` with every ``o`` broadcast to
    ``self``'s shape: one Python call per element, as in PyTorch (CPU only)."""
    if self._device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    import numpy as np
    columns = [self._data.reshape(-1).tolist()]
    columns += [np.broadcast_to(o._data, self._data.shape).reshape(-1).tolist() for o in others]
    values = [callable(*row) for row in zip(*columns)]
    self._data[...] = np.asarray(values, dtype=self._data.dtype).reshape(self._data.shape)
    self._bump_version()
    return self


def _map_(self, tensor, callable):
    """``self[i] = callable(self[i], tensor[i])`` for every element (``tensor`` broadcast)."""
    return _map_elements(self, (tensor,), callable, "map_")


def _map2_(self, x, y, callable):
    """``self[i] = callable(self[i], x[i], y[i])`` for every element (``x``, ``y`` broadcast
    to ``self``'s shape; both must have ``self``'s dtype)."""
    if self._requires_grad:
        raise RuntimeError("Can't call map2_() on Variable that requires grad. Use "
                           "var.detach().map2_() instead.")
    for arg, t in (("x", x), ("y", y)):
        if t._dtype is not self._dtype:
            raise TypeError(f"map2_: expected {self.type()} for argument '{arg}' (got "
                            f"{t.type()})")
        if t._data.ndim > self._data.ndim:
            raise RuntimeError(
                f"expand({t.type()}{{{list(t._data.shape)}}}, size={list(self._data.shape)}): "
                f"the number of sizes provided ({self._data.ndim}) must be greater or equal to "
                f"the number of dimensions in the tensor ({t._data.ndim})")
    return _map_elements(self, (x, y), callable, "map2_")


register("apply_", _apply_, function_too=False, family="function_forms")
register("map_", _map_, function_too=False, family="function_forms")
register("map2_", _map2_, function_too=False, family="function_forms")


# ----------------------------------------------------------------------------------------------
# Small helpers of the torch namespace
# ----------------------------------------------------------------------------------------------


def is_signed(input):
    """Whether the tensor's dtype is signed (everything but uint8 and bool)."""
    return input.is_signed()


def is_inference(input):
    """Whether ``input`` was created in inference mode."""
    return input.is_inference()


def get_device(input):
    """The CUDA device index of ``input``, or -1 for a CPU tensor."""
    return input.get_device()


def typename(obj):
    """The legacy type name: ``'torch.FloatTensor'`` for a tensor, the class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", None) else f"{module}.{cls.__qualname__}"


def adjoint(input):
    """The conjugate transpose of the last two dims, as a view (``input.mH``)."""
    return input.mH


def unravel_index(indices, shape):
    """The coordinates of flat ``indices`` in a tensor of ``shape``: one int64 tensor per dim."""
    import numpy as np

    if not isinstance(indices, Tensor):
        from .creation import tensor
        indices = tensor(indices)
    if indices._dtype.category > D.INTEGRAL or indices._dtype is D.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got "
                        f"{indices._dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = int(np.prod(shape))
    # PyTorch wraps indices outside [0, prod(shape)) around, without an error
    flat = np.mod(indices._data, total) if total else indices._data
    coords = np.unravel_index(flat, shape) if shape else ()
    return tuple(wrap(np.asarray(c, dtype=np.int64), D.int64, indices._device) for c in coords)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """A 0-d tensor holding the number ``s`` (default dtype: the default float dtype)."""
    from .creation import tensor
    return tensor(s, dtype=dtype or D.get_default_dtype(), device=device,
                  requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialized tensor with the given sizes and strides (over a fresh storage)."""
    from .creation import empty
    size, stride = tuple(size), tuple(stride)
    extent = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    base = empty(extent, dtype=dtype, device=device)
    out = base.as_strided(size, stride)
    out._base = None
    if requires_grad:
        out.requires_grad_(True)
    return out


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                       layout=None, pin_memory=False):
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with the view ``as_strided(size, stride, storage_offset)`` set to
    ``src``."""
    out = input.clone()
    with no_grad():
        view = out.as_strided(size, stride, storage_offset)
    view._data[...] = src._data
    return out


for _name, _fn, _method in (("is_signed", is_signed, False), ("is_inference", is_inference, False),
                            ("get_device", get_device, False), ("typename", typename, False),
                            ("adjoint", adjoint, True), ("unravel_index", unravel_index, False),
                            ("scalar_tensor", scalar_tensor, False),
                            ("empty_strided", empty_strided, False),
                            ("as_strided_scatter", as_strided_scatter, True)):
    if _name not in FUNCTIONS:
        register(_name, _fn, method=_method, family="function_forms")
register("new_empty_strided", _new_empty_strided, function_too=False, family="function_forms")
