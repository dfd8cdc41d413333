"""Rows for cinder/nn/modules/activation.py."""

SIMPLE = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU", "Mish", "Hardswish", "Hardsigmoid", "ELU",
          "CELU", "SELU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus",
          "Softshrink", "Softsign", "Tanhshrink", "Hardtanh", "GLU", "Softmax2d"]


def rows(M, Arg, floats, ints):
    out = [M(name, inputs=floats((2, 4, 3, 2), low=-4, high=4)) for name in SIMPLE]
    out += [
        M("ELU", kwargs={"alpha": 0.5}, inputs=floats((3, 4)), desc="alpha"),
        M("GELU", kwargs={"approximate": "tanh"}, inputs=floats((3, 4)), desc="tanh"),
        M("LeakyReLU", 0.2, True, inputs=floats((3, 4)), desc="inplace", grad=False),
        M("Hardtanh", -2.0, 3.0, inputs=floats((3, 4), low=-4, high=4), desc="range"),
        M("Threshold", 0.1, 20.0, inputs=floats((3, 4))),
        M("Softplus", 2.0, 1.0, inputs=floats((3, 4))),
        M("RReLU", 0.1, 0.3, inputs=floats((3, 4)), random=True),
        M("PReLU", inputs=floats((2, 3, 4))),
        M("PReLU", 3, 0.1, inputs=floats((2, 3, 4)), desc="channels",
          errors=[floats((2, 4, 4))]),
        M("Softmax", 1, inputs=floats((3, 4, 2))),
        M("Softmin", -1, inputs=floats((3, 4))),
        M("LogSoftmax", 1, inputs=floats((3, 4))),
        M("GLU", 0, inputs=floats((4, 3)), errors=[floats((3, 3))], desc="dim0"),
        M("Softmax2d", inputs=floats((3, 2, 2)), errors=[floats((2, 3))], desc="3d"),
    ]
    return out
