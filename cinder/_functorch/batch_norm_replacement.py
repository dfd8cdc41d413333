"""``torch.func.replace_all_batch_norm_modules_``: make BatchNorm layers stop tracking running
statistics, so that ``vmap`` over a model does not write one batch's statistics into buffers
shared by every element."""

from ..nn.modules.batchnorm import _BatchNorm

__all__ = ["replace_all_batch_norm_modules_"]


def _without_running_stats(module):
    if isinstance(module, _BatchNorm) and module.track_running_stats:
        module.running_mean = None
        module.running_var = None
        module.num_batches_tracked = None
        module.track_running_stats = False


def replace_all_batch_norm_modules_(root):
    """In place: every BatchNorm module in ``root`` (``root`` included) gets
    ``running_mean``/``running_var``/``num_batches_tracked`` set to None and
    ``track_running_stats`` set to False. Returns ``root``."""
    _without_running_stats(root)
    for module in root.modules():
        _without_running_stats(module)
    return root
