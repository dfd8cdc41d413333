"""default_collate, default_convert and the collate() registry against PyTorch: every element
type it handles, structure it walks, and the errors it raises."""

import collections
import dataclasses

import numpy as np
import pytest
import torch

import cinder
from oracle import check, outcome
from utils.data.helpers import plain

Point = collections.namedtuple("Point", "x y")


@dataclasses.dataclass
class Pair:
    a: int
    b: float


class MyList(list):
    pass


class FrozenMap(collections.abc.Mapping):
    """A read-only mapping whose constructor takes a dict (collate rebuilds it)."""

    def __init__(self, d):
        self._d = dict(d)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __repr__(self):
        return f"FrozenMap({self._d!r})"


ENV = {"Point": Point, "Pair": Pair, "MyList": MyList, "FrozenMap": FrozenMap,
       "OrderedDict": collections.OrderedDict}
C = "L.utils.data.default_collate"

COLLATE_CASES = [
    f"{C}([L.tensor([1., 2.]), L.tensor([3., 4.])])",
    f"{C}([L.tensor(1), L.tensor(2)])",
    f"{C}([L.ones(2, 2, dtype=L.float64), L.zeros(2, 2, dtype=L.float64)])",
    f"{C}([np.array([1, 2]), np.array([3, 4])])",
    f"{C}([np.arange(4.).reshape(2, 2)] * 3)",
    f"{C}([np.float32(1.5), np.float32(2.5)])",
    f"{C}([np.int16(3), np.int16(4)])",
    f"{C}([np.bool_(True), np.bool_(False)])",
    f"{C}([1.5, 2.5])", f"{C}([1, 2, 3])", f"{C}([True, False])",
    # ints and floats take a direct NumPy path only when every element is exactly int/float
    f"{C}([1, 2.5])", f"{C}([1.5, 2])", f"{C}([1, True])", f"{C}([True, 1])",
    f"{C}([2**62, -2**63])", f"{C}([float('nan'), -0.0, float('inf')])",
    f"{C}([1, np.int64(2)])", f"{C}([1.5, np.float32(2)])",
    f"{C}(['a', 'b'])", f"{C}([b'a', b'b'])",
    f"{C}([{{'x': 1, 'y': 2.0}}, {{'x': 3, 'y': 4.0}}])",
    f"{C}([OrderedDict(a=L.tensor([1])), OrderedDict(a=L.tensor([2]))])",
    f"{C}([FrozenMap({{'k': 1}}), FrozenMap({{'k': 2}})])",
    f"{C}([Point(1, 2.0), Point(3, 4.0)])",
    f"{C}([(1, 'a'), (2, 'b')])",
    f"{C}([[1, 2], [3, 4]])",
    f"{C}([MyList([1, 2]), MyList([3, 4])])",
    f"{C}([range(2), range(2)])",
    f"{C}([{{'img': L.ones(2), 'meta': {{'id': 1, 'tag': 'a'}}}}] * 2)",
    f"{C}([([L.tensor([1]), 2], {{'z': np.array([1.])}})] * 2)",
    # errors
    f"{C}([[1, 2], [3]])",
    f"{C}([object(), object()])",
    f"{C}([None, None])",
    f"{C}([Pair(1, 2.0), Pair(3, 4.0)])",
    f"{C}([np.array(['a']), np.array(['b'])])",
    f"{C}([np.array([object()]), np.array([object()])])",
    f"{C}([L.ones(2), L.ones(3)])",
    f"{C}([])",
]


def _norm(out):
    """Outcome with the library name and object addresses taken out of messages/reprs."""
    kind, *rest = out
    return (kind, *(r.replace("cinder", "torch") for r in rest))


@pytest.mark.parametrize("expr", COLLATE_CASES)
def test_default_collate(expr):
    assert _norm(outcome(expr, cinder, ENV)) == _norm(outcome(expr, torch, ENV)), expr


@pytest.mark.parametrize("case", range(5))
def test_default_collate_values(case):
    """Compare structure and values (not reprs) of nested results."""
    def build(L):
        return [[{"a": np.arange(3), "b": [1.5, 2]}, {"a": np.arange(3) + 1, "b": [2.5, 3]}],
                [Point(L.tensor([1.]), "p"), Point(L.tensor([2.]), "q")],
                [(np.float64(1), 2), (np.float64(3), 4)],
                [[L.zeros(1, dtype=L.uint8)]] * 2,
                [{"k": (1, 2)}, {"k": (3, 4)}]][case]
    t = plain(torch.utils.data.default_collate(build(torch)))
    c = plain(cinder.utils.data.default_collate(build(cinder)))
    assert c == t


CONVERT_CASES = [
    "L.utils.data.default_convert(np.array([1, 2]))",
    "L.utils.data.default_convert(np.float64(2.5))",
    "L.utils.data.default_convert(np.array(['a', 'b']))",
    "L.utils.data.default_convert([np.array([1]), 2, 'x'])",
    "L.utils.data.default_convert((np.array([1]), 2))",
    "L.utils.data.default_convert({'a': np.array([1.]), 'b': 'c'})",
    "L.utils.data.default_convert(Point(np.array(0), np.array(1)))",
    "L.utils.data.default_convert(L.tensor([1, 2]))",
    "L.utils.data.default_convert(3)",
    "L.utils.data.default_convert('abc')",
    "L.utils.data.default_convert(np.str_('s'))",
]


@pytest.mark.parametrize("expr", CONVERT_CASES)
def test_default_convert(expr):
    check(expr, ENV)


def test_collate_registry_and_custom_fn():
    def run(L):
        from_lib = L.utils.data._utils.collate
        fn_map = dict(from_lib.default_collate_fn_map)
        fn_map[int] = lambda batch, *, collate_fn_map: sum(batch)
        custom = from_lib.collate([{"a": 1, "b": L.ones(2)}, {"a": 5, "b": L.zeros(2)}],
                                  collate_fn_map=fn_map)
        return plain(custom)
    assert run(cinder) == run(torch)


def test_none_filtering_collate_fn_from_the_book():
    """The book's my_collate_fn drops samples whose data is None (a corrupt image)."""
    def run(L):
        class DS(L.utils.data.Dataset):
            def __getitem__(self, i):
                return (None, None) if i == 3 else (L.full((2, 2), float(i)), i % 2)

            def __len__(self):
                return 9

        def my_collate_fn(batch):
            batch = [b for b in batch if b[0] is not None]
            if len(batch) == 0:
                return L.Tensor()
            return L.utils.data.dataloader.default_collate(batch)
        L.manual_seed(0)
        dl = L.utils.data.DataLoader(DS(), 2, collate_fn=my_collate_fn, num_workers=1,
                                     shuffle=True)
        return [(tuple(x.size()), tuple(y.size()), y.tolist()) for x, y in dl]
    assert run(cinder) == run(torch)
