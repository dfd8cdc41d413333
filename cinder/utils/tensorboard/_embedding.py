"""add_embedding's projector files, in the layout TensorBoard's projector plugin reads."""

import math
import os
import urllib.parse

import numpy as np
from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo, ProjectorConfig

from ._convert import grid_chw, make_np


def _tsv_metadata(metadata, header):
    if not header:
        return "\n".join(str(x) for x in metadata) + "\n"
    if len(header) != len(metadata[0]):
        raise AssertionError("len of header must be equal to the number of columns in metadata")
    rows = [header] + list(metadata)
    return "\n".join("\t".join(str(e) for e in row) for row in rows) + "\n"


def _sprite(label_img, path):
    from PIL import Image
    imgs = make_np(label_img)
    nrow = math.ceil(imgs.shape[0] ** 0.5)
    grid = grid_chw(imgs, ncols=nrow)
    square = np.zeros((grid.shape[2], grid.shape[2], 3))
    square[:grid.shape[1]] = grid.transpose(1, 2, 0)
    Image.fromarray(np.uint8((square * 255).clip(0, 255))).save(path, format="PNG")


def write_embedding(writer, mat, metadata, label_img, step, tag, metadata_header):
    from google.protobuf import text_format
    if mat.ndim != 2:
        raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
    subdir = f"{str(step).zfill(5)}/{urllib.parse.quote(tag, safe='')}"
    root = writer._get_file_writer().get_logdir()
    save_path = os.path.join(root, subdir)
    if os.path.isdir(save_path):
        print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
    os.makedirs(save_path, exist_ok=True)
    info = EmbeddingInfo(tensor_name=f"{tag}:{str(step).zfill(5)}",
                         tensor_path=f"{subdir}/tensors.tsv")
    if metadata is not None:
        if mat.shape[0] != len(metadata):
            raise AssertionError("#labels should equal with #data points")
        with open(os.path.join(save_path, "metadata.tsv"), "w") as f:
            f.write(_tsv_metadata(metadata, metadata_header))
        info.metadata_path = f"{subdir}/metadata.tsv"
    if label_img is not None:
        if mat.shape[0] != label_img.shape[0]:
            raise AssertionError("#images should equal with #data points")
        _sprite(label_img, os.path.join(save_path, "sprite.png"))
        info.sprite.image_path = f"{subdir}/sprite.png"
        info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
    with open(os.path.join(save_path, "tensors.tsv"), "w") as f:
        f.write("".join("\t".join(str(v) for v in row.tolist()) + "\n" for row in mat))
    if not hasattr(writer, "_projector_config"):
        writer._projector_config = ProjectorConfig()
    writer._projector_config.embeddings.extend([info])
    with open(os.path.join(root, "projector_config.pbtxt"), "w") as f:
        f.write(text_format.MessageToString(writer._projector_config))
