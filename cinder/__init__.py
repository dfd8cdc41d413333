"""cinder: PyTorch's API in Python, computing on NumPy (CPU) and CuPy (CUDA GPUs).

``import cinder as torch`` and a PyTorch program runs on cinder. The layout mirrors PyTorch:
``cinder.Tensor``, ``cinder.autograd``, ``cinder.nn``... See DESIGN.md for the architecture.
"""

__version__ = "0.1.0"

from ._dtype import (dtype, bool, uint8, int8, int16, int32, int64, float16, bfloat16,  # noqa
                     float32, float64, complex64, complex128, promote_types, get_default_dtype,
                     set_default_dtype, can_cast, finfo, iinfo)
from ._dtype import uint16, uint32, uint64  # noqa: F401  (limited support, as in PyTorch)
from ._dtype import ALIASES as _ALIASES
from ._device import device, set_default_device, get_default_device  # noqa: F401
from ._tensor import Tensor, Size  # noqa: F401
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled,  # noqa: F401
                                 inference_mode, is_grad_enabled, is_inference_mode_enabled)
from . import random  # noqa: F401
from .random import (Generator, default_generator, manual_seed, seed,  # noqa: F401
                     initial_seed, get_rng_state, set_rng_state)
from . import ops as _ops
from . import autograd, return_types, cuda, nn, serialization  # noqa: F401
from . import _C, overrides  # noqa: F401  (the __torch_function__ protocol)
from .compat import missing_attribute_error as _missing_attribute_error
from . import optim  # noqa: F401
from . import func  # noqa: F401  (torch.func.functional_call)
from . import linalg  # noqa: F401,E402
from . import fft, special, signal  # noqa: F401,E402
from . import multiprocessing, utils  # noqa: F401,E402
from . import distributed  # noqa: F401,E402
from . import testing  # noqa: F401
from math import e, pi, inf, nan  # noqa: F401  (torch.e, torch.pi, ...)
from ._legacy import CPU_TYPES as _CPU_TYPES, set_default_tensor_type  # noqa: F401
from ._storage import UntypedStorage, TypedStorage  # noqa: F401
from .autograd.anomaly_mode import (is_anomaly_enabled, is_anomaly_check_nan_enabled,  # noqa
                                    set_anomaly_enabled)
from ._tensor_str import set_printoptions, get_printoptions, printoptions  # noqa: F401
from .ops.random import bernoulli, multinomial, normal  # noqa: F401
from .ops.creation import from_numpy, tensor  # noqa: F401
from .ops.distributions import (_standard_gamma, _standard_gamma_grad, _sample_dirichlet,  # noqa
                                _dirichlet_grad)

autograd._load_user_api()      # autograd's user API sits above the ops, loaded now
globals().update(_ALIASES)
globals().update(_CPU_TYPES)
globals().update({k: v for k, v in _ops.FUNCTIONS.items() if not k.startswith("_")})

complex = _ops.FUNCTIONS["complex"]          # torch.complex is the op (shadows the builtin)
range = _ops.FUNCTIONS["range"]


from ._layout import (layout, memory_format, strided, contiguous_format,  # noqa: F401,E402
                      preserve_format, channels_last, channels_last_3d,
                      legacy_contiguous_format)


def is_tensor(obj):
    """Whether ``obj`` is a cinder Tensor."""
    return isinstance(obj, Tensor)


def is_storage(obj):
    return isinstance(obj, (UntypedStorage, TypedStorage))




def __getattr__(name):
    # A PyTorch name cinder lacks is an AttributeError naming the torch.* spelling.
    raise _missing_attribute_error(__name__, name)


from .serialization import save, load  # noqa: E402,F401
from . import distributions  # noqa: E402,F401

from .utils import _visdom  # noqa: E402
_visdom.install()           # visdom accepts cinder tensors once it is imported

newaxis = None                               # torch.newaxis (indexing with None)

# Runtime switches, exception types, streams/events and device modules (torch.* names)
from ._runtime import (use_deterministic_algorithms, are_deterministic_algorithms_enabled,  # noqa
                       is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                       get_deterministic_debug_mode, set_float32_matmul_precision,
                       get_float32_matmul_precision, set_warn_always, is_warn_always_enabled,
                       set_flush_denormal, set_num_interop_threads, get_num_interop_threads,
                       init_num_threads, set_num_threads, get_num_threads)
from ._errors import AcceleratorError, FatalError, OutOfMemoryError  # noqa: F401,E402
from ._streams import Event, Stream  # noqa: F401,E402
from ._storage import StorageBase  # noqa: F401,E402
from ._device_modules import get_device_module, get_file_path  # noqa: F401,E402
from . import cpu  # noqa: F401,E402
Storage = _CPU_TYPES["FloatStorage"]        # torch.Storage: the default dtype's legacy storage
TYPE_CHECKING = False
USE_GLOBAL_DEPS = True                      # (PyTorch's build flags, with its values)
USE_RTLD_GLOBAL_WITH_LIBTORCH = False
from ._functorch.vmap import vmap  # noqa: F401,E402
from . import amp  # noqa: F401,E402
from .amp import GradScaler, autocast  # noqa: F401,E402
from .amp.autocast_mode import (is_autocast_enabled, set_autocast_enabled,  # noqa: F401,E402
                                get_autocast_dtype, set_autocast_dtype, is_autocast_cpu_enabled,
                                set_autocast_cpu_enabled, get_autocast_cpu_dtype,
                                set_autocast_cpu_dtype, get_autocast_gpu_dtype,
                                set_autocast_gpu_dtype, is_autocast_cache_enabled,
                                set_autocast_cache_enabled, clear_autocast_cache,
                                autocast_increment_nesting, autocast_decrement_nesting)
from .utils.dlpack import from_dlpack, to_dlpack  # noqa: F401,E402
from . import backends  # noqa: F401,E402  (torch.backends: cuBLAS/cuDNN/MPS switches)
from . import accelerator  # noqa: F401,E402  (torch.accelerator: device-agnostic access)
from . import version  # noqa: F401,E402  (torch.version: __version__, cuda, hip, ...)
from . import jit  # noqa: F401,E402  (torch.jit: the eager helpers; no TorchScript)
from . import compiler  # noqa: F401,E402  (torch.compiler: markers and queries)
from . import profiler  # noqa: F401,E402  (torch.profiler: op timings and traces)
from ._dynamo.eval_frame import compile  # noqa: F401,E402  (torch.compile, run eagerly)
