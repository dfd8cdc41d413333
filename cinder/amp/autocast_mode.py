"""``torch.autocast``: run selected ops in a lower precision inside a region.

While a CPU autocast region is active, a mode at the dispatch point (``ops/_dispatch.py``)
looks up each op called through ``cinder.<op>`` / ``Tensor.<op>`` in PyTorch's CPU policy
lists (``aten/src/ATen/autocast_mode.cpp``, tagged on the op-table entries below) and casts its
floating-point tensor arguments (float64 excepted) before running it:

- ``lower_precision_fp`` (matmuls, convolutions, linear...): to the autocast dtype
  (bfloat16 by default, or float16);
- ``fp32`` (losses, reductions prone to overflow, linear algebra, FFTs...): to float32;
- ``promote`` (``cat``, ``stack``, ``index_copy``): to the widest floating dtype among them.

The op then runs with the mode set aside, so the ops it calls are not cast again (as PyTorch
excludes the autocast keys when it redispatches). Casts of leaf tensors that require grad
(parameters) are cached until the outermost region exits, when ``cache_enabled``.

``nn.functional`` runs under the mode (it is marked op-level: the functions run and the ops
they call meet it); functions on PyTorch's lists that are not op-table entries carry their
policy as ``_cinder_autocast`` (``nn/_functional/__init__.py``), or a function of the call's
arguments where the aten op depends on them (``F.pad``: its reflect and replicate modes run
PyTorch's fp32-listed reflection/replication pads). Not done: CUDA autocast (a CUDA region
warns and is disabled).
"""

import functools
import warnings

from .. import _C
from .. import _dtype as D
from .._device import device as _device_cls
from .._tensor import Tensor
from ..ops import OPS
from ..ops._registry import TENSOR_ATTRIBUTES
from ..overrides import TorchFunctionMode

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]

LOWER_PRECISION_FP = (
    "conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "baddbmm", "addmm", "addbmm",
    "linear", "matmul", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "prelu", "scaled_dot_product_attention",
    # cinder's own kernels behind PyTorch's names (linear, mkldnn_rnn_layer, sdpa)
    "linear_2d", "_rnn_layer", "_scaled_dot_product_attention")
FP32 = (
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "quantile",
    "nanquantile", "stft", "cdist", "grid_sampler_2d", "grid_sampler_3d", "trace",
    "view_as_complex", "cholesky", "cholesky_inverse", "cholesky_solve", "inverse", "lu_solve",
    "orgqr", "ormqr", "pinverse", "max_pool3d", "max_unpool2d", "max_unpool3d",
    "adaptive_avg_pool3d", "reflection_pad1d", "reflection_pad2d", "replication_pad1d",
    "replication_pad2d", "replication_pad3d", "mse_loss", "cosine_embedding_loss", "nll_loss",
    "nll_loss2d", "hinge_embedding_loss", "poisson_nll_loss", "smooth_l1_loss",
    "cross_entropy_loss", "l1_loss", "huber_loss", "margin_ranking_loss", "soft_margin_loss",
    "triplet_margin_loss", "multi_margin_loss", "ctc_loss", "kl_div", "multilabel_margin_loss",
    "binary_cross_entropy_with_logits", "fft_fft", "fft_ifft", "fft_fft2", "fft_ifft2",
    "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft", "fft_rfft2", "fft_irfft2", "fft_rfftn",
    "fft_irfftn", "fft_hfft", "fft_ihfft", "linalg_cond", "linalg_matrix_rank", "linalg_solve",
    "linalg_cholesky", "linalg_svdvals", "linalg_eigvals", "linalg_eigvalsh", "linalg_inv",
    "linalg_householder_product", "linalg_tensorinv", "linalg_tensorsolve", "geqrf", "qr",
    "svd", "triangular_solve", "fractional_max_pool2d", "fractional_max_pool3d",
    "adaptive_max_pool3d", "linalg_qr", "linalg_cholesky_ex", "linalg_svd", "linalg_eig",
    "linalg_eigh", "linalg_lstsq", "linalg_inv_ex",
    # cinder's own kernel behind nll_loss / nll_loss2d
    "nll_loss_nd")
PROMOTE = ("stack", "cat", "index_copy")
_POLICIES = {"autocast_lower_precision_fp": LOWER_PRECISION_FP, "autocast_fp32": FP32,
             "autocast_promote": PROMOTE}


