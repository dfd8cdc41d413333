"""``torch.nn.parallel`` and ``torch.cuda.comm`` without a GPU, against PyTorch's CPU build.

Without CUDA, DataParallel is the wrapped module itself; the pieces (scatter, gather, replicate,
parallel_apply, the comm functions) still check their arguments and walk non-tensor containers
the way PyTorch does. Where PyTorch's CPU build lacks the C functions entirely
(``torch._C._scatter``...) it raises AttributeError and cinder says "Torch not compiled with
CUDA enabled" instead; those calls are not compared. The GPU side is tests/test_cuda_parallel.py.
"""

import collections
import importlib

import numpy as np
import pytest
import torch
import torch.cuda.comm  # noqa: F401  (not loaded by `import torch`)

import cinder
from oracle import outcome

pytestmark = pytest.mark.skipif(torch.cuda.is_available(),
                                reason="the CPU-build behaviour; see tests/test_cuda_parallel.py")

Pair = collections.namedtuple("Pair", "a b")
X = np.arange(12, dtype=np.float32).reshape(6, 2)
ENV = {"Pair": Pair, "X": X}


def _check(expr):
    got, want = outcome(expr, cinder, ENV), outcome(expr, torch, ENV)
    assert got == want, expr


@pytest.mark.parametrize("expr", [
    # DataParallel on the CPU: the module itself, under the name ``module``
    "L.nn.DataParallel(L.nn.Linear(2, 3)).device_ids",
    "repr(L.nn.DataParallel(L.nn.Sequential(L.nn.Linear(2, 3), L.nn.ReLU())))",
    "list(L.nn.DataParallel(L.nn.Linear(2, 3)).state_dict())",
    "hasattr(L.nn.DataParallel(L.nn.Linear(2, 3)), 'dim')",
    "hasattr(L.nn.DataParallel(L.nn.Linear(2, 3)), 'output_device')",
    "(lambda m: L.nn.DataParallel(m).module is m)(L.nn.Linear(2, 3))",
    "L.nn.DataParallel(L.nn.Linear(2, 3), device_ids=[0, 1], output_device=1).device_ids",
    "(lambda m: L.equal(L.nn.DataParallel(m)(L.tensor(X)), m(L.tensor(X))))(L.nn.Linear(2, 3))",
    "L.nn.parallel.data_parallel(L.nn.Linear(2, 3), L.tensor(X))",
    "L.nn.parallel.data_parallel(L.nn.Linear(2, 3), None, [0])",
    # scatter / scatter_kwargs / gather over containers without tensors
    "L.nn.parallel.scatter((1, 'a', [2, {'k': None}]), [0, 1])",
    "L.nn.parallel.scatter([1, (2, 3)], [0, 1, 1])",
    "L.nn.parallel.scatter({'a': 1, 'b': [2]}, ['cuda:0', 'cuda:1'])",
    "L.nn.parallel.scatter(Pair(1, 'x'), [0, 1])",
    "L.nn.parallel.scatter(collections.OrderedDict(a=1), [0, 1])",
    "L.nn.parallel.scatter((), [0, 1])",
    "L.nn.parallel.scatter([], [0, 1])",
    "L.nn.parallel.scatter({}, [0, 1])",
    "L.nn.parallel.scatter(None, [0, 1])",
    "L.nn.parallel.scatter((1,), [])",
    "L.nn.parallel.scatter_gather.scatter_kwargs((1, 'a'), {'k': 2}, [0, 1])",
    "L.nn.parallel.scatter_gather.scatter_kwargs((), {'k': 2}, [0, 1, 2])",
    "L.nn.parallel.scatter_gather.scatter_kwargs((1,), None, [0, 1])",
    "L.nn.parallel.scatter_gather.scatter_kwargs((), None, [0, 1])",
    "L.nn.parallel.gather([None, None], 'cpu')",
    "L.nn.parallel.gather([{'a': None}, {'a': None}], 'cpu')",
    "L.nn.parallel.gather([{'a': 1}, {'a': 2, 'b': 3}], 'cpu')",
    "L.nn.parallel.gather([Pair(None, None), Pair(None, None)], 0)",
    "L.nn.parallel.gather([(None, [None]), (None, [None])], 0)",
    "L.nn.parallel.gather([(1, 2), (3, 4)], 'cpu')",
    "L.nn.parallel.gather(['ab', 'cd'], 'cpu').startswith('<map object at ')",
    "L.nn.parallel.gather([L.tensor(X), L.tensor(X)], 'cpu')",
    "L.nn.parallel.scatter_gather._is_namedtuple(Pair(1, 2))",
    "L.nn.parallel.scatter_gather._is_namedtuple((1, 2))",
    # the autograd Functions and replicate refuse CPU tensors
    "L.nn.parallel._functions.Broadcast.apply([0], L.tensor(X))",
    "L.nn.parallel._functions.Gather.apply(0, 0, L.tensor(X))",
    "L.nn.parallel.replicate(L.nn.Linear(2, 3), [0, 1])",
    "L.nn.parallel.replicate(L.nn.Linear(2, 3), [])",
    "L.nn.parallel.replicate(L.nn.ReLU(), [0, 1])",
    # parallel_apply: lengths first, then the missing accelerator
    "L.nn.parallel.parallel_apply([L.nn.ReLU()] * 2, [L.tensor(X)])",
    "L.nn.parallel.parallel_apply([L.nn.ReLU()], [L.tensor(X)], [{}, {}])",
    "L.nn.parallel.parallel_apply([L.nn.ReLU()], [L.tensor(X)], None, [0, 1])",
    "L.nn.parallel.parallel_apply([L.nn.ReLU()], [L.tensor(X)])",
    "L.nn.parallel.parallel_apply.get_a_var([1, {'a': (2, L.tensor(X))}]).shape",
    "L.nn.parallel.parallel_apply.get_a_var({'k': 1})",
    "L.nn.parallel.parallel_apply.get_a_var(3)",
    # comm's argument checks (those made before any device work)
    "L.cuda.comm.broadcast(L.tensor(X))",
    "L.cuda.comm.broadcast(L.tensor(X), [0], out=[L.tensor(X)])",
    "L.cuda.comm.reduce_add([L.tensor(X), L.tensor(X)], 0)",
    "L.cuda.comm.reduce_add_coalesced([[L.tensor(X)], [L.tensor(X)]], 0)",
    "L.cuda.comm.scatter(L.tensor(X), [0], out=[L.tensor(X)])",
    "L.cuda.comm.scatter(L.tensor(X), chunk_sizes=[6], out=[L.tensor(X)])",
    "L.cuda.comm.gather([L.tensor(X)], destination=0, out=L.tensor(X))",
    "L.nn.parallel.comm.broadcast is L.cuda.comm.broadcast",
    "sorted(set(L.nn.parallel.__all__) - {'DistributedDataParallel'})",  # DDP: not built
    "sorted(L.cuda.comm.__all__)",
])
def test_parallel_on_cpu_matches_torch(expr):
    if "collections" in expr:
        ENV["collections"] = collections
    _check(expr)


