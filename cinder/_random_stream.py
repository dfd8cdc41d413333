"""The MT19937 stream behind PyTorch's CPU generator: seeding (``init_genrand``), tempering, and
bulk draws of raw 32-bit words through NumPy's ``MT19937`` bit generator loaded with PyTorch's
state. The distributions that turn these words into values are in ``_random_engine.py``.
"""

import numpy as np
from numpy.random.bit_generator import ISeedSequence

_MT_N = 624
_CHUNK = 1 << 15  # words per chunk of in-place array work

# =============================================================================================
# MT19937 engine
# =============================================================================================
class _NoSeed(ISeedSequence):
    """A seed sequence that skips NumPy's entropy hashing: every ``_MTStream`` replaces the
    state right away, and hashing 624 words costs far more than building the engine."""

    def generate_state(self, n_words, dtype=np.uint32):
        return np.zeros(n_words, dtype=dtype)


_NO_SEED = _NoSeed()


def _temper(words):
    """Apply MT19937's output tempering to an array of uint32 state words."""
    y = words.astype(np.uint32)
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


class _MTStream:
    """PyTorch's ``at::mt19937`` engine, backed by NumPy's ``MT19937`` bit generator.

    PyTorch describes its position with two counters, ``left`` and ``next``: the next output is
    ``temper(state[next])`` unless ``left`` drops to 0 first, which regenerates the whole
    624-word block. NumPy uses one counter ``pos`` (regenerate when ``pos == 624``). States
    written by PyTorch itself satisfy ``pos == 625 - left == next``, except that a freshly
    seeded engine reports ``left=1, next=0``.

    So that any state PyTorch accepts round-trips exactly, we keep PyTorch's own ``(left,
    next)`` pair in ``_override`` whenever it cannot be read back from NumPy's ``pos``. While
    an override is active, NumPy sits at ``pos=624`` (the block regenerates on its next call)
    and the ``left - 1`` outputs that PyTorch would still produce before regenerating are
    served from ``state[next:]``.
    """

    def __init__(self):
        self._bitgen = np.random.MT19937(_NO_SEED)  # set_torch_state or seed replaces it
        # A Generator over the same engine: its full-range uint32 ``integers`` returns the raw
        # 32-bit outputs (exactly ``random_raw``'s words) without random_raw's uint64 array.
        self._words = np.random.Generator(self._bitgen)
        # A legacy RandomState over the same engine, only for its C ``init_genrand`` seeding.
        self._legacy = np.random.RandomState(self._bitgen)
        self._key = None  # state words while an override is active (None: NumPy's own key)
        self._override = None  # (left, next) while PyTorch's pair differs from NumPy's pos

    # -- state ---------------------------------------------------------------------------------
    def seed(self, seed32):
        """Seed like ``mt19937(seed32)``: ``init_genrand``, and PyTorch's ``left=1, next=0``.

        NumPy's legacy seeding runs the same ``init_genrand`` and leaves ``pos=624`` (the
        block regenerates on the next draw), which is where PyTorch's fresh engine stands.
        """
        self._legacy.seed(int(seed32) & 0xFFFFFFFF)
        self._key, self._override = None, (1, 0)

    def set_torch_state(self, key, left, next_):
        """Load PyTorch's engine fields (``key``: 624 uint32 words)."""
        key = np.asarray(key, dtype=np.uint32).copy()
        if left > 1 and next_ == _MT_N + 1 - left:
            # The usual case: NumPy's pos expresses the same position.
            self._bitgen.state = _numpy_mt_state(key, next_)
            self._key, self._override = None, None
        else:
            self._bitgen.state = _numpy_mt_state(key, _MT_N)
            self._key, self._override = key, (left, next_)

    def _override_key(self):
        """The state words of an active override; after ``seed`` they are NumPy's own words
        (NumPy waits at pos=624 and has not touched them), read only when asked for."""
        if self._key is None:
            self._key = np.asarray(self._bitgen.state["state"]["key"], dtype=np.uint32)
        return self._key

    def torch_state(self):
        """Return ``(key, left, next)`` as PyTorch's engine would report them."""
        if self._override is not None:
            left, next_ = self._override
            return self._override_key().copy(), left, next_
        state = self._bitgen.state["state"]
        pos = int(state["pos"])
        return np.asarray(state["key"], dtype=np.uint32), _MT_N + 1 - pos, pos

    # -- drawing -------------------------------------------------------------------------------
    def next_u32(self, count):
        """Return the next ``count`` 32-bit outputs as a uint32 array."""
        count = int(count)
        if count <= 0:
            return np.empty(0, dtype=np.uint32)
        head = np.empty(0, dtype=np.uint32)
        if self._override is not None:
            left, next_ = self._override
            pending = left - 1  # outputs PyTorch serves before it regenerates the block
            take = min(pending, count)
            if next_ + take > _MT_N:
                raise RuntimeError("mt19937 state reads past the end of its 624 words")
            if take:
                head = _temper(self._override_key()[next_:next_ + take])
            if take < pending:
                self._override = (left - take, next_ + take)
                return head
            # The override is used up; NumPy (at pos=624) regenerates from the same words.
            self._key, self._override = None, None
            count -= take
            if count == 0:
                return head
        raw = self._words.integers(0, 0xFFFFFFFF, size=count, dtype=np.uint32, endpoint=True)
        return raw if head.size == 0 else np.concatenate([head, raw])

    def next_u64(self, count):
        """Return ``count`` values of PyTorch's ``random64()``: ``(first << 32) | second``."""
        # Read each (first, second) pair as one little-endian uint64, i.e. second << 32 |
        # first, and swap its halves.
        pairs = self.next_u32(2 * int(count)).view("<u8")
        for start in range(0, pairs.size, _CHUNK):  # in place, a cache-sized chunk at a time
            part = pairs[start:start + _CHUNK]
            high = part >> np.uint64(32)
            part <<= np.uint64(32)
            part |= high
        return pairs

    def copy(self):
        """Return an independent copy of this stream."""
        other = _MTStream()
        key, left, next_ = self.torch_state()
        other.set_torch_state(key, left, next_)
        return other


def _numpy_mt_state(key, pos):
    """Build the dict NumPy's ``MT19937.state`` setter expects."""
    return {"bit_generator": "MT19937", "state": {"key": key, "pos": int(pos)}}
