"""Shared-memory buffers for CPU storages (``share_memory_``, ``is_shared``, worker transfer).

A shared storage is a NumPy byte array laid over a ``MAP_SHARED`` memory mapping, so a forked
child sees the same memory and another process can map it too. Two kinds exist, one per
sharing strategy of ``torch.multiprocessing``:

- ``file_descriptor``: an anonymous ``memfd`` (no name anywhere in the file system). Other
  processes get the memory by receiving a duplicate of the descriptor over a Unix socket.
- ``file_system``: a file in ``/dev/shm`` named ``/cinder_<session>_<pid>_<n>_<random>``,
  where ``session`` is the pid of the program's first process (children inherit it through
  the ``CINDER_SHM_SESSION`` environment variable). Other processes open it by name. A
  reference count in the file's first bytes (updated under ``flock``) says how many holders
  remain; the last one to let go removes the name, and the program's first process removes
  whatever its session still has when it exits, so nothing is left behind.

Moving a tensor's storage here (``Tensor.share_memory_``) copies its bytes once and repoints
the tensor; from then on every process that maps the segment reads and writes the same bytes.
"""

import itertools
import mmap
import os
import secrets
import struct
import weakref

import numpy as np

try:
    import fcntl
except ImportError:     # Windows: cinder imports; sharing memory between processes says why not
    fcntl = None

# Bytes in front of a file_system segment's data: an int64 reference count, padded so the
# data stays 64-byte aligned.
_HEADER = 64
_SHM_DIR = "/dev/shm"
_counter = itertools.count()

_strategy = ["file_descriptor"]

# Children (forked or spawned) inherit the environment, hence the session of their program.
SESSION_VARIABLE = "CINDER_SHM_SESSION"
os.environ.setdefault(SESSION_VARIABLE, str(os.getpid()))


def _sweep_session():
    """At the exit of a program's first process, remove the names its session left behind
    (a message that was sent but never received still holds a reference)."""
    session = os.environ.get(SESSION_VARIABLE)
    if session != str(os.getpid()):
        return
    prefix = f"cinder_{session}_"
    try:
        names = os.listdir(_SHM_DIR)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix):
            try:
                os.unlink(os.path.join(_SHM_DIR, name))
            except OSError:
                pass


def _register_sweep():
    # A multiprocessing finalizer with a negative priority runs at exit after multiprocessing
    # has joined (or terminated) the program's children, so no child still needs a name.
    from multiprocessing import util
    util.Finalize(None, _sweep_session, exitpriority=-1000)


_register_sweep()


def get_sharing_strategy():
    return _strategy[0]


def set_sharing_strategy(new_strategy):
    if new_strategy not in ("file_descriptor", "file_system"):
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}")
    _strategy[0] = new_strategy


class Segment(mmap.mmap):
    """A shared mapping. ``fd`` keeps the memory reachable for sending (file_descriptor);
    ``name`` is the /dev/shm name (file_system), whose reference this mapping holds."""

    fd = None
    name = None
    offset = 0


def _close_fd(fd):
    try:
        os.close(fd)
    except OSError:
        pass


def _map(fd, nbytes, name=None, offset=0):
    seg = Segment(fd, max(nbytes + offset, 1), mmap.MAP_SHARED,
                  mmap.PROT_READ | mmap.PROT_WRITE)
    seg.name = name
    seg.offset = offset
    if name is None:
        seg.fd = fd
        weakref.finalize(seg, _close_fd, fd)
    else:
        os.close(fd)              # mmap keeps its own duplicate; the name reaches the memory
        _hold(name)
        weakref.finalize(seg, _drop, name, os.getpid())
    return seg


def _bytes_of(seg, nbytes):
    return np.frombuffer(seg, dtype=np.uint8, count=nbytes, offset=seg.offset)


# ----------------------------------------------------------------------------------------------
# file_descriptor strategy
# ----------------------------------------------------------------------------------------------
def new_fd_segment(nbytes):
    """A fresh zero-filled anonymous shared buffer of ``nbytes`` bytes (a uint8 array)."""
    _require_posix()
    fd = os.memfd_create("cinder_storage", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, max(nbytes, 1))
    except OSError:
        os.close(fd)
        raise
    return _bytes_of(_map(fd, nbytes), nbytes)


