"""``cinder.save``/``cinder.load`` in PyTorch's checkpoint formats, and in-process pickling.

Two different things travel through pickle:

* In-process pickling (``pickle.dumps(t)``, ``copy``, multiprocessing): a tensor travels as
  its values, dtype, device and ``requires_grad`` (``reduce_tensor`` below).
* Checkpoints (``save``/``load``): PyTorch's zip format, or its legacy format, so real PyTorch
  loads what cinder saves and the reverse. The pickle inside names PyTorch's globals
  (``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``); each storage's bytes are a
  separate record, written once however many views share it. Loading is restricted to tensors
  and plain data by default (``weights_only=True``), and every defect in a file becomes an
  error that names the file.

The pickling machinery lives in ``_checkpoint_pickle.py``, the zip container in
``_zip_file.py`` and the restricted unpickler in ``_weights_only_unpickler.py``.
"""

import contextlib
import io
import mmap as mmap_module
import os
import pickle
import re
import secrets
import struct
import tempfile
import zlib

try:
    import fcntl
except ImportError:          # Windows
    fcntl = None

import numpy as np

from . import _dtype as D
from . import _weights_only_unpickler as _wo
from . import backend
from ._device import CPU
from ._device import device as device_cls
from ._storage import TypedStorage, UntypedStorage
from ._zip_file import ZipFormatError, ZipReader, ZipWriter
from . import _checkpoint_pickle as cp
from ._checkpoint_pickle import FullUnpickler, cinder_global, torch_name
from ._tensor import make_tensor
from ._utils import STORAGE_DTYPES, _rebuild_tensor
from .nn.parameter import Parameter


def reduce_tensor(t):
    """``Tensor.__reduce_ex__``: values, dtype, device and requires_grad (a non-leaf comes back
    as a leaf that requires grad, its history dropped, as in PyTorch)."""
    values = np.asarray(backend.to_numpy(t._data), order="C")   # keeps 0-d tensors 0-d
    state = dict(t.__dict__)
    state.pop("_hook_acc", None)
    return (rebuild_tensor, (values, t._dtype.name, str(t._device), t._requires_grad,
                             list(t.stride()), state))


def rebuild_tensor(values, dtype_name, device, requires_grad, stride=None, state=None):
    dt = D.by_name(dtype_name)
    arr = np.asarray(values, dtype=dt.numpy_dtype)
    dev = device_cls(device)
    if dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    t = make_tensor(arr, dt, dev)
    t._requires_grad = bool(requires_grad)
    if state:
        t.__dict__.update(state)
    return t


def rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


# ==============================================================================================
# Checkpoints: cinder.save / cinder.load in PyTorch's file formats
# ==============================================================================================
__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "skip_data", "register_package", "location_tag",
           "default_restore_location", "DEFAULT_PROTOCOL", "LoadEndianness",
           "get_default_load_endianness", "set_default_load_endianness",
           "get_default_mmap_options", "set_default_mmap_options"]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_LEGACY_SYS_INFO = {"protocol_version": PROTOCOL_VERSION, "little_endian": True,
                    "type_sizes": {"short": 2, "int": 4, "long": 4}}
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.")


# ----------------------------------------------------------------------------------------------
# Safe globals: what weights_only=True may load beyond tensors and plain data
# ----------------------------------------------------------------------------------------------
_user_entries = []       # what add_safe_globals received, for get_safe_globals


def _register_safe(entry):
    if isinstance(entry, tuple):
        if len(entry) != 2:
            raise ValueError("Expected tuple of length 2 (global, str of callable full path), "
                             f"but got tuple of length: {len(entry)}")
        obj, full = entry
        if not isinstance(full, str):
            raise TypeError("Expected second item in tuple to be str of callable full path, "
                            f"but got: {type(full)}")
        names = [full]
    else:
        obj = entry
        names = [f"{obj.__module__}.{obj.__qualname__}"]
        mapped = torch_name(obj)
        if mapped is not None:           # cinder classes are written under PyTorch's name
            names.append(".".join(mapped))
    for name in names:
        _wo.user_globals[name] = obj
    _user_entries.append(entry)


def add_safe_globals(safe_globals):
    """Allow ``weights_only`` loads to use these classes/functions (trusted ones only).

    Each item is an object, or ``(object, "module.name")`` to give the name the file uses.
    """
    for entry in safe_globals:
        _register_safe(entry)


def get_safe_globals():
    """The objects added with ``add_safe_globals`` (or an active ``safe_globals``)."""
    return list(_user_entries)


def clear_safe_globals():
    """Forget every object added with ``add_safe_globals``."""
    _user_entries.clear()
    _wo.user_globals.clear()


