"""``torch.func``'s transforms against PyTorch on the same inputs: grad / grad_and_value
(argnums, pytrees, has_aux, nesting, graphs kept or not), vjp, jvp, jacrev, jacfwd, hessian,
linearize, compositions with vmap (per-sample gradients, model ensembling with
stack_module_state), functionalize, replace_all_batch_norm_modules_, debug_unwrap, the pytree
helpers, rearrange, and PyTorch's errors for the common misuses."""

import collections
import inspect

import numpy as np
import pytest
import torch
import torch.utils._pytree as torch_pytree

import cinder
import cinder.utils._pytree as cinder_pytree

LIBS = (torch, cinder)
RNG = np.random.default_rng(0)
X = RNG.standard_normal(3)
Y = RNG.standard_normal(3)
M = RNG.standard_normal((2, 3))
S = np.array(0.7)
Point = collections.namedtuple("Point", "a b")


def _env(lib):
    t = lib.from_numpy
    return {"x": t(X.copy()), "y": t(Y.copy()), "m": t(M.copy()), "s": t(S.copy()),
            "F": lib.func, "Point": Point}


def _close(c, t):
    """Same structure; tensors with the same shape, dtype, values and graph-or-not."""
    if isinstance(t, (tuple, list)):
        assert type(c).__name__ == type(t).__name__ and len(c) == len(t), (c, t)
        for a, b in zip(c, t):
            _close(a, b)
    elif isinstance(t, dict):
        assert list(c.keys()) == list(t.keys())
        for k in t:
            _close(c[k], t[k])
    elif not isinstance(t, torch.Tensor):
        assert c == t
    else:
        assert tuple(c.shape) == tuple(t.shape)
        assert str(c.dtype) == str(t.dtype)
        assert c.requires_grad == t.requires_grad, (c, t)
        assert (c.grad_fn is None) == (t.grad_fn is None), (c, t)
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)


def _same(source):
    """``source`` (statements ending by assigning ``out``, or one expression) gives the same
    result on both libraries, or the same exception type and message."""
    results = []
    for lib in LIBS:
        scope = {"L": lib, "np": np, **_env(lib)}
        try:
            if "\n" in source or "out =" in source:
                exec(source, scope)
                value = scope["out"]
            else:
                value = eval(source, scope)
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            results.append(("raises", type(e).__name__, str(e)))
            continue
        results.append(("value", value))
    if results[0][0] == "raises":
        assert results[1] == results[0], (source, results)
        return
    assert results[1][0] == "value", (source, results[1])
    _close(results[1][1], results[0][1])


# ----------------------------------------------------------------------------------------------
# grad / grad_and_value
# ----------------------------------------------------------------------------------------------

