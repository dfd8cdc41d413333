"""``torch.func.rearrange``: einops-style reordering of a tensor's dimensions, written natively
(PyTorch's needs no einops package either; it runs on first-class dimensions).

A pattern such as ``"b (h w) c -> b h (w c)"`` names the dimensions of the input (left) and of
the result (right); parentheses group several axes into one dimension, ``...`` stands for the
dimensions not named, and ``1`` (or ``()``) is a dimension of size 1. cinder reshapes the input
into its elementary axes, drops the size-1 ones, permutes the rest into the right side's order
and reshapes into the right side's groups: views where the strides allow, as ``reshape`` is.
"""

import functools
import keyword
import warnings

from .._tensor import Tensor
from ..ops import FUNCTIONS

__all__ = ["rearrange"]

_ELLIPSIS = "\u2026"       # "..." is parsed as this one character


class DimensionBindError(Exception):
    """A dimension's size does not fit the sizes given for it (PyTorch's
    ``functorch.dim.DimensionBindError``)."""


def rearrange(tensor, pattern, **axes_lengths):
    """Reorder, split, merge, add or drop (size-1) dimensions of ``tensor`` as ``pattern``
    says: e.g. ``rearrange(images, "b h w c -> b c h w")`` (transpose),
    ``"b h w c -> (b h) w c"`` (merge), ``"b (h1 h) w c -> (b h1) h w c"`` with ``h1=2``
    (split, given the size of one part). A list or tuple of tensors is stacked first."""
    if not isinstance(tensor, Tensor):
        tensor = FUNCTIONS["stack"](tensor)
    plan = _plan(tensor.dim(), pattern, **axes_lengths)
    if plan is None:
        return tensor
    left_groups, right_groups, anon = plan
    sizes = _bind_sizes(tensor.shape, left_groups, axes_lengths)
    axes = [axis for group in left_groups for axis in group]
    out = tensor.reshape([sizes[a] for a in axes])
    if anon:
        out = out.sum([axes.index(a) for a in anon])
        axes = [a for a in axes if a not in anon]
    order = [axes.index(a) for group in right_groups for a in group]
    if order != list(range(len(order))):
        out = out.permute(order)
    shape = [_product(sizes[a] for a in group) for group in right_groups]
    return out if list(out.shape) == shape else out.reshape(shape)


def _product(values):
    result = 1
    for v in values:
        result *= v
    return result


# ----------------------------------------------------------------------------------------------
# Sizes of the elementary axes from the tensor's shape and the given lengths
# ----------------------------------------------------------------------------------------------

def _bind_sizes(shape, left_groups, axes_lengths):
    """{axis: size} for every elementary axis on the left, with PyTorch's binding errors.
    (Axes are named ``d0, d1, ...`` in the messages, in left-side order, as PyTorch's are.)"""
    sizes = {}
    index = 0
    for dim_size, group in zip(shape, left_groups):
        names = [f"d{index + i}" for i in range(len(group))]
        index += len(group)
        given = [axes_lengths.get(a) for a in group]
        unknown = [n for n, g in zip(names, given) if g is None]
        if len(unknown) > 1:
            raise DimensionBindError(f"cannot infer the sizes of two dimensions at once "
                                     f"{unknown[0]} and {unknown[1]}")
        known = _product(g for g in given if g is not None)
        if unknown:
            if known == 0 or dim_size % known:
                shown = tuple("?" if g is None else g for g in given)
                raise DimensionBindError(f"inferred dimension does not evenly fit into larger "
                                         f"dimension: {dim_size} vs {shown}")
            given = [dim_size // known if g is None else g for g in given]
        elif known != dim_size:
            pack = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
            raise DimensionBindError(f"Dimension sizes to do not match ({dim_size} != {known}) "
                                     f"when matching dimension pack {pack}")
        sizes.update(zip(group, given))
    return sizes


# ----------------------------------------------------------------------------------------------
# The pattern
# ----------------------------------------------------------------------------------------------

@functools.lru_cache(256)
def _plan(ndim, pattern, **axes_lengths):
    """(left groups, right groups, size-1 axes to drop) with ``...`` expanded, or None when
    the pattern names no dimension at all."""
    left, right = _parse_pattern(pattern, axes_lengths)
    _validate(left, right, axes_lengths)
    n_anon = sum(1 for group in left.groups if not group)
    if left.has_ellipsis:
        named = len(left.identifiers) - 1
        if n_anon + named > ndim:
            raise ValueError(f"Number of dimensions in pattern ({n_anon + named}) must be less "
                             "than or equal to the number of dimensions in the tensor "
                             f"({ndim})")
        n_ellipsis = ndim - (len(left.groups) - 1)
    else:
        named = len(left.identifiers)
        if len(left.groups) != ndim:
            raise ValueError(f"Number of dimensions in pattern ({len(left.groups)}) must be "
                             f"equal to the number of dimensions in the tensor ({ndim})")
        n_ellipsis = 0
    if named + n_ellipsis + n_anon == 0:
        return None
    ellipsis_axes = [f"{_ELLIPSIS}{i}" for i in range(n_ellipsis)]
    anon = []
    left_groups = []
    for group in left.groups:
        if group == _ELLIPSIS:
            left_groups.extend([a] for a in ellipsis_axes)
        elif not group:                   # a "1": a size-1 axis dropped from the result
            anon.append(f"1-axis{len(anon)}")
            left_groups.append([anon[-1]])
        else:
            left_groups.append(list(group))
    right_groups = []
    for group in right.groups:
        if group == _ELLIPSIS:
            right_groups.extend([a] for a in ellipsis_axes)
        else:
            right_groups.append([x for a in group
                                 for x in (ellipsis_axes if a == _ELLIPSIS else [a])])
    return left_groups, right_groups, anon


def _parse_pattern(pattern, axes_lengths):
    try:
        left_str, right_str = pattern.split("->")
    except ValueError:
        raise ValueError("Pattern must contain a single '->' separator") from None
    if _ELLIPSIS in axes_lengths:
        raise ValueError(f"'{_ELLIPSIS}' is not an allowed axis identifier")
    left, right = _Side(left_str), _Side(right_str)
    if not left.has_ellipsis and right.has_ellipsis:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern "
                         f"{pattern}")
    if left.has_ellipsis and left.ellipsis_in_group:
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    return left, right


