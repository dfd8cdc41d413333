"""``torch.random``: the Generator class, the default generator and global seeding helpers."""

import contextlib

import numpy as np

from . import _dtype as D
from ._device import as_device
from ._random_engine import CPUGeneratorImpl
from ._tensor import Tensor, make_tensor

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "fork_rng", "thread_safe_generator"]


class Generator:
    """A random number generator (PyTorch's CPU MT19937 generator, reproduced exactly)."""

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        self._impl = CPUGeneratorImpl()

    def manual_seed(self, seed):
        """Seed the generator; returns the generator."""
        if not isinstance(seed, int):
            try:
                seed = int(seed)     # a non-numeric string raises int()'s ValueError, as in torch
            except TypeError:
                raise TypeError(f"manual_seed expected a long, but got {type(seed).__name__}") \
                    from None
        self._impl.manual_seed(seed)
        return self

    def seed(self):
        """Seed from a non-deterministic source and return that seed."""
        return self._impl.seed()

    def initial_seed(self):
        return self._impl.initial_seed()

    def get_state(self):
        """The state as a uint8 tensor of 5056 bytes (PyTorch's layout)."""
        return make_tensor(np.frombuffer(bytearray(self._impl.get_state()), dtype=np.uint8))

    def set_state(self, new_state):
        """Restore a state from ``get_state()`` (of cinder or of PyTorch)."""
        if not isinstance(new_state, Tensor) or new_state.dtype is not D.uint8:
            got = new_state.type() if isinstance(new_state, Tensor) else \
                type(new_state).__name__
            raise TypeError(f"expected a torch.ByteTensor, but got {got}")
        self._impl.set_state(np.ascontiguousarray(new_state.numpy()).tobytes())
        return self

    def clone_state(self):
        g = Generator(self.device)
        g._impl = self._impl.clone()
        return g

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"


default_generator = Generator()


def manual_seed(seed):
    """Seed the default generator (and CUDA's, which shares it here); returns the generator."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor (loadable by ``torch.set_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Inside the block draw freely; afterwards the default generator's state is restored."""
    if not enabled:
        yield
        return
    state = default_generator._impl.clone()
    try:
        yield
    finally:
        default_generator._impl.copy_from(state)


def thread_safe_generator():
    """The generator a DataLoader *thread* worker keeps for itself (draw from it instead of the
    shared default generator), or None elsewhere (the main process, worker processes), where
    ops taking ``generator=None`` use the default one. cinder's workers are processes, so this
    is None everywhere, as in PyTorch for them."""
    from .utils.data import get_worker_info     # (a layer above: looked up when called)
    info = get_worker_info()
    if info is not None and info.worker_method == "thread" and info.rng is not None:
        return info.rng.torch_generator
    return None
