"""SVHN (Street View House Numbers) from its ``.mat`` files, read with SciPy."""

import os

import numpy as np

from .utils import no_download
from .vision import VisionDataset
from ..transforms._functional_pil import pil


class SVHN(VisionDataset):
    """``split`` is 'train', 'test' or 'extra'; label 10 (digit 0) becomes 0 as in torchvision."""

    split_list = {
        "train": ["http://ufldl.stanford.edu/housenumbers/train_32x32.mat", "train_32x32.mat",
                  "e26dedcc434d2e4c54c9b2d4a06d8373"],
        "test": ["http://ufldl.stanford.edu/housenumbers/test_32x32.mat", "test_32x32.mat",
                 "eb5a983be6a315427106f1b164d9cef3"],
        "extra": ["http://ufldl.stanford.edu/housenumbers/extra_32x32.mat", "extra_32x32.mat",
                  "a93ce644f1a588dc4d68dda5feec44a7"],
    }

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        if split not in self.split_list:
            raise ValueError(f"Unknown value '{split}' for argument split. Valid values are "
                             f"{{{', '.join(repr(s) for s in self.split_list)}}}.")
        self.split = split
        url, self.filename, _ = self.split_list[split]
        path = os.path.join(self.root, self.filename)
        if not os.path.isfile(path):
            if download:
                raise no_download("SVHN", self.root, [self.filename], url)
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to "
                               "download it")
        from scipy import io as sio
        mat = sio.loadmat(path)
        self.data = np.transpose(mat["X"], (3, 2, 0, 1))
        labels = mat["y"].astype(np.int64).squeeze()
        np.place(labels, labels == 10, 0)
        self.labels = labels

    def __getitem__(self, index):
        img = pil().fromarray(np.transpose(self.data[index], (1, 2, 0)))
        return self._apply(img, int(self.labels[index]))

    def __len__(self):
        return len(self.data)

    def extra_repr(self):
        return f"Split: {self.split}"
