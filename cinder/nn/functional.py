"""``torch.nn.functional``: the functions behind the nn modules.

PyTorch keeps them in one file; here each family lives in a private module of
``cinder/nn/_functional/`` (activation, linear, dropout, loss, distance, sparse, conv, pooling,
norm, vision, sampling, attention) and this module gathers their public names, so that
``import cinder.nn.functional as F`` sees one namespace as in PyTorch. Each function checks its
arguments the way PyTorch's does and then calls ops (the kernels live in ``cinder/ops/nn/``).
"""

# This module re-exports the families' names: the imports are its content.
# ruff: noqa: F401

from ._functional.activation import (
    threshold, threshold_, relu, relu_, hardtanh, hardtanh_, relu6, elu, elu_, selu, selu_,
    celu, celu_, leaky_relu, leaky_relu_, prelu, rrelu, rrelu_, glu, gelu, logsigmoid,
    hardshrink, tanhshrink, softsign, softplus, softmin, softmax, log_softmax, gumbel_softmax,
    softshrink, tanh, sigmoid, hardsigmoid, silu, mish, hardswish,
)
from ._functional.linear import linear
from ._functional.dropout import (
    dropout, alpha_dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout,
)
from ._functional.loss import (
    nll_loss, cross_entropy, linear_cross_entropy, l1_loss, mse_loss, smooth_l1_loss,
    huber_loss, binary_cross_entropy, binary_cross_entropy_with_logits, kl_div,
    poisson_nll_loss, gaussian_nll_loss, margin_ranking_loss, hinge_embedding_loss,
    multilabel_margin_loss, soft_margin_loss, multilabel_soft_margin_loss,
    cosine_embedding_loss, multi_margin_loss, triplet_margin_loss,
    triplet_margin_with_distance_loss, ctc_loss,
)
from ._functional.distance import normalize
from ._functional.sparse import one_hot, embedding, embedding_bag
from ._functional.conv import (
    conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d, conv_tbc,
    unfold, fold,
)
from ._functional.pooling import (
    max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d_with_indices, avg_pool1d,
    avg_pool2d, avg_pool3d, max_pool1d, max_pool2d, max_pool3d, adaptive_avg_pool1d,
    adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool2d,
    adaptive_max_pool3d, adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d_with_indices, max_unpool1d, max_unpool2d, max_unpool3d, lp_pool1d,
    lp_pool2d, lp_pool3d, fractional_max_pool2d, fractional_max_pool3d,
    fractional_max_pool2d_with_indices, fractional_max_pool3d_with_indices,
)
from ._functional.norm import (
    batch_norm, instance_norm, layer_norm, rms_norm, group_norm, local_response_norm,
)
from ._functional.vision import (
    pad, interpolate, upsample, upsample_nearest, upsample_bilinear, pixel_shuffle,
    pixel_unshuffle, channel_shuffle, native_channel_shuffle,
)
from ._functional.sampling import affine_grid, grid_sample
from ._functional.attention import (
    scaled_dot_product_attention, multi_head_attention_forward, _canonical_mask, _none_or_dtype,
)
from ._functional import _op, dispatched_functional as _dispatched_functional
from . import grad          # ``F.grad`` is the ``torch.nn.grad`` module, as in PyTorch
# helpers PyTorch's functional module imports and so publishes
from ..overrides import has_torch_function, has_torch_function_unary, \
    has_torch_function_variadic

def assert_int_or_pair(arg, arg_name, message):
    """Refuse ``arg`` unless it is an int or has two items: AssertionError with ``message``
    formatted with ``arg_name`` (the check PyTorch's ``fold``/``unfold`` arguments get)."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


# The names PyTorch binds to its published ops (``F.conv2d is torch.conv2d``): here too they
# are the published ``cinder.<name>`` objects, so modes and autocast see them by that name.
_SAME_AS_TORCH = (
    "adaptive_avg_pool1d", "avg_pool1d", "bilinear", "celu_", "channel_shuffle", "conv1d",
    "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "cosine_similarity", "hardshrink", "native_channel_shuffle", "pairwise_distance", "pdist",
    "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_", "rrelu_", "selu_", "threshold_")


def _publish_functions():
    """Bind every public name to what PyTorch's is: the published op where PyTorch's is one,
    otherwise the function behind one ``__torch_function__`` check (``dispatched_functional``),
    a new object even where it is an op-table kernel (``F.max_pool1d_with_indices is not
    torch.max_pool1d_with_indices`` in PyTorch either)."""
    space = globals()
    for name in _SAME_AS_TORCH:
        space[name] = _op(name)
    for name, value in list(space.items()):
        if name.startswith("_") or name in _SAME_AS_TORCH or not callable(value) or \
                isinstance(value, type):
            continue
        module = getattr(value, "__module__", None) or ""
        if module.startswith(("cinder.nn._functional.", "cinder.ops.")) and \
                not hasattr(value, "_cinder_impl"):
            space[name] = _dispatched_functional(value)


_publish_functions()
del _publish_functions


def _claim_functions():
    """Make the re-exported functions report ``cinder.nn.functional`` as their module, as
    PyTorch's report ``torch.nn.functional`` (for ``help()``, reprs and pickling by name)."""
    for value in list(globals().values()):
        module = getattr(value, "__module__", None) or ""
        # (the wrappers of op-table kernels are this module's own objects too)
        if module.startswith("cinder.nn._functional.") or \
                (module.startswith("cinder.ops.") and hasattr(value, "_cinder_impl")):
            value.__module__ = __name__


_claim_functions()
del _claim_functions
