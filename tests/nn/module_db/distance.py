"""Rows for cinder/nn/modules/distance.py."""


def rows(M, Arg, floats, ints):
    return [
        M("PairwiseDistance", inputs=floats((4, 5), (4, 5))),
        M("PairwiseDistance", 1.0, 1e-3, True, inputs=floats((4, 5), (4, 5)), desc="p1"),
        M("CosineSimilarity", inputs=floats((4, 5), (4, 5))),
        M("CosineSimilarity", 0, inputs=floats((4, 5), (1, 5)), desc="broadcast"),
    ]
