"""MNIST and its relatives, read from IDX files (plain or gzipped) or PyTorch's ``processed``
layout (``training.pt``/``test.pt``)."""

import codecs
import gzip
import os
import warnings

import numpy as np

from ...ops.creation import from_numpy
from .utils import check_integrity, no_download
from .vision import VisionDataset
from ..transforms._functional_pil import pil
from ...serialization import load

# IDX type codes -> big-endian NumPy dtypes.
_IDX_TYPES = {8: np.uint8, 9: np.int8, 11: np.dtype(">i2"), 12: np.dtype(">i4"),
              13: np.dtype(">f4"), 14: np.dtype(">f8")}


def _open_bytes(path):
    """The file's bytes; ``path`` may name the plain file or sit beside its ``.gz``."""
    if os.path.isfile(path):
        opener = gzip.open if path.endswith(".gz") else open
    elif os.path.isfile(path + ".gz"):
        path, opener = path + ".gz", gzip.open
    else:
        raise FileNotFoundError(path)
    with opener(path, "rb") as f:
        return f.read()


def read_sn3_pascalvincent_tensor(path, strict=True):
    """An IDX ("SN3 pascalvincent") file as a tensor of its stored dtype (native byte order)."""
    data = _open_bytes(path)
    magic = int(codecs.encode(data[0:4], "hex"), 16)
    nd, code = magic % 256, magic // 256
    if not (1 <= nd <= 3 and code in _IDX_TYPES):
        raise ValueError(f"{path} is not an IDX file (magic number {magic})")
    dims = [int(codecs.encode(data[4 * (i + 1):4 * (i + 2)], "hex"), 16) for i in range(nd)]
    values = np.frombuffer(data, dtype=_IDX_TYPES[code], offset=4 * (nd + 1))
    if strict and values.size != int(np.prod(dims)):
        raise ValueError(f"{path}: expected {int(np.prod(dims))} values, found {values.size}")
    values = values.astype(values.dtype.newbyteorder("="), copy=True)
    if values.dtype == np.int16:
        values = values.astype(np.int16)
    return from_numpy(values.reshape(dims))


def read_label_file(path):
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if str(x.dtype) != "torch.uint8" or x.ndimension() != 1:
        raise ValueError(f"{path}: labels must be a 1-d uint8 IDX file")
    return x.long()


def read_image_file(path):
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if str(x.dtype) != "torch.uint8" or x.ndimension() != 3:
        raise ValueError(f"{path}: images must be a 3-d uint8 IDX file")
    return x


def _pil_gray(array):
    return pil().fromarray(array, mode="L")


class MNIST(VisionDataset):
    """The MNIST digits: 28x28 grey images and their labels 0-9.

    Reads ``root/MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte`` (or the same names
    with ``.gz``), or ``root/MNIST/processed/{training,test}.pt`` when both exist.
    ``download=True`` never downloads: when files are missing it raises at once, naming them
    and the folder to place them in.
    """

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/",
               "http://yann.lecun.com/exdb/mnist/"]
    resources = [("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
                 ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
                 ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
                 ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c")]
    training_file = "training.pt"
    test_file = "test.pt"
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six",
               "7 - seven", "8 - eight", "9 - nine"]

    def __init__(self, root, train=True, transform=None, target_transform=None,
                 download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if self._check_legacy_exist():
            self.data, self.targets = self._load_legacy_data()
            return
        if not self._check_exists():
            if download:
                raise no_download(type(self).__name__, self.raw_folder,
                                  [name for name, _ in self.resources], self.mirrors[0])
            raise RuntimeError("Dataset not found. You can use download=True to download it")
        self.data, self.targets = self._load_data()

    # Old attribute names, kept with torchvision's warnings.
    @property
    def train_labels(self):
        warnings.warn("train_labels has been renamed targets", stacklevel=2)
        return self.targets

    @property
    def test_labels(self):
        warnings.warn("test_labels has been renamed targets", stacklevel=2)
        return self.targets

    @property
    def train_data(self):
        warnings.warn("train_data has been renamed data", stacklevel=2)
        return self.data

    @property
    def test_data(self):
        warnings.warn("test_data has been renamed data", stacklevel=2)
        return self.data

    @property
    def raw_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def processed_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "processed")

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def _check_legacy_exist(self):
        return all(check_integrity(os.path.join(self.processed_folder, f))
                   for f in (self.training_file, self.test_file))

    def _load_legacy_data(self):
        name = self.training_file if self.train else self.test_file
        return load(os.path.join(self.processed_folder, name), weights_only=True)

    def _raw_path(self, name):
        return os.path.join(self.raw_folder, os.path.splitext(name)[0])

    def _check_exists(self):
        return all(os.path.isfile(self._raw_path(n)) or os.path.isfile(self._raw_path(n) + ".gz")
                   for n, _ in self.resources)

    def _load_data(self):
        prefix = "train" if self.train else "t10k"
        data = read_image_file(os.path.join(self.raw_folder, f"{prefix}-images-idx3-ubyte"))
        targets = read_label_file(os.path.join(self.raw_folder, f"{prefix}-labels-idx1-ubyte"))
        return data, targets

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])
        return self._apply(_pil_gray(img.numpy()), target)

    def __len__(self):
        return len(self.data)

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: the MNIST layout with ten kinds of clothing."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
                 ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
                 ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
                 ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310")]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
               "Sneaker", "Bag", "Ankle boot"]


