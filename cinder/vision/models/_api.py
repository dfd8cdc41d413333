"""Weights enums, the model registry (``get_model``, ``list_models``) and checkpoint loading.

cinder never downloads: ``weights=...`` reads torchvision's own checkpoint file from the local
cache, ``$TORCH_HOME/hub/checkpoints/<file name in the weights' URL>`` (``TORCH_HOME`` defaults
to ``~/.cache/torch``), the very file real torchvision downloads there. When it is missing the
error names the file and the folder to put it in.
"""

import fnmatch
import json
import math
import os
import sys
from dataclasses import dataclass
from enum import Enum
from functools import partial
from typing import Any, Callable
from ...serialization import load
from ... import nn

__all__ = ["WeightsEnum", "Weights", "get_model", "get_model_builder", "get_model_weights",
           "get_weight", "list_models", "register_model"]


@dataclass
class Weights:
    """One set of pretrained weights: where torchvision publishes the file, the preprocessing
    it expects (a constructor, called by ``weights.transforms()``) and its metadata."""

    url: str
    transforms: Callable
    meta: dict[str, Any]

    def __eq__(self, other):
        if not isinstance(other, Weights):
            return NotImplemented
        if self.url != other.url or self.meta != other.meta:
            return False
        a, b = self.transforms, other.transforms
        if isinstance(a, partial) and isinstance(b, partial):
            return (a.func, a.args, a.keywords) == (b.func, b.args, b.keywords)
        return a == b


def hub_checkpoint_dir():
    home = os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(
        os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch")))
    return os.path.join(home, "hub", "checkpoints")


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=True):
    """Load the cached copy of ``url`` (no download: fails at once naming the file)."""
    folder = model_dir or hub_checkpoint_dir()
    name = file_name or os.path.basename(url.split("?")[0])
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        raise RuntimeError(f"Pretrained weights file {name} is not in {folder}. cinder does not "
                           f"download: fetch {url} (or copy it from a machine where torchvision "
                           f"downloaded it) and place it at {path}")
    return load(path, map_location=map_location or "cpu", weights_only=weights_only)


class WeightsEnum(Enum):
    """Base of the per-model weights enums (``ResNet18_Weights.IMAGENET1K_V1``...)."""

    @classmethod
    def verify(cls, obj):
        if obj is not None:
            if type(obj) is str:
                obj = cls[obj.replace(cls.__name__ + ".", "")]
            elif not isinstance(obj, cls):
                raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but "
                                f"received {obj.__class__.__name__}.")
        return obj

    def get_state_dict(self, *args, **kwargs):
        return load_state_dict_from_url(self.url, *args, **kwargs)

    def __repr__(self):
        return f"{self.__class__.__name__}.{self._name_}"

    @property
    def url(self):
        return self.value.url

    @property
    def transforms(self):
        return self.value.transforms

    @property
    def meta(self):
        return self.value.meta


BUILTIN_MODELS = {}


def register_model(name=None):
    def wrapper(fn):
        key = name if name is not None else fn.__name__
        if key in BUILTIN_MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        BUILTIN_MODELS[key] = fn
        return fn
    return wrapper


def list_models(module=None, include=None, exclude=None):
    """Registered model names (optionally from one module, filtered by glob patterns)."""
    names = [k for k, v in BUILTIN_MODELS.items()
             if module is None or v.__module__.rsplit(".", 1)[0] == module.__name__]
    if include:
        patterns = [include] if isinstance(include, str) else include
        names = [n for n in names if any(fnmatch.fnmatch(n, p) for p in patterns)]
    if exclude:
        patterns = [exclude] if isinstance(exclude, str) else exclude
        names = [n for n in names if not any(fnmatch.fnmatch(n, p) for p in patterns)]
    return sorted(names)


def get_model_builder(name):
    name = name.lower()
    try:
        return BUILTIN_MODELS[name]
    except KeyError:
        raise ValueError(f"Unknown model {name}") from None


def get_model(name, **config):
    """Build a registered model by name: ``get_model("resnet18", weights=None)``."""
    return get_model_builder(name)(**config)


def get_model_weights(name):
    """The weights enum class of a model (by name or builder)."""
    fn = get_model_builder(name) if isinstance(name, str) else name
    annotation = getattr(fn, "_weights_enum", None)
    if annotation is None:
        raise ValueError("The weight enum was not found for the model.")
    return annotation


def get_weight(name):
    """``get_weight("ResNet50_Weights.IMAGENET1K_V2")``."""
    try:
        enum_name, value_name = name.split(".")
    except ValueError:
        raise ValueError(f"Invalid weight name provided: '{name}'.") from None
    from . import __name__ as pkg
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith(pkg) and hasattr(module, enum_name):
            enum = getattr(module, enum_name)
            if isinstance(enum, type) and issubclass(enum, WeightsEnum):
                return enum[value_name]
    raise ValueError(f"The weight enum '{enum_name}' for the specific method couldn't be "
                     "retrieved.")


