"""``torch.autograd.functional``: Jacobians, Hessians and their products with vectors.

Everything here is built on reverse mode (``autograd.grad``):

- ``vjp`` is one backward pass; ``jvp`` uses the *double backward trick* (the gradient of a
  vjp with respect to its ``grad_outputs`` is the jvp), as PyTorch does.
- ``jacobian`` runs one backward pass per output element; ``hessian`` is the Jacobian of the
  Jacobian; ``vhp``/``hvp`` are two/three backward passes.

``vectorize=True`` (vmap in PyTorch) is accepted and gives the same result through the same
loop. ``strategy="forward-mode"`` needs forward-mode AD, which cinder does not implement, and
raises ``NotImplementedError``.

Inputs may be a Tensor or a tuple of Tensors, and so may the function's outputs; results mirror
those structures exactly as PyTorch's do.
"""

from .. import autograd
from .._tensor import Tensor
from ..ops._registry import FUNCTIONS
from . import grad_mode

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _tensor_class():
    return Tensor


def _op(name):
    # Ops are looked up in the op table when called (they live in a layer below autograd).
    return FUNCTIONS[name]


def _zeros_like(t, requires_grad=False):
    return _op("zeros_like")(t, requires_grad=requires_grad)


# ----------------------------------------------------------------------------------------------
# Structure helpers: tuples in, the caller's structure out
# ----------------------------------------------------------------------------------------------

