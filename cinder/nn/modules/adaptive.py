"""AdaptiveLogSoftmaxWithLoss: a softmax over many classes split into a frequent "head" and
rarer clusters whose projections are smaller (Grave et al., efficient softmax for GPUs)."""

import itertools
from collections import namedtuple

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module
from ...ops import FUNCTIONS

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of the targets (and their mean negative as the loss) under an
    adaptive softmax: classes below ``cutoffs[0]`` sit in the head, each later range in a
    cluster reached through a projection ``div_value`` times smaller than the previous."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 \
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // div_value ** (i + 1))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, **kw),
                                        Linear(hsz, osz, bias=False, **kw)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def _check(self, input_, target_):
        td = target_.dim()
        if td == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        elif td == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def forward(self, input_, target_):
        self._check(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        output = input.new_zeros(target.size(0))
        gather_inds = target.clone()
        bounds = [0] + self.cutoffs
        used = 0
        for i in range(len(bounds) - 1):
            mask = (target >= bounds[i]) & (target < bounds[i + 1])
            rows = mask.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            if i > 0:
                relative = target[mask] - bounds[i]
                cluster_logprob = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)),
                                                dim=1)
                local = cluster_logprob.gather(1, relative.unsqueeze(1)).squeeze(1)
                gather_inds = gather_inds.masked_fill(mask, self.shortlist_size + i - 1)
                output = output.scatter(0, rows, local)
            used += rows.numel()
        if used != target.size(0):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i, _ in enumerate(itertools.pairwise(self.cutoffs)):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob
                         + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return FUNCTIONS["cat"](parts, 1)

    def log_prob(self, input):
        """Log-probabilities of every class, shape (N, n_classes)."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row (only rows whose best head entry is a cluster
        need the full distribution)."""
        head_output = self.head(input)
        output = FUNCTIONS["argmax"](head_output, dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return FUNCTIONS["argmax"](self._get_full_log_prob(input, head_output), dim=1)
        log_prob = self._get_full_log_prob(input[outside], head_output[outside])
        output[outside] = FUNCTIONS["argmax"](log_prob, dim=1)
        return output
