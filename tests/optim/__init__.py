"""Tests of cinder.optim against PyTorch.

PyTorch runs these tiny tensors single-threaded: its thread pool costs far more than the math
here (bfloat16 matrix products in Muon slow down ~1000x with two busy test workers).
"""

import torch

torch.set_num_threads(1)
