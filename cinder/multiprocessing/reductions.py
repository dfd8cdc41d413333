"""ForkingPickler reducers: tensors and storages cross process boundaries as shared memory.

Sending a CPU tensor moves its storage to shared memory (once; later sends reuse it) and
pickles a *handle* plus the tensor's dtype, shape, strides and offset. The handle is either a
duplicate of the memory's file descriptor (passed over a Unix socket by ``multiprocessing``'s
resource sharer) or the segment's /dev/shm name, depending on how the memory was made. The
receiver maps the same memory, so no tensor data is copied and both sides see each other's
writes. Receiving the same memory twice gives arrays over one mapping (a per-process cache),
so views sent separately still share their storage.
"""

import array
import contextlib
import os
import socket
import struct
import threading
import weakref
from multiprocessing.reduction import DupFd, ForkingPickler

from .. import _dtype as D
from .. import _shared_memory as shm
from .. import backend
from .._storage import TypedStorage, UntypedStorage, storage_view
from .._tensor import Tensor, make_tensor
from ..nn.parameter import Parameter

# Mapping key -> root array, so one segment is mapped once per process.
_shared_cache = weakref.WeakValueDictionary()


def _fd_key(fd):
    st = os.fstat(fd)
    return ("fd", st.st_dev, st.st_ino)


# ----------------------------------------------------------------------------------------------
# Memory handles
# ----------------------------------------------------------------------------------------------
def _share(root):
    """The Segment under ``root``; the caller has already moved the memory to shared memory."""
    seg = shm.segment_of(root)
    if seg is None:
        raise RuntimeError("internal error: storage is not in shared memory")
    return seg


def _handle(seg):
    """A picklable way for another process to reach ``seg``'s memory."""
    if seg.name is not None:
        shm.add_name_ref(seg.name)          # the message holds a reference until received
        return ("name", seg.name)
    channel = getattr(_sending, "channel", None)
    if channel is not None:
        return channel.send(seg.fd)
    return ("fd", DupFd(seg.fd))


# ----------------------------------------------------------------------------------------------
# Descriptor channels: a faster path for DataLoader workers
# ----------------------------------------------------------------------------------------------
# ``DupFd`` makes the receiver connect to the sender's resource-sharer thread and pass an
# authentication challenge for every descriptor: several round trips between the processes per
# tensor. A forked DataLoader worker instead owns one end of a socket pair made by the main
# process; while the worker pickles a batch (``sending_through``), each descriptor is sent
# ahead on that socket, tagged with a sequence number that the pickle carries, and the main
# process picks it up when it unpickles the batch. Descriptors sent for a message that was
# never delivered are recognised by their older sequence numbers and closed.
_sending = threading.local()
_receivers = {}
_SEQ = struct.Struct("<q")


class _SendChannel:
    def __init__(self, sock, channel_id):
        self.sock, self.channel_id = sock, channel_id
        self.seq = 0

    def send(self, fd):
        self.seq += 1
        try:
            # Never wait: the receiver reads these only while unpickling the message being
            # built, so a batch with more descriptors than the socket buffers would block
            # forever. Those go the slow way instead.
            self.sock.sendmsg([_SEQ.pack(self.seq)],
                              [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))],
                              socket.MSG_DONTWAIT)
        except BlockingIOError:
            return ("fd", DupFd(fd))
        return ("chan", self.channel_id, self.seq)


class _ReceiveChannel:
    def __init__(self, sock):
        self.sock = sock
        self.lock = threading.Lock()

    def take(self, seq):
        """The descriptor sent with ``seq`` (older ones belong to lost messages: closed)."""
        with self.lock:
            while True:
                fds = array.array("i")
                msg, ancdata, _, _ = self.sock.recvmsg(_SEQ.size,
                                                       socket.CMSG_SPACE(fds.itemsize))
                for level, kind, data in ancdata:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
                if len(msg) != _SEQ.size or len(fds) != 1:
                    raise RuntimeError("DataLoader worker sent a malformed shared-memory handle")
                got = _SEQ.unpack(msg)[0]
                if got == seq:
                    return fds[0]
                os.close(fds[0])
                if got > seq:
                    raise RuntimeError("shared-memory handle arrived out of order")


def open_fd_channel(channel_id, sock):
    """Main process: receive descriptors of channel ``channel_id`` on ``sock``."""
    sock.settimeout(30)          # a descriptor is sent before its message: never a long wait
    _receivers[channel_id] = _ReceiveChannel(sock)


