"""stochastic_depth: randomly drop residual branches during training."""

from ...ops import FUNCTIONS as _F


def stochastic_depth(input, p, mode, training=True):
    """Zero the input per sample ('row') or entirely ('batch') with probability ``p``, scaling
    survivors by 1/(1-p)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ["batch", "row"]:
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input
    survival = 1.0 - p
    size = [input.shape[0]] + [1] * (input.ndim - 1) if mode == "row" else [1] * input.ndim
    noise = _F["empty"](size, dtype=input.dtype, device=input.device).bernoulli_(survival)
    if survival > 0.0:
        noise.div_(survival)
    return input * noise
