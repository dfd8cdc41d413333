"""``torch.autograd.backward`` and ``torch.autograd.grad``: the user's entry to the engine.

They sit above the op table (the default gradient of a scalar output is ``ones_like(out)``),
while the engine they drive (``engine.py``) sits below it; ``cinder.autograd`` publishes them
under its own name, as PyTorch's ``torch.autograd.backward`` is.
"""

import warnings

from ..ops.creation import ones_like, tensor, zeros_like
from .engine import run_backward
from .graph import GradientEdge

__all__ = ["backward", "grad"]


def _make_grads(outputs, grad_outputs, is_grads_batched=False):
    """Default ``gradient`` for each output: ones for scalars; an error for other shapes."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._requires_grad:
                if out._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if out._dtype.category != 2:
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                g = ones_like(out)
        elif not hasattr(g, "_data"):
            g = tensor(g, dtype=out.dtype, device=out.device)
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} "
                               f"and output[{i}] has a shape of {out.shape}.")
        grads.append(g)
    return grads


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (list, tuple)) and not isinstance(x, GradientEdge):
        return tuple(x)
    return (x,)


def _roots(outputs):
    roots = []
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
        roots.append(out._gradient_edge())
    return roots


def _check_inputs(inputs):
    for t in inputs:
        if not isinstance(t, GradientEdge) and not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")


def _output_grads(outputs, grad_outputs):
    grads = _as_tuple(grad_outputs)
    if not grads:
        grads = (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate gradients of ``tensors`` w.r.t. graph leaves into their ``.grad``.

    With ``inputs``, only those tensors (leaves or not) receive gradients.
    """
    outputs = _as_tuple(tensors)
    if grad_variables is not None:
        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.",
                      FutureWarning, stacklevel=2)
        if grad_tensors is None:
            grad_tensors = grad_variables
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _output_grads(outputs, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs) or None
    grads = _make_grads(outputs, grads)
    roots = _roots(outputs)
    if inputs is not None:
        _check_inputs(inputs)
    if create_graph:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after use "
            "to break the cycle and avoid the leak.", UserWarning, stacklevel=3)
    run_backward(roots, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned (``.grad`` is left untouched)."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _output_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grads)
    roots = _roots(outputs)
    _check_inputs(inputs)
    result = run_backward(roots, grads, retain_graph, create_graph, inputs=inputs,
                          accumulate=False, allow_unused=allow_unused)
    if materialize_grads:
        result = [zeros_like(t) if g is None else g for t, g in zip(inputs, result)]
    return tuple(result)


# Shown (and pickled) under the package that publishes them, as torch.autograd's are.
backward.__module__ = grad.__module__ = "cinder.autograd"
