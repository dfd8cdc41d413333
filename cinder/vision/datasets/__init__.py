"""``torchvision.datasets``: image datasets read from local files (cinder never downloads)."""

from .cifar import CIFAR10, CIFAR100  # noqa: F401
from .fakedata import FakeData  # noqa: F401
from .folder import DatasetFolder, ImageFolder  # noqa: F401
from .mnist import EMNIST, KMNIST, MNIST, QMNIST, FashionMNIST  # noqa: F401
from .svhn import SVHN  # noqa: F401
from .vision import VisionDataset  # noqa: F401
