"""Suite-wide guard: every test starts with grad mode on and inference mode off, in cinder and
in the PyTorch oracle alike.

Some tests deliberately leave a mode switched in both libraries (re-entering one ``no_grad``
instance leaks "off" in PyTorch, and cinder does the same); without the reset, whichever test
xdist happens to run next in that worker would start in that state.

``cudnn_without_tf32`` serves the GPU tests that compare with PyTorch's cuDNN layers.
"""

import pytest
import torch

from cinder.autograd import grad_mode


@pytest.fixture(autouse=True)
def _fresh_grad_modes():
    yield
    state = grad_mode.STATE
    state.grad_enabled, state.inference = True, False
    if not torch.is_grad_enabled():
        torch.set_grad_enabled(True)


@pytest.fixture
def cudnn_without_tf32():
    """PyTorch's cuDNN convolutions and RNNs in full float32 (its default allows TF32 there),
    so GPU results compare with cinder's to float32 rounding."""
    before = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cudnn.allow_tf32 = before
