"""``torchvision`` for cinder: transforms, datasets, models, utils, io and ops.

``python -m cinder run`` maps ``import torchvision`` here. Pillow is needed for PIL images
(``pip install 'cinder[vision]'``); the rest works on tensors without it.
"""

__version__ = "0.28.0"

from . import transforms  # noqa: F401,E402
from . import datasets, utils  # noqa: F401,E402
from . import io, models, ops  # noqa: F401,E402
# ``tv_tensors`` is not imported here (nor by torchvision's ``__init__``): its Tensor subclasses
# have their own ``__torch_function__``, and once such a class exists every op call takes the
# dispatch point's slow path. ``import cinder.vision.tv_tensors`` (or transforms.v2) loads it.
