"""Every op in cinder's op table (``cinder.ops.OPS``) is tested: it has an entry in the op
database (``tests/op_db``) that ``tests/test_ops.py`` runs against PyTorch, or it is listed in
``TESTED_ELSEWHERE`` with the test file that covers it (and that file really mentions it)."""

import importlib
import pkgutil
from pathlib import Path

import torch
import op_db
from test_function_forms import INPLACE_FUNCTIONS

import cinder
from cinder.ops import OPS

TESTS = Path(__file__).parent

# Every family file in tests/op_db (one per cinder/ops family) contributes its ENTRIES.
DB_NAMES = {e.name for info in pkgutil.iter_modules(op_db.__path__)
            for e in getattr(importlib.import_module(f"op_db.{info.name}"), "ENTRIES", ())}

_VIEWS = ("as_strided", "broadcast_to", "chunk", "diagonal", "expand", "flatten", "movedim",
          "narrow", "permute", "reshape", "select", "split", "split_with_sizes", "squeeze",
          "t", "tensor_split", "transpose", "unbind", "unflatten", "unfold", "unsqueeze",
          "view", "real", "imag", "view_as", "reshape_as", "expand_as")
# (the view aliases swapaxes / swapdims / moveaxis have op_db entries: see op_db/shape.py)
_INDEXING = ("gather", "index_put", "index_select", "masked_fill", "masked_select", "nonzero",
             "scatter", "scatter_add")
_RANDOM = ("bernoulli", "multinomial", "normal", "rand", "rand_like", "randint", "randint_like",
           "randn", "randn_like", "randperm", "uniform_", "normal_", "bernoulli_",
           "exponential_", "random_")

# nn layer kernels (cinder/ops/nn: conv, pool, norm, pad, upsample, embedding)
_NN_LAYERS = ("convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "conv_tbc", "im2col", "col2im", "max_pool1d", "max_pool2d",
              "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
              "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d",
              "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
              "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool",
              "native_batch_norm", "batch_norm", "native_layer_norm", "layer_norm", "rms_norm",
              "native_group_norm", "group_norm", "constant_pad_nd", "index_pad", "embedding",
              "embedding_renorm_", "resample", "pixel_shuffle", "pixel_unshuffle",
              "fractional_max_pool")

# torch.linalg and the legacy matrix names: decompositions are compared through invariants
# (reconstructions, |vectors|), which the generic runners cannot do
_LINALG = ("cholesky", "lu", "lu_solve", "lu_unpack", "orgqr", "qr", "svd")
# (the torch.linalg functions themselves have op_db entries: tests/op_db/linalg_module.py)

# op name -> the test file that covers it (views and indexing have their own engineers' tests;
# random sampling is compared bit for bit in test_random_ops.py)
TESTED_ELSEWHERE = {
    **{name: "test_views.py" for name in _VIEWS},
    **{name: "test_indexing.py" for name in _INDEXING},
    **{name: "test_random_ops.py" for name in _RANDOM},
    **{name: "test_op_table.py" for name in ("numel", "is_complex", "is_floating_point",
                                             "is_nonzero", "result_type")},
    **{name: "nn/test_layers_functional.py" for name in _NN_LAYERS},
    **{name: "test_sampling.py" for name in ("geometric_", "log_normal_", "cauchy_")},
    **{name: "distributions/test_samplers.py" for name in (
        "_standard_gamma", "_standard_gamma_grad", "_sample_dirichlet", "_dirichlet_grad",
        "poisson", "binomial")},
    **{name: "test_function_forms.py" for name in (
        "is_conj", "is_neg", "is_same_size", "is_nonzero", "unsafe_chunk", "unsafe_split",
        "unsafe_split_with_sizes", "is_signed", "is_inference", "get_device", "typename",
        "adjoint", "unravel_index", "scalar_tensor", "empty_strided", "as_strided_scatter",
        "apply_", "map_", "new_empty_strided")
        + tuple(n for n in INPLACE_FUNCTIONS if n not in DB_NAMES)},
    **{name: "test_view_copy.py" for name in ("alias_copy", "detach_copy", "slice_copy",
                                               "view_as_complex_copy")},
    "_norm": "nn/test_functional_misc.py",
    "_rnn_layer": "nn/test_rnn.py",
    "_lstm_stack": "nn/test_lstm_stack.py",
    "_lstm_pair": "nn/test_lstm_stack.py",
    # CUDA-only in PyTorch (NotImplementedError on its CPU build): checked against what they
    # stand for there (var_mean, F.batch_norm and its gradients)
    **{name: "test_coverage_nn.py" for name in (
        "batch_norm_stats", "batch_norm_elemt", "batch_norm_gather_stats",
        "batch_norm_gather_stats_with_counts", "batch_norm_backward_reduce",
        "batch_norm_backward_elemt")},
    "_scaled_dot_product_attention": "nn/test_attention.py",
    **{name: "linalg/test_linalg.py" for name in _LINALG},
    **{name: "linalg/test_windows.py" for name in OPS if name.endswith("_window")},
    "stft": "linalg/test_windows.py", "istft": "linalg/test_windows.py",
    "threshold_backward": "test_fast_paths.py",
    "leaky_relu_backward": "nn/test_double_backward.py",
    "tanh_backward": "nn/test_double_backward.py",
    "gelu_backward": "nn/test_double_backward.py",
    "sigmoid_backward": "nn/test_double_backward.py",
    "hardtanh_backward": "nn/test_double_backward.py",
    "cpu": "test_devices.py",
    "cuda": "test_cuda.py",       # runs only where a GPU is present
}

