"""``torch.vmap``: map a function over a dimension of its inputs.

PyTorch rewrites each op into a batched op. cinder runs the function once per batch element
(each call sees the inputs with the mapped dimension selected away) and stacks the results
along ``out_dims``: slower, but every op, gradient and nested ``vmap`` works as it does without
``vmap``, and the results are the same. While the function runs, a mode watches the ops it
calls, to apply ``randomness`` and to refuse ``.item()`` as PyTorch does:

- ``randomness='error'``: a random op raises PyTorch's RuntimeError;
- ``'same'``: every element sees the same random numbers (the generator is rewound before
  each element, so the draws equal one unbatched draw);
- ``'different'``: each element gets its own numbers. PyTorch draws one batched tensor per
  random call, and its samplers do not always fill a batch element by element (``randn`` of 16
  or more values is drawn vectorised), so the random factories (``rand``, ``randn``,
  ``randint``, ``normal`` with a size, and their ``_like`` forms) are drawn once, batched,
  when the first element calls them, and each element takes its slice: the numbers equal
  PyTorch's bit for bit. Other random ops (dropout, ``bernoulli``, in-place samplers) draw
  per element.
"""

import functools

from .. import random as _random
from .._tensor import Tensor
from ..ops import FUNCTIONS, OPS
from ..overrides import TorchFunctionMode
from ..utils._pytree import named_tuple_of, tree_leaves, tree_map

__all__ = ["vmap"]

_DROPOUTS = ("dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout",
             "native_dropout")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorise ``func`` over dimension ``in_dims`` of its inputs.

    ``in_dims`` is an int (the same dim of every tensor input), or a tuple with one entry per
    positional argument (an int, None for "not mapped", or a nested structure matching the
    argument). ``out_dims`` says where the mapped dimension goes in each output. Keyword
    arguments are passed unmapped. ``chunk_size`` is accepted (elements run one at a time).
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        name = _name(func)
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                             "inputs, or you are trying to vmap over a function with no "
                             "inputs. The latter is unsupported.")
        where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
        dims = _broadcast_in_dims(in_dims, args, where)
        size = _batch_size(args, dims, where)
        results = []
        state = _random.get_rng_state() if randomness == "same" else None
        draws = _BatchedDraws(size) if randomness == "different" else None
        for b in range(size):
            if state is not None:
                _random.set_rng_state(state)
            sliced = _select(args, dims, b)
            if draws is not None:
                draws.start_element(b)
            with _VmapMode(randomness, draws):
                results.append(func(*sliced, **kwargs))
        return _stack_outputs(results, out_dims, name)
    return wrapped


def _name(func):
    return getattr(func, "__name__", repr(func))


# ----------------------------------------------------------------------------------------------
# Inputs: in_dims against the structure of the arguments
# ----------------------------------------------------------------------------------------------

def _broadcast_in_dims(in_dims, args, where):
    """One in_dim (int or None) per leaf of ``args``, as a structure shaped like ``args``."""
    if isinstance(in_dims, int) and not isinstance(in_dims, bool):
        return _map_leaves(args, lambda leaf: in_dims)
    if not isinstance(in_dims, tuple):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: {type(in_dims)}.")
    return _match(in_dims, args, where)


def _match(spec, value, where):
    """Spread ``spec`` (an int/None, or a structure) over ``value``'s leaves."""
    if spec is None or isinstance(spec, int):
        return _map_leaves(value, lambda leaf: spec)
    if isinstance(spec, (tuple, list)) and isinstance(value, (tuple, list)) and \
            len(spec) == len(value):
        return _same_kind(value, [_match(s, v, where) for s, v in zip(spec, value)])
    if isinstance(spec, dict) and isinstance(value, dict) and spec.keys() == value.keys():
        return {k: _match(spec[k], value[k], where) for k in value}
    raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. "
                     f"in_dims has structure {_structure(spec)} but inputs has structure "
                     f"{_structure(value)}.")


def _structure(value):
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}({', '.join(_structure(v) for v in value)})"
    if isinstance(value, dict):
        return "dict(" + ", ".join(f"{k}: {_structure(v)}" for k, v in value.items()) + ")"
    return "*"


def _same_kind(value, items):
    """A container of ``value``'s type (a named tuple or structseq too) holding ``items``."""
    kind = type(value)
    return named_tuple_of(kind, items) if hasattr(kind, "_fields") else kind(items)


def _map_leaves(value, fn):
    return tree_map(fn, value)


def _leaves(value, dims):
    """(leaf, in_dim) pairs of ``value`` with its spread ``dims`` (the same structure)."""
    return zip(tree_leaves(value), tree_leaves(dims))


def _batch_size(args, dims, where):
    sizes = []
    for leaf, dim in _leaves(args, dims):
        if dim is None:
            continue
        if not isinstance(leaf, Tensor):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but the input is of type "
                             f"{type(leaf)}. We cannot vmap over non-Tensor arguments, please "
                             "use None as the respective in_dim")
        nd = leaf.dim()
        if not -nd <= dim < nd:
            raise ValueError(f"{where}: Got in_dim={dim} for some input, but that input is a "
                             f"Tensor of dimensionality {nd} so expected in_dim to satisfy "
                             f"-{nd} <= in_dim < {nd}.")
        sizes.append(leaf.shape[dim])
    if not sizes:
        raise ValueError(f"{where}: at least one input must be batched (in_dims all None).")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _select(value, dims, b):
    """``value`` with element ``b`` of every mapped dimension selected."""
    return tree_map(lambda leaf, dim: leaf if dim is None else leaf.select(dim, b), value,
                    dims)


