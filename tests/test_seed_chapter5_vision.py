"""The book's chapter 5 torchvision/visualisation cells (adapted to run offline, see
tests/seeds/run_chapter5_vision.py) print the same on cinder as on PyTorch + torchvision."""

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.vision.conftest import load_torchvision

RUNNER = Path(__file__).parent / "seeds" / "run_chapter5_vision.py"
ROOT = Path(__file__).resolve().parents[1]


def _workdir(path):
    """Eight 'photos' in data/dogcat and data/dogcat_2/{cat,dog}, the same plus an unreadable
    file in data/dogcat_wrong, and MNIST's raw files."""
    from PIL import Image
    rng = np.random.default_rng(0)
    (path / "data" / "dogcat").mkdir(parents=True)
    (path / "data" / "dogcat_wrong").mkdir(parents=True)
    (path / "data" / "dogcat_wrong" / "cat.corrupt.jpg").write_bytes(b"not a JPEG")
    for kind in ("cat", "dog"):
        (path / "data" / "dogcat_2" / kind).mkdir(parents=True)
        for i in range(4):
            img = Image.fromarray(rng.integers(0, 256, (300 + 10 * i, 260, 3), dtype=np.uint8))
            img.save(path / "data" / "dogcat" / f"{kind}.{1000 + i}.jpg")
            img.save(path / "data" / "dogcat_wrong" / f"{kind}.{1000 + i}.jpg")
            img.save(path / "data" / "dogcat_2" / kind / f"{kind}.{1000 + i}.jpg")
    raw = path / "data" / "MNIST" / "raw"
    raw.mkdir(parents=True)
    shipped = ROOT / "examples" / "data" / "MNIST" / "raw"
    for name in os.listdir(shipped):
        (raw / name[:-3]).write_bytes(gzip.decompress((shipped / name).read_bytes()))


def _run(lib, workdir, tv_copy):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(RUNNER), lib, str(workdir), tv_copy], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split("### cell\n")[1:]


def test_chapter5_vision_cells(tmp_path):
    pytest.importorskip("tensorboard")
    pytest.importorskip("visdom")
    tv_copy = os.path.dirname(os.path.dirname(load_torchvision().__file__))
    for lib in ("torch", "cinder"):
        _workdir(tmp_path / lib)
    theirs = _run("torch", tmp_path / "torch", tv_copy)
    ours = _run("cinder", tmp_path / "cinder", tv_copy)
    assert len(ours) == len(theirs) == 12
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert "!!" not in b, f"cell {i} fails on PyTorch: {b}"
        assert a.replace("cinder", "torch") == b, f"cell {i}:\n{a}\n---\n{b}"