class safe_globals:
    """Context manager: ``add_safe_globals(globals)`` for the duration of a ``with`` block."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._saved = (list(_user_entries), dict(_wo.user_globals))
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        entries, names = self._saved
        _user_entries[:] = entries
        _wo.user_globals.clear()
        _wo.user_globals.update(names)


# ----------------------------------------------------------------------------------------------
# skip_data, load endianness
# ----------------------------------------------------------------------------------------------
_SKIP_DATA = {"active": False}


class skip_data:
    """Context manager: ``save`` writes storage records of the right size without their bytes
    (zeros) and ``load`` leaves storages unfilled (uninitialised), for two-pass workflows."""

    def __init__(self, materialize_fake_tensors=False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        self._previous = _SKIP_DATA["active"]
        _SKIP_DATA["active"] = True
        return self

    def __exit__(self, *exc):
        _SKIP_DATA["active"] = self._previous


class LoadEndianness:
    """Which byte order to assume for checkpoints that do not record one."""
    NATIVE = 1
    LITTLE = 2
    BIG = 3


_LOAD_ENDIANNESS = {"value": None}


def get_default_load_endianness():
    return _LOAD_ENDIANNESS["value"]


def set_default_load_endianness(endianness):
    if endianness is not None and not isinstance(endianness, int):
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _LOAD_ENDIANNESS["value"] = endianness


# ----------------------------------------------------------------------------------------------
# Storage locations: tagging on save, restoring on load (register_package extends both)
# ----------------------------------------------------------------------------------------------
_package_registry = []     # (priority, tagger, deserializer), sorted by priority


def register_package(priority, tagger, deserializer):
    """Teach save/load a storage location: ``tagger(storage)`` returns a location string (or
    None), ``deserializer(storage, location)`` moves a loaded storage there (or returns None).
    Lower ``priority`` is tried first."""
    _package_registry.append((priority, tagger, deserializer))
    _package_registry.sort(key=lambda entry: entry[0])


def _cpu_tag(storage):
    return "cpu" if storage.device.type == "cpu" else None


def _cpu_deserialize(storage, location):
    return storage if location == "cpu" else None


def _cuda_tag(storage):
    dev = storage.device
    return None if dev.type != "cuda" else f"cuda:{dev.index or 0}"


def _cuda_deserialize(storage, location):
    if not location.startswith("cuda"):
        return None
    if not backend.cuda_is_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
            "False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU.")
    dev = device_cls(location)
    index = dev.index or 0
    count = backend.cuda_device_count()
    if index >= count:
        raise RuntimeError(
            f"Attempting to deserialize object on CUDA device {index} but "
            f"torch.cuda.device_count() is {count}. Please use torch.load with map_location to "
            "map your storages to an existing device.")
    dev = device_cls("cuda", index)
    return UntypedStorage._wrap(backend.to_device(storage._bytes, dev), dev)


register_package(10, _cpu_tag, _cpu_deserialize)
register_package(20, _cuda_tag, _cuda_deserialize)


def location_tag(storage):
    """The location string a checkpoint records for ``storage`` ('cpu', 'cuda:0'...)."""
    for _, tagger, _ in _package_registry:
        tag = tagger(storage)
        if tag:
            return tag
    raise RuntimeError(f"don't know how to determine data location of {type(storage)}")


def default_restore_location(storage, location):
    """Move a loaded storage to ``location`` with the first deserializer that accepts it."""
    for _, _, deserializer in _package_registry:
        result = deserializer(storage, location)
        if result is not None:
            return result
    raise RuntimeError("don't know how to restore data location of "
                       f"torch.storage.{type(storage).__name__} (tagged with {location})")


class _DeviceOnly:
    """What taggers see for a storage being saved: its device (the bytes are not needed)."""

    def __init__(self, device):
        self.device = device


def _restorer(map_location):
    """``restore(storage, location)`` implementing every form of ``map_location``."""
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        def restore(storage, location):
            target = map_location.get(location, location)
            return default_restore_location(storage, str(target))
        return restore
    if isinstance(map_location, (str, bytes, device_cls)):
        target = map_location.decode() if isinstance(map_location, bytes) else str(map_location)
        return lambda storage, location: default_restore_location(storage, target)
    if not callable(map_location):
        raise TypeError(f"map_location must be None, a str, a torch.device, a dict or a "
                        f"callable, got {type(map_location).__name__}")

    def restore(storage, location):
        result = map_location(storage, location)
        return default_restore_location(storage, location) if result is None else result
    return restore


def _as_untyped(storage):
    if isinstance(storage, TypedStorage):
        return storage._untyped
    if isinstance(storage, UntypedStorage):
        return storage
    raise RuntimeError(f"map_location returned {type(storage).__name__}, not a storage")


# ----------------------------------------------------------------------------------------------
# save
# ----------------------------------------------------------------------------------------------
def _is_path(f):
    return isinstance(f, (str, os.PathLike))


def _make_pickler(pickle_module, file, protocol, make_key, legacy):
    """A pickler that writes tensors as storages + rebuild calls. With the standard ``pickle``
    module cinder's names are written as PyTorch's; another ``pickle_module`` gets the same
    tensor handling on its own Pickler (its class names stay as they are)."""

    def tag(dev):
        return location_tag(_DeviceOnly(dev))
    if pickle_module is None or pickle_module is pickle:
        return cp.CheckpointPickler(file, protocol, make_key, tag, legacy)
    cls = type("Pickler", (cp.CheckpointMixin, pickle_module.Pickler), {})
    return cls(file, protocol, make_key, tag, legacy)


def _storage_bytes(ref):
    """The bytes of a storage to write: a NumPy uint8 array (zeros under ``skip_data``)."""
    if _SKIP_DATA["active"]:
        return np.zeros(ref.raw.size, np.uint8)
    return backend.to_numpy(ref.raw)


def _save_zip(obj, f, archive_name, pickle_module, protocol, byteorder_record=True):
    data = io.BytesIO()
    pickler = _make_pickler(pickle_module, data, protocol, lambda raw, i: str(i), legacy=False)
    pickler.dump(obj)
    prefix = archive_name + "/"
    writer = ZipWriter(f)
    writer.write_record(prefix + "data.pkl", data.getbuffer())
    writer.write_record(prefix + ".format_version", b"1")
    writer.write_record(prefix + ".storage_alignment", b"64")
    if byteorder_record:
        writer.write_record(prefix + "byteorder", b"little")
    for key, ref in pickler.storages.items():
        writer.write_record(prefix + "data/" + key, _storage_bytes(ref))
    writer.write_record(prefix + "version", b"3\n")
    if not byteorder_record:
        # PyTorch's C++ writer still adds the record at the end when Python skipped it.
        writer.write_record(prefix + "byteorder", b"little")
    writer.write_record(prefix + ".data/serialization_id",
                        str(secrets.randbits(128)).zfill(40).encode())
    writer.write_end()


def _save_legacy(obj, f, pickle_module, protocol):
    """The pre-1.6 format: pickles back to back, then each storage as int64 numel + bytes."""
    dump = (pickle_module or pickle).dump
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, _LEGACY_SYS_INFO):
        dump(header, f, protocol=protocol)

    def make_key(raw, index):
        # PyTorch uses the storage's address; any unique decimal string will do.
        return str(140000000000000 + index)
    pickler = _make_pickler(pickle_module, f, protocol, make_key, legacy=True)
    pickler.dump(obj)
    keys = sorted(pickler.storages)
    dump(keys, f, protocol=protocol)
    for key in keys:
        ref = pickler.storages[key]
        f.write(struct.pack("<q", ref.numel))
        f.write(memoryview(_storage_bytes(ref)))


def _new_file_mode(path):
    """The permissions ``open(path, 'wb')`` would leave: the existing file's, else 0666 less
    the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


