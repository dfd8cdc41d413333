"""Seed 001, a notebook written for PyTorch 0.x (Variable, volatile, creation, cat/chunk/
gather): its 33 ``In [n]:`` cells, run as written on PyTorch 2.13 and on cinder
(tests/seeds/run_notebook001.py), print the same, and raise the same where PyTorch raises.

The two ``resnet18(pretrained=True)`` cells load a PyTorch-written stand-in checkpoint from a
scratch ``$TORCH_HOME`` (nothing is downloaded); the notebook's later random numbers then
show that both libraries initialised the network from the same random stream.
No cell needs an excuse.
"""

from pathlib import Path

import pytest

from tests.seeds.harness import printed, run_both, seeds_dir, write_resnet18_checkpoint

RUNNER = Path(__file__).parent / "seeds" / "run_notebook001.py"
SEEDS = seeds_dir() / "001_dedc4743a84071a6.txt"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    if not SEEDS.exists():
        pytest.skip(f"seed material not found at {SEEDS}")
    home = write_resnet18_checkpoint(tmp_path_factory.mktemp("torch_home"))
    return run_both(RUNNER, SEEDS, tmp_path_factory.mktemp("seed001"), {"TORCH_HOME": home})


def test_all_33_cells_are_found(outputs):
    cells = outputs["torch"]["cells"]
    assert len(cells) == 33
    assert cells[0].startswith("import torch") and "torch.gather(t, 0" in cells[-1]


def test_every_cell_prints_what_pytorch_prints(outputs):
    mismatches = []
    for i, cell in enumerate(outputs["torch"]["cells"]):
        want, got = printed(outputs, "torch", i), printed(outputs, "cinder", i)
        if got != want:
            mismatches.append(f"cell {i} differs:\n{cell}\ntorch : {want!r}\ncinder: {got!r}")
    assert not mismatches, "\n\n".join(mismatches)


def test_the_cells_ran_on_pytorch(outputs):
    """The comparison means something only if PyTorch itself ran the cells: none raised."""
    failed = [i for i in range(33) if "!! " in printed(outputs, "torch", i)]
    assert not failed, f"cells {failed} raise on PyTorch"
