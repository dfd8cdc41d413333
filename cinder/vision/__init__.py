"""``torchvision`` for cinder: transforms, datasets, models, utils, io and ops.

``python -m cinder run`` maps ``import torchvision`` here. Pillow is needed for PIL images
(``pip install 'cinder[vision]'``); the rest works on tensors without it.
"""

__version__ = "0.28.0"

from . import transforms  # noqa: F401,E402
from . import datasets, utils  # noqa: F401,E402
from . import io, models, ops  # noqa: F401,E402
from . import tv_tensors  # noqa: F401,E402