def test_data_parallel_loads_a_torch_state_dict():
    torch.manual_seed(0)
    t = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh()))
    c = cinder.nn.DataParallel(cinder.nn.Sequential(cinder.nn.Linear(2, 3), cinder.nn.Tanh()))
    c.load_state_dict({k: cinder.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = X[:4]
    np.testing.assert_allclose(c(cinder.tensor(x)).detach().numpy(),
                               t(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    assert list(c.module.state_dict()) == list(t.module.state_dict()) == ["0.weight", "0.bias"]


@pytest.mark.parametrize("args", [
    (0,), ("cuda:1",), ("cpu",), ("cpu", False, True), (None,), (None, True), ("cuda",),
    ("cuda", True), ("meta",), ("meta", False, True), ("cuda:2", True, True),
])
@pytest.mark.parametrize("where", ["_utils", "cuda._utils"])
def test_get_device_index_matches_torch(where, args):
    results = []
    for lib in (cinder, torch):
        fn = importlib.import_module(f"{lib.__name__}.{where}")._get_device_index
        try:
            results.append(("value", fn(*args)))
        except Exception as e:  # the exception is the outcome compared
            results.append(("raises", type(e).__name__, str(e)))
    assert results[0] == results[1]


def test_coalescing_helpers_match_torch():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((3, 2)).astype(np.float32), np.arange(5, dtype=np.int64),
              rng.standard_normal(4).astype(np.float32), rng.standard_normal((2, 2)),
              np.zeros((0, 3), np.float32), rng.standard_normal((2, 3)).astype(np.float32)]
    got = {}
    for lib in (cinder, torch):
        U = importlib.import_module(f"{lib.__name__}._utils")
        tensors = [lib.tensor(a) for a in arrays]
        chunks = [[arrays_index(tensors, t) for t in c] for c in U._take_tensors(tensors, 24)]
        same_type = [t for t in tensors if t.dtype == lib.float32]
        flat = U._flatten_dense_tensors(same_type)
        back = U._unflatten_dense_tensors(flat, same_type)
        shuffled = [t for c in U._take_tensors(tensors, 24) for t in c]
        order = [arrays_index(tensors, t) for t in U._reorder_tensors_as(shuffled, tensors)]
        got[lib.__name__] = (chunks, flat.numpy().tolist(), [tuple(b.shape) for b in back],
                             [b.numpy().tolist() for b in back], order,
                             tuple(U._handle_complex(lib.tensor([1 + 2j])).shape))
    assert got["cinder"] == got["torch"]


def arrays_index(tensors, t):
    return next(i for i, u in enumerate(tensors) if u is t)
