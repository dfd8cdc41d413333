"""Equal values: sort, argsort, topk, kthvalue, median/nanmedian and mode report the same
indices as PyTorch's CPU kernels (std::sort, nth_element, heaps, ATen's quickselect), on
random inputs full of ties, every dtype, several dims, NaNs, sizes 1 to ~3000."""

import numpy as np
import pytest
import torch

import cinder

DTYPES = ["float32", "float64", "int64", "int32", "int16", "uint8", "float16", "bfloat16"]

# An input that drives libstdc++'s introsort to its depth limit (built with McIlroy's
# "killer adversary" against the median-of-three pivot), halved so that it holds ties:
# the heap sort that takes over must order the equal values as std::sort does.
_ADVERSARY = [
    163, 1, 125, 3, 181, 5, 123, 7, 161, 9, 121, 11, 195, 13, 119, 15, 159, 17, 117, 19, 179,
    21, 115, 23, 157, 25, 28, 27, 198, 196, 194, 192, 190, 188, 186, 184, 182, 180, 178, 176,
    174, 172, 170, 168, 166, 164, 162, 160, 158, 156, 154, 152, 150, 148, 146, 144, 142, 140,
    138, 136, 134, 132, 130, 128, 126, 124, 122, 120, 118, 116, 189, 155, 177, 153, 197, 151,
    175, 149, 187, 147, 173, 145, 193, 143, 171, 141, 185, 139, 169, 137, 200, 135, 167, 133,
    183, 131, 165, 129, 191, 127, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 114, 111,
    112, 109, 110, 107, 108, 105, 106, 103, 104, 101, 102, 99, 100, 97, 98, 95, 96, 93, 94, 91,
    92, 89, 90, 87, 88, 85, 86, 83, 84, 81, 82, 79, 80, 77, 78, 75, 76, 73, 74, 71, 72, 69, 70,
    67, 68, 65, 66, 63, 64, 61, 62, 59, 60, 57, 58, 55, 56, 53, 54, 51, 52, 49, 50, 47, 48, 45,
    46, 43, 44, 41, 42, 39, 40, 37, 38, 35, 36, 33, 34, 31, 32, 29, 30, 113]


def _pair(arr, dtype):
    """The same tensor in PyTorch and in cinder."""
    base = "float32" if dtype == "bfloat16" else dtype
    arr = np.ascontiguousarray(arr.astype(base))
    t, c = torch.from_numpy(arr.copy()), cinder.from_numpy(arr.copy())
    if dtype == "bfloat16":
        t, c = t.to(torch.bfloat16), c.to(cinder.bfloat16)
    return t, c


def _tied(rng, shape, dtype, nan=True):
    """Small integers (many repeats); NaNs in some float inputs."""
    a = rng.integers(0, int(rng.integers(1, 12)), shape).astype(np.float64)
    if nan and dtype.startswith(("float", "bfloat")) and rng.random() < 0.3:
        a[rng.random(shape) < 0.15] = np.nan
    return a


def _shape(rng, max_n=3000):
    """A 1-d, 2-d or 3-d shape with one long dim, and a dim along it."""
    n = int(rng.choice([1, 2, 15, 16, 17, 33, int(rng.integers(1, 300)), max_n]))
    kind = rng.integers(0, 3)
    if kind == 0:
        return (n,), 0
    if kind == 1:
        return (int(rng.integers(1, 4)), n), int(rng.choice([1, -1]))
    return (2, n, 3), 1


