"""The op table and the generator that turns entries into functions, methods and graph nodes.

An op is defined once, in one family file (``pointwise.py``, ``reduction.py``, ...), by:
- a forward function with PyTorch's Python signature that computes on backend arrays, and
- if differentiable, derivative formulas written in cinder Tensor ops, one per input, in the
  vocabulary of PyTorch's ``derivatives.yaml`` (``grad``, ``result``, ``self``, ``other``...).
``register`` then publishes ``cinder.<name>``, ``Tensor.<name>``, the in-place ``Tensor.<name>_``
(with version bump and leaf checks), and ``out=``. ``node_class`` builds the graph-node class
(``MulBackward0``...) and, by reading which names each formula uses, what the node must save
for the inputs that need a gradient: an op that runs with grad disabled saves nothing at all.
"""

from types import FunctionType

from .. import _C
from .. import _dtype as D
from .._tensor import Tensor, make_tensor
from ..autograd import grad_mode
from ..autograd.graph import BEFORE_INPLACE, HOLDS_NUMBER, Node, SavedTensor
from ._dispatch import dispatching, dispatching_property
from .limited_uint import guarded

__all__ = ["FUNCTIONS", "OPS", "alias", "needs_grad", "node_class", "record", "register"]

FUNCTIONS = {}        # name -> function, exported as cinder.<name>
OPS = {}              # name -> OpInfo: the op table, walked by the coverage test
TENSOR_ATTRIBUTES = {}  # attribute -> op name: Tensor attributes published outside register()


class OpInfo:
    """One row of the op table (what exists for an op, and its graph nodes).

    ``function``/``method``/``inplace`` are the public objects (they pass the dispatch point);
    ``impl`` is the implementation behind ``function``, which the dispatch point calls.
    """

    __slots__ = ("aliases", "doc", "family", "function", "impl", "inplace", "method", "name",
                 "nodes", "tags", "kernels")

    def __init__(self, name, function, method, inplace, nodes, family, impl=None, tags=(),
                 aliases=(), kernels=None):
        self.name = name
        self.function = function
        self.method = method
        self.inplace = inplace
        self.nodes = nodes
        self.family = family
        self.impl = function if impl is None else impl
        self.tags = frozenset(tags or ((family,) if family else ()))
        self.aliases = tuple(aliases)
        self.kernels = dict(kernels or {})      # device type -> kernel (later: "cuda")
        self.doc = getattr(self.impl, "__doc__", None)

    def __repr__(self):
        return f"OpInfo({self.name!r}, family={self.family!r})"


# ----------------------------------------------------------------------------------------------
# Graph nodes generated from derivative formulas
# ----------------------------------------------------------------------------------------------

class OpNode(Node):
    """Base of generated nodes; ``_formulas`` holds one formula (or None) per input edge."""

    __slots__ = ()
    _formulas = ()
    _inputs = ()
    _saves = frozenset()          # every name the node may save
    _saves_always = frozenset()   # of those, saved whichever inputs need a gradient
    _saves_by_input = ()          # per input: the names its formula reads
    _saves_also = ()              # read by a joint formula: always saved
    _from_formulas = False        # made by node_class (what it saves is read off formulas)
    _saves_for_mask = {}          # live-input bitmask -> tensor names saved (filled lazily)
    _saves_fixed = None           # _saves when no input's need changes them, else None
    _num_outputs = 1

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._saves_for_mask = {}
        if "_saves" in cls.__dict__ and "_saves_always" not in cls.__dict__:
            cls._saves_always = cls._saves_fixed = cls._saves   # hand-written: saves all
            cls._settled = True
        else:
            cls._saves_fixed = None             # settled at its first record

    def __getattr__(self, name):
        # Formulas read saved values as attributes: ``s.other``, ``s.result``, ``s.dim``.
        saved = object.__getattribute__(self, "_saved")
        if saved is not None and name in self._saves:
            return self.saved(name)
        return Node.__getattr__(self, name)

    def backward(self, grad_outputs):
        # The class says whether the formulas take one gradient or a tuple: a multi-output op
        # (unbind, split) that made a single output still gets a tuple.
        single = type(self)._num_outputs == 1
        grad = grad_outputs[0] if single else grad_outputs
        if single and grad is None:
            return (None,) * len(self.next_functions)
        if _C.FLAG.active and _C.STATE.active:
            # Built-in derivatives are not seen by modes or subclasses (in PyTorch they run
            # in C++, below __torch_function__); custom Functions' backward still is.
            with _C.DisableTorchFunction():
                return self._apply_formulas(grad)
        return self._apply_formulas(grad)

    def _apply_formulas(self, grad):
        out = []
        for formula, (edge, _) in zip(self._formulas, self.next_functions):
            out.append(None if edge is None or formula is None else formula(grad, self))
        return _real_for_real_inputs(out, self._input_meta)


