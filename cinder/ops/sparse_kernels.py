"""Ops PyTorch 2.13 implements only for sparse layouts. cinder's tensors are all dense, so
these raise what PyTorch raises for a dense (strided) tensor: a NotImplementedError that says
the operator has no kernel for the tensor's backend."""

from ._registry import register


def _no_dense_kernel(op, tensor):
    backend = "CUDA" if tensor.device.type == "cuda" else "CPU"
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the '{backend}' backend. This could "
        f"be because the operator doesn't exist for this backend, or was omitted during the "
        f"selective/custom build process (if using custom build). 'aten::{op}' is only "
        f"available for sparse tensors (SparseCPU, SparseCUDA), which cinder does not have.")


def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    """The ``p``-norm of a sparse tensor's values (over ``dim`` when given). PyTorch has no
    dense kernel for it (``torch.norm``/``linalg.vector_norm`` are the dense forms), so on
    cinder's dense tensors it raises NotImplementedError, as PyTorch does."""
    raise _no_dense_kernel("native_norm", input)


register("native_norm", native_norm, method=False, family="reduction")
