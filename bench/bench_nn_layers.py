"""The LeNet-5, ResNet-18 forward and ResNet-18 peak-memory cases of ``bench/bench_nn.py``
(kept as a script for the commands in bench/RESULTS.md; LeNet now trains with Adam, as the
issue's benchmark does): ``python bench/bench_nn_layers.py [--wall --seconds S]``."""

import sys

from bench_nn import main

if __name__ == "__main__":
    main(["lenet", "resnet", "memory"] + sys.argv[1:])
