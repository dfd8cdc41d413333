"""``cinder.compat`` and ``python -m cinder run``: unchanged PyTorch scripts run on cinder.

Two kinds of test:

* Subprocess tests write a small script into a temporary folder and run
  ``python -m cinder run script.py ARGS``, checking its output and exit status. They are the
  honest end-to-end check: a fresh interpreter, nothing imported beforehand.
* In-process tests call ``compat.install()`` / ``compat.uninstall()`` directly. Real PyTorch is
  the oracle of the rest of the suite and lives in this same process, so these check above all
  that ``uninstall()`` gives back exactly the ``sys.modules`` that was there before.
"""

import importlib
import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _cinder_import_problem():
    """Why cinder cannot be tested yet, or None. The core package may be mid-rewrite."""
    try:
        import cinder  # noqa: F401
        from cinder import compat  # noqa: F401
    except Exception as exc:  # noqa: BLE001  (any failure at all means nothing here can run)
        return (f"`import cinder` fails ({type(exc).__name__}: {exc}); the core package is "
                f"still being written, so the PyTorch-compatibility layer cannot be tested")
    return None


_PROBLEM = _cinder_import_problem()
pytestmark = pytest.mark.skipif(_PROBLEM is not None, reason=_PROBLEM or "")

if _PROBLEM is None:
    import cinder
    from cinder import compat

    # The folder holding the cinder package under test; subprocesses must import the same one.
    CINDER_PARENT = Path(compat.__file__).resolve().parents[1]


