"""The code blocks of the seed reference notes 000 (docs notes), 003 (PyTorch 2.x API
reference: torch, nn, functional, Tensor, optim...) and 004 (usage notes), run on PyTorch 2.13
and on cinder by tests/seeds/run_reference003.py: each prints the same, or raises the same.

Of the 44 blocks, 13 are not Python (signatures such as ``torch.numel(input)->int``, or
argument lists with ``→``): skipped. 5 are ``>>>`` console sessions, run statement by
statement. 2 need a CUDA device: skipped. The other 24 run as cells; fragments that use names the
notes never define get them from the runner's ``SETUPS`` (a model, a dataset, a file name);
blocks that only define something get a short use of it (its ``FOLLOW_UPS``). What is left
raises ``NameError`` on both (``StepLR`` unimported, ``self`` outside a class...).
"""

from pathlib import Path

import pytest

from tests.seeds.harness import printed, run_both, seeds_dir, write_resnet18_checkpoint

RUNNER = Path(__file__).parent / "seeds" / "run_reference003.py"
SEEDS = seeds_dir()

# Blocks whose output legitimately differs, by a snippet of their code, with the reason.
DIFFERENT = {
    "return Linear()(input, weight, bias)":
        "calls an instance-style (legacy) Function: PyTorch 2.13 refuses it with a RuntimeError, "
        "cinder runs it with a DeprecationWarning, on purpose (DESIGN.md: legacy forms the seed "
        "material uses keep working)",
    "scheduler = StepLR(optimizer, step_size=30":
        "echoes a scheduler with object.__repr__, which names the class's module: cinder's "
        "classes live in cinder's modules (cinder.optim.lr_scheduler), not torch's",
    "the_model = torch.load(PATH)": "cinder's load errors end with the file's name, on purpose "
                                    "(tests/serialization/test_hostile.py requires it); the "
                                    "exception and PyTorch's text before it are the same",
}
# Those whose cinder output is PyTorch's with something added at the end (checked as such).
EXTENDED = ("the_model = torch.load(PATH)",)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    if not (SEEDS / "003_75ac5d7abd68aa75.txt").exists():
        pytest.skip(f"seed material not found at {SEEDS}")
    home = write_resnet18_checkpoint(tmp_path_factory.mktemp("torch_home"))
    return run_both(RUNNER, SEEDS, tmp_path_factory.mktemp("reference"), {"TORCH_HOME": home})


def _reason(block):
    return next((why for snippet, why in DIFFERENT.items() if snippet in block), None)


def test_the_blocks_are_found_and_sorted(outputs):
    outs = [printed(outputs, "torch", i) for i in range(len(outputs["torch"]["blocks"]))]
    assert len(outs) == 44
    assert sum(o == "-- skipped: a signature, not Python" for o in outs) == 13
    assert sum(o.startswith("-- skipped: needs CUDA") for o in outs) == 2
    assert sum(b.split("] ", 1)[1].lstrip().startswith(">>>")
               for b in outputs["torch"]["blocks"]) == 5


def test_every_block_prints_what_pytorch_prints(outputs):
    mismatches = []
    for i, block in enumerate(outputs["torch"]["blocks"]):
        want, got = printed(outputs, "torch", i), printed(outputs, "cinder", i)
        if got != want and _reason(block) is None:
            mismatches.append(f"block {i} differs:\n{block}\ntorch : {want!r}\ncinder: {got!r}")
    assert not mismatches, "\n\n".join(mismatches)


def test_known_differences_are_still_needed(outputs):
    blocks = outputs["torch"]["blocks"]
    for snippet in DIFFERENT:
        hits = [i for i, b in enumerate(blocks) if snippet in b]
        assert hits, f"no block contains {snippet!r}"
        assert any(printed(outputs, "torch", i) != printed(outputs, "cinder", i)
                   for i in hits), f"block with {snippet!r} now matches PyTorch: remove it"


def test_extended_outputs_start_with_pytorchs(outputs):
    blocks = outputs["torch"]["blocks"]
    for snippet in EXTENDED:
        i = next(i for i, b in enumerate(blocks) if snippet in b)
        want, got = printed(outputs, "torch", i), printed(outputs, "cinder", i)
        assert want.startswith("!! UnpicklingError: Weights only load failed.")
        assert got.startswith(want.rstrip("\n")), f"block {i}:\ntorch : {want!r}\ncinder: {got!r}"


def test_the_runnable_blocks_did_something(outputs):
    """Not everything is a NameError: the nn/functional/Tensor examples and the follow-ups
    print real results on PyTorch."""
    outs = [printed(outputs, "torch", i) for i in range(len(outputs["torch"]["blocks"]))]
    results = [o.replace("-- follow-up:\n", "") for o in outs if not o.startswith("-- skipped")]
    assert sum(bool(o) and not o.startswith("!!") for o in results) >= 10