def close_fd_channel(channel_id):
    receiver = _receivers.pop(channel_id, None)
    if receiver is not None:
        receiver.sock.close()


@contextlib.contextmanager
def sending_through(sock, channel_id):
    """Worker: within the block, descriptors of pickled tensors go through ``sock``."""
    channel = _sending.__dict__.setdefault("channels", {}).get(channel_id)
    if channel is None:
        channel = _sending.channels[channel_id] = _SendChannel(sock, channel_id)
    _sending.channel = channel
    try:
        yield
    finally:
        _sending.channel = None


def _receive_fd(channel_id, seq):
    receiver = _receivers.get(channel_id)
    if receiver is None:
        raise RuntimeError("the DataLoader that this tensor was sent to is shut down")
    return receiver.take(seq)


def _attach(handle, nbytes):
    """The root byte array for a received handle (mapped once per process)."""
    kind, value = handle[:2]
    if kind == "name":
        root = _shared_cache.get(("name", value))
        if root is None:
            root = shm.attach_name(value, nbytes)
            _shared_cache[("name", value)] = root
        shm.release_name(value)             # the message's reference is handed over
        return root
    fd = _receive_fd(value, handle[2]) if kind == "chan" else value.detach()
    key = _fd_key(fd)
    root = _shared_cache.get(key)
    if root is not None and root.size >= nbytes:
        os.close(fd)
        return root
    root = shm.attach_fd(fd, nbytes)
    _shared_cache[key] = root
    return root


# ----------------------------------------------------------------------------------------------
# Tensors
# ----------------------------------------------------------------------------------------------
def reduce_tensor(tensor):
    """Reduce a tensor for ``ForkingPickler``: shared-memory handle plus its layout."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries.  If you just want to transfer the "
            "data, call detach() on the tensor before serializing (e.g., putting it on the "
            "queue).")
    if tensor.device.type != "cpu" or tensor.numel() == 0:
        # No CUDA IPC here: a CUDA (or empty) tensor travels as a copy of its values.
        return tensor.__reduce_ex__(2)
    tensor.share_memory_()
    root = backend.storage_root(tensor._data)
    meta = (tensor._dtype.name, tuple(tensor.shape), tensor.stride(), tensor.storage_offset())
    return (rebuild_tensor, (type(tensor), _handle(_share(root)), root.nbytes, meta,
                             tensor.requires_grad))


def rebuild_tensor(cls, handle, nbytes, meta, requires_grad):
    dtype_name, shape, strides, offset = meta
    dtype = D.by_name(dtype_name)
    root = _attach(handle, nbytes)
    t = make_tensor(storage_view(root, dtype.numpy_dtype, shape, strides, offset), dtype)
    if cls is Tensor:
        t._requires_grad = bool(requires_grad)
        return t
    if issubclass(cls, Parameter):
        return cls(t, requires_grad)
    t._requires_grad = bool(requires_grad)
    return t


# ----------------------------------------------------------------------------------------------
# Storages
# ----------------------------------------------------------------------------------------------
def reduce_storage(storage):
    """Reduce an UntypedStorage or TypedStorage as a shared-memory handle."""
    if storage.is_cuda:
        raise RuntimeError("Cannot pickle CUDA storage; try pickling a CUDA tensor instead")
    untyped = storage._untyped if isinstance(storage, TypedStorage) else storage
    dtype = storage.dtype.name if isinstance(storage, TypedStorage) else None
    if untyped.nbytes() == 0:
        return (rebuild_storage_empty, (dtype,))
    untyped.share_memory_()
    root = backend.storage_root(untyped._bytes)
    start = backend.data_ptr(untyped._bytes) - backend.data_ptr(root)
    return (rebuild_storage, (_handle(_share(root)), root.nbytes, start, untyped.nbytes(),
                              dtype))


def rebuild_storage(handle, root_nbytes, start, nbytes, dtype):
    root = _attach(handle, root_nbytes)
    untyped = UntypedStorage._wrap(root[start:start + nbytes], UntypedStorage().device)
    if dtype is None:
        return untyped
    return TypedStorage(dtype=D.by_name(dtype), wrap_storage=untyped)


def rebuild_storage_empty(dtype):
    if dtype is None:
        return UntypedStorage()
    return TypedStorage(dtype=D.by_name(dtype))


def init_reductions():
    """Register the reducers with ``multiprocessing``'s ForkingPickler (done on import)."""
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
    for cls in (UntypedStorage, TypedStorage):
        ForkingPickler.register(cls, reduce_storage)
