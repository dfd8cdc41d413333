"""``torch.func``'s derivative transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``,
``jacrev``, ``jacfwd``, ``hessian``, ``linearize``, plus ``functionalize`` and ``debug_unwrap``.

PyTorch runs these on "levels": each transform wraps its inputs in tensors of its own level, so
nested transforms keep their graphs apart. cinder has one eager autograd tape, and builds the
transforms on ``autograd.grad`` instead:

- each differentiated input becomes a fresh leaf (``x.detach().requires_grad_()``); an input
  that already takes part in a graph someone outside may differentiate (an outer transform, or
  the user's own ``requires_grad`` tensors) is aliased with ``x.view_as(x)`` instead, so the
  outer derivative still flows through it. The user's tensors are never modified.
- the gradient is taken with ``create_graph=True`` only when someone outside can differentiate
  it: grad mode was on outside, and either another transform encloses this one (a depth
  counter says so) or the function's graph reaches a leaf that requires grad and that no
  transform made (a user's tensor). Otherwise the results carry no graph, as PyTorch's
  unwrapped results print no ``grad_fn``. Inside, grad mode is always on.
- cinder has no forward-mode AD, so ``jvp`` uses the double-vjp identity: ``g(u) = J^T u`` is
  linear in ``u``, and ``J t`` is the gradient of ``<g(u), t>`` with respect to ``u``. The
  values are exact (the same math), equal to PyTorch's up to float rounding.
- ``jacrev`` takes one vjp per output element; ``jacfwd`` builds that linearization once and
  takes one backward pass per input element (forward mode's cost profile). ``hessian`` is
  reverse over reverse: the same matrix as PyTorch's forward over reverse, cheaper here.
"""

import functools
import threading
import weakref

from .._C import DisableTorchFunction
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd._backward import grad as _autograd_grad_raw
from ..autograd.graph import AccumulateGrad
from ..ops import FUNCTIONS
from ..overrides import TorchFunctionMode
from ..utils._pytree import tree_flatten, tree_unflatten, treespec_pprint
from .vmap import RANDOM_IN_ERROR_MODE, _is_random

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize",
           "functionalize", "debug_unwrap"]

_JVP_STR = "jvp(f, primals, tangents)"


# ----------------------------------------------------------------------------------------------
# Nesting: how many derivative transforms are running around the current call
# ----------------------------------------------------------------------------------------------

class _Depth(threading.local):
    value = 0


_DEPTH = _Depth()


class _nested:
    """Counts one more transform level while a transformed function runs, with grad mode on:
    PyTorch's transforms ignore an outer ``no_grad`` for their own level, but respect it for
    the levels outside (``outer_grad``: results then carry no graph out)."""

    def __enter__(self):
        self.outer_grad = grad_mode.is_grad_enabled()
        _DEPTH.value += 1
        self._grad = grad_mode.enable_grad()
        self._grad.__enter__()
        return self

    def __exit__(self, *exc):
        self._grad.__exit__(*exc)
        _DEPTH.value -= 1


def _inside_transform():
    return _DEPTH.value > 0


# ----------------------------------------------------------------------------------------------
# argnums
# ----------------------------------------------------------------------------------------------

def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _check_argnums(argnums, num_args):
    """``argnums`` validated and made non-negative."""
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    argnums = tuple(_wrap_argnum(a, num_args) for a in argnums)
    if not argnums:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return argnums


def _slice_argnums(args, argnums, as_tuple=True):
    """The arguments at ``argnums``: one argument for an int (a 1-tuple with ``as_tuple``), a
    tuple of them for a tuple."""
    argnums = _check_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def _replace_args(args, new, argnums):
    """``args`` with the arguments at ``argnums`` replaced by ``new`` (as sliced above)."""
    argnums = _check_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


# ----------------------------------------------------------------------------------------------
# Inputs, outputs and graphs
# ----------------------------------------------------------------------------------------------

def _differentiable(x):
    """A tensor standing for ``x`` that this transform differentiates with respect to."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if x.requires_grad:
        return x.view_as(x)         # keep the outer graph connected
    return _fresh_leaf(x.detach())


def _fresh_leaf(t):
    """``t`` (a new tensor) made a leaf that requires grad, remembered as the transforms'."""
    t.requires_grad_()
    _FRESH_LEAVES[id(t)] = t
    return t


