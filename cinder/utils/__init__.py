"""``torch.utils``: data loading (``cinder.utils.data``) and checkpoint helpers."""
