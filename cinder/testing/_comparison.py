"""``assert_close``: PyTorch's closeness check for tensors, numbers and nested containers,
with its default tolerances per dtype and its failure messages."""

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor

# (rtol, atol) when neither is given, by dtype (other dtypes compare exactly)
_DEFAULT_TOLERANCES = {
    D.float16: (1e-3, 1e-5), D.bfloat16: (1.6e-2, 1e-5), D.float32: (1.3e-6, 1e-5),
    D.float64: (1e-7, 1e-7), D.complex64: (1.3e-6, 1e-5), D.complex128: (1e-7, 1e-7),
}


def _tolerances(dtype, rtol, atol):
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {missing}.")
    if rtol is not None:
        return rtol, atol
    return _DEFAULT_TOLERANCES.get(dtype, (0.0, 0.0))


def _fail(message, path, msg):
    if msg is not None:
        raise AssertionError(msg(message) if callable(msg) else msg)
    if path:
        message += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)
    raise AssertionError(message)


def _number(x):
    return isinstance(x, (int, float, complex, np.number)) and not isinstance(x, bool)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Asserts that ``actual`` and ``expected`` are close: ``|a - e| <= atol + rtol * |e|``
    elementwise, with dtype-based default tolerances (exact for integers and bool). Tensors,
    Python numbers and (nested) sequences and mappings of them are accepted."""
    _compare(actual, expected, [], dict(rtol=rtol, atol=atol, equal_nan=equal_nan,
                                        check_device=check_device, check_dtype=check_dtype,
                                        check_stride=check_stride, msg=msg))


def _compare(actual, expected, path, opts):
    if isinstance(actual, Tensor) or isinstance(expected, Tensor):
        if not (isinstance(actual, Tensor) and isinstance(expected, Tensor)):
            raise TypeError(f"No comparison pair was able to handle inputs of type "
                            f"{_type_name(actual)} and {_type_name(expected)}.")
        return _compare_tensors(actual, expected, path, opts)
    if _number(actual) and _number(expected) or (isinstance(actual, bool) and
                                                 isinstance(expected, bool)):
        return _compare_scalars(actual, expected, path, opts)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            _fail(f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                  f"{sorted(set(expected) - set(actual))}\nAdditional keys in the actual "
                  f"mapping: {sorted(set(actual) - set(expected))}", path, opts["msg"])
        for k in expected:
            _compare(actual[k], expected[k], path + [k], opts)
        return
    if isinstance(actual, Sequence) and isinstance(expected, Sequence) and \
            not isinstance(actual, str) and not isinstance(expected, str):
        if len(actual) != len(expected):
            _fail(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                  path, opts["msg"])
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + [i], opts)
        return
    raise TypeError(f"No comparison pair was able to handle inputs of type "
                    f"{_type_name(actual)} and {_type_name(expected)}.")


def _type_name(x):
    cls = type(x)
    module = "torch" if cls.__module__.startswith("cinder") else cls.__module__
    return f"<class '{module}.{cls.__name__}'>" if module != "builtins" else \
        f"<class '{cls.__name__}'>"


def _compare_scalars(actual, expected, path, opts):
    kind = D.float64 if isinstance(expected, float) or isinstance(actual, float) else \
        D.complex128 if isinstance(expected, complex) else D.int64
    rtol, atol = _tolerances(kind, opts["rtol"], opts["atol"])
    a, e = complex(actual), complex(expected)
    diff = abs(a - e)
    both_nan = opts["equal_nan"] and _isnan(a) and _isnan(e)
    if both_nan or diff <= atol + rtol * abs(e):
        return
    exact = rtol == 0 and atol == 0
    rel = diff / abs(e) if e != 0 else math.inf
    if exact:
        message = (f"Scalars are not equal!\n\nExpected {expected} but got {actual}.\nAbsolute "
                   f"difference: {_num(diff, actual, expected)}\nRelative difference: {rel}")
    else:
        message = (f"Scalars are not close!\n\nExpected {expected} but got {actual}.\nAbsolute "
                   f"difference: {_num(diff, actual, expected)} (up to {atol} allowed)\n"
                   f"Relative difference: {rel} (up to {rtol} allowed)")
    _fail(message, path, opts["msg"])


def _isnan(z):
    return math.isnan(z.real) or math.isnan(z.imag)


def _num(diff, actual, expected):
    if isinstance(actual, int) and isinstance(expected, int):
        return int(diff)
    return diff


def _compare_tensors(actual, expected, path, opts):
    if actual.shape != expected.shape:
        _fail(f"The values for attribute 'shape' do not match: {actual.shape} != "
              f"{expected.shape}.", path, opts["msg"])
    if opts["check_device"] and actual.device != expected.device:
        _fail(f"The values for attribute 'device' do not match: {actual.device} != "
              f"{expected.device}.", path, opts["msg"])
    if opts["check_dtype"] and actual.dtype is not expected.dtype:
        _fail(f"The values for attribute 'dtype' do not match: {actual.dtype} != "
              f"{expected.dtype}.", path, opts["msg"])
    if opts["check_stride"] and actual.stride() != expected.stride():
        _fail(f"The values for attribute 'stride()' do not match: {actual.stride()} != "
              f"{expected.stride()}.", path, opts["msg"])
    dt = expected.dtype if actual.dtype is expected.dtype else \
        D.promote_types(actual.dtype, expected.dtype)
    rtol, atol = _tolerances(dt, opts["rtol"], opts["atol"])
    a = np.asarray(actual.detach().cpu().numpy())
    e = np.asarray(expected.detach().cpu().numpy())
    if expected.dim() == 0:
        return _compare_scalars(a.item(), e.item(), path, dict(opts, rtol=rtol, atol=atol))
    wide = np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64
    a, e = a.astype(wide), e.astype(wide)
    with np.errstate(all="ignore"):
        diff = np.abs(a - e)
        ok = diff <= atol + rtol * np.abs(e)
        if opts["equal_nan"]:
            ok |= np.isnan(a) & np.isnan(e)
        else:
            ok &= ~(np.isnan(a) | np.isnan(e)) | (diff <= atol)
    if ok.all():
        return
    _fail(_tensor_message(a, e, diff, ok, rtol, atol, dt), path, opts["msg"])


def _tensor_message(a, e, diff, ok, rtol, atol, dt):
    bad = int((~ok).sum())
    exact = rtol == 0 and atol == 0
    with np.errstate(all="ignore"):
        rel = diff / np.abs(e)
    ia = np.unravel_index(int(np.nanargmax(diff)) if not np.isnan(diff).all() else 0, diff.shape)
    ir = np.unravel_index(int(np.nanargmax(rel)) if not np.isnan(rel).all() else 0, rel.shape)
    abs_v, rel_v = diff[ia], rel[ir]
    # PyTorch computes the differences in the compared dtype (float32 for half types) and the
    # relative one of integers in the default float dtype
    single = (D.float32, D.float16, D.bfloat16, D.complex64)
    is_int = dt.category < D.FLOATING
    abs_s = _fmt(abs_v, int if is_int else np.float32 if dt in single else None)
    rel_s = _fmt(rel_v, np.float32 if is_int or dt in single else None)
    head = "Tensor-likes are not equal!" if exact else "Tensor-likes are not close!"
    lines = [head, "", f"Mismatched elements: {bad} / {diff.size} ({100 * bad / diff.size:.1f}%)"]
    if exact:
        lines += [f"Greatest absolute difference: {abs_s} at index {tuple(map(int, ia))}",
                  f"Greatest relative difference: {rel_s} at index {tuple(map(int, ir))}"]
    else:
        lines += [f"Greatest absolute difference: {abs_s} at index {tuple(map(int, ia))} "
                  f"(up to {atol} allowed)",
                  f"Greatest relative difference: {rel_s} at index {tuple(map(int, ir))} "
                  f"(up to {rtol} allowed)"]
    return "\n".join(lines)


def _fmt(value, out_type):
    if out_type is int:
        return str(int(value))
    if out_type is not None:
        return repr(float(np.float32(value)))
    return repr(float(value))
