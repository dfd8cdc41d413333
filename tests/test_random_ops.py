"""The Tensor-level random API against PyTorch, bit for bit.

``tests/test_random_engine.py`` checks the MT19937 engine itself; this file checks the wrappers
built on it (cinder/ops/random.py, cinder/random.py): every function and argument form,
dtypes, shapes, ``generator=``, ``out=``, in-place samplers, the RNG state round trip with
PyTorch, ``fork_rng``, and errors. Each draw seeds both libraries identically, requires
identical bits (floats compared through an unsigned-integer view) and then requires the two
generators' states to be identical, so both consumed exactly the same engine outputs.
"""

import warnings

import numpy as np
import pytest
import torch

import cinder

SEEDS = [0, 1, 1000]
SIZES = [5, 16, 17, 1000, 100003]

# The float32 normal and some bfloat16 paths follow PyTorch's AVX2/AVX-512 kernels exactly;
# with PyTorch running its DEFAULT kernels those draws differ (see test_random_engine.py).
_AVX = torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")
needs_avx = pytest.mark.skipif(not _AVX, reason="matches PyTorch's AVX2/AVX-512 kernels only")


def bits(t):
    """Raw bits of a tensor's values (so -0.0 vs 0.0 and NaN payloads count)."""
    t = t.detach()
    if isinstance(t, torch.Tensor):
        arr = t.view(torch.int16).numpy() if t.dtype == torch.bfloat16 else t.numpy()
    else:
        arr = np.asarray(t.numpy())
    arr = np.ascontiguousarray(arr)
    if arr.dtype == np.bool_:
        return arr
    return arr.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}[
        arr.dtype.itemsize])


def assert_same_draw(c, t, what=""):
    assert isinstance(c, cinder.Tensor), f"{what}: not a Tensor: {type(c)}"
    assert str(c.dtype) == str(t.dtype), f"{what}: dtype {c.dtype} != torch's {t.dtype}"
    assert tuple(c.shape) == tuple(t.shape), f"{what}: shape {tuple(c.shape)} != {tuple(t.shape)}"
    assert c.requires_grad == t.requires_grad, f"{what}: requires_grad differs"
    np.testing.assert_array_equal(bits(c), bits(t), err_msg=what)


def assert_same_state():
    """The default generators consumed the same engine outputs."""
    np.testing.assert_array_equal(cinder.get_rng_state().numpy(),
                                  torch.get_rng_state().numpy(), err_msg="generator state")


def draw(fn, seed):
    """Run ``fn(lib)`` after seeding each library's default generator with ``seed``."""
    torch.manual_seed(seed)
    t = fn(torch)
    cinder.manual_seed(seed)
    c = fn(cinder)
    return c, t


def check(fn, seed, what=""):
    c, t = draw(fn, seed)
    if isinstance(t, (tuple, list)):
        for i, (ci, ti) in enumerate(zip(c, t)):
            assert_same_draw(ci, ti, f"{what}[{i}]")
    else:
        assert_same_draw(c, t, what)
    assert_same_state()


def _probs(lib, n, dtype="float32", seed=123):
    """Deterministic probabilities in [0, 1] (no generator draws)."""
    values = np.random.default_rng(seed).random(n).astype(dtype)
    return lib.from_numpy(values)


def _values(lib, n, dtype="float32", low=-2.0, high=2.0, seed=7):
    values = np.random.default_rng(seed).uniform(low, high, n).astype(dtype)
    return lib.from_numpy(values)


# ----------------------------------------------------------------------------------------------
# Sampling functions: name -> fn(lib, n)
# ----------------------------------------------------------------------------------------------

