"""LeNet-5 on real MNIST digits: the first network a PyTorch user trains.

Trains on the 4,000 digits shipped in examples/data (or a full MNIST download with --data),
with light augmentation (RandomCrop with 2 pixels of padding), a DataLoader with 2 worker
processes, Adam with a cosine learning-rate decay, tqdm progress bars showing loss and
throughput, test accuracy after every epoch, TensorBoard logs
when the `tensorboard` package is installed, a PNG grid of misclassified test digits, and a
checkpoint saved with cinder.save that real PyTorch loads unchanged.

    python examples/mnist.py                    # cinder
    python examples/mnist.py --torch            # the same script on real PyTorch
    python examples/mnist.py --data ~/mnist     # full MNIST in ~/mnist/MNIST/raw
    python examples/mnist.py --device cuda      # on a GPU

With --torch, torchvision is used when it imports; otherwise (a CPU-only torch beside a
torchvision wheel whose compiled ops do not load) the script keeps torch for the model, the
optimizer and the DataLoader, and reads the digits with cinder.vision's PIL-level dataset and
RandomCrop, turning each PIL image into a torch tensor itself.
"""

import os

# One BLAS/OpenMP thread for the training process: the two DataLoader workers need the other
# cores, and spinning BLAS threads starve them (7x slower on a 2-core machine). Set before
# NumPy or torch load; an explicit setting in the environment wins.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MEAN, STD = 0.1307, 0.3081          # MNIST's pixel mean and standard deviation


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="LeNet-5 on MNIST")
    p.add_argument("--torch", action="store_true", help="run on real PyTorch")
    p.add_argument("--data", default=os.path.join(HERE, "data"),
                   help="folder holding MNIST/raw (default: the 5,000 shipped digits)")
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=4e-3)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--train-limit", type=int, default=None,
                   help="train on the first N digits only (quick runs)")
    p.add_argument("--out", default=os.path.join("runs", "mnist"),
                   help="folder for the checkpoint, the PNG and TensorBoard logs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true", help="no tqdm bars")
    return p.parse_args(argv)


def libraries(use_torch):
    """(torch-like module, vision module or None, name) for this run."""
    if not use_torch:
        import cinder
        import cinder.vision
        return cinder, cinder.vision, "cinder"
    import torch
    try:
        import torchvision
    except Exception:            # CPU torch + a torchvision whose compiled ops do not load
        torchvision = None
    return torch, torchvision, "PyTorch"


def make_lenet(nn):
    """LeNet-5 (padding 2 keeps 28x28 inputs at LeCun's 32x32 geometry) built on ``nn``."""

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(6, 16, kernel_size=5), nn.ReLU(), nn.MaxPool2d(2))
            self.classifier = nn.Sequential(
                nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(),
                nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))

        def forward(self, x):
            return self.classifier(self.features(x))

    return LeNet


class ToLibTensor:
    """PIL digit -> normalised (1, 28, 28) float tensor of ``lib`` (used when no torchvision)."""

    def __init__(self, lib):
        self.lib = lib

    def __call__(self, img):
        x = (np.asarray(img, dtype=np.float32) / np.float32(255) - MEAN) / STD
        return self.lib.from_numpy(np.ascontiguousarray(x[None], dtype=np.float32))


def datasets(lib, vision, root, train_limit):
    """(train, test) datasets; augmentation only on the training digits."""
    if vision is not None:
        T = vision.transforms
        to_tensor = [T.ToTensor(), T.Normalize((MEAN,), (STD,))]
        MNIST = vision.datasets.MNIST
    else:
        from cinder.vision import datasets as cd, transforms as T
        to_tensor = [ToLibTensor(lib)]
        MNIST = cd.MNIST
    augment = T.RandomCrop(28, padding=2)
    train = MNIST(root, train=True, transform=T.Compose([augment] + to_tensor))
    test = MNIST(root, train=False, transform=T.Compose(to_tensor))
    if train_limit:
        train = lib.utils.data.Subset(train, range(min(train_limit, len(train))))
    return train, test


def seed_cinder_in_worker(worker_id):
    """--torch without torchvision: the augmentation draws from cinder's RNG, which a forked
    worker inherits unchanged; seed it from the worker's torch seed so workers differ."""
    import cinder
    import torch
    cinder.manual_seed(torch.initial_seed() % 2**63)


def progress(iterable, total, desc, enabled):
    """A tqdm bar when tqdm is installed and wanted; the plain iterable otherwise."""
    if enabled:
        try:
            from tqdm import tqdm
            return tqdm(iterable, total=total, desc=desc, unit="batch", leave=True,
                        dynamic_ncols=True)
        except ImportError:
            pass
    return iterable


