"""A restricted unpickler for ``cinder.load(weights_only=True)`` (the default).

Python's ``pickle`` runs whatever callable a file names; a checkpoint from the internet must not
be able to do that. This unpickler interprets the opcodes itself and resolves ``GLOBAL`` names
only from an allowlist: tensors, storages, dtypes, containers and primitives, plus whatever the
user allowed with ``cinder.serialization.add_safe_globals``. Names are looked up as they appear
in the file (``torch._utils._rebuild_tensor_v2``) and mapped to cinder's objects.

It is written to survive hostile input: every read is bounded by the bytes that exist, stack
and memo misuse raise ``UnpicklingError``, and callables that could allocate without limit
(``bytearray(10**12)``) are wrapped.
"""

import _compat_pickle
import codecs
import struct
import warnings
from collections import Counter, OrderedDict
from pickle import UnpicklingError
from . import _dtype as D

__all__ = ["Unpickler", "UnpicklingError", "allowed_globals", "user_globals", "BLOCKED_MODULES"]

BLOCKED_MODULES = ("sys", "os", "posix", "nt")

# Globals added through add_safe_globals / safe_globals: "module.name" -> object.
user_globals = {}

_MAX_BYTEARRAY = 1 << 20


def _bytearray(*args):
    """``bytearray`` restricted to copying data: a size argument could allocate gigabytes."""
    if args and isinstance(args[0], int):
        if args[0] > _MAX_BYTEARRAY:
            raise UnpicklingError(f"bytearray of {args[0]} bytes refused")
    return bytearray(*args)


def _encode(obj, encoding="utf-8", errors="strict"):
    """``_codecs.encode`` as used by protocol 2 to pickle bytes (text codecs only)."""
    if not isinstance(obj, str):
        raise UnpicklingError("_codecs.encode expects a str")
    return codecs.encode(obj, encoding, errors)


def _get_layout(name):
    import cinder
    return getattr(cinder, name.rsplit(".", 1)[-1])


_ALLOWED = None


def allowed_globals():
    """The default allowlist: PyTorch's names for tensor-only content, mapped to cinder."""
    global _ALLOWED
    if _ALLOWED is None:
        _ALLOWED = _build_allowed()
    return _ALLOWED


_NOT_CALLABLE = None


def _allocating_classes():
    """Allowed classes that must never be *called* from a file: their constructors take sizes
    (``torch.FloatStorage(10**12)``, ``torch.Tensor(10**6, 10**6)``) and would allocate."""
    global _NOT_CALLABLE
    if _NOT_CALLABLE is None:
        from . import _legacy
        from ._storage import TypedStorage, UntypedStorage
        from ._tensor import Tensor
        classes = [Tensor, TypedStorage, UntypedStorage, *_legacy.STORAGE_TYPES.values(),
                   *(v for k, v in _legacy.CPU_TYPES.items() if k.endswith("Tensor"))]
        _NOT_CALLABLE = {id(c) for c in classes}
    return _NOT_CALLABLE


def _build_allowed():
    import cinder
    from . import _legacy, _utils
    from ._storage import TypedStorage, UntypedStorage
    from .nn.parameter import Parameter
    rc = {
        "collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter, "torch.serialization._get_layout": _get_layout,
        "torch.Size": cinder.Size, "torch.Tensor": cinder.Tensor, "torch.device": cinder.device,
        "_codecs.encode": _encode, "builtins.bytearray": _bytearray, "builtins.set": set,
        "builtins.complex": complex,
        "torch.storage.TypedStorage": TypedStorage, "torch.storage.UntypedStorage": UntypedStorage,
        "torch.UntypedStorage": UntypedStorage,
        "torch._tensor._rebuild_from_type_v2": _utils._rebuild_from_type_v2,
    }
    for d in D.ALL_DTYPES + D.LIMITED_UINTS:
        rc["torch." + d.name] = d
    for name, cls in _legacy.STORAGE_TYPES.items():
        rc["torch." + name] = cls
        rc["torch.cuda." + name] = cls
    for name, cls in _legacy.CPU_TYPES.items():
        if name.endswith("Tensor"):
            rc["torch." + name] = cls
    for name in ("_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3",
                 "_rebuild_parameter", "_rebuild_parameter_with_state"):
        rc["torch._utils." + name] = getattr(_utils, name)
    return rc


