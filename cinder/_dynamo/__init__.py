"""``torch._dynamo``'s user-visible piece in cinder: the module wrapper ``torch.compile`` returns
(``eval_frame.OptimizedModule``). cinder has no bytecode tracer or compiler; see
``cinder.compiler``."""

from .eval_frame import OptimizedModule  # noqa: F401