GRAD_CASES = [
    "F.grad(lambda x: (x ** 3).sum())(x)",
    "F.grad(lambda x: L.sin(x).sum())(x)",
    "F.grad(lambda x, y: (x * y).sum(), argnums=1)(x, y)",
    "F.grad(lambda x, y: (x * y).sum(), argnums=-1)(x, y)",
    "F.grad(lambda x, y: (x * y.exp()).sum(), argnums=(0, 1))(x, y)",
    "F.grad(lambda p, x: (p['w'] * x + p['b']).pow(2).sum())({'w': x, 'b': s}, y)",
    "F.grad(lambda p: (p[0] * p[1][0]).sum())((x, [y]))",
    "F.grad(lambda p: (p.a * p.b).sum())(Point(x, y))",
    "F.grad(lambda x: ((x ** 2).sum(), x.cos()), has_aux=True)(x)",
    "F.grad(lambda x: ((x ** 2).sum(), {'c': x.cos(), 'n': (x * 2,)}), has_aux=True)(x)",
    "F.grad_and_value(lambda x: (x ** 2).sum())(x)",
    "F.grad_and_value(lambda x, y: (x @ y).tanh(), argnums=(0, 1))(x, y)",
    "F.grad_and_value(lambda x: ((x ** 2).sum(), x.sum()), has_aux=True)(x)",
    "F.grad(lambda x, k=1.0: (k * x ** 2).sum())(x, k=3.0)",
    "F.grad(lambda x: (m @ x).sum())(x)",
    "F.grad(lambda x: y.sum())(x)",                       # output ignores the input: zeros
    "F.grad(lambda x: (x.sum(), 3), has_aux=True)(x)",    # non-tensor aux
    # nesting: higher derivatives
    "F.grad(F.grad(lambda s: s ** 3))(s)",
    "F.grad(F.grad(F.grad(lambda s: s.sin())))(s)",
    "F.grad(lambda x: F.grad(lambda y: (x * y ** 2).sum())(y).sum())(x)",
    "F.grad(lambda s: F.grad(lambda t: t * s ** 2)(s))(s)",
    # an input that requires grad keeps its graph; the input is not modified
    "xr = x.clone().requires_grad_()\nout = (F.grad(lambda v: (v ** 3).sum())(xr), "
    "xr.requires_grad)",
    "xr = x.clone().requires_grad_()\ng = F.grad(lambda v: (v ** 3).sum())(xr)\n"
    "g.sum().backward()\nout = xr.grad",
    "w = s.clone().requires_grad_()\nout = F.grad(lambda v: (v * w).sum())(x)",
    "lin = L.nn.Linear(3, 2).double()\n"
    "out = F.grad(lambda p: F.functional_call(lin, p, (x,)).sum())(dict(lin.named_parameters()))",
    "with L.no_grad():\n    out = F.grad(lambda v: (v ** 2).sum())(x)",
    # an outer no_grad: the transform still differentiates, but no graph reaches outside
    "w = s.clone().requires_grad_()\nwith L.no_grad():\n"
    "    out = (F.grad(lambda v: (v * w).sum())(x), F.vjp(lambda v: v * w, x)[0],\n"
    "           F.jvp(lambda v: v * w, (x,), (y,)), F.jacrev(lambda v: v * w)(x))",
    "xr = x.clone().requires_grad_()\nwith L.no_grad():\n"
    "    out = F.grad(lambda v: (v ** 3).sum())(xr)",
    "def f(a):\n    with L.no_grad():\n        inner = F.grad(lambda t: t ** 3 * a)(a)\n"
    "    return a * inner\n"
    "out = (F.grad(f)(s), F.grad(lambda a: a * F.grad(lambda t: t ** 3)(a))(s))",
]


@pytest.mark.parametrize("source", GRAD_CASES)
def test_grad(source):
    _same(source)


def test_grad_keeps_the_function_name():
    def loss(x):
        return x.sum()
    assert cinder.func.grad(loss).__name__ == "loss"
    assert cinder.func.jacrev(loss).__name__ == "loss"
    assert cinder.func.hessian(loss).__name__ == "loss"


# ----------------------------------------------------------------------------------------------
# vjp, jvp, linearize
# ----------------------------------------------------------------------------------------------

VJP_CASES = [
    "o, fn = F.vjp(L.sin, x)\nout = (o, fn(L.ones(3)))",
    "o, fn = F.vjp(lambda a, b: a * b, x, y)\nout = (o, fn(y))",
    "o, fn = F.vjp(lambda a: (a ** 2, a.sum()), x)\nout = (o, fn((x, s)))",
    "o, fn = F.vjp(lambda a: m @ a, x)\nout = (fn(y[:2]), fn(y[1:] * 2))",
    "o, fn, aux = F.vjp(lambda a: (a.exp(), a.cos()), x, has_aux=True)\nout = (o, fn(y), aux)",
    "o, fn = F.vjp(lambda p: p['a'] * p['b'], {'a': x, 'b': y})\nout = fn(x)",
    "o, fn = F.vjp(lambda a: y * 2, x)\nout = fn(x)",
    "o, fn = F.vjp(L.sin, x)\nout = fn(x)",
    "o, fn = F.vjp(L.sin, x)\nout = (fn(y, retain_graph=False), fn.__qualname__)",
    "o, fn = F.vjp(F.grad(lambda a: (a.sin() * a).sum()), x)\nout = (o, fn(y))",
]

