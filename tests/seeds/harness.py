"""What the seed tests share: finding the seed documents, running a runner script once per
library in a subprocess, and comparing outputs with memory addresses blanked."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def seeds_dir():
    """The folder of seed documents: $CINDER_SEEDS_DIR, else shared/seeds beside the
    checkout (or inside it)."""
    if os.environ.get("CINDER_SEEDS_DIR"):
        return Path(os.environ["CINDER_SEEDS_DIR"])
    candidates = [d / "shared" / "seeds" for d in (ROOT, ROOT.parent, ROOT.parent.parent)]
    return next((d for d in candidates if d.is_dir()), candidates[0])


def run_both(runner, source, tmp, extra_env=None):
    """Run ``runner SOURCE LIB OUT.json`` for torch and for cinder; their JSON results."""
    if not Path(source).exists():
        pytest.skip(f"seed material not found at {source}")
    env = dict(os.environ, **(extra_env or {}))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    result = {}
    for lib in ("torch", "cinder"):
        out = Path(tmp) / f"{lib}.json"
        subprocess.run([sys.executable, str(runner), str(source), lib, str(out)], check=True,
                       env=env, timeout=300)
        result[lib] = json.loads(out.read_text(encoding="utf-8"))
    return result


def printed(outputs, lib, i):
    """Cell ``i``'s output under ``lib``, object addresses blanked."""
    return _ADDRESS.sub("", outputs[lib]["outs"][i])


def write_resnet18_checkpoint(torch_home):
    """A stand-in for torchvision's downloaded resnet18 weights (PyTorch-written, seeded), so
    ``resnet18(pretrained=True)`` loads it instead of downloading."""
    import torch

    from tests.vision.conftest import load_torchvision
    try:
        torchvision = load_torchvision()
    except Exception as exc:  # no installed copy and no wheel to fetch: nothing to compare with
        pytest.skip(f"the torchvision oracle is unavailable: {exc}")
    folder = Path(torch_home) / "hub" / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(1)
    torch.save(torchvision.models.resnet18().state_dict(),
               folder / "resnet18-f37072fd.pth")
    return str(torch_home)
