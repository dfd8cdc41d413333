"""cinder.vision.datasets and utils against torchvision 0.28.0 on the same files."""

import gzip
import os
import pickle

import numpy as np
import pytest
import torch
from PIL import Image

import cinder
from cinder.vision import datasets as CD
from cinder.vision import transforms as CT
from cinder.vision import utils as CU

SHIPPED = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "data")


@pytest.fixture(scope="module")
def mnist_plain(tmp_path_factory):
    """The shipped subset with the IDX files un-gzipped (torchvision reads only those)."""
    root = tmp_path_factory.mktemp("mnist")
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for name in os.listdir(os.path.join(SHIPPED, "MNIST", "raw")):
        with gzip.open(os.path.join(SHIPPED, "MNIST", "raw", name)) as f:
            (raw / name[:-3]).write_bytes(f.read())
    return str(root)


@pytest.mark.parametrize("train", [True, False])
def test_mnist_matches_torchvision(tv, mnist_plain, train):
    ours_gz = CD.MNIST(SHIPPED, train=train, transform=CT.ToTensor())
    ours = CD.MNIST(mnist_plain, train=train)
    theirs = tv.datasets.MNIST(mnist_plain, train=train)
    assert len(ours) == len(theirs) == len(ours_gz) == (4000 if train else 1000)
    np.testing.assert_array_equal(ours.data.numpy(), theirs.data.numpy())
    np.testing.assert_array_equal(ours.targets.numpy(), theirs.targets.numpy())
    assert str(ours.targets.dtype) == str(theirs.targets.dtype)
    for i in (0, 17, len(ours) - 1):
        (a, la), (b, lb) = ours[i], theirs[i]
        assert la == lb and a.mode == b.mode
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        np.testing.assert_array_equal(ours_gz[i][0].numpy(), np.asarray(b)[None] / np.float32(255))
    assert repr(ours) == repr(theirs)
    assert ours.class_to_idx == theirs.class_to_idx


def test_shipped_subset_is_stratified():
    for train, n in ((True, 400), (False, 100)):
        counts = np.bincount(CD.MNIST(SHIPPED, train=train).targets.numpy(), minlength=10)
        assert counts.tolist() == [n] * 10


def test_missing_files_fail_at_once(tmp_path, tv):
    with pytest.raises(RuntimeError, match="Dataset not found"):
        CD.MNIST(str(tmp_path))
    with pytest.raises(RuntimeError, match="Dataset not found"):
        tv.datasets.MNIST(str(tmp_path))
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte.gz.*MNIST/raw"):
        CD.MNIST(str(tmp_path), download=True)
    with pytest.raises(RuntimeError, match="cifar-10-batches-py"):
        CD.CIFAR10(str(tmp_path), download=True)


def _write_cifar(root, n=6):
    folder = root / "cifar-10-batches-py"
    folder.mkdir()
    rng = np.random.default_rng(1)
    for name in ["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4",
                 "data_batch_5", "test_batch"]:
        batch = {"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
                 "labels": rng.integers(0, 10, n).tolist()}
        (folder / name).write_bytes(pickle.dumps(batch, protocol=2))
    names = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
             "truck"]
    (folder / "batches.meta").write_bytes(pickle.dumps({"label_names": names}))


def test_cifar10_reads_batches_like_torchvision(tmp_path, tv, monkeypatch):
    _write_cifar(tmp_path)
    ours = CD.CIFAR10(str(tmp_path), train=True)
    # torchvision checks md5 sums of the real files; the fixture files are different
    monkeypatch.setattr(tv.datasets.CIFAR10, "_check_integrity", lambda self: True)
    monkeypatch.setattr(tv.datasets.cifar, "check_integrity", lambda *a, **k: True)
    theirs = tv.datasets.CIFAR10(str(tmp_path), train=True)
    assert len(ours) == len(theirs) == 30 and ours.classes == theirs.classes
    np.testing.assert_array_equal(ours.data, theirs.data)
    a, b = ours[7], theirs[7]
    assert a[1] == b[1]
    np.testing.assert_array_equal(np.asarray(a[0]), np.asarray(b[0]))