JVP_CASES = [
    "F.jvp(L.sin, (x,), (y,))",
    "F.jvp(lambda a, b: a * b, (x, y), (L.ones(3), L.ones(3)))",
    "F.jvp(lambda a: (a ** 2, (m @ a).tanh()), (x,), (y,))",
    "F.jvp(lambda a: (a.exp(), a.sum()), (x,), (y,), has_aux=True)",
    "F.jvp(lambda p: p['a'] * p['b'].sin(), ({'a': x, 'b': y},), ({'a': y, 'b': x},))",
    "F.jvp(lambda s: s * x, (s,), (L.tensor(1.0, dtype=L.float64),))",
    "F.jvp(lambda a: y * 2, (x,), (y,))",
    "F.jvp(lambda a: (a.argmax(), a * 2), (x,), (y,))",
    "F.grad(lambda a: F.jvp(L.sin, (a,), (y,))[1].sum())(x)",
    "F.jvp(F.grad(lambda a: (a.sin() * a).sum()), (x,), (y,))",
    "o, fn = F.linearize(L.sin, x)\nout = (o, fn(y), fn(L.ones(3)))",
    "o, fn = F.linearize(lambda a, b: (a * b, a.sum()), x, y)\nout = (o, fn(y, x))",
]


@pytest.mark.parametrize("source", VJP_CASES + JVP_CASES)
def test_vjp_jvp_linearize(source):
    _same(source)


# ----------------------------------------------------------------------------------------------
# jacrev, jacfwd, hessian
# ----------------------------------------------------------------------------------------------

JAC_CASES = [
    "F.{jac}(L.sin)(x)",
    "F.{jac}(lambda a: m @ a)(x)",
    "F.{jac}(lambda a: a.sum())(x)",
    "F.{jac}(lambda a: a.outer(a))(x)",
    "F.{jac}(lambda a, b: a * b, argnums=1)(x, y)",
    "F.{jac}(lambda a, b: a * b.exp(), argnums=(0, 1))(x, y)",
    "F.{jac}(lambda a: (a ** 2, a.sum(), m @ a))(x)",
    "F.{jac}(lambda a, b: {{'p': a * b, 'q': (a + b).sum()}}, argnums=(0, 1))(x, y)",
    "F.{jac}(lambda p: p['a'] * p['b'])({{'a': x, 'b': y}})",
    "F.{jac}(lambda a: (a.exp(), a.cos()), has_aux=True)(x)",
    "F.{jac}(lambda a: a.t() @ a)(m)",
    "F.{jac}(lambda a: y * 2)(x)",
    "F.{jac}(F.{jac}(lambda a: (a ** 3).sum()))(x)",
    "F.vmap(F.{jac}(lambda a: a.sin() * a))(m)",
]


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("source", JAC_CASES)
def test_jacobians(source, jac):
    _same(source.format(jac=jac))


OTHER_JAC_CASES = [
    "F.jacrev(L.sin, chunk_size=1)(x)",
    "F.jacrev(lambda a: m @ a, chunk_size=2)(x)",
    "F.jacfwd(lambda a: a * L.rand(3), randomness='same')(x).shape",
    "F.jacfwd(lambda a: a.item() * a)(s)",
    "F.jacrev(lambda a: a.double() * 2)(x.float())",
    "F.jacrev(lambda a: a * x)(s)",
    "F.jacrev(lambda a: a[:0])(x)",
    "F.hessian(lambda a: (a ** 3).sum())(x)",
    "F.hessian(lambda a: (a.sin() * a).sum())(x)",
    "F.hessian(lambda a, b: (a * b ** 2).sum(), argnums=(0, 1))(x, y)",
    "F.hessian(lambda a: a.outer(a).sum())(m)",
    "F.vmap(F.hessian(lambda a: a.exp().sum()))(m)",
]


