"""``cinder.Tensor``: a backend array that *is* the strided view, plus autograd bookkeeping.

The array (``_data``, a NumPy or CuPy ndarray) carries shape, strides and offset; NumPy views
share memory exactly as PyTorch views do, so ``storage()``, ``stride()``, ``data_ptr()`` and
``is_contiguous()`` are read off the array instead of being tracked twice. The math methods
(``add``, ``sum``, ``view``, ...) are not written here: the op table in ``cinder/ops`` attaches
them, together with the ``cinder.*`` functions, so each op is defined in exactly one place.
"""

import operator
import warnings
import weakref

import numpy as np

from . import _C
from . import _dtype as D
from . import backend
from ._device import CPU, as_device
from ._layout import contiguous_format
from ._storage import TypedStorage, UntypedStorage, _flat_bytes, move_to_shared, storage_view
from .autograd import grad_mode
from .autograd.graph import AccumulateGrad, RemovableHandle
from ._shared_memory import segment_of
from ._tensor_str import tensor_repr

__all__ = ["Tensor", "make_tensor"]


class _VersionCounter:
    """Shared by a tensor and all its views; bumped by every in-place change.

    Once this process has moved some memory to shared memory, it also remembers (weakly) the
    views and detached aliases made from the tensor, so that ``share_memory_`` can move exactly
    the tensors that see the same storage (see ``cinder._storage.move_to_shared``).
    """

    __slots__ = ("value", "aliases", "prune_at")

    # Off until the first ``share_memory_`` in this process (``move_to_shared`` turns it on):
    # until then views cost no record at all, and the first move finds any alias made before
    # through its fallback scan. A program that never shares memory never pays for the records.
    track_aliases = False

    def __init__(self):
        self.value = 0
        self.aliases = None
        self.prune_at = 8

    def note_alias(self, tensor):
        """Remember ``tensor`` (or a storage) as one more alias of the memory, weakly (only
        while aliases are tracked)."""
        refs = self.aliases
        if refs is None:
            if not self.track_aliases:
                return
            refs = self.aliases = []
        refs.append(weakref.ref(tensor))
        if len(refs) >= self.prune_at:
            self.prune()

    def prune(self):
        """Drop the references to dead aliases. The next prune waits until the list has
        doubled, so the cost is amortised O(1) per alias and a long-lived base indexed
        millions of times keeps a short list."""
        refs = self.aliases
        refs[:] = [r for r in refs if r() is not None]
        self.prune_at = max(8, 2 * len(refs))