# The leaves the transforms made (by id; weak, so they go with their graphs). No one outside
# a transform can differentiate with respect to them: a graph reaching one reaches no user.
_FRESH_LEAVES = weakref.WeakValueDictionary()


def _is_fresh_leaf(t):
    return _FRESH_LEAVES.get(id(t)) is t


def _make_differentiable(tree):
    """(the tree with fresh differentiable leaves, its flat leaves, its spec)."""
    leaves, spec = tree_flatten(tree)
    # PyTorch's wrapping happens below the modes: an active one (vmap's) does not see it
    with DisableTorchFunction():
        fresh = [_differentiable(x) for x in leaves]
    return tree_unflatten(fresh, spec), fresh, spec


def _reaches_outside(outputs):
    """Whether the graph of ``outputs`` reaches a leaf that requires grad and that no transform
    made: then someone outside may differentiate the results."""
    stack, seen = [], set()
    for out in outputs:
        # the core's fields, not the properties: an active mode (vmap's) need not see this
        if isinstance(out, Tensor) and out._requires_grad:
            if out._grad_fn is None:
                if not _is_fresh_leaf(out):
                    return True
            else:
                stack.append(out._grad_fn)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if not _is_fresh_leaf(node.variable):
                return True
            continue
        stack.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
    return False


def _keeps_graph(outputs, level, extra=()):
    """Whether results must stay differentiable for someone outside this transform: grad mode
    was on outside, and an enclosing transform runs (called while this transform's ``level``
    is counted, so an enclosing one makes the depth 2), or a tensor of ``extra`` requires
    grad, or the graph of ``outputs`` reaches a user's leaf."""
    if not level.outer_grad:
        return False
    return (_DEPTH.value > 1 or any(t.requires_grad for t in extra)
            or _reaches_outside(outputs))


def _products_differentiable(keep, cotangents):
    """Whether vector products taken after the transform returned stay differentiable."""
    if not grad_mode.is_grad_enabled():
        return False
    return keep or _inside_transform() or any(
        isinstance(c, Tensor) and c.requires_grad for c in cotangents)


def _release(tree, keep):
    """Results handed back to the caller: detached from this transform's graph unless someone
    outside needs it. Every leaf must be a tensor (PyTorch unwraps only tensors)."""
    leaves, spec = tree_flatten(tree)
    out = []
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
        out.append(leaf if keep else leaf.detach())
    return tree_unflatten(out, spec)


def _grads(outputs, inputs, grad_outputs=None, retain_graph=False, create_graph=False):
    """``autograd.grad`` where an output that does not require grad contributes nothing and
    an input nothing reaches gets zeros (PyTorch's transforms never return None)."""
    pairs = [(o, None if grad_outputs is None else g)
             for o, g in zip(outputs, grad_outputs or [None] * len(outputs))
             if o._requires_grad]
    if not pairs:
        return tuple(FUNCTIONS["zeros_like"](x) for x in inputs)
    outs = [o for o, _ in pairs]
    gouts = None if grad_outputs is None else [g for _, g in pairs]
    with grad_mode.set_grad_enabled(create_graph):
        found = _autograd_grad_raw(outs, inputs, gouts, retain_graph=retain_graph,
                                   create_graph=create_graph, allow_unused=True)
    return tuple(FUNCTIONS["zeros_like"](x) if g is None else g for g, x in zip(found, inputs))


def _split_aux(output, api):
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return output


