"""The view factory: one entry defines a view op and everything PyTorch derives from it.

A view entry is ``view_op(name, geometry, nodes=...)`` where ``geometry(input, *args,
**kwargs)`` checks the arguments and answers ``(array, node class, saved values)``: the NumPy
(or CuPy) view of ``input._data`` that the result shows, the graph node that differentiates it
(its formulas are the backward; None for a view without a derivative) and the values those
formulas read (``dim0``, ``self_sizes``...). From that one entry the factory publishes

- the function ``cinder.<name>`` and the method ``Tensor.<name>`` (``function=``/``method=``),
- the copy op ``cinder.<name>_copy`` (``copy=True``): the same values in fresh memory, keeping
  the view's node under PyTorch's name for the copy (``TransposeBackward0_copy``),
- the in-place view method ``Tensor.<name>_`` (``inplace={node name: in-place node name}``):
  ``self`` takes on the view's geometry (``t_``, ``squeeze_``...),
- the aliases (``swapaxes`` for ``transpose``), each with the forms above where PyTorch has them.

``make_view`` is the one place a view tensor is made: it wraps the array, points ``_base`` at
the root tensor, shares the version counter and records the node. Views are the most frequent
ops of all, so the function the factory builds does that work inline (one call, no keyword
re-packing) and records only when an input needs a gradient.
"""

import inspect
from weakref import ref as _weakref

from .._tensor import Tensor, make_tensor
from ._inplace import check_inplace
from ._prep import check_tensor_arg, wrap
from ._registry import FUNCTIONS, OPS, OpNode, alias, needs_grad, record, register, write_out

__all__ = ["NO_SAVES", "VIEW_ENTRIES", "make_view", "publish_copy", "view_op", "view_tensor"]

NO_SAVES = {}         # what a geometry answers when its node saves nothing (never mutated)

VIEW_ENTRIES = {}     # name -> the forms its entry asked for (read by the tests)


def view_tensor(input, arr, dtype=None):
    """``arr`` (a view of ``input._data``) as a tensor that is a view of ``input``: its
    ``_base`` is the root tensor and it shares the version counter (no graph node)."""
    out = make_tensor(arr, input._dtype if dtype is None else dtype, input._device)
    if input._is_inference:
        out._is_inference = True        # inference tensors track neither views nor versions
    else:
        out._base = input if input._base is None else input._base
        out._vc = vc = input._shared_version_counter()
        # noted (weakly) so that share_memory_ finds this view once aliases are tracked:
        # ``vc.note_alias`` inlined, since views are cheap and frequent
        refs = vc.aliases
        if refs is not None:
            refs.append(_weakref(out))
            if len(refs) >= vc.prune_at:
                vc.prune()
        out._is_inference = False
    return out


def make_view(input, arr, node=None, **saved):
    """Wrap ``arr`` (a view of ``input._data``) as a view tensor of ``input``."""
    out = view_tensor(input, arr)
    if node is not None and input._requires_grad and needs_grad(input):
        record(node, (input,), (out,), **saved)
    return out


def view_op(name, geometry, nodes=(), *, function=True, method=True, copy=True, inplace=None,
            aliases=(), result_dtype=None, copy_precheck=None, doc=None, varargs=None):
    """Define the view op ``name`` from its ``geometry`` (see the module docstring).

    ``geometry`` may also answer a finished Tensor instead of the triple, for the rare call
    that is not a view of this kind (``view(dtype)`` reinterprets bytes). ``result_dtype(input)``
    gives the result's dtype when it differs from the input's (``real``/``imag``).
    ``copy_precheck(input)`` holds refusals of the ``_copy`` form only; ``copy`` may also be
    the function the copy op copies from, where that is not the view itself. ``varargs`` names the
    geometry parameter that the op takes as ``*name`` (``view(*shape)``): the geometry gets
    the tuple as it is, without a second packing. Returns the public
    function (or the method when there is no function).
    """
    fn = _forwarder(name, geometry, result_dtype, varargs)
    VIEW_ENTRIES[name] = {"copy": bool(copy), "inplace": inplace is not None,
                          "aliases": aliases}
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or geometry.__doc__
    inplace_fn = None if inplace is None else _inplace_view(name, fn, inplace)
    public = register(name, fn, method=method, inplace=inplace_fn, function_too=function,
                      family="views", nodes=tuple(nodes), tags=("views",))
    if copy:
        publish_copy(name, copy if callable(copy) else fn, copy_precheck)
    for other in aliases:
        alias(other, name)
    return public if function else OPS[name].method


# The body of every view op. ``_geometry`` answers (array, node, saved) or a finished tensor;
# the rest is ``make_view`` written inline (views are the hottest ops: a call costs ~5%).
_VIEW_BODY = """
    try:
        res = _geometry({call})
    except AttributeError:
        _check_tensor({first}, "{name}", "{first}")
        raise
    if res.__class__ is not tuple:       # an answer that is already a tensor
        return res
    arr, node, saved = res
    out = _make_tensor(arr, {first}._dtype if _result_dtype is None else _result_dtype({first}),
                       {first}._device)
    if {first}._is_inference:
        out._is_inference = True
    else:
        out._base = {first} if {first}._base is None else {first}._base
        out._vc = vc = {first}._shared_version_counter()
        refs = vc.aliases
        if refs is not None:
            refs.append(_weakref(out))
            if len(refs) >= vc.prune_at:
                vc.prune()
        out._is_inference = False
    if node is not None and {first}._requires_grad and _needs_grad({first}):
        _record(node, ({first},), (out,), **saved)
    return out
"""


