"""The generic op runners of tests/test_ops.py (forward values, dtypes, gradients, float64
gradcheck, method forms, errors) applied to the op_db families added for API coverage."""

import pytest
import test_ops as R
from op_db import coverage_extras, nn_torch

ENTRIES = coverage_extras.ENTRIES + nn_torch.ENTRIES


@pytest.mark.parametrize("entry,dtype,sample", R.sample_cases(
    lambda e: True, lambda e: e.dtypes, entries=ENTRIES))
def test_forward(entry, dtype, sample):
    R.test_forward(entry, dtype, sample)


@pytest.mark.parametrize("entry,dtype,sample", R.sample_cases(
    lambda e: e.grad, lambda e: e.grad_dtypes, R.has_leaves, entries=ENTRIES))
def test_grad(entry, dtype, sample):
    R.test_grad(entry, dtype, sample)


@pytest.mark.parametrize("entry,dtype,sample", R.sample_cases(
    lambda e: e.grad, lambda e: ("float64",), lambda s: R.has_leaves(s, nonempty=True),
    entries=ENTRIES))
def test_gradcheck(entry, dtype, sample):
    R.test_gradcheck(entry, dtype, sample)


@pytest.mark.parametrize("entry,dtype", [
    pytest.param(e, d, id=f"{e.name}-{d}") for e in ENTRIES if e.method for d in e.dtypes[:2]])
def test_method(entry, dtype):
    R.test_method(entry, dtype)


@pytest.mark.parametrize("entry,error", [
    pytest.param(e, err, id=f"{e.name}:{err!r}") for e in ENTRIES for err in e.error_list()])
def test_error(entry, error):
    R.test_error(entry, error)
