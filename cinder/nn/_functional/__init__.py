"""The families of ``nn.functional``, one private module each (``activation``, ``loss``,
``pooling``...). ``cinder/nn/functional.py`` re-exports their public names: that module is the
one users import, as ``torch.nn.functional``.
"""

from ...ops import FUNCTIONS as _OPS


def _op(name):
    """The op-table entry ``name`` (the public function ``torch.<name>``)."""
    return _OPS[name]
