"""Seeding (``manual_seed``, fresh generators) against PyTorch: the 5056-byte state right after
seeding, after a draw, and the normal cache that seeding clears. Seeding runs NumPy's C
``init_genrand`` (``cinder/_random_stream.py``), so these pin it to PyTorch's."""

import numpy as np
import pytest
import torch

import cinder

SEEDS = [0, 1, 5489, 2**31, 2**32 - 1, 2**32, 2**32 + 7, 2**63 + 12345, 2**64 - 1, -1, -(2**40)]


def _state(gen):
    return bytes(gen.get_state().numpy())


@pytest.mark.parametrize("seed", SEEDS)
def test_manual_seed_state_matches_torch(seed):
    ours = cinder.Generator().manual_seed(seed)
    theirs = torch.Generator().manual_seed(seed)
    assert ours.initial_seed() == theirs.initial_seed()
    assert _state(ours) == _state(theirs)
    np.testing.assert_array_equal(cinder.rand(5, generator=ours).numpy(),
                                  torch.rand(5, generator=theirs).numpy())
    assert _state(ours) == _state(theirs)


def test_fresh_generator_matches_torch():
    assert _state(cinder.Generator()) == _state(torch.Generator())
    ours, theirs = cinder.Generator(), torch.Generator()
    np.testing.assert_array_equal(cinder.randperm(50, generator=ours).numpy(),
                                  torch.randperm(50, generator=theirs).numpy())


def test_reseeding_clears_the_normal_cache():
    # One double normal leaves the second Box-Muller value cached; seeding must drop it.
    for lib in (cinder, torch):
        lib.manual_seed(3)
    cinder.randn(1, dtype=cinder.float64)
    torch.randn(1, dtype=torch.float64)
    assert _state(cinder.default_generator) == _state(torch.default_generator)
    cinder.manual_seed(4)
    torch.manual_seed(4)
    assert _state(cinder.default_generator) == _state(torch.default_generator)
    np.testing.assert_array_equal(cinder.randn(3, dtype=cinder.float64).numpy(),
                                  torch.randn(3, dtype=torch.float64).numpy())


def test_seeded_state_round_trips_through_set_state():
    ours = cinder.Generator().manual_seed(99)
    copy = cinder.Generator()
    copy.set_state(ours.get_state())
    np.testing.assert_array_equal(cinder.rand(700, generator=ours).numpy(),
                                  cinder.rand(700, generator=copy).numpy())
