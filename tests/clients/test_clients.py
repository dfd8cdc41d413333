"""Unchanged PyTorch client programs run on cinder and print what they print on PyTorch.

Each program in this folder is a small, faithful rendering of a well-known PyTorch client (the
tutorials' "What is torch.nn really?", the 60-minute blitz, the dynamic net, the seq2seq
translation with attention and the pruning tutorial (with activation checkpointing);
pytorch/examples' MNIST, VAE, DCGAN, word language model, time-sequence prediction, super
resolution and reinforcement learning; nanoGPT; makemore), written as a
plain `import torch` script. Each is run twice in a subprocess: by `python` with real PyTorch,
and by `python -m cinder run` (the no-change path). Their outputs must agree line by line: the
same text, the same integers (counts, shapes, accuracies), and floats equal within float32
rounding after a few training steps; and the warnings they print are the same. Two programs
also run in this process with the import hook (`cinder.compat.install()`), the
`import cinder as torch` way.

Several programs share one interpreter (`_group.py`) because starting PyTorch costs about a
second each time.
"""

import contextlib
import gzip
import io
import os
import re
import runpy
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GROUP = os.path.join(HERE, "_group.py")

# Two groups of about equal running time, one per xdist worker.
GROUPS = {
    "tutorials_and_examples": ["nn_really", "blitz", "dynamic_net", "mnist", "vae",
                               "super_resolution", "reinforce", "pruning"],
    "language_models": ["dcgan", "word_lm", "nanogpt", "makemore", "time_sequence", "seq2seq"],
}

