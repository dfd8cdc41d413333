"""cinder.utils.tensorboard.SummaryWriter against torch.utils.tensorboard: the same calls,
read back with TensorBoard's own EventAccumulator, give the same tags, steps and values."""

import glob
import os

import numpy as np
import pytest

pytest.importorskip("tensorboard")

import torch  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa
from torch.utils.tensorboard import SummaryWriter as TorchWriter  # noqa: E402

import cinder  # noqa: E402
from cinder.utils.tensorboard import SummaryWriter  # noqa: E402

SIZE = {"images": 0, "histograms": 0, "scalars": 0, "tensors": 0, "audio": 0}
RNG = np.random.default_rng(0)
HIST = RNG.normal(size=500).astype(np.float32)
IMG = RNG.random((3, 8, 10)).astype(np.float32)
BATCH = RNG.random((5, 1, 6, 6)).astype(np.float32)
SOUND = np.sin(np.linspace(0, 40, 800)).astype(np.float32)
LABELS = RNG.integers(0, 2, 60)
PREDS = RNG.random(60).astype(np.float32)
MESH = RNG.random((1, 4, 3)).astype(np.float32)


def _log(writer, lib):
    t = lib.from_numpy
    for step in range(3):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_scalar("acc", t(np.array(0.5 + step / 10, dtype=np.float32)), step,
                          new_style=True)
        writer.add_scalars("run", {"a": step, "b": 2 * step}, step)
    writer.add_histogram("weights", t(HIST), 0)
    writer.add_histogram("weights_auto", t(HIST), 1, bins="auto")
    writer.add_image("img", t(IMG), 0)
    writer.add_image("img_hwc", t(IMG.transpose(1, 2, 0).copy()), 0, dataformats="HWC")
    writer.add_images("batch", t(BATCH), 0)
    writer.add_text("note", "hello **tensorboard**", 0)
    writer.add_audio("sound", t(SOUND), 0, sample_rate=8000)
    writer.add_pr_curve("pr", t(LABELS), t(PREDS), 0)
    writer.add_custom_scalars({"grp": {"both": ["Multiline", ["loss", "acc"]]}})
    writer.add_mesh("mesh", t(MESH),
                    faces=t(np.array([[[0, 1, 2], [1, 2, 3]]], dtype=np.int32)), global_step=0)


def _read(folder):
    acc = EventAccumulator(folder, size_guidance=SIZE)
    acc.Reload()
    return acc


def _same_scalars(a, b):
    assert a.Tags()["scalars"] == b.Tags()["scalars"]
    for tag in a.Tags()["scalars"]:
        ea, eb = a.Scalars(tag), b.Scalars(tag)
        assert [e.step for e in ea] == [e.step for e in eb]
        np.testing.assert_allclose([e.value for e in ea], [e.value for e in eb], rtol=1e-6)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    root = tmp_path_factory.mktemp("tb")
    with SummaryWriter(str(root / "cinder")) as w:
        _log(w, cinder)
    with TorchWriter(str(root / "torch")) as w:
        _log(w, torch)
    return _read(str(root / "cinder")), _read(str(root / "torch")), root


def test_same_tags(logs):
    ours, theirs, _ = logs
    for kind in ("scalars", "images", "histograms", "audio", "tensors"):
        assert sorted(ours.Tags()[kind]) == sorted(theirs.Tags()[kind]), kind


def test_scalars_and_add_scalars(logs):
    ours, theirs, root = logs
    _same_scalars(ours, theirs)
    for sub in ("run_a", "run_b"):
        _same_scalars(_read(str(root / "cinder" / sub)), _read(str(root / "torch" / sub)))


