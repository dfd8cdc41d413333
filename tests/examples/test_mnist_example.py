"""The main job end to end on a small budget, then its checkpoint in real PyTorch."""

import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import torch

from cinder.vision.datasets.mnist import read_image_file, read_label_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "mnist.py")
RAW = os.path.join(ROOT, "examples", "data", "MNIST", "raw")


def _example_module():
    spec = importlib.util.spec_from_file_location("mnist_example", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _torch_accuracy(state_dict):
    """Test accuracy of the same LeNet written with torch.nn, fed like the example feeds it."""
    example = _example_module()
    model = example.make_lenet(torch.nn)()
    model.load_state_dict(state_dict)
    model.eval()
    images = read_image_file(os.path.join(RAW, "t10k-images-idx3-ubyte")).numpy()
    labels = read_label_file(os.path.join(RAW, "t10k-labels-idx1-ubyte")).numpy()
    x = (images.astype(np.float32) / np.float32(255) - example.MEAN) / example.STD
    with torch.no_grad():
        pred = model(torch.from_numpy(x[:, None].astype(np.float32))).argmax(1).numpy()
    return float((pred == labels).mean())


def test_main_job_small_budget_and_checkpoint_in_pytorch(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, SCRIPT, "--epochs", "2", "--train-limit", "1200",
                           "--out", str(tmp_path), "--no-progress"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    match = re.fullmatch(r"test accuracy ([\d.]+)%; checkpoint saved to (.+)", last)
    assert match, done.stdout
    printed = float(match.group(1)) / 100
    assert printed > 0.5                     # well above chance (10%) after 2 small epochs
    assert os.path.getsize(tmp_path / "misclassified.png") > 0
    checkpoint = torch.load(match.group(2), weights_only=True)
    assert set(checkpoint) == {"model", "optimizer", "epoch", "test_accuracy"}
    assert checkpoint["epoch"] == 2
    assert abs(checkpoint["test_accuracy"] - printed) < 1e-4
    assert list(checkpoint["model"]) == [
        "features.0.weight", "features.0.bias", "features.3.weight", "features.3.bias",
        "classifier.1.weight", "classifier.1.bias", "classifier.3.weight",
        "classifier.3.bias", "classifier.5.weight", "classifier.5.bias"]
    assert abs(_torch_accuracy(checkpoint["model"]) - printed) < 1e-9
    # the optimizer's state loads into torch's Adam over the same parameters
    model = _example_module().make_lenet(torch.nn)()
    optimizer = torch.optim.Adam(model.parameters())
    optimizer.load_state_dict(checkpoint["optimizer"])
    assert optimizer.state_dict()["state"][0]["step"].item() > 0