REL = 1e-4            # losses after a few float32 training steps
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:inf|nan)\b")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _env():
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONHASHSEED="0")
    env.pop("PYTHONWARNINGS", None)                  # Python's default: each warning once
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _start(cinder, names):
    runner = [sys.executable, "-m", "cinder", "run"] if cinder else [sys.executable]
    return subprocess.Popen(runner + [GROUP] + names, cwd=HERE, env=_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finish(process, label):
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, f"{label} failed:\n{err[-4000:]}"
    return out, err


_WARNING = re.compile(r"\b(\w+Warning): (.*)")


def warnings_printed(stderr):
    """The sorted (category, message) pairs of the warnings a run printed."""
    return sorted(match.groups() for match in map(_WARNING.search, stderr.splitlines())
                  if match)


def split_programs(output):
    """{program name: its printed lines} from a `_group.py` run."""
    programs, current = {}, None
    for line in output.splitlines():
        if line.startswith("##### "):
            current = programs.setdefault(line[6:], [])
        elif current is not None:
            current.append(line)
    return programs


def _last_digit_unit(token):
    """The size of one unit in the last printed digit of ``token`` ("0.1569" -> 1e-4)."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def _numbers_agree(expected, actual, rel):
    if not any(c in expected + actual for c in ".eEn"):      # both integers: exact
        return expected == actual
    a, b = float(expected), float(actual)
    if a == b or (a != a and b != b):
        return True
    # float32 rounding after a few steps, plus a flip of the last digit a print rounded to
    slack = rel * max(abs(a), abs(b)) + 2.5 * max(_last_digit_unit(expected),
                                                 _last_digit_unit(actual))
    return abs(a - b) <= slack


def line_difference(expected, actual, rel=REL):
    """None when two printed lines agree, else a description of the first difference."""
    expected, actual = _ADDRESS.sub("0x?", expected), _ADDRESS.sub("0x?", actual)
    texts = (_NUMBER.split(expected), _NUMBER.split(actual))
    numbers = (_NUMBER.findall(expected), _NUMBER.findall(actual))
    if texts[0] != texts[1] or len(numbers[0]) != len(numbers[1]):
        return "text differs"
    for e, a in zip(*numbers):
        if not _numbers_agree(e, a, rel):
            return f"{e} != {a}"
    return None


def assert_same_output(name, expected, actual):
    assert len(expected) == len(actual), (
        f"{name}: {len(expected)} lines on PyTorch, {len(actual)} on cinder\n"
        + "\n".join(actual[-10:]))
    for number, (e, a) in enumerate(zip(expected, actual), 1):
        problem = line_difference(e, a)
        assert problem is None, f"{name} line {number}: {problem}\n  torch:  {e}\n  cinder: {a}"


@pytest.fixture(scope="module")
def torch_outputs():
    """PyTorch's output of every program, computed on first use (one run per group)."""
    cache = {}

    def get(group):
        if group not in cache:
            out, err = _finish(_start(False, GROUPS[group]), "torch")
            cache[group] = split_programs(out), warnings_printed(err)
        return cache[group]
    return get


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_programs_print_what_pytorch_prints(group, torch_outputs):
    cinder_run = _start(True, GROUPS[group])         # runs while PyTorch's run is read
    expected, expected_warnings = torch_outputs(group)
    out, err = _finish(cinder_run, "python -m cinder run")
    actual = split_programs(out)
    assert sorted(actual) == sorted(GROUPS[group])
    for name in GROUPS[group]:
        assert len(expected[name]) > 5, expected[name]
        assert_same_output(name, expected[name], actual[name])
    assert warnings_printed(err) == expected_warnings     # same warnings, same text


@pytest.mark.parametrize("name", ["dynamic_net", "reinforce"])
def test_in_process_with_the_import_hook(name):
    """`import torch` answered by cinder inside this process gives the same output too."""
    from cinder import compat

    torch_run = _start(False, [name])                # PyTorch in a subprocess meanwhile
    buffer = io.StringIO()
    argv = sys.argv
    compat.install()
    try:
        sys.argv = [name]
        with contextlib.redirect_stdout(buffer):
            runpy.run_path(os.path.join(HERE, name + ".py"), run_name="__main__")
    finally:
        sys.argv = argv
        compat.uninstall()
    expected = split_programs(_finish(torch_run, "torch")[0])[name]
    assert_same_output(name, expected, buffer.getvalue().splitlines())


def test_line_comparison_catches_differences():
    """The comparison itself: what must match exactly and what may differ by rounding."""
    assert line_difference("loss 2.3139544427394867", "loss 2.313954532146454") is None
    assert line_difference("loss 2.3139", "loss 2.3141") is None           # last printed digit
    assert line_difference("loss 2.31395", "loss 2.31495") is not None
    assert line_difference("Accuracy: 3/64", "Accuracy: 4/64") is not None  # integers exact
    assert line_difference("tensor(8)", "tensor(9)") is not None
    assert line_difference("<Node object at 0x7f3b58>", "<Node object at 0x7f98f3>") is None
    assert line_difference("in train: abc", "in train: abd") is not None
    assert line_difference("x 1e-05", "x 1.00001e-05") is None
    assert line_difference("initial weights 93272709820216", "initial weights 93272709820217")


def test_warnings_are_read_from_stderr():
    stderr = ("/x/a.py:3: UserWarning: pin_memory is set\n  loader = f()\n"
              "/y/b.py:9: FutureWarning: deprecated\n  s = g()\n")
    assert warnings_printed(stderr) == [("FutureWarning", "deprecated"),
                                        ("UserWarning", "pin_memory is set")]


def _first_mnist_example(root):
    """The first training image after ToTensor and Normalize, and its label, read with NumPy."""
    raw = os.path.join(root, "MNIST", "raw")
    with gzip.open(os.path.join(raw, "train-images-idx3-ubyte.gz")) as f:
        pixels = np.frombuffer(f.read(), dtype=np.uint8, offset=16)[:784]
    with gzip.open(os.path.join(raw, "train-labels-idx1-ubyte.gz")) as f:
        label = int(np.frombuffer(f.read(), dtype=np.uint8, offset=8)[0])
    image = (pixels.astype(np.float32) / np.float32(255) - np.float32(0.1307)) / np.float32(0.3081)
    return image, label


def test_torchvision_pipeline_on_the_offline_mnist():
    """pytorch/examples' MNIST with its own `from torchvision import datasets, transforms`.

    Run on cinder only: this machine's torchvision does not import with torch 2.13 (it was built
    for another torch), so the data it reads are checked against NumPy instead.
    """
    data = os.path.join(ROOT, "examples", "data")
    done = subprocess.run(
        [sys.executable, "-m", "cinder", "run", os.path.join(HERE, "mnist_torchvision.py"),
         "--data", data, "--limit", "128"], env=_env(), capture_output=True, text=True,
        timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    image, label = _first_mnist_example(data)
    assert lines[0].split()[:-1] == ["4000", "1000", "torch.Size([1,", "28,", "28])", str(label)]
    assert abs(float(lines[0].split()[-1]) - float(image.sum())) < 1e-3
    losses = [float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith("Train Epoch")]
    assert len(losses) == 1 and 0 < losses[0] < 5
    match = re.search(r"Accuracy: (\d+)/128", done.stdout)
    assert match and int(match.group(1)) > 13          # above chance after one short epoch