def _real_for_real_inputs(grads, metas):
    """A real input of an op with a complex result gets the real part of its gradient
    (PyTorch's ``handle_r_to_c``), not a complex gradient."""
    for i, g in enumerate(grads):
        if g is not None and g._dtype.category == D.COMPLEX and i < len(metas) and \
                metas[i] is not None and metas[i][1].category != D.COMPLEX:
            real = g._data.real
            grads[i] = make_tensor(real.copy(), g._dtype.to_real(), g._device)
    return tuple(grads)


_ABSENT = object()


def _names_used(formula):
    """Every attribute/global name a formula's code mentions: nested lambdas, the functions
    it captured (a wrapper's inner formula) and the helpers of its own module that it calls
    (``_silu_grad(grad, s)`` reads ``s.self`` inside), so a helper's reads count as the
    formula's own. Over-counting is harmless: ``record`` keeps only the names it is given."""
    names = set()
    seen = set()
    stack = [formula]
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        codes = [fn.__code__]
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            codes.extend(c for c in code.co_consts if hasattr(c, "co_names"))
            for name in code.co_names:
                helper = fn.__globals__.get(name, _ABSENT)
                if type(helper) is FunctionType and helper.__module__ == fn.__module__:
                    stack.append(helper)
        for cell in fn.__closure__ or ():
            try:
                inner = cell.cell_contents
            except ValueError:        # a cell not filled yet
                continue
            if type(inner) is FunctionType:
                stack.append(inner)
    return names


def _is_backward_of_backward(name):
    """``ThresholdBackwardBackward0``: the node of an op that is itself a backward. PyTorch's
    code generator saves everything for those (it does not guard their saves)."""
    return "Backward" in name[:name.rfind("Backward")]


def node_class(name, formulas, saves_also=(), num_outputs=1):
    """Build the graph-node class ``name`` from per-input formulas ``{input: f(grad, s)}``.

    ``formulas`` is ordered like the op's differentiable inputs; a value of None marks an input
    that never gets a gradient. A node saves the names the formulas read, and as PyTorch's
    generated nodes do, a tensor only one input's formula reads is saved only when that input
    needs a gradient (``x.exp() * 2`` keeps no copy of ``x.exp()`` for the mul). Saved
    whatever inputs need a gradient: the outputs (``result``...), values that are not tensors,
    tensors several formulas read, and ``saves_also`` (what a joint formula for several
    inputs reads: PyTorch does not guard those either).
    """
    cls = type(name, (OpNode,), {
        "__slots__": (),
        "_formulas": tuple(formulas.values()),
        "_inputs": tuple(formulas),
        "_saves_also": tuple(saves_also),
        "_from_formulas": True,
        "_num_outputs": num_outputs,
    })
    cls.__module__ = "cinder.autograd.generated"
    _read_formulas(cls)
    return cls


def _read_formulas(cls):
    """Set what ``cls`` saves (``_saves``, ``_saves_always``, ``_saves_by_input``) from its
    formulas. Done when the class is made, and again when it is first recorded: by then the
    helpers its formulas call, which may be defined further down their module, exist."""
    formulas = cls._formulas
    reads = tuple(frozenset() if f is None else frozenset(_names_used(f))
                  for f in formulas)
    used = set(cls._saves_also).union(*reads)
    if sum(f is not None for f in formulas) <= 1 or _is_backward_of_backward(cls.__name__):
        always = frozenset(used)       # one formula: its input needs a gradient if recorded
    else:
        seen_once, seen_more = set(), set()
        for r in reads:
            seen_more |= seen_once & r
            seen_once |= r
        always = frozenset(seen_more.union(cls._saves_also))
    cls._saves = frozenset(used)
    cls._saves_always = always
    cls._saves_by_input = reads


