"""The array side of ``torch.multinomial`` with replacement (PyTorch's
``multinomial_with_replacement_apply``), for every row at once: the normalised cumulative
sums with PyTorch's per-row checks, and its binary search run for every sample in lockstep.
The generator (``_random_engine.py``) supplies the uniforms."""

import numpy as np


def cumulative_rows(rows, acc_dtype):
    """Per row, the cumulative sums divided by the row's total with the last slot set to 1
    (float64), as PyTorch builds them in ``acc_dtype``; or ``(row, message)`` for the first
    row that fails PyTorch's checks, which it makes entry by entry, then on the total."""
    values = rows.astype(acc_dtype)
    cum = np.cumsum(values, axis=1, dtype=acc_dtype)  # sequential, like the C++ loop
    sums = cum[:, -1:].copy()
    bad = _first_bad_row(values, sums[:, 0])
    if bad is not None:
        return None, bad
    cum /= sums
    cum[:, -1] = 1
    return cum.astype(np.float64), None


def _first_bad_row(values, sums):
    # NaN fails PyTorch's ``val >= 0`` test, so it reports the "< 0" message.
    not_nonneg = ~(values >= 0)
    bad_entry = not_nonneg | np.isinf(values)
    bad_row = bad_entry.any(axis=1) | ~(sums > 0)
    if not bad_row.any():
        return None
    r = int(bad_row.argmax())
    if not bad_entry[r].any():
        return r, "invalid multinomial distribution (sum of probabilities <= 0)"
    if not_nonneg[r, int(bad_entry[r].argmax())]:
        return r, "invalid multinomial distribution (encountering probability entry < 0)"
    return r, ("invalid multinomial distribution (encountering probability entry = infinity "
               "or NaN)")


def lockstep_search(cum, u):
    """For each row r and sample j, the first slot of ``cum[r]`` whose value is not below
    ``u[r, j]`` (``cum``'s width if none): PyTorch's binary search, run for every sample at
    once, for the same fixed number of halvings."""
    n_rows, n_cat = cum.shape
    # A sentinel column above every uniform: a finished search (left == right) reads it or
    # a slot not below u, so it stays put and no search needs masking.
    padded = np.empty((n_rows, n_cat + 1), dtype=np.float64)
    padded[:, :n_cat] = cum
    padded[:, n_cat] = 2.0
    flat = padded.ravel()
    kind = np.int32 if flat.size < 2 ** 31 else np.int64
    base = (np.arange(n_rows, dtype=kind) * kind(n_cat + 1))[:, None]
    left = np.zeros(u.shape, dtype=kind)
    right = np.full(u.shape, n_cat, dtype=kind)
    for _ in range(int(n_cat).bit_length()):
        mid = (left + right) >> 1
        below = flat[base + mid] < u
        left = np.where(below, mid + 1, left)
        right = np.where(below, right, mid)
    return left.astype(np.int64)