# ----------------------------------------------------------------------------------------------
# Outputs: stacked along out_dims
# ----------------------------------------------------------------------------------------------

def _stack_outputs(results, out_dims, name):
    first = results[0]
    dims = _out_dims_for(first, out_dims, name)
    return _stack(results, first, dims, name)


def _out_dims_for(first, out_dims, name):
    if out_dims is None or isinstance(out_dims, int):
        return _map_leaves(first, lambda leaf: out_dims)
    try:
        return _match(out_dims, first, "")
    except ValueError:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                         f"compatible with the structure of `outputs`. out_dims has structure "
                         f"{_structure(out_dims)} but outputs has structure "
                         f"{_structure(first)}.") from None


def _stack(results, first, dims, name):
    if isinstance(first, (tuple, list)):
        return _same_kind(first, [_stack([r[i] for r in results], first[i], dims[i], name)
                                  for i in range(len(first))])
    if isinstance(first, dict):
        return {k: _stack([r[k] for r in results], first[k], dims[k], name) for k in first}
    if not isinstance(first, Tensor):
        if dims is None:
            return first
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(first)}. Did you mean to set out_dims= to None for output?")
    if dims is None:
        return first
    stacked = FUNCTIONS["stack"](results, 0)
    nd = stacked.dim()
    if not -nd <= dims < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}],"
                         f" but got {dims})")
    return stacked.movedim(0, dims)


# ----------------------------------------------------------------------------------------------
# The mode active while the function runs
# ----------------------------------------------------------------------------------------------

RANDOM_IN_ERROR_MODE = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out of "
    "vmap")


def _is_random(func, args, kwargs):
    info = OPS.get(func.__name__)
    if info is None:
        return False
    if "random" in info.tags:
        return True
    if info.name in _DROPOUTS:
        p = args[1] if len(args) > 1 else kwargs.get("p", 0)
        train = args[2] if len(args) > 2 else kwargs.get("train", True)
        return bool(p) and train is not False
    return False


class _VmapMode(TorchFunctionMode):
    """Refuses what PyTorch's batching rules refuse inside vmap."""

    # PyTorch's vmap works on ops, below nn.functional (see nn/_functional/__init__.py)
    _cinder_op_level = True

    def __init__(self, randomness, draws=None):
        self.randomness = randomness
        self.draws = draws

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func.__name__ == "item":
            raise RuntimeError(
                "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap "
                "over calling .item() on a Tensor, please try to rewrite what you're doing with "
                "other operations. If error is occurring somewhere inside PyTorch internals, "
                "please file a bug report.")
        if self.randomness == "error" and _is_random(func, args, kwargs):
            raise RuntimeError(RANDOM_IN_ERROR_MODE)
        if self.draws is not None and func.__name__ in _BATCHED_FACTORIES:
            return self.draws.take(func, args, kwargs)
        return func(*args, **kwargs)


# ----------------------------------------------------------------------------------------------
# randomness='different': one batched draw per random factory call
# ----------------------------------------------------------------------------------------------

def _batched_size_call(func, args, kwargs, batch, size_pos):
    """``func`` called with its ``size`` argument (positional at ``size_pos``, or the
    trailing ints of ``rand(2, 3)``) given a leading batch dimension."""
    if "size" in kwargs:
        kwargs = dict(kwargs, size=(batch,) + tuple(kwargs["size"]))
        return func(*args, **kwargs)
    if size_pos is None:            # rand / randn: *size or one sequence
        size = args[0] if len(args) == 1 and not isinstance(args[0], int) else args
        return func((batch,) + tuple(size), **kwargs)
    args = list(args)
    args[size_pos] = (batch,) + tuple(args[size_pos])
    return func(*args, **kwargs)


def _batched_like_call(func, args, kwargs, batch):
    """A ``*_like`` factory called on its input broadcast to a leading batch dimension."""
    inp = args[0] if args else kwargs.pop("input")
    expanded = inp.unsqueeze(0).expand((batch,) + tuple(inp.shape))
    return func(expanded, *args[1:], **kwargs)


def _batched_call(func, args, kwargs, batch):
    """The batched draw of a random factory call, or None when the call has no batched form
    here (``normal`` with tensor mean/std, whose batched draw follows its inputs)."""
    name = func.__name__
    if name.endswith("_like"):
        return _batched_like_call(func, args, kwargs, batch)
    if name == "randint":
        return _batched_size_call(func, args, kwargs, batch, len(args) - 1)
    if name == "normal":
        if len(args) < 3 and "size" not in kwargs or isinstance(args[0], Tensor) or \
                isinstance(args[1], Tensor):
            return None
        return _batched_size_call(func, args, kwargs, batch, 2)
    return _batched_size_call(func, args, kwargs, batch, None)


_BATCHED_FACTORIES = ("rand", "randn", "randint", "normal", "rand_like", "randn_like",
                      "randint_like")


class _BatchedDraws:
    """The batched draws of one vmap call: the first element draws each random factory call
    for the whole batch, later elements replay their slices in the same call order."""

    def __init__(self, batch):
        self.batch = batch
        self.draws = []
        self.element = 0
        self.call = 0

    def start_element(self, b):
        self.element, self.call = b, 0

    def take(self, func, args, kwargs):
        k = self.call
        self.call += 1
        if self.element == 0:
            batched = _batched_call(func, args, kwargs, self.batch)
            self.draws.append(batched)
            if batched is not None:
                return batched[0]
        elif k < len(self.draws) and self.draws[k] is not None:
            return self.draws[k][self.element]
        return func(*args, **kwargs)