# ----------------------------------------------------------------------------------------------
# Composites: ops PyTorch builds from matmul/mm/bmm (CompositeImplicitAutograd), so the inner
# product is autocast and the result comes out in the lower precision; which calls reach it
# depends on the arguments. f(args, kwargs) -> policy tag or None.
# ----------------------------------------------------------------------------------------------

_LOWER = "autocast_lower_precision_fp"
# computed as is, the result given the lower precision (the lower-precision products come
# after a float32 step, here rounded once at the end)
_LOWER_RESULT = "autocast_lower_result"


def _einsum_operands(args, kwargs):
    equation = args[0] if args else kwargs.get("equation")
    ops = list(args[1:])
    if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
        ops = list(ops[0])
    return equation, ops


def _einsum_policy(args, kwargs):
    """PyTorch's einsum contracts the operands left to right; a pair with an index summed
    between them is a bmm (autocast: lower precision), a pair without one a mul (which
    promotes). Cast when the last step is a bmm; otherwise leave the call alone."""
    equation, ops = _einsum_operands(args, kwargs)
    if not isinstance(equation, str) or len(ops) < 2 or "->" not in equation:
        return _einsum_implicit_policy(equation, ops)
    lhs, out = equation.replace(" ", "").split("->")
    terms = [set(t.replace("...", "")) for t in lhs.split(",")]
    if len(terms) != len(ops):
        return None
    last_is_bmm = False
    current = terms[0]
    for k in range(1, len(terms)):
        kept = set(out).union(*terms[k + 1:])
        last_is_bmm = bool((current & terms[k]) - kept)
        current = (current | terms[k]) & (kept | (current & terms[k]))
    return _LOWER if last_is_bmm else None


def _einsum_implicit_policy(equation, ops):
    """Without ``->`` the output holds the indices seen once (in sorted order)."""
    if not isinstance(equation, str) or len(ops) < 2:
        return None
    lhs = equation.replace(" ", "")
    counts = {}
    for ch in lhs.replace(",", "").replace("...", ""):
        counts[ch] = counts.get(ch, 0) + 1
    out = "".join(sorted(ch for ch, n in counts.items() if n == 1))
    return _einsum_policy((f"{lhs}->{out}",) + tuple(ops), {})


def _inner_policy(args, kwargs):
    """inner is a tensordot (an mm) unless an operand is 0-d (a mul) or both are 1-d (a dot)."""
    a = args[0] if args else kwargs.get("input")
    b = args[1] if len(args) > 1 else kwargs.get("other")
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        return None
    if a.dim() == 0 or b.dim() == 0 or (a.dim() == 1 and b.dim() == 1):
        return None
    return _LOWER


def _matrix_power_policy(args, kwargs):
    """matrix_power multiplies (matmul) for n >= 2; a negative n inverts first (an fp32 op,
    so the inverse is computed in float32) and then multiplies; n = 0 or 1 is an identity or
    a copy."""
    n = args[1] if len(args) > 1 else kwargs.get("n")
    if not isinstance(n, int) or 0 <= n <= 1:
        return None
    return _LOWER if n >= 2 else _LOWER_RESULT


def _multi_dot_policy(args, kwargs):
    tensors = args[0] if args else kwargs.get("tensors")
    return _LOWER if isinstance(tensors, (list, tuple)) and len(tensors) >= 2 else None


def _chain_matmul_policy(args, kwargs):
    matrices = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    return _LOWER if len(matrices) >= 2 else None


COMPOSITES = {
    "einsum": _einsum_policy,
    "tensordot": lambda args, kwargs: _LOWER,
    "inner": _inner_policy,
    "chain_matmul": _chain_matmul_policy,
    "linalg_multi_dot": _multi_dot_policy,
    "matrix_power": _matrix_power_policy,
    "linalg_matrix_power": _matrix_power_policy,
    # PyTorch's RNN cells are linear(x) + linear(h) then the nonlinearity (LSTM and GRU cells
    # mix in float32 states and stay float32)
    "rnn_tanh_cell": lambda args, kwargs: _LOWER,
    "rnn_relu_cell": lambda args, kwargs: _LOWER,
}


def _tag_entries():
    """Mark the op-table entries with their CPU autocast policy."""
    for tag, names in _POLICIES.items():
        for name in names:
            if name in OPS:
                OPS[name].tags = OPS[name].tags | {tag}


_tag_entries()

# ----------------------------------------------------------------------------------------------
# State (per device type), as PyTorch keeps it in its thread-local autocast state
# ----------------------------------------------------------------------------------------------


