"""``DistributedSampler``: each of ``num_replicas`` processes reads its own slice of the data."""

import math

from .sampler import Sampler
from ... import distributed as dist
from ...random import Generator

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Indices for replica ``rank`` of ``num_replicas``: the (optionally shuffled) index list
    is padded by repetition (or cut, with ``drop_last``) to a multiple of ``num_replicas`` and
    every ``num_replicas``-th index from ``rank`` on is taken. The shuffle is a ``randperm``
    seeded with ``seed + epoch``; call ``set_epoch`` each epoch for a new order.

    Left out, ``num_replicas`` and ``rank`` come from the default process group, as in
    PyTorch; cinder never has one, so they must be given (else PyTorch's ``ValueError`` about
    the uninitialised group).
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size()
        if rank is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(self.dataset)
        if self.drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        from ... import randperm
        if self.shuffle:
            g = Generator().manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch, which (with ``seed``) decides the next shuffle."""
        self.epoch = epoch
