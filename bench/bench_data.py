"""DataLoader throughput: cinder vs PyTorch in the same process, batches per second.

    python bench/bench_data.py          # prints a Markdown table

The dataset holds 28x28 uint8 images in memory (MNIST-sized); each item goes through a
per-item transform (to float, scale to [0, 1], normalise with MNIST's mean and std, add the
channel dimension), and batches of 64 are collated. One full epoch is timed, worker start-up
and shutdown included (that is what a training loop pays); the best epoch of each library
over several alternating rounds is reported, and the median of the per-round ratios. Each
library runs with one intra-op thread in every process.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)

N_IMAGES = 6400
BATCH = 64
IMAGES = np.random.default_rng(0).integers(0, 256, (N_IMAGES, 28, 28), dtype=np.uint8)
LABELS = np.random.default_rng(1).integers(0, 10, N_IMAGES)


class Images:
    """A map-style dataset written once for both libraries (``lib`` is torch or cinder)."""

    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return N_IMAGES

    def __getitem__(self, i):
        img = self.lib.from_numpy(IMAGES[i]).float().div(255)
        img = img.sub(0.1307).div(0.3081).unsqueeze(0)
        return img, int(LABELS[i])


def epoch_rate(lib, num_workers, epochs=3):
    """Best batches/s over ``epochs`` full passes (a new loader iterator each time)."""
    loader = lib.utils.data.DataLoader(Images(lib), batch_size=BATCH, shuffle=True,
                                       num_workers=num_workers)
    best = 0.0
    for _ in range(epochs):
        start = time.perf_counter()
        count = 0
        for images, _labels in loader:
            assert images.shape == (BATCH, 1, 28, 28) or count == len(loader) - 1
            count += 1
        best = max(best, count / (time.perf_counter() - start))
    return best


def main(rounds=4):
    print("| case | cinder batches/s | PyTorch batches/s | ratio of bests | median round ratio |")
    print("|---|---|---|---|---|")
    for num_workers in (0, 2):
        # Alternate the libraries so a burst of load on a shared machine hits both; each
        # round's ratio compares epochs run seconds apart, which a loaded machine skews less
        # than the ratio of the two best epochs.
        ours, theirs = [], []
        for _ in range(rounds):
            ours.append(epoch_rate(cinder, num_workers, epochs=2))
            theirs.append(epoch_rate(torch, num_workers, epochs=2))
        ratios = sorted(o / t for o, t in zip(ours, theirs))
        median = (ratios[(rounds - 1) // 2] + ratios[rounds // 2]) / 2
        print(f"| DataLoader 28x28, batch {BATCH}, num_workers={num_workers} | {max(ours):.0f} | "
              f"{max(theirs):.0f} | {max(ours) / max(theirs):.2f}x | {median:.2f}x |")


if __name__ == "__main__":
    main()
