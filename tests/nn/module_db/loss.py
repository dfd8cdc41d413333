"""Rows for cinder/nn/modules/loss.py."""

import numpy as np


def _pair(shape, low=-2, high=2, tlow=-2, thigh=2):
    return lambda rng: (rng.uniform(low, high, size=shape), rng.uniform(tlow, thigh, size=shape))


def _classes(n, c, extra=()):
    return lambda rng: (rng.uniform(-2, 2, size=(n, c) + extra),
                        rng.integers(0, c, size=(n,) + extra).astype(np.int64))


def _signs(*shapes):
    def make(rng):
        arrays = tuple(rng.uniform(-2, 2, size=s) for s in shapes)
        target = np.where(rng.random(shapes[0][:1]) < 0.5, -1, 1).astype(np.float64)
        return arrays + (target,)
    return make


def _ctc(rng):
    lp = np.log(rng.dirichlet(np.ones(5), size=(8, 2)))
    return (lp, rng.integers(1, 5, size=(2, 3)).astype(np.int64),
            np.array([8, 6], dtype=np.int64), np.array([3, 2], dtype=np.int64))


def _multilabel(rng):
    target = np.array([[3, 0, -1, 1], [1, 2, 3, -1]], dtype=np.int64)
    return rng.uniform(-2, 2, size=(2, 4)), target


def _weight(values):
    def build(lib):
        return lib.tensor(values)
    return build


def rows(M, Arg, floats, ints):
    w5 = Arg(_weight([0.5, 1.0, 2.0, 1.5, 0.7]), "w5")
    return [
        M("L1Loss", inputs=_pair((3, 4))),
        M("MSELoss", inputs=_pair((3, 4))),
        M("MSELoss", kwargs={"reduction": "none"}, inputs=_pair((3, 4)), desc="none"),
        M("SmoothL1Loss", kwargs={"beta": 0.5}, inputs=_pair((3, 4))),
        M("HuberLoss", kwargs={"delta": 0.7}, inputs=_pair((3, 4))),
        M("SoftMarginLoss", inputs=lambda rng: (rng.uniform(-2, 2, (3, 4)),
                                                np.sign(rng.uniform(-1, 1, (3, 4)))),
          leaves=(0,)),
        M("CrossEntropyLoss", inputs=_classes(4, 5),
          errors=[lambda rng: (rng.uniform(size=(4, 5)), rng.uniform(size=(4,)))]),
        M("CrossEntropyLoss", kwargs={"weight": w5, "label_smoothing": 0.1},
          inputs=_classes(4, 5), desc="weighted-smoothed"),
        M("CrossEntropyLoss", kwargs={"ignore_index": 1}, inputs=_classes(2, 5, (3,)),
          desc="kd"),
        M("NLLLoss", kwargs={"weight": w5}, inputs=_classes(4, 5),
          errors=[lambda rng: (rng.uniform(size=(4, 5)), np.zeros((3,), np.int64)),
                  lambda rng: (rng.uniform(size=(4, 5)), np.zeros((4,), np.int32)),
                  lambda rng: (rng.uniform(size=(2, 5, 3)), np.zeros((2, 4), np.int64))]),
        M("NLLLoss2d", inputs=_classes(2, 3, (2, 2))),
        M("BCELoss", inputs=_pair((3, 4), 0.05, 0.95, 0, 1),
          errors=[lambda rng: (rng.uniform(0, 1, (3, 4)), rng.uniform(0, 1, (4,))),
                  lambda rng: (rng.uniform(1.5, 2, (3, 4)), rng.uniform(0, 1, (3, 4)))]),
        M("BCEWithLogitsLoss", kwargs={"pos_weight": Arg(_weight([1.0, 2.0, 0.5, 3.0]), "pw")},
          inputs=_pair((3, 4), -2, 2, 0, 1)),
        M("KLDivLoss", kwargs={"reduction": "batchmean"},
          inputs=lambda rng: (np.log(rng.dirichlet(np.ones(4), 3)), rng.dirichlet(np.ones(4), 3))),
        M("KLDivLoss", kwargs={"reduction": "sum", "log_target": True},
          inputs=lambda rng: (np.log(rng.dirichlet(np.ones(4), 3)),
                              np.log(rng.dirichlet(np.ones(4), 3))), desc="log_target"),
        M("PoissonNLLLoss", inputs=_pair((3, 4), -1, 1, 0, 3)),
        M("PoissonNLLLoss", False, True, inputs=_pair((3, 4), 0.5, 2, 0, 3), desc="full"),
        M("GaussianNLLLoss", inputs=lambda rng: (rng.uniform(-1, 1, (3, 4)),
                                                 rng.uniform(-1, 1, (3, 4)),
                                                 rng.uniform(0.5, 2, (3, 4)))),
        M("MarginRankingLoss", 0.3, inputs=_signs((5,), (5,))),
        M("HingeEmbeddingLoss", inputs=lambda rng: (rng.uniform(-2, 2, (5,)),
                                                    np.sign(rng.uniform(-1, 1, (5,))))),
        M("CosineEmbeddingLoss", 0.2, inputs=_signs((4, 3), (4, 3)),
          errors=[lambda rng: (rng.uniform(size=(4, 3)), rng.uniform(size=(4, 3)),
                               np.ones((4, 1)))]),
        M("MultiMarginLoss", inputs=lambda rng: (rng.uniform(-2, 2, (4, 5)),
                                                 rng.integers(0, 5, (4,)).astype(np.int64)),
          errors=[lambda rng: (rng.uniform(size=(4, 5)), np.zeros((3,), np.int64))]),
        M("MultiMarginLoss", 2, 0.5, w5, inputs=lambda rng: (
            rng.uniform(-2, 2, (4, 5)), rng.integers(0, 5, (4,)).astype(np.int64)),
          desc="p2-weighted"),
        M("MultiLabelMarginLoss", inputs=_multilabel),
        M("MultiLabelSoftMarginLoss", inputs=_pair((3, 4), -2, 2, 0, 1)),
        M("TripletMarginLoss", inputs=floats((4, 5), (4, 5), (4, 5)),
          errors=[floats((4, 5), (4, 5), (5,))]),
        M("TripletMarginLoss", kwargs={"swap": True, "p": 1.0},
          inputs=floats((4, 5), (4, 5), (4, 5)), desc="swap"),
        M("TripletMarginWithDistanceLoss", inputs=floats((4, 5), (4, 5), (4, 5))),
        M("CTCLoss", inputs=_ctc, tol={"float32": (1e-4, 1e-5)}),
    ] + linear_ce_rows(M, Arg, floats, ints)


def linear_ce_rows(M, Arg, floats, ints):
    return [
        M("LinearCrossEntropyLoss", 6, 4, inputs=_classes_from(6, 4, 5)),
        M("LinearCrossEntropyLoss", 6, 4, kwargs={"bias": True, "label_smoothing": 0.1,
                                                  "out_features": (2,)},
          inputs=lambda rng: (rng.uniform(-1, 1, (5, 6)),
                              rng.integers(0, 4, (5, 2)).astype(np.int64)), desc="kd-bias"),
    ]


def _classes_from(in_f, c, n):
    return lambda rng: (rng.uniform(-1, 1, (n, in_f)),
                        rng.integers(0, c, (n,)).astype(np.int64))
