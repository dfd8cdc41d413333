"""VGG and AlexNet initial parameters bit for bit against torchvision 0.28.0.

Both models are built after the same seed; their initialisation (``kaiming_normal_`` for the
convolutions, ``normal_(0, 0.01)`` for VGG's linear layers, ``uniform_`` from the layers' own
``reset_parameters`` before that) must draw the same numbers in the same order. VGG-11 holds
133M parameters, so this is also a test that cinder's float32 ``normal_`` stays fast.
"""

import numpy as np
import pytest
import torch

import cinder
from cinder.vision import models as CM


@pytest.mark.parametrize("name", ["vgg11", "alexnet"])
def test_initial_parameters_match_torchvision(tv, name):
    cinder.manual_seed(0)
    ours = getattr(CM, name)().state_dict()
    torch.manual_seed(0)
    theirs = getattr(tv.models, name)().state_dict()
    assert list(ours) == list(theirs)
    for key, expected in theirs.items():
        got = ours[key].numpy()
        assert got.dtype == expected.numpy().dtype and got.shape == tuple(expected.shape)
        assert np.array_equal(got.view(np.uint32), expected.numpy().view(np.uint32)), key
    # Both generators consumed the same number of draws.
    assert cinder.get_rng_state().numpy().tobytes() == torch.get_rng_state().numpy().tobytes()