class Tensor:
    """A multi-dimensional array with autograd, PyTorch's ``torch.Tensor``."""

    __slots__ = ("_data", "_dtype", "_device", "_requires_grad", "_grad", "_grad_fn",
                 "_output_nr", "_vc", "_base", "_hooks", "_retains_grad", "_grad_acc",
                 "_is_inference", "__dict__", "__weakref__")

    # Attributes read by reflection (e.g. hasattr(t, 'grad_fn')) must exist on the class.
    __array_priority__ = 1000          # numpy scalars defer to Tensor's reflected operators

    def __new__(cls, *args, **kwargs):
        # Legacy constructor: Tensor(2, 3), Tensor([1, 2]), Tensor(ndarray), Tensor(storage).
        from ._legacy import tensor_class_new
        return tensor_class_new(cls, args, kwargs)

    def __init__(self, *args, **kwargs):
        pass

    # ------------------------------------------------------------------------------------------
    # __torch_function__ (torch.overrides): subclasses see every op called on them
    # ------------------------------------------------------------------------------------------
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # The op table's dispatch point only looks at arguments once some subclass takes part;
        # one that opts out (``__torch_function__ = _disabled_torch_function_impl``, as
        # nn.Parameter does) keeps the fast path.
        if cls.__torch_function__ is not _C._disabled_torch_function_impl:
            _C.note_subclass(cls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """The default handler: run ``func`` with subclass handling off, then give Tensor
        results the subclass type (``as_subclass``), as PyTorch's default does."""
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with _C.DisableTorchFunctionSubclass():
            result = func(*args, **kwargs)
        if _reads_a_field(func):
            return result
        return _convert(result, cls)

    def as_subclass(self, cls):
        """This tensor as an instance of ``cls`` (a Tensor subclass): same data, same version
        counter, same place in the autograd graph."""
        out = object.__new__(cls)
        for name in _CORE_SLOTS:
            setattr(out, name, getattr(self, name))
        out._vc = vc = self._shared_version_counter()
        vc.note_alias(out)
        if self._volatile:
            out._volatile = True
        return out

    @staticmethod
    def _make_subclass(cls, data, require_grad=False):
        """A ``cls`` instance sharing ``data``'s values, detached, as a new leaf."""
        out = data.detach().as_subclass(cls)
        out._requires_grad = bool(require_grad)
        return out

    # ------------------------------------------------------------------------------------------
    # Basic properties
    # ------------------------------------------------------------------------------------------
    # Plain fields read through C getters: the op table wraps every property for the dispatch
    # point (ops/_registry.py), and a C getter keeps these reads at one Python frame.
    dtype = property(operator.attrgetter("_dtype"), doc="The tensor's ``cinder.dtype``.")
    device = property(operator.attrgetter("_device"), doc="The ``cinder.device`` it is on.")

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        """The shape as a ``cinder.Size``, or the size of one dimension."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._wrap_dim(dim)]

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._dtype.itemsize

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self._data.size * self._dtype.itemsize

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    @property
    def is_cpu(self):
        return self._device.type == "cpu"

    @property
    def is_meta(self):
        return False

    @property
    def is_sparse(self):
        return False

    @property
    def is_quantized(self):
        return False

    @property
    def layout(self):
        from . import strided
        return strided

    def get_device(self):
        """The CUDA device index, or -1 for CPU tensors."""
        if self._device.type == "cuda":
            return 0 if self._device.index is None else self._device.index
        return -1

    def is_floating_point(self):
        return self._dtype.category == D.FLOATING

    def is_complex(self):
        return self._dtype.category == D.COMPLEX

    def is_signed(self):
        return self._dtype.is_signed

    def is_inference(self):
        return self._is_inference

    def _wrap_dim(self, dim):
        return wrap_dim(dim, self._data.ndim)

    # ------------------------------------------------------------------------------------------
    # Strides and storage (read off the array)
    # ------------------------------------------------------------------------------------------
    def stride(self, dim=None):
        """Strides in elements (NumPy keeps them in bytes)."""
        item = self._dtype.itemsize
        strides = tuple(s // item for s in self._data.strides)
        if not self._data.size and strides and not any(strides):
            # NumPy gives freshly allocated empty arrays all-zero strides; PyTorch's are dense.
            strides = contiguous_strides(self._data.shape)
        if dim is None:
            return strides
        return strides[self._wrap_dim(dim)]

    def storage_offset(self):
        root = backend.storage_root(self._data)
        return (backend.data_ptr(self._data) - backend.data_ptr(root)) // self._dtype.itemsize

    def data_ptr(self):
        # PyTorch reports a null pointer for tensors without elements.
        return backend.data_ptr(self._data) if self._data.size else 0

    def untyped_storage(self):
        return self._record_storage(
            UntypedStorage._from_root(backend.storage_root(self._data), self._device))

    def storage(self):
        return self._record_storage(TypedStorage._from_tensor(self))

    def _record_storage(self, storage):
        """Record ``storage`` (made over this tensor's memory) like a view, so that
        ``share_memory_`` on either finds the other; returns it."""
        if not self._is_inference:
            storage._vc = vc = self._shared_version_counter()
            vc.note_alias(storage)
            storage._base = weakref.ref(self if self._base is None else self._base)
        return storage

    def is_contiguous(self, memory_format=None):
        # PyTorch ignores strides of size-1 dims, and an empty tensor is contiguous.
        shape, strides = self._data.shape, self._data.strides
        if self._data.size == 0:
            return True
        inner_first = _INNER_FIRST.get((getattr(memory_format, "name", None), len(shape)))
        if inner_first is None:
            if getattr(memory_format, "name", "").startswith("channels_last"):
                return False            # channels_last needs 4 dims, channels_last_3d 5
            inner_first = range(len(shape) - 1, -1, -1)
        expected = self._dtype.itemsize
        for d in inner_first:
            if shape[d] != 1:
                if strides[d] != expected:
                    return False
                expected *= shape[d]
        return True

    def is_set_to(self, other):
        return (self.data_ptr() == other.data_ptr() and self.shape == other.shape
                and self.stride() == other.stride())

    def _is_view(self):
        return self._base is not None

    # ------------------------------------------------------------------------------------------
    # Re-pointing a tensor at memory: resize_, resize_as_, set_
    # ------------------------------------------------------------------------------------------
    def resize_(self, *sizes, memory_format=None):
        """Give the tensor a new shape over its storage (contiguous from its storage offset).

        The storage keeps its data; when it is too small a larger one is allocated and the old
        bytes copied over. (Other tensors on the old storage keep the old memory: cinder cannot
        grow a NumPy buffer in place the way PyTorch grows a storage.)
        """
        if self.requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        from .ops._prep import shape_arg
        shape = shape_arg(sizes, "resize_")
        if any(n < 0 for n in shape):
            raise RuntimeError("numel: integer multiplication overflow")
        if shape != self._data.shape:
            self._repoint(shape, contiguous_strides(shape), self.storage_offset())
        self._bump_version()
        return self

    def resize_as_(self, other, memory_format=None):
        return self.resize_(other._data.shape)

    def _repoint(self, shape, strides, offset, root=None):
        """Rebuild ``_data`` as ``shape``/``strides``/``offset`` over ``root`` (default: the
        current storage), growing the storage when the view would run past its end."""
        if root is None:
            root = backend.storage_root(self._data)
        item = self._dtype.itemsize
        numel = 1
        for n in shape:
            numel *= n
        extent = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1 if numel else 0
        have = _flat_bytes(root).size
        if extent * item > have:
            old = _flat_bytes(root)
            xp = np if isinstance(old, np.ndarray) else backend.cupy_module()
            grown = xp.zeros(extent * item, dtype=np.uint8)
            grown[:have] = old
            root = grown
        self._data = storage_view(root, self._dtype.numpy_dtype, shape, strides, offset)

    def set_(self, source=None, storage_offset=None, size=None, stride=None):
        """Point this tensor at ``source``'s memory: another tensor (same dtype; shares its
        storage, shape and strides), a storage (with optional offset, size and stride), or
        nothing (an empty tensor)."""
        from .ops._registry import check_inplace
        if storage_offset is not None and size is None:
            kind = "Tensor" if isinstance(source, Tensor) else \
                "torch.storage." + type(source).__name__
            raise TypeError(
                f"set_() received an invalid combination of arguments - got ({kind}, "
                f"{type(storage_offset).__name__}), but expected one of:\n * ()\n * (torch.Storage "
                "source)\n * (torch.Storage source, int storage_offset, tuple of ints size, tuple "
                "of ints stride = None)\n * (Tensor source)\n * (Tensor source, int "
                "storage_offset, tuple of ints size, tuple of ints stride = None)\n")
        check_inplace(self)
        if isinstance(source, Tensor) and size is not None:
            source = source.untyped_storage() if source._dtype is self._dtype else source
        if source is None:
            self._data = backend.array_module(self._device).empty((0,), self._dtype.numpy_dtype)
        elif isinstance(source, Tensor):
            if source._dtype is not self._dtype:
                raise RuntimeError(f"Could not set tensor of type {source._dtype.cpp_name} to a "
                                   f"tensor of type {self._dtype.cpp_name}")
            self._data = source._data
        elif isinstance(source, (UntypedStorage, TypedStorage)):
            if isinstance(source, TypedStorage):
                if source.dtype is not self._dtype:
                    raise RuntimeError(
                        f"Expected a Storage of type {self._dtype.cpp_name} or an "
                        f"UntypedStorage, but got type {source.dtype._tensor_name[:-6]} for "
                        "argument 1 'storage'")
                source = source._untyped
            if size is None:
                size = (source.nbytes() // self._dtype.itemsize,)
            size = tuple(int(n) for n in size)
            stride = contiguous_strides(size) if stride is None else tuple(int(s) for s in stride)
            self._repoint(size, stride, int(storage_offset or 0), root=source._bytes)
        else:
            raise TypeError(f"set_(): argument 'source' must be Tensor or Storage, not "
                            f"{type(source).__name__}")
        self._bump_version()
        return self

    def is_shared(self):
        """Whether the storage lives in shared memory (see ``share_memory_``)."""
        return self._device.type == "cpu" and \
            segment_of(backend.storage_root(self._data)) is not None

    def is_pinned(self, device=None):
        """Whether the tensor's memory is page-locked host memory (see ``pin_memory``)."""
        return self._device.type == "cpu" and backend.cuda.is_pinned(self._data)

    def share_memory_(self):
        """Move the storage to shared memory in place (a no-op when already shared or on
        CUDA); returns self. Every view of the storage, made before or after, sees the shared
        memory, as in PyTorch where the storage object they all hold is what moves."""
        if self._device.type == "cpu":
            move_to_shared(self)
        return self

    # ------------------------------------------------------------------------------------------
    # Autograd fields
    # ------------------------------------------------------------------------------------------
    @property
    def requires_grad(self):
        # A volatile tensor keeps _requires_grad set internally (so every op on it takes the
        # recording path, where the volatile flag spreads) but reports False, as it used to.
        return self._requires_grad and not self._volatile

    @requires_grad.setter
    def requires_grad(self, value):
        self._set_requires_grad(bool(value), "only Tensors of floating point and complex dtype "
                                             "can require gradients")

    def _set_requires_grad(self, value, dtype_message):
        if self._grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return
        if value and self._dtype.category < D.FLOATING:
            raise RuntimeError(dtype_message)
        if value and self._is_inference and not grad_mode.STATE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = value

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` in place and return self."""
        self._set_requires_grad(bool(requires_grad), "only Tensors of floating point dtype can "
                                                     "require gradients")
        return self

    @property
    def is_leaf(self):
        return self._grad_fn is None

    grad_fn = property(operator.attrgetter("_grad_fn"),
                       doc="The graph node that made this tensor (None for a leaf).")

    @property
    def creator(self):
        """Legacy (Variable-era) name of ``grad_fn``."""
        return self._grad_fn

    @property
    def grad(self):
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed "
                "want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() "
                "on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
                "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
                "for more information.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._dtype is not self._dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value._dtype.cpp_name}' to a "
                    f"tensor with grad_dtype '{self._dtype._tensor_name[:-6]}'. The gradient must "
                    "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set "
                    "the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match.")
            if value._device != self._device:
                raise RuntimeError("attempting to assign a gradient located on device with type "
                                   f"'{value._device.type}' to a tensor located on device with "
                                   f"type '{self._device.type}'. Please ensure that the gradient "
                                   "and the tensor are on the same device")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def _version(self):
        if self._is_inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        vc = self._vc
        return 0 if vc is None else vc.value

    def _bump_version(self):
        vc = self._vc
        if vc is None:
            vc = self._vc = _VersionCounter()
        vc.value += 1

    def _shared_version_counter(self):
        """The version counter, about to be shared with a new view or alias of this tensor."""
        vc = self._vc
        if vc is None:
            vc = self._vc = _VersionCounter()
        if vc.aliases is None and vc.track_aliases:
            vc.note_alias(self)     # the first alias: record the tensor it is made from too
        return vc

    def _grad_accumulator(self):
        """The leaf's AccumulateGrad node (created once, held weakly like PyTorch does)."""
        ref = self._grad_acc
        acc = ref() if ref is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._grad_acc = weakref.ref(acc)
        return acc

    def _gradient_edge(self):
        """(node, input_nr) through which a gradient reaches this tensor."""
        if self._grad_fn is not None:
            return self._grad_fn, self._output_nr
        return self._grad_accumulator(), 0

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        ref = weakref.ref(self)

        def store(grad):
            t = ref()
            if t is None:
                return
            if t._grad is None:
                # always a row-major copy, recorded (CloneBackward0) under create_graph, as
                # PyTorch's retain_grad hook makes it
                t._grad = grad.clone(memory_format=contiguous_format)
            else:
                t._grad = t._grad + grad
        node = self._grad_fn
        if node._retain_grad_hooks is None:
            node._retain_grad_hooks = {}
        node._retain_grad_hooks[self._output_nr] = store

    @property
    def retains_grad(self):
        return self._retains_grad

    def register_hook(self, hook):
        """Register ``hook(grad) -> Tensor or None``, run when this tensor's gradient is
        computed."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn._register_tensor_hook(self._output_nr, hook)
        acc = self._grad_accumulator()
        if self._hooks is None:
            self._hooks = acc._tensor_pre_hooks = {}
        handle = RemovableHandle(self._hooks)
        self._hooks[handle.id] = (0, hook)
        # Keep the accumulator (and so the hooks) alive as long as the tensor is.
        self.__dict__["_hook_acc"] = acc
        return handle

    def register_post_accumulate_grad_hook(self, hook):
        """Register ``hook(tensor)`` to run after ``.grad`` of this leaf has been accumulated."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        acc = self._grad_accumulator()
        self.__dict__["_hook_acc"] = acc
        return acc.register_hook(lambda grad_inputs, grad_outputs: hook(self) and None)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. the graph leaves (see autograd.backward)."""
        from .autograd._backward import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """A new tensor sharing this one's data, cut off from the graph."""
        out = make_tensor(self._data, self._dtype, self._device)
        out._vc = vc = self._shared_version_counter()
        vc.note_alias(out)
        out._is_inference = self._is_inference
        return out

    def detach_(self):
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        """The same data without autograd history (the legacy ``.data``)."""
        out = make_tensor(self._data, self._dtype, self._device)
        out._is_inference = self._is_inference
        return out

    @data.setter
    def data(self, new):
        if not isinstance(new, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
        if self._requires_grad and new._dtype.category < D.FLOATING:
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        self._data = new._data
        self._dtype = new._dtype
        self._device = new._device

    # Legacy volatile flag. A class attribute, so ordinary tensors pay nothing for it; only
    # ``Variable(..., volatile=True)`` and results computed from such tensors set it.
    _volatile = False

    @property
    def volatile(self):
        """Legacy (pre-0.4): True for ``Variable(t, volatile=True)`` and everything computed
        from it while it would otherwise have recorded a graph (see ``ops._registry.record``)."""
        return self._volatile

    # ------------------------------------------------------------------------------------------
    # Python protocols and the NumPy bridge
    # ------------------------------------------------------------------------------------------
    def __repr__(self, *, tensor_contents=None):
        return tensor_repr(self, tensor_contents=tensor_contents)

    def __str__(self):
        return self.__repr__()

    def __format__(self, spec):
        # Like PyTorch, a 0-d tensor formats as its number; others as their repr.
        if self._data.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def _host_numpy(self):
        """A NumPy copy of the values, for printing."""
        return np.array(backend.to_numpy(self._data), copy=True)

    def numpy(self, *, force=False):
        """The values as a NumPy array sharing memory (CPU tensors that don't require grad)."""
        if force:
            return np.array(backend.to_numpy(self._data))
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._device.type != "cpu":
            raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype)

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        # np.exp(tensor) returns a Tensor, as it does with PyTorch.
        from .ops.creation import from_numpy
        if return_scalar:
            return arr[()]
        return from_numpy(np.ascontiguousarray(arr))

    def tolist(self):
        return backend.to_numpy(self._data).tolist()

    def item(self):
        """The single value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return backend.to_numpy(self._data).reshape(()).item()

    def _scalar_value(self, what):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self):
        return float(self._scalar_value("float"))

    def __int__(self):
        return int(self._scalar_value("int"))

    def __complex__(self):
        return complex(self._scalar_value("complex"))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous"
                               if self._data.size else
                               "Boolean value of Tensor with no values is ambiguous")
        return bool(self.item())

    def __index__(self):
        if self._dtype.category != D.INTEGRAL and self._dtype is not D.bool or \
                self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element):
        if isinstance(element, (Tensor, int, float, bool, complex)):
            return bool((self == element).any().item())
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol):
        from .serialization import reduce_tensor
        return reduce_tensor(self)

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                               "the deepcopy protocol at the moment.  If you were attempting to "
                               "deepcopy a module, this may be because of a torch.nn.utils."
                               "weight_norm usage, see https://github.com/pytorch/pytorch/pull/"
                               "103001")
        if id(self) in memo:
            return memo[id(self)]
        with grad_mode.no_grad():
            new = self.clone()
        new.__class__ = type(self)
        new._requires_grad = self._requires_grad
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        new.__dict__.update({k: v for k, v in self.__dict__.items() if k != "_hook_acc"})
        memo[id(self)] = new
        return new

    # Type names as PyTorch prints them in .type() and in error messages.
    def type(self, dtype=None, non_blocking=False, **kwargs):
        """With no argument, the type name ('torch.FloatTensor'); otherwise a cast."""
        if dtype is None:
            prefix = "torch.cuda." if self._device.type == "cuda" else "torch."
            return prefix + self._dtype._tensor_name
        from .ops.conversion import cast_to_type
        return cast_to_type(self, dtype, non_blocking)


# The Tensor fields an alias made by ``as_subclass`` shares with its original.
_CORE_SLOTS = ("_data", "_dtype", "_device", "_requires_grad", "_grad", "_grad_fn", "_output_nr",
               "_base", "_hooks", "_retains_grad", "_grad_acc", "_is_inference")


def _reads_a_field(func):
    """Whether ``func`` reads a tensor stored on the tensor (``Tensor.grad.__get__``): its
    result keeps its own type (PyTorch's ``get_default_nowrap_functions``)."""
    return getattr(func, "__name__", None) == "__get__" and \
        getattr(func, "__self__", None) is Tensor.__dict__["grad"]


def _convert(result, cls):
    """Give op results the subclass type (PyTorch's ``torch._tensor._convert``)."""
    if cls is Tensor:
        return result
    if isinstance(result, Tensor) and not isinstance(result, cls):
        return result.as_subclass(cls)
    if isinstance(result, (tuple, list)):
        # (torch.return_types named tuples take one sequence too)
        return type(result)([_convert(r, cls) for r in result])
    return result


def make_tensor(data, dtype=None, device=None, requires_grad=False):
    """Wrap a backend array in a Tensor without copying (the one internal constructor).

    Every op result goes through here, so it is kept to slot assignments.
    """
    if data.__class__ is not np.ndarray and isinstance(data, np.generic):
        data = np.asarray(data)     # NumPy returns scalars from ops on 0-d arrays
    t = object.__new__(Tensor)
    t._data = data
    t._dtype = D._FROM_NUMPY[data.dtype] if dtype is None else dtype
    t._device = CPU if device is None else device
    t._requires_grad = requires_grad
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._vc = None
    t._base = None
    t._hooks = None
    t._retains_grad = False
    t._grad_acc = None
    t._is_inference = grad_mode.STATE.inference
    return t


# The dims of a channels-last layout, innermost first: (N, C, H, W) is stored as N, H, W, C.
_INNER_FIRST = {("channels_last", 4): (1, 3, 2, 0), ("channels_last_3d", 5): (1, 4, 3, 2, 0)}


def contiguous_strides(shape):
    """Row-major strides in elements, PyTorch's way (a size-0 dim counts as size 1)."""
    strides = []
    step = 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def wrap_dim(dim, ndim):
    """Normalise a possibly negative dim, raising PyTorch's IndexError when out of range."""
    if not isinstance(dim, int):
        dim = dim.__index__()
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if dim < lo or dim > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but "
                         f"got {dim})")
    if ndim == 0:
        return 0
    return dim + ndim if dim < 0 else dim


class Size(tuple):
    """``torch.Size``: a tuple of ints with PyTorch's repr and ``numel()``."""

    def __new__(cls, sizes=()):
        return tuple.__new__(cls, _size_items(sizes))

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def __getitem__(self, item):
        result = tuple.__getitem__(self, item)
        return Size(result) if isinstance(item, slice) else result

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            "torch.Size")
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __reduce__(self):
        return (Size, (tuple(self),))


def _size_items(sizes):
    items = []
    for i, n in enumerate(sizes):
        if isinstance(n, int):
            items.append(int(n))
            continue
        index = getattr(n, "__index__", None)
        if index is None or isinstance(n, float):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                            f"'{type(n).__name__}')")
        items.append(index())
    return items


def as_device_or_none(d):
    return None if d is None else as_device(d)
