"""FakeData: random images that are the same for the same index (seeded per index)."""

from ... import random as _random
from ...ops import FUNCTIONS as _F
from .vision import VisionDataset


class FakeData(VisionDataset):
    """``size`` random images of ``image_size`` (C, H, W) with random targets; image ``i`` is
    drawn from ``manual_seed(i + random_offset)`` and the global RNG state is restored."""

    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
                 target_transform=None, random_offset=0):
        super().__init__(transform=transform, target_transform=target_transform)
        self.size, self.num_classes = size, num_classes
        self.image_size, self.random_offset = image_size, random_offset

    def __getitem__(self, index):
        from ..transforms.functional import to_pil_image
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        state = _random.get_rng_state()
        _random.manual_seed(index + self.random_offset)
        img = _F["randn"](*self.image_size)
        target = _F["randint"](0, self.num_classes, size=(1,), dtype=_F["tensor"](0).dtype)[0]
        _random.set_rng_state(state)
        img, target = self._apply(to_pil_image(img), target)
        return img, target.item()

    def __len__(self):
        return self.size
