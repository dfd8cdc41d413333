"""The Module system against PyTorch: each scenario runs the same code on both libraries and
records what it observes (values, reprs, key lists, exception types and messages); the two
records must be equal."""

import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import cinder

SCENARIOS = []


def scenario(fn):
    SCENARIOS.append(fn)
    return fn


def attempt(rec, fn, *args, **kwargs):
    """Record the result of ``fn`` or the exception type and message it raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(*args, **kwargs)
        rec.append(("ok", _plain(out)))
        return out
    except Exception as e:  # noqa: BLE001 -- compared with PyTorch's exception
        rec.append((type(e).__name__, str(e).replace("torch.nn.modules", "M")
                    .replace("cinder.nn.modules", "M")))
        return None


def _plain(v):
    if hasattr(v, "detach") and hasattr(v, "shape"):
        return ("tensor", tuple(v.shape), np.round(v.detach().numpy().astype(float), 5).tolist())
    if isinstance(v, (list, tuple)):
        return type(v).__name__, [_plain(x) for x in v]
    if isinstance(v, (int, float, str, bool, type(None))):
        return v
    return type(v).__name__


class Net:
    """A small model built from either library."""

    @staticmethod
    def make(lib):
        nn = lib.nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 3)
                self.register_buffer("scale", lib.ones(3))
                self.register_buffer("tmp", lib.zeros(1), persistent=False)

            def forward(self, x):
                return self.fc(x) * self.scale

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = Block()
                self.b = Block()
                self.shared = self.a.fc
                self.head = nn.Sequential(nn.ReLU(), nn.Linear(3, 2))

            def forward(self, x):
                return self.head(self.b(self.a(x)))

        lib.manual_seed(0)
        return Model()


def _run_both(fn):
    rec_c, rec_t = [], []
    fn(cinder, rec_c)
    fn(torch, rec_t)
    return rec_c, rec_t


# ----------------------------------------------------------------------------------------------
# Scenarios (each registers itself in SCENARIOS; the test at the end runs them all)
# ----------------------------------------------------------------------------------------------

@scenario
def names_and_iteration(lib, rec):
    m = Net.make(lib)
    rec.append([n for n, _ in m.named_parameters()])
    rec.append([n for n, _ in m.named_parameters(prefix="model", remove_duplicate=False)])
    rec.append([n for n, _ in m.named_parameters(recurse=False)])
    rec.append([n for n, _ in m.named_buffers()])
    rec.append([n for n, _ in m.named_children()])
    rec.append([n for n, _ in m.named_modules()])
    rec.append([n for n, _ in m.named_modules(prefix="p", remove_duplicate=False)])
    rec.append(len(list(m.parameters())))
    rec.append(len(list(m.modules())))


@scenario
def reprs(lib, rec):
    nn = lib.nn
    rec.append(repr(Net.make(lib)))
    rec.append(repr(nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU(),
                                                                          nn.Linear(2, 2)])))
    rec.append(repr(nn.ModuleList()))
    rec.append(repr(nn.Sequential()))
    rec.append(repr(nn.ModuleDict({"x": nn.Tanh(), "y": nn.Sigmoid()})))
    rec.append(repr(nn.ParameterList([nn.Parameter(lib.zeros(2, 3)), lib.ones(1)])))
    rec.append(repr(nn.ParameterDict({"a": lib.zeros(2), "b": lib.ones(3)})))
    rec.append(repr(nn.Parameter(lib.ones(2))))
    rec.append(repr(nn.Identity(3)))


@scenario
def state_dict_layout(lib, rec):
    m = Net.make(lib)
    sd = m.state_dict()
    rec.append(list(sd))
    rec.append(dict(sd._metadata))
    rec.append(all(not v.requires_grad for v in sd.values()))
    rec.append([v.requires_grad for v in m.state_dict(keep_vars=True).values()])
    rec.append(list(m.state_dict(prefix="pre.")))
    rec.append(list(m.a.state_dict()))


@scenario
def load_state_dict_errors(lib, rec):
    m = Net.make(lib)
    sd = m.state_dict()
    bad = OrderedDict(sd)
    del bad["a.scale"]
    bad["extra.weight"] = lib.zeros(1)
    bad["head.1.bias"] = lib.zeros(5)
    attempt(rec, m.load_state_dict, bad)
    res = attempt(rec, m.load_state_dict, {"a.fc.weight": lib.zeros(3, 3)}, strict=False)
    rec.append(repr(res))
    rec.append(repr(m.load_state_dict(sd)))
    rec.append(_plain(m.a.fc.weight))
    attempt(rec, m.load_state_dict, [1, 2])
    attempt(rec, m.load_state_dict, {**sd, "a.fc.weight": 3})


@scenario
def load_state_dict_assign_and_copy(lib, rec):
    nn = lib.nn
    lib.manual_seed(1)
    src = nn.Linear(2, 2)
    lib.manual_seed(2)
    dst = nn.Linear(2, 2)
    w_before = dst.weight
    dst.load_state_dict(src.state_dict())
    rec.append(dst.weight is w_before)
    rec.append(_plain(dst.weight))
    dst.load_state_dict(src.state_dict(), assign=True)
    rec.append(dst.weight is w_before)
    rec.append((type(dst.weight).__name__, dst.weight.requires_grad))
    scalar = nn.Module()
    scalar.register_buffer("s", lib.tensor(1.0))
    scalar.load_state_dict({"s": lib.tensor([5.0])})      # the 0.3-era 1-element form
    rec.append(_plain(scalar.s))


@scenario
def attribute_routing_errors(lib, rec):
    nn = lib.nn
    m = nn.Linear(2, 2)

    def assign(name, value):
        setattr(m, name, value)
    attempt(rec, assign, "weight", lib.zeros(2, 2))
    attempt(rec, assign, "weight", None)
    rec.append(m.weight is None)
    attempt(rec, assign, "weight", nn.Parameter(lib.zeros(2, 2)))
    m.child = nn.ReLU()
    attempt(rec, assign, "child", 3)
    m.register_buffer("buf", lib.zeros(1))
    attempt(rec, assign, "buf", "nope")
    attempt(rec, m.register_parameter, "a.b", None)
    attempt(rec, m.register_parameter, "", None)
    attempt(rec, m.register_parameter, "child", None)
    attempt(rec, m.register_parameter, 3, None)
    attempt(rec, m.register_parameter, "p", lib.zeros(1))
    attempt(rec, m.register_parameter, "p", nn.Parameter(lib.ones(1)) * 2)
    attempt(rec, m.register_buffer, "x.y", None)
    attempt(rec, m.register_buffer, "bad", 3)
    attempt(rec, m.register_buffer, "weight", lib.zeros(1))
    attempt(rec, m.add_module, "x.y", nn.ReLU())
    attempt(rec, m.add_module, "", nn.ReLU())
    attempt(rec, m.add_module, "r", 5)
    attempt(rec, m.add_module, 5, nn.ReLU())
    attempt(rec, getattr, m, "missing")
    del m.child
    attempt(rec, getattr, m, "child")
    del m.buf
    rec.append([n for n, _ in m.named_buffers()])

    class Early(nn.Module):
        def __init__(self):
            self.p = nn.Parameter(lib.zeros(1))
    attempt(rec, Early)
    attempt(rec, nn.Module, 1)
    attempt(rec, nn.Module, foo=1)


@scenario
def submodule_paths(lib, rec):
    m = Net.make(lib)
    rec.append(type(m.get_submodule("head.1")).__name__)
    attempt(rec, m.get_submodule, "head.7")
    attempt(rec, m.get_submodule, "a.scale")
    rec.append(_plain(m.get_buffer("a.scale")))
    attempt(rec, m.get_buffer, "a.fc.weight")
    rec.append(tuple(m.get_parameter("head.1.bias").shape))
    attempt(rec, m.get_parameter, "a.scale")
    attempt(rec, m.get_parameter, "a.nope")
    m.set_submodule("head.0", lib.nn.Tanh())
    rec.append(repr(m.head))
    attempt(rec, m.set_submodule, "", lib.nn.Tanh())
    attempt(rec, m.set_submodule, "a.scale", lib.nn.Tanh())
    attempt(rec, m.set_submodule, "a.new", lib.nn.Tanh(), strict=True)


@scenario
def modes_and_grads(lib, rec):
    m = Net.make(lib)
    rec.append(m.training)
    m.eval()
    rec.append([x.training for x in m.modules()])
    attempt(rec, m.train, "yes")
    m.train()
    m(lib.ones(2, 3)).sum().backward()
    rec.append(all(p.grad is not None for p in m.parameters()))
    m.zero_grad(set_to_none=False)
    rec.append([float(p.grad.abs().sum()) for p in m.parameters()])
    m.zero_grad()
    rec.append([p.grad is None for p in m.parameters()])
    m.requires_grad_(False)
    rec.append([p.requires_grad for p in m.parameters()])
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    rec.append(seen)


@scenario
def conversions(lib, rec):
    nn = lib.nn
    m = nn.Linear(2, 2)
    m.register_buffer("count", lib.zeros(1, dtype=lib.int64))
    w = m.weight
    m.double()
    rec.append((str(m.weight.dtype), str(m.count.dtype), m.weight is w))
    m.float()
    m.to(lib.float64)
    rec.append(str(m.bias.dtype))
    m.to("cpu", lib.float32)
    rec.append(str(m.bias.dtype))
    m.to(dtype=lib.float16)
    rec.append(str(m.bias.dtype))
    m.half().float()
    m.to(lib.zeros(1, dtype=lib.float64))
    rec.append(str(m.weight.dtype))
    attempt(rec, m.to, lib.int32)
    m.weight.grad = lib.ones(2, 2, dtype=lib.float64)
    m.float()
    rec.append(str(m.weight.grad.dtype))
    m.type(lib.float64)
    rec.append(str(m.weight.dtype))
    m.cpu()
    rec.append(str(m.weight.device))
    m2 = nn.Linear(2, 3).to_empty(device="cpu")
    rec.append(tuple(m2.weight.shape))


@scenario
def forward_hooks(lib, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Linear(2, 2)
    log = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    h2 = m.register_forward_pre_hook(lambda mod, args: log.append("first"), prepend=True)
    h3 = m.register_forward_hook(lambda mod, args, out: out + 1)
    h4 = m.register_forward_hook(lambda mod, args, kwargs, out: log.append(sorted(kwargs)),
                                 with_kwargs=True)
    rec.append(_plain(m(lib.ones(1, 2))))
    rec.append(log)
    for h in (h1, h2, h3, h4):
        h.remove()
    rec.append(_plain(m(lib.ones(1, 2))))

    def kw_pre(mod, args, kwargs):
        return (args[0] + 1,), kwargs
    with m.register_forward_pre_hook(kw_pre, with_kwargs=True):
        rec.append(_plain(m(lib.ones(1, 2))))
    rec.append(_plain(m(lib.ones(1, 2))))
    bad = m.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
    attempt(rec, m, lib.ones(1, 2))
    bad.remove()


@scenario
def always_call_hooks(lib, rec):
    nn = lib.nn

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    m = Boom()
    log = []
    m.register_forward_hook(lambda mod, args, out: log.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: log.append("normal"))
    attempt(rec, m, lib.ones(1))
    rec.append(log)


@scenario
def backward_hooks(lib, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Linear(3, 2)
    log = []
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", _plain(go))))
    def hook(mod, gi, go):
        log.append(("hook", _plain(gi), _plain(go)))
        return None if gi[0] is None else (gi[0] * 10,)
    m.register_full_backward_hook(hook)
    x = lib.ones(2, 3, requires_grad=True)
    m(x).sum().backward()
    rec.append(log)
    rec.append(_plain(x.grad))
    attempt(rec, m.register_backward_hook, lambda *a: None)
    # no input requires grad: the hooks fire with None grad_inputs
    log.clear()
    m(lib.ones(2, 3)).sum().backward()
    rec.append(log)


@scenario
def backward_hooks_several_inputs(lib, rec):
    nn = lib.nn

    class Two(nn.Module):
        def forward(self, a, k, b):
            return a * b * k, a + b

    def listed(gs):
        return [None if g is None else g.tolist() for g in gs]
    m = Two()
    log = []
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", listed(go))))

    def hook(mod, gi, go):
        log.append(("hook", listed(gi), listed(go)))
        return (gi[0] * 2, None, gi[2])
    m.register_full_backward_hook(hook)
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    x, y = m(a, 3.0, b)
    (x.sum() + (y * 2).sum()).backward()
    rec.append((log, a.grad.tolist(), b.grad.tolist()))
    log.clear()
    x, y = m(a, 2.0, b)
    x.sum().backward()          # one output unused: its grad_output is None
    rec.append((log, a.grad.tolist(), b.grad.tolist()))


@scenario
def legacy_hook_on_linear(lib, rec):
    m = lib.nn.Linear(2, 2)
    shapes = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m.register_backward_hook(lambda mod, gi, go: shapes.append(
            [None if g is None else tuple(g.shape) for g in gi]))
        m(lib.ones(3, 2, requires_grad=True)).sum().backward()
    rec.append((shapes, [str(x.message) for x in w]))


@scenario
def legacy_backward_hook(lib, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Sigmoid()
    log = []
    m.register_backward_hook(lambda mod, gi, go: log.append((_plain(gi), _plain(go))))
    x = lib.tensor([0.5, -1.0], requires_grad=True)
    m(x).sum().backward()
    rec.append(log)
    attempt(rec, m.register_full_backward_hook, lambda *a: None)


@scenario
def global_hooks(lib, rec):
    nn = lib.nn
    mod_hooks = lib.nn.modules.module
    log = []
    handles = [
        mod_hooks.register_module_forward_pre_hook(lambda m, a: log.append(
            ("pre", type(m).__name__))),
        mod_hooks.register_module_forward_hook(lambda m, a, o: log.append(
            ("fwd", type(m).__name__))),
        mod_hooks.register_module_buffer_registration_hook(lambda m, n, b: log.append(
            ("buf", n))),
        mod_hooks.register_module_parameter_registration_hook(lambda m, n, p: log.append(
            ("param", n))),
        mod_hooks.register_module_module_registration_hook(lambda m, n, s: log.append(
            ("mod", n))),
    ]
    try:
        seq = nn.Sequential(nn.Linear(1, 1), nn.ReLU())
        seq(lib.ones(1, 1))
    finally:
        for h in handles:
            h.remove()
    rec.append(log)


@scenario
def state_dict_hooks(lib, rec):
    nn = lib.nn
    m = nn.Linear(2, 2)
    log = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep: log.append(("pre", prefix)))

    def post(mod, sd, prefix, meta):
        sd[prefix + "extra"] = lib.zeros(1)
    m.register_state_dict_post_hook(post)
    rec.append(list(m.state_dict()))
    m.register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, *rest: log.append(("load_pre", sorted(sd))))

    def load_post(mod, keys):
        log.append(("load_post", list(keys.unexpected_keys)))
        keys.unexpected_keys.clear()
    m.register_load_state_dict_post_hook(load_post)
    rec.append(repr(m.load_state_dict(m.state_dict())))
    rec.append(log)


@scenario
def extra_state_and_persistence(lib, rec):
    nn = lib.nn

    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.value = 3
            self.b = nn.Buffer(lib.ones(1))
            self.nb = nn.Buffer(lib.ones(1), persistent=False)

        def get_extra_state(self):
            return {"value": self.value}

        def set_extra_state(self, state):
            self.value = state["value"]
    m = WithExtra()
    sd = m.state_dict()
    rec.append(list(sd))
    sd["_extra_state"] = {"value": 9}
    m.load_state_dict(sd)
    rec.append(m.value)
    rec.append([n for n, _ in m.named_buffers()])
    attempt(rec, m.load_state_dict, {"b": lib.ones(1)})


@scenario
def containers(lib, rec):
    nn = lib.nn
    lib.manual_seed(0)
    s = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Tanh())
    rec.append(type(s[-1]).__name__)
    rec.append(repr(s[1:]))
    attempt(rec, s.__getitem__, 5)
    s.append(nn.Sigmoid())
    s.insert(0, nn.Identity())
    rec.append([type(x).__name__ for x in s])
    rec.append(type(s.pop(1)).__name__)
    del s[0]
    rec.append(list(s._modules))
    rec.append(len(s + nn.Sequential(nn.ReLU())))
    rec.append(len(s * 2))
    attempt(rec, s.__add__, 3)
    attempt(rec, s.__mul__, 0)
    s[0] = nn.ELU()
    rec.append(repr(s))
    rec.append(_plain(nn.Sequential()(lib.ones(2))))
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    ml.extend([nn.ELU()])
    ml.insert(1, nn.Sigmoid())
    ml += [nn.GELU()]
    rec.append([type(x).__name__ for x in ml])
    rec.append(type(ml[-2]).__name__)
    rec.append(len(ml[1:3]))
    del ml[1]
    rec.append(list(ml._modules))
    attempt(rec, ml.__getitem__, 10)
    attempt(rec, ml.extend, 5)
    md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
    md.update([("c", nn.ELU())])
    rec.append(list(md.keys()))
    rec.append("a" in md)
    rec.append(type(md.pop("a")).__name__)
    attempt(rec, md.update, [("x",)])
    md.clear()
    rec.append(len(md))


@scenario
def parameter_containers(lib, rec):
    nn = lib.nn
    pl = nn.ParameterList([lib.ones(2), nn.Parameter(lib.zeros(1))])
    pl.append(lib.ones(3))
    pl.extend([lib.zeros(2)])
    rec.append([type(p).__name__ for p in pl])
    rec.append([n for n, _ in pl.named_parameters()])
    rec.append(len(pl[1:]))
    attempt(rec, pl.extend, lib.ones(2))
    attempt(rec, pl, 1)
    pd = nn.ParameterDict({"b": lib.ones(1), "a": lib.zeros(1)})
    rec.append(list(pd.keys()))
    pd["c"] = lib.ones(2)
    pd.update(OrderedDict(z=lib.ones(1), y=lib.ones(1)))
    rec.append(list(pd))
    rec.append(pd.popitem()[0])
    rec.append(pd.get("nope", 5))
    rec.append(list(pd.fromkeys(["u", "v"], lib.ones(1)).keys()))
    rec.append(list((pd | nn.ParameterDict({"k": lib.ones(1)})).keys()))
    attempt(rec, pd.__getitem__, 3)
    rec.append(sorted(n for n, _ in pd.named_parameters()))


@scenario
def lazy_linear(lib, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.LazyLinear(3)
    rec.append(type(m.weight).__name__)
    out = m(lib.ones(2, 4))
    rec.append((type(m).__name__, tuple(m.weight.shape), tuple(out.shape)))
    rec.append(_plain(m.weight))
    lib.manual_seed(0)
    m2 = nn.LazyLinear(3)
    m2.load_state_dict(nn.Linear(4, 3).state_dict())
    rec.append(tuple(m2.weight.shape))


@scenario
def dir_and_pickle(lib, rec):
    import pickle
    m = Net.make(lib)
    names = dir(m)
    rec.append([n for n in ("a", "b", "head", "shared", "forward", "training") if n in names])
    rec.append(sorted(n for n in dir(lib.nn.Module) if not n.startswith("_")))
    seq = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
    clone = pickle.loads(pickle.dumps(seq))
    rec.append((repr(clone), list(clone.state_dict())))
    import copy
    deep = copy.deepcopy(m)
    rec.append(deep.a.fc.weight is deep.shared.weight)


@pytest.mark.parametrize("fn", SCENARIOS, ids=lambda f: f.__name__)
def test_scenario(fn):
    rec_c, rec_t = _run_both(fn)
    assert len(rec_c) == len(rec_t)
    for i, (c, t) in enumerate(zip(rec_c, rec_t)):
        assert c == t, f"observation {i}: cinder {c!r} != torch {t!r}"
