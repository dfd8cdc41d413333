"""Write ``cinder/vision/models/_weights_meta.json``: the facts torchvision publishes about each
set of pretrained weights that cinder's weights enums carry in ``weights.meta``.

The facts are data about torchvision's checkpoint files — the ImageNet class names the
classifiers predict, the published accuracies (``_metrics``), GFLOPs (``_ops``), file sizes
(``_file_size``), training-recipe links and licence links. torchvision's ``_docs`` prose is
not copied. Run once against the torchvision release cinder mirrors (0.28.0):

    python tools/make_weights_meta.py PATH_CONTAINING_torchvision_PACKAGE

(the tests' oracle copy lives at ``~/.cache/cinder-tests/torchvision-0.28.0/copy``).
"""

import json
import pathlib
import sys

KEYS = ("recipe", "license", "_metrics", "_ops", "_file_size")
OUT = pathlib.Path(__file__).resolve().parent.parent / "cinder/vision/models/_weights_meta.json"


def main(path):
    sys.path.insert(0, path)
    import torchvision.models as M

    categories = None
    enums = {}
    for name in sorted(M.list_models(module=M)):
        enum = M.get_model_weights(name)
        for member in enum:
            meta = member.meta
            if categories is None:
                categories = meta["categories"]
            facts = {k: meta[k] for k in KEYS if k in meta}
            # The ImageNet list is stored once; other values (VGG16's feature-extractor
            # weights have none) are stored as they are.
            facts["categories"] = ("imagenet" if meta.get("categories") == categories
                                   else meta.get("categories"))
            enums.setdefault(enum.__name__, {})[member.name] = facts
    OUT.write_text(json.dumps({"imagenet_categories": categories, "weights": enums},
                              indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(enums)} enums)")


if __name__ == "__main__":
    main(sys.argv[1])