def _as_tuple(inp, arg_name, fn_name):
    """Return ``(was_tuple, tuple_of_tensors)``, checking that everything is a Tensor."""
    Tensor = _tensor_class()
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            where = f"the value at index {i} has type" if is_tuple else \
                f"the given {arg_name} has type"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where} {type(el)}.")
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Undo ``_as_tuple``: ``to_unpack`` is one flag, or (outer, inner) flags for nested
    results such as Jacobians (outputs x inputs)."""
    if isinstance(to_unpack, tuple):
        outer, inner = to_unpack
        if not inner:
            res = tuple(el[0] for el in res)
        if not outer:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """New Tensor objects for the inputs, so gradients are taken w.r.t. *these* objects.

    With ``create_graph`` an input that requires grad stays connected to its history (a view);
    otherwise it is detached and made a fresh leaf (requiring grad when ``need_graph``). Always
    making a new object separates the inputs given as arguments from the same tensors captured
    by the user's function.
    """
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    """Detach results unless the caller asked for a differentiable computation."""
    if isinstance(inputs[0], _tensor_class()):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but "
                               f"got {el_v.size()}.")


def _check_requires_grad(inputs, input_type, strict):
    """In strict mode, refuse results that do not depend on the inputs."""
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if inp.requires_grad:
            continue
        if input_type == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs.")
        if input_type == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).")
        if input_type == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in strict "
            "mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` that skips outputs which are None or need no grad, and returns a
    None per input when nothing is differentiable."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    new_outputs, new_grads = zip(*pairs)
    return autograd.grad(new_outputs, inputs, new_grads, allow_unused=True,
                         create_graph=create_graph, retain_graph=retain_graph)


_STRICT_NONE_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward mode "
                         "AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Replace None gradients by zeros shaped like ``refs`` (or raise, in strict mode)."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_NONE_MESSAGES[stage].format(i=i))
            g = _zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _check_v_none(inputs, what):
    if len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(f"The vector v can only be None if the {what} a single Tensor with a "
                           "single element.")


# ----------------------------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------------------------

def _product_result(first, wrt, v, refs, outputs, is_outputs_tuple, is_result_tuple, strict,
                    create_graph, stage):
    """The last step shared by vjp, jvp, vhp and hvp: backpropagate ``v`` from ``first`` to
    ``wrt`` (differentiably only when asked), fill in zeros for unreached inputs, and return
    ``(outputs, result)`` in the caller's tuple-or-single shapes."""
    with grad_mode.set_grad_enabled(bool(create_graph or grad_mode.is_grad_enabled())):
        grad_res = _autograd_grad(first, wrt, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, refs, strict, create_graph, stage)
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_result_tuple))


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    r"""Compute the dot product between a vector ``v`` and the Jacobian of ``func`` at
    ``inputs``.

    Args:
        func (function): a Python function that takes Tensor inputs and returns a tuple of
            Tensors or a Tensor.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        v (tuple of Tensors or Tensor): the vector for the product; same sizes as the outputs
            of ``func``. Optional when ``func`` returns a single one-element Tensor (then 1).
        create_graph (bool, optional): if ``True``, the output and the result are computed in
            a differentiable way. Defaults to ``False``.
        strict (bool, optional): if ``True``, raise when some input has no influence on the
            outputs; if ``False``, return zeros for it (the mathematical value).

    Returns:
        output (tuple): ``(func_output, vjp)``, ``vjp`` shaped like ``inputs``.
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    return _product_result(outputs, inputs, v, inputs, outputs, is_outputs_tuple, is_inputs_tuple,
                           strict, create_graph, "back")


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    r"""Compute the dot product between the Jacobian of ``func`` at ``inputs`` and a vector
    ``v``.

    Args:
        func (function): a Python function that takes Tensor inputs and returns a tuple of
            Tensors or a Tensor.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        v (tuple of Tensors or Tensor): the vector for the product; same sizes as ``inputs``.
            Optional when the input is a single one-element Tensor (then 1).
        create_graph (bool, optional): if ``True``, the output and the result are computed in
            a differentiable way. Defaults to ``False``.
        strict (bool, optional): if ``True``, raise when some input has no influence on the
            outputs; if ``False``, return zeros for it.

    Returns:
        output (tuple): ``(func_output, jvp)``, ``jvp`` shaped like the outputs.

    Note:
        The jvp is computed with the double backward trick (backward of the backward), which
        is not the fastest way to get it.
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        else:
            _check_v_none(inputs, "input to the user-provided function is")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # The backward is linear in grad_outputs, so their value never reaches the result; they
        # only need to be finite and to require grad.
        grad_outputs = tuple(_zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    return _product_result(grad_inputs, grad_outputs, v, outputs, outputs, is_outputs_tuple,
                           is_outputs_tuple, strict, create_graph, "back_trick")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    r"""Compute the Jacobian of ``func`` at ``inputs``.

    Args:
        func (function): a Python function that takes Tensor inputs and returns a tuple of
            Tensors or a Tensor.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        create_graph (bool, optional): if ``True``, the Jacobian is computed in a
            differentiable manner. Defaults to ``False``.
        strict (bool, optional): if ``True``, raise when some input has no influence on the
            outputs; if ``False``, return zeros for it.
        vectorize (bool, optional): accepted for compatibility; cinder computes the same
            result with one ``autograd.grad`` call per output element either way.
        strategy (str, optional): ``"reverse-mode"`` (default). ``"forward-mode"`` raises
            ``NotImplementedError`` (cinder has no forward-mode AD).

    Returns:
        Jacobian (Tensor or nested tuple of Tensors): for a single input and output, one
        Tensor of size ``output.size() + input.size()``. If one of the two is a tuple, a tuple
        of such Tensors; if both are, a tuple of tuples where ``Jacobian[i][j]`` is the
        Jacobian of the ``i``-th output w.r.t. the ``j``-th input, with that input's dtype and
        device.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               '`strategy="forward-mode"` are not supported together (yet). '
                               "Please either set `strict=False` or "
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            # PyTorch's own refusal (it needs vmap for forward mode).
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-"
                                      "reverse Hessian isonly implemented for `vectorize=True`.")
        raise NotImplementedError('torch.autograd.functional.jacobian: strategy="forward-mode" '
                                  "needs forward-mode AD, which cinder does not implement. "
                                  'Please use strategy="reverse-mode".')

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        jac = tuple(_jacobian_of_output(i, out, inputs, create_graph, strict)
                    for i, out in enumerate(outputs))
        jac = _grad_postprocess(jac, create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _jacobian_of_output(i, out, inputs, create_graph, strict):
    """Jacobians of output ``i`` w.r.t. every input, one backward pass per output element."""
    stack = _op("stack")
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    for k in range(out.nelement()):
        grads = _autograd_grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
        for j, (g, inp) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is independent "
                                       f"of input {j}. This is not allowed in strict mode.")
                g = _zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode when "
                                   "create_graph=True.")
            rows[j].append(g)
    result = []
    for j, inp in enumerate(inputs):
        shape = tuple(out.size()) + tuple(inp.size())
        if rows[j]:
            result.append(stack(rows[j], dim=0).view(shape))
        else:                         # an empty output: nothing to stack
            result.append(inp.new_zeros(shape))
    return tuple(result)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    r"""Compute the Hessian of the scalar function ``func`` at ``inputs``.

    Args:
        func (function): a Python function that takes Tensor inputs and returns a Tensor with
            a single element.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        create_graph (bool, optional): if ``True``, the Hessian is computed in a
            differentiable manner. Defaults to ``False``.
        strict (bool, optional): if ``True``, raise when some input has no influence on the
            output; if ``False``, return zeros for it.
        vectorize (bool, optional): accepted for compatibility (same result, same loop).
        outer_jacobian_strategy (str, optional): ``"reverse-mode"`` (default);
            ``"forward-mode"`` raises ``NotImplementedError``.

    Returns:
        Hessian (Tensor or a tuple of tuple of Tensors): for a single input, one Tensor of
        size ``input.size() + input.size()``; for a tuple of inputs, ``Hessian[i][j]`` of size
        ``inputs[i].size() + inputs[j].size()``.
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        _, outputs = _scalar_function_outputs(func, inp, "hessian", strict)
        return outputs[0].squeeze()

    def jac_func(*inp):
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_function_outputs(func, inputs, name, strict):
    """Run ``func`` and check it returns one single-element Tensor (for vhp/hvp)."""
    Tensor = _tensor_class()
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain "
                           "a single element")
    return is_outputs_tuple, outputs