SAMPLERS = {
    "rand": lambda lib, n: lib.rand(n),
    "rand-float64": lambda lib, n: lib.rand(n, dtype=lib.float64),
    "rand-float16": lambda lib, n: lib.rand(n, dtype=lib.float16),
    "rand-bfloat16": lambda lib, n: lib.rand(n, dtype=lib.bfloat16),
    "rand-2d": lambda lib, n: lib.rand(2, (n + 1) // 2),
    "randn": lambda lib, n: lib.randn(n),
    "randn-float64": lambda lib, n: lib.randn(n, dtype=lib.float64),
    "randn-float16": lambda lib, n: lib.randn(n, dtype=lib.float16),
    "randn-bfloat16": lambda lib, n: lib.randn(n, dtype=lib.bfloat16),
    "randn-tuple": lambda lib, n: lib.randn((1, n)),
    "randint-high": lambda lib, n: lib.randint(10, (n,)),
    "randint-low-high": lambda lib, n: lib.randint(-5, 5, (n,)),
    "randint-wide": lambda lib, n: lib.randint(0, 2 ** 40, (n,)),
    "randint-int32": lambda lib, n: lib.randint(-100, 100, (n,), dtype=lib.int32),
    "randint-uint8": lambda lib, n: lib.randint(0, 256, (n,), dtype=lib.uint8),
    "randint-int16": lambda lib, n: lib.randint(-7, 3, (n,), dtype=lib.int16),
    "randint-float32": lambda lib, n: lib.randint(0, 100, (n,), dtype=lib.float32),
    "randint-float64": lambda lib, n: lib.randint(3, (n,), dtype=lib.float64),
    "randint-keywords": lambda lib, n: lib.randint(low=2, high=9, size=(n,)),
    "randperm": lambda lib, n: lib.randperm(n),
    "randperm-int32": lambda lib, n: lib.randperm(n, dtype=lib.int32),
    "randperm-float32": lambda lib, n: lib.randperm(min(n, 1000), dtype=lib.float32),
    "normal-floats": lambda lib, n: lib.normal(0.5, 2.0, (n,)),
    "normal-floats-float64": lambda lib, n: lib.normal(-1.0, 0.5, size=(n,),
                                                        dtype=lib.float64),
    "normal-tensors": lambda lib, n: lib.normal(_values(lib, n), _probs(lib, n) + 0.5),
    "normal-tensor-mean": lambda lib, n: lib.normal(_values(lib, n), 2.0),
    "normal-tensor-std": lambda lib, n: lib.normal(1.0, _probs(lib, n)),
    "normal-float64-tensors": lambda lib, n: lib.normal(_values(lib, n, "float64"),
                                                         _probs(lib, n, "float64")),
    "bernoulli": lambda lib, n: lib.bernoulli(_probs(lib, n)),
    "bernoulli-float64": lambda lib, n: lib.bernoulli(_probs(lib, n, "float64")),
    "bernoulli-p": lambda lib, n: lib.bernoulli(_probs(lib, n), 0.3),
    "bernoulli-method": lambda lib, n: _probs(lib, n).bernoulli(),
    "multinomial-replacement": lambda lib, n: lib.multinomial(_probs(lib, 10) + 0.01, n,
                                                              replacement=True),
    "multinomial-no-replacement": lambda lib, n: lib.multinomial(_probs(lib, n) + 0.01,
                                                                 min(n, 50)),
    "multinomial-2d": lambda lib, n: lib.multinomial(
        _probs(lib, 3 * 7).reshape(3, 7) + 0.01, min(n, 7)),
    "multinomial-method": lambda lib, n: (_probs(lib, 12) + 0.1).multinomial(n, True),
    "rand_like": lambda lib, n: lib.rand_like(_values(lib, n, "float64")),
    "randn_like": lambda lib, n: lib.randn_like(_values(lib, n)),
    "randn_like-dtype": lambda lib, n: lib.randn_like(_values(lib, n), dtype=lib.float64),
    "randint_like-high": lambda lib, n: lib.randint_like(_values(lib, n), 10),
    "randint_like-low-high": lambda lib, n: lib.randint_like(
        _values(lib, n).long(), -3, 4),
    "uniform_": lambda lib, n: lib.empty(n).uniform_(),
    "uniform_-range": lambda lib, n: lib.empty(n, dtype=lib.float64).uniform_(-2, 3),
    "uniform_-half": lambda lib, n: lib.empty(n, dtype=lib.float16).uniform_(1, 2),
    "normal_": lambda lib, n: lib.empty(n).normal_(),
    "normal_-args": lambda lib, n: lib.empty(n, dtype=lib.float64).normal_(2.0, 0.5),
    "normal_-strided": lambda lib, n: lib.zeros(n, 2)[:, 0].normal_(),
    "normal_-transposed": lambda lib, n: lib.zeros(2, (n + 1) // 2).t().normal_(1, 3),
    "bernoulli_-p": lambda lib, n: lib.empty(n).bernoulli_(0.3),
    "bernoulli_-tensor": lambda lib, n: lib.empty(n, dtype=lib.float64).bernoulli_(
        _probs(lib, n)),
    "bernoulli_-int": lambda lib, n: lib.zeros(n, dtype=lib.int64).bernoulli_(0.7),
    "bernoulli_-bool": lambda lib, n: lib.zeros(n, dtype=lib.bool).bernoulli_(),
    "exponential_": lambda lib, n: lib.empty(n).exponential_(),
    "exponential_-lambd": lambda lib, n: lib.empty(n, dtype=lib.float64).exponential_(2.5),
    "random_": lambda lib, n: lib.empty(n).random_(),
    "random_-to": lambda lib, n: lib.empty(n, dtype=lib.int64).random_(10),
    "random_-from-to": lambda lib, n: lib.empty(n, dtype=lib.int32).random_(-3, 7),
    "random_-int64": lambda lib, n: lib.empty(n, dtype=lib.int64).random_(),
    "random_-uint8": lambda lib, n: lib.empty(n, dtype=lib.uint8).random_(),
    "random_-bool": lambda lib, n: lib.empty(n, dtype=lib.bool).random_(),
    "random_-float64": lambda lib, n: lib.empty(n, dtype=lib.float64).random_(0, 1000),
    "rand-complex64": lambda lib, n: lib.rand(n, dtype=lib.complex64),
    "randn-complex128": lambda lib, n: lib.randn(n, dtype=lib.complex128),
    "uniform_-complex": lambda lib, n: lib.empty(n, dtype=lib.complex128).uniform_(-1, 1),
    "normal_-complex": lambda lib, n: lib.empty(n, dtype=lib.complex128).normal_(1.0, 2.0),
    "uniform_-transposed": lambda lib, n: lib.zeros(3, n).t().uniform_(),
    "bernoulli_-transposed-p": lambda lib, n: lib.zeros(2, n).t().bernoulli_(
        _probs(lib, 2 * n).reshape(n, 2)),
    "random_-transposed": lambda lib, n: lib.zeros(2, n, dtype=lib.int64).t().random_(0, 9),
}

AVX_ONLY = {"randn", "randn-tuple", "randn_like", "normal_", "normal_-strided",
            "normal_-transposed", "normal-floats", "normal-tensors", "normal-tensor-mean",
            "normal-tensor-std", "randn-float16", "randn-bfloat16"}


def _sampler_params():
    out = []
    for name in SAMPLERS:
        marks = [needs_avx] if name in AVX_ONLY else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", _sampler_params())
def test_sampler_matches_torch(name, seed, size):
    fn = SAMPLERS[name]
    check(lambda lib: fn(lib, size), seed, f"{name}(n={size}, seed={seed})")


# ----------------------------------------------------------------------------------------------
# Argument forms, shapes, out=, requires_grad
# ----------------------------------------------------------------------------------------------

FORMS = {
    "rand(2, 3)": lambda lib: lib.rand(2, 3),
    "rand((2, 3))": lambda lib: lib.rand((2, 3)),
    "rand([2, 3])": lambda lib: lib.rand([2, 3]),
    "rand(Size)": lambda lib: lib.rand(lib.Size([2, 3])),
    "rand()": lambda lib: lib.rand(()),
    "rand(0)": lambda lib: lib.rand(0),
    "rand(requires_grad)": lambda lib: lib.rand(3, requires_grad=True),
    "randn(2, 0, 3)": lambda lib: lib.randn(2, 0, 3),
    "randn(requires_grad)": lambda lib: lib.randn(4, dtype=lib.float64, requires_grad=True),
    "rand(out=)": lambda lib: lib.rand(5, out=lib.empty(0)),
    "randn(out=float64)": lambda lib: lib.randn(5, out=lib.empty(2, dtype=lib.float64)),
    "randint(out=)": lambda lib: lib.randint(0, 5, (6,), out=lib.empty(0, dtype=lib.int64)),
    "randperm(out=)": lambda lib: lib.randperm(7, out=lib.empty(0, dtype=lib.int64)),
    "randperm(0)": lambda lib: lib.randperm(0),
    "randint 2-d": lambda lib: lib.randint(3, 9, (2, 5)),
    "randint size=()": lambda lib: lib.randint(5, ()),
    # (an empty out= is a broadcasting error in PyTorch 2.13's normal(Tensor, float, out=))
    "normal(out=)": lambda lib: lib.normal(_values(lib, 4), 1.0, out=lib.empty(4)),
    "normal broadcast": lambda lib: lib.normal(_values(lib, 3).reshape(3, 1),
                                                _probs(lib, 4).reshape(1, 4)),
    "normal 0-d": lambda lib: lib.normal(lib.tensor(1.0), lib.tensor(2.0)),
    "normal(requires_grad)": lambda lib: lib.normal(0.0, 1.0, (3,), requires_grad=True),
    "bernoulli(out=)": lambda lib: lib.bernoulli(_probs(lib, 6), out=lib.empty(0)),
    "bernoulli 2-d": lambda lib: lib.bernoulli(_probs(lib, 12).reshape(3, 4)),
    "bernoulli_ broadcast p": lambda lib: lib.empty(3, 4).bernoulli_(_probs(lib, 4)),
    "multinomial(out=)": lambda lib: lib.multinomial(_probs(lib, 5) + 0.1, 3,
                                                     out=lib.empty(0, dtype=lib.int64)),
    "multinomial all": lambda lib: lib.multinomial(_probs(lib, 5) + 0.1, 5),
    "multinomial zero prob": lambda lib: lib.multinomial(lib.tensor([0.0, 1.0, 0.0, 2.0]), 2),
    "rand_like int->float": lambda lib: lib.rand_like(_values(lib, 4), dtype=lib.float16),
    "randn_like requires_grad": lambda lib: lib.randn_like(_values(lib, 3),
                                                            requires_grad=True),
    "randint_like(high=)": lambda lib: lib.randint_like(_values(lib, 5), high=4),
    "uniform_(from=, to=)": lambda lib: lib.empty(5).uniform_(**{"from": -1.0, "to": 1.0}),
    "uniform_ on view": lambda lib: lib.zeros(4, 4)[1:3].uniform_(),
    "random_(from=, to=)": lambda lib: lib.empty(5, dtype=lib.int64).random_(**{"from": 3,
                                                                               "to": 9}),
    "random_ float16": lambda lib: lib.empty(9, dtype=lib.float16).random_(),
    "random_ bfloat16 range": lambda lib: lib.empty(9, dtype=lib.bfloat16).random_(0, 50),
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("form", list(FORMS))
def test_argument_forms_match_torch(form, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # out= resize warnings are tested elsewhere
        check(FORMS[form], seed, form)


def _sampler_identity(lib):
    rec = []
    for name, args in (("uniform_", ()), ("normal_", ()), ("exponential_", ()),
                       ("random_", ()), ("bernoulli_", (0.5,))):
        x = lib.zeros(5)
        version = x._version
        rec.append((name, getattr(x, name)(*args) is x, x._version - version))
    out = lib.empty(0)
    rec.append((lib.rand(3, out=out) is out, tuple(out.shape)))
    idx = lib.empty(0, dtype=lib.int64)
    rec.append((lib.randperm(4, out=idx) is idx, tuple(idx.shape)))
    return rec


def test_inplace_samplers_and_out_return_the_same_tensor_as_torch():
    assert _sampler_identity(cinder) == _sampler_identity(torch)


# ----------------------------------------------------------------------------------------------
# Generators, seeding and state
# ----------------------------------------------------------------------------------------------

GENERATOR_FORMS = {
    "rand": lambda lib, g: lib.rand(50, generator=g),
    "randn": lambda lib, g: lib.randn(50, dtype=lib.float64, generator=g),
    "randint": lambda lib, g: lib.randint(0, 9, (50,), generator=g),
    "randperm": lambda lib, g: lib.randperm(50, generator=g),
    "normal": lambda lib, g: lib.normal(_values(lib, 50, "float64"), 1.0, generator=g),
    "normal-size": lambda lib, g: lib.normal(0.0, 1.0, (50,), generator=g, dtype=lib.float64),
    "bernoulli": lambda lib, g: lib.bernoulli(_probs(lib, 50), generator=g),
    "multinomial": lambda lib, g: lib.multinomial(_probs(lib, 10) + 0.1, 20, True,
                                                  generator=g),
    "uniform_": lambda lib, g: lib.empty(50).uniform_(generator=g),
    "normal_": lambda lib, g: lib.empty(50, dtype=lib.float64).normal_(generator=g),
    "bernoulli_": lambda lib, g: lib.empty(50).bernoulli_(0.4, generator=g),
    "exponential_": lambda lib, g: lib.empty(50).exponential_(generator=g),
    "random_": lambda lib, g: lib.empty(50, dtype=lib.int64).random_(0, 7, generator=g),
    "rand_like": lambda lib, g: lib.rand_like(_values(lib, 50), generator=g),
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("form", list(GENERATOR_FORMS))
def test_explicit_generator(form, seed):
    """Draws from a Generator match PyTorch's and leave the default generator untouched."""
    fn = GENERATOR_FORMS[form]
    torch.manual_seed(99)
    cinder.manual_seed(99)
    t_gen = torch.Generator().manual_seed(seed)
    c_gen = cinder.Generator().manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_draw(fn(cinder, c_gen), fn(torch, t_gen), form)
        assert_same_draw(fn(cinder, c_gen), fn(torch, t_gen), form + " (second draw)")
    np.testing.assert_array_equal(c_gen.get_state().numpy(), t_gen.get_state().numpy())
    assert_same_state()     # both default generators are still at seed 99


def test_manual_seed_returns_a_generator():
    g = cinder.manual_seed(5)
    assert isinstance(g, cinder.Generator)
    assert g is cinder.default_generator
    assert g.initial_seed() == 5 == cinder.initial_seed()
    own = cinder.Generator()
    assert own.manual_seed(7) is own
    assert own.initial_seed() == 7


def test_generator_of_wrong_type_is_refused():
    with pytest.raises(TypeError):
        torch.rand(3, generator=object())
    with pytest.raises(TypeError):
        cinder.rand(3, generator=object())


@pytest.mark.parametrize("seed", SEEDS)
def test_rng_state_matches_and_round_trips_with_torch(seed):
    torch.manual_seed(seed)
    cinder.manual_seed(seed)
    torch.randn(7)
    cinder.randn(7)
    state_t, state_c = torch.get_rng_state(), cinder.get_rng_state()
    assert str(state_c.dtype) == "torch.uint8" and tuple(state_c.shape) == tuple(state_t.shape)
    np.testing.assert_array_equal(state_c.numpy(), state_t.numpy())

    # PyTorch's state loaded into cinder continues PyTorch's stream, and the reverse
    expected = torch.rand(20)
    cinder.set_rng_state(cinder.from_numpy(state_t.numpy().copy()))
    assert_same_draw(cinder.rand(20), expected, "cinder after set_rng_state(torch state)")
    torch.set_rng_state(torch.from_numpy(state_c.numpy().copy()))
    cinder.set_rng_state(state_c)
    assert_same_draw(cinder.randn(9), torch.randn(9), "after restoring the saved state")
    assert_same_state()


def test_generator_state_round_trip():
    g = cinder.Generator().manual_seed(3)
    state = g.get_state()
    first = g.rand(4) if hasattr(g, "rand") else cinder.rand(4, generator=g)
    g.set_state(state)
    again = cinder.rand(4, generator=g)
    np.testing.assert_array_equal(bits(first), bits(again))


def test_set_rng_state_refuses_non_byte_tensors():
    with pytest.raises(TypeError):
        torch.set_rng_state(torch.zeros(5056))
    with pytest.raises(TypeError):
        cinder.set_rng_state(cinder.zeros(5056))


@pytest.mark.parametrize("seed", SEEDS)
def test_fork_rng_restores_the_state(seed):
    results = {}
    for lib in (torch, cinder):
        lib.manual_seed(seed)
        with lib.random.fork_rng():
            inside = lib.rand(6)
        after = lib.rand(6)
        with lib.random.fork_rng(enabled=False):
            lib.rand(2)
        results[lib.__name__] = (inside, after, lib.rand(3))
    for c, t in zip(results["cinder"], results["torch"]):
        assert_same_draw(c, t, "fork_rng")
    assert_same_state()


def test_seed_and_initial_seed():
    s = cinder.seed()
    assert isinstance(s, int) and cinder.initial_seed() == s
    cinder.manual_seed(2 ** 40 + 3)
    torch.manual_seed(2 ** 40 + 3)
    assert cinder.initial_seed() == torch.initial_seed()
    assert_same_draw(cinder.rand(4), torch.rand(4), "large seed")


# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------

ERRORS = {
    "rand int dtype": lambda lib: lib.rand(3, dtype=lib.int64),
    "randn int dtype": lambda lib: lib.randn(3, dtype=lib.int32),
    "rand negative size": lambda lib: lib.rand(-1),
    "randint low >= high": lambda lib: lib.randint(5, 5, (3,)),
    "randint no size": lambda lib: lib.randint(5),
    "randperm negative": lambda lib: lib.randperm(-2),
    "normal negative std": lambda lib: lib.normal(0.0, -1.0, (3,)),
    "normal negative std tensor": lambda lib: lib.normal(lib.zeros(3), -lib.ones(3)),
    "normal floats without size": lambda lib: lib.normal(0.0, 1.0),
    "bernoulli p > 1": lambda lib: lib.bernoulli(lib.full((3,), 1.5)),
    "bernoulli int input": lambda lib: lib.bernoulli(lib.ones(3, dtype=lib.int64)),
    "bernoulli_ p out of range": lambda lib: lib.empty(3).bernoulli_(1.5),
    "multinomial 3-d": lambda lib: lib.multinomial(lib.ones(2, 2, 2), 1),
    "multinomial too many": lambda lib: lib.multinomial(lib.ones(3), 4),
    "multinomial negative": lambda lib: lib.multinomial(lib.tensor([1.0, -1.0]), 1),
    "multinomial zero sum": lambda lib: lib.multinomial(lib.zeros(3), 1),
    "multinomial int": lambda lib: lib.multinomial(lib.ones(3, dtype=lib.int64), 1),
    "multinomial zero samples": lambda lib: lib.multinomial(lib.ones(3), 0),
    "uniform_ from > to": lambda lib: lib.empty(3).uniform_(2, 1),
    "uniform_ int": lambda lib: lib.empty(3, dtype=lib.int64).uniform_(),
    "normal_ negative std": lambda lib: lib.empty(3).normal_(0, -1),
    "normal_ int": lambda lib: lib.empty(3, dtype=lib.int64).normal_(),
    "exponential_ lambda <= 0": lambda lib: lib.empty(3).exponential_(0),
    "exponential_ int": lambda lib: lib.empty(3, dtype=lib.int64).exponential_(),
    "random_ from >= to": lambda lib: lib.empty(3).random_(5, 5),
    "random_ to out of range": lambda lib: lib.empty(3, dtype=lib.uint8).random_(0, 300),
    "inplace on leaf": lambda lib: lib.zeros(3, requires_grad=True).uniform_(),
    "randperm bool": lambda lib: lib.randperm(3, dtype=lib.bool),
    "rand_like of a list": lambda lib: lib.rand_like([1.0]),
    "manual_seed of a string": lambda lib: lib.manual_seed("a"),
}
KNOWN_FAILURES = {}


def _error_params():
    return [pytest.param(case, id=case, marks=[pytest.mark.xfail(
        reason=KNOWN_FAILURES[case], strict=True)] if case in KNOWN_FAILURES else [])
        for case in ERRORS]


@pytest.mark.parametrize("case", _error_params())
def test_errors_match_torch(case):
    fn = ERRORS[case]
    try:
        fn(torch)
    except Exception as exc:  # noqa: BLE001 -- the type is compared below
        expected = type(exc)
    else:
        pytest.fail(f"{case}: not an error in PyTorch")
    with pytest.raises(Exception) as info:
        fn(cinder)
    assert type(info.value).__name__ == expected.__name__, \
        f"{case}: cinder raised {type(info.value).__name__}: {info.value}; PyTorch raised " \
        f"{expected.__name__}"
