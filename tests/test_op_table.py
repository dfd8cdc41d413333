"""The op table is the one place an op is published.

Walks every public ``cinder.*`` function and every ``Tensor`` attribute: each op among them is
the very object the table published (so it passes the dispatch point), aliases included, and
what is not an op is named below with the reason. A ``cinder.*`` function or ``Tensor`` method
added by hand, outside the table, makes these tests fail.
"""

import types

import numpy as np
import pytest
import torch

import cinder
from cinder.ops import FUNCTIONS, OPS
from cinder.ops._registry import CORE_METHODS, TENSOR_ATTRIBUTES
from cinder.ops.operators import OPERATORS

# Public cinder.* functions that are not ops: they take no tensor, or ask about the library
# (PyTorch's ``get_ignored_functions`` lists them too).
NON_OP_FUNCTIONS = {
    "can_cast", "promote_types",                                   # dtype arithmetic
    "get_default_device", "set_default_device", "get_default_dtype", "set_default_dtype",
    "set_default_tensor_type", "get_num_threads", "set_num_threads",
    "get_printoptions", "set_printoptions", "printoptions",
    "get_rng_state", "set_rng_state", "initial_seed", "manual_seed", "seed",
    "is_grad_enabled", "is_inference_mode_enabled",
    "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled",
    "is_tensor", "is_storage",                                     # isinstance checks
    "save", "load",                                                # checkpoints (serialization)
}
# process-wide switches and device/file queries (cinder/_runtime.py, _device_modules.py)
NON_OP_FUNCTIONS |= {
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
    "get_deterministic_debug_mode", "set_float32_matmul_precision", "get_float32_matmul_precision",
    "set_warn_always", "is_warn_always_enabled", "set_flush_denormal", "set_num_interop_threads",
    "get_num_interop_threads", "init_num_threads", "get_device_module", "get_file_path",
    "vmap",                                                        # a function transform
    "compile",                                                     # torch.compile (eager)
    "from_dlpack", "to_dlpack",                                    # utils.dlpack exchange
    "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype",
    "set_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype",
    "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
    "autocast_increment_nesting", "autocast_decrement_nesting",      # autocast state
}

# Tensor attributes of the tensor core that are not ops: metadata and autograd fields read as
# properties (PyTorch's handlers see these as ``__get__``; cinder keeps attribute reads free),
# and ``as_subclass``/``new``, which PyTorch does not route either.
CORE_PROPERTIES = set()     # none left: the core's properties pass the dispatch point too
NOT_ROUTED = {"as_subclass", "new"}


def _public_functions():
    return {name: value for name, value in vars(cinder).items()
            if not name.startswith("_") and callable(value)
            and not isinstance(value, (type, types.ModuleType))}


def _published_objects():
    """id -> (op name, role) for every object the table published."""
    out = {}
    for name, info in OPS.items():
        for role in ("function", "method", "inplace"):
            obj = getattr(info, role)
            if obj is not None:
                out[id(obj)] = (name, role)
    return out


def test_every_public_function_is_published_by_the_table():
    published = _published_objects()
    stray = sorted(name for name, fn in _public_functions().items()
                   if id(fn) not in published and name not in NON_OP_FUNCTIONS)
    assert not stray, f"cinder.* functions that are not from the op table: {stray}"
    stale = sorted(NON_OP_FUNCTIONS - set(_public_functions()))
    assert not stale, f"NON_OP_FUNCTIONS lists names cinder does not have: {stale}"


def test_every_table_function_is_the_public_one():
    """``cinder.<name>`` is exactly the function the table holds (nothing shadows it)."""
    wrong = sorted(name for name, fn in FUNCTIONS.items()
                   if not name.startswith("_") and getattr(cinder, name, None) is not fn)
    assert not wrong, f"cinder.<name> is not the table's function: {wrong}"


def _tensor_attribute(name):
    for klass in cinder.Tensor.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def _tensor_names():
    return [n for n in dir(cinder.Tensor)
            if not n.startswith("_") or n in OPERATORS or n in ("__getitem__", "__setitem__")]


def test_every_tensor_attribute_that_is_an_op_is_published_by_the_table():
    published = _published_objects()
    stray = []
    for name in _tensor_names():
        attr = _tensor_attribute(name)
        if isinstance(attr, property):
            if name in TENSOR_ATTRIBUTES or name in CORE_PROPERTIES:
                continue
            stray.append(name + " (property)")
        elif id(attr) in published or name in OPERATORS or name in TENSOR_ATTRIBUTES:
            continue
        elif name not in NOT_ROUTED and callable(attr):
            stray.append(name)
    assert not stray, f"Tensor attributes published outside the op table: {stray}"


