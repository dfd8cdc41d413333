"""``torch.version`` against PyTorch's CPU build (scripts print ``torch.version.cuda``)."""

import pytest
import torch

import cinder
from oracle import check


@pytest.mark.skipif(torch.cuda.is_available() or cinder.cuda.is_available(),
                    reason="PyTorch's answers here are those of its CPU build")
@pytest.mark.parametrize("expr", ["L.version.cuda", "L.version.hip", "L.version.debug",
                                  "L.version.rocm", "L.version.xpu"])
def test_build_facts_without_cuda(expr):
    check(expr)


def test_version_is_the_package_version():
    assert torch.version.__version__ == torch.__version__
    assert cinder.version.__version__ == cinder.__version__
    assert isinstance(cinder.version.git_version, str)