# The temporary file of a save to ``ckpt.pt`` is ``.ckpt.pt.<8 random characters>.tmp``, beside
# it. Its writer holds an exclusive ``flock`` on it until the rename, so a lock that can be taken
# means the writer is gone (the kernel drops the locks of a killed process).
_TMP_RANDOM = re.compile(r"[a-z0-9_]{8}")


def _is_temp_of(entry, base):
    """Whether directory entry ``entry`` is a temporary file of a save to ``base``."""
    head, tail = "." + base + ".", ".tmp"
    return (entry.startswith(head) and entry.endswith(tail)
            and len(entry) == len(head) + 8 + len(tail)
            and _TMP_RANDOM.fullmatch(entry[len(head):-len(tail)]) is not None)


def _remove_abandoned_temps(parent, base):
    """Delete the temporary files that earlier saves to ``base`` in ``parent`` left behind when
    their process died mid-save; files whose writer is still at work are locked and stay."""
    if fcntl is None:            # no flock (Windows): nothing tells a live writer from a dead one
        return
    try:
        entries = os.listdir(parent or ".")
    except OSError:
        return
    for entry in entries:
        if not _is_temp_of(entry, base):
            continue
        name = os.path.join(parent, entry)
        try:
            fd = os.open(name, os.O_RDONLY)
        except OSError:
            continue                                   # renamed or removed meanwhile
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # The name must still be the file we locked (names are never reused, but a
            # writer may have renamed it into place just before we opened it).
            if os.path.samestat(os.fstat(fd), os.stat(name)):
                os.unlink(name)
        except OSError:
            pass                                       # locked: a live save; or already gone
        finally:
            os.close(fd)


