"""Entries for the small torch.* / Tensor names added for API coverage: ``detach``,
``is_distributed``, ``map2_`` and the removed legacy ops (``eig``, ``symeig``, ``solve``,
``lstsq``, ``matrix_rank``, ``reinforce``), whose only behaviour is PyTorch's RuntimeError.
Run by tests/test_coverage_ops.py."""

from . import BASIC, FLOATS, ErrorSample, OpEntry, Sample

FAMILY = "coverage"


def _plain(dtype, make):
    return [Sample(make((2, 3))), Sample(make(())), Sample(make((0, 2)))]


def _map2(lib, x, y, z):
    return x.clone().map2_(y, z, lambda a, b, c: a + b * c if not isinstance(a, bool) else a)


def _map2_samples(dtype, make):
    return [Sample(make((2, 3)), make((2, 3)), make((3,))), Sample(make((4,)), make(()),
                                                                   make((4,)))]


def _map2_errors(make):
    return [ErrorSample(Sample(make((3,)), make((2, 3)), make((3,)))),
            ErrorSample(Sample(make((3,)), make((3,), "int64"), make((3,))))]


def _removed(name, nargs):
    def errors(make):
        return [ErrorSample(Sample(*[make((2, 2)) for _ in range(nargs)]),
                            match="deprecated since version 1.9 and is now removed")]
    # (the method forms are compared in tests/test_coverage_runtime.py)
    return OpEntry(name, errors=errors, dtypes=FLOATS, method=False, family=FAMILY)


def _reinforce_errors(make):
    return [ErrorSample(Sample(make((2,)), 1.0), match="reinforce\\(\\) was removed")]


ENTRIES = [
    OpEntry("detach", samples=_plain, dtypes=BASIC, method=False, family=FAMILY),
    OpEntry("is_distributed", samples=_plain, dtypes=BASIC, family=FAMILY),
    OpEntry("map2_", call=_map2, samples=_map2_samples, dtypes=BASIC, method=False,
            errors=_map2_errors, family=FAMILY),
    _removed("eig", 1), _removed("symeig", 1), _removed("solve", 2), _removed("lstsq", 2),
    _removed("matrix_rank", 1),
    OpEntry("reinforce", call=lambda lib, x, r: x.reinforce(r), errors=_reinforce_errors,
            method=False, family=FAMILY),
]