def attach_fd(fd, nbytes):
    """Map a received descriptor (ownership of ``fd`` passes to the mapping)."""
    return _bytes_of(_map(fd, nbytes), nbytes)


# ----------------------------------------------------------------------------------------------
# file_system strategy: named segments with a reference count in their header
# ----------------------------------------------------------------------------------------------
def _require_posix():
    if fcntl is None:
        raise RuntimeError("shared memory between processes needs a POSIX system (memfd, "
                           "/dev/shm and flock); this platform has none of them")


def _path(name):
    return _SHM_DIR + name


def _add_ref(fd, delta):
    """Add ``delta`` to the segment's count under an exclusive lock; returns the new count."""
    _require_posix()
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        count = struct.unpack("<q", os.pread(fd, 8, 0))[0] + delta
        os.pwrite(fd, struct.pack("<q", count), 0)
        return count
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


# Named references this process holds (name -> count). They are given back when their mapping
# dies, and all at once when the process exits (a multiprocessing child ends with os._exit,
# so its mappings are never collected): a dying process leaves no name behind.
_held = {}
_held_pid = [None]


def _hold(name):
    if _held_pid[0] != os.getpid():
        # First reference in this process (a forked child inherits the parent's table, not
        # its references).
        _held.clear()
        _held_pid[0] = os.getpid()
        from multiprocessing import util
        util.Finalize(None, _release_all, exitpriority=-100)
    _held[name] = _held.get(name, 0) + 1


def _drop(name, pid):
    if os.getpid() != pid or _held_pid[0] != pid or not _held.get(name):
        return
    _held[name] -= 1
    if not _held[name]:
        del _held[name]
    release_name(name)


def _release_all():
    if _held_pid[0] != os.getpid():
        return
    for name, count in list(_held.items()):
        for _ in range(count):
            release_name(name)
    _held.clear()


def release_name(name):
    """Drop one reference to a named segment; the last reference removes the name."""
    try:
        fd = os.open(_path(name), os.O_RDWR)
    except OSError:
        return
    try:
        if _add_ref(fd, -1) <= 0:
            os.unlink(_path(name))
    except OSError:
        pass
    finally:
        os.close(fd)


def new_named_segment(nbytes):
    """A fresh zero-filled shared buffer under a new /dev/shm name (count 1: this mapping)."""
    _require_posix()
    session = os.environ.get(SESSION_VARIABLE, "0")
    name = f"/cinder_{session}_{os.getpid()}_{next(_counter)}_{secrets.token_hex(4)}"
    fd = os.open(_path(name), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.ftruncate(fd, _HEADER + max(nbytes, 1))
        os.pwrite(fd, struct.pack("<q", 1), 0)
    except OSError:
        os.close(fd)
        os.unlink(_path(name))
        raise
    return _bytes_of(_map(fd, nbytes, name, _HEADER), nbytes)


def add_name_ref(name):
    """One more reference to ``name`` (held by a message in flight)."""
    fd = os.open(_path(name), os.O_RDWR)
    try:
        _add_ref(fd, 1)
    finally:
        os.close(fd)


def attach_name(name, nbytes):
    """Map the named segment, taking a reference of its own."""
    fd = os.open(_path(name), os.O_RDWR)
    try:
        _add_ref(fd, 1)
    except OSError:
        os.close(fd)
        raise
    return _bytes_of(_map(fd, nbytes, name, _HEADER), nbytes)


# ----------------------------------------------------------------------------------------------
# Questions about arrays
# ----------------------------------------------------------------------------------------------
def segment_of(root):
    """The Segment under a storage's root array, or None when the memory is private."""
    base = root.base if isinstance(root, np.ndarray) else None
    obj = getattr(base, "obj", None)
    return obj if isinstance(obj, Segment) else None


def new_segment(nbytes, strategy=None):
    """A shared buffer made the way the current (or given) sharing strategy makes them."""
    if (strategy or _strategy[0]) == "file_system":
        return new_named_segment(nbytes)
    return new_fd_segment(nbytes)


def share_root(root):
    """A shared copy of the private byte buffer of ``root`` (a storage's root array)."""
    from ._storage import _flat_bytes
    flat = _flat_bytes(root)
    shared = new_segment(flat.size)
    shared[...] = flat
    return shared
