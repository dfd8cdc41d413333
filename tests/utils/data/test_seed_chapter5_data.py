"""The book's chapter 5 data section (seed 002, 3.1.1-3.1.2: Dataset, DataLoader, collate_fn,
samplers), every cell run on PyTorch and on cinder with the same seed; printed output must
match.

The book reads eight dog/cat JPEGs with PIL and resizes them with torchvision.transforms;
neither belongs to this part of cinder (PIL decoding and transforms are cinder.vision's, pending
there). Here the images are NumPy arrays with the book's shapes scaled down by 10 (so float32
sums are exact in both libraries), and the transform is written with tensor operations. The
book's printed values that do not depend on the pictures are checked against the book too.
"""

import contextlib
import io
import textwrap

import numpy as np
import torch

import cinder

NAMES = ["cat.12484.jpg", "cat.12485.jpg", "cat.12486.jpg", "cat.12487.jpg",
         "dog.12496.jpg", "dog.12497.jpg", "dog.12498.jpg", "dog.12499.jpg"]
# Book order of the listing: the shapes printed in the first cell, scaled down by 10.
SHAPES = [(37, 49, 3), (49, 37, 3), (23, 28, 3), (37, 49, 3), (37, 49, 3), (37, 49, 3),
          (40, 30, 3), (50, 49, 3)]
ORDER = [4, 0, 1, 5, 2, 6, 7, 3]        # listdir order giving the book's labels 1 0 0 1 0 1 1 0


def fake_files(corrupt=False):
    """name -> uint8 image (or None for the unreadable file of data/dogcat_wrong/)."""
    files = {}
    for k, idx in enumerate(ORDER):
        files["data/dogcat/" + NAMES[idx]] = np.random.default_rng(k).integers(
            0, 256, SHAPES[k], dtype=np.uint8)
    if corrupt:
        files = dict(list(files.items())[:5] + [("data/dogcat/dog.broken.jpg", None)]
                     + list(files.items())[5:])
    return files


SETUP_RAW = '''
from torch.utils import data

class DogCat(data.Dataset):
    # The book's first DogCat: raw images, dog -> 1, cat -> 0.
    def __init__(self, files):
        self.imgs = list(files)
        self.files = files

    def __getitem__(self, index):
        img_path = self.imgs[index]
        label = 1 if 'dog' in img_path.split('/')[-1] else 0
        data = t.from_numpy(self.files[img_path])
        return data, label

    def __len__(self):
        return len(self.imgs)
'''

SETUP_TRANSFORMED = '''
from torch.utils import data

class DogCat(data.Dataset):
    # The book's second DogCat: with transforms, and dog -> 0, cat -> 1.
    def __init__(self, files, transforms=None):
        self.imgs = list(files)
        self.files = files
        self.transforms = transforms

    def __getitem__(self, index):
        img_path = self.imgs[index]
        label = 0 if 'dog' in img_path.split('/')[-1] else 1
        array = self.files[img_path]
        if array is None:
            raise OSError('cannot identify image file ' + img_path)
        data = t.from_numpy(array)
        if self.transforms:
            data = self.transforms(data)
        return data, label

    def __len__(self):
        return len(self.imgs)

def transform(img):
    # Stand-in for Resize(224) + CenterCrop(224) + ToTensor() + Normalize(.5, .5)
    chw = img.permute(2, 0, 1).float() / 255
    out = t.zeros(3, 224, 224)
    h, w = min(224, chw.size(1)), min(224, chw.size(2))
    out[:, :h, :w] = chw[:, :h, :w]
    return (out - 0.5) / 0.5
'''

