"""The torchvision oracle: an importable copy of torchvision 0.28.0's pure-Python parts.

Installed beside the CPU build of torch 2.13.0, ``import torchvision`` fails (``operator
torchvision::nms does not exist``): its compiled ops do not load against that build. Its Python
parts (transforms, datasets, models, utils, io through PIL) are still the reference, so this
fixture copies the package without ``_C.so``/``image.so``, empties ``_meta_registrations.py``
(the module that registers fake kernels for those ops) and imports the copy.

Where the files come from: an installed torchvision (the dev extra pins 0.28.0), else the wheel
fetched once with ``pip download --no-deps torchvision==0.28.0`` into a cache folder.
"""

import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

import pytest

VERSION = "0.28.0"
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                     "cinder-tests", f"torchvision-{VERSION}")


def _installed_package_dir():
    spec = importlib.util.find_spec("torchvision")
    if spec is None or not spec.origin:
        return None
    folder = os.path.dirname(spec.origin)
    version_file = os.path.join(folder, "version.py")
    if not os.path.exists(version_file) or f"'{VERSION}" not in open(version_file).read():
        return None
    return folder


def _wheel():
    wheels = [f for f in os.listdir(CACHE) if f.endswith(".whl")] if os.path.isdir(CACHE) else []
    if not wheels:
        os.makedirs(CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        f"torchvision=={VERSION}", "-d", CACHE], check=True)
        wheels = [f for f in os.listdir(CACHE) if f.endswith(".whl")]
    return os.path.join(CACHE, wheels[0])


def _build_copy(target):
    """Write the importable copy under ``target``/torchvision."""
    source = _installed_package_dir()
    if source:
        shutil.copytree(source, os.path.join(target, "torchvision"),
                        ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    else:
        with zipfile.ZipFile(_wheel()) as whl:
            for name in whl.namelist():
                if name.startswith("torchvision/") and not name.endswith(".so"):
                    whl.extract(name, target)
    with open(os.path.join(target, "torchvision", "_meta_registrations.py"), "w") as f:
        f.write("# emptied for the test oracle: the compiled ops it registers are absent\n")


def load_torchvision():
    """Import the oracle copy once per process."""
    if "torchvision" in sys.modules and getattr(sys.modules["torchvision"], "_cinder_oracle",
                                                False):
        return sys.modules["torchvision"]
    target = os.path.join(CACHE, "copy")
    if not os.path.isdir(os.path.join(target, "torchvision")):
        # Built aside, then renamed into place: parallel test workers never see half a copy.
        os.makedirs(CACHE, exist_ok=True)
        staging = tempfile.mkdtemp(dir=CACHE)
        _build_copy(staging)
        try:
            os.rename(staging, target)
        except OSError:             # another worker won the race; its copy is identical
            shutil.rmtree(staging)
    for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[name]
    sys.path.insert(0, target)
    try:
        module = importlib.import_module("torchvision")
    finally:
        sys.path.remove(target)
    module._cinder_oracle = True
    return module


@pytest.fixture(scope="session")
def tv():
    """The torchvision 0.28.0 oracle module (pure-Python parts)."""
    return load_torchvision()
