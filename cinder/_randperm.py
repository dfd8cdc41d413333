"""The two Fisher-Yates shuffles of PyTorch's CPU ``randperm``, replayed without a Python loop.

PyTorch fills ``r = arange(n)`` and then runs one of two sequential swap loops (see
``CPUGeneratorImpl.randperm`` for which one and how the random numbers are drawn). The swaps of
a step depend on what earlier steps moved, so the loops look inherently sequential. They are
not: each loop touches a slot only through "the last (or first) step that targeted this slot",
so grouping the steps by target with one sort and following those links with pointer jumping
(a handful of whole-array gathers, ``log2`` of the longest chain) gives the same permutation.

Both functions take the already drawn targets and return the permutation as int64 indices.
"""

import numpy as np

__all__ = ["forward_swaps", "inside_out_swaps"]


def _group_by_target(targets):
    """Sort the steps by (target, step): return the sorted targets and the matching steps."""
    n = targets.size
    steps = np.arange(n, dtype=np.int64)
    if n <= 3_037_000_499:  # n * n fits in int64: sort one combined key (much faster)
        return np.divmod(np.sort(targets * n + steps), n)
    order = np.argsort(targets, kind="stable")
    return targets[order], order


def _chain_ends(link):
    """Follow ``link`` (an index, or -1 for "stop here") from every slot to its last slot.

    Pointer jumping: each pass doubles how far every pointer reaches, so a chain of length L
    is resolved in about log2(L) passes.
    """
    ptr = np.where(link < 0, np.arange(link.size, dtype=np.int64), link)
    while True:
        further = ptr[ptr]
        if np.array_equal(further, ptr):
            return ptr
        ptr = further


def forward_swaps(offsets):
    """``r = arange(n)``; for ``i`` in ``0 .. n-2``: swap ``r[i]`` and ``r[i + offsets[i]]``.

    Slot ``i`` is final after step ``i``: it receives what slot ``t_i = i + offsets[i]`` held
    just before step ``i``. A slot ``p >= i`` only changes when a step aims at it, and then it
    takes what the stepping slot held just before its own step. So, writing ``before(k)``
    for what slot ``k`` held just before step ``k``,

    * ``before(k) = before(m)`` for the last step ``m < k`` aimed at slot ``k``, else ``k``;
    * ``r[i] = before(m)`` for the last step ``m < i`` aimed at ``t_i``, else ``t_i``.

    An extra no-op step ``n-1 -> n-1`` makes the last slot follow the same rule.
    """
    n = offsets.size + 1
    targets = np.empty(n, dtype=np.int64)
    np.add(offsets, np.arange(n - 1, dtype=np.int64), out=targets[:-1])
    targets[-1] = n - 1
    grouped, steps = _group_by_target(targets)
    same = grouped[1:] == grouped[:-1]
    # The previous step with the same target (steps ascend inside a group).
    previous = np.full(n, -1, dtype=np.int64)
    previous[steps[1:][same]] = steps[:-1][same]
    # The last step aimed at slot k comes before k unless it is k itself (offset 0).
    is_last = np.ones(n, dtype=bool)
    is_last[:-1] = ~same
    slot, last = grouped[is_last], steps[is_last]
    link = np.full(n, -1, dtype=np.int64)
    link[slot] = np.where(last == slot, previous[slot], last)
    before = _chain_ends(link)
    return np.where(previous < 0, targets, before[previous])


def inside_out_swaps(picks):
    """``r = arange(n)``; for ``i`` in ``0 .. n-1``: ``r[i] = r[picks[i]]; r[picks[i]] = i``.

    (``picks[i] <= i``.) Value ``i`` lands in slot ``picks[i]``; the first later step aimed at
    that slot moves it on to slot ``s`` (the step's own index), the first step after ``s``
    aimed at slot ``s`` moves it on again, and so on until no later step takes it.
    """
    n = picks.size
    picks = picks.astype(np.int64, copy=False)
    grouped, steps = _group_by_target(picks)
    same = grouped[1:] == grouped[:-1]
    # The next step with the same target.
    following = np.full(n, -1, dtype=np.int64)
    following[steps[:-1][same]] = steps[1:][same]
    # The first step aimed at slot s comes after s unless it is s itself (pick == s).
    is_first = np.ones(n, dtype=bool)
    is_first[1:] = ~same
    slot, first = grouped[is_first], steps[is_first]
    link = np.full(n, -1, dtype=np.int64)
    link[slot] = np.where(first == slot, following[slot], first)
    final_slot = _chain_ends(link)
    perm = np.empty(n, dtype=np.int64)
    perm[np.where(following < 0, picks, final_slot[following])] = np.arange(n, dtype=np.int64)
    return perm