def test_every_published_object_passes_the_dispatch_point():
    missing = []
    for name in _tensor_names():
        attr = _tensor_attribute(name)
        getter = attr.fget if isinstance(attr, property) else attr
        if name in CORE_PROPERTIES or name in NOT_ROUTED or name in OPERATORS:
            continue
        if getattr(getter, "_cinder_impl", None) is None:
            missing.append("Tensor." + name)
    for name, fn in FUNCTIONS.items():
        if getattr(fn, "_cinder_impl", None) is None:
            missing.append("cinder." + name)
    assert not missing, f"published without the dispatch point: {missing}"
    assert set(CORE_METHODS) <= set(TENSOR_ATTRIBUTES)


# PyTorch's aliases (torch/_refs and native_functions.yaml) and what they stand for.
ALIASES = {
    "subtract": "sub", "multiply": "mul", "divide": "div", "negative": "neg",
    "absolute": "abs", "arctan2": "atan2", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "fix": "trunc", "clip": "clamp", "greater": "gt",
    "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne",
    "concat": "cat", "concatenate": "cat", "row_stack": "vstack", "swapaxes": "transpose",
    "swapdims": "transpose", "moveaxis": "movedim", "ger": "outer",
}


@pytest.mark.parametrize("alias,target", sorted(ALIASES.items()))
def test_alias_is_a_table_entry_with_its_own_name(alias, target):
    info = OPS[alias]
    assert info.aliases == (target,) and alias in OPS[target].aliases
    assert info.impl is OPS[target].impl
    for role in ("function", "method", "inplace"):
        obj, original = getattr(info, role), getattr(OPS[target], role)
        assert (obj is None) == (original is None), role
        if obj is not None:
            suffix = "_" if role == "inplace" else ""
            assert obj.__name__ == alias + suffix
            assert obj is not original


def test_no_published_object_is_a_lambda():
    names = sorted(f"{name}.{role}" for name, info in OPS.items()
                   for role in ("function", "method", "inplace")
                   if getattr(getattr(info, role), "__name__", "") == "<lambda>")
    assert not names
    impls = sorted(name for name, info in OPS.items() if info.impl.__name__ == "<lambda>")
    assert not impls, f"ops whose implementation is a lambda: {impls}"


def test_entries_carry_tags():
    untagged = sorted(name for name, info in OPS.items() if not info.tags)
    assert not untagged
    assert OPS["add"].kernels == {} and "pointwise" in OPS["add"].tags


# The query ops moved into the table (they were hand-written in cinder/__init__.py).
QUERIES = ["L.numel(L.ones(2, 3))", "L.is_complex(L.ones(2))", "L.is_floating_point(L.ones(2))",
           "L.is_nonzero(L.ones(1))", "L.is_nonzero(L.zeros(1))", "L.is_nonzero(L.ones(2))",
           "L.is_nonzero(L.ones(0))", "L.result_type(L.ones(2), 1.5)",
           "L.result_type(L.ones(2, dtype=L.int32), L.ones(2, dtype=L.float64))",
           "L.ones(2, 3).nelement()", "L.ones(2, 3).ndimension()", "L.ones(1).is_nonzero()"]


@pytest.mark.parametrize("expr", QUERIES)
def test_query_ops_match_torch(expr):
    from oracle import check
    check(expr)


def test_the_walk_finds_a_hand_made_function():
    # A guard that the walk above really walks: a hand-made function shows up as stray.
    cinder.hand_made = lambda x: np.asarray(x)
    try:
        published = _published_objects()
        assert id(cinder.hand_made) not in published
        assert "hand_made" in _public_functions()
    finally:
        del cinder.hand_made
    assert torch.numel(torch.ones(2)) == cinder.numel(cinder.ones(2))


@pytest.mark.parametrize("lib", [torch, cinder], ids=["torch", "cinder"])
def test_alpha_belongs_to_add_and_sub_only(lib):
    """``binary(..., alpha=True)`` makes add/sub; other binary ops refuse ``alpha``."""
    a = lib.ones(2)
    assert lib.add(a, a, alpha=2).tolist() == [3.0, 3.0]
    assert a.clone().sub_(a, alpha=3).tolist() == [-2.0, -2.0]
    with pytest.raises(TypeError):
        lib.mul(a, a, alpha=2)
    with pytest.raises(TypeError):
        a.clone().div_(a, alpha=2)
