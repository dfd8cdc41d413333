"""``torch.backends``: switches for the libraries behind the devices (cuBLAS, cuDNN, MPS, and
on the CPU oneDNN, MKL, OpenMP, opt_einsum, the attention fast path).

Training scripts set these at start-up (``torch.backends.cuda.matmul.allow_tf32 = True``,
``torch.backends.cudnn.benchmark = True``) and query them (``torch.backends.mps.is_available()``).
cinder computes with NumPy's BLAS on the CPU and CuPy on CUDA GPUs, so most switches are
recorded for the script to read back but change no result: NumPy has no TF32 or reduced-precision
reductions to turn on, and cinder calls no cuDNN autotuner. The one that does connect is
``cuda.matmul.allow_tf32``, which is the same setting as ``torch.set_float32_matmul_precision``.
"""

from . import cpu, cuda, cudnn, mha, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]