@pytest.mark.parametrize("source", OTHER_JAC_CASES)
def test_jacrev_options_and_hessian(source):
    _same(source)


NN_PREAMBLE = ("r = np.random.default_rng(5)\n"
               "A = L.from_numpy(r.standard_normal((2, 3, 5, 5)))\n"
               "K = L.from_numpy(r.standard_normal((4, 3, 3, 3)))\n"
               "Z = L.from_numpy(r.standard_normal((2, 6)))\n"
               "W = L.from_numpy(r.standard_normal(6))\nT = L.tensor([1, 0])\n")

NN_CASES = [   # second derivatives through the fused nn kernels
    "out = F.hessian(lambda z: L.nn.functional.cross_entropy(z, T))(Z)",
    "out = F.hessian(lambda w: L.nn.functional.layer_norm(Z, (6,), w).pow(2).sum())(W)",
    "out = F.jacfwd(lambda k: L.nn.functional.conv2d(A, k).tanh().sum((0, 2, 3)))(K)",
    "out = F.hessian(lambda k: L.nn.functional.conv2d(A, k).tanh().sum())(K[:1, :1])",
    "out = F.jvp(lambda a: L.nn.functional.max_pool2d(a, 2).exp(), (A,), (A,))",
    "out = F.hessian(lambda z: L.nn.functional.batch_norm(z, None, None, training=True)"
    ".pow(3).sum())(Z)",
    "out = F.hessian(lambda z: z.norm(dim=1).sum() + z.logsumexp(1).sum())(Z)",
]


@pytest.mark.parametrize("source", NN_CASES)
def test_second_derivatives_through_nn_ops(source):
    _same(NN_PREAMBLE + source)


# ----------------------------------------------------------------------------------------------
# vmap compositions on modules: per-sample gradients, ensembling
# ----------------------------------------------------------------------------------------------

W1, B1 = RNG.standard_normal((4, 3)), RNG.standard_normal(4)
W2, B2 = RNG.standard_normal((2, 4)), RNG.standard_normal(2)
DATA = RNG.standard_normal((5, 3)).astype(np.float32)
TARGET = np.array([0, 1, 1, 0, 1])


def _model(lib, shift=0.0):
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for p, v in zip(model.parameters(), (W1, B1, W2, B2)):
            p.copy_(lib.from_numpy(v + shift))
    return model


