"""The layers of cinder, lowest first: each module imports (at module level) only modules of
its own layer or below. ``tests/test_layers.py`` checks it; ``docs/architecture.md`` explains it.

This mirrors PyTorch's own split: basic types and the ``torch._C`` switches at the bottom, the
autograd graph and engine below the tensor core (``torch._C.TensorBase``), the op table above
the core, and everything written in terms of ops (autograd's user API, ``nn``, ``optim``,
``utils.data``, the Python-level ``Tensor`` extras, ``save``/``load``) above the table.
A module not listed takes the layer of its nearest listed package (``cinder.ops.nn.conv`` is in
``cinder.ops``).
"""

LAYERS = (
    # 0: basic types and the dispatch switches (no cinder imports at all)
    ("cinder._dtype", "cinder._device", "cinder._C", "cinder.return_types", "cinder.utils",
     "cinder.utils.hooks",
     "cinder._zip_file", "cinder._weights_only_unpickler", "cinder._shared_memory",
     "cinder._runtime", "cinder._layout", "cinder._errors", "cinder._streams",
     "cinder._launcher"),
    # 1: the array backends (NumPy / CuPy)
    ("cinder.backend",),
    # 2: autograd's machinery: grad modes, graph nodes, the engine (and the package's light
    # __init__, which the tensor core runs when it imports them)
    ("cinder.autograd", "cinder.autograd.grad_mode", "cinder.autograd.anomaly_mode",
     "cinder.autograd.graph", "cinder.autograd.engine", "cinder.autograd._dot"),
    # 3: the tensor core: storage, Tensor, printing, the random streams
    ("cinder._storage", "cinder._tensor", "cinder._tensor_str", "cinder._random_stream",
     "cinder._randperm", "cinder._multinomial_kernel",
     "cinder._random_engine",
     "cinder.random", "cinder._utils", "cinder._checkpoint_pickle"),
    # 4: the op table: kernels, derivatives, the dispatch point, publication
    ("cinder.ops",),
    # 5: written in ops: autograd's user API, overrides, legacy forms, save/load, nn, optim...
    ("cinder.autograd._backward", "cinder.autograd.function", "cinder.autograd.functional",
     "cinder.autograd.gradcheck", "cinder.autograd.variable", "cinder.overrides",
     "cinder._functorch", "cinder._legacy", "cinder.serialization",
     "cinder.cuda", "cinder.cpu", "cinder._device_modules", "cinder.amp", "cinder.nn",
     "cinder.optim",
     "cinder.utils.data", "cinder.utils.deterministic", "cinder.utils.dlpack",
     "cinder.utils.safetensors", "cinder.utils.tensorboard", "cinder.utils._visdom",
     "cinder.compat", "cinder.distributed", "cinder.backends",
     "cinder.accelerator", "cinder.utils.checkpoint", "cinder.jit", "cinder._dynamo",
     "cinder.compiler", "cinder.autograd.profiler", "cinder.autograd.profiler_util",
     "cinder.autograd._profiler_recorder", "cinder.profiler"),
    # 6: libraries on top (torchvision's place) and the package namespace itself
    ("cinder.vision", "cinder.__main__", "cinder", "cinder.version"),
)


def layer_of(module):
    """The layer number of ``module`` (a dotted name), from its nearest listed ancestor."""
    parts = module.split(".")
    while parts:
        name = ".".join(parts)
        for i, names in enumerate(LAYERS):
            if name in names:
                return i
        parts.pop()
    raise KeyError(f"{module} is in no layer of cinder/_layers.py")