def _locked_temp(parent, base):
    """Create and lock a fresh temporary file for a save to ``base``: (fd, path)."""
    while True:
        fd, tmp = tempfile.mkstemp(prefix="." + base + ".", suffix=".tmp", dir=parent or ".")
        if fcntl is None:
            return fd, tmp
        fcntl.flock(fd, fcntl.LOCK_EX)
        # Between mkstemp and flock another save's cleanup may have taken the unlocked file
        # for an abandoned one and deleted it: then start over with a new name.
        try:
            if os.path.samestat(os.fstat(fd), os.stat(tmp)):
                return fd, tmp
        except OSError:
            pass
        os.close(fd)


def _atomic_save(path, write):
    """Write through ``write(file)`` into a temporary file beside ``path``, flush it to disk,
    then rename it over ``path``: a crash at any point leaves the old file as it was.

    A process killed mid-save leaves its temporary file behind; the next save to the same path
    removes it (and any other abandoned one), so such files never pile up.
    """
    path = os.fspath(path)
    parent = os.path.dirname(path)
    if parent and not os.path.isdir(parent):
        raise RuntimeError(f"Parent directory {parent} does not exist.")
    if os.path.islink(path):               # write the file the link points to, as open() would
        path = os.path.realpath(path)
        parent = os.path.dirname(path)
    base = os.path.basename(path)
    _remove_abandoned_temps(parent, base)
    fd, tmp = _locked_temp(parent, base)
    f = os.fdopen(fd, "wb")
    try:
        try:
            write(f)
            f.flush()
            os.fsync(f.fileno())
            if fcntl is None:
                f.close()                  # Windows renames no open file (and has no lock)
            os.chmod(tmp, _new_file_mode(path))   # mkstemp makes 0600; a plain open would not
            os.replace(tmp, path)
        finally:
            f.close()                      # drops the lock, after the rename
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):       # make the rename itself durable
        dir_fd = os.open(parent or ".", os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Save ``obj`` (tensors, state_dicts, containers, whole modules) to ``f`` in PyTorch's
    checkpoint format, which ``torch.load`` reads.

    ``f`` is a path (str or ``os.PathLike``; written atomically through a temporary file) or a
    writable binary file object. Each storage is stored once however many tensors view it.
    ``_use_new_zipfile_serialization=False`` writes the legacy (pre-1.6) format.
    """
    def write(fileobj):
        if _use_new_zipfile_serialization:
            name = "archive"
            if _is_path(f):
                name = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
            _save_zip(obj, fileobj, name, pickle_module, pickle_protocol,
                      byteorder_record=not _disable_byteorder_record)
        else:
            _save_legacy(obj, fileobj, pickle_module, pickle_protocol)

    if _is_path(f):
        _atomic_save(f, write)
    else:
        write(f)


# ----------------------------------------------------------------------------------------------
# load: opening the source, and errors that name it
# ----------------------------------------------------------------------------------------------
class _TruncatedError(pickle.UnpicklingError, EOFError):
    """A file that ends too early: an UnpicklingError, and an EOFError as PyTorch raises."""


class _Source:
    """The file being loaded: a seekable binary file object, its length and a display name."""

    def __init__(self, f):
        self.path = os.fspath(f) if _is_path(f) else None
        self._owned = None
        if self.path is not None:
            self.name = repr(self.path)
            self._owned = self.file = open(self.path, "rb")
        else:
            name = getattr(f, "name", None)
            self.name = repr(name) if isinstance(name, str) else f"<{type(f).__name__} object>"
            self.file = f
            seekable = getattr(f, "seekable", lambda: False)()
            if not seekable or f.tell() != 0:
                # Offsets inside an archive are counted from its start: read what is left.
                self.file = io.BytesIO(f.read())
        self.file.seek(0, os.SEEK_END)
        self.length = self.file.tell()
        self.file.seek(0)

    def is_zip(self):
        self.file.seek(0)
        head = self.file.read(4)
        self.file.seek(0)
        return head == b"PK\x03\x04"

    def read_all(self):
        self.file.seek(0)
        return self.file.read()

    def close(self):
        if self._owned is not None:
            self._owned.close()


_DOCS_MESSAGE = ("\n\nCheck the documentation of torch.load to learn more about types accepted "
                 "by default with weights_only "
                 "https://pytorch.org/docs/stable/generated/torch.load.html.")


def _weights_only_message(message):
    """PyTorch's advice around an error of the restricted unpickler."""
    if "was not an allowed global by default" in message:
        text = ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the checkpoint"
                f"\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
                "`weights_only=True` please check the recommended steps in the following error "
                f"message.\n\tWeightsUnpickler error: {message}")
    else:
        text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if "is blocked" not in message:
            text += ("Please file an issue with the following so that we can make `weights_only="
                     "True` compatible with your use case: WeightsUnpickler error: ")
        text += "\n\n" + message
    return text + _DOCS_MESSAGE


