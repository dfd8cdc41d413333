"""``torch.cuda.comm``, ``torch.nn.parallel`` and ``nn.DataParallel`` on the GPU, against
PyTorch's CUDA build.

With one physical GPU, several devices are simulated the way PyTorch itself allows: a device id
repeated (``[0, 0]``). Every step then really runs (two replicas, two threads, two chunks, a
gather and the gradient reduction), only all on device 0. Each scenario runs in both libraries
from the same NumPy inputs and the records (values, dtypes, shapes, devices, gradients,
warnings, exception types and messages) must agree.

Marked ``gpu``: skipped without CuPy and a CUDA device. The oracle there is PyTorch 2.11+cu130.
"""

import collections
import warnings

import numpy as np
import pytest
import torch

import cinder

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cinder.cuda.is_available() or not torch.cuda.is_available(),
                       reason="needs CuPy, a CUDA GPU and PyTorch built for CUDA"),
]

RNG = np.random.default_rng(7)
X = RNG.standard_normal((6, 4)).astype(np.float32)
Y = RNG.standard_normal((6, 3)).astype(np.float64)
I = RNG.integers(0, 9, (5, 2)).astype(np.int64)
IMAGES = RNG.standard_normal((7, 2, 8, 8)).astype(np.float32)
Pair = collections.namedtuple("Pair", "a b")


def _comm(L):
    return L.cuda.comm if L is cinder else __import__("torch.cuda.comm").cuda.comm


class _Values:
    """A tensor's values, equal to another's within float32 rounding (cuDNN's convolutions
    and CuPy's im2col GEMMs sum in different orders)."""

    def __init__(self, array):
        self.array = array.astype(np.float64)

    def __eq__(self, other):
        return (self.array.shape == other.array.shape
                and np.allclose(self.array, other.array, rtol=1e-4, atol=1e-5))

    def __repr__(self):
        return repr(self.array)


