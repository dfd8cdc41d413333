"""nn.utils and nn.init against PyTorch: same calls in both libraries, same observations
(values to float tolerance or bit for bit where random streams are involved)."""

import warnings

import numpy as np
import pytest
import torch

import cinder

SCENARIOS = []


def scenario(fn):
    SCENARIOS.append(fn)
    return fn


def obs(v, decimals=5):
    """A comparable summary of ``v``: arrays rounded to ``decimals`` (on a grid offset by a
    third of a step, so float32 noise rarely straddles a rounding boundary)."""
    if hasattr(v, "detach") and hasattr(v, "shape"):
        arr = v.detach().numpy().astype(float)
        step = 10.0 ** -decimals
        return ("tensor", tuple(v.shape), (np.floor(arr / step + 1 / 3) * step).round(
            decimals + 2).tolist())
    if isinstance(v, (list, tuple)):
        return [obs(x, decimals) for x in v]
    if isinstance(v, dict):
        return {k: obs(x, decimals) for k, x in v.items()}
    return v


class Approx:
    """An observed array compared to within ``atol`` (for results whose last float32 digits
    depend on the algorithm, e.g. a matrix exponential)."""

    def __init__(self, v, atol):
        self.arr = np.asarray(v.detach().numpy(), dtype=float)
        self.atol = atol

    def __eq__(self, other):
        return isinstance(other, Approx) and self.arr.shape == other.arr.shape and \
            np.allclose(self.arr, other.arr, rtol=0, atol=max(self.atol, other.atol))

    def __repr__(self):
        return f"Approx({self.arr.tolist()})"


def err(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 -- compared with PyTorch's
        return type(e).__name__, str(e)
    return None


def model(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.Tanh(), lib.nn.Linear(3, 2))
    m(lib.ones(5, 4) * 0.3).pow(2).sum().backward()
    return m


@scenario
def clip_grad_norms(lib, rec):
    utils = lib.nn.utils
    for norm_type in (2.0, 1, float("inf"), 3.5):
        m = model(lib)
        total = utils.clip_grad_norm_(m.parameters(), 0.1, norm_type=norm_type)
        rec.append(obs(total))
        rec.append(obs([p.grad for p in m.parameters()]))
    m = model(lib)
    rec.append(obs(utils.get_total_norm([p.grad for p in m.parameters()])))
    utils.clip_grads_with_norm_(m.parameters(), 0.5, lib.tensor(2.0))
    rec.append(obs([p.grad for p in m.parameters()]))
    m = model(lib)
    next(m.parameters()).grad[0, 0] = float("nan")
    rec.append(err(utils.clip_grad_norm_, m.parameters(), 1.0, error_if_nonfinite=True))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        utils.clip_grad_norm_((p for p in []), 1.0)
    rec.append([str(x.message) for x in w])
    m = model(lib)
    utils.clip_grad_value_(m.parameters(), 0.05)
    rec.append(obs([p.grad for p in m.parameters()]))
    rec.append(obs(utils.clip_grad_norm_(lib.nn.Linear(2, 2).weight, 1.0)))


@scenario
def vectors(lib, rec):
    m = model(lib)
    vec = lib.nn.utils.parameters_to_vector(m.parameters())
    rec.append(obs(vec))
    lib.nn.utils.vector_to_parameters(vec * 2, m.parameters())
    rec.append(obs(m.state_dict()))
    rec.append(err(lib.nn.utils.vector_to_parameters, [1.0], m.parameters()))


@scenario
def custom_parametrization(lib, rec):
    nn = lib.nn
    P = nn.utils.parametrize

    class Scale(nn.Module):
        def forward(self, x):
            return x * 2

        def right_inverse(self, x):
            return x / 2

    lib.manual_seed(0)
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Scale())
    rec.append(repr(m))
    rec.append(type(m).__name__)
    rec.append(list(m.state_dict()))
    rec.append(obs(m.weight))
    rec.append(P.is_parametrized(m, "weight"))
    m.weight = lib.ones(3, 3)
    rec.append(obs(m.parametrizations.weight.original))
    m(lib.ones(2, 3)).sum().backward()
    rec.append(obs(m.parametrizations.weight.original.grad))
    with P.cached():
        rec.append(m.weight is m.weight)
    rec.append(P.type_before_parametrizations(m).__name__)
    P.remove_parametrizations(m, "weight")
    rec.append((type(m).__name__, list(m.state_dict()), obs(m.weight)))
    rec.append(err(P.remove_parametrizations, m, "weight"))
    rec.append(err(P.register_parametrization, m, "nope", Scale()))


