"""Rows for cinder/nn/modules/linear.py."""


def rows(M, Arg, floats, ints):
    return [
        M("Identity", 3, inputs=floats((2, 3)), kwargs={"unused": True}),
        M("Linear", 5, 3, inputs=floats((4, 5))),
        M("Linear", 5, 3, inputs=floats((2, 4, 5)), desc="3d"),
        M("Linear", 5, 3, inputs=floats((5,)), desc="1d"),
        M("Linear", 5, 3, kwargs={"bias": False}, inputs=floats((4, 5)), desc="nobias"),
        M("Linear", 5, 3, inputs=floats((4, 5)), errors=[floats((4, 6))]),
        M("Bilinear", 3, 4, 2, inputs=floats((5, 3), (5, 4)),
          errors=[floats((5, 3), (5, 5))]),
        M("Bilinear", 3, 4, 2, kwargs={"bias": False}, inputs=floats((2, 5, 3), (2, 5, 4)),
          desc="3d-nobias"),
    ]
