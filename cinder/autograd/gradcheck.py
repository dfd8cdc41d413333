"""``gradcheck`` and ``gradgradcheck``: compare autograd's gradients with finite differences.

For every input ``x_j`` that requires grad and every differentiable output ``y_i`` two Jacobians
of shape ``(x_j.numel(), y_i.numel())`` are built:

- the *numerical* one by central differences, ``(f(x + eps e_k) - f(x - eps e_k)) / (2 eps)``,
  perturbing one element of ``x_j`` at a time in place;
- the *analytical* one row by row with ``autograd.grad``, using one-hot output gradients.

They must agree within ``allclose(analytical, numerical, rtol, atol)``. Like PyTorch's "slow
mode", this costs one forward pass per input element and one backward pass per output element,
so it is meant for small float64 inputs. ``fast_mode=True`` is accepted and runs the same slow
check. Complex inputs and outputs are not supported yet (``NotImplementedError``).
"""

import warnings

import numpy as np

from .. import autograd, backend
from .._dtype import float64
from .._tensor import Tensor, make_tensor
from ..ops._registry import FUNCTIONS
from . import grad_mode
from .graph import Node

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck", "get_numerical_jacobian",
           "get_analytical_jacobian", "get_numerical_jacobian_wrt_specific_input"]


class GradcheckError(RuntimeError):
    """Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


def _tensor_class():
    return Tensor


def _op(name):
    # Ops are looked up in the op table when called (they live in a layer below autograd).
    return FUNCTIONS[name]


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_float_or_complex(t):
    return isinstance(t, _tensor_class()) and (t.is_floating_point() or t.is_complex())


def _differentiable_outputs(out):
    return tuple(o for o in _as_tuple(out) if o.requires_grad)


def _host(t):
    """A NumPy copy of a tensor's values (works for CUDA tensors too)."""
    return np.array(backend.to_numpy(t._data), copy=True)


def _as_tensor(arr, like):
    """Wrap a NumPy Jacobian as a tensor with ``like``'s dtype and device (for messages)."""
    data = arr.astype(like.dtype.numpy_dtype, copy=False)
    if like.device.type != "cpu":
        data = backend.to_device(data, like.device)
    return make_tensor(data, like.dtype, like.device)


# ----------------------------------------------------------------------------------------------
# Input checks
# ----------------------------------------------------------------------------------------------

def _check_inputs(inputs):
    """PyTorch's checks: something requires grad, float64 recommended, no stride-0 dims."""
    Tensor = _tensor_class()
    any_requires_grad = False
    for idx, inp in enumerate(inputs):
        if not (isinstance(inp, Tensor) and inp.requires_grad):
            continue
        if inp.is_complex():
            raise NotImplementedError(
                f"gradcheck: input #{idx} is complex; cinder's gradcheck supports real "
                "floating point inputs and outputs only")
        if inp.dtype.numpy_dtype != np.float64:
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ", UserWarning, stacklevel=4)
        # A stride-0 dim means several elements share memory: perturbing one moves them all.
        if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size())):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck.")
        any_requires_grad = True
    if not any_requires_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")


def _check_outputs(outputs):
    for o in outputs:
        if o.is_complex():
            raise NotImplementedError("gradcheck: complex outputs are not supported by cinder's "
                                      "gradcheck yet")


# ----------------------------------------------------------------------------------------------
# Numerical Jacobians
# ----------------------------------------------------------------------------------------------

def _float_outputs(out):
    return [o for o in _as_tuple(out) if _is_float_or_complex(o)]


def _outputs_as_arrays(func, inputs):
    """Run ``func`` and return NumPy copies of its floating point outputs."""
    return [_host(o) for o in _float_outputs(func(*inputs))]


def _check_same_dtype_and_shape(a, b, idx, eps):
    on_index = f"on index {idx} "
    if a.shape != b.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs "
                             f"are perturbed {on_index}by {eps}, but got: shapes "
                             f"{tuple(a.shape)} and {tuple(b.shape)}.")
    if a.dtype != b.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs "
                             f"are perturbed {on_index}by {eps}, but got: dtypes {a.dtype} and "
                             f"{b.dtype}.")


