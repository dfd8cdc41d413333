"""``nn.functional``, the dropout family.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""


from ...ops.nn import dropout as _drop

from . import warn as _warn

__all__ = ["dropout", "alpha_dropout", "dropout1d", "dropout2d", "dropout3d",
           "feature_alpha_dropout"]


def _check_dropout_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` during training and scale the rest by
    ``1 / (1 - p)``; identity when not training."""
    _check_dropout_p(p)
    return _drop.dropout_(input, p, training) if inplace else _drop.dropout(input, p, training)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: keeps zero mean and unit variance."""
    _check_dropout_p(p)
    return _drop.alpha_dropout_(input, p, training) if inplace else \
        _drop.alpha_dropout(input, p, training)


def _feature_dropout(input, p, training, inplace):
    return _drop.feature_dropout_(input, p, training) if inplace else \
        _drop.feature_dropout(input, p, training)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) inputs."""
    _check_dropout_p(p)
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs "
                           "with 1 spatial dimension, a channel dimension, and an optional batch "
                           "dimension (i.e. 2D or 3D inputs).")
    return _unbatched_feature_dropout(input, p, training, inplace, nd == 3)


def _unbatched_feature_dropout(input, p, training, inplace, batched):
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def _warn_feature_dims(name, nd, spatial, ok):
    if nd not in ok:
        _warn(
            f"{name}: Received a {nd}-D input to {name}, which is deprecated and will result in "
            "an error in a future release. To retain the behavior and silence this warning, "
            f"please use dropout instead. Note that {name} exists to provide channel-wise dropout "
            f"on inputs with {spatial} spatial dimensions, a channel dimension, and an optional "
            f"batch dimension (i.e. {ok[0]}D or {ok[1]}D inputs).", stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) inputs."""
    _check_dropout_p(p)
    nd = input.dim()
    _warn_feature_dims("dropout2d", nd, 2, (3, 4))
    if nd == 3:
        _warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""
    _check_dropout_p(p)
    nd = input.dim()
    _warn_feature_dims("dropout3d", nd, 3, (4, 5))
    return _unbatched_feature_dropout(input, p, training, inplace, nd == 5)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    _check_dropout_p(p)
    return _drop.feature_alpha_dropout_(input, p, training) if inplace else \
        _drop.feature_alpha_dropout(input, p, training)