def _check_tensor(value, name, param):
    """A view op given something that is not a tensor: PyTorch's TypeError."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{param}' (position 1) must be Tensor, not "
                        f"{type(value).__name__}")


def _forwarder(name, geometry, result_dtype, varargs=None):
    """The view op ``name``: ``_VIEW_BODY`` under the geometry's own parameter list.

    The function is written out with that list (as ``dataclasses`` and ``namedtuple`` write
    theirs): forwarding ``*args, **kwargs`` to the geometry instead would cost about a quarter
    of a microsecond per call, a fifth of what a whole view costs. It also gives the op
    PyTorch's parameter names for keyword calls and ``inspect.signature``.
    """
    sig = inspect.signature(geometry)
    params, call, star = [], [], False
    for p in sig.parameters.values():
        if p.name == varargs:       # public ``*name``, handed on as the tuple
            params.append("*" + p.name)
            call.append(p.name)
            star = True
        elif p.kind is p.VAR_POSITIONAL:
            params.append("*" + p.name)
            call.append("*" + p.name)
            star = True
        elif p.kind is p.KEYWORD_ONLY:
            if not star:
                params.append("*")
                star = True
            params.append(p.name)
            call.append(f"{p.name}={p.name}")
        elif p.kind is p.VAR_KEYWORD:
            params.append("**" + p.name)
            call.append("**" + p.name)
        else:       # positional-or-keyword (the geometries use no positional-only params)
            params.append(p.name)
            call.append(p.name)
    source = f"def {name}({', '.join(params)}):" + _VIEW_BODY.format(
        call=", ".join(call), first=next(iter(sig.parameters)), name=name)
    namespace = {"_geometry": geometry, "_result_dtype": result_dtype,
                 "_check_tensor": _check_tensor, "_weakref": _weakref,
                 "_make_tensor": make_tensor, "_needs_grad": needs_grad, "_record": record}
    exec(source, namespace)     # noqa: S102 - the text is built from a signature, above
    fn = namespace[name]
    fn.__defaults__ = geometry.__defaults__
    fn.__kwdefaults__ = geometry.__kwdefaults__
    return fn


def _inplace_view(name, fn, node_names):
    """``Tensor.<name>_``: take the view ``fn`` makes, then let ``self`` show that geometry.

    PyTorch names the node of the in-place form differently (``TBackward1`` for ``t_``);
    ``node_names`` maps the out-of-place node name to that one.
    """
    renamed = {}

    def method(self, *args, **kwargs):
        check_inplace(self)
        v = fn(self, *args, **kwargs)
        self._data = v._data
        self._bump_version()
        node = v._grad_fn
        if node is not None:
            cls = type(node)
            new_name = node_names.get(cls.__name__)
            if new_name is not None:
                if cls not in renamed:
                    renamed[cls] = type(new_name, (cls,), {"__slots__": ()})
                node.__class__ = renamed[cls]
            self._grad_fn, self._output_nr = node, 0
        return self
    method.__name__ = name + "_"
    method.__qualname__ = "Tensor." + name + "_"
    method.__doc__ = f"In-place version of :meth:`Tensor.{name}` (changes the view)."
    return method


# ----------------------------------------------------------------------------------------------
# <view>_copy
# ----------------------------------------------------------------------------------------------

_COPY_NODES = {}


def _copy_node_class(cls):
    """``<View>Backward0_copy``: the same formulas under PyTorch's name for the copy op."""
    name = cls.__name__ + "_copy"
    if name not in _COPY_NODES:
        _COPY_NODES[name] = type(name, (cls,), {"__slots__": ()})
        _COPY_NODES[name].__module__ = cls.__module__
    return _COPY_NODES[name]


def _fresh(v):
    """A contiguous copy of the view ``v`` that takes over ``v``'s place in the graph."""
    c = wrap(v._data.copy(), v._dtype, v._device)     # ndarray.copy() is C-contiguous
    node = v._grad_fn
    if node is not None and isinstance(node, OpNode):
        if not type(node).__name__.endswith("_copy"):    # (shared by unbind's outputs)
            node.__class__ = _copy_node_class(type(node))
        c._grad_fn, c._output_nr, c._requires_grad = node, v._output_nr, True
    return c


def publish_copy(view_name, view_fn=None, precheck=None):
    """Publish ``cinder.<view_name>_copy``: ``view_fn`` (default: the registered view op of
    that name) computed as a new tensor. ``precheck(input)`` holds the copy's own refusals."""
    name = view_name + "_copy"

    def fn(input, *args, out=None, **kwargs):
        check_tensor_arg(input, name, "input", 1)
        if precheck is not None:
            precheck(input)
        view = (view_fn or FUNCTIONS.get(view_name) or getattr(Tensor, view_name))(
            input, *args, **kwargs)
        if isinstance(view, (tuple, list)):
            result = type(view)(_fresh(v) for v in view)
        else:
            result = _fresh(view)
        if out is not None:
            return write_out(out, result)
        return result
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Like ``{view_name}``, but the result is a new tensor, not a view."
    register(name, fn, method=False, family="views", tags=("views", "copy"))
    return fn