# Errors that mean "this file is broken" when they escape from the zip/pickle machinery.
_DATA_ERRORS = (KeyError, IndexError, TypeError, ValueError, struct.error, OverflowError,
                AttributeError, UnicodeDecodeError, MemoryError, RecursionError, zlib.error)


def _named_error(exc, name, weights_only):
    """The error to raise for ``exc`` raised while loading the file called ``name``."""
    where = f" (while loading {name})"
    if isinstance(exc, ZipFormatError):
        return RuntimeError(f"PytorchStreamReader failed reading zip archive: {exc}{where}")
    if isinstance(exc, EOFError) and not isinstance(exc, pickle.UnpicklingError):
        return _TruncatedError(f"Ran out of input: the file ended early{where}")
    if isinstance(exc, pickle.UnpicklingError):
        message = str(exc)
        if weights_only:
            message = _weights_only_message(message)
        return type(exc)(message + "\n" + where.strip())
    if isinstance(exc, RuntimeError):
        return RuntimeError(f"{exc}{where}")
    return pickle.UnpicklingError(f"invalid checkpoint data ({type(exc).__name__}: {exc})"
                                  f"{where}")


# ----------------------------------------------------------------------------------------------
# load: storages
# ----------------------------------------------------------------------------------------------
def _storage_dtype(storage_type):
    dtype = getattr(storage_type, "_storage_dtype", None)
    if dtype is None:
        dtype = STORAGE_DTYPES.get(getattr(storage_type, "__name__", None))
    if dtype is None:
        raise RuntimeError(f"invalid checkpoint: unknown storage type {storage_type!r}")
    return dtype


def _check_storage_id(saved_id, fields):
    """Validate a ``('storage', type, key, location, numel[, view])`` persistent id."""
    if not isinstance(saved_id, tuple) or len(saved_id) not in fields:
        raise RuntimeError(f"invalid checkpoint: bad storage id {saved_id!r}")
    kind = saved_id[0].decode("ascii", "replace") if isinstance(saved_id[0], bytes) \
        else saved_id[0]
    if kind != "storage":
        raise RuntimeError(f"invalid checkpoint: unknown persistent id kind {kind!r}")
    key, location, numel = saved_id[2], saved_id[3], saved_id[4]
    key = key.decode("ascii", "replace") if isinstance(key, bytes) else key
    if not isinstance(key, str) or not key or not key.isalnum():
        # Keys name records inside the archive; refuse anything like a path ("../x").
        raise RuntimeError(f"invalid checkpoint: bad storage key {key!r}")
    if isinstance(location, bytes):
        location = location.decode("ascii", "replace")
    if not isinstance(location, str):
        raise RuntimeError(f"invalid checkpoint: bad storage location {location!r}")
    if not isinstance(numel, int) or isinstance(numel, bool) or numel < 0:
        raise RuntimeError(f"invalid checkpoint: bad storage size {numel!r}")
    return _storage_dtype(saved_id[1]), key, location, numel


def _typed(storage, dtype):
    return TypedStorage(dtype=dtype, wrap_storage=storage)