def _obs(x):
    """A comparable record of ``x``: tensors become (device, dtype, shape, values, grad?)."""
    if isinstance(x, (torch.Tensor, cinder.Tensor)):
        return ("T", str(x.device), str(x.dtype).split(".")[-1], tuple(x.shape),
                _Values(x.detach().cpu().numpy()), x.requires_grad)
    if isinstance(x, Pair) or type(x).__name__ == "Pair":
        return ("Pair",) + tuple(_obs(v) for v in x)
    if isinstance(x, dict):
        return {k: _obs(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return (type(x).__name__,) + tuple(_obs(v) for v in x)
    return x


def _run(fn, L):
    rec = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(L, rec)
        except Exception as e:  # the exception is part of the record
            rec.append(("raises", type(e).__name__, str(e).splitlines()[0]))
    rec.append(sorted({f"{w.category.__name__}: {w.message}".splitlines()[0]
                       for w in caught if not _noise(str(w.message))}))
    return rec


def _noise(message):
    """PyTorch's own notices about its CUDA setup (a new thread's cuBLAS context, TF32)."""
    return "TF32" in message or "cuBLAS" in message


def _same(fn):
    want, got = _run(fn, torch), _run(fn, cinder)
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert _obs(g) == _obs(w), (g, w)


def _t(L, a, cuda=True, grad=False):
    return L.tensor(a, device="cuda" if cuda else "cpu", requires_grad=grad)


def _ptr_same(a, b):
    return a.data_ptr() == b.data_ptr()


# ----------------------------------------------------------------------------------------------
# torch.cuda.comm
# ----------------------------------------------------------------------------------------------


def _broadcast(L, rec):
    comm = _comm(L)
    x = _t(L, X)
    outs = comm.broadcast(x, [0, 0])
    rec += [type(outs).__name__, outs, [_ptr_same(o, x) for o in outs]]
    outs = comm.broadcast(_t(L, X, cuda=False), ["cuda:0", L.device("cuda", 0)])
    rec += [outs]
    out = [L.zeros(6, 4, device="cuda"), L.zeros(6, 4, device="cuda")]
    res = comm.broadcast(x, out=out)
    rec += [res, [r is o for r, o in zip(res, out)]]


def _broadcast_errors(L, rec):
    comm = _comm(L)
    x = _t(L, X)
    for call in (lambda: comm.broadcast(x), lambda: comm.broadcast(x, [0], out=[x]),
                 lambda: comm.broadcast(x, out=[L.zeros(6, 4)]),
                 lambda: comm.broadcast(x, out=[L.zeros(4, 6, device="cuda")]),
                 lambda: comm.broadcast(x, ["cpu"]), lambda: comm.broadcast(x, [-1])):
        try:
            rec.append(call())
        except Exception as e:
            rec.append((type(e).__name__, str(e).split(", but got")[0].split("=")[0]))


def _broadcast_coalesced(L, rec):
    comm = _comm(L)
    tensors = [_t(L, X), _t(L, I), _t(L, Y), _t(L, X[:2]), _t(L, I[0])]
    outs = comm.broadcast_coalesced(tensors, [0, 0, 0], buffer_size=64)
    rec += [type(outs).__name__, [type(o).__name__ for o in outs], outs]
    rec.append([[_ptr_same(o, t) for o, t in zip(per, tensors)] for per in outs])
    try:
        comm.broadcast_coalesced([_t(L, X, cuda=False)], [0])
    except Exception as e:
        rec.append((type(e).__name__, str(e)))


def _reduce_add(L, rec):
    comm = _comm(L)
    a, b, c = _t(L, X), _t(L, 2 * X), _t(L, X[::-1].copy())
    rec.append(comm.reduce_add([a, b, c], 0))
    rec.append(comm.reduce_add([a]) is a)
    rec.append(a)           # untouched
    groups = [[_t(L, X), _t(L, I), _t(L, Y)], [_t(L, 3 * X), _t(L, I), _t(L, Y)]]
    rec.append(comm.reduce_add_coalesced(groups, 0, buffer_size=64))
    for call in (lambda: comm.reduce_add([a, _t(L, X[:3])], 0),
                 lambda: comm.reduce_add([a, _t(L, X, cuda=False)], 0),
                 lambda: comm.reduce_add([a, b], 1)):
        try:
            call()
        except Exception as e:
            rec.append((type(e).__name__, str(e)))


def _scatter(L, rec):
    comm = _comm(L)
    x = _t(L, X)
    for kwargs in ({}, {"chunk_sizes": [1, 5]}, {"dim": 1}, {"dim": -1, "chunk_sizes": [3, 1]}):
        outs = comm.scatter(x, [0, 0], **kwargs)
        rec += [type(outs).__name__, outs, [o.is_contiguous() for o in outs]]
        rec.append([o.data_ptr() - x.data_ptr() for o in outs])     # views of the source
    rec.append(comm.scatter(_t(L, X, cuda=False), [0, 0, 0, 0]))        # 4 chunks of 6 rows
    rec.append(comm.scatter(_t(L, X, cuda=False), [0, 0], streams=[L.cuda.Stream(), None]))
    rec.append(comm.scatter(_t(L, X[:1]), [0, 0, 0]))                  # fewer chunks than ids
    out = [L.zeros(2, 4, device="cuda"), L.zeros(4, 4, device="cuda")]
    res = comm.scatter(x, out=out)
    rec += [res, [r is o for r, o in zip(res, out)]]


def _scatter_errors(L, rec):
    comm = _comm(L)
    x = _t(L, X)
    z = L.zeros(6, 4, device="cuda")
    for call in (lambda: comm.scatter(x, []), lambda: comm.scatter(x, [0, 0], chunk_sizes=[6]),
                 lambda: comm.scatter(x, [0, 0], chunk_sizes=[2, 2]),
                 lambda: comm.scatter(x, [0, 0], dim=2),
                 lambda: comm.scatter(x, [0], out=[z]),
                 lambda: comm.scatter(x, chunk_sizes=[6], out=[z]),
                 lambda: comm.scatter(x, out=[]), lambda: comm.scatter(x, out=[z.cpu()]),
                 lambda: comm.scatter(x, out=[z[:, :2]]),
                 lambda: comm.scatter(x, out=[z[:2]]),
                 lambda: comm.scatter(_t(L, X, cuda=False), [-1])):
        try:
            rec.append(call())
        except Exception as e:
            rec.append((type(e).__name__, str(e).split(", but got devices=")[0]
                        .split(", but got chunk_sizes=")[0]))


def _gather(L, rec):
    comm = _comm(L)
    a, b = _t(L, X[:2]), _t(L, X[2:])
    rec.append(comm.gather([a, b]))
    rec.append(comm.gather([a, b], destination="cpu"))
    rec.append(comm.gather([a, b], destination=-1))
    rec.append(comm.gather([a.t(), b.t()], dim=1, destination=0))
    rec.append(comm.gather([a, b], dim=-2, destination=L.device("cuda:0")))
    out = L.zeros(6, 4)
    res = comm.gather([a, b], out=out)
    rec += [res, res is out]
    for call in (lambda: comm.gather([]), lambda: comm.gather([a, b.cpu()]),
                 lambda: comm.gather([a, b[:, :2]]), lambda: comm.gather([a, b[0]]),
                 lambda: comm.gather([a, b], destination=0, out=out),
                 lambda: comm.gather([a, b], out=L.zeros(5, 4)),
                 lambda: comm.gather([a, b], dim=3)):
        try:
            rec.append(call())
        except Exception as e:
            rec.append((type(e).__name__, str(e).split(", but got destination=")[0]))


@pytest.mark.parametrize("scenario", [_broadcast, _broadcast_errors, _broadcast_coalesced,
                                      _reduce_add, _scatter, _scatter_errors, _gather],
                         ids=lambda f: f.__name__.strip("_"))
def test_comm_matches_torch(scenario):
    _same(scenario)


# ----------------------------------------------------------------------------------------------
# The autograd Functions, replicate, scatter/gather of containers, parallel_apply
# ----------------------------------------------------------------------------------------------


def _functions(L, rec):
    from importlib import import_module
    F = import_module(f"{L.__name__}.nn.parallel._functions")
    w = _t(L, X, grad=True)
    v = _t(L, Y, grad=True)
    frozen = _t(L, X)
    copies = F.Broadcast.apply([0, 0], w, v, frozen)
    rec.append([c.requires_grad for c in copies])
    loss = sum((c.double() * (k + 1)).sum() for k, c in enumerate(copies) if c.requires_grad)
    loss.backward()
    rec += [w.grad, v.grad]
    x = _t(L, X, cuda=False, grad=True)
    parts = F.Scatter.apply([0, 0], [2, 4], 0, x)
    rec.append(parts)
    (parts[0].sum() * 2 + (parts[1] ** 2).sum()).backward()
    rec.append(x.grad)
    y = _t(L, X, grad=True)
    g = F.Gather.apply("cpu", 1, y[:, :1], y[:, 1:])
    (g * L.arange(4.0)).sum().backward()
    rec += [g, y.grad]
    s = F.Gather.apply(0, 0, y.sum(), (y * 2).sum())      # scalars: a vector, with a warning
    rec.append(s)


def _replicate(L, rec):
    L.manual_seed(0)
    net = L.nn.Sequential(L.nn.Linear(4, 3), L.nn.BatchNorm1d(3), L.nn.ReLU(),
                          L.nn.Linear(3, 2, bias=False)).cuda()
    replicas = L.nn.parallel.replicate(net, [0, "cuda:0"])
    rec.append([repr(r) == repr(net) for r in replicas])
    rec.append([len(list(r.parameters())) for r in replicas])
    rec.append([type(r[0].weight).__name__ for r in replicas])
    rec.append([_ptr_same(r[1].running_mean, net[1].running_mean) for r in replicas])
    rec.append([_ptr_same(r[0].weight, net[0].weight) for r in replicas])
    x = _t(L, X)
    loss = replicas[0](x[:3]).sum() + 2 * replicas[1](x[3:]).sum()
    loss.backward()
    rec.append([p.grad for p in net.parameters()])
    rec.append([net[1].running_mean, net[1].num_batches_tracked])
    frozen = L.nn.parallel.replicate(net, [0, 0], detach=True)
    rec.append([frozen[1][0].weight.requires_grad, frozen[1][0].weight.grad_fn is None])
    rec.append(L.nn.parallel.replicate(net, []))


class _Echo:
    """A module factory whose forward returns containers (built per library)."""

    @staticmethod
    def make(L):
        class Echo(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = L.nn.Linear(4, 2)

            def forward(self, x, extra=None, scale=1.0, tag="t"):
                h = self.lin(x) * scale
                return {"h": h, "pair": Pair(h.sum(1), [x[:, :1], None]), "tag": tag,
                        "extra": extra}
        return Echo


def _scatter_gather(L, rec):
    P = L.nn.parallel
    x = _t(L, X, grad=True)
    nested = (x, {"k": x * 2, "s": "word"}, [x[:, :2], 3], Pair(x, 1.5))
    parts = P.scatter(nested, [0, 0])
    rec.append(parts)
    rec.append(P.scatter(x, [0, 0]))
    rec.append(P.scatter((), [0, 0]))
    ins, kws = P.scatter_gather.scatter_kwargs((x,), {"scale": 2.0, "extra": x}, [0, 0])
    rec += [ins, kws]
    ins, kws = P.scatter_gather.scatter_kwargs((), {"extra": x}, [0, 0, 0])
    rec += [ins, kws]
    outs = [{"a": t, "b": (t.sum(), [t * 2]), "c": None, "n": Pair(t, t[0])}
            for t in P.scatter(x, [0, 0])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = P.gather(outs, "cpu")
    rec.append(got)
    got["a"].sum().backward(retain_graph=True)
    rec.append(x.grad)
    try:
        P.gather([{"a": x}, {"a": x, "b": x}], 0)
    except Exception as e:
        rec.append((type(e).__name__, str(e)))


def _parallel_apply(L, rec):
    P = L.nn.parallel
    L.manual_seed(0)
    lin = L.nn.Linear(4, 2).cuda()
    reps = P.replicate(lin, [0, 0])
    x = _t(L, X)
    outs = P.parallel_apply(reps, [x[:3], (x[3:],)], [{}, {}], [0, L.device("cuda:0")])
    rec.append(outs)
    outs = P.parallel_apply(reps, [x[:3], x[3:]])               # devices from the inputs
    rec.append(outs)
    with L.no_grad():
        rec.append(P.parallel_apply(reps, [x[:3], x[3:]]))      # grad mode reaches threads

    class Boom(L.nn.Module):
        def forward(self, x):
            if x.shape[0] > 2:
                raise ValueError("too many rows")
            return x
    for call in (lambda: P.parallel_apply([Boom(), Boom()], [x[:2], x[:3]], None, [0, 0]),
                 lambda: P.parallel_apply([Boom()], [x, x]),
                 lambda: P.parallel_apply([Boom()], [x], [{}, {}]),
                 lambda: P.parallel_apply([Boom()], [x], None, [0, 0])):
        try:
            call()
        except Exception as e:
            rec.append((type(e).__name__, str(e).splitlines()[0]))


@pytest.mark.parametrize("scenario", [_functions, _replicate, _scatter_gather, _parallel_apply],
                         ids=lambda f: f.__name__.strip("_"))
def test_parallel_pieces_match_torch(scenario):
    _same(scenario)


# ----------------------------------------------------------------------------------------------
# DataParallel / data_parallel
# ----------------------------------------------------------------------------------------------


def _net(L):
    L.manual_seed(0)
    return L.nn.Sequential(L.nn.Linear(4, 8), L.nn.BatchNorm1d(8), L.nn.ReLU(),
                           L.nn.Dropout(0.0), L.nn.Linear(8, 3)).cuda()


def _data_parallel_training(L, rec):
    net = _net(L)
    dp = L.nn.DataParallel(net, device_ids=[0, 0])
    # the module's own repr differs between PyTorch 2.11 (the GPU oracle) and 2.13 (BatchNorm's
    # bias=): compare the wrapping
    rec += [repr(dp) == "DataParallel(\n  (module): " + repr(net).replace("\n", "\n  ") + "\n)",
            list(dp.state_dict()), dp.device_ids, dp.output_device, dp.dim, dp.module is net]
    opt = L.optim.SGD(dp.parameters(), lr=0.1, momentum=0.9)
    target = _t(L, np.full((6, 3), 0.5, np.float32))
    for step in range(3):
        inp = _t(L, X * (step + 1), cuda=step % 2 == 0)         # CPU or GPU input
        out = dp(inp)
        loss = L.nn.functional.mse_loss(out, target)
        opt.zero_grad()
        loss.backward()
        rec += [out, loss, [p.grad for p in net.parameters()]]
        opt.step()
        rec.append([net[1].running_mean, net[1].running_var, net[1].num_batches_tracked])
    rec.append(list(net.parameters()))
    dp.eval()
    with L.no_grad():
        rec.append(dp(_t(L, X)))


def _data_parallel_containers(L, rec):
    Echo = _Echo.make(L)
    L.manual_seed(0)
    m = Echo().cuda()
    try:
        L.nn.DataParallel(m, device_ids=[0, 0], output_device="cpu")
    except ValueError as e:
        rec.append(str(e))
    dp = L.nn.DataParallel(m, device_ids=[0, 0], output_device=-1)
    x = _t(L, X, grad=True)
    out = dp(x, extra=x * 3, scale=2.0)
    # PyTorch rebuilds a str output as type(out)(map(...)): the text of a map object
    rec.append(out.pop("tag").startswith("<map object at "))
    rec.append(out)
    out["h"].sum().backward()
    rec += [x.grad, m.lin.weight.grad]
    dp2 = L.nn.DataParallel(L.nn.Linear(4, 2).cuda(), device_ids=[0, 0], dim=1)
    try:
        dp2(_t(L, X))
    except Exception as e:
        rec.append((type(e).__name__, str(e).splitlines()[0][:60]))

    class Loss(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = L.nn.Linear(4, 1)

        def forward(self, x):
            return self.lin(x).sum()
    L.manual_seed(1)
    lm = Loss().cuda()
    rec.append(L.nn.DataParallel(lm, device_ids=[0, 0])(_t(L, X)))     # one loss per replica


def _data_parallel_errors(L, rec):
    cpu_net = L.nn.Linear(4, 2)
    for call in (lambda: L.nn.DataParallel(cpu_net, device_ids=[0, 0])(_t(L, X)),
                 lambda: L.nn.parallel.data_parallel(cpu_net, _t(L, X), [0, 0]),
                 lambda: L.nn.DataParallel(cpu_net, device_ids=["cpu"]),
                 lambda: L.nn.DataParallel(cpu_net, device_ids=[])):
        try:
            rec.append(call())
        except Exception as e:
            rec.append((type(e).__name__, str(e)))
    single = L.nn.DataParallel(L.nn.Linear(4, 2), device_ids=[0])    # moves the module
    rec.append([str(p.device) for p in single.parameters()])
    rec.append(str(single(_t(L, X, cuda=False)).device))
    rec.append(L.nn.DataParallel(L.nn.Linear(4, 2).cuda()).device_ids)


def _functional(L, rec):
    net = _net(L)
    x = _t(L, X, cuda=False)
    out = L.nn.parallel.data_parallel(net, x, [0, 0], output_device=-1)
    rec.append(out)
    out.sum().backward()
    rec.append([p.grad for p in net.parameters()])
    rec.append(L.nn.parallel.data_parallel(net, (x,), [0], dim=0))
    rec.append(L.nn.parallel.data_parallel(net, None, [0, 0],
                                           module_kwargs={"input": _t(L, X)}))


def _conv_net(L, rec):
    if L is torch:      # full float32 convolutions, as cinder's
        torch.backends.cudnn.allow_tf32 = False
    L.manual_seed(3)
    # no conv bias and no Adam: a bias before BatchNorm has a gradient of pure rounding noise,
    # which Adam would scale up to +-lr steps of random sign (the outputs would not notice, the
    # running mean would)
    net = L.nn.Sequential(L.nn.Conv2d(2, 4, 3, padding=1, bias=False), L.nn.BatchNorm2d(4),
                          L.nn.ReLU(), L.nn.MaxPool2d(2), L.nn.Flatten(),
                          L.nn.Linear(4 * 4 * 4, 5)).cuda()
    dp = L.nn.DataParallel(net, device_ids=[0, 0, 0])
    opt = L.optim.SGD(dp.parameters(), lr=0.1, momentum=0.9)
    images = IMAGES                                                  # 7 rows: chunks 3, 3, 1
    labels = np.array([0, 1, 2, 3, 4, 0, 1])
    for _ in range(2):
        out = dp(_t(L, images))
        loss = L.nn.functional.cross_entropy(out, _t(L, labels))
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec += [out, loss, [p.grad for p in net.parameters()]]
        rec.append([net[1].running_mean, net[1].running_var, net[1].num_batches_tracked])
    dp.eval()
    with L.no_grad():
        rec.append(dp(_t(L, images[:5])))

    class Constant(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = L.nn.Parameter(L.ones(3, device="cuda"))

        def forward(self, scale=2.0):
            return self.w * scale
    rec.append(L.nn.DataParallel(Constant(), device_ids=[0, 0])())      # no inputs at all
    rec.append(L.nn.DataParallel(Constant(), device_ids=[0, 0])(scale=_t(L, X[:, 0])[:2, None]))


@pytest.mark.parametrize("scenario", [_data_parallel_training, _data_parallel_containers,
                                      _data_parallel_errors, _functional, _conv_net],
                         ids=lambda f: f.__name__.strip("_"))
def test_data_parallel_matches_torch(scenario):
    _same(scenario)