def _cinder_has(name):
    """Whether cinder already provides module ``name`` (it grows while these tests are written)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


# ------------------------------------------------------------------------------------------------
# Subprocess tests: python -m cinder run SCRIPT
# ------------------------------------------------------------------------------------------------

def _cinder_cli(tmp_path, *args):
    """Run ``python -m cinder ARGS`` in ``tmp_path``; returns the CompletedProcess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(CINDER_PARENT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run([sys.executable, "-m", "cinder", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def _run_script(tmp_path, source, *args, name="script.py"):
    """Write ``source`` to ``tmp_path/name`` and run it with ``python -m cinder run``."""
    (tmp_path / name).write_text(textwrap.dedent(source))
    return _cinder_cli(tmp_path, "run", name, *args)


def test_import_torch_gives_cinder(tmp_path):
    result = _run_script(tmp_path, """
        import sys
        import torch
        import torch.nn as nn
        print(torch.__name__, torch is sys.modules['cinder'])
        print(nn is sys.modules['cinder.nn'], sys.modules['torch.nn'] is sys.modules['cinder.nn'])
        # Never the real PyTorch: no module anywhere may come from its install folder.
        print(any('site-packages/torch/' in (getattr(m, '__file__', None) or '')
                  for m in list(sys.modules.values())))
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["cinder", "True", "True", "True", "False"]


def test_same_output_as_real_torch(tmp_path):
    """The point of it all: one unchanged script, and cinder prints what PyTorch prints."""
    pytest.importorskip("torch")
    result = _run_script(tmp_path, """
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * x).sum().backward()
        print(x.grad)
        print(torch.zeros(2, 3).shape)
    """)
    assert result.returncode == 0, result.stderr
    oracle = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, check=True)
    assert result.stdout == oracle.stdout


@pytest.mark.parametrize("torch_name, cinder_name", [
    ("torch.nn", "cinder.nn"),
    ("torch.nn.functional", "cinder.nn.functional"),
    ("torch.utils.data", "cinder.utils.data"),
    ("torch.optim", "cinder.optim"),
    ("torchvision.transforms", "cinder.vision.transforms"),
])
def test_submodules_are_cinders(tmp_path, torch_name, cinder_name):
    if not _cinder_has(cinder_name):
        pytest.skip(f"cinder has no {cinder_name} yet")
    result = _run_script(tmp_path, f"""
        import sys
        import {torch_name} as alias
        import {cinder_name} as original
        print(alias is original, sys.modules[{torch_name!r}] is sys.modules[{cinder_name!r}])
        print(original.__spec__.name)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", cinder_name]


def test_from_torch_utils_data_import_dataloader(tmp_path):
    if not _cinder_has("cinder.utils.data"):
        pytest.skip("cinder has no cinder.utils.data yet")
    result = _run_script(tmp_path, """
        from torch.utils.data import DataLoader
        import cinder.utils.data
        print(DataLoader is cinder.utils.data.DataLoader)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True"]


def test_argv_and_main_like_python(tmp_path):
    # Strings that look like options belong to the script, not to `cinder run`.
    (tmp_path / "helper.py").write_text("VALUE = 42\n")
    result = _run_script(tmp_path, """
        import sys
        import helper  # the script's own folder is first on sys.path
        print(repr(sys.argv), __name__, helper.VALUE)
    """, "a b", "-h", "--version", "-m", "x", "--", "y")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "['script.py', 'a b', '-h', '--version', '-m', 'x', '--', 'y'] __main__ 42")


def test_script_in_another_folder(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "helper.py").write_text("VALUE = 'found'\n")
    (sub / "script.py").write_text("import sys, helper\nprint(sys.argv[0], helper.VALUE)\n")
    result = _cinder_cli(tmp_path, "run", os.path.join("sub", "script.py"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [os.path.join("sub", "script.py"), "found"]


@pytest.mark.parametrize("code", [0, 3, 7])
def test_exit_code_propagates(tmp_path, code):
    result = _run_script(tmp_path, "import sys\nsys.exit(int(sys.argv[1]))\n", str(code))
    assert result.returncode == code, result.stderr


def test_uncaught_exception_propagates(tmp_path):
    result = _run_script(tmp_path, "import torch\nraise ValueError('boom from the script')\n")
    assert result.returncode == 1
    assert result.stderr.rstrip().endswith("ValueError: boom from the script")


def test_traceback_and_anomaly_trace_like_python(tmp_path):
    """An uncaught exception's traceback and an anomaly-mode forward trace read as under
    ``python script.py``: from the script's frames, without the launcher's and runpy's, the
    script named by its absolute path."""
    source = """
        import warnings
        import torch
        def root(x):
            return x.sqrt()
        a = torch.tensor([-1.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with torch.autograd.detect_anomaly():
                try:
                    root(a).sum().backward()
                except RuntimeError:
                    pass
        trace = [str(w.message) for w in seen if "Error detected" in str(w.message)][0]
        trace = trace.split("Traceback of forward call that caused the error:")[1]
        print(trace.split("(Triggered internally")[0].rstrip())
        raise ValueError("boom")
    """
    result = _run_script(tmp_path, source)
    plain = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120, check=False)
    # (plain python imports the real torch: the same script under both)
    assert result.returncode == plain.returncode == 1
    assert result.stdout == plain.stdout
    assert result.stderr == plain.stderr
    assert result.stderr.startswith(f'Traceback (most recent call last):\n  File '
                                    f'"{tmp_path / "script.py"}"')


@pytest.mark.parametrize("typed", ["script.py", "./script.py", "ABSOLUTE"])
def test_script_names_like_python(tmp_path, typed):
    """``__file__`` is the typed path joined to the current folder (not normalised),
    ``sys.argv[0]`` the path as typed, ``sys.path[0]`` the script's folder; the script's
    module is ``sys.modules['__main__']`` and ``os.path.dirname(__file__)`` is a folder."""
    (tmp_path / "script.py").write_text(
        "import os, sys\n"
        "print(__file__, sys.argv[0], sys.path[0], __name__, __package__, __spec__)\n"
        "print(sys.modules['__main__'].__file__ == __file__, os.path.isdir("
        "os.path.dirname(__file__)), type(__loader__).__name__, __doc__)\n")
    typed = str(tmp_path / "script.py") if typed == "ABSOLUTE" else typed
    result = _cinder_cli(tmp_path, "run", typed)
    plain = subprocess.run([sys.executable, typed], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120, check=True)
    assert result.returncode == 0 and result.stdout == plain.stdout


def test_missing_script_like_python(tmp_path):
    result = _cinder_cli(tmp_path, "run", "no_such_script.py")
    assert result.returncode == 2  # what `python no_such_script.py` returns
    assert "can't open file" in result.stderr and "no_such_script.py" in result.stderr


def test_run_module(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import torch  # a parent package may import torch too\n")
    (pkg / "train.py").write_text(textwrap.dedent("""
        import sys
        import torch
        print(__name__, torch is sys.modules['cinder'], sys.argv[1:])
        sys.exit(5)
    """))
    result = _cinder_cli(tmp_path, "run", "-m", "mypkg.train", "--lr", "0.1", "-h", "--", "x")
    assert result.returncode == 5, result.stderr
    assert result.stdout.strip() == "__main__ True ['--lr', '0.1', '-h', '--', 'x']"


_WORKER_SCRIPT = """
    import sys
    import torch
    from torch.utils.data import DataLoader, Dataset


    class Squares(Dataset):          # defined in the script: workers re-import it to unpickle
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return torch.tensor([i * i]), sys.modules["torch"] is sys.modules["cinder"]


    if __name__ == "__main__":
        loader = DataLoader(Squares(), batch_size=2, num_workers=2,
                            multiprocessing_context=sys.argv[1])
        for values, hooked in loader:
            print(values.flatten().tolist(), hooked.tolist(), type(values).__module__)
"""


@pytest.mark.parametrize("context, as_module", [("spawn", False), ("forkserver", True)])
def test_spawned_workers_get_the_hook(tmp_path, context, as_module):
    """spawn/forkserver workers re-import the script (or, after `run -m`, the module), whose
    `import torch` must give cinder there too (without the hook: real PyTorch, or a failure)."""
    (tmp_path / "squares.py").write_text(textwrap.dedent(_WORKER_SCRIPT))
    target = ["-m", "squares"] if as_module else ["squares.py"]
    result = _cinder_cli(tmp_path, "run", *target, context)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"{values} [True, True] cinder._tensor" for values in ([0, 1], [4, 9], [16, 25])]


def test_run_missing_module(tmp_path):
    result = _cinder_cli(tmp_path, "run", "-m", "no_such_pkg.train")
    assert result.returncode == 1
    assert "No module named no_such_pkg.train" in result.stderr


def test_import_torchvision_fails_naming_it(tmp_path):
    if _cinder_has("cinder.vision"):
        pytest.skip("cinder.vision exists now; test_missing_torch_submodule covers the error")
    result = _run_script(tmp_path, """
        try:
            import torchvision
        except ImportError as exc:
            print(type(exc).__name__, exc.name)
            print(exc)
    """)
    assert result.returncode == 0, result.stderr
    first_line, message = result.stdout.splitlines()
    assert tuple(first_line.split()) == ("ModuleNotFoundError", "torchvision")
    assert message == "cinder does not provide 'torchvision' yet (looked for 'cinder.vision')"

    # And uncaught, the traceback's last line names it too.
    result = _run_script(tmp_path, "import torchvision.transforms\n")
    assert result.returncode == 1
    assert result.stderr.rstrip().splitlines()[-1] == (
        "ModuleNotFoundError: cinder does not provide 'torchvision' yet "
        "(looked for 'cinder.vision')")


def test_missing_torch_submodule(tmp_path):
    result = _run_script(tmp_path, """
        try:
            import torch.no_such_module
        except ModuleNotFoundError as exc:
            print(exc.name)
            print(exc)
    """)
    assert result.returncode == 0, result.stderr
    name, message = result.stdout.splitlines()
    assert name == "torch.no_such_module"
    assert message == ("cinder does not provide 'torch.no_such_module' yet "
                       "(looked for 'cinder.no_such_module')")


def test_missing_attribute_names_torch(tmp_path):
    result = _run_script(tmp_path, """
        import torch
        try:
            torch.some_missing_fn
        except AttributeError as exc:
            print(exc)
    """)
    assert result.returncode == 0, result.stderr
    assert "'torch.some_missing_fn'" in result.stdout


def test_version(tmp_path):
    result = _cinder_cli(tmp_path, "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("cinder ")
    expected = getattr(cinder, "__version__", None)
    if expected is not None:
        assert result.stdout.strip() == f"cinder {expected}"


def test_no_command_prints_usage(tmp_path):
    result = _cinder_cli(tmp_path)
    assert result.returncode == 2
    assert "usage:" in result.stderr and "run" in result.stderr


# ------------------------------------------------------------------------------------------------
# In-process tests: install() / uninstall()
# ------------------------------------------------------------------------------------------------

def _torch_family_modules():
    """The PyTorch-named entries of sys.modules, name -> module object."""
    return {name: module for name, module in sys.modules.items()
            if compat.to_cinder_name(name) is not None}


@pytest.fixture
def hook():
    """Yields ``compat``; whatever a test does, the hook is gone and sys.modules intact after."""
    before = _torch_family_modules()
    meta_path = list(sys.meta_path)
    try:
        yield compat
    finally:
        compat.uninstall()
        assert sys.meta_path == meta_path
        after = _torch_family_modules()
        assert after.keys() == before.keys()
        assert all(after[name] is before[name] for name in before)


@pytest.fixture
def real_torch():
    """The real PyTorch, imported (with a submodule) before the ``hook`` fixture's snapshot."""
    torch = pytest.importorskip("torch")
    importlib.import_module("torch.nn")
    assert torch is not cinder
    return torch


def test_install_uninstall_restores_real_torch(real_torch, hook):
    real_nn = sys.modules["torch.nn"]

    hook.install()
    assert importlib.import_module("torch") is cinder
    assert sys.modules["torch"] is cinder
    assert importlib.import_module("torch.nn") is importlib.import_module("cinder.nn")
    assert sys.modules["torch.nn"] is sys.modules["cinder.nn"]
    # Only the name changed: cinder's own identity (read by relative imports, reload and
    # pickle) is untouched.
    assert cinder.__spec__.name == "cinder" and cinder.__name__ == "cinder"
    assert sys.modules["cinder.nn"].__spec__.name == "cinder.nn"

    hook.uninstall()
    assert sys.modules["torch"] is real_torch
    assert importlib.import_module("torch") is real_torch
    assert sys.modules["torch.nn"] is real_nn
    assert not hook.is_installed()


def test_uninstall_leaves_no_trace(hook):
    had_getattr = "__getattr__" in vars(cinder)
    hook.install()
    hook.install()  # installing twice is harmless
    assert sum(isinstance(f, type(compat._finder)) for f in sys.meta_path) == 1
    assert sys.meta_path[0] is compat._finder
    importlib.import_module("torch")
    importlib.import_module("torch.nn")
    hook.uninstall()
    hook.uninstall()  # and so is uninstalling twice
    assert ("__getattr__" in vars(cinder)) == had_getattr
    # The fixture checks meta_path and the torch* entries of sys.modules.


def test_missing_module_in_process(hook):
    hook.install()
    with pytest.raises(ModuleNotFoundError, match=r"'torch\.no_such_module'") as info:
        importlib.import_module("torch.no_such_module")
    assert info.value.name == "torch.no_such_module"
    # 'torch.vision' is not a PyTorch name even though cinder.vision may exist one day.
    with pytest.raises(ModuleNotFoundError, match=r"'torch\.vision'"):
        importlib.import_module("torch.vision")


def test_lenient_mode_imports_placeholders(hook):
    if _cinder_has("cinder.vision.transforms"):
        pytest.skip("cinder.vision.transforms exists now")
    hook.install(strict=False)
    transforms = importlib.import_module("torchvision.transforms")
    with pytest.raises(AttributeError, match=r"'torchvision\.transforms\.Compose'"):
        _ = transforms.Compose
    torch = importlib.import_module("torch")
    importlib.import_module("torch.no_such_module")
    assert isinstance(torch.no_such_module, type(transforms))
    hook.uninstall()
    assert "torchvision" not in sys.modules and "torchvision.transforms" not in sys.modules
    assert "no_such_module" not in vars(cinder)  # the placeholder left no attribute behind


def test_name_mapping():
    assert compat.to_cinder_name("torch") == "cinder"
    assert compat.to_cinder_name("torch.nn.functional") == "cinder.nn.functional"
    assert compat.to_cinder_name("torchvision.transforms") == "cinder.vision.transforms"
    assert compat.to_cinder_name("torchaudio") is None
    assert compat.to_cinder_name("torch_geometric") is None
    assert compat.to_torch_name("cinder.utils.data") == "torch.utils.data"
    assert compat.to_torch_name("cinder.vision.transforms") == "torchvision.transforms"
    assert compat.to_torch_name("numpy") == "numpy"


def test_missing_attribute_error_message():
    exc = compat.missing_attribute_error("cinder.nn.functional", "no_such_op")
    assert isinstance(exc, AttributeError)
    assert "'torch.nn.functional.no_such_op'" in str(exc)
    assert "'cinder.nn.functional'" in str(exc)
    assert exc.name == "no_such_op"
    # Dunder probes (inspect, pickle, pytest) get Python's plain wording.
    assert str(compat.missing_attribute_error("cinder", "__wrapped__")) == (
        "module 'cinder' has no attribute '__wrapped__'")