class KMNIST(MNIST):
    """Kuzushiji-MNIST: cursive Japanese characters in the MNIST layout."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
                 ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
                 ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
                 ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134")]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


# EMNIST's classes: digits, upper- and lower-case letters; the merged splits drop the
# lower-case letters that look like their capitals.
_EMNIST_ALL = [str(d) for d in range(10)] + [chr(c) for c in range(65, 91)] + \
    [chr(c) for c in range(97, 123)]
_EMNIST_MERGED = [c for c in _EMNIST_ALL if c not in set("cijklmopsuvwxyz")]


class EMNIST(MNIST):
    """EMNIST letters and digits; ``split`` picks the files
    ``emnist-<split>-{train,test}-{images-idx3,labels-idx1}-ubyte`` in ``raw``."""

    splits = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")
    classes_split_dict = {
        "byclass": _EMNIST_ALL,
        "bymerge": _EMNIST_MERGED,
        "balanced": _EMNIST_MERGED,
        "letters": ["N/A"] + [chr(c) for c in range(97, 123)],
        "digits": [str(d) for d in range(10)],
        "mnist": [str(d) for d in range(10)],
    }

    def __init__(self, root, split, **kwargs):
        if split not in self.splits:
            raise ValueError(f"Unknown value '{split}' for argument split. Valid values are "
                             f"{{{', '.join(repr(s) for s in self.splits)}}}.")
        self.split = split
        self.classes = self.classes_split_dict[split]
        super().__init__(root, **kwargs)

    def _names(self):
        part = "train" if self.train else "test"
        return (f"emnist-{self.split}-{part}-images-idx3-ubyte",
                f"emnist-{self.split}-{part}-labels-idx1-ubyte")

    def _check_exists(self):
        return all(os.path.isfile(os.path.join(self.raw_folder, n)) or
                   os.path.isfile(os.path.join(self.raw_folder, n) + ".gz")
                   for n in self._names())

    def _check_legacy_exist(self):
        return False

    def _load_data(self):
        images, labels = self._names()
        return (read_image_file(os.path.join(self.raw_folder, images)),
                read_label_file(os.path.join(self.raw_folder, labels)))

    @property
    def resources(self):
        return [(n + ".gz", None) for n in self._names()]


class QMNIST(MNIST):
    """QMNIST: MNIST with the reconstructed test set; ``what`` is 'train', 'test', 'test10k',
    'test50k' or 'nist'. Labels files are IDX int32 matrices (8 columns); ``compat=True``
    keeps only the class column, as MNIST does."""

    subsets = {"train": "train", "test": "test", "test10k": "test", "test50k": "test",
               "nist": "nist"}
    classes = MNIST.classes

    def __init__(self, root, what=None, compat=True, train=True, **kwargs):
        self.what = what or ("train" if train else "test")
        if self.what not in self.subsets:
            raise ValueError(f"Unknown value '{self.what}' for argument what. Valid values are "
                             f"{{{', '.join(repr(s) for s in self.subsets)}}}.")
        self.compat = compat
        self.data_file = self.what + ".pt"
        self.training_file = self.test_file = self.data_file
        super().__init__(root, train, **kwargs)

    def _names(self):
        base = f"qmnist-{self.subsets[self.what]}"
        if self.what == "nist":
            base = "xnist"
        return f"{base}-images-idx3-ubyte", f"{base}-labels-idx2-int"

    def _check_exists(self):
        return all(os.path.isfile(os.path.join(self.raw_folder, n)) or
                   os.path.isfile(os.path.join(self.raw_folder, n) + ".gz")
                   for n in self._names())

    @property
    def resources(self):
        return [(n + ".gz", None) for n in self._names()]

    def _load_data(self):
        images, labels = self._names()
        data = read_sn3_pascalvincent_tensor(os.path.join(self.raw_folder, images))
        targets = read_sn3_pascalvincent_tensor(os.path.join(self.raw_folder, labels)).long()
        if self.what == "test10k":
            data, targets = data[0:10000], targets[0:10000]
        elif self.what == "test50k":
            data, targets = data[10000:], targets[10000:]
        return data, targets

    def __getitem__(self, index):
        img, target = self.data[index], self.targets[index]
        target = int(target[0]) if self.compat else target
        return self._apply(_pil_gray(img.numpy()), target)

    def extra_repr(self):
        return f"Split: {self.what}"
