"""VisionDataset: the base of the image datasets (root, transforms, repr)."""

import os

try:                          # torchvision's datasets are torch.utils.data.Datasets
    from ...utils.data import Dataset as _DatasetBase
except ImportError:           # pragma: no cover - before cinder.utils.data exists
    _DatasetBase = object


class StandardTransform:
    """Apply ``transform`` to the input and ``target_transform`` to the target."""

    def __init__(self, transform=None, target_transform=None):
        self.transform, self.target_transform = transform, target_transform

    def __call__(self, input, target):
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    def _format(self, transform, head):
        lines = repr(transform).splitlines()
        return [f"{head}{lines[0]}"] + [" " * len(head) + line for line in lines[1:]]

    def __repr__(self):
        body = [self.__class__.__name__]
        if self.transform is not None:
            body += self._format(self.transform, "Transform: ")
        if self.target_transform is not None:
            body += self._format(self.target_transform, "Target transform: ")
        return "\n".join(body)


class VisionDataset(_DatasetBase):
    """Base of the datasets: keeps ``root`` and either ``transforms`` (applied to the pair) or
    ``transform``/``target_transform`` (applied separately), never both."""

    _repr_indent = 4

    def __init__(self, root=None, transforms=None, transform=None, target_transform=None):
        if isinstance(root, str):
            root = os.path.expanduser(root)
        self.root = root
        separate = transform is not None or target_transform is not None
        if transforms is not None and separate:
            raise ValueError("Only transforms or transform/target_transform can be passed as "
                             "argument")
        self.transform, self.target_transform = transform, target_transform
        if separate:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def __repr__(self):
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if getattr(self, "transforms", None) is not None:
            body += [repr(self.transforms)]
        pad = " " * self._repr_indent
        return "\n".join(["Dataset " + self.__class__.__name__] + [pad + line for line in body])

    def extra_repr(self):
        return ""

    def _apply(self, img, target):
        """The (transformed image, transformed target) pair."""
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target
