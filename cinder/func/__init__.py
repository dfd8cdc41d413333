"""``torch.func``: composable function transforms (``grad``, ``vjp``, ``jvp``, ``jacrev``,
``jacfwd``, ``hessian``, ``linearize``, ``vmap``, ``functionalize``), ``rearrange``, and the
helpers for functional use of modules (``functional_call``, ``stack_module_state``,
``replace_all_batch_norm_modules_``)."""

from .._functorch.batch_norm_replacement import replace_all_batch_norm_modules_
from .._functorch.eager_transforms import (debug_unwrap, functionalize, grad, grad_and_value,
                                           hessian, jacfwd, jacrev, jvp, linearize, vjp)
from .._functorch.einops import rearrange
from .._functorch.functional_call import functional_call, stack_module_state
from .._functorch.vmap import vmap

__all__ = ["grad", "grad_and_value", "vmap", "replace_all_batch_norm_modules_",
           "functionalize", "hessian", "jacfwd", "jacrev", "jvp", "linearize", "rearrange",
           "vjp", "functional_call", "stack_module_state", "debug_unwrap"]