def _numerical_jacobians(func, inputs, input_idx, float_outs, eps):
    """Jacobians of every float output w.r.t. ``inputs[input_idx]``, by central differences.

    Returns one NumPy array of shape ``(input.numel(), output.numel())`` per tensor in
    ``float_outs`` (the float outputs of the unperturbed call).
    """
    inp = inputs[input_idx]
    jacobians = [np.zeros((inp.numel(), out.numel()), dtype=out.dtype.numpy_dtype)
                 for out in float_outs]
    # The tensor's own array is perturbed in place (no version bump: like PyTorch's ``.data``),
    # so ``func`` sees the changed values through the very tensor it was given.
    data = inp._data
    for row, idx in enumerate(np.ndindex(*data.shape)):
        orig = data[idx].copy()
        data[idx] = orig - eps
        outa = _outputs_as_arrays(func, inputs)
        data[idx] = orig + eps
        outb = _outputs_as_arrays(func, inputs)
        data[idx] = orig
        for jac, a, b in zip(jacobians, outa, outb):
            _check_same_dtype_and_shape(a, b, idx, eps)
            # Divide in the output's dtype, as PyTorch does with tensors.
            jac[row] = ((b - a) / (2 * eps)).reshape(-1)
    return jacobians


# ----------------------------------------------------------------------------------------------
# Analytical Jacobians
# ----------------------------------------------------------------------------------------------

def _one_hot_like(t, index):
    """A contiguous tensor shaped like ``t``, zero except for flat element ``index``."""
    xp = backend.array_module(t.device)
    flat = xp.zeros(t.numel(), dtype=t.dtype.numpy_dtype)
    flat[index] = 1
    return make_tensor(flat.reshape(tuple(t.shape)), t.dtype, t.device)


def _analytical_rows(output, diff_inputs):
    """Row j of each Jacobian is the gradient for a one-hot ``grad_output`` at element j."""
    rows = [[] for _ in diff_inputs]
    for j in range(output.numel()):
        grad_out = _one_hot_like(output, j)
        grads = autograd.grad(output, diff_inputs, grad_out, retain_graph=True,
                              allow_unused=True)
        for i, g in enumerate(grads):
            rows[i].append(None if g is None else g.detach().clone())
    return rows


def _stack_rows(rows, diff_inputs, output_numel):
    """Assemble rows into Jacobians; report wrong sizes/dtypes."""
    jacobians, sizes_ok, types_ok = [], True, True
    for inp, inp_rows in zip(diff_inputs, rows):
        jac = np.zeros((inp.numel(), output_numel), dtype=inp.dtype.numpy_dtype)
        for j, g in enumerate(inp_rows):
            if g is None:
                continue
            if g.shape != inp.shape:
                sizes_ok = False
                continue
            if g.dtype is not inp.dtype:
                types_ok = False
            jac[:, j] = _host(g).reshape(-1)
        jacobians.append(jac)
    return jacobians, sizes_ok, types_ok


_NONDET_NOTE = (
    "\n\nNOTE: If your op relies on non-deterministic operations i.e., it is listed here:\n"
    "https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\n"
    "this failure might be expected.\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `nondet_tol=<tol>` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `gradcheck_nondet_tol=<tol>`.\n"
    "- is a Module test (e.g., in common_nn.py), then modify the corresponding\n"
    "  module_test entry to have `gradcheck_nondet_tol=<tol>`\n")


def _analytical_twice(output, diff_inputs, nondet_tol):
    """Jacobians of ``output`` w.r.t. each differentiable input, computed twice to detect a
    backward that gives different answers for the same input (non-reentrant): the first
    ones, whether both agree within ``nondet_tol``, and whether sizes and dtypes were right."""
    n = output.numel()
    jac1, sizes_ok, types_ok = _stack_rows(_analytical_rows(output, diff_inputs), diff_inputs, n)
    jac2, _, _ = _stack_rows(_analytical_rows(output, diff_inputs), diff_inputs, n)
    reentrant = all(a.size == 0 or np.abs(a - b).max() <= nondet_tol for a, b in zip(jac1, jac2))
    return jac1, reentrant, sizes_ok, types_ok


def _analytical_jacobians(output, diff_inputs, nondet_tol, check_grad_dtypes):
    """The analytical Jacobians, refusing wrong dtypes and sizes and a non-reentrant
    backward."""
    jac1, reentrant, sizes_ok, types_ok = _analytical_twice(output, diff_inputs, nondet_tol)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + _NONDET_NOTE)
    return jac1


# ----------------------------------------------------------------------------------------------
# The checks
# ----------------------------------------------------------------------------------------------

