"""Function transforms (PyTorch's ``torch._functorch``): ``vmap``."""