def _saves_for_mask(cls, mask, values):
    """The names ``cls`` saves as tensors when the inputs whose bits are set in ``mask`` need
    a gradient; computed once per class and mask (``record`` looks it up on every call). The
    first call settles the class from what its first ``record`` was given (``values``)."""
    if not cls.__dict__.get("_settled"):
        _settle(cls, values)
    live = set(cls._saves_always)
    for i, names in enumerate(cls._saves_by_input):
        if mask >> i & 1:
            live |= names
    live = frozenset(live)
    cls._saves_for_mask[mask] = live
    return live


def _settle(cls, values):
    """Read the formulas again (their module is loaded by now) and stop guarding names that
    will not be tensors: one that is no input of the op and came as no tensor in this first
    call (a size, a flag, an output, a method a formula calls) is taken as never one. When
    nothing is left to guard, the class is marked fixed and ``record`` skips the mask."""
    if cls._from_formulas:
        _read_formulas(cls)
    # (Names the formulas use that are helpers or Tensor methods, ``_conj``, ``.expand``, stay
    # in ``_saves``: a later record may give a value under such a name, ``dim`` or ``input``
    # say, and it must be saved then. Keys no record gives cost one dict lookup each.)
    plain = set()
    for key in cls._saves - cls._saves_always:
        if key in cls._inputs:
            continue
        value = values.get(key, _ABSENT)
        if value is _ABSENT or value is not None and not isinstance(value, Tensor):
            plain.add(key)
    cls._saves_always = cls._saves_always | plain
    cls._settled = True
    if cls._saves_always == cls._saves:
        cls._saves_fixed = cls._saves       # no mask needed from now on


# ----------------------------------------------------------------------------------------------
# Recording
# ----------------------------------------------------------------------------------------------

def needs_grad(*tensors):
    """Whether an op on these inputs must be recorded (grad mode on and an input needs grad)."""
    if not grad_mode.STATE.grad_enabled:
        return False
    for t in tensors:
        if t is not None and t._requires_grad:
            return True
    return False


_NUMBERS = (int, float, complex, bool)
_RESULT_N = {f"result{i}": i for i in range(8)}


def record(cls, inputs, outputs, **values):
    """Attach a new ``cls`` node to ``outputs``; ``inputs`` are the differentiable inputs
    (None for an input that is not a tensor). ``values`` are candidates for saving: the node
    keeps only those its formulas use."""
    edges = []
    meta = []
    scalar_input = False      # an input given as no tensor (maybe a number: ``x * 2``)
    for t in inputs:          # one pass (this runs for every recorded op)
        if t is None:
            edges.append((None, 0))
            meta.append(None)
            scalar_input = True
            continue
        if t._volatile:
            return _spread_volatile(outputs)
        edges.append(t._gradient_edge() if t._requires_grad else (None, 0))
        meta.append((t._data.shape, t._dtype, t._device))
    node = cls()
    node.next_functions = tuple(edges)
    node._input_meta = tuple(meta)
    saves = cls._saves
    if saves:
        live = cls._saves_fixed
        if live is None:          # what is saved depends on which inputs need a gradient
            mask = 0
            bit = 1
            for fn, _ in edges:
                if fn is not None:
                    mask |= bit
                bit <<= 1
            live = cls._saves_for_mask.get(mask)
            if live is None:
                live = _saves_for_mask(cls, mask, values)
                saves = cls._saves    # read again: the first lookup settles the class
        saved = {}
        for key in saves:
            if key == "result":
                saved[key] = SavedTensor(outputs[0], is_output=True)
            elif key in _RESULT_N:         # result0, result1...: the outputs of a multi-output op
                saved[key] = SavedTensor(outputs[_RESULT_N[key]], is_output=True)
            elif key in values:
                v = values[key]
                if isinstance(v, Tensor):
                    # not needed for the inputs that want a gradient: None, as PyTorch's
                    # grad_fn._saved_<name> answers for a tensor it did not save
                    saved[key] = SavedTensor(v) if key in live else None
                else:
                    saved[key] = v
                    if scalar_input and type(v) in _NUMBERS and key in cls._inputs and \
                            key in live:
                        saved[HOLDS_NUMBER] = key    # a wrapped number, to PyTorch
        node._saved = saved
    for i, out in enumerate(outputs):
        if out is None:
            continue
        out._grad_fn = node
        out._output_nr = i
        out._requires_grad = True
    if grad_mode.ANOMALY.enabled:
        grad_mode.ANOMALY.attach(node)
    return node