def test_histograms(logs):
    ours, theirs, _ = logs
    for tag in ("weights", "weights_auto"):
        a, b = ours.Histograms(tag)[0], theirs.Histograms(tag)[0]
        assert a.step == b.step
        for field in ("min", "max", "num", "sum", "sum_squares"):
            np.testing.assert_allclose(getattr(a.histogram_value, field),
                                       getattr(b.histogram_value, field), rtol=1e-6)
        assert a.histogram_value.bucket == b.histogram_value.bucket
        np.testing.assert_allclose(a.histogram_value.bucket_limit, b.histogram_value.bucket_limit)


def test_images_audio_text_pr(logs):
    ours, theirs, _ = logs
    for tag in ("img", "img_hwc", "batch"):
        a, b = ours.Images(tag)[0], theirs.Images(tag)[0]
        assert (a.width, a.height, a.step) == (b.width, b.height, b.step)
        assert a.encoded_image_string == b.encoded_image_string
    a, b = ours.Audio("sound")[0], theirs.Audio("sound")[0]
    assert a.encoded_audio_string == b.encoded_audio_string and a.sample_rate == b.sample_rate
    for tag in ours.Tags()["tensors"]:
        ta, tb = ours.Tensors(tag)[0].tensor_proto, theirs.Tensors(tag)[0].tensor_proto
        assert ta.string_val == tb.string_val, tag
        np.testing.assert_allclose(ta.float_val, tb.float_val, rtol=1e-6, err_msg=tag)
        assert ta.tensor_shape == tb.tensor_shape, tag


def test_hparams_embedding_and_purge(tmp_path):
    with SummaryWriter(str(tmp_path / "c")) as w:
        w.add_hparams({"lr": 0.1, "bs": 32, "opt": "adam"}, {"hparam/acc": 0.9},
                      run_name="trial")
        w.add_embedding(cinder.rand(6, 4), metadata=list("abcdef"),
                        label_img=cinder.rand(6, 3, 5, 5), tag="emb")
    hp = _read(str(tmp_path / "c" / "trial"))
    assert [e.value for e in hp.Scalars("hparam/acc")] == [pytest.approx(0.9)]
    assert "_hparams_/experiment" in hp.summary_metadata
    emb = tmp_path / "c" / "00000" / "emb"
    assert sorted(os.listdir(emb)) == ["metadata.tsv", "sprite.png", "tensors.tsv"]
    assert len((emb / "tensors.tsv").read_text().splitlines()) == 6
    assert "tensor_name: \"emb:00000\"" in (tmp_path / "c" / "projector_config.pbtxt").read_text()
    w = SummaryWriter(str(tmp_path / "p"), purge_step=5, filename_suffix=".mine")
    w.add_scalar("x", 1.0, 5)
    w.close()
    assert glob.glob(str(tmp_path / "p" / "*.mine"))


def test_graph_and_default_logdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_exp")
    assert w.log_dir.startswith(os.path.join("runs", "")) and w.log_dir.endswith("_exp")

    class Tiny:
        """Duck-typed module (cinder.nn may not be merged where this test runs)."""

        def __init__(self):
            self.w = cinder.rand(3, 2, requires_grad=True)

        def __call__(self, x):
            return (x.matmul(self.w)).relu().sum()

        def named_modules(self):
            return [("", self)]

        def named_parameters(self, recurse=True):
            return [("w", self.w)]

    w.add_graph(Tiny(), cinder.rand(4, 3))
    w.close()
    graph = _read(w.log_dir).Graph()
    names = [n.name for n in graph.node]
    ops = {n.op for n in graph.node}
    assert "Tiny" in names and "autograd/w" in names
    assert {"SumBackward0", "ReluBackward0", "MmBackward0"} <= ops or \
        {"SumBackward0", "ReluBackward0"} <= ops


def test_cinder_tensor_on_cuda_style_inputs_are_host_copied(tmp_path):
    # tensors that require grad are accepted (detached), as PyTorch's writer does
    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("g", cinder.tensor(2.0, requires_grad=True) * 3, 0)
    assert _read(str(tmp_path)).Scalars("g")[0].value == 6.0