# Names cinder publishes as ``cinder.<name>`` that PyTorch only has as Tensor methods.
KNOWN_EXTRA_FUNCTIONS = set()


def test_every_op_has_a_test():
    missing = sorted(name for name in OPS if name not in DB_NAMES and
                     name not in TESTED_ELSEWHERE)
    assert not missing, f"ops without an op_db entry or a TESTED_ELSEWHERE file: {missing}"


def test_tested_elsewhere_is_current():
    """Each TESTED_ELSEWHERE op exists and is named in the file said to test it."""
    stale = sorted(name for name in TESTED_ELSEWHERE if name not in OPS)
    assert not stale, f"TESTED_ELSEWHERE lists ops that no longer exist: {stale}"
    texts = {}
    unmentioned = []
    for name, filename in TESTED_ELSEWHERE.items():
        path = TESTS / filename
        assert path.exists(), f"{filename} (said to test {name}) does not exist"
        text = texts.setdefault(filename, path.read_text())
        if name not in text:
            unmentioned.append(f"{name} ({filename})")
    assert not unmentioned, f"ops not mentioned by the file said to test them: {unmentioned}"


def test_op_db_and_elsewhere_do_not_overlap():
    both = sorted(set(TESTED_ELSEWHERE) & DB_NAMES)
    assert not both, f"ops both in op_db and TESTED_ELSEWHERE: {both}"


def test_published_functions_exist_in_torch():
    """``cinder.<op>`` only for ops PyTorch has as ``torch.<op>``."""
    extra = {name for name, info in OPS.items()
             if hasattr(cinder, name) and getattr(cinder, name) is info.function
             and not hasattr(torch, name)}
    assert extra == KNOWN_EXTRA_FUNCTIONS, \
        f"cinder.* functions PyTorch does not have: {sorted(extra)}"


def test_methods_exist_in_torch():
    """Every ``Tensor.<op>`` method the table publishes is a PyTorch Tensor method too, and
    every in-place ``<op>_`` exists in PyTorch."""
    bad = sorted(name for name, info in OPS.items()
                 if info.method is not None and not hasattr(torch.Tensor, name))
    assert not bad, f"Tensor methods PyTorch does not have: {bad}"
    bad_inplace = sorted(name + "_" for name, info in OPS.items()
                         if info.inplace is not None and not hasattr(torch.Tensor, name + "_"))
    assert not bad_inplace, f"in-place methods PyTorch does not have: {bad_inplace}"


def _missing_inplace(names):
    return sorted(name + "_" for name in names
                  if hasattr(torch.Tensor, name + "_") and not hasattr(cinder.Tensor, name + "_"))


def test_torch_inplace_variants_exist_in_cinder():
    """Where PyTorch has ``Tensor.<op>_`` for a tabled op, cinder has it too."""
    missing = _missing_inplace(name for name in OPS
                               if name not in _VIEWS + ("swapaxes", "swapdims"))
    assert not missing, f"in-place methods missing in cinder: {missing}"


def test_torch_inplace_view_variants_exist_in_cinder():
    missing = _missing_inplace(_VIEWS + ("swapaxes", "swapdims"))
    assert not missing, f"in-place view methods missing in cinder: {missing}"
