"""Corrupt checkpoints and interrupted saves.

* 1,000 truncations and bit flips of real checkpoints (zip and legacy): each load either
  succeeds or raises RuntimeError/UnpicklingError naming the file; nothing crashes or hangs.
* A process killed with SIGKILL at random points while saving leaves the previous checkpoint
  loadable and intact (saves go to a temporary file that is renamed into place).
"""

import os
import pickle
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import cinder

from .helpers import save_bytes

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def small_checkpoint(legacy):
    base = cinder.arange(12.).reshape(3, 4)
    obj = {"w": base, "v": base[1], "p": cinder.nn.Parameter(cinder.ones(3)),
           "step": cinder.tensor(5), "meta": {"lr": 0.1, "names": ["a", "b"]}}
    return save_bytes(cinder, obj, _use_new_zipfile_serialization=not legacy)


def mutations(data, rng, count):
    """``count`` broken copies of ``data``: truncations at any byte (0 included) and flips of
    1-3 random bits."""
    for i in range(count):
        if i % 2 == 0:
            yield data[:int(rng.integers(0, len(data)))]
        else:
            broken = bytearray(data)
            for _ in range(int(rng.integers(1, 4))):
                pos = int(rng.integers(0, len(data)))
                broken[pos] ^= 1 << int(rng.integers(0, 8))
            yield bytes(broken)


def _alarm(signum, frame):
    raise TimeoutError("load hung")


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_fuzzed_checkpoints_fail_cleanly(legacy, tmp_path):
    data = small_checkpoint(legacy)
    path = tmp_path / "fuzzed.pt"
    rng = np.random.default_rng(1234 + legacy)
    outcomes = {"loaded": 0, "RuntimeError": 0, "UnpicklingError": 0}
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for i, broken in enumerate(mutations(data, rng, 500)):
            path.write_bytes(broken)
            signal.alarm(5)
            try:
                with warnings.catch_warnings():      # flipped PROTO bytes warn, as in PyTorch
                    warnings.simplefilter("ignore")
                    # Every fifth zip mutation goes through the memory-mapped reader instead.
                    cinder.load(path, mmap=not legacy and i % 5 == 0)
                outcomes["loaded"] += 1
            except (RuntimeError, pickle.UnpicklingError) as e:
                assert str(path) in str(e), f"error does not name the file: {e}"
                kind = "UnpicklingError" if isinstance(e, pickle.UnpicklingError) \
                    else "RuntimeError"
                outcomes[kind] += 1
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert sum(outcomes.values()) == 500
    assert outcomes["RuntimeError"] + outcomes["UnpicklingError"] > 250, outcomes


def test_empty_garbage_and_directory(tmp_path):
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    with pytest.raises(EOFError) as info:           # PyTorch raises EOFError here too
        cinder.load(empty)
    assert isinstance(info.value, pickle.UnpicklingError) and str(empty) in str(info.value)
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"this is not a checkpoint at all")
    with pytest.raises(pickle.UnpicklingError, match="garbage.pt"):
        cinder.load(garbage)
    not_zip = tmp_path / "pk.pt"
    not_zip.write_bytes(b"PK\x03\x04" + b"\0" * 40)
    with pytest.raises(RuntimeError, match="failed finding central directory.*pk.pt"):
        cinder.load(not_zip)
    with pytest.raises(IsADirectoryError):
        cinder.load(tmp_path)


SAVER = """
import sys
import cinder
path, version = sys.argv[1], int(sys.argv[2])
print("ready", flush=True)
while True:
    version += 1
    cinder.save({"version": version, "w": cinder.full((500_000,), float(version))}, path)
"""


def test_killed_save_leaves_previous_checkpoint_intact(tmp_path):
    path = tmp_path / "ckpt.pt"
    cinder.save({"version": 0, "w": cinder.full((500_000,), 0.0)}, path)
    rng = np.random.default_rng(7)
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    versions = []
    for _ in range(5):
        last = cinder.load(path)["version"]
        child = subprocess.Popen([sys.executable, "-c", SAVER, str(path), str(last)],
                                 stdout=subprocess.PIPE, env=env)
        assert child.stdout.readline().strip() == b"ready"
        time.sleep(float(rng.uniform(0.0, 0.3)))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        loaded = cinder.load(path)
        assert loaded["w"].shape == (500_000,)
        assert (loaded["w"] == float(loaded["version"])).all().item()
        versions.append(loaded["version"])
    assert versions == sorted(versions)
    assert versions[-1] > 0, "the saver never completed a save: the test exercised nothing"


def _files_in(folder):
    return sorted(os.listdir(folder))


def test_save_killed_mid_write_leaves_no_junk_after_the_next_save(tmp_path):
    """A save killed while writing leaves its hidden temporary file; the next save to the same
    path removes it, so only the checkpoint itself remains."""
    path = tmp_path / "ckpt.pt"
    cinder.save({"version": 0, "w": cinder.full((500_000,), 0.0)}, path)
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-c", SAVER, str(path), "0"],
                             stdout=subprocess.PIPE, env=env)
    try:
        assert child.stdout.readline().strip() == b"ready"
        deadline = time.monotonic() + 30
        while len(_files_in(tmp_path)) < 2:      # wait until a temporary file exists
            assert time.monotonic() < deadline, "the saver never started writing"
            time.sleep(0.001)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
    leftovers = [name for name in _files_in(tmp_path) if name != "ckpt.pt"]
    if not leftovers:   # killed just after a rename; make a leftover the way a kill would
        leftovers = [".ckpt.pt.abcd1234.tmp"]
        (tmp_path / leftovers[0]).write_bytes(b"half a checkpoint")
    assert all(name.startswith(".ckpt.pt.") and name.endswith(".tmp") for name in leftovers)
    loaded = cinder.load(path)
    assert (loaded["w"] == float(loaded["version"])).all().item()
    cinder.save({"version": -1, "w": cinder.zeros(3)}, path)
    assert _files_in(tmp_path) == ["ckpt.pt"]
    assert cinder.load(path)["version"] == -1


def test_cleanup_spares_a_save_in_progress_and_unrelated_files(tmp_path):
    """A temporary file still locked by its writer (a save running in another process) is not
    touched, nor are files that only look similar; once the lock is gone it is removed."""
    fcntl = pytest.importorskip("fcntl")
    path = tmp_path / "ckpt.pt"
    busy = tmp_path / ".ckpt.pt.busy0001.tmp"
    busy.write_bytes(b"being written")
    unrelated = [".ckpt.pt.notes.tmp", ".other.pt.abcd1234.tmp", "ckpt.pt.abcd1234.tmp"]
    for name in unrelated:
        (tmp_path / name).write_bytes(b"keep me")
    with open(busy, "rb") as held:         # its own open file: flock conflicts as across processes
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        cinder.save(cinder.ones(2), path)
        assert busy.exists()
    cinder.save(cinder.ones(2), path)
    assert _files_in(tmp_path) == sorted(unrelated + ["ckpt.pt"])
    assert cinder.load(path).tolist() == [1.0, 1.0]