def summary_writer(lib, name, out):
    """A TensorBoard SummaryWriter when the tensorboard package is installed, else None."""
    import importlib
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        return None
    tb = importlib.import_module(lib.__name__ + ".utils.tensorboard")
    writer = tb.SummaryWriter(log_dir=os.path.join(out, "tb", name))
    print(f"TensorBoard logs in {writer.log_dir}: view with "
          f"`tensorboard --logdir {os.path.join(out, 'tb')}`")
    return writer


def train_epoch(lib, model, loader, optimizer, device, epoch, args):
    model.train()
    loss_fn = lib.nn.CrossEntropyLoss()
    bar = progress(loader, len(loader), f"epoch {epoch:2d}", not args.no_progress)
    seen, total_loss, start = 0, 0.0, time.perf_counter()
    for images, labels in bar:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        seen += len(labels)
        total_loss += loss.item() * len(labels)
        if hasattr(bar, "set_postfix"):
            bar.set_postfix(loss=f"{total_loss / seen:.4f}",
                            img_s=f"{seen / (time.perf_counter() - start):.0f}")
    if hasattr(bar, "close"):
        bar.close()
    return total_loss / seen, seen / (time.perf_counter() - start)


def evaluate(lib, model, loader, device):
    """(accuracy, misclassified images, their predictions, their labels)."""
    model.eval()
    correct, wrong, wrong_pred, wrong_true = 0, [], [], []
    with lib.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            pred = model(images).argmax(dim=1)
            hit = pred == labels
            correct += int(hit.sum().item())
            miss = ~hit
            if miss.any():
                wrong.append(images[miss].cpu())
                wrong_pred.append(pred[miss].cpu())
                wrong_true.append(labels[miss].cpu())
    acc = correct / len(loader.dataset)
    return acc, wrong, wrong_pred, wrong_true


def save_mistakes(lib, vision, wrong, path):
    """A make_grid PNG of (up to 64) misclassified test digits, un-normalised to [0, 1]."""
    if not wrong:
        return None
    images = lib.cat(wrong)[:64] * STD + MEAN
    if vision is None:               # --torch without torchvision: draw with cinder.vision
        import cinder
        from cinder.vision import utils
        images = cinder.from_numpy(images.numpy())
    else:
        utils = vision.utils
    utils.save_image(images, path, nrow=8, padding=2, pad_value=1.0)
    return path


def main(argv=None):
    args = parse_args(argv)
    lib, vision, name = libraries(args.torch)
    lib.manual_seed(args.seed)
    device = lib.device(args.device)
    os.makedirs(args.out, exist_ok=True)
    started = time.perf_counter()

    train_set, test_set = datasets(lib, vision, args.data, args.train_limit)
    DataLoader = lib.utils.data.DataLoader
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              num_workers=args.workers, persistent_workers=args.workers > 0,
                              worker_init_fn=seed_cinder_in_worker if vision is None else None)
    test_loader = DataLoader(test_set, batch_size=500, num_workers=0)
    model = make_lenet(lib.nn)().to(device)
    optimizer = lib.optim.Adam(model.parameters(), lr=args.lr)
    print(f"{name}: LeNet-5 ({sum(p.numel() for p in model.parameters()):,} parameters), "
          f"{len(train_set)} training / {len(test_set)} test digits, device {device}")
    writer = summary_writer(lib, name, args.out)

    acc, wrong, wrong_pred, wrong_true = 0.0, [], [], []
    for epoch in range(1, args.epochs + 1):
        # Cosine decay of the learning rate: big steps early, fine settling at the end.
        for group in optimizer.param_groups:
            group["lr"] = args.lr * 0.5 * (1 + math.cos(math.pi * (epoch - 1) / args.epochs))
        loss, speed = train_epoch(lib, model, train_loader, optimizer, device, epoch, args)
        acc, wrong, wrong_pred, wrong_true = evaluate(lib, model, test_loader, device)
        print(f"epoch {epoch:2d}  train loss {loss:.4f}  {speed:6.0f} img/s  "
              f"test accuracy {acc:.2%}")
        if writer is not None:
            writer.add_scalar("train/loss", loss, epoch)
            writer.add_scalar("test/accuracy", acc, epoch)
            writer.add_scalar("train/images_per_second", speed, epoch)
    if writer is not None:
        writer.close()

    grid = save_mistakes(lib, vision, wrong, os.path.join(args.out, "misclassified.png"))
    if grid:
        print(f"{len(lib.cat(wrong_true)) if wrong else 0} misclassified test digits: {grid}")
    checkpoint = os.path.join(args.out, "lenet5.pt")
    lib.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
              "epoch": args.epochs, "test_accuracy": acc}, checkpoint)
    print(f"done in {time.perf_counter() - started:.1f} s on {name}")
    print(f"test accuracy {acc:.2%}; checkpoint saved to {checkpoint}")
    return acc


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