def _spread_volatile(outputs):
    """Legacy volatile semantics: one volatile input makes the outputs volatile and stops the
    graph (the pre-0.4 behaviour the seed material documents); nothing is recorded."""
    for out in outputs:
        if out is not None:
            out._volatile = True
            out._requires_grad = True     # see Tensor.requires_grad: reported as False
    return None


# ----------------------------------------------------------------------------------------------
# Publishing functions, methods, in-place and out= variants
# ----------------------------------------------------------------------------------------------

def register(name, function=None, *, method=True, inplace=None, family="", nodes=(),
             method_name=None, function_too=True, tags=(), kernels=None):
    """Publish ``function`` as ``cinder.<name>`` and (if ``method``) as ``Tensor.<name>``.

    ``inplace`` may be a function to publish as ``Tensor.<name>_``; ``True`` generates one from
    the out-of-place function (compute, then copy into self, with PyTorch's checks).
    ``function_too=False`` keeps the op out of the ``cinder.*`` namespace (PyTorch has only the
    method, e.g. ``Tensor.sum_to_size``). Every published object passes the dispatch point
    (``_dispatch.dispatching``); the returned function is the public one. Usable as a
    decorator. ``tags`` default to the family; ``kernels`` maps a device type to a kernel.
    """
    def publish(fn):
        # ops that refuse the limited unsigned dtypes get the check (``limited_uint.py``)
        impl = guarded(name, getattr(fn, "_cinder_impl", fn))
        # A new public object per name, so an alias keeps its own ``__name__``.
        public = dispatching(impl, name, name)
        if function_too:
            public.__module__ = "cinder"     # as torch.add.__module__ == "torch"
            FUNCTIONS[name] = public
        meth = None
        if method:
            # The method is its own object (``Tensor.add`` is not ``cinder.add``): handlers
            # and error messages tell ``torch.Tensor.add`` from ``torch.add``, as PyTorch's do.
            own = impl if method is True else guarded(name, getattr(method, "_cinder_impl", method))
            meth = _public_method(own, method_name or name)
            setattr(Tensor, method_name or name, meth)
        inp = inplace
        if inp is True:
            inp = make_inplace(impl, name, pointwise=family == "pointwise")
        elif inp is not None:
            inp = guarded(name, getattr(inp, "_cinder_impl", inp))
        if inp is not None:
            inp = _public_method(inp, name + "_")
            setattr(Tensor, name + "_", inp)
        OPS[name] = OpInfo(name, public, meth, inp, nodes, family, impl=impl, tags=tags,
                           kernels=kernels)
        return public
    return publish if function is None else publish(function)


def alias(name, of):
    """Publish ``name`` as another name of the registered op ``of`` (``subtract`` for
    ``sub``): the same implementation as function, method and in-place form wherever ``of``
    has them, each published object named ``name``. The alias is recorded on ``of``'s entry."""
    info = OPS[of]
    inplace = info.inplace and getattr(info.inplace, "_cinder_impl", info.inplace)
    method = info.method and getattr(info.method, "_cinder_impl", info.method)
    register(name, info.impl, method=method or False, inplace=inplace or None, family="alias",
             nodes=info.nodes, function_too=of in FUNCTIONS, tags=info.tags)
    OPS[name].aliases = (of,)
    info.aliases += (name,)
    return OPS[name].function if of in FUNCTIONS else OPS[name].method