def _per_sample_grads(lib):
    model = _model(lib)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss_fn(params, x, y):
        out = lib.func.functional_call(model, params, (x.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, y.unsqueeze(0))
    x, y = lib.from_numpy(DATA), lib.from_numpy(TARGET)
    return lib.func.vmap(lib.func.grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)


def test_per_sample_gradients():
    got, want = _per_sample_grads(cinder), _per_sample_grads(torch)
    _close(got, want)
    assert got["0.weight"].shape == (5, 4, 3)


def _ntk_implicit(lib):
    """The neural-tangent-kernel tutorial's implicit form: vjp, then jvp, vmapped twice."""
    model = _model(lib).double()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def net(p, x):
        return lib.func.functional_call(model, p, (x.unsqueeze(0),)).squeeze(0)

    def ntk(x1, x2):
        out, vjp_fn = lib.func.vjp(lambda p: net(p, x1), params)

        def column(vec):
            return lib.func.jvp(lambda p: net(p, x2), (params,), vjp_fn(vec))[1]
        return lib.func.vmap(column)(lib.eye(out.numel(), dtype=out.dtype))
    x1 = lib.from_numpy(DATA[:3].astype(np.float64))
    x2 = lib.from_numpy(DATA[3:].astype(np.float64))
    return lib.func.vmap(lib.func.vmap(ntk, (None, 0)), (0, None))(x1, x2)


def test_neural_tangent_kernel():
    got, want = _ntk_implicit(cinder), _ntk_implicit(torch)
    _close(got, want)
    assert got.shape == (3, 2, 2, 2)


def _ensemble(lib):
    models = [_model(lib, shift) for shift in (0.0, 0.5, -1.0)]
    params, buffers = lib.func.stack_module_state(models)
    base = _model(lib)

    def run(params, buffers, x):
        return lib.func.functional_call(base, (params, buffers), (x,))
    x = lib.from_numpy(DATA)
    out = lib.func.vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    return params, buffers, out


def test_model_ensembling():
    got, want = _ensemble(cinder), _ensemble(torch)
    _close(got, want)
    assert got[0]["0.weight"].is_leaf and got[0]["0.weight"].requires_grad


def test_stack_module_state_buffers_and_no_grad_params():
    def run(lib):
        models = [lib.nn.BatchNorm1d(3) for _ in range(2)]
        models[1].running_mean.fill_(2.0)
        for m in models:
            m.weight.requires_grad_(False)
        return lib.func.stack_module_state(models)
    _close(run(cinder), run(torch))


STACK_ERRORS = [
    "F.stack_module_state([])",
    "F.stack_module_state([L.nn.Linear(2, 2), L.nn.Linear(2, 2).eval()])",
    "F.stack_module_state([L.nn.Linear(2, 2), L.nn.Conv1d(2, 2, 1)])",
    "F.stack_module_state([L.nn.Linear(2, 2), L.nn.Linear(2, 2).requires_grad_(False)])",
    "F.functional_call(L.nn.Linear(3, 1), ({'weight': m[:1]}, {'weight': m[:1]}), (x,))",
    "F.functional_call(L.nn.Linear(3, 1), ({'weight': m[:1]}, 3), (x,))",
    "F.functional_call(L.nn.Linear(3, 1), 3, (x,))",
    "F.functional_call(L.nn.Linear(3, 1), ({'weight': m[:1]}, {'bias': s[None]}), x)",
]


@pytest.mark.parametrize("source", STACK_ERRORS)
def test_stack_module_state_and_functional_call_forms(source):
    _same(source)


# ----------------------------------------------------------------------------------------------
# functionalize, replace_all_batch_norm_modules_, debug_unwrap
# ----------------------------------------------------------------------------------------------

FUNCTIONALIZE_CASES = [
    "def f(a):\n    b = a.view(-1)\n    b.add_(1)\n    return a * 2\n"
    "a = x.clone()\nout = (F.functionalize(f)(a), a)",
    "def f(a):\n    a.mul_(3)\n    return a.sum()\n"
    "a = x.clone()\nout = (F.functionalize(f, remove='mutations_and_views')(a), a)",
    "F.functionalize(L.sin, remove='views')",
    "F.grad(F.functionalize(lambda a: (a.clone().add_(1) ** 2).sum()))(x)",
    "F.debug_unwrap(x)",
    "F.debug_unwrap(F.grad(lambda a: (a ** 2).sum())(x), recurse=False)",
]


@pytest.mark.parametrize("source", FUNCTIONALIZE_CASES)
def test_functionalize_and_debug_unwrap(source):
    _same(source)


def test_functionalize_keeps_the_name():
    def step(a):
        return a
    assert cinder.func.functionalize(step).__name__ == "step"


def test_replace_all_batch_norm_modules_():
    def run(lib):
        net = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.BatchNorm1d(3),
                                lib.nn.Sequential(lib.nn.BatchNorm2d(2)))
        bn = lib.nn.BatchNorm1d(3)
        same = lib.func.replace_all_batch_norm_modules_(net) is net
        lib.func.replace_all_batch_norm_modules_(bn)
        states = [(m.running_mean, m.running_var, m.num_batches_tracked, m.track_running_stats)
                  for m in (net[1], net[2][0], bn)]
        return same, states, list(net.state_dict().keys()), repr(net)
    got, want = run(cinder), run(torch)
    assert got == want


# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------

