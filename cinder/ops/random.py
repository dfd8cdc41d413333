"""Random sampling ops: rand, randn, randint, randperm, normal, bernoulli, multinomial and the
in-place samplers (``uniform_``, ``normal_``, ``bernoulli_``, ``exponential_``, ``random_``).

The numbers come from ``cinder._random_engine``, a NumPy reproduction of PyTorch's CPU
generator, so ``manual_seed(s)`` gives PyTorch's numbers bit for bit. CUDA tensors draw from the
same CPU stream and are moved to the device (PyTorch's CUDA streams are not reproduced).
"""

import numpy as np

from .. import _dtype as D
from .. import backend
from .._device import CPU, as_device
from .._tensor import Tensor, make_tensor
from ..random import Generator, default_generator
from ._prep import shape_arg
from ._registry import inplace_only, register, write_out


def _engine(generator):
    if generator is None:
        return default_generator._impl
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a torch.Generator, not {type(generator).__name__}")
    return generator._impl


def _finish(values, shape, dtype, device, requires_grad=False, out=None):
    arr = values.reshape(shape)
    dev = as_device(device)
    if dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    t = make_tensor(arr, dtype, dev)
    if requires_grad:
        t.requires_grad_(True)
    return write_out(out, t) if out is not None else t


# The kernel names in PyTorch's "... not implemented for 'Long'" messages.
_KERNELS = {"uniform": "check_uniform_bounds", "normal": "normal_kernel_cpu"}


def _float_dtype(dtype, name, complex_ok=False):
    """The floating dtype of a sampler's result (complex too where PyTorch samples the real and
    imaginary parts as a float tensor of twice the size)."""
    dt = D.get_default_dtype() if dtype is None else dtype
    if dt.category == D.COMPLEX and complex_ok:
        return dt
    if dt.category != D.FLOATING:
        if name == "exponential":
            raise RuntimeError("Exponential distribution is a continuous probability "
                               "distribution. dtype must be a floating point but you specified "
                               f"{dt.scalar_name}")
        raise NotImplementedError(f'"{_KERNELS.get(name, name + "_cpu")}" not implemented for '
                                  f"'{dt.scalar_name}'")
    return dt


def _draw_float(dt, n, draw):
    """``draw(count, real_numpy_dtype)`` for a float dtype; a complex dtype gets 2n reals viewed
    as n complex numbers (PyTorch samples ``view_as_real``)."""
    if dt.category == D.COMPLEX:
        real = dt.to_real()
        return np.ascontiguousarray(draw(2 * n, real.numpy_dtype)).view(dt.numpy_dtype)
    return draw(n, dt.numpy_dtype)


def _check_size(shape):
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(shape)}")


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform samples in [0, 1)."""
    shape = shape_arg(size, "rand")
    _check_size(shape)
    dt = _float_dtype(dtype if dtype is not None or out is None else out._dtype, "uniform",
                      complex_ok=True)
    eng = _engine(generator)
    vals = _draw_float(dt, _numel(shape), lambda n, npdt: eng.uniform(n, npdt))
    return _finish(vals, shape, dt, device, requires_grad, out)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal samples."""
    shape = shape_arg(size, "randn")
    _check_size(shape)
    dt = _float_dtype(dtype if dtype is not None or out is None else out._dtype, "normal",
                      complex_ok=True)
    eng = _engine(generator)
    std = 1.0 if dt.category != D.COMPLEX else 1 / np.sqrt(2)
    vals = _draw_float(dt, _numel(shape), lambda n, npdt: eng.normal(n, npdt, 0.0, std))
    return _finish(vals, shape, dt, device, requires_grad, out)


def randint(*args, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False, size=None, low=None, high=None):
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high)."""
    args = list(args)
    if size is not None:
        args.append(size)
    if low is not None:
        args.insert(0, low)
    if high is not None:
        args.insert(1 if low is not None else 0, high)
    if len(args) == 2:
        lo, hi, shape = 0, args[0], args[1]
    elif len(args) == 3:
        lo, hi, shape = args
    else:
        raise TypeError("randint() received an invalid combination of arguments")
    shape = shape_arg((shape,), "randint")
    _check_size(shape)
    dt = (D.int64 if out is None else out._dtype) if dtype is None else dtype
    lo, hi = int(lo), int(hi)
    if lo >= hi:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} >= "
                           f"to={hi}")
    vals = _engine(generator).randint(_numel(shape), lo, hi, dt.numpy_dtype)
    return _finish(vals, shape, dt, device, requires_grad, out)


def randperm(n, *, generator=None, out=None, dtype=D.int64, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of 0..n-1."""
    _check_size((n,))
    if out is not None and dtype is D.int64:
        dtype = out._dtype
    if dtype is D.bool:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    vals = _engine(generator).randperm(int(n), dtype.numpy_dtype)
    return _finish(vals, (int(n),), dtype, device, requires_grad, out)


