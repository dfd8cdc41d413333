"""The book's chapter 5 cells on torchvision and visualisation (sections 3.1.x "transforms",
ImageFolder, 3.2 torchvision, 3.3 TensorBoard and Visdom), adapted to run offline.

    python tests/seeds/run_chapter5_vision.py torch|cinder WORKDIR TORCHVISION_COPY

Adaptations, each keeping what the cell demonstrates: the dog/cat photos are 8 generated JPEGs;
MNIST is the repository's 1,000 test digits (un-gzipped, the layout torchvision reads) instead
of a download; ``pretrained=True`` is dropped (no network); ``tensorboardX`` is
``torch.utils.tensorboard`` and the event file is read back to print what TensorBoard would
plot; Visdom's client runs offline into a log file instead of a server; ``os.listdir`` is
sorted (its order is the file system's); a few prints show what the notebook displayed
(labels, the optimizer's lr). Not run: the section 3.4 cells, which need CUDA devices (one and
two GPUs), and 3.5's GPU branch (skipped by its own ``is_available()`` check). Each cell's output is
printed after a ``### cell`` marker so the two runs can be compared cell by cell.
"""

import os
import sys

CELLS = [
    # 3.1 transforms + a Dataset using them
    """
import os
from PIL import Image
import numpy as np
from torchvision import transforms as T
from torch.utils import data
transform = T.Compose([
    T.Resize(224),
    T.CenterCrop(224),
    T.ToTensor(),
    T.Normalize(mean=[.5, .5, .5], std=[.5, .5, .5])
])
class DogCat(data.Dataset):
    def __init__(self, root, transforms=None):
        imgs = sorted(os.listdir(root))
        self.imgs = [os.path.join(root, img) for img in imgs]
        self.transforms = transforms
    def __getitem__(self, index):
        img_path = self.imgs[index]
        label = 0 if 'dog' in img_path.split('/')[-1] else 1
        data = Image.open(img_path)
        if self.transforms:
            data = self.transforms(data)
        return data, label
    def __len__(self):
        return len(self.imgs)
dataset = DogCat('./data/dogcat/', transforms=transform)
img, label = dataset[0]
for img, label in dataset:
    print(img.size(), label, round(float(img.mean()), 4))
""",
    # ImageFolder
    """
from torchvision.datasets import ImageFolder
dataset = ImageFolder('data/dogcat_2/')
print(dataset.class_to_idx)
print(dataset.imgs)
print(dataset[0][1])
normalize = T.Normalize(mean=[0.4, 0.4, 0.4], std=[0.2, 0.2, 0.2])
transform = T.Compose([
    T.RandomResizedCrop(224),
    T.RandomHorizontalFlip(),
    T.ToTensor(),
    normalize,
])
dataset = ImageFolder('data/dogcat_2/', transform=transform)
print(dataset[0][0].size())
to_img = T.ToPILImage()
print(to_img(dataset[0][0] * 0.2 + 0.4).size)
""",
    # 3.2 models (pretrained weights need a download; the rest of the cell runs)
    """
from torchvision import models
from torch import nn
resnet34 = models.squeezenet1_1(num_classes=1000)
resnet34.fc = nn.Linear(512, 10)
print(resnet34.classifier)
print(sum(p.numel() for p in resnet34.parameters()))
""",
    # datasets.MNIST, ToPILImage of a random tensor, len
    """
from torchvision import datasets
transform = T.Compose([T.ToTensor()])
dataset = datasets.MNIST('data/', train=False, transform=transform)
from torchvision import transforms
to_pil = transforms.ToPILImage()
print(np.asarray(to_pil(t.randn(3, 64, 64))).sum())
print(len(dataset))
""",
    # make_grid and save_image
    """
from torch.utils.data import DataLoader
dataloader = DataLoader(dataset, shuffle=True, batch_size=16)
from torchvision.utils import make_grid, save_image
dataiter = iter(dataloader)
img = make_grid(next(dataiter)[0], 4)
print(img.shape, round(float(img.sum()), 2))
save_image(img, 'a.png')
print(Image.open('a.png').size, np.asarray(Image.open('a.png')).sum())
""",
    # 3.3.1 TensorBoard
    """
from torch.utils.tensorboard import SummaryWriter
logger = SummaryWriter(log_dir='experimient_cnn', flush_secs=2)
for ii in range(100):
    logger.add_scalar('data/loss', 10-ii**0.5)
    logger.add_scalar('data/accuracy', ii**0.5/10)
logger.close()
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator('experimient_cnn')
acc.Reload()
print(sorted(acc.Tags()['scalars']))
print([round(e.value, 4) for e in acc.Scalars('data/loss')][-3:])
""",
    # 3.3.2 Visdom
    """
import visdom
vis = visdom.Visdom(env=u'test1', use_incoming_socket=False, offline=True,
                    log_to_filename='visdom.log')
x = t.arange(1, 30, 0.01)
y = t.sin(x)
print(vis.line(X=x, Y=y, win='sinx', opts={'title': 'y=sin(x)'}))
for ii in range(0, 10):
    x = t.Tensor([ii])
    y = x
    vis.line(X=x, Y=y, win='polynomial', update='append' if ii>0 else None)
x = t.arange(0, 9, 0.1)
y = (x ** 2) / 9
print(vis.line(X=x, Y=y, win='polynomial', name='this is a new Trace', update='new'))
t.manual_seed(0)
vis.image(t.randn(64, 64).numpy())
vis.image(t.randn(3, 64, 64).numpy(), win='random2')
vis.images(t.randn(36, 3, 64, 64).numpy(), nrow=6, win='random3', opts={'title':'random_imgs'})
print(len(open('visdom.log').read().splitlines()))
""",
    # 3.1.1 the first DogCat: raw pixels through from_numpy (uint8, HxWxC)
    """
import torch as t
from torch.utils import data
class DogCat(data.Dataset):
    def __init__(self, root):
        imgs = sorted(os.listdir(root))
        self.imgs = [os.path.join(root, img) for img in imgs]
    def __getitem__(self, index):
        img_path = self.imgs[index]
        label = 1 if 'dog' in img_path.split('/')[-1] else 0
        pil_img = Image.open(img_path)
        array = np.asarray(pil_img)
        data = t.from_numpy(array)
        return data, label
    def __len__(self):
        return len(self.imgs)
dataset = DogCat('./data/dogcat/')
img, label = dataset[0]
for img, label in dataset:
    print(img.size(), img.float().mean(), label)
""",
    # 3.1.2 DataLoader over the transformed DogCat (the labels added to the print)
    """
transform = T.Compose([
    T.Resize(224),
    T.CenterCrop(224),
    T.ToTensor(),
    T.Normalize(mean=[.5, .5, .5], std=[.5, .5, .5])
])
class DogCat(data.Dataset):
    def __init__(self, root, transforms=None):
        imgs = sorted(os.listdir(root))
        self.imgs = [os.path.join(root, img) for img in imgs]
        self.transforms = transforms
    def __getitem__(self, index):
        img_path = self.imgs[index]
        label = 0 if 'dog' in img_path.split('/')[-1] else 1
        data = Image.open(img_path)
        if self.transforms:
            data = self.transforms(data)
        return data, label
    def __len__(self):
        return len(self.imgs)
from torch.utils.data import DataLoader
t.manual_seed(1)
dataset = DogCat('./data/dogcat/', transforms=transform)
dataloader = DataLoader(dataset, batch_size=3, shuffle=True, num_workers=0, drop_last=False)
dataiter = iter(dataloader)
imgs, labels = next(dataiter)
print(imgs.size(), labels.tolist())
""",
    # a collate_fn that drops unreadable samples, one worker process
    """
class NewDogCat(DogCat):
    def __getitem__(self, index):
        try:
            return super(NewDogCat, self).__getitem__(index)
        except:  # noqa: E722 - the book's code
            return None, None
from torch.utils.data.dataloader import default_collate
def my_collate_fn(batch):
    batch = list(filter(lambda x: x[0] is not None, batch))
    if len(batch) == 0: return t.Tensor()
    return default_collate(batch)
dataset = NewDogCat('data/dogcat_wrong/', transforms=transform)
print(dataset[4])
print(dataset[5])
t.manual_seed(2)
dataloader = DataLoader(dataset, 2, collate_fn=my_collate_fn, num_workers=1, shuffle=True)
for batch_datas, batch_labels in dataloader:
    print(batch_datas.size(), batch_labels.size())
""",
    # WeightedRandomSampler with and without replacement
    """
dataset = DogCat('data/dogcat/', transforms=transform)
weights = [2 if label == 1 else 1 for data, label in dataset]
print(weights)
from torch.utils.data.sampler import WeightedRandomSampler
t.manual_seed(3)
sampler = WeightedRandomSampler(weights, num_samples=9, replacement=True)
dataloader = DataLoader(dataset, batch_size=3, sampler=sampler)
for datas, labels in dataloader:
    print(labels.tolist())
sampler = WeightedRandomSampler(weights, 8, replacement=False)
dataloader = DataLoader(dataset, batch_size=4, sampler=sampler)
for datas, labels in dataloader:
    print(labels.tolist())
""",
    # 3.5 persistence (the GPU branch is skipped: no CUDA here, as the cell's own check says)
    """
a = t.Tensor(3, 4)
print(t.cuda.is_available())
from torchvision.models import SqueezeNet
model = SqueezeNet()
print(model.state_dict().keys())
t.save(model.state_dict(), 'squeezenet.pth')
print(model.load_state_dict(t.load('squeezenet.pth')))
optimizer = t.optim.Adam(model.parameters(), lr=0.1)
t.save(optimizer.state_dict(), 'optimizer.pth')
optimizer.load_state_dict(t.load('optimizer.pth'))
print(optimizer.state_dict()['param_groups'][0]['lr'])
all_data = dict(
    optimizer = optimizer.state_dict(),
    model = model.state_dict(),
    info = u'模型和优化器的所有参数'
)
t.save(all_data, 'all.pth')
all_data = t.load('all.pth')
print(all_data.keys(), all_data['info'])
""",
]


def main():
    lib, workdir, tv_copy = sys.argv[1:4]
    if lib == "cinder":
        import cinder.compat
        cinder.compat.install()
    else:
        sys.path.insert(0, tv_copy)
    os.chdir(workdir)
    import torch
    torch.manual_seed(0)
    ns = {"t": torch, "__name__": "__cell__"}
    import warnings
    warnings.simplefilter("ignore")
    for code in CELLS:
        print("### cell", flush=True)
        try:
            exec(code, ns)
        except Exception as e:  # noqa: BLE001 - the outcome is what gets compared
            print(f"!! {type(e).__name__}: {e}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