def _public_method(fn, attr):
    """A Tensor method as published: through the dispatch point, named ``Tensor.<attr>``."""
    return dispatching(getattr(fn, "_cinder_impl", fn), attr, "Tensor." + attr)


def publish_attribute(attr, fn, op=None, prop=False):
    """Put ``fn`` on Tensor as ``attr`` (a method, or with ``prop`` a property's getter),
    through the dispatch point. ``op`` names the table entry it belongs to (for operators,
    indexing and properties such as ``Tensor.T``); None for Tensor-core methods such as
    ``backward`` that PyTorch also routes through ``__torch_function__``."""
    impl = getattr(fn, "_cinder_impl", fn)
    if prop:
        public = dispatching_property(attr, impl)
    else:
        public = dispatching(impl, attr, "Tensor." + attr)
    setattr(Tensor, attr, public)
    TENSOR_ATTRIBUTES[attr] = op
    return public


# Methods of the tensor core (``_tensor.py``, below the op table) that PyTorch's handlers see
# too; they are routed through the dispatch point here, where it exists.
CORE_METHODS = ("backward", "detach", "detach_", "requires_grad_", "retain_grad",
                "register_hook", "register_post_accumulate_grad_hook", "size", "dim",
                "ndimension", "nelement", "stride", "tolist", "numpy", "item", "type",
                "element_size", "storage_offset", "is_contiguous", "data_ptr", "untyped_storage",
                "storage", "resize_", "resize_as_", "set_", "is_set_to", "get_device",
                "is_inference", "is_pinned", "is_shared", "share_memory_", "is_signed")


# The tensor core's properties: PyTorch's handlers see every property read (``__get__``) and
# write (``__set__``/``__delete__``) of its C-level Tensor too.
CORE_PROPERTIES = ("creator", "data", "device", "dtype", "grad", "grad_fn", "is_cpu", "is_cuda",
                   "is_leaf", "is_meta", "is_quantized", "is_sparse", "itemsize", "layout",
                   "nbytes", "ndim", "requires_grad", "retains_grad", "shape", "volatile",
                   "_version")


def publish_core_methods():
    for attr in CORE_METHODS:
        if attr not in TENSOR_ATTRIBUTES:
            publish_attribute(attr, Tensor.__dict__[attr])
    for attr in CORE_PROPERTIES:
        core = Tensor.__dict__[attr]
        setattr(Tensor, attr, dispatching_property(attr, core.fget, core.fset, core.fdel))
        TENSOR_ATTRIBUTES[attr] = None


def write_out(out, result, warn_resize=True):
    """Implement ``out=``: resize ``out`` (warning if it was non-empty, unless ``warn_resize``
    is False, as for factory functions) and copy ``result``."""
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if grad_mode.STATE.grad_enabled and (result._requires_grad or out._requires_grad):
        raise RuntimeError("functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    cast_check(result._dtype, out._dtype, "desired output type")
    if out._device != result._device:
        raise RuntimeError(f"Expected out tensor to have device {result._device}, but got "
                           f"out.device = {out._device} instead")
    if BEFORE_INPLACE[0] is not None:
        BEFORE_INPLACE[0](out)    # allow_mutation_on_saved_tensors copies what was saved of out
    if out._data.shape != result._data.shape:
        if out._data.size != 0 and warn_resize:
            import warnings
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                "t.resize_(0).", UserWarning, stacklevel=3)
        out._data = result._data.astype(out._dtype.numpy_dtype, copy=True)
    else:
        out._data[...] = result._data
    out._bump_version()
    return out


# The in-place machinery lives in ``_inplace.py`` (it needs ``needs_grad`` above); these names
# stay importable from here for the family files written against them.
from ._inplace import (  # noqa: E402,F401
    _check_broadcast_into,
    _snapshot_for_backward,
    cast_check,
    check_fits,
    check_inplace,
    commit_inplace,
    inplace_only,
    make_inplace,
)