ERROR_CASES = [
    "F.grad(lambda a: a * 2)(x)",
    "F.grad(lambda a: a.sum().reshape(1))(x)",
    "F.grad(lambda a: 3.0)(x)",
    "F.grad(lambda a: a.sum(), argnums=2)(x, y)",
    "F.grad(lambda a, b: a.sum(), argnums=-3)(x, y)",
    "F.grad(lambda a: a.sum(), argnums=1.0)(x)",
    "F.grad(lambda a: a.sum(), argnums=[0])(x)",
    "F.grad(lambda a, b: a.sum(), argnums=(0, 0))(x, y)",
    "F.grad(lambda a, b: a.sum(), argnums=())(x, y)",
    "F.grad(lambda a, b: a.sum(), argnums=(0, 'b'))(x, y)",
    "F.grad(lambda a: a.sum(), has_aux=True)(x)",
    "F.grad(lambda a: (a.sum(), 1, 2), has_aux=True)(x)",
    "F.grad(lambda a: a.sum())(3.0)",
    "F.grad(lambda a: a['k'].sum())({'k': 2})",
    "F.vjp(lambda a: (a * 2).long(), x)",
    "F.vjp(lambda a: None, x)",
    "F.vjp(lambda a: (a, 3), x)",
    "F.vjp(lambda a: a, x, has_aux=True)",
    "o, fn = F.vjp(lambda a: (a, a), x)\nout = fn(x)",
    "o, fn = F.vjp(lambda a: a * 2, x)\nout = fn(L.ones(4))",
    "F.jvp(L.sin, x, (y,))",
    "F.jvp(L.sin, (x,), y)",
    "F.jvp(L.sin, (x,), (y, y))",
    "F.jvp(L.sin, (x,), (L.ones(2),))",
    "F.jvp(lambda a: a, (x,), (y,), has_aux=True)",
    "F.jvp(lambda a: y, (x,), (y,), strict=True)",
    "F.jvp(lambda a: (a * 2, y), (x,), (y,), strict=True)",
    "F.jvp(lambda a: (a * 2, a.sum()), (x,), (y,), strict=True)",
    "F.jvp(L.sin, (3.0,), (1.0,))",
    "F.jvp(lambda a: a * 2, (L.tensor([1, 2]),), (L.tensor([1, 1]),))",
    "F.jacfwd(lambda a: a.item() * a)(x)",
    "F.jacfwd(lambda a: a * 2)(3.0)",
    "F.jacfwd(lambda a: a * 2)(L.tensor([1, 2]))",
    "F.jacfwd(lambda a: a.sum())(x.to(L.complex64))",
    "F.jacfwd(lambda a: (a * 2).long())(x)",
    "F.jacfwd(lambda a: 3)(x)",
    "F.hessian(lambda a: (a * L.rand(3)).sum())(x)",
    "F.hessian(lambda a: (a * 2).sum())(3.0)",
    "F.hessian(lambda a: (a * 2).sum())(L.tensor([1, 2]))",
    "F.hessian(lambda a: (a * 2).sum(), argnums=3)(x)",
    "F.hessian(lambda a: a.sum())(x.to(L.complex64))",
    "F.grad(lambda a: a.sum())(L.tensor([1, 2]))",
    "F.jacrev(L.sin, chunk_size=0)",
    "F.jacrev(L.sin)(x.to(L.complex64))",
    "F.jacfwd(lambda a: a * L.rand(3))(x)",
    "F.jacfwd(L.sin, randomness='nope')(x)",
    "o, fn = F.linearize(L.sin, x)\nout = fn(L.ones(2))",
    "o, fn = F.linearize(L.sin, x)\nout = fn(x.float())",
    "o, fn = F.linearize(L.sin, x)\nout = fn(x, x)",
]


@pytest.mark.parametrize("source", ERROR_CASES)
def test_errors(source):
    _same(source)


# ----------------------------------------------------------------------------------------------
# The pytree helpers
# ----------------------------------------------------------------------------------------------