def _check_tensor_outputs(flat, api):
    if len(flat) < 1 or (len(flat) == 1 and flat[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           f"(got output = {flat})")
    for out in flat:
        if not isinstance(out, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(out)}")


# ----------------------------------------------------------------------------------------------
# grad, grad_and_value
# ----------------------------------------------------------------------------------------------

def grad_and_value(func, argnums=0, has_aux=False):
    """Transform ``func`` into a function returning ``(gradient, value)``.

    ``func`` must return a scalar (0-dim) tensor, or ``(scalar, aux)`` with ``has_aux=True``
    (then ``(gradient, (value, aux))`` is returned). The gradient is taken with respect to the
    argument(s) at ``argnums`` (an int, or a tuple giving a tuple of gradients); an argument
    may be a pytree of tensors (a dict of parameters...), and its gradient has its structure.
    Transforms nest: ``grad(grad(f))`` is a second derivative.
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _nested() as level:
            diff = _slice_argnums(args, argnums, as_tuple=False)
            fresh_tree, fresh, spec = _make_differentiable(diff)
            output = func(*_replace_args(args, fresh_tree, argnums), **kwargs)
            aux = None
            if has_aux:
                output, aux = _split_aux(output, "grad_and_value(f)(*args)")
            _check_scalar(output)
            keep = _keeps_graph([output], level)
            grads = _grads([output], fresh, retain_graph=keep, create_graph=keep)
            value = _release(output, keep)
            gradient = tree_unflatten(grads, spec)
            if has_aux:
                return gradient, (value, _release(aux, keep))
            return gradient, value
    return wrapper


def _check_scalar(output):
    if not isinstance(output, Tensor):
        raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                           f"got {type(output)}")
    if output.dim() != 0:
        raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                           f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted to "
                           "use the vjp or jacrev APIs instead?")


def grad(func, argnums=0, has_aux=False):
    """Transform ``func`` into a function returning its gradient with respect to the
    argument(s) at ``argnums`` (see :func:`grad_and_value`); with ``has_aux=True`` it returns
    ``(gradient, aux)``."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradient, value = both(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient
    return wrapper


# ----------------------------------------------------------------------------------------------
# vjp
# ----------------------------------------------------------------------------------------------

def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` returns the vector-Jacobian
    products, a tuple with one entry per primal (each shaped like its primal's pytree).
    ``cotangents`` must have the structure and shapes of ``func``'s output. With ``has_aux``
    ``func`` returns ``(output, aux)`` and ``(output, vjp_fn, aux)`` is returned."""
    return _vjp_with_argnums(func, *primals, has_aux=has_aux)


def _vjp_with_argnums(func, *primals, argnums=None, has_aux=False):
    """vjp's work, differentiating only the primals at ``argnums`` (all when None)."""
    state = _Vjp(func, primals, argnums, has_aux)

    def wrapper(cotangents, retain_graph=True, create_graph=None):
        # ``create_graph`` concerns PyTorch's inner level, whose graph never reaches the
        # caller; whether the products stay differentiable is decided as for the output.
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != state.out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{treespec_pprint(cot_spec)}, primal output: "
                               f"{treespec_pprint(state.out_spec)}")
        return tree_unflatten(state.products(flat_cot, retain_graph), state.in_spec)

    if has_aux:
        return state.results, wrapper, state.aux
    return state.results, wrapper


class _Vjp:
    """``func`` run once on differentiable primals, ready for vector-Jacobian products:
    ``results`` and ``aux`` (as handed to the caller), the flat outputs and the structures."""

    def __init__(self, func, primals, argnums, has_aux):
        with _nested() as level:
            if argnums is None:
                args, self.fresh, self.in_spec = _make_differentiable(primals)
            else:
                diff = _slice_argnums(primals, argnums, as_tuple=False)
                diff_tree, self.fresh, self.in_spec = _make_differentiable(diff)
                args = _replace_args(primals, diff_tree, argnums)
            output = func(*args)
            aux = None
            if has_aux:
                output, aux = _split_aux(output, "vjp(f, *primals)")
            self.flat_out, self.out_spec = tree_flatten(output)
            _check_tensor_outputs(self.flat_out, "vjp(f, *primals)")
            for out in self.flat_out:
                if not (out.is_floating_point() or out.is_complex()):
                    raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point "
                                       f"or complex Tensors, got Tensor with dtype {out.dtype}")
            self.keep = _keeps_graph(self.flat_out, level)
            self.results = _release(output, self.keep)
            self.aux = _release(aux, self.keep) if has_aux else None

    def products(self, flat_cot, retain_graph=True):
        """The flat vector-Jacobian products for flat cotangents ``flat_cot``."""
        differentiable = _products_differentiable(self.keep, flat_cot)
        return _grads(self.flat_out, self.fresh, flat_cot, create_graph=differentiable,
                      retain_graph=retain_graph or differentiable)


# ----------------------------------------------------------------------------------------------
# jvp and linearize (double vjp)
# ----------------------------------------------------------------------------------------------

def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product of ``func`` at
    ``primals`` (a tuple of tensor pytrees) along ``tangents`` (the same structure). With
    ``has_aux`` ``func`` returns ``(output, aux)`` and ``(output, jvp_out, aux)`` is returned.
    """
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP_STR}: Expected primals to be a tuple. E.g. it should be "
                           "valid to call f(*primals).")
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{_JVP_STR}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           f"tangents also must be. Got primals with structure {primals_spec} "
                           f"and tangents with structure {tangents_spec}")
    _check_tangents(flat_primals, flat_tangents)
    with _nested() as level:
        args, fresh, _ = _make_differentiable(primals)
        output = func(*args)
        aux = None
        if has_aux:
            output, aux = _split_aux(output, _JVP_STR)
        flat_out, out_spec = tree_flatten(output)
        _check_tensor_outputs(flat_out, _JVP_STR)
        keep = _keeps_graph(flat_out, level, flat_tangents)
        flat_jvp = _Linearization(flat_out, fresh).apply(flat_tangents, keep, strict)
        results = _release(output, keep)
        jvp_out = tree_unflatten(flat_jvp, out_spec)
        if has_aux:
            return results, jvp_out, _release(aux, keep)
        return results, jvp_out


def _check_tangents(flat_primals, flat_tangents):
    for what, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if not flat:
            raise RuntimeError(f"{_JVP_STR}: Expected {what} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{_JVP_STR}: Expected {what} to only contain Tensors, got "
                                   f"{type(x)}")
    for p, t in zip(flat_primals, flat_tangents):
        if not (p.is_floating_point() or p.is_complex()):
            raise ValueError(f"Expected primal to be floating point or complex, but got: "
                             f"{p.dtype}")
        if p.shape != t.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than "
                               "that of the original Tensor, this is not supported. Tensor is "
                               f"of size {list(p.shape)} while the given forward gradient is of "
                               f"size {list(t.shape)}.")


class _Linearization:
    """The map ``t -> J t`` of outputs ``outs`` over leaves ``ins``, by the double vjp: the
    products ``g(u) = J^T u`` are built once, differentiably, at dummy cotangents ``u`` (zeros:
    ``g`` is linear in ``u``, so where it is taken does not matter); ``J t`` is then the
    gradient of ``<g(u), t>`` with respect to ``u``."""

    def __init__(self, outs, ins):
        self.outs = outs
        self.float_outs = [i for i, o in enumerate(outs)
                           if o.is_floating_point() or o.is_complex()]
        self.us = [_fresh_leaf(FUNCTIONS["zeros_like"](outs[i])) for i in self.float_outs]
        picked = [outs[i] for i in self.float_outs]
        self.g = _grads(picked, ins, self.us, retain_graph=True, create_graph=True)

    def apply(self, tangents, differentiable, strict=False):
        """``J @ tangents``, one tensor per output (zeros where an output ignores the inputs)."""
        if strict and not all(o._requires_grad for o in self.outs):
            raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                               "independent of the inputs. This is not allowed with "
                               "strict=True.")
        found = _grads(self.g, self.us, tangents, retain_graph=True,
                       create_graph=differentiable) if self.us else ()
        result = [FUNCTIONS["zeros_like"](o) for o in self.outs]
        for i, value in zip(self.float_outs, found):
            result[i] = value
        return result


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` returns ``J @ tangents`` at
    ``primals`` and may be called many times; ``func`` runs once, and its graph is kept."""
    flat_primals, primals_spec = tree_flatten(primals)
    with _nested() as level:
        diff_tree, fresh, _ = _make_differentiable(primals)
        output = func(*diff_tree)
        flat_out, out_spec = tree_flatten(output)
        _check_tensor_outputs(flat_out, _JVP_STR)
        keep = _keeps_graph(flat_out, level)
        linear = _Linearization(flat_out, fresh)
        results = _release(output, keep)
    metas = [(p.shape, p.device, p.dtype) for p in flat_primals]

    def jvp_fn(*tangents):
        flat_tangents, tangent_spec = tree_flatten(tangents)
        if tangent_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangent_spec} to have the same argspec "
                               f"as the primals {primals_spec}")
        _check_linearize_tangents(flat_tangents, metas)
        differentiable = _products_differentiable(keep, flat_tangents)
        return tree_unflatten(linear.apply(flat_tangents, differentiable), out_spec)

    return results, jvp_fn


def _check_linearize_tangents(flat_tangents, metas):
    for idx, (t, meta) in enumerate(zip(flat_tangents, metas)):
        for what, have, want in zip(("shape", "device", "dtype"),
                                    (t.shape, t.device, t.dtype), meta):
            if have != want:
                raise RuntimeError(f"tangent:{idx} with {what} {have} in flattened pytree "
                                   f"doesn't match the {what} {want} of the corresponding "
                                   "primal.")


# ----------------------------------------------------------------------------------------------
# jacrev, jacfwd, hessian
# ----------------------------------------------------------------------------------------------

def _error_if_complex(api, tree, is_input):
    for idx, leaf in enumerate(tree_flatten(tree)[0]):
        if isinstance(leaf, Tensor) and leaf.is_complex():
            kind = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{api}: Expected all {kind} to be real but received complex "
                               f"tensor at flattened input idx: {idx}")


def _jacobian(func, args, argnums, has_aux, api):
    """The Jacobian of ``func(*args)`` w.r.t. ``args[argnums]``: one vjp per output element.
    Nested as PyTorch nests it: outputs outside, argnums inside."""
    _error_if_complex(api, args, True)
    state = _Vjp(func, args, argnums, has_aux)
    _error_if_complex(api, state.flat_out, False)
    flat_primals, primals_spec = tree_flatten(_slice_argnums(args, argnums))
    per_output = []
    for i, out in enumerate(state.flat_out):
        rows = _jacobian_rows(state, i)
        blocks = [_stack_rows(rows, j, out, p) for j, p in enumerate(flat_primals)]
        blocks = tree_unflatten(blocks, primals_spec)
        per_output.append(blocks[0] if isinstance(argnums, int) else blocks)
    jacobian = tree_unflatten(per_output, state.out_spec)
    return (jacobian, state.aux) if has_aux else jacobian


def _jacobian_rows(state, i):
    """The flat vjps of the unit cotangents of output ``i``, one list per element: the rows
    of an identity matrix shaped like the output, zeros for the other outputs."""
    flat_out = state.flat_out
    out = flat_out[i]
    n = out.numel()
    units = FUNCTIONS["eye"](n, dtype=out.dtype, device=out.device).view((n,) + out.shape)
    cot = [FUNCTIONS["zeros_like"](o) for o in flat_out]
    rows = []
    for k in range(n):
        cot[i] = units[k]
        rows.append(state.products(cot))
    return rows


def _stack_rows(rows, j, out, primal):
    shape = tuple(out.shape) + tuple(primal.shape)
    if not rows:
        return primal.new_zeros(shape)
    return FUNCTIONS["stack"]([r[j] for r in rows], 0).view(shape)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """Transform ``func`` into a function returning its Jacobian with respect to the
    argument(s) at ``argnums``, by reverse-mode AD: for an output of shape ``O`` and an input
    of shape ``I`` the block has shape ``O + I``. Several outputs or inputs nest as
    ``jac[output][argnum]``. ``chunk_size`` is accepted (the rows are computed one by one)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        return _jacobian(func, args, argnums, has_aux, "jacrev")
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """Transform ``func`` into a function returning its Jacobian with respect to the
    argument(s) at ``argnums``, one Jacobian-vector product per input element (forward mode's
    cost: cheap when the inputs are few and the outputs many). Blocks nest as jacrev's.
    ``randomness`` is vmap's: with "error" a random op inside ``func`` raises, as it does under
    PyTorch's vmap of jvps."""
    @functools.wraps(func)
    def wrapper(*args):
        if randomness not in ("error", "different", "same"):
            raise RuntimeError("Only allowed values for randomness are 'error', 'different', "
                               f"or 'same'. Got {randomness}")

        def watched(*inner):
            with _RandomnessCheck(randomness):
                return func(*inner)
        return _forward_jacobian(watched, args, argnums, has_aux)
    return wrapper


def _forward_jacobian(func, args, argnums, has_aux):
    """The Jacobian by columns: ``func`` runs once, its double-vjp linearization is built once,
    then each unit tangent costs one backward pass (as one jvp in PyTorch's vmapped basis)."""
    primals_spec = _check_forward_inputs(args, argnums)
    with _nested() as level:
        diff = _slice_argnums(args, argnums, as_tuple=False)
        diff_tree, fresh, _ = _make_differentiable(diff)
        output = func(*_replace_args(args, diff_tree, argnums))
        aux = None
        if has_aux:
            output, aux = _split_aux(output, _JVP_STR)
        flat_out, out_spec = tree_flatten(output)
        _check_tensor_outputs(flat_out, _JVP_STR)
        _error_if_complex("jacfwd", flat_out, False)
        keep = _keeps_graph(flat_out, level)
        linear = _Linearization(flat_out, fresh)
        blocks = [[None] * len(fresh) for _ in flat_out]
        for j, primal in enumerate(fresh):
            columns = _jacobian_columns(linear, fresh, j, keep)
            for i, out in enumerate(flat_out):
                blocks[i][j] = _stack_columns([c[i] for c in columns], out, primal)
        per_output = [tree_unflatten(row, primals_spec) for row in blocks]
        if isinstance(argnums, int):
            per_output = [row[0] for row in per_output]
        jacobian = tree_unflatten(per_output, out_spec)
        if has_aux:
            return jacobian, _release(aux, keep)
        return jacobian


def _check_forward_inputs(args, argnums):
    """jacfwd's checks of the differentiated inputs (real floating tensors); returns the
    structure of the arguments at ``argnums``."""
    _error_if_complex("jacfwd", args, True)
    flat_primals, primals_spec = tree_flatten(_slice_argnums(args, argnums))
    for p in flat_primals:
        if not isinstance(p, Tensor):
            raise AttributeError(f"'{type(p).__name__}' object has no attribute 'numel'")
    _check_tangents(flat_primals, flat_primals)
    return primals_spec


def _jacobian_columns(linear, fresh, j, keep):
    """``J @ e`` for every unit tangent ``e`` of input ``j`` (zeros for the other inputs)."""
    primal = fresh[j]
    n = primal.numel()
    units = FUNCTIONS["eye"](n, dtype=primal.dtype, device=primal.device).view(
        (n,) + primal.shape)
    tangents = [FUNCTIONS["zeros_like"](p) for p in fresh]
    columns = []
    for k in range(n):
        tangents[j] = units[k]
        columns.append(linear.apply(tangents, keep))
    return columns


def _stack_columns(columns, out, primal):
    shape = tuple(out.shape) + tuple(primal.shape)
    if not columns:
        return out.new_zeros(shape)
    return FUNCTIONS["stack"](columns, -1).view(shape)


class _RandomnessCheck(TorchFunctionMode):
    """vmap's refusal of random ops in randomness="error" mode (PyTorch's jacfwd maps its jvps
    with vmap); the inputs themselves are not batched, so ``.item()`` stays allowed."""

    _cinder_op_level = True

    def __init__(self, randomness):
        self.randomness = randomness

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.randomness == "error" and _is_random(func, args, kwargs):
            raise RuntimeError(RANDOM_IN_ERROR_MODE)
        return func(*args, **kwargs)


def hessian(func, argnums=0):
    """Transform ``func`` (returning a scalar) into a function returning its Hessian with
    respect to the argument(s) at ``argnums``; PyTorch's is ``jacfwd(jacrev(func, argnums),
    argnums)``. cinder takes the same matrix reverse over reverse (a jvp costs cinder one
    backward pass more than a vjp), keeping jacfwd's input checks and randomness check."""
    inner = jacrev(func, argnums)

    def checked(*args):
        with _RandomnessCheck("error"):
            return inner(*args)
    outer = jacrev(checked, argnums)

    @functools.wraps(func)
    def wrapper(*args):
        _check_forward_inputs(args, argnums)
        return outer(*args)
    return wrapper


# ----------------------------------------------------------------------------------------------
# functionalize, debug_unwrap
# ----------------------------------------------------------------------------------------------

def functionalize(func, *, remove="mutations"):
    """Return ``func`` made free of mutations and views. PyTorch rewrites the traced program
    (in-place ops become out-of-place ones, mutated inputs are copied back at the end); the
    observable result is the same outputs and the same changes to the inputs, which calling
    ``func`` in eager cinder gives directly."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            "functionalize(f, remove='mutations'): received invalid argument for remove="
            f"{remove}. Valid options are:\n     remove='mutations': all inplace and out= "
            "operators will be removed from the program, and replaced with their out-of-place "
            "equivalents.\n     remove='mutations_and_views': In addition to the above, all "
            "aliasing operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapped


def debug_unwrap(tensor, *, recurse=True):
    """The plain tensor under a transform's wrapper; cinder's transforms wrap nothing, so this
    is ``tensor`` itself."""
    return tensor
