"""The preprocessing a pretrained classifier expects (``weights.transforms()``)."""

from ... import _tensor
from . import functional as F
from .functional import InterpolationMode
from .transforms import Transform
from ... import float32


class ImageClassification(Transform):
    """Resize (shorter side ``resize_size``), centre-crop ``crop_size``, scale to [0, 1] floats
    and normalise with ImageNet's mean and std."""

    def __init__(self, *, crop_size, resize_size=256, mean=(0.485, 0.456, 0.406),
                 std=(0.229, 0.224, 0.225), interpolation=InterpolationMode.BILINEAR,
                 antialias=True):
        super().__init__()
        self.crop_size, self.resize_size = [crop_size], [resize_size]
        self.mean, self.std = list(mean), list(std)
        self.interpolation, self.antialias = interpolation, antialias

    def forward(self, img):
        img = F.resize(img, self.resize_size, interpolation=self.interpolation,
                       antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        if not isinstance(img, _tensor.Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, float32)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self):
        lines = [f"crop_size={self.crop_size}", f"resize_size={self.resize_size}",
                 f"mean={self.mean}", f"std={self.std}", f"interpolation={self.interpolation}"]
        return self.__class__.__name__ + "(" + "".join(f"\n    {x}" for x in lines) + "\n)"

    def describe(self):
        return ("Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image "
                "``torch.Tensor`` objects. The images are resized to "
                f"``resize_size={self.resize_size}`` using ``interpolation={self.interpolation}``, "
                f"followed by a central crop of ``crop_size={self.crop_size}``. Finally the values "
                "are first rescaled to ``[0.0, 1.0]`` and then normalized using "
                f"``mean={self.mean}`` and ``std={self.std}``.")
