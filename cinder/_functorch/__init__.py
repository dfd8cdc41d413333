"""Function transforms (PyTorch's ``torch._functorch``): ``vmap`` (vmap.py), the derivative
transforms (eager_transforms.py), ``functional_call``/``stack_module_state`` and the BatchNorm
helper for them."""