class _ZipStorages:
    """``persistent_load`` for zip checkpoints: reads (or maps) each ``data/<key>`` record once
    and hands the same storage to every tensor that views it."""

    def __init__(self, reader, prefix, restore, mapped=None, byteswap=False):
        self._reader, self._prefix, self._restore = reader, prefix, restore
        self._mapped = mapped              # the whole file as a uint8 array, for mmap=True
        self._byteswap = byteswap
        self._loaded = {}
        self._checks = []                  # CRC checks running while later records are read

    def __call__(self, saved_id):
        dtype, key, location, numel = _check_storage_id(saved_id, (5,))
        if key in self._loaded:
            return _typed(self._loaded[key], dtype)
        record = self._prefix + "data/" + key
        if not self._reader.has_record(record):
            raise RuntimeError(f"invalid checkpoint: record {record} is missing")
        nbytes = numel * dtype.itemsize
        size = self._reader.record_size(record)
        if size != nbytes:
            # Checked before allocating: a declared size cannot exceed what the file holds.
            raise RuntimeError(f"invalid checkpoint: record {record} holds {size} bytes but "
                               f"its storage needs {nbytes}")
        raw = self._read(record, nbytes)
        if self._byteswap and dtype.itemsize > 1:
            self.verify()                  # the checksum is over the bytes as stored
            raw.view(dtype.numpy_dtype).byteswap(inplace=True)
        storage = _as_untyped(self._restore(UntypedStorage._wrap(raw, CPU), location))
        self._loaded[key] = storage
        return _typed(storage, dtype)

    def _read(self, record, nbytes):
        if self._mapped is not None:
            start = self._reader.data_offset(record)
            # Through a memoryview, so the storage is this record, not the whole mapped file.
            return np.frombuffer(memoryview(self._mapped[start:start + nbytes]), np.uint8)
        if _SKIP_DATA["active"]:
            return np.empty(nbytes, np.uint8)
        raw = self._reader.read_record_unchecked(record, out=np.empty(nbytes, np.uint8))
        self._checks.append(self._reader.crc_check(record, raw))
        return raw

    def verify(self):
        """Finish the CRC checks of every storage read (raises on a corrupt record)."""
        for check in self._checks:
            check()
        self._checks.clear()


class _LegacyStorages:
    """``persistent_load`` for legacy checkpoints: storages are created empty while unpickling
    and filled afterwards from the records that follow the pickles."""

    def __init__(self, restore, budget):
        self._restore = restore
        self._budget = budget              # bytes the file can fill; more is a lie
        self._roots = {}                   # key -> (dtype, untyped storage)

    def __call__(self, saved_id):
        if isinstance(saved_id, tuple) and saved_id and saved_id[0] in ("module", b"module"):
            return saved_id[1]             # very old files pickle module classes this way
        dtype, key, location, numel = _check_storage_id(saved_id, (5, 6))
        view = saved_id[5] if len(saved_id) == 6 else None
        root = self._root(key, dtype, numel, location)
        if view is None:
            return _typed(root, dtype)
        if not (isinstance(view, tuple) and len(view) == 3):
            raise RuntimeError(f"invalid checkpoint: bad storage view {view!r}")
        _, offset, size = view
        if not all(isinstance(v, int) for v in (offset, size)) or offset < 0 or size < 0 \
                or offset + size > numel:
            raise RuntimeError(f"invalid checkpoint: storage view {view!r} out of bounds")
        item = dtype.itemsize
        return _typed(UntypedStorage._wrap(root._bytes[offset * item:(offset + size) * item],
                                           root.device), dtype)

    def _root(self, key, dtype, numel, location):
        if key in self._roots:
            return self._roots[key][1]
        nbytes = numel * dtype.itemsize
        if nbytes > self._budget:
            raise RuntimeError(f"invalid checkpoint: storage {key} declares {nbytes} bytes, "
                               "more than the file holds")
        self._budget -= nbytes
        raw = np.zeros(nbytes, np.uint8)
        storage = _as_untyped(self._restore(UntypedStorage._wrap(raw, CPU), location))
        self._roots[key] = (dtype, storage)
        return storage

    def fill(self, keys, data, offset):
        """Copy each storage's bytes (int64 element count, then the bytes) into place."""
        if not isinstance(keys, list):
            raise RuntimeError("invalid checkpoint: the storage key list is missing")
        for key in keys:
            key = key.decode("ascii", "replace") if isinstance(key, bytes) else key
            if key not in self._roots:
                raise RuntimeError(f"invalid checkpoint: storage {key!r} was never declared")
            dtype, storage = self._roots[key]
            if offset + 8 > len(data):
                raise _TruncatedError("the file ends before the data of storage " + key)
            (count,) = struct.unpack_from("<q", data, offset)
            nbytes = storage.nbytes()
            if count * dtype.itemsize != nbytes:
                raise RuntimeError(f"storage has wrong byte size: expected {nbytes} got "
                                   f"{count * dtype.itemsize}")
            offset += 8
            if offset + nbytes > len(data):
                raise _TruncatedError("the file ends inside the data of storage " + key)
            chunk = np.frombuffer(data, np.uint8, nbytes, offset)
            storage._bytes[...] = backend.to_device(chunk, storage.device)
            offset += nbytes