def _map_py2_name(module, name):
    """Python 2 pickles (checkpoints of PyTorch 0.x) say ``__builtin__``; Python 3 says
    ``builtins``."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def unsupported_global_message(full_path):
    if full_path.startswith("builtins."):
        full_path = full_path[len("builtins."):]
    return (f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
            f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist "
            "this global if you trust this class/function.")


def _legacy_tensor_state(tensor, state):
    """BUILD states of PyTorch < 0.4 pickles: a Variable or Parameter carried
    ``(requires_grad, volatile, backward_hooks)``, or five fields with the data first."""
    from ._tensor import Tensor
    if len(state) == 5 and isinstance(state[0], Tensor):
        tensor.data = state[0]
        state = (state[3], state[4], state[2])
    if len(state) != 3 or not isinstance(state[0], bool):
        raise UnpicklingError(f"unsupported tensor state {state!r}")
    tensor.requires_grad_(state[0])


class _Mark:
    """Sentinel separating stack frames (instead of a metastack of lists)."""


class Unpickler:
    """Loads one pickle from ``data`` (bytes) starting at ``pos`` without running any code
    outside the allowlist. ``persistent_load`` must be set by the caller."""

    def __init__(self, data, pos=0, encoding="utf-8"):
        self._data = memoryview(data)
        self.pos = pos
        self.encoding = encoding
        self.persistent_load = None
        self.proto = 2

    def _read(self, n):
        end = self.pos + n
        if end > len(self._data):
            raise UnpicklingError("pickle data was truncated")
        chunk = self._data[self.pos:end]
        self.pos = end
        return chunk

    def _readline(self):
        data = self._data
        end = bytes(data[self.pos:self.pos + 4096]).find(b"\n")
        if end < 0:
            raise UnpicklingError("pickle data was truncated (unterminated GLOBAL name)")
        line = bytes(data[self.pos:self.pos + end])
        self.pos += end + 1
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            raise UnpicklingError("GLOBAL name is not valid UTF-8") from None

    def load(self):
        try:
            return self._run()
        except UnpicklingError:
            raise
        except (IndexError, KeyError, TypeError, ValueError, struct.error, OverflowError,
                AttributeError, UnicodeDecodeError, MemoryError, RecursionError) as e:
            raise UnpicklingError(f"invalid pickle data ({type(e).__name__}: {e})") from None

    def _pop_mark(self):
        stack = self.stack
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is _Mark:
                items = stack[i + 1:]
                del stack[i:]
                return items
        raise UnpicklingError("MARK not found")

    def _pop(self):
        value = self.stack.pop()
        if value is _Mark:
            raise UnpicklingError("unexpected MARK")
        return value

    def _top(self):
        value = self.stack[-1]
        if value is _Mark:
            raise UnpicklingError("unexpected MARK")
        return value

    def _global(self):
        module, name = _map_py2_name(self._readline(), self._readline())
        full_path = f"{module}.{name}"
        if module.split(".")[0] in BLOCKED_MODULES:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module "
                                  f"{module} is blocked.")
        allowed = allowed_globals()
        if full_path in allowed:
            return allowed[full_path]
        if full_path in user_globals:
            return user_globals[full_path]
        raise UnpicklingError(unsupported_global_message(full_path))

    def _is_allowed(self, obj):
        return any(obj is v for v in allowed_globals().values()) or \
            any(obj is v for v in user_globals.values())

    def _reduce(self):
        args = self._pop()
        func = self._top()
        if not self._is_allowed(func) or not isinstance(args, tuple) or \
                id(func) in _allocating_classes():
            raise UnpicklingError(f"Trying to call reduce for unrecognized function {func!r}")
        self.stack[-1] = func(*args)

    def _newobj(self):
        from .nn.parameter import Parameter
        args = self._pop()
        cls = self._pop()
        if not isinstance(args, tuple):
            raise UnpicklingError("NEWOBJ expects a tuple of arguments")
        if cls is Parameter:
            self.stack.append(Parameter(*args))
        elif isinstance(cls, type) and self._is_allowed(cls) and \
                not (args and id(cls) in _allocating_classes()):
            self.stack.append(cls.__new__(cls, *args))
        else:
            raise UnpicklingError("Can only create new object for nn.Parameter or classes "
                                  f"allowlisted via `add_safe_globals` but got {cls!r}")

    def _build(self):
        from ._tensor import Tensor
        state = self._pop()
        inst = self._top()
        if isinstance(inst, Tensor) and isinstance(state, tuple):
            _legacy_tensor_state(inst, state)
            return
        if type(inst) is OrderedDict or isinstance(inst, Tensor):
            if isinstance(state, dict):
                inst.__dict__.update(state)
                return
            raise UnpicklingError(f"BUILD expects a dict state, got {type(state).__name__}")
        if not self._is_allowed(type(inst)):
            raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                  f"allowlisted via `add_safe_globals`, but got {type(inst)}")
        if hasattr(inst, "__setstate__"):
            inst.__setstate__(state)
            return
        slots = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
        if state:
            inst.__dict__.update(state)
        for k, v in (slots or {}).items():
            setattr(inst, k, v)

    def _setitems(self, items):
        target = self._top()
        if type(target) not in (dict, OrderedDict, Counter):
            raise UnpicklingError("Can only SETITEMS for dict, collections.OrderedDict, "
                                  f"collections.Counter, but got {type(target)}")
        if len(items) % 2:
            raise UnpicklingError("SETITEMS needs key/value pairs")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def _append(self, items):
        target = self._top()
        if type(target) is not list:
            raise UnpicklingError(f"Can only extend lists, but got {type(target)}")
        target.extend(items)

    def _persid(self):
        pid = self._pop()
        if type(pid) is tuple:
            kind = pid[0] if pid else None
            if isinstance(kind, bytes):
                kind = kind.decode("ascii", "replace")
            if kind != "storage":
                raise UnpicklingError(f"Only persistent_load of storage is allowed, but got "
                                      f"{kind!r}")
        elif type(pid) is not int:
            raise UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
        if self.persistent_load is None:
            raise UnpicklingError("unsupported persistent id encountered")
        self.stack.append(self.persistent_load(pid))

    def _string(self, n):
        return str(self._read(n), "utf-8", "surrogatepass")

    def _run(self):
        self.stack = []
        self.memo = {}
        stack, memo = self.stack, self.memo
        push = stack.append
        unpack_from = struct.unpack_from
        while True:
            op = self._read(1)[0]
            if op == 0x80:                                   # PROTO
                self.proto = self._read(1)[0]
                if self.proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {self.proto} in the checkpoint, which was not "
                        "the default pickle protocol used by `torch.load` (2). The weights_only "
                        "Unpickler might not support all instructions implemented by this "
                        "protocol, please file an issue for adding support if you encounter "
                        "this.", stacklevel=2)
            elif op == 0x2E:                                 # STOP
                return self._pop()
            elif op == 0x63:                                 # GLOBAL
                push(self._global())
            elif op == 0x52:                                 # REDUCE
                self._reduce()
            elif op == 0x81:                                 # NEWOBJ
                self._newobj()
            elif op == 0x62:                                 # BUILD
                self._build()
            elif op == 0x28:                                 # MARK
                push(_Mark)
            elif op == 0x74:                                 # TUPLE
                push(tuple(self._pop_mark()))
            elif op in (0x85, 0x86, 0x87):                   # TUPLE1/2/3
                n = op - 0x84
                items = tuple(self._pop() for _ in range(n))[::-1]
                push(items)
            elif op == 0x29:                                 # EMPTY_TUPLE
                push(())
            elif op == 0x5D:                                 # EMPTY_LIST
                push([])
            elif op == 0x7D:                                 # EMPTY_DICT
                push({})
            elif op == 0x8F:                                 # EMPTY_SET
                push(set())
            elif op == 0x61:                                 # APPEND
                self._append([self._pop()])
            elif op == 0x65:                                 # APPENDS
                self._append(self._pop_mark())
            elif op == 0x73:                                 # SETITEM
                value = self._pop()
                key = self._pop()
                self._setitems([key, value])
            elif op == 0x75:                                 # SETITEMS
                self._setitems(self._pop_mark())
            elif op == 0x4E:                                 # NONE
                push(None)
            elif op == 0x88:                                 # NEWTRUE
                push(True)
            elif op == 0x89:                                 # NEWFALSE
                push(False)
            elif op == 0x4A:                                 # BININT
                push(unpack_from("<i", self._read(4))[0])
            elif op == 0x4B:                                 # BININT1
                push(self._read(1)[0])
            elif op == 0x4D:                                 # BININT2
                push(unpack_from("<H", self._read(2))[0])
            elif op == 0x8A:                                 # LONG1
                n = self._read(1)[0]
                push(int.from_bytes(self._read(n), "little", signed=True))
            elif op == 0x47:                                 # BINFLOAT
                push(unpack_from(">d", self._read(8))[0])
            elif op == 0x58:                                 # BINUNICODE
                push(self._string(unpack_from("<I", self._read(4))[0]))
            elif op == 0x55:                                 # SHORT_BINSTRING (Python 2 str)
                raw = bytes(self._read(self._read(1)[0]))
                push(raw if self.encoding == "bytes" else raw.decode(self.encoding, "strict"))
            elif op == 0x51:                                 # BINPERSID
                self._persid()
            elif op == 0x68:                                 # BINGET
                push(memo[self._read(1)[0]])
            elif op == 0x6A:                                 # LONG_BINGET
                push(memo[unpack_from("<I", self._read(4))[0]])
            elif op == 0x71:                                 # BINPUT
                memo[self._read(1)[0]] = self._top()
            elif op == 0x72:                                 # LONG_BINPUT
                memo[unpack_from("<I", self._read(4))[0]] = self._top()
            else:                 # as PyTorch: protocol 4's FRAME, MEMOIZE... are refused
                raise UnpicklingError(f"Unsupported operand {op}")