def handle_legacy(weights_enum, weights, kwargs):
    """``pretrained=True`` (old API) means the enum's IMAGENET1K_V1 weights (not DEFAULT, as in
    torchvision), with torchvision's deprecation warnings; ``pretrained=False`` means none."""
    import warnings
    if "pretrained" in kwargs:
        pretrained = kwargs.pop("pretrained")
        warnings.warn("The parameter 'pretrained' is deprecated since 0.13 and may be removed in "
                      "the future, please use 'weights' instead.", stacklevel=3)
        if weights is None:
            legacy = getattr(weights_enum, "IMAGENET1K_V1", None) if pretrained else None
            if pretrained and legacy is None:
                raise ValueError(f"No weights available for model {weights_enum.__name__}")
            msg = ("Arguments other than a weight enum or `None` for 'weights' are deprecated "
                   "since 0.13 and may be removed in the future. The current behavior is "
                   f"equivalent to passing `weights={legacy}`.")
            if pretrained:
                msg += (f" You can also use `weights={weights_enum.__name__}.DEFAULT` to get "
                        "the most up-to-date weights.")
            warnings.warn(msg, stacklevel=3)
            weights = legacy
    return weights_enum.verify(weights)


def ovewrite_named_param(kwargs, param, new_value):
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(f"The parameter '{param}' expected value {new_value} but got "
                             f"{kwargs[param]} instead.")
    else:
        kwargs[param] = new_value


def build_model(make, enum, weights, progress, kwargs, when_weighted=None, fix_keys=None):
    """What every builder does: accept ``pretrained=``, fix ``num_classes`` to the weights',
    build with ``make(**kwargs)`` and load the cached checkpoint. ``when_weighted`` holds
    keyword values to use only when loading weights (VGG skips its own init then);
    ``fix_keys`` renames old checkpoint keys (DenseNet's)."""
    weights = handle_legacy(enum, weights, kwargs)
    if weights is not None:
        kwargs.update(when_weighted or {})
        ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = make(**kwargs)
    if weights is not None:
        state_dict = weights.get_state_dict(progress=progress, check_hash=True)
        model.load_state_dict(fix_keys(state_dict) if fix_keys else state_dict)
    return model


def build_with_aux_heads(make, weights, progress, kwargs):
    """``make(**kwargs)`` for googlenet and inception_v3, loading ``weights`` (already checked)
    when given: their checkpoints hold the auxiliary heads and were trained on transformed
    input, so then ``aux_logits`` must be True, ``transform_input`` defaults to True and the
    random init is skipped. The caller drops the heads afterwards if they were not asked for."""
    if weights is not None:
        kwargs.setdefault("transform_input", True)
        ovewrite_named_param(kwargs, "aux_logits", True)
        ovewrite_named_param(kwargs, "init_weights", False)
        ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = make(**kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def make_builder(name, enum, make, doc, **options):
    """A registered public builder ``name(*, weights=None, progress=True, **kwargs)`` that
    runs :func:`build_model` with ``make`` (``options``: its when_weighted/fix_keys)."""
    def build(*, weights=None, progress=True, **kwargs):
        return build_model(make, enum, weights, progress, kwargs, **options)
    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"{doc}; ``weights`` takes {enum.__name__} values."
    return builder(name, enum)(build)


def init_conv_bn_linear(model, uniform_linear=False):
    """MobileNet-style init: He-normal (fan out) convs, unit norms, N(0, 0.01) linears; with
    ``uniform_linear`` (EfficientNet's), linears are U(-1/sqrt(out), 1/sqrt(out)) instead."""
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            if uniform_linear:
                bound = 1.0 / math.sqrt(m.out_features)
                nn.init.uniform_(m.weight, -bound, bound)
            else:
                nn.init.normal_(m.weight, 0, 0.01)
            nn.init.zeros_(m.bias)


def make_divisible(v, divisor, min_value=None):
    """Round channels to a multiple of ``divisor`` without going more than 10% down."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


_PUBLISHED_META = None


def _published_meta():
    """torchvision's published facts per weights entry (class names, accuracies, GFLOPs, file
    sizes, recipe and licence links), written by ``tools/make_weights_meta.py``."""
    global _PUBLISHED_META
    if _PUBLISHED_META is None:
        path = os.path.join(os.path.dirname(__file__), "_weights_meta.json")
        with open(path, encoding="utf-8") as f:
            _PUBLISHED_META = json.load(f)
    return _PUBLISHED_META


def _add_published_meta(weights_enum):
    """Complete each member's ``meta`` with the published facts (once per enum)."""
    published = _published_meta()
    for member in weights_enum:
        facts = published["weights"].get(weights_enum.__name__, {}).get(member.name)
        if facts is None or "categories" in member.meta:
            continue
        facts = dict(facts)
        if facts["categories"] == "imagenet":
            facts["categories"] = list(published["imagenet_categories"])
        member.meta.update(facts)


def builder(name, weights_enum):
    """Register a model builder and remember its weights enum (for get_model_weights)."""
    def wrap(fn):
        fn._weights_enum = weights_enum
        _add_published_meta(weights_enum)
        return register_model(name)(fn)
    return wrap


def weights(url, crop=224, resize=256, preset=None, **meta):
    """A Weights entry with the ImageClassification preset of the given sizes (``preset``:
    its other keywords, such as ``interpolation``, ``mean`` and ``std``)."""
    from ..transforms._presets import ImageClassification
    return Weights(url=url, transforms=partial(ImageClassification, crop_size=crop,
                                               resize_size=resize, **(preset or {})),
                   meta=dict(meta))