@scenario
def weight_norm_parametrization(lib, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3))
    rec.append(list(m.state_dict()))
    rec.append(obs(m.parametrizations.weight.original0))
    out = m(lib.ones(2, 4))
    out.pow(2).sum().backward()
    rec.append(obs(out))
    rec.append(obs([m.parametrizations.weight.original0.grad,
                    m.parametrizations.weight.original1.grad]))
    m2 = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3), dim=None)
    rec.append(obs(m2.parametrizations.weight.original0))


@scenario
def spectral_norm_parametrization(lib, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 4))
    rec.append(list(m.state_dict()))
    rec.append(obs(m.parametrizations.weight[0]._u))
    out = m(lib.ones(2, 5))
    rec.append(obs(out))
    m.eval()
    rec.append(obs(m.weight))


@scenario
def orthogonal_parametrization(lib, rec):
    P = lib.nn.utils.parametrizations
    cases = [((4, 4), None, True), ((5, 3), None, True), ((3, 5), None, True),
             ((4, 4), "cayley", True), ((5, 3), "householder", False)]
    for shape, omap, triv in cases:
        lib.manual_seed(0)
        m = P.orthogonal(lib.nn.Linear(shape[1], shape[0]), orthogonal_map=omap,
                         use_trivialization=triv)
        rec.append((Approx(m.weight, 1e-5), sorted(m.state_dict())))
        orig = m.parametrizations.weight.original
        with lib.no_grad():
            orig.add_(lib.from_numpy(np.linspace(-0.2, 0.2, orig.numel(), dtype=np.float32)
                                     .reshape(tuple(orig.shape))))
        m(lib.ones(2, shape[1])).sum().backward()
        rec.append((Approx(m.weight, 1e-4), Approx(orig.grad, 1e-3)))
    rec.append(err(P.orthogonal, lib.nn.Linear(3, 3), orthogonal_map="qr"))
    rec.append(err(P.orthogonal, lib.nn.PReLU()))


@scenario
def orthogonal_parametrization_batched(lib, rec):
    """Weights with leading batch dims: every map, with and without trivialization, square,
    tall and wide matrices (the wide ones draw their completion from the seeded stream)."""
    P = lib.nn.utils.parametrizations
    rng = np.random.default_rng(5)
    for shape in ((3, 4, 4), (2, 3, 5, 3), (2, 3, 5)):
        start = rng.standard_normal(shape).astype(np.float32)
        for omap in ("matrix_exp", "cayley", "householder"):
            for triv in (True, False):
                lib.manual_seed(0)
                m = lib.nn.Linear(shape[-1], shape[-2])
                m.weight = lib.nn.Parameter(lib.from_numpy(start.copy()))
                P.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
                w = m.weight
                rec.append((Approx(w, 1e-5), sorted(m.state_dict())))
                (w * lib.from_numpy(np.linspace(-1, 1, w.numel(), dtype=np.float32)
                                    .reshape(shape))).sum().backward()
                rec.append(Approx(m.parametrizations.weight.original.grad, 1e-4))


@scenario
def legacy_norms(lib, rec):
    nn = lib.nn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib.manual_seed(0)
        m = nn.utils.weight_norm(nn.Linear(4, 3))
        rec.append(list(m.state_dict()))
        rec.append(obs(m(lib.ones(1, 4))))
        rec.append(err(nn.utils.weight_norm, m))
        nn.utils.remove_weight_norm(m)
        rec.append(list(m.state_dict()))
        rec.append(err(nn.utils.remove_weight_norm, m))
        lib.manual_seed(0)
        s = nn.utils.spectral_norm(nn.Linear(4, 3))
        rec.append(list(s.state_dict()))
        rec.append(dict(s.state_dict()._metadata))
        rec.append(obs(s.weight_u))
        rec.append(obs(s(lib.ones(1, 4))))
        nn.utils.remove_spectral_norm(s)
        rec.append(list(s.state_dict()))