def _hessian_product_start(func, inputs, v, create_graph, strict, name):
    """What vhp and hvp share (under enable_grad): check and prepare ``inputs`` and ``v``, run
    ``func`` and take its gradient with a graph. Returns ``(is_inputs_tuple, inputs, v,
    is_outputs_tuple, outputs, jac)``."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    else:
        _check_v_none(inputs, "input to the user-provided function is")
    is_outputs_tuple, outputs = _scalar_function_outputs(func, inputs, name, strict)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    r"""Compute the dot product between the vector ``v`` and the Hessian of the scalar
    function ``func`` at ``inputs``.

    Args:
        func (function): a Python function that takes Tensor inputs and returns a Tensor with
            a single element.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        v (tuple of Tensors or Tensor): the vector for the product; same sizes as ``inputs``.
            Optional when the input is a single one-element Tensor.
        create_graph (bool, optional): if ``True``, the output and the result are computed in
            a differentiable way. Defaults to ``False``.
        strict (bool, optional): if ``True``, raise when some input has no influence on the
            output; if ``False``, return zeros for it.

    Returns:
        output (tuple): ``(func_output, vhp)``, ``vhp`` shaped like ``inputs``.
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _hessian_product_start(
            func, inputs, v, create_graph, strict, "vhp")
    return _product_result(jac, inputs, v, inputs, outputs, is_outputs_tuple, is_inputs_tuple,
                           strict, create_graph, "double_back")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    r"""Compute the dot product between the Hessian of the scalar function ``func`` at
    ``inputs`` and the vector ``v``.

    Args:
        func (function): a Python function that takes Tensor inputs and returns a Tensor with
            a single element.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        v (tuple of Tensors or Tensor): the vector for the product; same sizes as ``inputs``.
            Optional when the input is a single one-element Tensor.
        create_graph (bool, optional): if ``True``, the output and the result are computed in
            a differentiable way. Defaults to ``False``.
        strict (bool, optional): if ``True``, raise when some input has no influence on the
            output; if ``False``, return zeros for it.

    Returns:
        output (tuple): ``(func_output, hvp)``, ``hvp`` shaped like ``inputs``.

    Note:
        Slower than :func:`vhp` (one more backward pass, through the double backward trick).
        For twice continuously differentiable functions the two are equal, so prefer ``vhp``.
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _hessian_product_start(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(_zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    return _product_result(double_back, grad_jac, v, inputs, outputs, is_outputs_tuple,
                           is_inputs_tuple, strict, create_graph, "double_back_trick")