class _State:
    def __init__(self):
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = {"cpu": D.bfloat16, "cuda": D.float16}
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}
        self.mode = None


STATE = _State()


def _device_type(device_type):
    if device_type not in STATE.enabled:
        raise RuntimeError(f"unsupported device_type for autocast: {device_type}")
    return device_type


def is_autocast_available(device_type):
    """Whether autocast can be used for ``device_type`` (the CPU; CUDA is not implemented)."""
    return device_type == "cpu"


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for ``device_type`` (default: "cuda", PyTorch's legacy form)."""
    return STATE.enabled[_device_type("cuda" if device_type is None else device_type)]


def set_autocast_enabled(device_type, enabled=None):
    """Turn autocast on/off for ``device_type`` (``set_autocast_enabled(flag)``: CUDA)."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    STATE.enabled[_device_type(device_type)] = bool(enabled)
    _sync_mode()


def get_autocast_dtype(device_type):
    """The lower-precision dtype autocast uses on ``device_type``."""
    return STATE.dtype[_device_type(device_type)]


def set_autocast_dtype(device_type, dtype):
    STATE.dtype[_device_type(device_type)] = dtype


def is_autocast_cpu_enabled():
    return STATE.enabled["cpu"]


def set_autocast_cpu_enabled(enabled):
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    return STATE.dtype["cpu"]


def set_autocast_cpu_dtype(dtype):
    STATE.dtype["cpu"] = dtype


def get_autocast_gpu_dtype():
    return STATE.dtype["cuda"]


def set_autocast_gpu_dtype(dtype):
    STATE.dtype["cuda"] = dtype


def is_autocast_cache_enabled():
    return STATE.cache_enabled


def set_autocast_cache_enabled(enabled):
    STATE.cache_enabled = bool(enabled)


def clear_autocast_cache():
    """Forget the cached casts of parameters."""
    STATE.cache.clear()


def autocast_increment_nesting():
    STATE.nesting += 1
    return STATE.nesting


def autocast_decrement_nesting():
    STATE.nesting -= 1
    return STATE.nesting


# ----------------------------------------------------------------------------------------------
# The mode at the dispatch point
# ----------------------------------------------------------------------------------------------

def _sync_mode():
    """Keep one autocast mode on the dispatch point's mode stack while CPU autocast is on."""
    if STATE.enabled["cpu"] and STATE.mode is None:
        STATE.mode = _AutocastMode()
        _C._push_on_torch_function_stack(STATE.mode)
    elif not STATE.enabled["cpu"] and STATE.mode is not None:
        stack = _C.STATE.modes
        if stack and stack[-1] is STATE.mode:
            _C._pop_torch_function_stack()
        elif STATE.mode in stack:
            stack.remove(STATE.mode)
        STATE.mode = None


def _policy(func, args, kwargs):
    tag = getattr(func, "_cinder_autocast", None)   # nn.functional's own (nn/_functional)
    if callable(tag):
        return tag(args, kwargs)
    if tag is not None:
        return tag
    name = func.__name__
    info = OPS.get(name) or OPS.get(TENSOR_ATTRIBUTES.get(name) or "")
    if info is None:
        return None
    composite = COMPOSITES.get(info.name)
    if composite is not None:
        return composite(args, kwargs)
    for tag in _POLICIES:
        if tag in info.tags:
            return tag
    return None


def _eligible(t):
    return isinstance(t, Tensor) and t._device.type == "cpu" and \
        t._dtype.is_floating_point and t._dtype is not D.float64


def _cast(t, dtype):
    if not _eligible(t) or t._dtype is dtype:
        return t
    cacheable = STATE.cache_enabled and t._requires_grad and t._grad_fn is None
    if cacheable:
        hit = STATE.cache.get(id(t))
        if hit is not None and hit[0] is t and hit[1]._dtype is dtype:
            return hit[1]
    out = t.to(dtype)
    if cacheable:
        STATE.cache[id(t)] = (t, out)
    return out


def _map_tensors(value, fn):
    if isinstance(value, Tensor):
        return fn(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_map_tensors(v, fn) for v in value)
    return value


def _promoted(args, kwargs, lower):
    """The dtype ``promote`` ops compute in: float64 if any argument is, else float32 if any
    is, else the autocast dtype (PyTorch's ``prioritize``, including its refusal of the other
    half-precision type)."""
    current = lower
    for v in list(args) + list(kwargs.values()):
        for t in (v if isinstance(v, (list, tuple)) else (v,)):
            if not isinstance(t, Tensor) or not t._dtype.is_floating_point or \
                    current is D.float64:
                continue
            if t._dtype is D.float64:
                current = D.float64
            elif t._dtype is D.float32 or current is D.float32:
                current = D.float32
            elif t._dtype is not lower:
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


class _AutocastMode(TorchFunctionMode):
    """Casts the arguments of tagged ops (see the module docstring)."""

    # PyTorch's autocast works on ops, below ``nn.functional``: the functions there run and
    # the ops they call are cast (``nn/_functional/__init__.py`` reads this mark).
    _cinder_op_level = "autocast"

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        policy = _policy(func, args, kwargs) if STATE.enabled["cpu"] else None
        if policy is None:
            return func(*args, **kwargs)
        if policy == _LOWER_RESULT:
            return _map_tensors(func(*args, **kwargs),
                                functools.partial(_cast, dtype=STATE.dtype["cpu"]))
        if policy == "autocast_promote":
            target = _promoted(args, kwargs, STATE.dtype["cpu"])
            cast = functools.partial(_cast, dtype=target)
        else:
            dtype = STATE.dtype["cpu"] if policy == "autocast_lower_precision_fp" else D.float32
            cast = functools.partial(_cast, dtype=dtype)
        args = tuple(_map_tensors(a, cast) for a in args)
        kwargs = {k: _map_tensors(v, cast) for k, v in kwargs.items()}
        return func(*args, **kwargs)


# ----------------------------------------------------------------------------------------------
# The context manager / decorator
# ----------------------------------------------------------------------------------------------

class autocast:  # noqa: N801 - PyTorch's name
    """``with autocast("cpu"):`` (or ``@autocast("cpu")``): ops in the region follow PyTorch's
    CPU autocast policy. ``dtype`` is bfloat16 or float16 (default: the current autocast
    dtype); ``enabled=False`` turns autocast off inside an enclosing region."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _device_cls(device_type).type
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._enabled = enabled
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else cache_enabled
        if self.device == "cuda" and enabled:
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            self._enabled = False
        elif self.device == "cpu" and enabled and \
                self.fast_dtype not in (D.bfloat16, D.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                          "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                          "torch.float16 currently.", UserWarning, stacklevel=2)
            self._enabled = False

    def __enter__(self):
        self.prev = is_autocast_enabled(self.device)
        self.prev_dtype = get_autocast_dtype(self.device)
        self.prev_cache_enabled = is_autocast_cache_enabled()
        set_autocast_dtype(self.device, self.fast_dtype)
        set_autocast_cache_enabled(self._cache_enabled)
        autocast_increment_nesting()
        set_autocast_enabled(self.device, self._enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_dtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _cast_floats(value, device_type, dtype):
    """``value`` with every floating tensor on ``device_type`` (inside tuples, lists and dicts
    too) converted to ``dtype``; anything else as it is."""
    if isinstance(value, Tensor):
        if value._device.type == device_type and value._dtype.is_floating_point:
            return value.to(dtype)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_floats(v, device_type, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast_floats(v, device_type, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for the ``forward`` of a custom ``autograd.Function`` used under autocast.

    It records on ``ctx`` whether autocast was on (and its dtype) so that ``custom_bwd`` runs
    the backward the same way. With ``cast_inputs`` (a dtype), inside an autocast region the
    floating-point tensors among the arguments are converted to it and the forward runs with
    autocast off; outside a region ``cast_inputs`` changes nothing.
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def forward(ctx, *args, **kwargs):
        ctx._dtype = get_autocast_dtype(device_type)
        active = is_autocast_enabled(device_type)
        if cast_inputs is None or not active:
            ctx._fwd_used_autocast = active if cast_inputs is None else False
            return fwd(ctx, *args, **kwargs)
        ctx._fwd_used_autocast = False
        with autocast(device_type=device_type, enabled=False):
            return fwd(ctx, *_cast_floats(args, device_type, cast_inputs),
                       **_cast_floats(kwargs, device_type, cast_inputs))
    return forward


def custom_bwd(bwd=None, *, device_type):
    """Decorator for the ``backward`` of a custom ``autograd.Function`` whose forward has
    ``custom_fwd``: the backward runs with the autocast state (on or off, and its dtype) that
    the forward ran with."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def backward(ctx, *args, **kwargs):
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                      dtype=ctx._dtype):
            return bwd(ctx, *args, **kwargs)
    return backward
