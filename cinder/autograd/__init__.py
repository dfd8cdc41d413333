"""``torch.autograd``: backward, grad, grad modes, graph nodes, custom Functions, gradcheck."""

from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: F401
                        is_grad_enabled, is_inference_mode_enabled)
from . import graph  # noqa: F401
from .engine import run_backward


def _make_grads(outputs, grad_outputs, is_grads_batched=False):
    """Default ``gradient`` for each output: ones for scalars; an error for other shapes."""
    from ..ops.creation import ones_like
    grads = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            if out._requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if out._dtype.category < 2:
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                g = ones_like(out)
        elif not hasattr(g, "_data"):
            from ..ops.creation import tensor
            g = tensor(g, dtype=out.dtype, device=out.device)
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{len(grads)}] has a shape of "
                               f"{g.shape} and output[{len(grads)}] has a shape of {out.shape}.")
        grads.append(g)
    return grads


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _roots(outputs):
    roots = []
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
        roots.append(out._gradient_edge())
    return roots


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate gradients of ``tensors`` w.r.t. graph leaves into their ``.grad``."""
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors if grad_tensors is not None else grad_variables)
    if not grads:
        grads = (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(grads)} tensors and {len(outputs)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs) or None
    if inputs is not None:
        for t in inputs:
            if not t._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outputs, grads)
    run_backward(_roots(outputs), grads, retain_graph, create_graph, inputs=inputs,
                 accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned (``.grad`` is left untouched)."""
    outputs = _as_tuple(outputs)
    single = not isinstance(inputs, (list, tuple))
    inputs = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad_outputs contains {len(grads)} tensors but outputs contains "
                           f"{len(outputs)}")
    for t in inputs:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grads)
    result = run_backward(_roots(outputs), grads, retain_graph, create_graph, inputs=inputs,
                          accumulate=False, allow_unused=allow_unused)
    if materialize_grads:
        from ..ops.creation import zeros_like
        result = [zeros_like(t) if g is None else g for t, g in zip(inputs, result)]
    return tuple(result)


def _register_optional_modules():
    """Function, gradcheck, functional and anomaly mode live in their own files."""
    import importlib
    names = {}
    for mod, attrs in (("function", ("Function", "once_differentiable", "FunctionCtx",
                                     "BackwardCFunction", "InplaceFunction", "NestedIOFunction")),
                       ("gradcheck", ("gradcheck", "gradgradcheck")),
                       ("anomaly_mode", ("detect_anomaly", "set_detect_anomaly",
                                         "is_anomaly_enabled"))):
        try:
            m = importlib.import_module(f"{__name__}.{mod}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{mod}":
                raise
            continue
        for a in attrs:
            if hasattr(m, a):
                names[a] = getattr(m, a)
    return names


from .variable import Variable  # noqa: E402,F401

globals().update(_register_optional_modules())
