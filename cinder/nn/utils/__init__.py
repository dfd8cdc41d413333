"""``torch.nn.utils``: gradient clipping, parameter vectors, parametrizations, weight/spectral
norm, BatchNorm fusion, stateless calls and ``skip_init``."""

from . import parametrizations, parametrize, stateless  # noqa: F401
from .clip_grad import clip_grad_norm  # noqa: F401
from .clip_grad import clip_grad_norm_  # noqa: F401
from .clip_grad import clip_grad_value_  # noqa: F401
from .clip_grad import clip_grads_with_norm_  # noqa: F401
from .clip_grad import get_total_norm  # noqa: F401
from .convert_parameters import parameters_to_vector  # noqa: F401
from .convert_parameters import vector_to_parameters  # noqa: F401
from .fusion import fuse_conv_bn_eval  # noqa: F401
from .fusion import fuse_conv_bn_weights  # noqa: F401
from .fusion import fuse_linear_bn_eval  # noqa: F401
from .fusion import fuse_linear_bn_weights  # noqa: F401
from .init import skip_init  # noqa: F401
from .memory_format import convert_conv2d_weight_memory_format  # noqa: F401
from .memory_format import convert_conv3d_weight_memory_format  # noqa: F401
from .spectral_norm import remove_spectral_norm  # noqa: F401
from .spectral_norm import spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm  # noqa: F401
from .weight_norm import weight_norm  # noqa: F401
from . import rnn  # noqa: F401