def test_cifar_refuses_code_in_pickles(tmp_path):
    _write_cifar(tmp_path)
    evil = tmp_path / "cifar-10-batches-py" / "data_batch_1"
    evil.write_bytes(pickle.dumps({"data": os.getcwd, "labels": []}))
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        CD.CIFAR10(str(tmp_path), train=True)


def test_image_folder(tmp_path, tv):
    rng = np.random.default_rng(2)
    for cls, count in (("cat", 2), ("dog", 3)):
        (tmp_path / cls).mkdir()
        for i in range(count):
            Image.fromarray(rng.integers(0, 256, (5, 4, 3), dtype=np.uint8)).save(
                tmp_path / cls / f"{i}.png")
    (tmp_path / "dog" / "notes.txt").write_text("not an image")
    ours, theirs = CD.ImageFolder(str(tmp_path)), tv.datasets.ImageFolder(str(tmp_path))
    assert ours.classes == theirs.classes and ours.class_to_idx == theirs.class_to_idx
    assert ours.samples == theirs.samples and ours.imgs == theirs.imgs
    assert ours.targets == theirs.targets
    np.testing.assert_array_equal(np.asarray(ours[3][0]), np.asarray(theirs[3][0]))
    (tmp_path / "empty").mkdir()
    for mod in (CD, tv.datasets):
        with pytest.raises(FileNotFoundError, match="Found no valid file for the classes empty"):
            mod.ImageFolder(str(tmp_path))
    assert len(CD.ImageFolder(str(tmp_path), allow_empty=True)) == 5
    folder = CD.DatasetFolder(str(tmp_path), loader=lambda p: p, extensions=(".txt",),
                              allow_empty=True)
    assert [os.path.basename(p) for p, _ in folder.samples] == ["notes.txt"]


def test_fake_data_matches_torchvision(tv):
    ours = CD.FakeData(size=4, image_size=(3, 8, 8), transform=CT.ToTensor())
    theirs = tv.datasets.FakeData(size=4, image_size=(3, 8, 8),
                                  transform=tv.transforms.ToTensor())
    for i in range(4):
        (a, la), (b, lb) = ours[i], theirs[i]
        assert la == lb
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert repr(ours) == repr(theirs).replace("torchvision", "cinder")


def test_svhn_reads_mat(tmp_path):
    from scipy import io as sio
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, (32, 32, 3, 4), dtype=np.uint8)
    sio.savemat(tmp_path / "test_32x32.mat", {"X": x, "y": np.array([[10], [1], [2], [3]])})
    ds = CD.SVHN(str(tmp_path), split="test")
    assert ds.labels.tolist() == [0, 1, 2, 3]
    img, label = ds[0]
    np.testing.assert_array_equal(np.asarray(img), x[:, :, :, 0])


@pytest.mark.parametrize("kwargs", [{}, {"nrow": 3, "padding": 1, "pad_value": 0.5},
                                    {"normalize": True}, {"normalize": True, "scale_each": True},
                                    {"normalize": True, "value_range": (0.2, 0.6)}])
def test_make_grid(tv, kwargs):
    x = np.random.default_rng(4).random((7, 1, 5, 6), dtype=np.float32) * 3 - 1
    ours = CU.make_grid(cinder.from_numpy(x.copy()), **kwargs)
    theirs = tv.utils.make_grid(torch.from_numpy(x.copy()), **kwargs)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-6)
    one = CU.make_grid(cinder.from_numpy(x[:1].copy()), **kwargs)
    assert one.shape == tv.utils.make_grid(torch.from_numpy(x[:1].copy()), **kwargs).shape