@scenario
def functional_call(lib, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Linear(2, 2)
    params = {"weight": lib.ones(2, 2), "bias": lib.zeros(2)}
    rec.append(obs(lib.func.functional_call(m, params, (lib.ones(1, 2),))))
    rec.append(obs(m.weight))
    rec.append(err(lib.func.functional_call, m, {"weight": lib.ones(2, 2)}, lib.ones(1, 2),
                   strict=True))

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))
    t = Tied()
    rec.append(obs(lib.func.functional_call(t, {"a.weight": lib.ones(2, 2) * 2},
                                            lib.ones(1, 2))))


@scenario
def skip_init_and_parallel(lib, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.utils.skip_init(nn.Linear, 3, 4)
    rec.append(tuple(m.weight.shape))
    rec.append(obs(lib.rand(2)))               # the random stream was not consumed
    rec.append(err(nn.utils.skip_init, int))
    dp = nn.DataParallel(nn.Linear(2, 2))
    rec.append((repr(dp), list(dp.state_dict())))
    rec.append(tuple(dp(lib.ones(3, 2)).shape))


@scenario
def fuse_linear_bn(lib, rec):
    nn = lib.nn
    if not hasattr(nn, "BatchNorm1d"):
        pytest.skip("BatchNorm1d comes from the nnlayers branch")
    lib.manual_seed(0)
    lin, bn = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
    bn.running_mean.fill_(0.5)
    bn.running_var.fill_(2.0)
    fused = nn.utils.fuse_linear_bn_eval(lin, bn)
    x = lib.ones(2, 3)
    rec.append(obs(fused(x)))


@scenario
def init_functions(lib, rec):
    init = lib.nn.init
    w = lib.empty(4, 6)
    for fn, args in ((init.uniform_, (-1, 2)), (init.normal_, (0.5, 2)),
                     (init.xavier_uniform_, ()), (init.xavier_normal_, (1.5,)),
                     (init.kaiming_uniform_, ()), (init.kaiming_normal_, (0, "fan_out", "relu")),
                     (init.trunc_normal_, ()), (init.constant_, (0.3,)), (init.ones_, ()),
                     (init.zeros_, ()), (init.eye_, ())):
        lib.manual_seed(3)
        fn(w, *args)
        rec.append(w.numpy().tobytes())
    g = lib.Generator().manual_seed(5)
    init.uniform_(w, generator=g)
    rec.append(w.numpy().tobytes())
    lib.manual_seed(3)
    init.orthogonal_(w)
    rec.append(obs(w))
    lib.manual_seed(3)
    init.sparse_(w, 0.5)
    rec.append(w.numpy().tobytes())
    d = lib.empty(4, 2, 3, 3)
    init.dirac_(d, 2)
    rec.append(d.numpy().tobytes())
    rec.append([init.calculate_gain(n) for n in ("linear", "tanh", "relu", "selu")])
    rec.append(init.calculate_gain("leaky_relu", 0.2))
    rec.append(err(init.calculate_gain, "foo"))
    rec.append(err(init.kaiming_uniform_, lib.empty(3)))
    rec.append(err(init.kaiming_uniform_, w, mode="fan"))
    rec.append(err(init.eye_, lib.empty(3)))


@pytest.mark.parametrize("fn", SCENARIOS, ids=lambda f: f.__name__)
def test_scenario(fn):
    rec_c, rec_t = [], []
    fn(cinder, rec_c)
    fn(torch, rec_t)
    assert len(rec_c) == len(rec_t)
    for i, (c, t) in enumerate(zip(rec_c, rec_t)):
        assert c == t, f"observation {i}: cinder {c!r} != torch {t!r}"
