"""nn.functional kernels (cinder/ops/nn/) against PyTorch, through the generic op runners of
tests/test_ops.py applied to the entries of tests/op_db/nn_functional.py."""

import pytest
import test_ops as R
from op_db import ALL_DTYPES, nn_functional

ENTRIES = nn_functional.ENTRIES


@pytest.mark.parametrize("entry,dtype,sample", R.sample_cases(
    lambda e: True, lambda e: e.dtypes, entries=ENTRIES))
def test_forward(entry, dtype, sample):
    R.test_forward(entry, dtype, sample)


@pytest.mark.parametrize("entry,dtype", [
    pytest.param(e, d, id=f"{e.name}-{d}") for e in ENTRIES
    for d in ("int64", "bool") if d in ALL_DTYPES and d not in e.dtypes])
def test_other_dtypes(entry, dtype):
    R.test_other_dtypes(entry, dtype)


@pytest.mark.parametrize("entry,dtype,sample", R.sample_cases(
    lambda e: e.grad, lambda e: e.grad_dtypes, R.has_leaves, entries=ENTRIES))
def test_grad(entry, dtype, sample):
    R.test_grad(entry, dtype, sample)


@pytest.mark.parametrize("entry,dtype,sample", R.sample_cases(
    lambda e: e.grad, lambda e: ("float64",), lambda s: R.has_leaves(s, nonempty=True),
    entries=ENTRIES))
def test_gradcheck(entry, dtype, sample):
    R.test_gradcheck(entry, dtype, sample)


@pytest.mark.parametrize("entry,error", [
    pytest.param(e, err, id=f"{e.name}:{err!r}") for e in ENTRIES for err in e.error_list()])
def test_error(entry, error):
    R.test_error(entry, error)