def test_save_image(tv, tmp_path):
    x = np.random.default_rng(5).random((4, 3, 5, 6), dtype=np.float32)
    CU.save_image(cinder.from_numpy(x), tmp_path / "a.png", nrow=2)
    tv.utils.save_image(torch.from_numpy(x), tmp_path / "b.png", nrow=2)
    np.testing.assert_array_equal(np.asarray(Image.open(tmp_path / "a.png")),
                                  np.asarray(Image.open(tmp_path / "b.png")))


def test_draw_functions_match(tv):
    img = np.random.default_rng(6).integers(0, 256, (3, 30, 40), dtype=np.uint8)
    boxes = np.array([[2, 3, 20, 25], [10, 5, 35, 28]], dtype=np.float32)
    ours = CU.draw_bounding_boxes(cinder.from_numpy(img), cinder.from_numpy(boxes),
                                  colors="red", width=2)
    theirs = tv.utils.draw_bounding_boxes(torch.from_numpy(img), torch.from_numpy(boxes),
                                          colors="red", width=2)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    masks = np.zeros((2, 30, 40), dtype=bool)
    masks[0, 2:10, 3:30] = True
    masks[1, 15:25, 5:12] = True
    ours = CU.draw_segmentation_masks(cinder.from_numpy(img), cinder.from_numpy(masks),
                                      alpha=0.5, colors=["blue", "green"])
    theirs = tv.utils.draw_segmentation_masks(torch.from_numpy(img), torch.from_numpy(masks),
                                              alpha=0.5, colors=["blue", "green"])
    np.testing.assert_allclose(ours.numpy().astype(int), theirs.numpy().astype(int), atol=1)
    for mod, lib in ((CU, cinder), (tv.utils, torch)):
        with pytest.raises(ValueError, match="Pass individual images, not batches"):
            mod.draw_bounding_boxes(lib.zeros(1, 3, 4, 4, dtype=lib.uint8),
                                    lib.zeros(0, 4))


def _write_idx(folder, prefix_images, prefix_labels, n, seed, label_dtype=np.uint8):
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "make_mnist_subset", os.path.join(SHIPPED, "..", "..", "tools", "make_mnist_subset.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / prefix_images).write_bytes(tool.idx_bytes(
        rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)))
    (folder / prefix_labels).write_bytes(tool.idx_bytes(rng.integers(0, 10, n).astype(np.uint8)))


@pytest.mark.parametrize("name", ["FashionMNIST", "KMNIST"])
def test_mnist_family_reads_like_torchvision(tv, tmp_path, name):
    for split, n in (("train", 12), ("t10k", 5)):
        _write_idx(tmp_path / name / "raw", f"{split}-images-idx3-ubyte",
                   f"{split}-labels-idx1-ubyte", n, 7)
    ours = getattr(CD, name)(str(tmp_path), train=False)
    theirs = getattr(tv.datasets, name)(str(tmp_path), train=False)
    assert len(ours) == len(theirs) == 5 and ours.classes == theirs.classes
    assert repr(ours) == repr(theirs)
    np.testing.assert_array_equal(np.asarray(ours[3][0]), np.asarray(theirs[3][0]))
    assert ours[3][1] == theirs[3][1]


def test_emnist_split_files(tv, tmp_path):
    _write_idx(tmp_path / "EMNIST" / "raw", "emnist-letters-test-images-idx3-ubyte",
               "emnist-letters-test-labels-idx1-ubyte", 6, 8)
    ours = CD.EMNIST(str(tmp_path), split="letters", train=False)
    theirs = tv.datasets.EMNIST(str(tmp_path), split="letters", train=False)
    assert ours.classes == theirs.classes and len(ours) == len(theirs) == 6
    np.testing.assert_array_equal(ours.data.numpy(), theirs.data.numpy())
    for mod in (CD, tv.datasets):
        with pytest.raises(ValueError, match="Unknown value 'nope' for argument split"):
            mod.EMNIST(str(tmp_path), split="nope")
