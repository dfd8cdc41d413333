"""Rows for cinder/nn/modules/adaptive.py."""

import numpy as np


def rows(M, Arg, floats, ints):
    def batch(rng):
        return rng.uniform(-1, 1, (6, 8)), np.array([0, 4, 9, 2, 7, 5], dtype=np.int64)

    def bad_target(rng):
        return rng.uniform(-1, 1, (2, 8)), np.array([0, 12], dtype=np.int64)
    return [M("AdaptiveLogSoftmaxWithLoss", 8, 10, [3, 6], 2.0, inputs=batch,
              errors=[bad_target]),
            M("AdaptiveLogSoftmaxWithLoss", 8, 10, [4], kwargs={"head_bias": True},
              inputs=batch, desc="head_bias")]
