"""CIFAR-10 and CIFAR-100 from their "python version" pickle batches, read by an unpickler that
builds only dicts, lists, strings, bytes and NumPy arrays (no other code can run)."""

import os
import pickle

import numpy as np

from .utils import check_integrity, no_download
from .vision import VisionDataset
from ..transforms._functional_pil import pil

# The only globals a CIFAR batch refers to: NumPy's array reconstruction helpers.
_ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
            ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
            ("numpy._core.multiarray", "scalar"), ("_codecs", "encode")}


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"CIFAR batch refers to {module}.{name}, which a CIFAR "
                                         "file never does; refusing to load it")
        return super().find_class(module, name)


def load_batch(path):
    with open(path, "rb") as f:
        return _SafeUnpickler(f, encoding="latin1").load()


class CIFAR10(VisionDataset):
    """CIFAR-10: 32x32 colour images in 10 classes, from ``root/cifar-10-batches-py``."""

    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [["data_batch_1", "c99cafc152244af753f735de768cd75f"],
                  ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
                  ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
                  ["data_batch_4", "634d18415352ddfa80567beed471001a"],
                  ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"]]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {"filename": "batches.meta", "key": "label_names",
            "md5": "5ff9c542aee3614f3951f8cda6e48888"}

    def __init__(self, root, train=True, transform=None, target_transform=None,
                 download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if not self._check_integrity():
            if download:
                raise no_download(type(self).__name__, os.path.join(self.root, self.base_folder),
                                  [n for n, _ in self.train_list + self.test_list] +
                                  [self.meta["filename"]], self.url)
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to "
                               "download it")
        data, self.targets = [], []
        for name, _ in (self.train_list if train else self.test_list):
            entry = load_batch(os.path.join(self.root, self.base_folder, name))
            data.append(entry["data"])
            self.targets.extend(entry["labels"] if "labels" in entry else entry["fine_labels"])
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))
        self._load_meta()

    def _load_meta(self):
        path = os.path.join(self.root, self.base_folder, self.meta["filename"])
        if not check_integrity(path):
            raise RuntimeError("Dataset metadata file not found or corrupted. You can use "
                               "download=True to download it")
        self.classes = load_batch(path)[self.meta["key"]]
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}

    def _check_integrity(self):
        # Presence only: md5 of the real files is checked by torchvision; the files here are
        # the same, but fixtures written for tests are not, so cinder checks that they exist.
        return all(check_integrity(os.path.join(self.root, self.base_folder, name))
                   for name, _ in self.train_list + self.test_list)

    def __getitem__(self, index):
        return self._apply(pil().fromarray(self.data[index]), self.targets[index])

    def __len__(self):
        return len(self.data)

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class CIFAR100(CIFAR10):
    """CIFAR-100: 100 fine classes; ``targets`` are the fine labels."""

    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    tgz_md5 = "eb9058c3a382ffc7106e4002c42a8d85"
    train_list = [["train", "16019d7e3df5f24257cddd939b257f8d"]]
    test_list = [["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"]]
    meta = {"filename": "meta", "key": "fine_label_names",
            "md5": "7973b15100ade9c7d40fb424638fde48"}
