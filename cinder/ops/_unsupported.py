"""PyTorch API families cinder leaves out on purpose, each with a one-line reason.

``family_of(namespace, name)`` says whether ``torch.<name>`` (namespace ``"torch"``) or
``Tensor.<name>`` (namespace ``"Tensor"``) belongs to one of them; ``torch.<name>`` and
``tensor.<name>`` then raise an AttributeError naming the family and the reason, and
``tools/api_coverage.py`` lists them apart from the names still missing.
"""

import re

# (family, reason, regular expression over the name); the first match wins
FAMILIES = (
    ("quantized tensors", "cinder computes in NumPy/CuPy float and integer dtypes; PyTorch's "
     "quantized kernels (FBGEMM/QNNPACK) have no counterpart",
     r"(quantiz|^q_|^qint|^quint|qscheme|per_channel|per_tensor|int_repr|choose_qparams|"
     r"fbgemm|^is_quantized$|fake_quant|^QInt|^QUInt|^Q?U?Int\d|moving_avg_obs)"),
    ("sparse layouts", "tensors are dense NumPy/CuPy arrays; COO/CSR/CSC/BSR/BSC layouts are "
     "not implemented",
     r"(sparse|_coo|^coo|csr|csc|bsr|bsc|crow_indices|ccol_indices|^col_indices|^row_indices|"
     r"^indices$|^values$|^indices_copy$|^values_copy$|^to_dense$|coalesce|^smm$|^spmm$|"
     r"^hspmm$|^sspaddmm$|^saddmm$|^dsmm$|^hsmm$|^dense_dim$|^is_coalesced$|sparse_mask)"),
    ("nested/jagged tensors", "nested tensors need ragged storage that NumPy arrays lack",
     r"(nested|jagged|to_padded_tensor)"),
    ("vendor backends", "cinder's devices are the CPU (NumPy) and CUDA (CuPy) only",
     r"(mkldnn|miopen|cudnn_|^is_vulkan|vulkan|^is_mps$|^is_xpu$|^xpu$|^is_ipu$|^ipu$|"
     r"^is_xla$|^is_mtia$|^mtia$|^is_maia$|^is_hpu$|^is_meta$|_autocast_|_ipu_|_xla_|"
     r"^has_mkl|^has_lapack$|^has_openmp$|^has_spectral$|^compiled_with_cxx11_abi$)"),
    ("named tensors", "the named-tensor prototype is not implemented",
     r"^(rename|rename_|refine_names|align_to|align_as|align_tensors|names)$"),
    ("TorchScript and torch.compile internals", "cinder runs eagerly in Python: there is no "
     "JIT graph, scripting, symbolic shapes or compiler to expose",
     r"^(Script|Graph|Node$|Block$|Value$|Use$|Code$|CompilationUnit|ConcreteModuleType|"
     r"FunctionSchema|Argument|AliasDb|ArgumentSpec|CompleteArgumentSpec|ExecutionPlan|"
     r"GraphExecutorState|Gradient$|IODescriptor|InferredType|LiteScriptModule|"
     r"LoggerBase|NoopLogger|LockingLogger|AggregationType|StaticModule|ThroughputBenchmark|"
     r"BenchmarkConfig|BenchmarkExecutionStats|TracingState|FileCheck|ErrorReport|"
     r"CallStack|DeepCopyMemoTable|DeserializationStorageContext|"
     r"SerializationStorageContext|PyTorchFile|ScriptModuleSerializer|OperatorInfo|"
     r"DispatchKey|DispatchKeySet|ExcludeDispatchKeyGuard|PRIVATE_OPS|Tag$|"
     r"\w+Type$|Sym|sym_|compiled_|import_ir_module|parse_ir|parse_schema|"
     r"parse_type_comment|merge_type_from_type_comment|unify_type_list|fork$|wait$|"
     r"Future$|while_loop$|cond$|JITException|Capsule|ScriptObject|"
     r"set_autocast|get_autocast|is_autocast|clear_autocast|autocast_|BufferDict|"
     r"ModuleDict$|ParameterDict$|classproperty|thread_safe_generator|"
     r"profiler_allow_cudagraph|prepare_multiprocessing_environment|"
     r"DisableTorchFunction|AVG$|SUM$|Type$)"),
    ("dtypes cinder does not provide", "NumPy has no float8, float4, complex32, bit-packed or "
     "sub-byte integer types",
     r"^(float8_\w+|float4_\w+|complex32|chalf|bits\w+|u?int[1-7]|bit)$"),
    ("first-class dimensions", "functorch.dim's Dim objects, which Tensor.index binds "
     "positions to, are not implemented",
     r"^index$"),
)

_COMPILED = tuple((family, reason, re.compile(pattern)) for family, reason, pattern in FAMILIES)

# The same for names of the training-stack modules (``tools/api_coverage.py``'s ``MODULES``):
# (family, reason, module namespace, regular expression over the name)
MODULE_FAMILIES = (
    ("selective activation checkpointing", "it decides per ATen operator under a "
     "__torch_dispatch__ mode, a level below Python ops that cinder does not have",
     "utils.checkpoint",
     r"^(CheckpointPolicy|SAC_IGNORED_OPS|SelectiveCheckpointContext|"
     r"create_selective_checkpoint_contexts)$"),
    ("DataPipes", "PyTorch deprecated them (torchdata, which carried them on, has stopped); "
     "cinder's data loading is Dataset, Sampler and DataLoader",
     "utils.data",
     r"(DataPipe|DataChunk|datapipe|runtime_validation|argument_validation|non_deterministic|"
     r"guaranteed_datapipes_determinism)"),
    ("multi-process training", "cinder trains in one process: there are no process groups or "
     "collective operations for DistributedDataParallel to use",
     "nn.parallel", r"^DistributedDataParallel$"),
    ("CUDA-only low-precision and flash kernels", "float8 scaled matrix products (NumPy has no "
     "float8) and the FA3/FA4 flash-attention kernels of separate CUDA packages",
     "nn.functional|nn.attention",
     r"^(scaled_mm|scaled_grouped_mm|ScalingType|SwizzleType|DType|\w*flash_attention_impls?)$"),
)
_MODULE_COMPILED = tuple((family, reason, re.compile(f"^({spaces})$"), re.compile(pattern))
                         for family, reason, spaces, pattern in MODULE_FAMILIES)


def family_of(namespace, name):
    """``(family, reason)`` if ``name`` belongs to a deliberately excluded family, else None."""
    if namespace not in ("torch", "Tensor"):
        for family, reason, spaces, rx in _MODULE_COMPILED:
            if spaces.match(namespace) and rx.search(name):
                return family, reason
        return None
    for family, reason, rx in _COMPILED:
        if rx.search(name):
            return family, reason
    return None


def unsupported_message(spelling, family, reason):
    return f"cinder does not support {spelling}: it belongs to {family}, left out because {reason}"