def _validate(left, right, axes_lengths):
    for length in axes_lengths.values():
        if type(length) is not int:
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(length)}")
    if left.has_big_anonymous or right.has_big_anonymous:
        raise ValueError("rearrange only supports unnamed axes of size 1")
    difference = set.symmetric_difference(left.identifiers, right.identifiers)
    if difference:
        raise ValueError("Identifiers only on one side of rearrange expression (should be on "
                         f"both): {difference}")
    unmatched = axes_lengths.keys() - left.identifiers
    if unmatched:
        raise ValueError(f"Identifiers not found in rearrange expression: {unmatched}")


class _Side:
    """One side of a pattern: ``groups`` (a list per dimension, of axis names; ``[]`` for a
    size-1 dimension; the ellipsis character alone for ``...``) and the names it uses."""

    def __init__(self, text):
        self.has_ellipsis = False
        self.ellipsis_in_group = None
        self.has_big_anonymous = False
        self.identifiers = set()
        self.groups = []
        if "." in text:
            if "..." not in text:
                raise ValueError("Expression may contain dots only inside ellipsis (...)")
            if text.count("...") != 1 or text.count(".") != 3:
                raise ValueError("Expression may contain dots only inside ellipsis (...); only "
                                 "one ellipsis for tensor ")
            text = text.replace("...", _ELLIPSIS)
            self.has_ellipsis = True
        self._scan(text)

    def _scan(self, text):
        group, name = None, None
        for char in text:
            if char in "() ":
                if name is not None:
                    self._add(name, group)
                name = None
                if char == "(":
                    if group is not None:
                        raise ValueError("Axis composition is one-level (brackets inside "
                                         "brackets not allowed)")
                    group = []
                elif char == ")":
                    if group is None:
                        raise ValueError("Brackets are not balanced")
                    self.groups.append(group)
                    group = None
            elif char.isalnum() or char in ("_", _ELLIPSIS):
                name = char if name is None else name + char
            else:
                raise ValueError(f"Unknown character '{char}'")
        if group is not None:
            raise ValueError(f"Imbalanced parentheses in expression: '{text}'")
        if name is not None:
            self._add(name, group)

    def _add(self, name, group):
        if name in self.identifiers:
            raise ValueError(f"Indexing expression contains duplicate dimension '{name}'")
        if name == _ELLIPSIS:
            self.identifiers.add(name)
            self.ellipsis_in_group = group is not None
            (self.groups if group is None else group).append(name)
            return
        if name.isdecimal():
            value = int(name)
            if value == 1:
                if group is None:              # inside a group a 1 changes nothing
                    self.groups.append([])
                return
            if value < 1:
                raise ValueError(f"Anonymous axis should have positive length, not {value}")
            self.has_big_anonymous = True
            return
        _check_axis_name(name)
        self.identifiers.add(name)
        if group is None:
            self.groups.append([name])
        else:
            group.append(name)


def _check_axis_name(name):
    if not name.isidentifier():
        raise ValueError(f"Invalid axis identifier: {name}\nnot a valid python identifier")
    if name[0] == "_" or name[-1] == "_":
        raise ValueError(f"Invalid axis identifier: {name}\naxis name should should not start "
                         "or end with underscore")
    if keyword.iskeyword(name):
        warnings.warn(f"It is discouraged to use axes names that are keywords: {name}",
                      RuntimeWarning, stacklevel=2)
    if name == "axis":
        warnings.warn("It is discouraged to use 'axis' as an axis name and will raise an error "
                      "in future", FutureWarning, stacklevel=2)
