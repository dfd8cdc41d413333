"""``torchvision.ops``: box operations, NMS, RoI pooling, losses and shared layers."""

from .boxes import (batched_nms, box_area, box_convert, box_iou,  # noqa: F401
                    clip_boxes_to_image, complete_box_iou, distance_box_iou,
                    generalized_box_iou, masks_to_boxes, nms, remove_small_boxes)
from .focal_loss import sigmoid_focal_loss  # noqa: F401
from .misc import (Conv2dNormActivation, Conv3dNormActivation, FrozenBatchNorm2d,  # noqa: F401
                   MLP, Permute, SqueezeExcitation, StochasticDepth)
from .poolers import MultiScaleRoIAlign  # noqa: F401
from .roi_align import (PSRoIAlign, PSRoIPool, RoIAlign, RoIPool, ps_roi_align,  # noqa: F401
                        ps_roi_pool, roi_align, roi_pool)
from .stochastic_depth import stochastic_depth  # noqa: F401