def _allclose(a, b, rtol, atol):
    """``torch.allclose(a, b)`` after promoting both to a common dtype."""
    dtype = np.promote_types(a.dtype, b.dtype)
    return bool(np.allclose(a.astype(dtype), b.astype(dtype), rtol=rtol, atol=atol))


def _mismatch_message(analytical, numerical, output_idx, input_idx):
    return (f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                    nondet_tol):
    Tensor = _tensor_class()
    input_indices = [i for i, a in enumerate(inputs) if isinstance(a, Tensor) and a.requires_grad]
    diff_inputs = [inputs[i] for i in input_indices]
    float_outs = _float_outputs(func_out)
    # numerical[j][k]: Jacobian of the k-th float output w.r.t. the j-th differentiable input.
    numerical = [_numerical_jacobians(func, inputs, i, float_outs, eps) for i in input_indices]
    if not outputs:
        # Nothing is differentiable, so the function must not depend on its inputs at all.
        for jacs in numerical:
            for jac in jacs:
                if np.count_nonzero(jac) > 0:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    for i, out in enumerate(outputs):
        k = next(n for n, o in enumerate(float_outs) if o is out)
        analytical = _analytical_jacobians(out, diff_inputs, nondet_tol, check_grad_dtypes)
        for j, (a, jacs) in enumerate(zip(analytical, numerical)):
            n = jacs[k]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch_message(
                    _as_tensor(a, diff_inputs[j]), _as_tensor(n, float_outs[k]), i, j))
    return True