for _fn in (rand, randn, randint, randperm):
    register(_fn.__name__, _fn, method=False, family="random")


def _like(name, base):
    def fn(input, *args, dtype=None, layout=None, device=None, requires_grad=False,
           memory_format=None, generator=None, low=None, high=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        dt = input._dtype if dtype is None else dtype
        dev = input._device if device is None else device
        if memory_format is not None or not input._data.flags.c_contiguous:
            # PyTorch fills an ``empty_like`` (the input's layout, by default) in memory order
            return _fill_like(name, input, args, low, high, dt, dev, requires_grad,
                              memory_format, generator)
        if name == "randint_like":
            bounds = list(args)
            if low is not None:
                bounds.insert(0, low)
            if high is not None:
                bounds.append(high)
            return base(*bounds, tuple(input.shape), dtype=dt, device=dev,
                        requires_grad=requires_grad, generator=generator)
        return base(tuple(input.shape), dtype=dt, device=dev, requires_grad=requires_grad,
                    generator=generator)
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, method=False, family="random")


def _fill_like(name, input, args, low, high, dt, dev, requires_grad, memory_format, generator):
    """``rand_like``/``randn_like``/``randint_like`` as PyTorch computes them: an
    ``empty_like`` of the input (laid out as ``memory_format``) filled by the in-place
    sampler, which draws in memory order."""
    from .creation import empty_like
    t = empty_like(input, dtype=dt, device=dev, memory_format=memory_format)
    if name == "rand_like":
        t.uniform_(generator=generator)
    elif name == "randn_like":
        t.normal_(generator=generator)
    else:
        bounds = [b for b in (low, *args, high) if b is not None]
        t.random_(*bounds, generator=generator)
    return t.requires_grad_(requires_grad) if requires_grad else t


_like("rand_like", rand)
_like("randn_like", randn)
_like("randint_like", randint)

# ----------------------------------------------------------------------------------------------
# In-place samplers
# ----------------------------------------------------------------------------------------------


def _memory_order(arr):
    """The axes of ``arr`` from outermost to innermost in memory: the order PyTorch's
    TensorIterator walks a tensor, so in-place samplers fill a transposed tensor in memory
    order, not index order."""
    return sorted(range(arr.ndim), key=lambda i: -abs(arr.strides[i]))


def _write(self, values):
    """Store freshly drawn ``values`` into ``self`` in TensorIterator order."""
    target = self._data
    if not self.is_contiguous():
        target = target.transpose(_memory_order(target))
    arr = values.reshape(target.shape)
    if self._device.type != "cpu":
        arr = backend.to_device(arr, self._device)
    target[...] = arr


def _flat_target(self, dt):
    """``self``'s NumPy storage as a 1-D view when a sampler may write into it directly
    (contiguous real-float CPU tensor); None otherwise. Skips a tensor-sized temporary."""
    target = self._data
    if (self._device.type == "cpu" and dt.category != D.COMPLEX
            and isinstance(target, np.ndarray) and target.dtype == dt.numpy_dtype
            and target.flags.c_contiguous and self.is_contiguous()):
        return target.reshape(-1)  # a view: the array is C-contiguous
    return None


def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    from_ = kwargs.pop("from", from_)
    dt = _float_dtype(self._dtype, "uniform", complex_ok=True)
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from="
                           f"{from_} > to={to}")
    eng = _engine(generator)
    flat = _flat_target(self, dt)
    if flat is not None:
        eng.uniform(flat.size, dt.numpy_dtype, from_, to, out=flat)
        return None
    return _write(self, _draw_float(dt, self.numel(),
                                    lambda n, npdt: eng.uniform(n, npdt, from_, to)))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    dt = _float_dtype(self._dtype, "normal", complex_ok=True)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    eng = _engine(generator)
    if dt.category == D.COMPLEX:   # each part gets std / sqrt(2), as in PyTorch
        std = std / np.sqrt(2)
    contiguous = self.is_contiguous()
    flat = _flat_target(self, dt)
    if flat is not None:
        eng.normal(flat.size, dt.numpy_dtype, mean, std, contiguous=True, out=flat)
        return None
    vals = _draw_float(dt, self.numel(), lambda n, npdt: eng.normal(n, npdt, mean, std,
                                                                     contiguous=contiguous))
    return _write(self, vals)