CELLS = [
    # 3.1.1: iterate the raw dataset
    '''
dataset = DogCat(files)
img, label = dataset[0]
for img, label in dataset:
    print(img.size(), img.float().mean(), label)
''',
    # with a transform: every sample 3x224x224
    '''
dataset = DogCat(files, transforms=transform)
img, label = dataset[0]
for img, label in dataset:
    print(img.size(), label)
''',
    # 3.1.2: DataLoader and one batch
    '''
from torch.utils.data import DataLoader
dataset = DogCat(files, transforms=transform)
dataloader = DataLoader(dataset, batch_size=3, shuffle=True, num_workers=0, drop_last=False)
dataiter = iter(dataloader)
imgs, labels = next(dataiter)
print(imgs.size())
print(labels)
''',
    # the None-filtering collate_fn with a corrupt sample, one worker process
    '''
from torch.utils.data import DataLoader
from torch.utils.data.dataloader import default_collate

class NewDogCat(DogCat):
    def __getitem__(self, index):
        try:
            return super(NewDogCat, self).__getitem__(index)
        except:  # noqa: E722 - the book's code
            return None, None

def my_collate_fn(batch):
    batch = list(filter(lambda x: x[0] is not None, batch))
    if len(batch) == 0: return t.Tensor()
    return default_collate(batch)

dataset = NewDogCat(wrong_files, transforms=transform)
print(dataset[5])
print(dataset[6][0][:, :2, :3], dataset[6][1])
dataloader = DataLoader(dataset, 2, collate_fn=my_collate_fn, num_workers=1, shuffle=True)
for batch_datas, batch_labels in dataloader:
    print(batch_datas.size(), batch_labels.size())
''',
    # WeightedRandomSampler with and without replacement
    '''
from torch.utils.data import DataLoader
from torch.utils.data.sampler import WeightedRandomSampler
dataset = DogCat(files, transforms=transform)
weights = [2 if label == 1 else 1 for data, label in dataset]
print(weights)
sampler = WeightedRandomSampler(weights, num_samples=9, replacement=True)
dataloader = DataLoader(dataset, batch_size=3, sampler=sampler)
for datas, labels in dataloader:
    print(labels.tolist())
sampler = WeightedRandomSampler(weights, 8, replacement=False)
dataloader = DataLoader(dataset, batch_size=4, sampler=sampler)
for datas, labels in dataloader:
    print(labels.tolist())
''',
    # the book's BadDataset (a mutable counter in a dataset) still loads
    '''
from torch.utils.data import Dataset, DataLoader
class BadDataset(Dataset):
    def __init__(self):
        self.datas = range(100)
        self.num = 0
    def __getitem__(self, index):
        self.num += 1
        return self.datas[index]
    def __len__(self):
        return 100
ds = BadDataset()
print([b.tolist() for b in DataLoader(ds, batch_size=40, num_workers=2)])
print(ds.num)
''',
]


def run_cell(lib, cell):
    """Run SETUP and ``cell`` with ``t`` (the book's ``import torch as t``) and every
    ``from torch...`` import bound to ``lib``; returns what it printed."""
    cell = cell.replace("from torch.", f"from {lib.__name__}.")
    lib.manual_seed(0)
    scope = {"t": lib, "files": fake_files(), "wrong_files": fake_files(corrupt=True)}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        setup = SETUP_RAW if cell is CELLS[0] else SETUP_TRANSFORMED
        exec(textwrap.dedent(setup.replace("from torch.", f"from {lib.__name__}.")), scope)
        exec(textwrap.dedent(cell), scope)
    return out.getvalue()


def test_cells_print_what_pytorch_prints():
    for cell in CELLS:
        assert run_cell(cinder, cell) == run_cell(torch, cell), cell


def test_book_values_that_do_not_depend_on_the_pictures():
    printed = run_cell(cinder, CELLS[2])
    assert printed.startswith("torch.Size([3, 3, 224, 224])")
    printed = run_cell(cinder, CELLS[4])
    assert printed.splitlines()[0] == "[1, 2, 2, 1, 2, 1, 1, 2]"     # the book's weights
    assert len(printed.splitlines()) == 1 + 3 + 2
    printed = run_cell(cinder, CELLS[3]).splitlines()
    assert printed[0] == "(None, None)"
    # Nine files, one unreadable, batches of two: the book's sizes 2,1,2,2,1 in some order.
    sizes = sorted(line for line in printed if line.startswith("torch.Size([") and
                   "]) torch.Size([" in line)
    assert len(sizes) == 5
    assert sorted(s.split(",")[0] for s in sizes) == ["torch.Size([1"] * 2 + \
        ["torch.Size([2"] * 3
    assert run_cell(cinder, CELLS[5]).splitlines()[1] == "0"   # counted in the workers only