# ----------------------------------------------------------------------------------------------
# load: the two formats
# ----------------------------------------------------------------------------------------------
def _unpickle(data, pos, persistent_load, weights_only, pickle_module, load_args):
    """Run one pickle starting at ``pos`` of ``data``; returns (object, position after it)."""
    if weights_only:
        unpickler = _wo.Unpickler(data, pos, encoding=load_args.get("encoding", "utf-8"))
        unpickler.persistent_load = persistent_load
        return unpickler.load(), unpickler.pos
    stream = io.BytesIO(data)
    stream.seek(pos)
    if pickle_module is None or pickle_module is pickle:
        unpickler = FullUnpickler(stream, **load_args)
    else:
        class Unpickler(pickle_module.Unpickler):
            def find_class(self, module, name):
                found = cinder_global(module, name)
                return found if found is not None else super().find_class(module, name)
        unpickler = Unpickler(stream, **load_args)
    if persistent_load is not None:
        unpickler.persistent_load = persistent_load
    return unpickler.load(), stream.tell()


def _load_zip(source, restore, weights_only, pickle_module, mmap, load_args):
    reader = ZipReader(source.file, source.length)
    first = reader.names()[0]
    if "/" not in first:
        raise ZipFormatError(f"record {first!r} is not inside an archive folder")
    prefix = first.split("/", 1)[0] + "/"
    if not reader.has_record(prefix + "data.pkl"):
        raise ZipFormatError(f"file not found: {prefix}data.pkl")
    byteswap = False
    if reader.has_record(prefix + "byteorder"):
        order = reader.read_record(prefix + "byteorder")
        if order not in (b"little", b"big"):
            raise RuntimeError(f"invalid checkpoint: unknown byte order {bytes(order)[:16]!r}")
        byteswap = order == b"big"
    elif get_default_load_endianness() == LoadEndianness.BIG:
        byteswap = True
    mapped = None
    if mmap:
        mapped = _map_file(source)
    storages = _ZipStorages(reader, prefix, restore, mapped, byteswap)
    data = reader.read_record(prefix + "data.pkl")
    result = _unpickle(data, 0, storages, weights_only, pickle_module, load_args)[0]
    storages.verify()
    return result


_MMAP_FLAGS = {"flags": mmap_module.MAP_PRIVATE}


def get_default_mmap_options():
    """The flags ``load(mmap=True)`` maps files with: ``mmap.MAP_PRIVATE`` (the default) or
    ``mmap.MAP_SHARED``."""
    return _MMAP_FLAGS["flags"]


class set_default_mmap_options:
    """Set the mmap flags for ``load(mmap=True)``; also usable as a context manager.

    With ``mmap.MAP_SHARED``, writes to loaded tensors go to the file itself.
    """

    def __init__(self, flags):
        if flags not in (mmap_module.MAP_PRIVATE, mmap_module.MAP_SHARED):
            raise ValueError("Invalid argument in function set_default_mmap_options, expected "
                             f"mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}")
        self._previous = _MMAP_FLAGS["flags"]
        _MMAP_FLAGS["flags"] = flags

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _MMAP_FLAGS["flags"] = self._previous


def _map_file(source):
    """The file as a uint8 array over a memory map: tensors loaded with ``mmap=True`` read
    from the page cache. Under MAP_PRIVATE (the default) writes to them stay private."""
    flags = get_default_mmap_options()
    if flags == mmap_module.MAP_SHARED:
        with open(source.path, "r+b") as f:
            mapping = mmap_module.mmap(f.fileno(), 0, flags=flags)
    else:
        mapping = mmap_module.mmap(source.file.fileno(), 0, flags=flags,
                                   prot=mmap_module.PROT_READ | mmap_module.PROT_WRITE)
    return np.frombuffer(mapping, np.uint8)


def _load_legacy(source, restore, weights_only, pickle_module, load_args):
    data = source.read_all()
    if not data:
        raise _TruncatedError("Ran out of input: the file is empty")

    def next_pickle(pos, persistent_load=None):
        return _unpickle(data, pos, persistent_load, weights_only, pickle_module, load_args)
    magic, pos = next_pickle(0)
    if magic != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol_version, pos = next_pickle(pos)
    if protocol_version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol_version}")
    sys_info, pos = next_pickle(pos)
    if not isinstance(sys_info, dict) or not sys_info.get("little_endian", True):
        raise RuntimeError("Loading big-endian legacy checkpoints is not supported")
    storages = _LegacyStorages(restore, budget=len(data))
    result, pos = next_pickle(pos, storages)
    keys, pos = next_pickle(pos)
    storages.fill(keys, data, pos)
    return result


def _is_tar(source):
    import tarfile
    source.file.seek(0)
    try:
        return tarfile.is_tarfile(source.file)
    except (OSError, ValueError):
        return False
    finally:
        source.file.seek(0)