TREES = [
    (1, [2, {"x": 3, "y": None}], Point(4, 5)),
    [],
    {},
    (7,),
    collections.OrderedDict(a=1, b=(2, 3)),
    collections.defaultdict(list, a=1),
    collections.deque([1, [2]]),
    "leaf",
]


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_pytree_matches_pytorch(tree):
    leaves, spec = cinder_pytree.tree_flatten(tree)
    want_leaves, want_spec = torch_pytree.tree_flatten(tree)
    assert leaves == want_leaves
    assert cinder_pytree.treespec_pprint(spec) == torch_pytree.treespec_pprint(want_spec)
    rebuilt = cinder_pytree.tree_unflatten(leaves, spec)
    assert rebuilt == tree and type(rebuilt) is type(tree)
    def double(v):
        return None if v is None else v * 2
    doubled = cinder_pytree.tree_map(double, tree)
    assert doubled == torch_pytree.tree_map(double, tree)
    assert repr(spec) == repr(want_spec)


def test_pytree_specs_compare_by_structure():
    def spec(t):
        return cinder_pytree.tree_structure(t)
    assert spec((1, [2])) == spec((5, [6]))
    assert spec((1, [2])) != spec((1, (2,)))
    assert spec({"a": 1}) != spec({"b": 1})
    assert spec(Point(1, 2)) != spec((1, 2))
    with pytest.raises(ValueError):
        cinder_pytree.tree_unflatten([1], spec((1, 2)))
    with pytest.raises(ValueError):
        cinder_pytree.tree_map(lambda a, b: a, (1, 2), [1, 2])


def test_public_names_match_pytorch():
    expected = set(torch.func.__all__)
    assert expected == set(cinder.func.__all__)
    for name in expected:
        want = inspect.signature(getattr(torch.func, name)).parameters.values()
        got = inspect.signature(getattr(cinder.func, name)).parameters.values()
        assert [(p.name, p.kind, p.default) for p in got] == \
            [(p.name, p.kind, p.default) for p in want], name


# ----------------------------------------------------------------------------------------------
# rearrange
# ----------------------------------------------------------------------------------------------

REARRANGE_CASES = [
    ("b h c -> b c h", {}), ("b h c -> (b h) c", {}), ("b h c -> h (b c)", {}),
    ("b h c -> c (h b)", {"b": 2}), ("b (h w) c -> b h w c", {"h": 3}),
    ("b (h w) c -> (b h) w c", {"w": 2}), ("b (h h1) c -> b h (c h1)", {"h1": 2}),
    ("... c -> c ...", {}), ("b ... -> (b ...)", {}), ("... -> ...", {}),
    ("b h c -> b 1 h c ()", {}), ("b h c -> b (h 1 c)", {}), ("b h c -> b h c", {}),
    ("b ... c -> c (b ...)", {}),
    # errors
    ("b (h w) c -> b h w c", {}), ("b (h w) c -> b h w c", {"h": 5}),
    ("b (h w) c -> b h w c", {"h": 3, "w": 3}), ("b h c -> b h c", {"b": 3}),
    ("b h c -> b h", {}), ("b h -> h b", {}), ("(a ...) -> a", {}), ("b h c -> b h c", {"q": 2}),
    ("b 2 c -> b c", {}), ("b h c", {}), ("b h h -> b h", {}), ("b h c -> b h c", {"h": 2.0}),
    ("b-h c -> b", {}), ("b h c -> b h c ...", {}), ("b (h (w)) c -> b", {}),
    ("b h c) -> b", {}), ("b (h c -> b", {}), ("b h _c -> b h _c", {}), ("b h .. -> b h", {}),
    ("a b c d e -> a ...", {}),
]


@pytest.mark.parametrize("pattern, lengths", REARRANGE_CASES)
def test_rearrange(pattern, lengths):
    _same(f"F.rearrange(L.arange(48.0).reshape(4, 6, 2), {pattern!r}, **{lengths!r})")


def test_rearrange_of_a_list_drop_of_size_one_and_gradients():
    _same("F.rearrange([m, m * 2], 'n b c -> b (c n)')")
    _same("F.rearrange(m[:, :1], 'b 1 -> b')")
    _same("a = m.clone().requires_grad_()\n"
          "F.rearrange(a, 'b (c d) -> d b c', d=3).pow(2).sum().backward()\nout = a.grad")