def _same(t_out, c_out):
    """Values (NaN equal to NaN) and int64 indices agree."""
    tv = t_out.float().numpy() if t_out.dtype == torch.bfloat16 else t_out.numpy()
    cv = c_out.float().numpy() if c_out.dtype == cinder.bfloat16 else c_out.numpy()
    assert tv.shape == cv.shape and tv.dtype == cv.dtype
    np.testing.assert_array_equal(tv, cv)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_and_argsort_match_on_ties(dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    for _ in range(12):
        shape, dim = _shape(rng)
        t, c = _pair(_tied(rng, shape, dtype), dtype)
        for desc in (False, True):
            for stable in (False, True):
                tv, ti = t.sort(dim=dim, descending=desc, stable=stable)
                cv, ci = c.sort(dim=dim, descending=desc, stable=stable)
                _same(tv, cv)
                _same(ti, ci)
            _same(torch.sort(t, dim, desc).indices, cinder.sort(c, dim, desc).indices)
            _same(t.argsort(dim, desc), c.argsort(dim, desc))


def test_sort_many_rows_and_few_ties():
    # many ranges at once, and long rows where only a few values repeat (float32 draws):
    # ranges found free of ties leave the emulation early
    rng = np.random.default_rng(12)
    for arr in (rng.integers(0, 30, (1500, 40)), rng.standard_normal(200000)):
        t, c = _pair(arr, "float32")
        _same(t.sort().indices, c.sort().indices)
        _same(t.sort(descending=True).indices, c.sort(descending=True).indices)


def test_sort_bool_and_msort():
    rng = np.random.default_rng(11)
    a = rng.random((3, 400)) < 0.5
    t, c = torch.from_numpy(a.copy()), cinder.from_numpy(a.copy())
    _same(t.sort(descending=True).indices, c.sort(descending=True).indices)
    _same(t.sort(0).indices, c.sort(0).indices)
    b = rng.integers(0, 3, (50, 4)).astype(np.float32)
    _same(torch.from_numpy(b).msort(), cinder.from_numpy(b).msort())


def test_sort_radix_path_is_stable_and_descending_is_not():
    # PyTorch sorts a 1-d integer tensor of at least 32768 elements ascending with a
    # (stable) radix sort; shorter, descending or 2-d ones go through std::sort
    rng = np.random.default_rng(3)
    for n in (32767, 32768, 40000):
        t, c = _pair(rng.integers(-5, 5, n), "int64")
        for desc in (False, True):
            _same(t.sort(descending=desc).indices, c.sort(descending=desc).indices)
    t, c = _pair(rng.integers(0, 5, (1, 40000)), "int32")
    _same(t.sort().indices, c.sort().indices)


def test_sort_radix_path_refuses_wide_unsigned():
    # (PyTorch's radix kernel has no uint16/32/64 version; shorter ones sort)
    for dtype in ("uint16", "uint32"):
        for n, error in ((40000, NotImplementedError), (400, None)):
            t, c = _pair(np.zeros(n), dtype)
            if error is None:
                _same(t.sort().indices, c.sort().indices)
                continue
            with pytest.raises(error) as te:
                t.sort()
            with pytest.raises(error) as ce:
                c.sort()
            assert str(te.value) == str(ce.value)


def test_sort_of_expanded_input_keeps_order():
    t = torch.tensor([2.0]).expand(100)
    c = cinder.tensor([2.0]).expand(100)
    _same(t.sort().indices, c.sort().indices)
    _same(t.sort(descending=True).indices, c.sort(descending=True).indices)


def test_sort_depth_limit_heap_sort_with_ties():
    base = np.array(_ADVERSARY)
    for arr in (base // 2, np.where(base > 100, base // 4, base)):
        for dtype in ("float32", "int64"):
            t, c = _pair(arr, dtype)
            _same(t.sort().indices, c.sort().indices)
            _same(t.topk(150).indices, c.topk(150).indices)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [True, False])
def test_topk_matches_on_ties(largest, sorted_):
    rng = np.random.default_rng(20 + 2 * largest + sorted_)
    for case in range(40):
        dtype = DTYPES[case % len(DTYPES)]
        shape, dim = _shape(rng)
        n = shape[dim]
        k = min(n, int(rng.choice([1, 2, n, max(1, n // 64), int(rng.integers(1, n + 1))])))
        t, c = _pair(_tied(rng, shape, dtype), dtype)
        tv, ti = t.topk(k, dim, largest, sorted_)
        cv, ci = c.topk(k, dim, largest, sorted_)
        _same(tv, cv)
        _same(ti, ci)


def test_topk_long_rows():
    rng = np.random.default_rng(5)
    for k in (1, 5, 100, 2000, 9000):
        t, c = _pair(_tied(rng, (10000,), "float32"), "float32")
        for largest in (True, False):
            _same(t.topk(k, largest=largest).indices, c.topk(k, largest=largest).indices)
    # distinct values but for one pair at the boundary
    a = rng.permutation(5000).astype(np.float64)
    a[a == 4990] = 4991
    t, c = _pair(a, "float64")
    _same(t.topk(10).indices, c.topk(10).indices)
    _same(t.topk(10, sorted=False).indices, c.topk(10, sorted=False).indices)


@pytest.mark.parametrize("dtype", ["float32", "int64", "int16", "uint8", "float16", "bfloat16"])
def test_topk_heap_on_monotone_tied_rows(dtype):
    # k * 64 <= n: partial_sort's heap, where on rising rows (falling ones for the smallest)
    # every element enters it; groups of 3 or 7 equal values, NaNs at either end
    n = 6400 if dtype != "uint8" else 640
    for group in (3, 7):
        up = (np.arange(n) // group).astype(np.float64) % (250 if dtype == "uint8" else n)
        for a in (up, up[::-1].copy()):
            t, c = _pair(a, dtype)
            for k in (1, 2, 10, n // 64):
                for largest in (True, False):
                    _same(t.topk(k, largest=largest).indices, c.topk(k, largest=largest).indices)
    if dtype.startswith(("float", "bfloat")):
        a = (np.arange(n) // 3).astype(np.float64)
        a[:5] = a[-5:] = np.nan
        t, c = _pair(a, dtype)
        for largest in (True, False):
            _same(t.topk(50, largest=largest).indices, c.topk(50, largest=largest).indices)


def test_topk_heap_rows_of_wide_int64_keys():
    # integer keys more than 2**53 apart (the heap's float items then hold dense ranks)
    rng = np.random.default_rng(13)
    a = rng.choice(np.array([0, 3, 2**54, 2**54 + 1, -2**54]), (5, 700))
    t, c = _pair(a, "int64")
    for k in (1, 4, 10):
        for largest in (True, False):
            _same(t.topk(k, 1, largest).indices, c.topk(k, 1, largest).indices)


def test_topk_unsorted_without_ties_is_nth_element_order():
    # (and with k * 64 <= n PyTorch's partial sort leaves them sorted even so)
    rng = np.random.default_rng(6)
    t, c = _pair(rng.permutation(3000), "int64")
    for k in (5, 46, 47, 100, 2999, 3000):
        _same(t.topk(k, sorted=False).indices, c.topk(k, sorted=False).indices)
        _same(t.topk(k, largest=False, sorted=False).values,
              c.topk(k, largest=False, sorted=False).values)


def test_topk_half_types_rank_nan_largest():
    a = np.array([598, 189, np.nan, 942, 212, 943, np.nan, 967, 560, 355] * 2)
    for dtype in ("bfloat16", "float16"):
        t, c = _pair(a, dtype)
        for k in (1, 3, 20):
            _same(t.topk(k).values, c.topk(k).values)
            _same(t.topk(k).indices, c.topk(k).indices)


def test_kthvalue_matches_on_ties():
    rng = np.random.default_rng(7)
    for case in range(60):
        dtype = DTYPES[case % 7]                   # (kthvalue refuses bfloat16 too)
        shape, dim = _shape(rng)
        k = int(rng.integers(1, shape[dim] + 1))
        keepdim = bool(case % 2)
        t, c = _pair(_tied(rng, shape, dtype), dtype)
        tv, ti = t.kthvalue(k, dim, keepdim)
        cv, ci = c.kthvalue(k, dim, keepdim)
        _same(tv, cv)
        _same(ti, ci)


def test_median_and_nanmedian_along_a_dim():
    rng = np.random.default_rng(8)
    for case in range(30):
        dtype = DTYPES[case % 7]
        shape, dim = _shape(rng, 500)
        a = _tied(rng, shape, dtype)
        if dtype.startswith("float") and case % 3 == 0:
            np.moveaxis(a, dim, -1)[..., :] = np.nan if case % 2 else a.mean()
        t, c = _pair(a, dtype)
        for name in ("median", "nanmedian"):
            tv, ti = getattr(t, name)(dim)
            cv, ci = getattr(c, name)(dim)
            _same(tv, cv)
            _same(ti, ci)


def test_nanmedian_of_all_nan_rows():
    for n in (1, 3, 4, 17, 60, 257):
        t, c = _pair(np.full((2, n), np.nan), "float32")
        _same(t.nanmedian(1).indices, c.nanmedian(1).indices)


def test_mode_matches_on_ties():
    rng = np.random.default_rng(9)
    for case in range(50):
        dtype = (DTYPES + ["bool"])[case % 9]
        shape, dim = _shape(rng, 2000)
        a = _tied(rng, shape, dtype) if dtype != "bool" else rng.random(shape) < 0.5
        t, c = _pair(a, dtype)
        tv, ti = t.mode(dim)
        cv, ci = c.mode(dim)
        _same(tv, cv)
        _same(ti, ci)


def test_mode_with_nans():
    # std::sort with a plain `<` cannot move values past NaNs, which splits runs
    rng = np.random.default_rng(10)
    for n in (5, 16, 17, 40, 300):
        a = rng.integers(0, 4, (6, n)).astype(np.float32)
        a[rng.random(a.shape) < 0.2] = np.nan
        t, c = _pair(a, "float32")
        _same(t.mode(1).values, c.mode(1).values)
        _same(t.mode(1).indices, c.mode(1).indices)


def test_pack_padded_sequence_orders_equal_lengths_as_torch():
    # enforce_sorted=False sorts the lengths with sort(descending=True): std::sort's order
    lens = [3, 5, 5, 2, 5, 3, 3, 1, 5, 5, 2, 2, 3, 4, 4, 4, 5, 5, 1, 1, 3]
    x = np.random.default_rng(13).standard_normal((5, len(lens), 2)).astype(np.float32)
    pt = torch.nn.utils.rnn.pack_padded_sequence(torch.from_numpy(x), torch.tensor(lens),
                                                 enforce_sorted=False)
    pc = cinder.nn.utils.rnn.pack_padded_sequence(cinder.from_numpy(x), cinder.tensor(lens),
                                                  enforce_sorted=False)
    _same(pt.sorted_indices, pc.sorted_indices)
    _same(pt.unsorted_indices, pc.unsorted_indices)
    _same(pt.data, pc.data)


@pytest.mark.parametrize("sorted_", [True, False])
@pytest.mark.parametrize("values", [3, 10**6])
def test_topk_along_a_leading_dim_is_row_major(sorted_, values):
    """topk along dim 0 of an (n, r) tensor, tied or not: the indices and values are
    PyTorch's, and so are their (row-major) strides, whichever path the rows took."""
    x = np.random.default_rng(7).integers(0, values, (212, 3)).astype(np.float32)
    for k in (5, 145):
        t = torch.topk(torch.from_numpy(x), k, 0, sorted=sorted_)
        c = cinder.topk(cinder.from_numpy(x), k, 0, sorted=sorted_)
        for a, b in zip(c, t):
            assert a.stride() == b.stride()
            np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "uint8"])
def test_median_kthvalue_rows_with_different_nan_counts(dtype):
    # rows whose medians sit at many different places (each row its own count of NaNs, some
    # all NaN) take the sort; few places take the partition; either way torch's indices
    rng = np.random.default_rng(11)
    for rows in (3, 12):
        a = rng.integers(0, 6, (rows, 40)).astype(np.float64)
        if dtype.startswith("float"):
            for r in range(rows):
                a[r, rng.permutation(40)[:r * 40 // (rows - 1)]] = np.nan
        t, c = _pair(a, dtype)
        for dim in (1, 0):
            for name in ("median", "nanmedian"):
                _same(getattr(t, name)(dim).indices, getattr(c, name)(dim).indices)
                _same(getattr(t, name)(dim).values, getattr(c, name)(dim).values)
            for k in (1, 2, a.shape[dim] // 2 + 1):
                _same(t.kthvalue(k, dim).indices, c.kthvalue(k, dim).indices)
        _same(t.median(), c.median())
        _same(t.nanmedian(), c.nanmedian())


def test_median_kthvalue_without_ties_match():
    # no equal values: the partition's index is the only answer
    rng = np.random.default_rng(12)
    a = rng.standard_normal((7, 301))
    t, c = _pair(a, "float64")
    for dim in (0, 1):
        _same(t.median(dim).indices, c.median(dim).indices)
        _same(t.kthvalue(5, dim).indices, c.kthvalue(5, dim).indices)
    t, c = _pair(a.ravel(), "float64")
    _same(t.kthvalue(1000).indices, c.kthvalue(1000).indices)
    _same(t.median(), c.median())


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "float16", "int64"])
def test_topk_one_is_the_first_best(dtype):
    # topk(1) of rows of 64 or more: a heap of one keeps the first of the best elements
    rng = np.random.default_rng(14)
    for n in (63, 64, 300):
        a = rng.integers(0, 3, (4, n)).astype(np.float64)
        if dtype.startswith("float"):
            a[0, [5, 40]] = np.nan
            a[1, [7, 30]], a[1, 20] = np.inf, np.nan        # NaN after +inf, before +inf
            a[2] = np.nan
            a[3, 9], a[3, 50] = -0.0, 0.0
        t, c = _pair(a, dtype)
        for dim in (0, 1):
            for largest in (True, False):
                tv, ti = t.topk(1, dim, largest)
                cv, ci = c.topk(1, dim, largest)
                _same(tv, cv)
                _same(ti, ci)


@pytest.mark.parametrize("dtype", ["float32", "int64", "int16", "float16"])
def test_mode_of_rows_with_many_values(dtype):
    # 32 or more distinct values: the emulation follows only the ranges holding the winner
    rng = np.random.default_rng(15)
    for shape, top in (((6, 500), 60), ((2000,), 300), ((3, 40, 2), 35)):
        a = rng.integers(0, top, shape).astype(np.float64)
        t, c = _pair(a, dtype)
        for dim in range(a.ndim):
            tv, ti = t.mode(dim)
            cv, ci = c.mode(dim)
            _same(tv, cv)
            _same(ti, ci)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bfloat16"])
def test_topk_heap_over_many_rows(dtype):
    # k * 64 <= n on many rows at once: every row's heap is fed its own entrants (rows with
    # none, rising rows where all enter, rows of one value, NaNs), both directions
    rng = np.random.default_rng(16)
    a = rng.integers(0, 40, (48, 700)).astype(np.float64)
    a[5] = np.arange(700) // 4                          # all enter (largest)
    a[6] = a[5][::-1]                                   # all enter (smallest)
    a[7] = 3                                            # one value: none enter
    if dtype != "int64":
        a[rng.random(a.shape) < 0.02] = np.nan
        a[8] = np.nan
    t, c = _pair(a, dtype)
    for k in (2, 5, 10):
        for largest in (True, False):
            _same(t.topk(k, 1, largest).indices, c.topk(k, 1, largest).indices)
            _same(t.topk(k, 1, largest).values, c.topk(k, 1, largest).values)
    _same(t.t().topk(6, 0).indices, c.t().topk(6, 0).indices)