class _Cursor:
    """Reads fixed-size fields and pickles from one member of a tar checkpoint, in bounds."""

    def __init__(self, data, weights_only, pickle_module, load_args):
        self.data, self.pos = data, 0
        self._args = (weights_only, pickle_module, load_args)

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            raise _TruncatedError("a tar checkpoint member ends early")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))

    def pickle(self, persistent_load=None):
        obj, self.pos = _unpickle(self.data, self.pos, persistent_load, *self._args)
        return obj


def _load_tar(source, restore, pickle_module, load_args):
    """PyTorch 0.1's format: a tar of 'storages', 'tensors' and 'pickle' members. Members are
    read into memory (never extracted to disk) and every size is checked against them."""
    import tarfile
    with tarfile.open(fileobj=source.file, mode="r:") as tar:
        def member(name):
            try:
                return tar.extractfile(name).read()
            except (KeyError, AttributeError):
                raise RuntimeError(f"invalid checkpoint: tar member {name!r} missing") from None
        objects = {}
        cur = _Cursor(member("storages"), False, pickle_module, load_args)
        for _ in range(cur.pickle()):
            key, location, storage_type = cur.pickle()
            dtype = _storage_dtype(storage_type)
            (numel,) = cur.unpack("<q")
            raw = np.frombuffer(cur.take(numel * dtype.itemsize), np.uint8).copy()
            storage = _as_untyped(restore(UntypedStorage._wrap(raw, CPU), location))
            objects[key] = _typed(storage, dtype)
        for target, root_key, offset, numel in cur.pickle():
            root = objects[root_key]
            item = root.dtype.itemsize
            objects[target] = _typed(UntypedStorage._wrap(
                root._untyped._bytes[offset * item:(offset + numel) * item], root.device),
                root.dtype)
        cur = _Cursor(member("tensors"), False, pickle_module, load_args)
        for _ in range(cur.pickle()):
            key, storage_id, _ = cur.pickle()
            (ndim,) = cur.unpack("<i")
            cur.take(4)                        # ndim was once written as 8 bytes
            size = cur.unpack(f"<{ndim}q")
            stride = cur.unpack(f"<{ndim}q")
            (offset,) = cur.unpack("<q")
            objects[key] = _rebuild_tensor(objects[storage_id], offset, size, stride)

        def persistent_load(saved_id):
            return saved_id[0] if isinstance(saved_id, tuple) else objects[int(saved_id)]
        return _Cursor(member("pickle"), False, pickle_module, load_args).pickle(
            persistent_load)


def _resolve_weights_only(weights_only, pickle_module):
    forced_on = os.environ.get("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in \
        ("1", "y", "yes", "true")
    forced_off = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in \
        ("1", "y", "yes", "true")
    if forced_on:
        return True
    if weights_only is None:
        return False if forced_off else pickle_module is None
    return bool(weights_only)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved with ``cinder.save`` or ``torch.save`` (zip or legacy format).

    ``map_location`` moves storages: a str or device, a dict of location tags, or a callable
    ``fn(storage, location)``. ``weights_only=True`` (the default unless a ``pickle_module``
    is given) loads only tensors, containers, primitives and allowlisted globals, so no code
    in the file can run. ``mmap=True`` maps the file instead of reading it (paths only).
    A broken file raises RuntimeError or UnpicklingError naming the file.
    """
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    if "encoding" not in pickle_load_args:
        pickle_load_args["encoding"] = "utf-8"
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    restore = _restorer(map_location)
    source = _Source(f)
    try:
        if source.is_zip():
            return _load_zip(source, restore, weights_only, pickle_module, mmap,
                             pickle_load_args)
        if mmap:
            shown = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError("mmap can only be used with files saved with `torch.save("
                               f"{shown}_use_new_zipfile_serialization=True), please torch.save "
                               "your checkpoint with this option in order to use mmap.")
        if _is_tar(source):
            if weights_only:
                raise RuntimeError("Cannot use ``weights_only=True`` with files saved in the "
                                   "legacy .tar format. " + UNSAFE_MESSAGE)
            return _load_tar(source, restore, pickle_module, pickle_load_args)
        return _load_legacy(source, restore, weights_only, pickle_module, pickle_load_args)
    except (ZipFormatError, pickle.UnpicklingError, EOFError, RuntimeError) as e:
        raise _named_error(e, source.name, weights_only) from None
    except _DATA_ERRORS as e:
        if not weights_only and not isinstance(e, (KeyError, IndexError, struct.error,
                                                   UnicodeDecodeError)):
            raise
        raise _named_error(e, source.name, weights_only) from None
    finally:
        source.close()