def _test_backward_mul_by_grad_output(outputs, inputs):
    """A zero ``grad_output`` must give zero gradients of the right dtype/device/size."""
    zeros_like = _op("zeros_like")
    Tensor = _tensor_class()
    diff_inputs = [a for a in inputs if isinstance(a, Tensor) and a.requires_grad]
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads = autograd.grad(outputs, diff_inputs, [zeros_like(o) for o in outputs],
                          allow_unused=True)
    for gi, di in zip(grads, diff_inputs):
        if gi is None:
            continue
        if np.any(_host(gi) != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype is not di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.shape != di.shape:
            raise GradcheckError("grad is incorrect size")
    return True


class UndefinedGradBackward(Node):
    """Turns the gradient flowing into it into an undefined (None) one."""

    def backward(self, grad_outputs):
        return (None,)


def _undefined_grad(t):
    """An alias of ``t`` whose gradient reaches ``t``'s history as None (PyTorch's
    ``torch._C._functions.UndefinedGrad``)."""
    node = UndefinedGradBackward()
    node.next_functions = (t._gradient_edge(),)
    node._input_meta = ((t._data.shape, t._dtype, t._device),)
    out = make_tensor(t._data, t._dtype, t._device, True)
    out._grad_fn, out._output_nr = node, 0
    return out


def _test_undefined_backward_mode(func, outputs, inputs):
    """Backward must cope with undefined (None) output gradients and treat them as zeros."""
    zeros_like = _op("zeros_like")
    Tensor = _tensor_class()
    diff_inputs = [a for a in inputs if isinstance(a, Tensor) and a.requires_grad]
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")

    def warn_bc_breaking():
        warnings.warn("Backwards compatibility: New undefined gradient support checking feature "
                      "is enabled by default, but it may break existing callers of this "
                      "function. If this is true for you, you can call this function with "
                      "\"check_undefined_grad=False\" to disable the feature", UserWarning,
                      stacklevel=4)

    def check(outs):
        try:
            grads = autograd.grad(outs, diff_inputs, [zeros_like(o) for o in outs],
                                  allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                "\"Notes about undefined output gradients\" in \"tools/autograd/derivatives.yaml\""
            ) from e
        for gi in grads:
            if gi is not None and np.any(_host(gi) != 0):
                warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are "
                    "undefined or zero. Please look at \"Notes about undefined output "
                    "gradients\" in \"tools/autograd/derivatives.yaml\"")
        return True

    # All outputs undefined at once, then (with several outputs) one at a time.
    to_check = [[_undefined_grad(o) for o in _differentiable_outputs(func(*inputs))
                 if isinstance(o, Tensor)]]
    if len(to_check[0]) > 1:
        for undef_idx in range(len(outputs)):
            outs = _differentiable_outputs(func(*inputs))
            to_check.append([_undefined_grad(o) if k == undef_idx else o
                             for k, o in enumerate(outs)])
    return all(check(outs) for outs in to_check)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    r"""Check gradients computed via small finite differences against analytical gradients
    w.r.t. the tensors in ``inputs`` that are of floating point type and have
    ``requires_grad=True``.

    The comparison uses ``allclose(analytical, numerical, rtol, atol)``.

    .. note::
        The defaults are designed for ``inputs`` of double precision; the check will likely
        fail for less precise inputs such as ``float32``.

    .. warning::
        If a checked input has overlapping memory (several indices pointing at the same
        element, e.g. from ``expand``), the check is refused: perturbing one element would
        change the others too.

    Args:
        func (function): a Python function that takes Tensor inputs and returns a Tensor or a
            tuple of Tensors.
        inputs (tuple of Tensor or Tensor): inputs to the function.
        eps (float, optional): perturbation for finite differences.
        atol (float, optional): absolute tolerance.
        rtol (float, optional): relative tolerance.
        raise_exception (bool, optional): whether to raise :class:`GradcheckError` (with the
            details of the failure) when the check fails, rather than return ``False``.
        nondet_tol (float, optional): tolerance for non-determinism: running backward twice on
            the same input and ``grad_output`` must give results within this tolerance.
        check_undefined_grad (bool, optional): if ``True``, check that undefined output
            gradients are supported and treated as zeros.
        check_grad_dtypes (bool, optional): if ``True``, check that gradients have the dtype
            of their input.
        check_batched_grad, check_batched_forward_grad, check_forward_ad (bool, optional):
            need vmap / forward-mode AD, which cinder does not implement; ``True`` raises
            ``NotImplementedError``.
        check_backward_ad (bool, optional): if ``False``, skip every check that relies on
            backward mode AD.
        fast_mode (bool, optional): accepted; cinder always runs the full ("slow") check.
        masked (bool, optional): only meaningful for sparse tensors, which cinder lacks.

    Returns:
        ``True`` if all differences satisfy the allclose condition.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to "
                             "be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be "
                             "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad "
                             "to be True")
    if check_forward_ad or check_batched_forward_grad:
        raise NotImplementedError("gradcheck: check_forward_ad=True needs forward-mode AD, which "
                                  "cinder does not implement")
    if check_batched_grad:
        raise NotImplementedError("gradcheck: check_batched_grad=True needs vmap, which cinder "
                                  "does not implement")
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                                 check_grad_dtypes, check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                      check_grad_dtypes, check_backward_ad):
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    # Gradients are needed even if the caller is inside no_grad.
    with grad_mode.enable_grad():
        func_out = func(*inputs)
        outputs = _differentiable_outputs(func_out)
        _check_outputs(outputs)
        if not check_backward_ad:
            return True
        _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                        nondet_tol)
        if outputs:
            _test_backward_mul_by_grad_output(outputs, inputs)
        if check_undefined_grad and outputs:
            _test_undefined_backward_mode(func, outputs, inputs)
    return True


def _random_grad_output(t):
    """A random tensor in [-1, 1) like ``t`` (PyTorch uses ``torch.testing.make_tensor``)."""
    dtype = t.dtype if (t.is_floating_point() or t.is_complex()) else float64
    g = _op("rand")(tuple(t.shape), dtype=dtype, device=t.device) * 2 - 1
    return g.detach().requires_grad_(True)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    r"""Check second-order gradients (gradients of gradients) against finite differences.

    Runs :func:`gradcheck` on the function that maps ``(inputs, grad_outputs)`` to the
    gradients of ``func`` w.r.t. ``inputs`` (computed with ``create_graph=True``), so the
    backward of the backward is checked w.r.t. both ``inputs`` and ``grad_outputs``.

    Args:
        func (function): a Python function that takes Tensor inputs and returns a Tensor or a
            tuple of Tensors.
        inputs (tuple of Tensor or Tensor): inputs to the function.
        grad_outputs (tuple of Tensor or Tensor, optional): the gradients w.r.t. the function's
            outputs; random ones in ``[-1, 1)`` (requiring grad) when omitted.
        eps, atol, rtol, raise_exception, nondet_tol, check_undefined_grad, check_grad_dtypes,
        fast_mode, masked: as for :func:`gradcheck`.
        gen_non_contig_grad_outputs (bool, optional): accepted; generated ``grad_outputs`` are
            contiguous in cinder.
        check_batched_grad, check_fwd_over_rev (bool, optional): unsupported (vmap / forward
            AD); ``True`` raises ``NotImplementedError``.

    Returns:
        ``True`` if all differences satisfy the allclose condition.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev "
                             "to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to "
                             "be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be "
                             "True")
    Tensor = _tensor_class()
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        with grad_mode.enable_grad():
            outs = _differentiable_outputs(func(*inputs))
        grad_outputs = tuple(_random_grad_output(o) for o in outs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(grad_outputs)
    # gradcheck may hand back tensors whose requires_grad it changed; remember the originals.
    diff_input_idx = {i for i, x in enumerate(inputs)
                      if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_idx = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_idx else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grads_out = tuple(x.requires_grad_() if i in diff_grad_idx else x
                          for i, x in enumerate(args[-num_outputs:]))
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_idx)
        grads = autograd.grad(outputs, diff_args, grads_out, create_graph=True,
                              allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


# ----------------------------------------------------------------------------------------------
# The Jacobian helpers PyTorch once exposed (two of them deprecated)
# ----------------------------------------------------------------------------------------------

def _warn_private(name):
    warnings.warn(
        f"`{name}` was part of PyTorch's private API and not meant to be exposed. We are "
        "deprecating it and it will be removed in a future version of PyTorch. If you have a "
        "specific use for this or feature request for this to be a stable API, please file us "
        "an issue at https://github.com/pytorch/pytorch/issues/new", FutureWarning,
        stacklevel=3)


def _only_unit_grad_out(name, grad_out):
    if grad_out != 1.0:
        raise ValueError(f"Expected grad_out to be 1.0. {name} no longer supports values of "
                         "grad_out != 1.0.")


def _requiring_grad(tensors):
    return [t for t in _as_tuple(tensors) if isinstance(t, Tensor) and t.requires_grad]


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated. Finite-difference Jacobians of ``fn(inputs)``'s first output (``fn`` takes
    the inputs as one tuple) w.r.t. each tensor of ``target`` (default: ``inputs``) that
    requires grad, each of shape ``(target.numel(), output.numel())``."""
    _warn_private("get_numerical_jacobian")
    _only_unit_grad_out("get_numerical_jacobian", grad_out)
    targets = _requiring_grad(inputs if target is None else target)
    first = _float_outputs(fn(inputs))[:1]
    # the targets' own arrays are perturbed, so fn sees the change through ``inputs``
    return tuple(_as_tensor(_numerical_jacobians(lambda *_: fn(inputs), targets, i, first,
                                                 eps)[0], first[0])
                 for i in range(len(targets)))


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated. ``(jacobians, reentrant, sizes_ok, types_ok)``: autograd's Jacobians of
    ``output`` w.r.t. each input that requires grad (computed twice: ``reentrant`` says
    whether both agree within ``nondet_tol``), and whether the gradients had the inputs'
    sizes and dtypes."""
    _warn_private("get_analytical_jacobian")
    _only_unit_grad_out("get_analytical_jacobian", grad_out)
    if output.is_complex():
        raise ValueError("Expected output to be non-complex. get_analytical_jacobian no longer "
                         "supports functions that return complex outputs.")
    diff_inputs = _requiring_grad(inputs)
    jacobians, reentrant, sizes_ok, types_ok = _analytical_twice(output, diff_inputs,
                                                                 nondet_tol)
    return (tuple(_as_tensor(j, t) for j, t in zip(jacobians, diff_inputs)), reentrant,
            sizes_ok, types_ok)


def get_numerical_jacobian_wrt_specific_input(fn, input_idx, inputs, outputs, eps, input=None,
                                              is_forward_ad=False):
    """Finite-difference Jacobians of each of ``outputs`` (what ``fn(*inputs)`` returned)
    w.r.t. ``inputs[input_idx]`` (or ``input`` in its place)."""
    if is_forward_ad:
        raise NotImplementedError("cinder has no forward-mode AD")
    inputs = list(inputs)
    if input is not None:
        inputs[input_idx] = input
    if not inputs[input_idx].requires_grad:
        raise AssertionError("Expected input to have requires_grad=True")
    outputs = list(_as_tuple(outputs))
    jacobians = _numerical_jacobians(fn, inputs, input_idx, outputs, eps)
    return tuple(_as_tensor(j, out) for j, out in zip(jacobians, outputs))