def bernoulli_(self, p=0.5, *, generator=None):
    eng = _engine(generator)
    if isinstance(p, Tensor):
        probs = np.broadcast_to(backend.to_numpy(p._data), self._data.shape)
        if not self.is_contiguous():   # read p in the order self is filled
            probs = probs.transpose(_memory_order(self._data))
        vals = eng.bernoulli_tensor(np.ascontiguousarray(probs).reshape(-1),
                                    self._dtype.numpy_dtype)
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        vals = eng.bernoulli_scalar(self.numel(), float(p), self._dtype.numpy_dtype)
    return _write(self, vals)


def exponential_(self, lambd=1.0, *, generator=None):
    dt = _float_dtype(self._dtype, "exponential")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _write(self, _engine(generator).exponential(self.numel(), lambd, dt.numpy_dtype))


def random_(self, from_=None, to=None, *, generator=None, **kwargs):
    """``random_()``, ``random_(to)`` or ``random_(from, to)``: integers drawn into self."""
    from_ = kwargs.pop("from", from_)
    if to is None and from_ is not None:
        from_, to = 0, from_
    vals = _engine(generator).random_(self.numel(), self._dtype.numpy_dtype, from_, to)
    return _write(self, vals)


# Each fill is an in-place-only entry: the generator adds the in-place refusals and the
# version bump around the draw.
uniform_, normal_, bernoulli_, exponential_, random_ = (
    inplace_only(_fn.__name__, _fn, family="random")
    for _fn in (uniform_, normal_, bernoulli_, exponential_, random_))


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probabilities ``input`` (or the scalar ``p``)."""
    eng = _engine(generator)
    if p is not None:
        vals = eng.bernoulli_scalar(input.numel(), float(p), input._dtype.numpy_dtype)
    else:
        probs = np.ascontiguousarray(backend.to_numpy(input._data)).reshape(-1)
        if input._dtype.category != D.FLOATING:
            raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for '
                                      f"'{input._dtype.scalar_name}'")
        if probs.size and (probs.min() < 0 or probs.max() > 1):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        vals = eng.bernoulli_tensor(probs, input._dtype.numpy_dtype)
    return _finish(vals, tuple(input.shape), input._dtype, input._device, False, out)


register("bernoulli", bernoulli, family="random")


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices sampled from the rows of ``input`` (unnormalised probabilities)."""
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input._dtype.category != D.FLOATING:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{input._dtype.scalar_name}")
    n_cat = input.shape[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    probs = backend.to_numpy(input._data)
    if not replacement or num_samples == 1:
        # PyTorch checks up front only on its "p / Exp(1)" path; the inverse-CDF kernel
        # checks row by row as it samples (in the engine)
        if (probs < 0).any() or not np.isfinite(probs).all():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (probs.reshape(-1, n_cat).sum(-1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    vals = _engine(generator).multinomial(np.ascontiguousarray(probs), int(num_samples),
                                          bool(replacement))
    shape = (num_samples,) if input.dim() == 1 else (input.shape[0], num_samples)
    return _finish(vals, shape, D.int64, input._device, False, out)


register("multinomial", multinomial, family="random")


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False):
    """``normal(mean, std)`` with tensor or float arguments, or ``normal(m, s, size)``."""
    eng = _engine(generator)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        ref = mean if isinstance(mean, Tensor) else std
        m = backend.to_numpy(mean._data) if isinstance(mean, Tensor) else mean
        s = backend.to_numpy(std._data) if isinstance(std, Tensor) else std
        if isinstance(std, Tensor) and (s < 0).any():
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        if isinstance(mean, Tensor) and isinstance(std, Tensor) and mean.numel() != std.numel():
            pass
        dt = ref._dtype
        vals = eng.normal_tensor(np.broadcast_to(np.asarray(m, dt.numpy_dtype), shape),
                                 np.broadcast_to(np.asarray(s, dt.numpy_dtype), shape),
                                 dt.numpy_dtype)
        return _finish(vals, shape, dt, ref._device, False, out)
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments - got (float, "
                        "float), but expected one of (Tensor mean, Tensor std) or (float mean, "
                        "float std, tuple of ints size)")
    shape = shape_arg((size,), "normal")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    dt = _float_dtype(dtype, "normal")
    vals = eng.normal(_numel(shape), dt.numpy_dtype, mean, std)
    return _finish(vals, shape, dt, device, requires_grad, out)


register("normal", normal, method=False, family="random")
_ = CPU
