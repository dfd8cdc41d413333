"""Pytrees: nested containers of values, taken apart into a flat list of leaves and a
``TreeSpec`` that puts them back (PyTorch's ``torch.utils._pytree``, the subset the function
transforms need).

Containers are tuples, lists, dicts, ``OrderedDict``, ``defaultdict``, ``deque`` and named
tuples; anything else (a tensor, a number, ``None``) is a leaf. Two structures are the same
when their ``TreeSpec`` objects compare equal: same container types, same keys, same shape.
"""

import collections

__all__ = ["TreeSpec", "LeafSpec", "tree_flatten", "tree_unflatten", "tree_leaves",
           "tree_map", "tree_structure", "treespec_pprint"]


class TreeSpec:
    """The structure of a pytree: a container type, its context (the keys of a dict, the class
    of a named tuple) and one spec per child."""

    def __init__(self, type, context, children_specs):
        self.type = type
        self.context = context
        self.children_specs = list(children_specs)
        self.num_leaves = sum(c.num_leaves for c in self.children_specs)

    def is_leaf(self):
        return False

    def __eq__(self, other):
        if not isinstance(other, TreeSpec) or other.is_leaf() != self.is_leaf():
            return False
        return (self.type is other.type and self.context == other.context
                and self.children_specs == other.children_specs)

    __hash__ = None

    def __repr__(self):
        return self._repr(0)

    def _repr(self, indent):
        # PyTorch's layout: the first child follows the bracket, each later child starts a new
        # line indented two spaces deeper than its parent.
        name = "namedtuple" if _is_namedtuple_class(self.type) else self.type.__name__
        children = [c._repr(indent + 2) for c in self.children_specs]
        inner = (",\n" + " " * (indent + 2)).join(children)
        return f"TreeSpec({name}, {self.context!r}, [{inner}])"


class LeafSpec(TreeSpec):
    """The structure of a single leaf."""

    def __init__(self):
        super().__init__(None, None, [])
        self.num_leaves = 1

    def is_leaf(self):
        return True

    def __eq__(self, other):
        return isinstance(other, TreeSpec) and other.is_leaf()

    __hash__ = None

    def _repr(self, indent):
        return "*"


def _is_namedtuple_class(cls):
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def named_tuple_of(kind, items):
    """A ``kind`` holding ``items``: a ``collections.namedtuple`` class is built field by field
    (``_make``), a structseq such as ``torch.return_types.max`` from the sequence."""
    return kind._make(items) if hasattr(kind, "_make") else kind(items)


def _children(tree):
    """(children, context) of a container, or None for a leaf."""
    kind = type(tree)
    if kind in (tuple, list, collections.deque):
        return list(tree), None
    if _is_namedtuple_class(kind):
        return list(tree), kind
    if kind in (dict, collections.OrderedDict):
        return list(tree.values()), list(tree.keys())
    if kind is collections.defaultdict:
        return list(tree.values()), [tree.default_factory, list(tree.keys())]
    return None


def _rebuild(spec, children):
    kind, context = spec.type, spec.context
    if kind in (tuple, list, collections.deque):
        return kind(children)
    if _is_namedtuple_class(kind):
        return named_tuple_of(kind, children)
    if kind in (dict, collections.OrderedDict):
        return kind(zip(context, children))
    out = collections.defaultdict(context[0])
    out.update(zip(context[1], children))
    return out


def tree_flatten(tree):
    """``(leaves, spec)``: the leaves of ``tree`` in order, and its structure."""
    leaves = []
    return leaves, _flatten_into(tree, leaves)


def _flatten_into(tree, leaves):
    parts = _children(tree)
    if parts is None:
        leaves.append(tree)
        return LeafSpec()
    children, context = parts
    return TreeSpec(type(tree), context, [_flatten_into(c, leaves) for c in children])


def tree_unflatten(leaves, treespec):
    """The pytree of structure ``treespec`` holding ``leaves`` (as many as it has leaves)."""
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but "
                         f"the spec refers to a pytree that holds {treespec.num_leaves} items "
                         f"({treespec}).")
    return _unflatten(iter(leaves), treespec)


def _unflatten(leaves, spec):
    if spec.is_leaf():
        return next(leaves)
    return _rebuild(spec, [_unflatten(leaves, c) for c in spec.children_specs])


def tree_leaves(tree):
    """The leaves of ``tree``, in flattening order."""
    return tree_flatten(tree)[0]


def tree_structure(tree):
    """The ``TreeSpec`` of ``tree``."""
    return tree_flatten(tree)[1]


def tree_map(func, tree, *rests):
    """``tree`` with every leaf replaced by ``func(leaf, *matching leaves of rests)``."""
    leaves, spec = tree_flatten(tree)
    others = []
    for rest in rests:
        rest_leaves, rest_spec = tree_flatten(rest)
        if rest_spec != spec:
            raise ValueError(f"Tree structures do not match: {treespec_pprint(spec)} and "
                             f"{treespec_pprint(rest_spec)}")
        others.append(rest_leaves)
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def treespec_pprint(treespec):
    """A short picture of a structure, leaves drawn as ``*``: ``(*, [*, {'a': *}])``."""
    if treespec.is_leaf():
        return "*"
    kind, context = treespec.type, treespec.context
    parts = [treespec_pprint(c) for c in treespec.children_specs]
    if kind is tuple:
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if kind is list:
        return "[" + ", ".join(parts) + "]"
    if kind is collections.deque:
        return "deque([" + ", ".join(parts) + "])"
    if _is_namedtuple_class(kind):
        fields = ", ".join(f"{f}={p}" for f, p in zip(kind._fields, parts))
        return f"{kind.__name__}({fields})"
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(context, parts)) + "}"
    if kind is collections.OrderedDict:
        return "OrderedDict([" + ", ".join(f"({k!r}, {p})" for k, p in zip(context, parts)) \
            + "])"
    items = ", ".join(f"{k!r}: {p}" for k, p in zip(context[1], parts))
    return f"defaultdict({context[0]!r}, {{{items}}})"
