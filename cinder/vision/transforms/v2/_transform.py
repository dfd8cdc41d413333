"""The base of v2 transforms that act on whole samples: any nesting of tuples, lists and dicts
holding images (PIL, Tensor, tv_tensors.Image/Video), masks, boxes and other values.

Each transform draws its parameters once per call and applies them to every leaf it knows how
to transform, as torchvision's v2 does: tv_tensors and PIL images are transformed; a plain
tensor is treated as the image only when the sample holds no Image, Video or PIL image, and
then only the first one (torchvision's pass-through heuristic); anything else passes through.
"""

import enum

from PIL import Image as _PILImage

from .... import Tensor, nn
from .... import rand
from ... import tv_tensors

__all__ = ["Transform"]


def _flatten(tree):
    """(leaves, rebuild) for nested tuples, lists and dicts; ``rebuild(leaves)`` restores the
    structure around new leaves."""
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(item) for item in tree]
        kind = type(tree)

        def rebuild(leaves):
            out, start = [], 0
            for sub_leaves, sub_rebuild in parts:
                out.append(sub_rebuild(leaves[start:start + len(sub_leaves)]))
                start += len(sub_leaves)
            return kind(out)
        return [leaf for sub_leaves, _ in parts for leaf in sub_leaves], rebuild
    if isinstance(tree, dict):
        keys = list(tree)
        leaves, rebuild_values = _flatten([tree[k] for k in keys])
        kind = type(tree)
        return leaves, lambda new: kind(zip(keys, rebuild_values(new)))
    return [tree], lambda new: new[0]


def _is_pure_tensor(inpt):
    return isinstance(inpt, Tensor) and not isinstance(inpt, tv_tensors.TVTensor)


class Transform(nn.Module):
    """A v2 transform: ``make_params`` draws once per call, ``transform`` applies the result
    to each leaf that needs it."""

    _transformed_types = (Tensor, _PILImage.Image)

    def check_inputs(self, flat_inputs):
        pass

    def make_params(self, flat_inputs):
        return {}

    def transform(self, inpt, params):
        raise NotImplementedError

    def _needs_transform_list(self, flat_inputs):
        images = (tv_tensors.Image, tv_tensors.Video, _PILImage.Image)
        transform_pure_tensor = not any(isinstance(x, images) for x in flat_inputs)
        needs = []
        for inpt in flat_inputs:
            need = isinstance(inpt, self._transformed_types)
            if need and _is_pure_tensor(inpt):
                need, transform_pure_tensor = transform_pure_tensor, False
            needs.append(need)
        return needs

    def _apply(self, inputs, flat_inputs, rebuild):
        needs = self._needs_transform_list(flat_inputs)
        params = self.make_params([x for x, need in zip(flat_inputs, needs) if need])
        return rebuild([self.transform(x, params) if need else x
                        for x, need in zip(flat_inputs, needs)])

    def forward(self, *inputs):
        inputs = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, rebuild = _flatten(inputs)
        self.check_inputs(flat_inputs)
        return self._apply(inputs, flat_inputs, rebuild)

    def extra_repr(self):
        shown = []
        for name, value in self.__dict__.items():
            if name.startswith("_") or name == "training":
                continue
            if isinstance(value, (bool, int, float, str, tuple, list, enum.Enum)):
                shown.append(f"{name}={value}")
        return ", ".join(shown)


class _RandomApplyTransform(Transform):
    """A transform applied with probability ``p`` (one ``rand(1)`` draw per call)."""

    def __init__(self, p=0.5):
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        super().__init__()
        self.p = p

    def forward(self, *inputs):
        inputs = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, rebuild = _flatten(inputs)
        self.check_inputs(flat_inputs)
        if rand(1) >= self.p:
            return inputs
        return self._apply(inputs, flat_inputs, rebuild)
